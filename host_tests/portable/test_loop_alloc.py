# The scan loop allocates nothing while the board is still, also with a piece held in the air
# (a lift waiting to become a touch, then a touch, then seconds of holding). Measured under
# MicroPython, where an allocation in the scan loop would mean garbage collections every few scans.
import gc

# On MicroPython the firmware's .py files compile at import (the Pico loads .mpy): the two biggest,
# the rules and the referee, first and one at a time, so the compiler's working memory for them
# fits the 320 kB heap (as test_transcripts.py does).
import core.position  # noqa: E402,F401

gc.collect()
import core.referee  # noqa: E402,F401

gc.collect()
import config  # noqa: E402
from app import App
from hardware.fake import FakeNeoPixel, VirtualReedMatrix
from hardware.matrix import MatrixScanner
from hardware.ws2812 import Ws2812Leds
from heap import can_count_bytes



def _board():
    vm = VirtualReedMatrix()
    for sq in range(64):
        if sq < 16 or sq >= 48:
            vm.place(sq)
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    app = App(config.Settings(), scanner, Ws2812Leds(FakeNeoPixel()), None)
    app.start(0)
    return app, vm


def _steps(app, vm, start, end):
    t = start
    while t < end:
        vm.now_ms = t
        app.step(t)
        t += 5
    return t


def test_still_board_and_held_piece_allocate_nothing():
    app, vm = _board()
    t = _steps(app, vm, 5, 500)
    measure = can_count_bytes()  # only a runtime with an immediate collector can count the bytes
    vm.lift(6)  # the g1 knight goes up ...
    while app.referee.occ[6]:
        t = _steps(app, vm, t, t + 5)  # ... is seen (debounced) and its destinations shown ...
    t = _steps(app, vm, t, t + 10)
    gc.collect()
    before = gc.mem_alloc() if measure else 0
    t = _steps(app, vm, t, t + 100)  # ... waits to count as a touch ...
    waiting = gc.mem_alloc() - before if measure else 0
    t = _steps(app, vm, t, t + 300)  # ... and becomes one
    assert app.referee.touched == [6]
    if not measure:
        return
    gc.collect()
    before = gc.mem_alloc()
    t = _steps(app, vm, t, t + 2000)  # held in the air for two seconds: 400 scans
    held = gc.mem_alloc() - before
    vm.place(6)
    t = _steps(app, vm, t, t + 400)
    gc.collect()
    before = gc.mem_alloc()
    _steps(app, vm, t, t + 2000)  # a still board: 400 scans
    still = gc.mem_alloc() - before
    print("  waiting to be a touch: %d bytes; 400 scans holding it: %d; 400 still scans: %d" % (waiting, held, still))
    assert waiting == 0 and held == 0 and still == 0

