# The Pico's wiring: settings, pins, scanner, LEDs, saved game, USB link (and on a Pico W with the
# `ble` setting on, the Bluetooth LE link), then the scan loop.
#
# MicroPython runs main.py at boot (a .py, never main.mpy), so this file stays small and only
# wires: every decision lives in app.py and core/, every pin access in hardware/ (pico.py builds
# the Pico's pins and drivers, and alone imports `machine` and `neopixel`). build() takes those
# modules as arguments (the Pico's own by default), so host_tests/test_main_loop.py can import
# this file on CPython and run the same wiring on hardware/fake.py.
#
# Ctrl-C stays enabled: mpremote reaches the REPL by sending Ctrl-C, which raises KeyboardInterrupt
# in the loop below and ends main.py. The same byte (0x03) inside protocol traffic does the same,
# which is why the USB protocol is ASCII text only; but for DGT's clock messages, which carry it:
# while a DGT host speaks the Link takes 0x03 itself through micropython.kbd_intr (link/link.py).
import sys
import time

import asyncio
from micropython import const
from app import App
from link.link import Link
from store import GameStore

try:
    _ticks_ms = time.ticks_ms
    _ticks_us = time.ticks_us
    _ticks_diff = time.ticks_diff
    _ticks_add = time.ticks_add
    _sleep_ms = asyncio.sleep_ms
except AttributeError:  # CPython (host tests): the same calls on a monotonic clock
    def _ticks_ms():
        return int(time.monotonic() * 1000)

    def _ticks_us():
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


# Modules only build() needs: read board.json and check it, make the pins and drivers. main()
# drops them once the board is wired (BOOT_ONLY, about 15 KB of bytecode on the Pico), so the
# heap the game, the link and the engine use does not carry them.
BOOT_ONLY = ("config", "hardware.pico")
# What start_online() imports to find out whether the board goes online at all.
ONLINE_BOOT = ("online.secrets", "online.boot", "online")


class Values:
    """The settings' values, as config.Settings has them, without its methods: an instance of a
    class defined in config.py would keep all of config.py's code alive through its methods."""


def values_of(settings, fields):
    values = Values()
    for field in fields:
        setattr(values, field[0], getattr(settings, field[0]))
    values.column_base = settings.column_base
    return values


def forget(names):
    """Let the garbage collector take modules nothing uses any more (imported again if asked)."""
    for name in names:
        sys.modules.pop(name, None)
        package, _, leaf = name.rpartition(".")
        if package in sys.modules and hasattr(sys.modules[package], leaf):
            delattr(sys.modules[package], leaf)


def build(settings=None, machine=None, neopixel=None, write=None, fs=None, settings_path=None, bluetooth=None):
    """Wire a Board. Defaults: board.json (or the defaults), the Pico's machine and neopixel,
    sys.stdout for the link, the flash filesystem for the saved game, and MicroPython's
    `bluetooth` when the `ble` setting asks for it (a Pico W's build has it)."""
    import config
    from hardware import pico

    said = []
    problem = None
    if settings is None:
        settings, problem = config.load_or_default(settings_path or config.DEFAULT_PATH)
        if problem:
            said.append(problem)
    settings = values_of(settings, config.FIELDS)
    machine, neopixel = pico.modules(settings, machine, neopixel)
    write_bytes = None
    port = write is None  # the Pico's own USB serial port
    if port:
        write = sys.stdout.write
        # ChessLink with parity and DGT send bytes above 127: raw, past the text layer.
        write_bytes = getattr(sys.stdout, "buffer", sys.stdout).write
    # LEDs before the matrix: the rp2 SPI driver claims a MISO pin even when none is wired
    # (GPIO 8 for SPI1), and the column pins set up afterwards take theirs back.
    leds = pico.make_leds(settings, machine, neopixel, said.append)
    # Dark before anything else can fail: a WS2812B clone may power up lit, at full current and
    # outside the firmware's cap, until the first frame is written.
    leds.clear()
    matrix = pico.make_scanner(settings, machine)
    row_drive_ma = pico.set_row_drive(settings, machine)
    problem = pico.row_drive_problem(settings, row_drive_ma)
    if problem:
        said.append(problem)
    store = GameStore(settings.save_path, fs) if settings.save_path else None
    app = App(settings, matrix, leds, store, clock=_ticks_us)  # the clock times the engine's slices
    link = Link(app, write, write_bytes, dgt=True)
    if port:  # DGT hosts: 0x03 is data in their clock messages; the serial number from the chip's id
        import micropython

        link.kbd_intr = getattr(micropython, "kbd_intr", None)
        link.board_id = machine.unique_id() if hasattr(machine, "unique_id") else None
    app.console = link.info
    app.row_drive_ma = row_drive_ma  # for the selftest's report
    status_led = pico.make_status_led(settings, machine)
    if settings.ble != "off":
        app.ble = start_ble(app, settings.ble, bluetooth, said.append, link.info)
    face = None
    oled = pico.make_oled(settings, machine, said.append)
    if oled is not None:
        from hardware.clock_face import ClockFace
        from link.clock_command import app_time

        face = ClockFace(oled, app.referee, lambda: app_time(link))
    for text in said:
        link.info(text)
    return Board(app, link, store, leds, status_led, getattr(leds, "fault", False), face)


def start_ble(app, services, bluetooth, say, console):
    """The Bluetooth LE link (link/ble.py) with `services` on, or None (and why, said) when the
    board has no radio. With the setting "off" nothing imports `bluetooth`: the radio stays off."""
    if bluetooth is None:
        try:
            import bluetooth
        except ImportError:
            say("ble: this board has no Bluetooth radio (a Pico W runs MicroPython's RPI_PICO_W build)")
            return None
    from link.ble import BleLink

    try:
        return BleLink(bluetooth, app, services, console)
    except OSError as e:  # the radio did not start: the board plays on without it
        say("ble: the radio did not start (%s)" % e)
        return None


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


def start_online(board):
    """Lichess over Wi-Fi on a Pico W whose Wi-Fi and token were written (online/boot.py); a
    Pico without a radio, or one never set up, stays offline and loses nothing."""
    try:
        from online import boot

        seek = board.app.settings.online_seek
        seek = None if seek == "none" else tuple(int(x) for x in seek.split("+"))
        try:
            import machine

            set_rtc = machine.RTC().datetime  # the chip's clock, set from SNTP for certificate dates
        except (ImportError, AttributeError):
            set_rtc = None
        board.online = boot.start(board.app, board.link.info, seek, set_rtc=set_rtc)
        board.app.online = board.online
    except (ImportError, MemoryError, OSError) as e:
        board.link.info("online: not started (%s)" % e)
    if board.online is None:
        forget(ONLINE_BOOT)  # an offline board does not keep the start-up code's bytecode


def main():
    board = build()
    forget(BOOT_ONLY)
    board.start()
    board.link.info("chessboard ready; type help for the commands")
    start_online(board)
    try:
        asyncio.run(run(board, stdin_reader()))
    finally:
        board.shutdown()


if __name__ == "__main__":
    main()
