# The Pico's wiring: settings, pins, scanner, LEDs, saved game, USB link (and on a Pico W with the
# `ble` setting on, the Bluetooth LE link), the optional clock display, then Lichess over Wi-Fi when
# it is set up. Loaded at start-up and dropped with everything else only start-up needs (BOOT_ONLY),
# so the heap the game, the links and the engine use does not carry its bytecode.
#
# Every decision lives in app.py and core/, every pin access in hardware/ (pico.py builds the Pico's
# pins and drivers, and alone imports `machine` and `neopixel`). build() takes those modules as
# arguments (the Pico's own by default), so host_tests/test_main_loop.py runs the same wiring on
# CPython with hardware/fake.py.
#
# The order keeps the heap in one piece (docs/figures.md, "the chips' memory"): MicroPython never
# moves an object, and one long-lived object allocated above a heap full of garbage splits the free
# space once the garbage goes. So the settings are read and their module dropped before the core's
# modules load, a collection runs between the phases, and what only start-up needs goes last.
import gc
import sys

from memory import forget

# Modules only make_hardware() needs: read board.json and check it, make the pins and drivers. boot()
# drops them once the hardware is made (BOOT_ONLY, about 15 KB of bytecode on the Pico), so the
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


def build(settings=None, machine=None, neopixel=None, write=None, fs=None, settings_path=None, bluetooth=None):
    """Wire a Board. Defaults: board.json (or the defaults), the Pico's machine and neopixel,
    sys.stdout for the link, the flash filesystem for the saved game, and MicroPython's
    `bluetooth` when the `ble` setting asks for it (a Pico W's build has it)."""
    return wire(make_hardware(settings, machine, neopixel, settings_path), write, fs, bluetooth)


class Hardware:
    """What make_hardware() made, as plain attributes: nothing here keeps config.py or
    hardware/pico.py alive, so boot() can drop them before the core's modules load."""


def make_hardware(settings=None, machine=None, neopixel=None, settings_path=None):
    """The settings (board.json) and everything made from them on the pins: LEDs (dark first),
    matrix scanner, row drive, status LED, clock display, the chip's clock setter."""
    import config
    from hardware import pico

    hw = Hardware()
    hw.said = said = []  # what to tell the console once the link exists
    if settings is None:
        settings, problem = config.load_or_default(settings_path or config.DEFAULT_PATH)
        if problem:
            said.append(problem)
    hw.settings = settings = values_of(settings, config.FIELDS)
    machine, neopixel = pico.modules(settings, machine, neopixel)
    # LEDs before the matrix: the rp2 SPI driver claims a MISO pin even when none is wired
    # (GPIO 8 for SPI1), and the column pins set up afterwards take theirs back.
    hw.leds = leds = pico.make_leds(settings, machine, neopixel, said.append)
    # Dark before anything else can fail: a WS2812B clone may power up lit, at full current and
    # outside the firmware's cap, until the first frame is written.
    leds.clear()
    hw.matrix = pico.make_scanner(settings, machine)
    hw.row_drive_ma = pico.set_row_drive(settings, machine)
    problem = pico.row_drive_problem(settings, hw.row_drive_ma)
    if problem:
        said.append(problem)
    hw.status_led = pico.make_status_led(settings, machine)
    hw.oled = pico.make_oled(settings, machine, said.append)
    hw.set_rtc = pico.rtc_setter(machine)  # for start_online()
    hw.board_id = machine.unique_id() if hasattr(machine, "unique_id") else None  # DGT's serial number
    return hw


