# The scan loop: the Board that main.py's start-up wired (wiring.py), scanned every period on a fixed
# schedule, the USB input fed to the link between scans, and the loop's edge that keeps the board
# scanning whatever a feature does (a MemoryError or a bug in the radio, the network or a clock
# display stops that feature, never the game: docs/spec.md section 11).
#
# Ctrl-C stays enabled: mpremote reaches the REPL by sending Ctrl-C, which raises KeyboardInterrupt
# in the loop below and ends main.py. The same byte (0x03) inside protocol traffic does the same,
# which is why the USB protocol is ASCII text only; but for DGT's clock messages, which carry it:
# while a DGT host speaks the Link takes 0x03 itself through micropython.kbd_intr (link/link.py).
import sys
import time

import asyncio
from micropython import const

try:
    _ticks_ms = time.ticks_ms
    ticks_us = time.ticks_us
    _ticks_diff = time.ticks_diff
    _ticks_add = time.ticks_add
    _sleep_ms = asyncio.sleep_ms
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
        return asyncio.sleep(ms / 1000)


# Read at most this many input bytes per turn of the input task, so a PC flooding the port cannot
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
        self._last_ticks = _ticks_ms()
        self._beat = 0

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
        becomes a heap int (a few bytes per scan), which only a board left on for weeks reaches."""
        self.now += _ticks_diff(ticks, self._last_ticks)
        self._last_ticks = ticks
        now = self.now
        self.app.step(now)
        link = self.link
        if link.polls:
            link.poll(now)
        else:
            link.now = now  # all poll() does outside CPP and ChessLink: one call less a scan
        ble = self.app.ble
        if ble is not None:
            ble.poll(now)  # what the radio queued, and the notifications due (never waits)
        online = self.online
        if online is not None and now - self._online_at >= ONLINE_POLL_MS:
            # Lichess's news, taken from the network core: a short list, a few calls (the TLS and
            # the sockets never run here: online/board_api.py runs on the second core).
            self._online_at = now
            try:
                online.poll(now)
            except Exception as e:  # noqa: BLE001 - a bug online must not stop the board (as Link.poll)
                self.link.info("online: internal error: %s" % ("%r" % (e,))[:100])
        if self.face is not None:
            self.face.step(now)  # at most one small I2C write a scan
        if now - self._beat >= FAULT_BLINK_MS and self.status_led is not None:
            blink = FAULT_BLINK_MS if self.leds_fault or self.app.matrix_fault_seen else HEARTBEAT_MS
            if now - self._beat >= blink:
                self._beat = now
                self.status_led.value(not self.status_led.value())

    async def scan_task(self, period_ms, steps=-1):
        """app.step every period_ms on a fixed schedule; `steps` < 0 runs forever.

        Fixed: each scan is due period_ms after the one before, whatever the steps took, and is
        timed at that instant (it runs within a ms of it), so the debouncer's 10 ms are exactly two
        periods. Sleeping period_ms less the step's time, counted in whole ms, stretched the period
        to 5.5-6 ms, and a scan read a ms late now and then made 10 ms take three: a lift lit its
        LEDs up to 21-22 ms after it, past the 20 ms target (docs/figures.md: lift -> LEDs). A step that
        overran its period (a save) starts the schedule afresh from its end: no burst of catch-up
        scans."""
        due = _ticks_ms()
        while steps != 0:
            self.tick(due)
            due = _ticks_add(due, period_ms)
            wait = _ticks_diff(due, _ticks_ms())
            if wait < 0:
                due = _ticks_ms()
                wait = 0
            # sleep_ms(0) still yields, so the input task gets its turn even after a slow step.
            await _sleep_ms(wait)
            if steps > 0:
                steps -= 1

    async def input_task(self, read_ready, steps=-1):
        """Feed the link what USB serial received. read_ready() -> bytes waiting, without
        blocking (b"" or None when nothing came)."""
        link = self.link
        while steps != 0:
            n = 0
            while n < INPUT_BURST:
                data = read_ready()
                if not data:
                    break
                link.feed(data)
                n += len(data)
            await _sleep_ms(INPUT_PERIOD_MS)
            if steps > 0:
                steps -= 1

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


async def run(board, read_ready, scan_steps=-1, input_steps=-1):
    period = board.app.settings.scan_period_ms
    reader = asyncio.create_task(board.input_task(read_ready, input_steps))
    await board.scan_task(period, scan_steps)
    if input_steps >= 0:
        await reader
    else:
        reader.cancel()



def main():
    """main.py's body: wire the board (wiring.py, then dropped with the other start-up modules),
    then scan until Ctrl-C."""
    import wiring

    board = wiring.boot()
    wiring = None  # its functions are garbage now: wiring.boot() took it out of sys.modules
    try:
        asyncio.run(run(board, stdin_reader()))
    finally:
        board.shutdown()
