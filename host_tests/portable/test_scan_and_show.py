# Portable tests of scan -> debounce -> LEDs over hardware/fake.py, and that none of it allocates on MicroPython.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/run_portable.py).
# The allocation checks run only where gc.mem_alloc() exists (MicroPython). The unix port has
# 63-bit small ints, so it cannot see an int of 2**30 or more becoming a heap object as it would
# on the Pico; the code keeps such values out of its hot paths by construction (see the comments
# in hardware/matrix.py and hardware/ws2812.py).
import gc
import sys

from core import signals as S
from core.debounce import DeferPerSquare
from hardware.fake import FakeMax7219, FakeNeoPixel, FakePin, FakeSPI, VirtualReedMatrix
from hardware.matrix import MatrixScanner
from hardware.max7219 import Max7219Leds
from hardware.ws2812 import Ws2812Leds

GPIO_IN = 0xD0000004
START = tuple(range(16)) + tuple(range(48, 64))
MICROPYTHON = sys.implementation.name == "micropython" and hasattr(gc, "mem_alloc")


def allocated(step, n=20):
    """Bytes allocated by n calls of step(), the least of three rounds (the first round of a
    process can include the interpreter's own one-off allocations)."""
    least = None
    for _ in range(3):
        gc.collect()
        before = gc.mem_alloc()
        for _ in range(n):
            step()
        used = gc.mem_alloc() - before
        if least is None or used < least:
            least = used
    return least


def start_board():
    vm = VirtualReedMatrix(column_base=2, gpio_in_addr=GPIO_IN, others=1 << 25)
    for sq in START:
        vm.place(sq)
    return vm


def test_scan_reads_the_start_position():
    vm = start_board()
    scanner = MatrixScanner(vm.rows, mem32=vm.mem32, gpio_in_addr=GPIO_IN, column_base=2, sleep_us=vm.sleep_us)
    scan = scanner.scan()
    assert [i for i in range(64) if scan[i]] == list(START)
    assert scanner.closed == 32 and not scanner.fault()


def test_scan_and_debounce_allocate_nothing():
    if not MICROPYTHON:
        return
    vm = start_board()
    by_register = MatrixScanner(vm.rows, mem32=vm.mem32, gpio_in_addr=GPIO_IN, column_base=2, sleep_us=vm.sleep_us)
    by_callable = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    assert allocated(by_register.scan) == 0
    assert allocated(by_callable.scan) == 0
    d = DeferPerSquare(10)
    d.reset(by_register.scan(), 0)
    t = [0]

    def tick():
        # A piece going up and down on e4 every scan: the debouncer's full loop runs every time.
        t[0] += 5
        vm.now_ms = t[0]
        if vm.occupied(28):
            vm.lift(28)
        else:
            vm.place(28)
        d.update(by_register.scan(), t[0])

    assert allocated(tick) == 0


def busy_frame():
    frame = bytearray(64)
    frame[12] = S.LIFTED
    for sq in (20, 28):
        frame[sq] = S.QUIET
    frame[4] = S.CHECK  # pulses: the WS2812B picture changes every 32 ms
    frame[35] = S.ILLEGAL  # blinks 4 Hz: the MAX7219 rows change every 128 ms
    frame[36] = S.CAPTURE
    return frame


def test_ws2812_show_allocates_nothing():
    np = FakeNeoPixel()
    strip = Ws2812Leds(np, current_cap_ma=300)  # low cap: the scaling pass runs too
    frame = busy_frame()
    for sq in range(48, 64):
        frame[sq] = S.RESIGNED
    t = [0]

    def step():
        t[0] += 37
        strip.show(frame, t[0])

    step()
    assert np.writes == 1 and strip.current_ma <= 300
    if not MICROPYTHON:
        return
    writes = np.writes
    assert allocated(step) == 0
    assert np.writes > writes + 20  # the strip really was recomputed and written meanwhile


def _native_paint():
    """hardware/ws2812_native.py's viper paint() where this runtime compiles viper (the unix port,
    the Pico), else None (CPython, where the shim makes it plain Python, and WebAssembly)."""
    if not MICROPYTHON:
        return None
    try:
        from hardware.ws2812_native import paint
    except (ImportError, SyntaxError, ValueError, NotImplementedError):
        return None
    return paint


def test_ws2812_native_paint_equals_the_plain_one():
    # The Pico paints with viper, the other runtimes with Python: both must give the same strip
    # bytes and the same return value (channel sum and blink/pulse flags) for every code, in every
    # blink slot and pulse level, in both byte orders and both chains.
    import hardware.ws2812 as W
    from hardware.ws2812_plain import paint as plain_paint

    native = _native_paint()
    seed = 12345
    for order, chain in (((1, 0, 2, 3), None), ((0, 1, 2, 3), bytes(reversed(range(64))))):
        np = FakeNeoPixel()
        np.ORDER = order
        strip = Ws2812Leds(np, chain=chain)
        for trial in range(40):
            frame = bytearray(64)
            for sq in range(64):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                frame[sq] = (seed >> 8) % (S.COUNT + 2) if (seed >> 4) % 3 else 0  # unknown codes too
            params = strip._params
            params[W.P_SLOT] = trial % 16
            params[W.P_STEADY] = (trial * 37) % 257
            params[W.P_PULSE] = (trial * 11) % 257
            plain_out = bytearray(192)
            plain = plain_paint(plain_out, frame, strip._table, params)
            if native is not None:
                native_out = bytearray(192)
                assert native(native_out, frame, strip._table, params) == plain
                assert native_out == plain_out
    # A frame with one steady code: no flags; with a pulsing code: PULSES.
    strip = Ws2812Leds(FakeNeoPixel())
    frame = bytearray(64)
    frame[3] = S.QUIET
    assert not plain_paint(bytearray(192), frame, strip._table, strip._params) & (W.BLINKS | W.PULSES)
    frame[4] = S.CHECK
    assert plain_paint(bytearray(192), frame, strip._table, strip._params) & W.PULSES
    frame[4] = S.ILLEGAL
    assert plain_paint(bytearray(192), frame, strip._table, strip._params) & W.BLINKS


def test_ws2812_native_show_allocates_nothing():
    native = _native_paint()
    if native is None:
        return
    np = FakeNeoPixel()
    strip = Ws2812Leds(np, paint=native)
    frame = busy_frame()
    t = [0]

    def step():
        t[0] += 37
        strip.show(frame, t[0])

    step()
    writes = np.writes
    assert allocated(step) == 0
    assert np.writes > writes + 20


def test_max7219_show_allocates_nothing():
    cs = FakePin("cs", FakePin.OUT, value=1)
    chip = FakeMax7219(cs)
    display = Max7219Leds(FakeSPI(chip), cs)
    frame = busy_frame()
    t = [0]

    def step():
        t[0] += 64
        display.show(frame, t[0])

    step()
    assert chip.lit()[1] == 0x10  # e2 lifted: wink, lit at t = 64
    assert display.self_test()
    if not MICROPYTHON:
        return
    latches = chip.latches
    assert allocated(step) == 0
    assert chip.latches > latches + 10  # rows were really rewritten meanwhile
    assert allocated(display.self_test, 5) == 0
