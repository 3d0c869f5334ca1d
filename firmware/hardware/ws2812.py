# LED driver for 64 WS2812B RGB LEDs: a colour per signal, blinking, software brightness and a current cap.
#
# The strip comes in as an initialised neopixel.NeoPixel of 64 pixels (3 bytes each);
# wiring.py makes it. Pixels are written straight into its byte buffer `buf` in the strip's own
# byte order (NeoPixel.ORDER, GRB for the WS2812B): going through np[i] = (r, g, b) would build a
# tuple per pixel. The strip is written only when a pixel changed: one frame of 64 LEDs is 1.9 ms
# on the wire (24 bits x 1.25 us x 64), which MicroPython's neopixel sends with machine.bitstream,
# a CPU loop with interrupts off, the scan loop waiting.
#
# Chain order: `chain` is a bytes(64) naming the square of each LED in chain order, made by
# config.chain_squares(): "rows" is a1..h1, a2..h2, ... (LED n on square n); "serpentine" runs
# rank 1 a->h, rank 2 h->a, ... so the wire between ranks stays short. Default: "rows".
#
# Current model: a WS2812B-5050 draws about 20 mA per colour channel at 255 (60 mA full white,
# 3.8 A for 64 white LEDs) and roughly linearly below, plus about 1 mA each while dark. The
# frame's estimate is sum(channel values) * channel_ma / 255 + 64 * idle; when it exceeds
# current_cap_ma every channel is scaled down by the same factor, so colours keep their hue.
#
# Painting: the 64 squares' colours go into the strip buffer in one call, paint(out, frame, table,
# params): hardware/ws2812_plain.py's Python loop on CPython, the unix port and WebAssembly, and on
# the Pico hardware/ws2812_native.py's native code (viper), where the Python loop costs 1.8 ms of
# RP2040 time a frame (a fifth of the step that shows a lift) and its bytecode 0.5 kB of heap.
from array import array

from micropython import const

from core import signals
from hardware import leds

_SQUARES = const(64)
_BYTES = const(192)
_COUNT = const(24)  # signals.COUNT, checked below: paint() tables are laid out for it

# paint()'s table (bytes): the byte offset of each square's LED in the strip buffer, then the
# full-scale colour of each code (leds.COLOURS), then 1 for the codes that pulse.
T_COLOURS = const(64)
T_PULSE = const(136)  # T_COLOURS + 3 * _COUNT
_TABLE = const(160)
# paint()'s params (array of 16-bit words): each code's RGB blink pattern, then these.
P_SLOT = const(24)  # the blink slot now (0-15)
P_STEADY = const(25)  # brightness of a steady colour, x/256
P_PULSE = const(26)  # ... and of a pulsing one now
P_ORDER = const(27)  # 27, 28, 29: where red, green and blue go in an LED's 3 bytes
_PARAMS = const(30)
# paint() returns the sum of the channel values written | these flags for the frame's codes.
BLINKS = const(1 << 20)  # a code with a blink pattern (the picture changes every 128 ms)
PULSES = const(1 << 21)  # a pulsing code (the picture changes every 32 ms)
_TOTAL = const(0xFFFFF)

if signals.COUNT != _COUNT:
    raise ImportError("hardware/ws2812.py: paint() tables are laid out for %d signals" % _COUNT)


def _rows_chain():
    return bytes(range(_SQUARES))


