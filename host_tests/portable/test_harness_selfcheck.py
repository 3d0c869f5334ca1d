# Checks the runtime itself: the MicroPython facts the firmware's design leans on, on every runtime we test.
#
# The firmware keeps hashes and masks below 2**30 and preallocates its buffers because on the
# RP2040 (a 32-bit port) an int of 2**30 or more is a heap object and every allocation can
# trigger a garbage collection in the middle of a scan. These tests make that rule visible: they
# pass on CPython (where the memory checks are skipped), the 64-bit unix port and the 32-bit
# WebAssembly port, which has the same small-int range as the Pico.
import gc
import sys

from micropython import const

try:
    from unittest import SkipTest  # pytest reports this as a skip too
except ImportError:  # MicroPython: run_portable counts any exception class named SkipTest as a skip

    class SkipTest(Exception):
        pass


import core.signals as signals

MICROPYTHON = sys.implementation.name == "micropython"
SMALL_INT_MAX = const(0x3FFFFFFF)  # 2**30 - 1: the largest int that is not a heap object on a 32-bit port
_LOOPS = const(500)


def _allocated_by(function, arg):
    # Bytes taken from the heap by one call; the warm-up call lets the bytecode cache settle.
    if not MICROPYTHON:
        raise SkipTest("gc.mem_alloc is MicroPython only")
    function(arg)
    gc.collect()
    before = gc.mem_alloc()
    function(arg)
    return gc.mem_alloc() - before


_KEYS = (0x2A5F3C71, 0x1B7E0D93, 0x3C01F5A6, 0x05D49E2B, 0x3F0A6C18, 0x117BB3E4, 0x28C6417D, 0x0E9D52C0)


def _xor_hash(n):
    # Zobrist-style: XOR of keys below 2**30 never leaves the small-int range.
    h = 0
    i = 0
    while i < n:
        h ^= _KEYS[i & 7]
        i += 1
    return h


def _above_small_ints(n):
    x = SMALL_INT_MAX
    i = 0
    while i < n:
        x = x + 1  # 2**30 and up: a heap object on a 32-bit port
        i += 1
    return x


def _fill(buf):
    i = 0
    while i < 64:
        buf[i] = (buf[i] + i) & 0xFF
        i += 1


def test_small_int_boundary_arithmetic():
    assert SMALL_INT_MAX + 1 == 1 << 30
    assert (SMALL_INT_MAX + 1) - 1 == SMALL_INT_MAX
    assert -SMALL_INT_MAX - 1 == -(1 << 30)
    assert (SMALL_INT_MAX << 2) >> 2 == SMALL_INT_MAX
    assert (1 << 30) & SMALL_INT_MAX == 0
    assert hash(SMALL_INT_MAX) == hash(0x3FFFFFFF)


def test_hash_below_2_30_does_not_allocate():
    assert _xor_hash(16) == 0  # each key twice: XOR cancels out
    assert _xor_hash(1) == _KEYS[0]
    assert 0 <= _xor_hash(_LOOPS + 1) <= SMALL_INT_MAX
    assert _allocated_by(_xor_hash, _LOOPS) == 0


def test_ints_from_2_30_allocate_on_32_bit_ports():
    assert _above_small_ints(3) == (1 << 30) + 2
    if sys.maxsize != 2**31 - 1:
        raise SkipTest("64-bit build: 2**30 is still a small int here")
    assert _allocated_by(_above_small_ints, 10) > 0


def test_bytearray_in_place_does_not_allocate():
    buf = bytearray(64)
    _fill(buf)
    assert buf[63] == 63 and len(buf) == 64
    assert _allocated_by(_fill, buf) == 0


def test_const_names_are_plain_ints():
    assert SMALL_INT_MAX == 2**30 - 1
    assert isinstance(signals.COUNT, int)


def test_signal_tables_cover_every_code():
    # Every code 0..COUNT-1 has a priority and a name, and the name is the constant's, kebab-cased,
    # so the docs/leds.md table and the drivers can be generated from the module.
    codes = {}
    for key in dir(signals):
        value = getattr(signals, key)
        if key.isupper() and key not in ("COUNT", "PRIORITY", "NAMES") and isinstance(value, int):
            codes[value] = key
    assert sorted(codes) == list(range(signals.COUNT)), codes
    assert len(signals.PRIORITY) == signals.COUNT
    assert len(signals.names()) == signals.COUNT
    for value, key in codes.items():
        assert signals.name(value) == key.lower().replace("_", "-"), key
    assert signals.PRIORITY[signals.OFF] == 0
    assert min(signals.PRIORITY[1:]) > 0  # any signal beats an unlit square
