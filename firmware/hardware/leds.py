# How each LED signal looks (colour, blink pattern, text character) for every LED driver, and a text renderer.
"""
The LED drivers share one interface:

    leds.show(frame, now_ms) -> True when the hardware was written

frame is a bytearray(64) of codes from core/signals.py (index 0 = a1 ... 63 = h8) and now_ms the
caller's ms clock (monotonic ms or time.ticks_ms()), which sets the blink phase. Drivers:
hardware/ws2812.py (RGB, colour per signal), hardware/max7219.py (monochrome 8x8, blink pattern
per signal) and TextLeds below (terminal simulator).

Time base: blink patterns are 16 slots of 128 ms, a 2.048 s cycle; slot k is lit when bit k of
the pattern is set. The same pattern runs in phase on every square, so two squares of one move
(from and to) flash together. "Pulse" on RGB ramps the brightness up and down once a second.

Monochrome (MAX7219) patterns carry the whole meaning, so the signals that can be on the board
at the same time during play, and the error signals, all have different patterns; the five
game-end signals share patterns with play signals but are only shown once the game is over.

| signal         | text | RGB colour (r, g, b)        | RGB blink   | mono pattern | mono look                               |
|----------------|------|-----------------------------|-------------|--------------|-----------------------------------------|
| off            | .    | off                         | -           | 0x0000       | dark                                    |
| last-move      | -    | dim warm white (48, 40, 24) | steady      | 0x0001       | blip: one 128 ms flash every 2 s        |
| claim          | =    | violet (128, 0, 255)        | slow 0.5 Hz | 0x0505       | double blip every second                |
| quiet          | o    | green (0, 255, 0)           | steady      | 0xFFFF       | steady                                  |
| capture        | x    | red (255, 0, 0)             | steady      | 0x3333       | blink 2 Hz                              |
| lifted         | *    | cyan (0, 255, 255)          | steady      | 0x7FFF       | wink: on, dark for 128 ms every 2 s     |
| remote-move    | >    | blue (0, 0, 255)            | blink 1 Hz  | 0x00FF       | slow blink 0.5 Hz (1 s on, 1 s off)     |
| promote-queen  | Q    | magenta (255, 0, 255)       | steady      | 0x0007       | one long flash (384 ms) every 2 s       |
| promote-rook   | R    | blue (0, 0, 255)            | steady      | 0x0005       | two flashes every 2 s                   |
| promote-bishop | B    | orange (255, 80, 0)         | steady      | 0x0015       | three flashes every 2 s                 |
| promote-knight | N    | yellow (255, 200, 0)        | steady      | 0x0055       | four flashes every 2 s                  |
| check          | +    | yellow (255, 200, 0)        | pulse 1 Hz  | 0x0033       | heartbeat: two 256 ms beats every 2 s   |
| stalemate      | s    | yellow (255, 255, 0)        | steady      | 0x0F0F       | blink 1 Hz (game over)                  |
| draw           | d    | yellow (255, 255, 0)        | slow 0.5 Hz | 0x00FF       | slow blink 0.5 Hz (game over)           |
| mated-king     | #    | violet (128, 0, 255)        | blink 1 Hz  | 0x5555       | fast blink 4 Hz (game over)             |
| mating-piece   | m    | gold (255, 160, 0)          | blink 1 Hz  | 0xFFFF       | steady (game over)                      |
| resigned       | f    | white (255, 255, 255)       | steady      | 0x3333       | blink 2 Hz (game over)                  |
| place-here     | v    | white (255, 255, 255)       | blink 2 Hz  | 0x0FFF       | mostly on: 1.5 s on, 0.5 s off          |
| remove         | ^    | orange (255, 80, 0)         | blink 2 Hz  | 0x000F       | mostly off: 0.5 s on, 1.5 s off         |
| touched        | t    | cyan (0, 255, 255)          | blink 1 Hz  | 0x0F0F       | blink 1 Hz                              |
| illegal        | !    | magenta (255, 0, 255)       | fast 4 Hz   | 0x5555       | fast blink 4 Hz                         |
| fault          | ?    | red (255, 0, 0)             | fast 4 Hz   | 0x55FF       | alarm: 1 s on, then 1 s of 4 Hz flicker |
| low-time       | ~    | red-orange (255, 40, 0)     | blink 2 Hz  | 0x1111       | tick: a 128 ms flash every 512 ms       |
| unsent         | u    | pink (255, 64, 128)         | flash 1 Hz  | 0x0303       | a 256 ms flash every second             |

RGB colours are at full scale; the driver multiplies them by the brightness setting and then
caps the whole frame's current (hardware/ws2812.py).
"""
from micropython import const