def wire(hw, write=None, fs=None, bluetooth=None):
    """The Board around the hardware make_hardware() made: saved game, App, USB link, the BLE
    link when the settings ask for it, the clock display."""
    from app import App
    from link.link import Link
    from loop import Board, ticks_us
    from store import GameStore

    settings = hw.settings
    write_bytes = None
    port = write is None  # the Pico's own USB serial port
    if port:
        write = sys.stdout.write
        # ChessLink with parity and DGT send bytes above 127: raw, past the text layer.
        write_bytes = getattr(sys.stdout, "buffer", sys.stdout).write
    store = GameStore(settings.save_path, fs) if settings.save_path else None
    app = App(settings, hw.matrix, hw.leds, store, clock=ticks_us)  # the clock times the engine's slices
    link = Link(app, write, write_bytes, dgt=True)
    if port:  # DGT hosts: 0x03 is data in their clock messages; the serial number from the chip's id
        import micropython

        link.kbd_intr = getattr(micropython, "kbd_intr", None)
        link.board_id = hw.board_id
    app.console = link.info
    app.row_drive_ma = hw.row_drive_ma  # for the selftest's report
    if settings.ble != "off":
        app.ble = start_ble(app, settings.ble, bluetooth, hw.said.append, link.info)
    face = None
    if hw.oled is not None:
        try:
            from hardware.clock_face import ClockFace
            from link.clock_command import app_time

            face = ClockFace(hw.oled, app.referee, lambda: app_time(link))
        except MemoryError:
            hw.said.append("the clock display stopped: not enough memory (the clock goes on)")
    for text in hw.said:
        link.info(text)
    board = Board(app, link, store, hw.leds, hw.status_led, getattr(hw.leds, "fault", False), face)
    board.set_rtc = hw.set_rtc
    return board


def start_ble(app, services, bluetooth, say, console):
    """The Bluetooth LE link (link/ble.py) with `services` on, or None (and why, said) when the
    board has no radio. With the setting "off" nothing imports `bluetooth`: the radio stays off."""
    if bluetooth is None:
        try:
            import bluetooth
        except ImportError:
            say("ble: this board has no Bluetooth radio (a Pico W runs MicroPython's RPI_PICO_W build)")
            return None
    try:
        from link.ble import BleLink

        return BleLink(bluetooth, app, services, console)
    except OSError as e:  # the radio did not start: the board plays on without it
        say("ble: the radio did not start (%s)" % e)
    except MemoryError:
        from memory import forget, free

        forget(("link.ble",))
        free()
        say("ble: not enough memory for Bluetooth; the board plays on without it")
    return None


def start_online(board):
    """Lichess over Wi-Fi on a Pico W whose Wi-Fi and token were written (online/boot.py); a
    Pico without a radio, or one never set up, stays offline and loses nothing."""
    try:
        from online import boot

        seek = board.app.settings.online_seek
        seek = None if seek == "none" else tuple(int(x) for x in seek.split("+"))
        board.online = boot.start(board.app, board.link.info, seek, set_rtc=board.set_rtc)
        board.app.online = board.online
    except MemoryError:
        board.online = None
        board.link.info("online: not started: not enough memory (the board plays on without it)")
    except (ImportError, OSError) as e:
        board.link.info("online: not started (%s)" % e)
    if board.online is None:
        forget(ONLINE_BOOT)  # an offline board does not keep the start-up code's bytecode


def boot(settings=None, machine=None, neopixel=None, write=None, fs=None, bluetooth=None, online=True):
    """main.py's start-up: the board wired and started, Lichess joined when set up (online=False:
    not tried); this module and the other start-up modules are dropped before the scan loop
    begins. The arguments as build()'s: the Pico's own by default (tools/memory/ gives fakes)."""
    hw = make_hardware(settings, machine, neopixel)
    forget(BOOT_ONLY)
    gc.collect()  # config.py's and pico.py's bytecode gone: the core's modules fill their place
    board = wire(hw, write, fs, bluetooth)
    hw = None
    gc.collect()
    board.start()
    board.link.info(ready_line())
    if online:
        start_online(board)
    forget(("wiring",))
    gc.collect()
    return board


def ready_line():
    """The console's first words, with the heap left free where the heap is the chip's fixed one:
    the figure docs/figures.md's budgets speak of."""
    from memory import free

    n = free()
    if n >= 1 << 30:  # CPython, or WebAssembly's heap that grows: no figure to give
        return "chessboard ready; type help for the commands"
    return "chessboard ready, %d KB free; type help for the commands" % (n // 1024)
