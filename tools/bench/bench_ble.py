# The heap a Pico W board with Bluetooth LE on uses: the board wired by firmware/main.py with the
# `ble` setting "both" (hardware/fake.py's FakeBluetooth in place of the radio), an app connected in
# a CPP round, then the board's engine loaded and thinking, the free heap after each.
#
# Usage (from the repository root, after `make test-mpy` compiled build/mpy/):
#   .venv/bin/micropython -X heapsize=1m tools/bench/bench_ble.py --mpy [--no-ble]
#   .venv/bin/micropython -X heapsize=240k tools/bench/bench_ble.py --mpy   (does it fit that heap?)
#   node tools/wasm/ble_heap.mjs [--no-ble]   (the same stages on the 32-bit WebAssembly build)
# One line per figure, `name: value unit`: the bytes in use (gc.mem_alloc() after a collection) at
# each stage, and what was free; the exit status is 1 when the heap ran out. --no-ble wires the
# same board with the `ble` setting "off", for the difference.
# --mpy imports the firmware from build/mpy/ (the .mpy files `make flash` copies), as the Pico does;
# without it the modules are compiled from .py into the heap (which a Pico never does).
#
# What this leaves to a chip: the unix port is a 64-bit build, its objects (pointers, small ints
# boxed in tuples, dict entries) take up to twice the bytes of the RP2040's 32-bit ones, so the bytes
# used here bound the Pico's from above; the radio stack's own RAM (BTstack, the CYW43 driver) is
# static C memory outside the GC heap, which is why the RPI_PICO_W build's heap is smaller than the
# RPI_PICO's. On a Pico W: `micropython.mem_info()` at the REPL after Ctrl-C in main.py gives the
# heap's size; `ble` and `engine` over USB then `import gc; gc.collect(); gc.mem_free()` the rest.
import gc
import sys

MICROPYTHON = sys.implementation.name == "micropython"
MPY = "--mpy" in sys.argv
BLE = "--no-ble" not in sys.argv


def _setup_paths():
    code = "build/mpy" if MPY else "firmware"
    for path in (code, "tools/shims" if not MICROPYTHON else None):
        if path and path not in sys.path:
            sys.path.insert(0, path)


_setup_paths()


def _used():
    gc.collect()
    return gc.mem_alloc() if MICROPYTHON else 0


class Bench:
    """The stages, one call each (tools/wasm/ble_heap.mjs measures between them on the 32-bit
    WebAssembly build, whose collections happen between calls from JavaScript)."""

    def __init__(self, ble=True):
        self.ble_on = ble
        self.board = None

    def wire(self):
        """main.py's build() on the fakes, BOOT_ONLY forgotten, 50 ms of scans."""
        import config
        import wiring as firmware_main
        from hardware.fake import FakeBluetooth, FakePico, RamFiles

        settings = config.Settings().updated({"ble": "both" if self.ble_on else "off", "status_led_pin": "LED"})
        self.pico = pico = FakePico(
            settings.row_pins, settings.column_pins, config.SIO_GPIO_IN,
            occupied=[sq for sq in range(64) if sq < 16 or sq >= 48],
        )
        self.bluetooth = FakeBluetooth()
        self.usb_out = []
        self.board = firmware_wiring.build(
            settings, pico.machine, pico.neopixel, self.usb_out.append, fs=RamFiles(), bluetooth=self.bluetooth
        )
        firmware_main.forget(firmware_main.BOOT_ONLY)
        self.board.start(0)
        self.t = 0
        self.run(50)

    def run(self, ms):
        vm = self.pico.vm
        board = self.board
        for _ in range(ms // 5):
            self.t += 5
            vm.now_ms = self.t
            board.tick(self.t)

    def cpp_round(self):
        """An app connects, raises the MTU and begins a CPP round (over USB when BLE is off)."""
        radio = self.bluetooth.radio
        ble = self.board.app.ble
        if ble is not None:
            radio.event(1, (1, 0, b""))
            self.run(10)
            radio.event(21, (1, 247))
            for line in ("feature msg", "feature undo_offer", "begin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"):
                radio.write(1, ble.cpp_rx, line.encode())
        else:
            self.board.link.feed("feature msg\nbegin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w\n")
        self.run(20)

    def engine(self):
        """The round ends (the app stays connected); the board's engine, loaded, plays black at
        level 3 and shows its answer to 1. e4. Returns whether it did."""
        board = self.board
        radio = self.bluetooth.radio
        ble = board.app.ble
        if ble is not None:
            radio.write(1, ble.cpp_rx, b"end undefined")
        else:
            board.link.feed("end undefined\n")
        self.run(10)
        board.link.use("board")  # the USB console in the board's own words, in both runs alike
        if board.app.engine() is None:
            return False
        board.link.feed("engine black 3\n")
        vm = self.pico.vm
        vm.lift(12)  # e2
        self.run(100)
        vm.place(28)  # e4
        self.run(4000)
        return bool(board.app.referee.remote)  # its move shown on the LEDs for the hands to make

    def notifications(self):
        ble = self.board.app.ble
        if ble is None:
            return "-"
        return " | ".join(d.decode() for _c, h, d in self.bluetooth.radio.notified if h == ble.cpp_tx)


def main():
    heap = gc.mem_free() + gc.mem_alloc() if MICROPYTHON else 0
    bench = Bench(BLE)
    figures = [("at_start", _used())]
    bench.wire()
    figures.append(("board_wired", _used()))
    bench.cpp_round()
    figures.append(("in_a_cpp_round", _used()))
    idle = None
    if MICROPYTHON:
        before = _used()
        bench.run(500)  # 100 scans of main.py's Board.tick, the app connected, the board still
        idle = gc.mem_alloc() - before
    shown = bench.engine()
    if bench.board.app.opponent is None:
        print("engine: could not load (not enough memory)")
        return 1
    figures.append(("engine_after_its_move", _used()))
    print("heap: %d bytes (-X heapsize), code from %s, ble %s" % (heap, ".mpy" if MPY else ".py", "both" if BLE else "off"))
    for name, used in figures:
        print("used_%s: %d bytes (free %d)" % (name, used, heap - used))
    if idle is not None:
        print("alloc_in_100_idle_ticks_in_a_cpp_round: %d bytes (the bench loop's own range and call included)" % idle)
    print("engine_move_shown: %s" % ("yes" if shown else "no"))
    print("ble_cpp_notifications: %s" % bench.notifications())
    return 0


if __name__ == "__main__":
    try:
        code = main()
    except MemoryError as e:
        print("out of memory: %s" % e)
        if "-v" in sys.argv:
            sys.print_exception(e)
        code = 1
    sys.exit(code)