class Ws2812Leds:
    # 0-255 multiplier on every colour: 48 is readable under a thin board top and keeps 64 full
    # white LEDs near 0.7 A (config.brightness).
    brightness = 48
    # Budget for the LEDs' drive current: a 5 V / 2 A supply less 500 mA for the Pico and the
    # LEDs' quiescent current (config.current_cap_ma): the supply's rating less 500 mA. The LEDs
    # never run from the Pico's USB (hardware/leds.md, "Power wiring").
    current_cap_ma = 1500
    # mA of one colour channel at 255 (config.led_channel_ma).
    channel_ma = 20
    # mA each LED draws while dark (the WS2812B's own controller), counted against the cap.
    idle_ma = 1

    def __init__(self, np, chain=None, brightness=None, current_cap_ma=None, channel_ma=None, paint=None):
        if len(np) != _SQUARES or getattr(np, "bpp", 3) != 3:
            raise ValueError("need a NeoPixel of 64 RGB pixels")
        self._np = np
        self.strip = np  # the chain's writer (tools/bench/bench_pico.py reads when its frames go out)
        order = getattr(np, "ORDER", (1, 0, 2, 3))
        if chain is None:
            chain = _rows_chain()
        if len(chain) != _SQUARES or sorted(chain) != list(range(_SQUARES)):
            raise ValueError("chain must name each of the 64 squares once")
        if paint is None:
            from hardware.ws2812_plain import paint
        self._paint = paint
        table = bytearray(_TABLE)
        for n in range(_SQUARES):
            table[chain[n]] = 3 * n  # the byte offset in the strip buffer of each square's LED
        table[T_COLOURS:T_PULSE] = leds.COLOURS
        table[T_PULSE:_TABLE] = leds.RGB_PULSE
        self._table = table
        params = array("H", bytes(2 * _PARAMS))
        for code in range(_COUNT):
            params[code] = leds.RGB_BLINK[code]
        for n in range(3):
            params[P_ORDER + n] = order[n]
        self._params = params
        self._next = bytearray(_BYTES)  # the frame being computed, in strip byte order
        self._frame = bytearray(_SQUARES)  # the frame of the last show(), to skip repeats
        self._phase = -1
        self._still = False  # the last frame shown has no blinking or pulsing square
        self._pulsing = False  # ... has a pulsing square
        self.writes = 0  # strip writes, for tests and the bench
        self.current_ma = self.idle_ma * _SQUARES  # estimate for the pixels shown
        if channel_ma is not None:
            self.channel_ma = channel_ma
        self.set_brightness(self.brightness if brightness is None else brightness)
        self.set_current_cap(self.current_cap_ma if current_cap_ma is None else current_cap_ma)

    def set_brightness(self, value):
        if not 0 <= value <= 255:
            raise ValueError("brightness must be 0-255")
        self.brightness = value
        self._phase = -1  # recompute on the next show()
        self._still = False

    def set_current_cap(self, ma):
        self.current_cap_ma = ma
        # The cap as a sum of channel values (0-255 each): what the frame may add up to.
        budget = ma - self.idle_ma * _SQUARES
        self._budget = (budget * 255) // self.channel_ma if budget > 0 else 0
        self._phase = -1
        self._still = False

    def show(self, frame, now_ms):
        """Show a frame of signal codes (bytearray(64), index 0 = a1). True when the strip was written.

        Allocates nothing; costs one bytearray comparison when the frame is the last one and
        nothing in it blinks or pulses (the common case), and one more and a little arithmetic when
        something blinks but its blink slot has not changed."""
        if frame == self._frame:
            if self._still:
                return False
            # Blink patterns change every 128 ms, the pulse every 32 ms: nothing else moves the picture.
            if self._phase_at(now_ms) == self._phase:
                return False
        else:
            self._frame[:] = frame
        return self._render(frame, now_ms)

    def _phase_at(self, now_ms):
        if self._pulsing:
            return ((now_ms >> 5) & 0x3FFF) | 0x4000
        return (now_ms >> leds.SLOT_SHIFT) & 0xF

    def _render(self, frame, now_ms):
        out = self._next
        params = self._params
        k_steady = self.brightness + 1  # x/256: 255 keeps full scale, 0 is dark
        params[P_SLOT] = (now_ms >> leds.SLOT_SHIFT) & 0xF
        params[P_STEADY] = k_steady
        params[P_PULSE] = (k_steady * (leds.pulse_level(now_ms) + 1)) >> 8  # 255 keeps full scale
        total = self._paint(out, frame, self._table, params)
        # From the next call on, a frame with nothing blinking or pulsing costs one comparison.
        self._pulsing = bool(total & PULSES)
        self._still = not total & (PULSES | BLINKS)
        self._phase = self._phase_at(now_ms)
        total &= _TOTAL
        if total > self._budget:
            # Over the cap: scale every channel by budget/total, in 1/256ths (budget << 8 stays a
            # small int on the Pico for any cap up to 300 A).
            scale = (self._budget << 8) // total
            for i in range(_BYTES):
                out[i] = (out[i] * scale) >> 8
            total = 0
            for i in range(_BYTES):
                total += out[i]
        self.current_ma = (total * self.channel_ma) // 255 + self.idle_ma * _SQUARES
        np = self._np
        if out == np.buf:
            return False
        np.buf[:] = out
        np.write()
        self.writes += 1
        return True

    def clear(self):
        """All LEDs dark, written at once (e.g. before a soft reset)."""
        for i in range(_BYTES):
            self._next[i] = 0
        self._np.buf[:] = self._next
        self._np.write()
        self.writes += 1
        self._phase = -1
        self._still = False
