# LED driver for a monochrome 8x8 LED matrix on a MAX7219: each signal told apart by its blink pattern.
#
# The chip comes as an initialised machine.SPI (mode 0: polarity 0, phase 0, MSB first, at most
# 10 MHz - config.spi_baudrate) and the LOAD/CS Pin (output, idle high); wiring.py makes both. A
# register write is one 16-bit word, register address in the high byte, data in the low byte,
# latched when LOAD rises. The patterns are the mono column of the table in hardware/leds.py.
#
# Layout: digit register r+1 (DIG r) drives rank r+1; within it data bit f drives file a+f, so
# file a is D0 (segment G) and file h is D7 (segment DP). A ready-made 8x8 module mounted the
# other way round is fixed with reverse_files / reverse_ranks instead of rewiring.
#
# Fault check (self_test): the MAX7219's DOUT gives back, 16 clocks later, what went into DIN -
# that is how chips are daisy-chained. With DOUT wired to the Pico's MISO (config.spi_miso),
# clocking a test word and then a no-op word reads the test word back during the no-op; a chip
# that is absent, unpowered or not clocked leaves MISO constant and fails. DOUT swings to the
# MAX7219's 5 V supply and the RP2040's pins are not 5 V tolerant: DOUT must reach MISO through a
# divider (hardware/leds.md). The no-op is the last word in the shift register when LOAD rises,
# so the test never changes what the display shows.
from micropython import const

from core import signals
from hardware import leds

_NOOP = const(0x00)
_DIGIT0 = const(0x01)  # digit registers 0x01-0x08: one rank each
_DECODE_MODE = const(0x09)
_INTENSITY = const(0x0A)
_SCAN_LIMIT = const(0x0B)
_SHUTDOWN = const(0x0C)
_DISPLAY_TEST = const(0x0F)

# Test words for self_test(), complements of each other: a MISO line stuck low, stuck high,
# floating or tied to MOSI cannot echo both.
_TEST_A = const(0x5AC3)
_TEST_B = const(0xA53C)


class Max7219Leds:
    # 0-255 like the WS2812B setting; the chip has 16 intensity steps, brightness >> 4.
    brightness = 48
    # Rewrite every register this often. A MAX7219 on long wires can take a glitch on CLK or LOAD
    # (the LEDs switching, a static discharge from a hand) as a write and drop into shutdown,
    # display test or a wrong scan limit; writing the 13 registers costs well under 1 ms.
    refresh_ms = 10000

    def __init__(self, spi, cs, brightness=None, reverse_files=False, reverse_ranks=False):
        self._spi = spi
        self._cs = cs
        self._word = bytearray(2)
        self._test_out = bytearray(4)
        self._test_in = bytearray(4)
        self._rows = bytearray(8)  # what each digit register holds
        self._next = bytearray(8)
        self._bit = bytes((7 - f) if reverse_files else f for f in range(8))
        self._digit = bytes((_DIGIT0 + (7 - r if reverse_ranks else r)) for r in range(8))
        self._frame = bytearray(64)
        self._phase = -1
        self._refreshed_ms = None  # now_ms of the last full register write, from the first show()
        self.writes = 0  # register words written, for tests and the bench
        if brightness is not None:
            self.brightness = brightness
        cs.value(1)
        self.init()

    def _write(self, register, data):
        w = self._word
        w[0] = register
        w[1] = data
        self._cs.value(0)
        self._spi.write(w)
        self._cs.value(1)  # LOAD rising edge latches the word
        self.writes += 1

    def init(self):
        """Write every register: display test off, no decode, 8 digits, intensity, rows, then wake up.

        At power-up the chip is in shutdown with the digit registers holding noise; the rows are
        cleared (or rewritten) before leaving shutdown so that noise never lights."""
        self._write(_DISPLAY_TEST, 0)  # a chip left in test mode lights every LED
        self._write(_DECODE_MODE, 0)  # no BCD decode: each data bit is one LED
        self._write(_SCAN_LIMIT, 7)  # all 8 digits (ranks) scanned
        self._write(_INTENSITY, self.brightness >> 4)
        for r in range(8):
            self._write(self._digit[r], self._rows[r])
        self._write(_SHUTDOWN, 1)  # 1 = normal operation

    def set_brightness(self, value):
        if not 0 <= value <= 255:
            raise ValueError("brightness must be 0-255")
        self.brightness = value
        # Intensity 0 is still lit (1/32 duty): the chip has no "off" intensity.
        self._write(_INTENSITY, value >> 4)

    def show(self, frame, now_ms):
        """Show a frame of signal codes (bytearray(64), index 0 = a1). True when a register was written.

        Writes only the ranks that changed; allocates nothing."""
        if self._refreshed_ms is None:
            self._refreshed_ms = now_ms  # init() just ran in the constructor
        elif (now_ms - self._refreshed_ms) & 0x3FFFFFFF >= self.refresh_ms:
            self._refreshed_ms = now_ms
            self.init()
        phase = (now_ms >> leds.SLOT_SHIFT) & 0xF
        if phase == self._phase and frame == self._frame:
            return False
        self._phase = phase
        self._frame[:] = frame
        bit = leds.slot_bit(now_ms)
        patterns = leds.MONO_BLINK
        fbit = self._bit
        rows = self._rows
        count = signals.COUNT
        wrote = False
        sq = 0
        for r in range(8):
            v = 0
            for f in range(8):
                code = frame[sq]
                sq += 1
                if code and code < count and patterns[code] & bit:
                    v |= 1 << fbit[f]
            if v != rows[r]:
                rows[r] = v
                self._write(self._digit[r], v)
                wrote = True
        return wrote

    def clear(self):
        for r in range(8):
            self._rows[r] = 0
            self._write(self._digit[r], 0)
        self._phase = -1

    def _echo(self, word):
        out = self._test_out
        got = self._test_in
        out[0] = word >> 8
        out[1] = word & 0xFF
        out[2] = _NOOP
        out[3] = 0
        self._cs.value(0)
        self._spi.write_readinto(out, got)
        self._cs.value(1)  # latches the no-op: the display is untouched
        back = (got[2] << 8) | got[3]
        # DOUT changes on CLK's falling edge and SPI mode 0 samples on the rising edge, so the
        # word arrives on time, as in a daisy chain; a setup that samples one clock late (slow
        # level shifter, other SPI mode) reads it shifted right by one bit, which is still a chip.
        return back == word or (back & 0x7FFF) == (word >> 1)

    def self_test(self):
        """True when a MAX7219 answers on DOUT -> MISO; False when nothing does.

        Needs DOUT wired to MISO through the divider; without that wire (config.spi_miso null)
        the answer means nothing and wiring.py must not call this."""
        return self._echo(_TEST_A) and self._echo(_TEST_B)
