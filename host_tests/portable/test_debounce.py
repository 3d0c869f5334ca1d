# Time-table tests of core/debounce.py (QMK style): contact signals in, scans at a period, events out.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
# A table lists what the contact of a square really does, (t_ms, square, level) with 1 = closed
# (a piece's magnet holds it) and 0 = open; run() samples that signal every `period` ms the way
# the scanner does, feeds the debouncer, and returns what it reported as (t_ms, square, level).
import sys

from core.debounce import DeferPerSquare

A1, E1, H1, E2, E4, D5, E5, H8 = 0, 4, 7, 12, 28, 35, 36, 63


def run(signal, period, until, debounce_ms=10, start=(), t0=0):
    d = DeferPerSquare(debounce_ms)
    raw = bytearray(64)
    for sq in start:
        raw[sq] = 1
    d.reset(raw, t0)
    out = []
    i = 0
    t = t0 + period
    while t <= t0 + until:
        while i < len(signal) and t0 + signal[i][0] <= t:
            raw[signal[i][1]] = signal[i][2]
            i += 1
        n = d.update(raw, t)
        for k in range(n):
            sq = d.changed[k]
            out.append((t - t0, sq, d.state[sq]))
        t += period
    return out


def test_clean_place_and_lift():
    signal = [(100, E4, 1), (400, E4, 0)]
    assert run(signal, 1, 600) == [(110, E4, 1), (410, E4, 0)]
    assert run(signal, 5, 600) == [(110, E4, 1), (410, E4, 0)]


def test_bouncing_contacts_sampled_every_ms():
    # The reed contact bounces for 2 ms on closing and 4 ms on opening; one event each,
    # debounce_ms after the last bounce.
    signal = [
        (100, E4, 1), (101, E4, 0), (102, E4, 1),
        (400, E4, 0), (401, E4, 1), (402, E4, 0), (403, E4, 1), (404, E4, 0),
    ]  # fmt: skip
    assert run(signal, 1, 600) == [(112, E4, 1), (414, E4, 0)]


def test_bouncing_contacts_sampled_every_5ms():
    # At a 5 ms scan period a bounce is usually missed altogether ...
    signal = [(100, E4, 1), (101, E4, 0), (102, E4, 1), (400, E4, 0), (401, E4, 1), (402, E4, 0)]
    assert run(signal, 5, 600) == [(110, E4, 1), (410, E4, 0)]
    # ... or caught by one scan, which only restarts the timer.
    signal = [(99, E4, 1), (100, E4, 0), (101, E4, 1), (399, E4, 0), (400, E4, 1), (402, E4, 0)]
    assert run(signal, 5, 600) == [(115, E4, 1), (415, E4, 0)]


def test_chatter_that_never_settles_reports_nothing():
    # A hand hovering a magnet at the switch's threshold: the contact toggles every 4 ms for
    # 300 ms and ends open as it began. No reading ever holds for 10 ms, so no event at all.
    signal = [(100 + 4 * k, E5, 1 - (k & 1)) for k in range(76)]
    assert signal[-1][2] == 0
    assert run(signal, 1, 800) == []
    assert run(signal, 5, 800) == []


def test_chatter_then_settled_is_one_event():
    signal = [(100 + 4 * k, E5, 1 - (k & 1)) for k in range(75)]  # ends closed at 396
    assert signal[-1] == (396, E5, 1)
    assert run(signal, 1, 800) == [(406, E5, 1)]
    # Scans at 390, 395, 400 see 1, 0, 1: the last change is seen at 400.
    assert run(signal, 5, 800) == [(410, E5, 1)]


def test_two_squares_at_once_in_square_order():
    # Castling with both hands: king and rook lifted in the same scan, reported in one update
    # in square order (e1 before h1), whatever order the hands moved in within the scan.
    signal = [(101, H1, 0), (103, E1, 0), (301, 6, 1), (302, 5, 1)]
    out = run(signal, 5, 500, start=(E1, H1))
    assert out == [(115, E1, 0), (115, H1, 0), (315, 5, 1), (315, 6, 1)]


