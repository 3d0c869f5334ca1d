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

from memory import forget, free

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
    if getattr(app.settings, "broadcast", None):
        # A board that broadcasts its own game plays it over the board, not on Lichess: the
        # broadcast takes the network core and its one TLS connection (online/broadcast.py).
        from online import broadcast

        if not usable(secrets, keys, console, "broadcast"):
            return None
        return broadcast.start(app, console, keys, network, host, port, retry_ms, lost_ms, set_rtc)
    if not keys.get("ssid") or not keys.get("token"):
        console("online: not set up (USB: online wifi-ssid NAME, online wifi-password PW, online lichess-token TOKEN)")
        return None
    if not usable(secrets, keys, console, "token"):
        return None
    import _thread
    import socket
    import ssl

    from online.board_api import BoardApi
    from online.central import OnlineCentral
    from online.play import Session

    central = OnlineCentral(app, console)
    lock = _thread.allocate_lock()
    ticks_ms, sleep_ms = clock_functions()
    api = BoardApi(socket, None, keys["token"], host=host, port=port, ticks_ms=ticks_ms, sleep_ms=sleep_ms, lock=lock,
                   free=free)
    central.session = Session(api, central, accept="")
    central.net("connecting")
    if seek:
        central.session.seek_when_idle(seek[0], seek[1])
    core = NetworkCore(api, network, socket, ssl, keys["ssid"], keys.get("password"), ticks_ms, sleep_ms,
                       retry_ms, lost_ms, set_rtc)
    keys = None
    forget(("online.secrets",))  # read once; `online` over USB loads it again
    gc.collect()
    _thread.start_new_thread(run, (core,))
    return central


def clock_functions():
    """(ticks_ms, sleep_ms): MicroPython's, or the same on CPython's monotonic clock (tests)."""
    import time

    try:
        return time.ticks_ms, time.sleep_ms
    except AttributeError:
        def ticks_ms():
            return int(time.monotonic() * 1000)

        def sleep_ms(ms):
            time.sleep(ms / 1000)

        return ticks_ms, sleep_ms


# The USB command that sets each key again, for the sentence that says a key cannot be used.
_SET_BY = {"ssid": "wifi-ssid NAME", "password": "wifi-password PW", "token": "lichess-token TOKEN",
           "broadcast": "broadcast-token TOKEN"}


def usable(secrets, keys, console, token):
    """Whether the Wi-Fi's keys and the token (token: "token" or "broadcast") in the secrets file can
    be used. One written by hand into the file (the USB command refuses it) is said, and the board
    plays offline."""
    for key in ("ssid", "password", token):
        why = secrets.problem(key, keys[key]) if key in keys else None
        if why:
            console("online: the %s in %s cannot be used: %s. The board stays offline; set it again (USB: online %s)"
                    % (secrets.NAMES[key], secrets.SECRETS_PATH, why, _SET_BY[key]))
            return False
    return True


def run(core):
    """The second core's whole life (the thread's function): its turns until stop()."""
    core.run()


class NetworkCore:
    """What the second core does, one turn at a time: join the Wi-Fi, set the clock by SNTP, load
    the roots, then the Board API's turns; any of them failed is tried again after a pause. turn()
    never waits; run() waits between turns (tools/memory/ steps turn() itself). api: the Board API
    client, or a broadcast's pusher (online/broadcast.py); both have stopped, ctx, wifi_up, note(),
    turn(lost_ms) and close_all()."""

    def __init__(self, api, network, socket, ssl, ssid, password, ticks_ms, sleep_ms, retry_ms, lost_ms, set_rtc):
        self.api = api
        self.network = network
        self.socket = socket
        self.ssl = ssl
        self.ssid = ssid
        self.password = password
        self.ticks_ms = ticks_ms
        self.sleep_ms = sleep_ms
        self.retry_ms = retry_ms
        self.lost_ms = lost_ms
        self.set_rtc = set_rtc
        self.clock_set = set_rtc is None
        self.wlan = None  # joined: the station interface
        self.failures = 0

    def run(self):
        api = self.api
        while not api.stopped:
            pause = self.turn()
            if pause and not api.stopped:
                self.sleep_ms(pause)
        api.close_all()

    def turn(self):
        """One piece of the network core's work; returns the ms to pause before the next."""
        api = self.api
        try:
            if self.wlan is None:
                return self._join()
            pause = api.turn(self.lost_ms)
            if pause < 0:  # board_api.LOST: the Wi-Fi down too long
                api.note("wifi", "lost")  # joined again at the next turn
                self.wlan.disconnect()
                self.wlan = None
                return 0
            return pause
        except Exception as e:  # noqa: BLE001 - the network core carries on whatever broke
            api.note("wifi", "error (%s), trying again" % type(e).__name__)
            return self._failed()

    def _failed(self):
        self.failures += 1
        self.wlan = None
        return self.retry_ms[min(self.failures - 1, len(self.retry_ms) - 1)]

    def _join(self):
        """Join, set the clock, load the roots: each module only for as long as it is used (a
        rejoin loads them again), so a game's heap does not carry them."""
        api = self.api
        from online import wifi

        wlan, state = wifi.join(self.network, self.ssid, self.password, self.ticks_ms, self.sleep_ms)
        connected = state == wifi.CONNECTED
        wifi = None
        forget(("online.wifi",))
        api.note("wifi", state)
        if not connected:
            return self._failed()
        if not self.clock_set:
            from online import sntp

            unix = sntp.set_clock(self.socket, self.set_rtc)
            sntp = None
            forget(("online.sntp",))
            if unix is None:
                api.note("tls", "no network time (SNTP) yet: certificates cannot be checked; trying again")
                return self._failed()
            self.clock_set = True
        if api.ctx is None:
            from online import https

            try:
                with open(ROOTS_PATH, "rb") as f:
                    api.ctx = https.context(self.ssl, f.read())
            except (OSError, ValueError) as e:
                api.note("tls", "the roots file %s cannot be used (%s)" % (ROOTS_PATH, e))
                return self._failed()
        self.failures = 0
        api.wifi_up = wlan.isconnected
        self.wlan = wlan
        gc.collect()
        return 0
