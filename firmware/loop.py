# The scan loop: the Board that main.py's start-up wired (wiring.py), scanned every period on a fixed
# schedule, the USB input fed to the link between scans, and the loop's edge that keeps the board
# scanning whatever a feature does: a MemoryError in the radio's link, the network or the clock
# display stops that feature, with one message and a sign on the LEDs, never the game, the clock or
# the save (docs/spec.md section 11); a bug in one is said on the console and the scans go on.
#
# Ctrl-C stays enabled: mpremote reaches the REPL by sending Ctrl-C, which raises KeyboardInterrupt
# in the loop below and ends main.py. The same byte (0x03) inside protocol traffic does the same,
# which is why the USB protocol is ASCII text only; but for DGT's clock messages, which carry it:
# while a DGT host speaks the Link takes 0x03 itself through micropython.kbd_intr (link/link.py).
import gc
import sys
import time

from micropython import const

try:
    _ticks_ms = time.ticks_ms
    ticks_us = time.ticks_us
    _ticks_diff = time.ticks_diff
    _ticks_add = time.ticks_add
    _sleep_ms = time.sleep_ms
except AttributeError:  # CPython (host tests): the same calls on a monotonic clock
    def _ticks_ms():
        return int(time.monotonic() * 1000)

    def ticks_us():
        return int(time.monotonic() * 1000000) & 0x3FFFFFFF

    def _ticks_diff(a, b):
        return a - b

    def _ticks_add(a, b):
        return a + b

    def _sleep_ms(ms):
        time.sleep(ms / 1000)


# Read at most this many input bytes between two scans, so a PC flooding the port cannot
# hold the scan loop off for long (64 bytes: half a protocol line; the commands a line completes
# run in the same turn).
INPUT_BURST = const(64)
# Input is looked at this often. At USB full speed a 128-byte line arrives in well under 1 ms;
# 10 ms keeps replies prompt without taking turns from the scan.
INPUT_PERIOD_MS = const(10)
# The online game (Pico W) is polled this often from the scan loop: a lit opponent's move or a
# move sent waits at most this long on top of the network.
ONLINE_POLL_MS = const(20)
# The on-board LED toggles this often while the loop runs: a frozen LED is a hung board.
HEARTBEAT_MS = const(500)
# ... and this often while a hardware fault stands (LED driver silent, switch matrix shorted): the
# one signal that still works when the square LEDs do not. The USB console says which fault.
FAULT_BLINK_MS = const(100)


# What the console says when a feature ran out of memory and stopped (made once, with the module:
# the moment they are needed is the moment the heap has nothing to spare).
BLE_STOPPED = "Bluetooth stopped: not enough memory (the game goes on; the ble command starts it again)"
ONLINE_STOPPED = "Lichess stopped: not enough memory (the game on the board goes on)"
FACE_STOPPED = "the clock display stopped: not enough memory (the clock goes on)"
GAME_SHORT = "not enough memory for the game: everything beside it stopped; the game goes on"
# A stopped feature the console could not speak of at once (its memory not back yet: the radio's
# or the network core's buffers go when that core next turns) is said this often until it can be.
UNTOLD_RETRY_MS = 1000
# The modules each feature brought in: dropped with it.
FEATURE_MODULES = {
    "ble": ("link.ble", "link.ble_command", "link.ble_mtu"),
    "online": ("online.central", "online.play", "online.board_api", "online.https", "online.lichess_game",
               "online.boot", "online.wifi", "online.sntp", "online.secrets", "online.usb",
               "online.broadcast", "online.broadcast_usb", "core.pgn_writer", "online"),
    "face": ("hardware.clock_face", "hardware.ssd1306"),
}


