# Tests of hardware/matrix.py over hardware/fake.py's VirtualReedMatrix: mapping, ghosting, settling, faults.
#
# Zero allocation per scan is measured under MicroPython in host_tests/portable/test_scan_and_show.py.
import pytest

from core.debounce import DeferPerSquare
from hardware.fake import FakePin, VirtualReedMatrix
from hardware.matrix import MAX_PIECES, MatrixScanner

GPIO_IN = 0xD0000004
COLUMN_BASE = 2  # config.py's default: files a-h on GP2-GP9
START = tuple(range(16)) + tuple(range(48, 64))


def sq(name):
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def scanners(vm):
    """The three ways main.py can read the columns, all over the same virtual matrix."""
    by_register = MatrixScanner(
        vm.rows, mem32=vm.mem32, gpio_in_addr=GPIO_IN, column_base=COLUMN_BASE, sleep_us=vm.sleep_us
    )
    by_callable = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    pins = vm.columns

    def read_pins():
        v = 0
        for f in range(8):
            v |= pins[f].value() << f
        return v

    by_pins = MatrixScanner(vm.rows, read_columns=read_pins, sleep_us=vm.sleep_us)
    return by_register, by_callable, by_pins


def make_vm(**kwargs):
    # GPIO 25 (the Pico's LED) and GPIO 0 high as well, to catch a scanner that forgets to mask.
    kwargs.setdefault("others", (1 << 25) | 1)
    return VirtualReedMatrix(column_base=COLUMN_BASE, gpio_in_addr=GPIO_IN, **kwargs)


def occupied(buf):
    return [i for i in range(64) if buf[i]]


def test_every_single_square():
    vm = make_vm()
    all_scanners = scanners(vm)
    for square in range(64):
        vm.set_occupancy([i == square for i in range(64)])
        for scanner in all_scanners:
            assert occupied(scanner.scan()) == [square]
            assert scanner.closed == 1
            assert not scanner.fault()


def test_empty_board():
    vm = make_vm()
    for scanner in scanners(vm):
        assert occupied(scanner.scan()) == []
        assert scanner.closed == 0 and scanner.stuck_files == 0


def test_start_position_has_no_ghosts():
    vm = make_vm()
    vm.set_occupancy([i in START for i in range(64)])
    for scanner in scanners(vm):
        assert occupied(scanner.scan()) == list(START)
        assert scanner.closed == 32
        assert not scanner.fault()


def test_ghosting_needs_the_diodes():
    # hardware/schematic.md's example: after 1. Nc3, a1, a2 and b2 are three closed corners of a
    # rectangle. With diodes b1 reads empty; without, current sneaks COLB -> b2 -> ROW2 -> a2 ->
    # COLA -> a1 -> ROW1 and b1 reads occupied: the knight never left.
    after_nc3 = [i in START and i != sq("b1") for i in range(64)]
    after_nc3[sq("c3")] = True
    with_diodes = make_vm()
    with_diodes.set_occupancy(after_nc3)
    scan = scanners(with_diodes)[0].scan()
    assert scan[sq("b1")] == 0 and scan[sq("c3")] == 1
    without = make_vm(diodes=False)
    without.set_occupancy(after_nc3)
    scan = scanners(without)[0].scan()
    assert scan[sq("b1")] == 1  # the phantom


def test_row_pin_is_rank_and_column_bit_is_file():
    # rows[r] selects rank r+1; column bit f is file a+f. Checked on the wires, without the scanner.
    vm = make_vm()
    vm.place(sq("c7"))
    for r in range(8):
        vm.rows[r].value(0)
        levels = vm.read_columns()
        vm.rows[r].value(1)
        assert levels == (0xFF & ~(1 << 2) if r == 6 else 0xFF), r
    raw = vm.mem32[GPIO_IN]
    assert (raw >> COLUMN_BASE) & 0xFF == 0xFF  # no row selected: all columns pulled up
    scan = scanners(vm)[0].scan()
    assert occupied(scan) == [50] == [sq("c7")]


def test_one_row_low_at_a_time_and_all_released_after():
    vm = make_vm()
    vm.set_occupancy([i in START for i in range(64)])
    worst = [0]

    def watch(pin):
        low = sum(1 for p in vm.rows if p.driven_low())
        worst[0] = max(worst[0], low)

    for pin in vm.rows:
        pin.listener = watch
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns)
    scanner.scan()
    assert worst[0] == 1
    assert all(p.value() == 1 for p in vm.rows)
    assert all(p.changes == 2 for p in vm.rows)  # each row pulled low once and released once


