# Measures the board's main loop on fakes: free RAM after start-up and the time of one scan step.
#
# Usage (from the repository root):
#   python3 tools/bench/bench_board.py
#   .venv/bin/micropython -X heapsize=240k tools/bench/bench_board.py [--mpy] [--dgt]
# --mpy imports the firmware from build/mpy/ (what `make test-mpy` compiled, the .mpy files
# `make flash` puts on the Pico) instead of compiling firmware/*.py into the heap. --dgt: the idle
# turns with a DGT host on the USB link (tools/bench/bench_dgt.py) instead of with CPP and ChessLink
# (a board meets one program at a time: at 64 bits, the 240 kB heap does not hold all three
# dialects' modules at once).
# One line per figure, `name: value unit`. The board is wired by firmware/wiring.py's build() on
# hardware/fake.py (VirtualReedMatrix behind a MatrixScanner on a FakeMem32, FakeNeoPixel behind
# the WS2812 driver), with the saved game in a RAM filesystem and the USB link writing nowhere.
#
# What the figures leave out, because no Pico is attached: the 8 x settle_us (10 us) the real
# scanner waits per scan (the fake counts the waits instead of sleeping), the 1.9 ms of a WS2812
# write, the flash write of a save (littlefs erases a 4 kB sector: tens of ms), and the RP2040
# being far slower than the WebAssembly build and a PC (docs/figures.md: loop_iteration).
# Under the unix port the modules are compiled from .py into the heap, as on a Pico without .mpy
# files; the .mpy files `make flash` copies leave more RAM free.
import gc
import sys
import time

MICROPYTHON = sys.implementation.name == "micropython"


def _dirname(path):
    i = path.rfind("/")
    if i > 0:
        return path[:i]
    return "/" if i == 0 else ""


MPY = "--mpy" in sys.argv
DGT = "--dgt" in sys.argv


def _setup_paths():
    # This file is tools/bench/bench_board.py: the repository root is two folders up.
    here = _dirname(__file__.replace("\\", "/")) or "."
    root = _dirname(_dirname(here)) if here not in (".", "") else "../.."
    if here == "tools/bench":
        root = "."
    code = root + ("/build/mpy" if MPY else "/firmware")
    for path in ((root + "/tools/shims") if not MICROPYTHON else None, code):
        if path and path not in sys.path:
            sys.path.insert(0, path)


_setup_paths()

if MICROPYTHON:
    _ticks_us = time.ticks_us
    _ticks_diff = time.ticks_diff
else:
    from ticks import ticks_diff as _ticks_diff, ticks_us as _ticks_us  # tools/shims/ticks.py


def build_board():
    import config
    import wiring
    from hardware.fake import FakePico, RamFiles

    settings = config.Settings()
    pico = FakePico(settings.row_pins, settings.column_pins, config.SIO_GPIO_IN, occupied=[sq for sq in range(64) if sq < 16 or sq >= 48])
    vm = pico.vm
    out = []
    board = wiring.build(settings, pico.machine, pico.neopixel, out.append, fs=RamFiles())
    # main.py gives the scanner time.sleep_us for the 8 settle waits per scan; on the unix port
    # that is a system call each (tens of us) where the Pico busy-waits 10 us. Count them instead,
    # so the figures are the Python work of a step.
    board.app.matrix._sleep_us = vm.sleep_us
    wiring.forget(wiring.BOOT_ONLY)  # as wiring.boot() does once the board is wired
    return board, vm, out


def _discard(data):
    pass


def _chesslink(body):
    """A ChessLink message with its block check (the XOR of its characters, two hex digits)."""
    check = 0
    for ch in body:
        check ^= ord(ch)
    return (body + "%02X" % check).encode()


def timed_step(app, vm, t):
    vm.now_ms = t
    start = _ticks_us()
    app.step(t)
    return _ticks_diff(_ticks_us(), start)