from core import signals

# 2**7 = 128 ms per slot: flashes a person can count (4 per second at most) and a 2 s cycle.
SLOT_SHIFT = const(7)
_SLOTS_MASK = const(15)

# Patterns (16 slots). Names for the shapes that recur.
DARK = const(0x0000)
STEADY = const(0xFFFF)
BLINK_HALF_HZ = const(0x00FF)
BLINK_1HZ = const(0x0F0F)
BLINK_2HZ = const(0x3333)
BLINK_4HZ = const(0x5555)

# Indexed by signal code. Checked against signals.COUNT at import.
# RGB: colour (3 bytes per code), blink pattern, pulse flag.
COLOURS = bytes(
    (
        0, 0, 0,  # off
        48, 40, 24,  # last-move: dim warm white, a reminder that shows on dark and light squares
        128, 0, 255,  # claim: violet, slow (the mated king's violet blinks faster, and only at the end)
        0, 255, 0,  # quiet: green, the piece may go here
        255, 0, 0,  # capture: red, the piece takes here
        0, 255, 255,  # lifted: cyan, the piece in the hand
        0, 0, 255,  # remote-move: blue, blinking
        255, 0, 255,  # promote-queen: magenta (a white LED vanishes under a white queen)
        0, 0, 255,  # promote-rook: blue, steady
        255, 80, 0,  # promote-bishop: orange, steady
        255, 200, 0,  # promote-knight: yellow, steady
        255, 200, 0,  # check: yellow, pulsing
        255, 255, 0,  # stalemate
        255, 255, 0,  # draw
        128, 0, 255,  # mated-king: violet
        255, 160, 0,  # mating-piece: gold
        255, 255, 255,  # resigned: the white flag
        255, 255, 255,  # place-here: white, a piece goes on this empty square
        255, 80, 0,  # remove: orange, take the piece off
        0, 255, 255,  # touched: the colour of a lifted piece, blinking: it must move
        255, 0, 255,  # illegal: magenta, fast
        255, 0, 0,  # fault: red, fast
        255, 40, 0,  # low-time: red-orange, on the king of the side to move (the clock, docs/clock.md)
        255, 64, 128,  # unsent: pink, the player's move Lichess does not have yet (docs/lichess-wifi.md)
    )
)  # fmt: skip

RGB_BLINK = (
    DARK,  # off
    STEADY,  # last-move
    BLINK_HALF_HZ,  # claim
    STEADY,  # quiet
    STEADY,  # capture
    STEADY,  # lifted
    BLINK_1HZ,  # remote-move: blinks until the player makes it (as DGT boards do)
    STEADY,  # promote-queen
    STEADY,  # promote-rook
    STEADY,  # promote-bishop
    STEADY,  # promote-knight
    STEADY,  # check: pulses, see RGB_PULSE
    STEADY,  # stalemate
    BLINK_HALF_HZ,  # draw
    BLINK_1HZ,  # mated-king
    BLINK_1HZ,  # mating-piece
    STEADY,  # resigned
    BLINK_2HZ,  # place-here
    BLINK_2HZ,  # remove
    BLINK_1HZ,  # touched
    BLINK_4HZ,  # illegal: fast, like DGT boards' illegal-move blink
    BLINK_4HZ,  # fault
    BLINK_2HZ,  # low-time
    0x0303,  # unsent: a short flash every second, unlike the last move's steady glow
)