class Board:
    """Everything wired together: app, link, store, leds, status LED."""

    def __init__(self, app, link, store, leds, status_led=None, leds_fault=False, face=None):
        self.app = app
        self.face = face  # the optional clock display (hardware/clock_face.py), or None
        self.leds_fault = leds_fault  # the LED driver did not answer its self-test
        self.link = link
        self.store = store
        self.leds = leds
        self.status_led = status_led
        self.now = 0  # ms since start-up, never wrapping (see tick())
        self.online = None  # online/central.py's OnlineCentral on a Pico W playing on Lichess
        self.set_rtc = None  # the chip's clock setter, for online/boot.py (wiring.py sets it)
        self._online_at = 0
        self._short = False  # the game itself ran out of memory once (shed())
        self._last_ticks = _ticks_ms()
        self._beat = 0
        self._untold = None  # a stopped feature's sentence not said yet (stop()), the first if several
        self._untold_at = 0

    def start(self, ticks=None):
        """Power-up: read the board, resume the saved game, light the LEDs. ticks: the
        time.ticks_ms() value now (read here when not given)."""
        self._last_ticks = _ticks_ms() if ticks is None else ticks
        app = self.app
        app.start(self.now)
        self.link.poll(self.now)
        if self.status_led is not None:
            self.status_led.value(1)

    def tick(self, ticks):
        """One scan at time.ticks_ms() value `ticks`.

        The core subtracts times plainly, so it gets a count that never wraps: ticks_ms wraps at
        2**30 ms (12.4 days) on the Pico, ticks_diff takes the wrap out. Past 2**30 the count
        becomes a heap int (a few bytes per scan), which only a board left on for weeks reaches.

        The loop's edge: each feature beside the game is called inside its own try, written out
        (a bound method handed to a helper would be an allocation every scan). MemoryError stops
        the feature (stop()); any other exception is a bug, said on the console, and the scans go
        on. The game itself (App.step) stops its engine the same way (app.py)."""
        self.now += _ticks_diff(ticks, self._last_ticks)
        self._last_ticks = ticks
        now = self.now
        app = self.app
        try:
            app.step(now)
        except MemoryError:
            self.shed(now)  # the game itself found no memory: everything beside it gives its share
        link = self.link
        if link.polls:
            link.poll(now)  # the dialect's own errors, a MemoryError too, stay inside the Link
        else:
            link.now = now  # all poll() does outside CPP and ChessLink: one call less a scan
        ble = app.ble
        if ble is not None:
            try:
                ble.poll(now)  # what the radio queued, and the notifications due (never waits)
            except MemoryError:
                self.stop("ble", now)
            except Exception as e:  # noqa: BLE001 - a bug in the radio's link must not stop the board
                self.bug("ble", e)
        online = self.online
        if online is not None and now - self._online_at >= ONLINE_POLL_MS:
            # Lichess's news, taken from the network core: a short list, a few calls (the TLS and
            # the sockets never run here: online/board_api.py runs on the second core).
            self._online_at = now
            try:
                online.poll(now)
            except MemoryError:
                self.stop("online", now)
            except Exception as e:  # noqa: BLE001 - a bug online must not stop the board (as Link.poll)
                self.bug("online", e)
        if self.face is not None:
            try:
                self.face.step(now)  # at most one small I2C write a scan
            except MemoryError:
                self.stop("face", now)
            except Exception as e:  # noqa: BLE001 - a display that fails must not stop the board
                self.bug("face", e)
        if now - self._beat >= FAULT_BLINK_MS and self.status_led is not None:
            blink = FAULT_BLINK_MS if self.leds_fault or app.matrix_fault_seen else HEARTBEAT_MS
            if now - self._beat >= blink:
                self._beat = now
                self.status_led.value(not self.status_led.value())
        if self._untold is not None and now - self._untold_at >= UNTOLD_RETRY_MS:
            self._untold_at = now
            self._tell(self._untold, now)

    def stop(self, feature, now):
        """A feature ran out of memory: drop it (what it held goes back to the heap), then say so,
        on the console and on the LEDs (App.feature_stopped). Nothing is allocated until the
        feature's memory is free again; a board that cannot say it yet says it once it can
        (tick(), every UNTOLD_RETRY_MS)."""
        app = self.app
        text = FACE_STOPPED
        try:
            if feature == "ble":
                text = BLE_STOPPED
                ble, app.ble = app.ble, None
                ble.close()
            elif feature == "online":
                text = ONLINE_STOPPED
                online, self.online = self.online, None
                app.online = None
                online.stop()
            else:
                self.face = None
        except Exception:  # noqa: BLE001 - a feature that cannot even stop cleanly is dropped all the same
            pass
        gc.collect()
        try:
            from memory import forget

            forget(FEATURE_MODULES[feature])  # their code too, unless something else holds it
            gc.collect()
        except MemoryError:
            pass
        if self._untold is None:
            self._untold_at = now
            self._tell(text, now)

    def _tell(self, text, now):
        """Say that a feature stopped (App.feature_stopped), or keep it for later when even that
        finds no memory."""
        try:
            self.app.feature_stopped(text, now)
            self._untold = None
        except MemoryError:
            self._untold = text

    def shed(self, now):
        """The game's own step ran out of memory (every feature beside it holds too much): each
        of them stops, its memory goes back, and the referee is told what the debouncer saw that
        it had not heard of yet, so no lift or place is lost. Then the console says so."""
        app = self.app
        if app.ble is not None:
            self.stop("ble", now)
        if self.online is not None:
            self.stop("online", now)
        if self.face is not None:
            self.stop("face", now)
        if app.opponent is not None:
            app.drop_engine(now)
        if self.link.dialect not in (None, "board"):
            self.link.out_of_memory()
        gc.collect()
        try:
            app.catch_up(now)
            if not self._short:
                self._short = True  # said once: a board this short of memory says nothing more
                app.feature_stopped(GAME_SHORT, now)
        except MemoryError:
            pass

    def bug(self, feature, e):
        try:
            self.link.info("%s: internal error: %s" % (feature, ("%r" % (e,))[:100]))
        except MemoryError:
            pass

    def shutdown(self):
        """Leaving main.py (Ctrl-C): the game saved, LEDs dark, so a board at the REPL does not
        show stale moves."""
        try:
            self.app.save()
        except Exception:  # noqa: BLE001 - a failing save must not hide the real error
            pass
        try:
            self.leds.clear()
        except Exception:  # noqa: BLE001 - a dead LED driver must not hide the real error
            pass
        if self.status_led is not None:
            self.status_led.value(0)