def test_settle_delay_is_needed_and_used():
    # A column read too soon after a row changes still shows the previous row (the pull-up has
    # not lifted it yet). With a piece on a1 only, a scan without settling reads nothing right.
    vm = make_vm(settle_us=5)
    vm.place(sq("a1"))
    vm.place(sq("b2"))
    hasty = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us, settle_us=0)
    assert occupied(hasty.scan()) != [sq("a1"), sq("b2")]
    vm.now_ms += 5
    careful = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    assert careful.settle_us == MatrixScanner.settle_us == 10
    assert occupied(careful.scan()) == [sq("a1"), sq("b2")]


def test_scan_returns_its_own_buffer_or_fills_one():
    vm = make_vm()
    vm.place(sq("h8"))
    scanner = scanners(vm)[1]
    first = scanner.scan()
    assert scanner.scan() is first is scanner.squares
    other = bytearray(64)
    assert scanner.scan_into(other) is other and occupied(other) == [63]
    assert scanner.scans == 3


def test_stuck_column_is_a_fault():
    vm = make_vm()
    vm.set_occupancy([i in START for i in range(64)])
    vm.stuck_low = 1 << 4  # file e shorted to ground
    scanner = scanners(vm)[0]
    scan = scanner.scan()
    assert scanner.stuck_files == 1 << 4
    assert scanner.fault()
    assert all(scan[8 * r + 4] for r in range(8))  # reads closed on every rank


def test_impossible_piece_count_is_a_fault():
    vm = make_vm()
    vm.set_occupancy([i < MAX_PIECES for i in range(64)])
    scanner = scanners(vm)[0]
    scanner.scan()
    assert scanner.closed == 32 and not scanner.fault()
    vm.place(40)
    scanner.scan()
    assert scanner.closed == 33 and scanner.fault()
    vm.set_occupancy([1] * 64)  # all 8 columns low on every row
    scanner.scan()
    assert scanner.closed == 64 and scanner.fault()


def test_wrong_register_address_is_caught():
    vm = make_vm()
    scanner = MatrixScanner(vm.rows, mem32=vm.mem32, gpio_in_addr=0xD0000008, column_base=COLUMN_BASE)
    with pytest.raises(ValueError):
        scanner.scan()


def test_construction_errors():
    vm = make_vm()
    with pytest.raises(ValueError):
        MatrixScanner(vm.rows[:7], read_columns=vm.read_columns)
    with pytest.raises(ValueError):
        MatrixScanner(vm.rows)
    with pytest.raises(ValueError):
        MatrixScanner(vm.rows, mem32=vm.mem32, column_base=2)  # no address


def test_no_sleep_function_on_cpython_is_fine():
    vm = make_vm()
    vm.place(0)
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns)
    assert occupied(scanner.scan()) == [0]


def test_bouncing_place_through_scanner_and_debouncer_is_one_event():
    # The whole input path at the firmware's 5 ms scan period, ms by ms: a piece lands on e4 with
    # 3 ms of contact bounce, stays, and is lifted again with 2 ms of bounce.
    vm = make_vm()
    vm.set_occupancy([i in START for i in range(64)])
    scanner = scanners(vm)[0]
    d = DeferPerSquare(10)
    d.reset(scanner.scan(), 0)
    events = []
    for t in range(1, 400):
        vm.now_ms = t
        if t == 101:
            vm.place(sq("e4"), bounce_ms=3)
        if t == 302:
            vm.lift(sq("e4"), bounce_ms=2)
        if t % 5 == 0 or t in (102, 303):  # a few extra scans caught mid-bounce
            n = d.update(scanner.scan(), t)
            events += [(t, d.changed[i], d.state[d.changed[i]]) for i in range(n)]
    assert events == [(115, sq("e4"), 1), (315, sq("e4"), 0)]


def test_fake_bounce_toggles_then_rests():
    vm = make_vm()
    vm.now_ms = 10
    vm.place(0, bounce_ms=4)
    readings = []
    for t in range(10, 16):
        vm.now_ms = t
        readings.append(vm.expected_scan()[0])
    assert readings == [1, 0, 1, 0, 1, 1]


def test_fake_pin_basics():
    p = FakePin(5, FakePin.OPEN_DRAIN, FakePin.PULL_UP, value=0)
    assert (p.mode, p.pull, p.value()) == (FakePin.OPEN_DRAIN, FakePin.PULL_UP, 0)
    assert p.driven_low()
    p.on()
    assert p() == 1 and not p.driven_low()
    p.low()
    p.init(FakePin.IN)
    assert not p.driven_low()  # an input cannot sink current