# 1 = the colour's brightness ramps up and down once a second instead of being steady.
RGB_PULSE = bytes((0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

MONO_BLINK = (
    DARK,  # off
    0x0001,  # last-move: blip
    0x0505,  # claim: double blip every second
    STEADY,  # quiet
    BLINK_2HZ,  # capture
    0x7FFF,  # lifted: wink
    BLINK_HALF_HZ,  # remote-move
    0x0007,  # promote-queen: one long flash
    0x0005,  # promote-rook: two flashes
    0x0015,  # promote-bishop: three flashes
    0x0055,  # promote-knight: four flashes
    0x0033,  # check: heartbeat
    BLINK_1HZ,  # stalemate
    BLINK_HALF_HZ,  # draw
    BLINK_4HZ,  # mated-king
    STEADY,  # mating-piece
    BLINK_2HZ,  # resigned
    0x0FFF,  # place-here: mostly on
    0x000F,  # remove: mostly off
    BLINK_1HZ,  # touched
    BLINK_4HZ,  # illegal
    0x55FF,  # fault: alarm
    0x1111,  # low-time: a tick every 512 ms
    0x0303,  # unsent: a 256 ms flash every second
)

# The pulsing codes as 1-byte bytes: `code in frame` is then one C-level search of a bytearray.
PULSE_CODES = tuple(bytes((c,)) for c in range(signals.COUNT) if RGB_PULSE[c])

# One character per code for terminals, in code order.
CHARS = ".-=ox*>QRBN+sd#mfv^t!?~u"

if not (
    len(COLOURS) == 3 * signals.COUNT
    and len(RGB_BLINK) == len(RGB_PULSE) == len(MONO_BLINK) == len(CHARS) == signals.COUNT
):
    raise ImportError("hardware/leds.py tables do not match core/signals.py")


def slot_bit(now_ms):
    """The bit of a blink pattern that is lit at now_ms."""
    return 1 << ((now_ms >> SLOT_SHIFT) & _SLOTS_MASK)


def pulse_level(now_ms):
    """Brightness factor 64..255 of a pulsing signal: a triangle wave of period 1024 ms, in 32 ms steps."""
    t = now_ms & 0x3E0  # 1024 ms period, 32 ms steps: 32 distinct levels, and cheap to cache by
    if t >= 512:
        t = 1023 - t
    return 64 + ((t * 3) >> 3)  # 64 .. 255: never fully dark, so a pulse is not a blink


def render_text(frame, pieces=None):
    """9 lines of text: ranks 8 down to 1 with one character per square, then the file letters.

    pieces, if given, is a 64-character string (index 0 = a1; " " for an empty square): each
    square then shows two characters, its piece letter ("." when empty) and its signal
    character (blank for off)."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for f in range(8):
            sq = 8 * rank + f
            code = frame[sq]
            c = CHARS[code] if code < len(CHARS) else "?"
            if pieces is not None:
                piece = pieces[sq]
                c = ("." if piece == " " else piece) + (" " if code == 0 else c)
            cells.append(c)
        lines.append((str(rank + 1) + " " + " ".join(cells)).rstrip())
    if pieces is not None:
        lines.append("  a  b  c  d  e  f  g  h")
    else:
        lines.append("  a b c d e f g h")
    return lines


class TextLeds:
    """The LED interface for terminals and tests: keeps the frame and renders it as text.

    With blink=True, squares whose pattern is dark at now_ms render as off, so a simulator
    redrawing on every change shows the same flashing as the monochrome board. Allocates when
    the picture changes (it builds strings): PC and simulator use only."""

    def __init__(self, blink=False, mono=True):
        self.blink = blink
        self._patterns = MONO_BLINK if mono else RGB_BLINK
        self.frame = bytearray(64)  # what is shown, after blinking
        self.writes = 0

    def show(self, frame, now_ms):
        shown = self.frame
        bit = slot_bit(now_ms)
        patterns = self._patterns
        changed = False
        for sq in range(64):
            code = frame[sq]
            if self.blink and code < len(patterns) and not patterns[code] & bit:
                code = 0
            if shown[sq] != code:
                shown[sq] = code
                changed = True
        if changed:
            self.writes += 1
        return changed

    def lines(self, pieces=None):
        return render_text(self.frame, pieces)

    def text(self, pieces=None):
        return "\n".join(render_text(self.frame, pieces))