def test_changed_lists_squares_in_order_within_one_update():
    d = DeferPerSquare(10)
    raw = bytearray(64)
    d.reset(raw)
    for sq in (H8, A1, D5):
        raw[sq] = 1
    assert d.update(raw, 5) == 0
    assert d.unsettled == 3
    assert d.update(raw, 15) == 3
    assert list(d.changed[:3]) == [A1, D5, H8]
    assert d.state[A1] == d.state[D5] == d.state[H8] == 1
    assert d.unsettled == 0


def test_short_closure_of_a_slide_is_reported():
    # A piece slid from e2 over e3 to e4 closes e3 for about 30 ms. That closure is real, so
    # the debouncer reports it (place e3, lift e3); telling it from a move is the referee's job.
    E3 = 20
    signal = [(100, E2, 0), (180, E3, 1), (210, E3, 0), (290, E4, 1)]
    out = run(signal, 5, 500, start=(E2,))
    assert out == [(110, E2, 0), (190, E3, 1), (220, E3, 0), (300, E4, 1)]


def test_closure_shorter_than_debounce_is_bounce():
    signal = [(100, E4, 1), (108, E4, 0)]
    assert run(signal, 1, 300) == []


def test_reset_adopts_the_first_scan_without_events():
    d = DeferPerSquare(10)
    raw = bytearray(64)
    for sq in range(16):
        raw[sq] = 1
    d.reset(raw, 0)
    assert d.update(raw, 5) == 0
    assert list(d.state[:16]) == [1] * 16 and list(d.state[16:]) == [0] * 48


def test_update_before_reset_adopts_the_scan():
    d = DeferPerSquare(10)
    raw = bytearray(64)
    raw[E4] = 1
    assert d.update(raw, 1000) == 0
    assert d.state[E4] == 1 and d.started


def test_late_scan_reports_at_once():
    # Processing was late (a long LED write, a USB burst): the timer ran out in between.
    d = DeferPerSquare(10)
    raw = bytearray(64)
    d.reset(raw, 0)
    raw[E4] = 1
    assert d.update(raw, 1) == 0
    assert d.update(raw, 300) == 1 and d.changed[0] == E4


def test_ticks_wrap_around():
    # time.ticks_ms() wraps at 2**30; a place 5 ms before the wrap is still reported 10 ms later.
    period = 1 << 30
    d = DeferPerSquare(10)
    raw = bytearray(64)
    d.reset(raw, period - 20)
    raw[E4] = 1
    times = []
    t = period - 5
    for _ in range(6):
        ticks = t % period  # what ticks_ms() returns
        if d.update(raw, ticks):
            times.append(t)
        t += 5
    assert times == [period + 5]


def test_large_monotonic_ms():
    # Plain monotonic ms from a PC clock, far beyond 2**30: only differences matter.
    t0 = 5000000000
    assert run([(100, E4, 1)], 5, 200, t0=t0) == [(110, E4, 1)]


def test_zero_debounce_reports_every_reading():
    signal = [(100, E4, 1), (101, E4, 0), (102, E4, 1)]
    assert run(signal, 1, 200, debounce_ms=0) == [(100, E4, 1), (101, E4, 0), (102, E4, 1)]


def test_debounce_ms_range():
    for bad in (-1, 256):
        try:
            DeferPerSquare(bad)
        except ValueError:
            continue
        raise AssertionError("accepted debounce_ms=%d" % bad)
    assert DeferPerSquare().debounce_ms == DeferPerSquare.debounce_ms == 8


def test_update_allocates_nothing():
    import gc

    if sys.implementation.name != "micropython" or not hasattr(gc, "mem_alloc"):
        return  # CPython has no fixed heap to measure
    d = DeferPerSquare(10)
    raw = bytearray(64)
    d.reset(raw, 0)
    t = [0]

    def busy():
        # Squares changing and timers running: the full 64-square loop.
        t[0] += 5
        raw[E4] ^= 1
        raw[(t[0] >> 3) & 63] ^= 1
        d.update(raw, t[0])

    def quiet():
        t[0] += 5
        d.update(raw, t[0])

    for step in (busy, quiet):
        for _ in range(3):
            step()  # warm up
        gc.collect()
        before = gc.mem_alloc()
        for _ in range(50):
            step()
        assert gc.mem_alloc() - before == 0, step