def stdin_reader():
    """read_ready() for the Pico's USB serial: the bytes waiting, never blocking."""
    import select

    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    # CPython's buffered reader would read ahead past what poll() saw; MicroPython's has no .raw.
    stdin = getattr(stdin, "raw", stdin)
    poller = select.poll()
    poller.register(stdin, select.POLLIN)
    ipoll = getattr(poller, "ipoll", None)

    def read_ready():
        # ipoll reuses its result (no allocation per call); poll() makes a list each time.
        for _ in ipoll(0) if ipoll else poller.poll(0):
            return stdin.read(1)
        return None

    return read_ready


def run(board, read_ready, scan_steps=-1, sleep_ms=_sleep_ms):
    """board.tick every scan_period_ms on a fixed schedule; between scans, what USB received goes
    to the link (at most INPUT_BURST bytes, every INPUT_PERIOD_MS). read_ready() -> the bytes
    waiting, without blocking (b"" or None when nothing came). scan_steps < 0 runs forever.

    Fixed: each scan is due scan_period_ms after the one before, whatever the steps took, and is
    timed at that instant (it runs within a ms of it), so the debouncer's 10 ms are exactly two
    periods. Sleeping the period less the step's time, counted in whole ms, stretched the period
    to 5.5-6 ms, and a scan read a ms late now and then made 10 ms take three: a lift lit its LEDs
    up to 21-22 ms after it, past the 20 ms target (docs/figures.md: lift -> LEDs). A step that
    overran its period (a save) starts the schedule afresh from its end: no burst of catch-up
    scans. One plain loop, no asyncio: its tasks and its module cost RAM the board needs more."""
    period = board.app.settings.scan_period_ms
    link = board.link
    due = _ticks_ms()
    read_due = due
    while scan_steps != 0:
        board.tick(due)
        due = _ticks_add(due, period)
        now = _ticks_ms()
        if _ticks_diff(now, read_due) >= 0:
            read_due = _ticks_add(now, INPUT_PERIOD_MS)
            n = 0
            while n < INPUT_BURST:
                data = read_ready()
                if not data:
                    break
                link.feed(data)
                n += len(data)
        wait = _ticks_diff(due, _ticks_ms())
        if wait < 0:
            due = _ticks_ms()
            wait = 0
        sleep_ms(wait)
        if scan_steps > 0:
            scan_steps -= 1


def main():
    """main.py's body: wire the board (wiring.py, then dropped with the other start-up modules),
    then scan until Ctrl-C."""
    import wiring

    board = wiring.boot()
    wiring = None  # its functions are garbage now: wiring.boot() took it out of sys.modules
    try:
        run(board, stdin_reader())
    finally:
        board.shutdown()