def main():
    gc.collect()
    free_before = gc.mem_free() if MICROPYTHON else None
    board, vm, out = build_board()
    board.start(0)
    app = board.app
    gc.collect()
    if MICROPYTHON:
        print(
            "ram_free_after_start: %d bytes (the board took %d bytes, code from %s)"
            % (gc.mem_free(), free_before - gc.mem_free(), ".mpy" if MPY else ".py")
        )
    else:
        print("ram_free_after_start: n/a (CPython has no fixed heap)")
    left = [name for name in sys.modules["wiring"].BOOT_ONLY if name in sys.modules]
    print("boot_modules_loaded: %s" % (" ".join(left) or "none"))

    t = 0
    # Idle: the board at rest, nothing changing.
    for _ in range(20):
        t += 5
        timed_step(app, vm, t)
    idle = []
    for _ in range(200):
        t += 5
        idle.append(timed_step(app, vm, t))
    idle.sort()
    print("step_idle: %d us median, %d us max of %d steps" % (idle[len(idle) // 2], idle[-1], len(idle)))

    if MICROPYTHON and hasattr(gc, "mem_alloc"):
        # The whole scan turn main.py runs (App.step, the link's poll, the heartbeat): outside a
        # CPP round and in one; in a ChessLink session with status reports on every change (E2ROM
        # 02 = 3) and at every scan (0: a 67-byte report every 41 ms). On the Pico the reports go
        # to sys.stdout.buffer.write, which takes the preallocated buffer as it is.
        board.link.write_bytes = _discard
        for label, message in () if DGT else (
            ("alloc_per_idle_tick", b""),
            ("alloc_per_idle_tick_in_cpp_round", b"begin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w\n"),
            ("alloc_per_idle_tick_in_chesslink", _chesslink("W0203")),
            ("alloc_per_idle_tick_in_chesslink_every_scan", _chesslink("W0200")),
        ):
            board.link.feed(message)
            for _ in range(20):
                t += 5
                vm.now_ms = t
                board.tick(t)
            gc.collect()
            before = gc.mem_alloc()
            for _ in range(100):
                t += 5
                vm.now_ms = t
                board.tick(t)
            print("%s: %d bytes" % (label, (gc.mem_alloc() - before) // 100))
        if DGT:
            from bench_dgt import dgt_figures  # its own file: the plain run's heap stays as it was

            t = dgt_figures(board, vm, t)
        board.link.feed(b"mode\n")  # back to the board's own commands (the session ends)

    # A lift: the step whose debounced scan reports it (destinations worked out and rendered).
    lifts = []
    g1 = 6
    for _ in range(10):
        vm.lift(g1)
        steps = 0
        while True:
            t += 5
            vm.now_ms = t
            n_before = app.referee.version
            us = timed_step(app, vm, t)
            steps += 1
            if app.referee.version != n_before:
                lifts.append(us)
                break
        for _ in range(4):
            t += 5
            timed_step(app, vm, t)
        vm.place(g1)
        for _ in range(10):
            t += 5
            timed_step(app, vm, t)
    lifts.sort()
    print("step_lift: %d us median, %d us max of %d lifts" % (lifts[len(lifts) // 2], lifts[-1], len(lifts)))

    # A commit: the step in which the move is made final and saved (RAM filesystem).
    commits = []
    moves = (("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6"))
    from core.position import parse_square

    for f, to in moves:
        vm.lift(parse_square(f))
        for _ in range(10):
            t += 5
            timed_step(app, vm, t)
        vm.place(parse_square(to))
        count = len(app.referee.game.moves)
        while len(app.referee.game.moves) == count:
            t += 5
            us = timed_step(app, vm, t)
        commits.append(us)
        for _ in range(20):
            t += 5
            timed_step(app, vm, t)
    commits.sort()
    print("step_commit_and_save: %d us median, %d us max of %d moves" % (commits[len(commits) // 2], commits[-1], len(commits)))

    # The link answering a command (parse, status line).
    start = _ticks_us()
    board.link.feed(b"status\n")
    print("link_status_command: %d us" % _ticks_diff(_ticks_us(), start))
    gc.collect()
    if MICROPYTHON:
        print("ram_free_after_game: %d bytes" % gc.mem_free())


if __name__ == "__main__":
    main()
