# CPython stand-ins for MicroPython's time.ticks_ms, ticks_us, ticks_add and ticks_diff, for the
# host tools and tests that run on both runtimes (firmware/ never needs them: main.py has its own
# fallback). Only CPython finds this folder on sys.path, so each caller writes:
#     try:
#         from time import ticks_diff, ticks_us
#     except ImportError:  # CPython
#         from ticks import ticks_diff, ticks_us  # tools/shims/ticks.py
# The counters wrap at 2**30 as MicroPython's do, and ticks_diff gives the signed difference of two
# of them, as there (right for intervals under 2**29: 6 days in ms, 9 minutes in us).
import time

_MASK = (1 << 30) - 1
_HALF = 1 << 29


def ticks_ms():
    return (time.monotonic_ns() // 1000000) & _MASK


def ticks_us():
    return (time.perf_counter_ns() // 1000) & _MASK


def ticks_add(ticks, delta):
    return (ticks + delta) & _MASK


def ticks_diff(a, b):
    return ((a - b + _HALF) & _MASK) - _HALF
