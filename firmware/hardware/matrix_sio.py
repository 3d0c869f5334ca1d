# The reed matrix read straight through the RP2040's SIO registers, in native code (viper).
#
# Why native: measured on the emulated RP2040, the Python loop of matrix.py over 8 rows costs
# 218 us of bytecode (two mem32 stores, a load and a byte store a row) before any settling, and
# 300 us with the 8 x 10 us settle waits: the whole budget of a scan. The same loop here costs
# the settle waits and a few microseconds more. Only the Pico imports this module (viper needs
# the rp2 port's native emitter; CPython, WebAssembly and the tests use matrix.py's Python loop
# over Pin objects, which reads the same ranks).
#
# Electrically it does what Pin.value() does on an open-drain row: MicroPython's rp2 port makes
# OPEN_DRAIN by holding the pin's output level at 0 and switching its output enable, so writing
# the row's bit to GPIO_OE_SET pulls the rank low and GPIO_OE_CLR releases it.
import micropython
from array import array
from micropython import const

_SIO = const(0xD0000000)  # ptr32 indices below are register offsets / 4
_GPIO_IN = const(1)  # 0x004
_GPIO_OUT_CLR = const(0xD0000018)
_GPIO_OE_SET = const(9)  # 0x024
_GPIO_OE_CLR = const(10)  # 0x028
_TIMERAWL = const(0x40054028)  # the microsecond timer's low word, read without latching


@micropython.viper
def _read(ranks, masks) -> int:
    # ranks: bytearray(8) filled with the closed switches of each rank (bit f = file a+f);
    # masks: array("I") of each rank's row GPIO bit, then the settle time in us and the GPIO of
    # file a (two arguments: the scan loop calls this directly, every word counts). Returns the
    # columns that read low with no row selected (bits 0-7) | the number of closed switches << 8.
    sio = ptr32(_SIO)
    timer = ptr32(_TIMERAWL)
    out = ptr8(ranks)
    mask = ptr32(masks)
    settle_us = int(mask[8])
    base = int(mask[9])
    stuck = (sio[_GPIO_IN] >> base) ^ 0xFF
    stuck &= 0xFF
    closed = 0
    r = 0
    while r < 8:
        m = mask[r]
        sio[_GPIO_OE_SET] = m
        t0 = timer[0]
        while timer[0] - t0 < settle_us:
            pass
        bits = ((sio[_GPIO_IN] >> base) ^ 0xFF) & 0xFF
        sio[_GPIO_OE_CLR] = m
        out[r] = bits
        while bits:
            closed += 1
            bits &= bits - 1
        r += 1
    return stuck | (closed << 8)


@micropython.viper
def _spread(ranks, squares):
    # The 8 rank bytes as 64 bytes of 0/1, index 0 = a1 (matrix.py's loop, 25x faster).
    src = ptr8(ranks)
    dst = ptr8(squares)
    r = 0
    while r < 8:
        bits = src[r]
        f = 0
        while f < 8:
            dst[(r << 3) + f] = (bits >> f) & 1
            f += 1
        r += 1


class SioRanks:
    """MatrixScanner(ranks_reader=...) on the Pico: read(ranks) reads all 8 ranks in one call,
    spread(ranks, squares) unpacks them into a square per byte; native = (function, argument):
    native[0](ranks, native[1]) is read(ranks) without its Python call, for the scan loop.

    row_gpios: the 8 row GPIOs, rank 1 first, already Pin(n, Pin.OPEN_DRAIN, value=1);
    column_base: the GPIO of file a (the 8 columns are consecutive, config.py checks it)."""

    def __init__(self, row_gpios, column_base, settle_us, mem32):
        self._masks = array("I", [1 << n for n in row_gpios] + [settle_us, column_base])
        self.native = (_read, self._masks)
        bits = 0
        for n in row_gpios:
            bits |= 1 << n
        mem32[_GPIO_OUT_CLR] = bits  # a selected row must drive 0: open drain never drives 1

    def read(self, ranks):
        return _read(ranks, self._masks)

    def spread(self, ranks, squares):
        _spread(ranks, squares)
