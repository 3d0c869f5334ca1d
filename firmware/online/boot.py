# Online play at power-up (Pico W, Pico 2 W): wiring.py calls start() once the board is wired. A Pico
# without a radio (no `network` module), or a board whose Wi-Fi or token was never written
# (the USB command `online`, online/usb.py), stays offline and loses nothing.
#
# Core 0 keeps the 4 ms scan loop; loop.py polls the OnlineCentral every ONLINE_POLL_MS (20 ms).
# Core 1 (one _thread, all the rp2 port allows) joins the Wi-Fi, sets the clock by SNTP, loads the roots and
# runs the Board API client; that is where every TLS handshake happens. It never ends: a failed
# join, a lost Wi-Fi, no network time are tried again after a pause (JOIN_RETRY_MS), and the main
# loop is told each time ("wifi" notes: the console and the centre squares' sign). Memory: this module and
# online/ load only here, after the boot-only modules are dropped.
import gc

ROOTS_PATH = "online/roots.pem"  # Lichess's certificate roots; replaceable (docs/lichess-wifi.md)
# The network core never gives up: a join that fails (no network, wrong password, router off), the
# network time or the roots not to be had, are tried again after these pauses (ms), the last one
# repeating; the Wi-Fi down for WIFI_LOST_MS while online is joined again the same way.
JOIN_RETRY_MS = (5000, 10000, 30000, 60000)
WIFI_LOST_MS = 10000


def start(app, console, seek=None, host="lichess.org", port=443, retry_ms=JOIN_RETRY_MS, lost_ms=WIFI_LOST_MS, set_rtc=None):
    """The OnlineCentral to poll, or None when the board stays offline (console says why).
    seek: (minutes, increment) to seek at power-up unless a game is in progress. host, port: the
    server (Lichess; a test's own). retry_ms, lost_ms: JOIN_RETRY_MS, WIFI_LOST_MS (a test's own).
    set_rtc: the chip's real-time clock setter (wiring.py passes machine.RTC().datetime), set from
    SNTP so certificate dates can be checked; None where the host's clock is already right."""
    try:
        import network
    except ImportError:
        return None  # no radio: nothing to say, nothing lost
    from online import secrets

    keys = secrets.load()
    if not keys.get("ssid") or not keys.get("token"):
        console("online: not set up (USB: online wifi-ssid NAME, online wifi-password PW, online lichess-token TOKEN)")
        return None
    for key, command in (("ssid", "wifi-ssid NAME"), ("password", "wifi-password PW"), ("token", "lichess-token TOKEN")):
        why = secrets.problem(key, keys[key]) if key in keys else None
        if why:
            # Written by hand into the file (the USB command refuses it): said, and the board plays offline.
            console("online: the %s in %s cannot be used: %s. The board stays offline; set it again (USB: online %s)"
                    % (secrets.NAMES[key], secrets.SECRETS_PATH, why, command))
            return None
    import _thread
    import socket
    import ssl
    import time

    from online.board_api import BoardApi
    from online.central import OnlineCentral
    from online.play import Session

    central = OnlineCentral(app, console)
    lock = _thread.allocate_lock()
    try:
        ticks_ms, sleep_ms = time.ticks_ms, time.sleep_ms
    except AttributeError:  # CPython (tests): the same clock in ms
        def ticks_ms():
            return int(time.monotonic() * 1000)

        def sleep_ms(ms):
            time.sleep(ms / 1000)

    api = BoardApi(socket, None, keys["token"], host=host, port=port, ticks_ms=ticks_ms, sleep_ms=sleep_ms, lock=lock)
    central.session = Session(api, central, accept="")
    central.net("connecting")
    if seek:
        central.session.seek_when_idle(seek[0], seek[1])
    ssid, password = keys["ssid"], keys.get("password")
    keys = None

    def network_core():
        from online import https, sntp, wifi

        clock_set = set_rtc is None
        failures = 0
        while not api.stopped:
            if failures:
                sleep_ms(retry_ms[min(failures - 1, len(retry_ms) - 1)])
                if api.stopped:
                    break
            try:
                wlan, state = wifi.join(network, ssid, password, ticks_ms, sleep_ms)
                api.note("wifi", state)
                if state != wifi.CONNECTED:
                    failures += 1
                    continue
                if not clock_set:
                    if sntp.set_clock(socket, set_rtc) is None:
                        api.note("tls", "no network time (SNTP) yet: certificates cannot be checked; trying again")
                        failures += 1
                        continue
                    clock_set = True
                if api.ctx is None:
                    try:
                        with open(ROOTS_PATH, "rb") as f:
                            api.ctx = https.context(ssl, f.read())
                    except (OSError, ValueError) as e:
                        api.note("tls", "the roots file %s cannot be used (%s)" % (ROOTS_PATH, e))
                        failures += 1
                        continue
                failures = 0
                gc.collect()
                api.wifi_up = wlan.isconnected
                if api.run(lost_ms):
                    api.note("wifi", "lost")  # joined again from the top of the loop
                    wlan.disconnect()
            except Exception as e:  # noqa: BLE001 - the network core carries on whatever broke
                api.note("wifi", "error (%s), trying again" % type(e).__name__)
                failures += 1

    _thread.start_new_thread(network_core, ())
    return central
