# Tests of the LED drivers over the fakes: colours, patterns, current cap, MAX7219 registers, self-test.
#
# Zero allocation per show() is measured under MicroPython in host_tests/portable/test_scan_and_show.py.
import pytest

from core import signals as S
from hardware import leds
from hardware.fake import FakeMax7219, FakeNeoPixel, FakePin, FakeSPI
from hardware.max7219 import Max7219Leds
from config import chain_squares
from hardware.ws2812 import Ws2812Leds

E4 = 28


def one(code, square=E4):
    frame = bytearray(64)
    frame[square] = code
    return frame


def lit_time(pattern):
    """A now_ms at which `pattern` is lit (slot 0 is lit for every non-dark pattern here)."""
    for slot in range(16):
        if pattern >> slot & 1:
            return slot << leds.SLOT_SHIFT
    raise AssertionError("dark pattern")


def rgb(**kwargs):
    np = FakeNeoPixel()
    kwargs.setdefault("brightness", 255)
    kwargs.setdefault("current_cap_ma", 10000)
    return np, Ws2812Leds(np, **kwargs)


def max7219(**kwargs):
    cs = FakePin("cs", FakePin.OUT, value=1)
    chip = FakeMax7219(cs)
    spi = FakeSPI(chip, record=True)
    return chip, spi, Max7219Leds(spi, cs, **kwargs)


# --- the tables -----------------------------------------------------------------------------


def test_tables_cover_every_signal():
    assert len(leds.COLOURS) == 3 * S.COUNT
    assert len(leds.RGB_BLINK) == len(leds.MONO_BLINK) == len(leds.RGB_PULSE) == S.COUNT
    assert len(leds.CHARS) == len(set(leds.CHARS)) == S.COUNT
    assert all(0 <= p <= 0xFFFF for p in leds.RGB_BLINK + leds.MONO_BLINK)
    assert leds.MONO_BLINK[S.OFF] == 0 and leds.COLOURS[0:3] == bytes(3)


def test_the_plain_paint_uses_the_drivers_layout():
    # hardware/ws2812_plain.py writes the driver's table and params layout out as its own consts
    # (so that it imports nothing of hardware/ws2812.py): the numbers must be the driver's.
    from hardware import ws2812, ws2812_plain

    for name in ("T_COLOURS", "T_PULSE", "P_SLOT", "P_STEADY", "P_PULSE", "P_ORDER", "BLINKS", "PULSES"):
        assert getattr(ws2812_plain, "_" + name) == getattr(ws2812, name), name


def test_mono_patterns_tell_signals_apart():
    # Everything that can be on the board together during play, and every error, has its own
    # pattern; the game-end signals have their own among themselves (nothing else is shown then
    # except the optional last move).
    play_and_errors = [
        S.LAST_MOVE, S.CLAIM, S.QUIET, S.CAPTURE, S.LIFTED, S.REMOTE_MOVE, S.PROMOTE_QUEEN,
        S.PROMOTE_ROOK, S.PROMOTE_BISHOP, S.PROMOTE_KNIGHT, S.CHECK, S.PLACE_HERE, S.REMOVE,
        S.TOUCHED, S.ILLEGAL, S.FAULT, S.LOW_TIME, S.UNSENT,
    ]  # fmt: skip
    game_end = [S.STALEMATE, S.DRAW, S.MATED_KING, S.MATING_PIECE, S.RESIGNED, S.LAST_MOVE]
    assert len(play_and_errors) + len(game_end) - 1 == S.COUNT - 1
    for group in (play_and_errors, game_end):
        patterns = [leds.MONO_BLINK[c] for c in group]
        assert len(set(patterns)) == len(patterns), group


def test_rgb_signals_tell_apart_during_play():
    play_and_errors = [
        S.LAST_MOVE, S.CLAIM, S.QUIET, S.CAPTURE, S.LIFTED, S.REMOTE_MOVE, S.PROMOTE_QUEEN,
        S.PROMOTE_ROOK, S.PROMOTE_BISHOP, S.PROMOTE_KNIGHT, S.CHECK, S.PLACE_HERE, S.REMOVE,
        S.TOUCHED, S.ILLEGAL, S.FAULT, S.LOW_TIME, S.UNSENT,
    ]  # fmt: skip
    looks = [
        (bytes(leds.COLOURS[3 * c : 3 * c + 3]), leds.RGB_BLINK[c], leds.RGB_PULSE[c]) for c in play_and_errors
    ]
    assert len(set(looks)) == len(looks)


def test_docstring_table_matches_the_tables():
    # docs/leds.md's signal table is made from this docstring: keep it true.
    rows = [line for line in leds.__doc__.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split("|")[1].strip() for r in rows] == S.names()
    for code, row in enumerate(rows):
        cells = [c.strip() for c in row.split("|")[1:-1]]
        assert cells[1] == leds.CHARS[code], row
        assert int(cells[4], 16) == leds.MONO_BLINK[code], row
        c = leds.COLOURS[3 * code : 3 * code + 3]
        assert cells[2] == "off" if code == 0 else cells[2].endswith(str(tuple(c))), row
        assert RGB_WORDS[cells[3]] == (leds.RGB_BLINK[code], leds.RGB_PULSE[code]), row


RGB_WORDS = {
    "-": (leds.DARK, 0),
    "steady": (leds.STEADY, 0),
    "pulse 1 Hz": (leds.STEADY, 1),
    "slow 0.5 Hz": (leds.BLINK_HALF_HZ, 0),
    "blink 1 Hz": (leds.BLINK_1HZ, 0),
    "blink 2 Hz": (leds.BLINK_2HZ, 0),
    "fast 4 Hz": (leds.BLINK_4HZ, 0),
    "flash 1 Hz": (0x0303, 0),  # a 256 ms flash every second
}


# --- WS2812B ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", range(1, S.COUNT))
def test_each_signal_shows_its_colour(code):
    np, strip = rgb()
    t = lit_time(leds.RGB_BLINK[code])
    if leds.RGB_PULSE[code]:
        t += 512  # the top of the pulse
        assert leds.pulse_level(t) == 255
    assert strip.show(one(code), t)
    assert np.pixel(E4) == tuple(leds.COLOURS[3 * code : 3 * code + 3])
    assert all(np.pixel(i) == (0, 0, 0) for i in range(64) if i != E4)


def test_blinking_signal_goes_dark_in_its_off_slots():
    np, strip = rgb()
    frame = one(S.ILLEGAL)  # 0x5555: lit in even slots
    strip.show(frame, 0)
    assert np.pixel(E4) == (255, 0, 255)
    strip.show(frame, 128)
    assert np.pixel(E4) == (0, 0, 0)
    strip.show(frame, 256)
    assert np.pixel(E4) == (255, 0, 255)
    assert np.writes == 3


def test_check_pulses_but_never_goes_dark():
    np, strip = rgb()
    reds = set()
    for t in range(0, 1024, 32):
        strip.show(one(S.CHECK), t)
        reds.add(np.pixel(E4)[0])
    assert min(reds) > 0 and max(reds) == 255 and len(reds) >= 16


def test_writes_only_when_pixels_change():
    np, strip = rgb()
    frame = one(S.QUIET)
    assert strip.show(frame, 0)
    assert not strip.show(frame, 1)  # same frame, same slot: nothing computed
    assert not strip.show(frame, 500)  # steady signal, new slot: computed, nothing to write
    frame[E4 + 1] = S.CAPTURE
    assert strip.show(frame, 501)
    assert np.writes == 2 and strip.writes == 2


def test_brightness_scales_every_channel():
    np, strip = rgb(brightness=48)
    strip.show(one(S.RESIGNED), 0)
    assert np.pixel(E4) == (48, 48, 48)  # 255 * 49 / 256
    strip.set_brightness(0)
    strip.show(one(S.RESIGNED), 0)
    assert np.pixel(E4) == (0, 0, 0)
    with pytest.raises(ValueError):
        strip.set_brightness(256)


def test_current_cap_scales_the_frame_down_keeping_the_hue():
    np, strip = rgb(current_cap_ma=1000)
    frame = bytearray([S.RESIGNED] * 64)  # 64 white LEDs at full scale: about 3.9 A
    strip.show(frame, 0)
    assert strip.current_ma <= 1000
    assert strip.current_ma > 900  # scaled to the cap, not far below it
    r, g, b = np.pixel(0)
    assert r == g == b and 0 < r < 255
    # A frame under the cap is not touched.
    strip.show(one(S.RESIGNED), 0)
    assert np.pixel(E4) == (255, 255, 255)
    assert strip.current_ma == 60 + 64  # 3 channels x 20 mA, plus 1 mA idle per LED


def test_current_cap_keeps_orange_orange():
    np, strip = rgb(current_cap_ma=500)
    strip.show(bytearray([S.REMOVE] * 64), 0)  # orange (255, 80, 0), lit at t = 0
    r, g, b = np.pixel(0)
    assert b == 0 and r > g > 0
    assert abs(g / r - 80 / 255) < 0.05


def test_default_settings_keep_a_full_board_under_the_cap():
    np = FakeNeoPixel()
    strip = Ws2812Leds(np)  # brightness 48, cap 1500 mA: the class defaults = config's
    strip.show(bytearray([S.RESIGNED] * 64), 0)
    assert strip.current_ma <= 1500
    assert np.pixel(0) == (48, 48, 48)


def test_chain_order_rows_and_serpentine():
    np, strip = rgb()  # default: rows, LED n on square n
    strip.show(one(S.QUIET, 8), 0)  # a2
    assert np.pixel(8) == (0, 255, 0)
    np, strip = rgb(chain=chain_squares("serpentine"))
    strip.show(one(S.QUIET, 8), 0)  # a2 is the last LED of the second rank's run h2..a2
    assert np.pixel(15) == (0, 255, 0) and np.pixel(8) == (0, 0, 0)
    strip.show(one(S.QUIET, 16), 0)  # a3: rank 3 runs a->h again
    assert np.pixel(16) == (0, 255, 0)
    with pytest.raises(ValueError):
        Ws2812Leds(FakeNeoPixel(), chain=bytes(64))


def test_strip_byte_order_is_the_neopixel_order():
    np, strip = rgb()
    strip.show(one(S.PROMOTE_BISHOP, 0), 512)  # orange (255, 80, 0)
    assert bytes(np.shown[0:3]) == bytes((80, 255, 0))  # GRB on the wire


def test_clear():
    np, strip = rgb()
    strip.show(one(S.QUIET), 0)
    strip.clear()
    assert np.shown == bytearray(192)
    assert strip.show(one(S.QUIET), 0)  # shown again after a clear


# --- MAX7219 ----------------------------------------------------------------------------------


def words(spi):
    return [tuple(w) for w in spi.log if len(w) == 2]


def test_register_init_sequence():
    chip, spi, display = max7219(brightness=80)
    assert words(spi) == [
        (0x0F, 0),  # display test off
        (0x09, 0),  # no decode
        (0x0B, 7),  # scan all 8 digits
        (0x0A, 5),  # intensity 80 >> 4
        (1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0),  # rows cleared ...
        (0x0C, 1),  # ... before leaving shutdown
    ]  # fmt: skip
    assert chip.registers[12] == 1 and chip.lit() == bytearray(8)


def test_rows_written_only_when_they_change():
    chip, spi, display = max7219()
    spi.log.clear()
    frame = one(S.QUIET, 28)  # e4: rank 4 = digit 4, file e = bit 4
    assert display.show(frame, 0)
    assert words(spi) == [(4, 0x10)]
    assert not display.show(frame, 1)
    assert not display.show(frame, 300)  # steady: new slot, same rows
    frame[29] = S.QUIET
    frame[63] = S.QUIET
    assert display.show(frame, 301)
    assert words(spi) == [(4, 0x10), (4, 0x30), (8, 0x80)]
    assert chip.lit() == bytearray((0, 0, 0, 0x30, 0, 0, 0, 0x80))


@pytest.mark.parametrize("code", range(1, S.COUNT))
def test_each_signal_blinks_its_pattern(code):
    chip, spi, display = max7219()
    seen = 0
    for slot in range(16):
        display.show(one(code), (slot << leds.SLOT_SHIFT) + 5)
        if chip.lit()[3] & 0x10:
            seen |= 1 << slot
    assert seen == leds.MONO_BLINK[code]


def test_reversed_files_and_ranks():
    chip, spi, display = max7219(reverse_files=True, reverse_ranks=True)
    display.show(one(S.QUIET, 0), 0)  # a1
    assert chip.lit() == bytearray((0, 0, 0, 0, 0, 0, 0, 0x80))


def test_brightness_sets_intensity():
    chip, spi, display = max7219()
    assert chip.registers[10] == 48 >> 4
    display.set_brightness(255)
    assert chip.registers[10] == 15


def test_registers_refreshed_after_a_glitch():
    chip, spi, display = max7219()
    display.show(one(S.QUIET), 0)
    chip.registers[12] = 0  # a glitch on LOAD put the chip in shutdown
    chip.registers[4] = 0xFF
    display.show(one(S.QUIET), 5000)
    assert chip.registers[12] == 0
    display.show(one(S.QUIET), Max7219Leds.refresh_ms + 1)
    assert chip.registers[12] == 1 and chip.lit()[3] == 0x10


def test_self_test_finds_the_chip():
    chip, spi, display = max7219()
    display.show(one(S.QUIET), 0)
    before = bytes(chip.registers)
    assert display.self_test()
    assert bytes(chip.registers[1:]) == before[1:]  # only the no-op register was "written"


@pytest.mark.parametrize("miso", [0x00, 0xFF])
def test_self_test_fails_without_the_chip(miso):
    display = Max7219Leds(FakeSPI(miso_idle=miso), FakePin("cs", FakePin.OUT, value=1))
    assert not display.self_test()


def test_self_test_fails_when_miso_is_tied_to_mosi():
    class Bridge:  # a solder bridge: MISO reads what MOSI sends, at once
        def shift(self, b):
            return b

    display = Max7219Leds(FakeSPI(Bridge()), FakePin("cs", FakePin.OUT, value=1))
    assert not display.self_test()


def test_self_test_accepts_an_echo_one_clock_late():
    class LateChip(FakeMax7219):
        # MISO sampled one clock after DOUT changed: the bit stream arrives one bit late.
        late = 0

        def shift(self, b):
            self.late = ((self.late << 8) | b) & 0xFFFFFFFF
            FakeMax7219.shift(self, b)
            return (self.late >> 17) & 0xFF

    cs = FakePin("cs", FakePin.OUT, value=1)
    display = Max7219Leds(FakeSPI(LateChip(cs)), cs)
    assert display.self_test()


# --- text -------------------------------------------------------------------------------------


def test_render_text():
    frame = one(S.LIFTED, 12)  # e2
    frame[20] = S.QUIET
    frame[28] = S.QUIET
    lines = leds.render_text(frame)
    assert lines == [
        "8 . . . . . . . .",
        "7 . . . . . . . .",
        "6 . . . . . . . .",
        "5 . . . . . . . .",
        "4 . . . . o . . .",
        "3 . . . . o . . .",
        "2 . . . . * . . .",
        "1 . . . . . . . .",
        "  a b c d e f g h",
    ]


def test_render_text_with_pieces():
    pieces = "RNBQKBNR" + "PPPP PPP" + " " * 32 + "pppppppp" + "rnbqkbnr"
    frame = one(S.LIFTED, 12)
    frame[20] = S.QUIET
    frame[28] = S.QUIET
    assert leds.render_text(frame, pieces) == [
        "8 r  n  b  q  k  b  n  r",
        "7 p  p  p  p  p  p  p  p",
        "6 .  .  .  .  .  .  .  .",
        "5 .  .  .  .  .  .  .  .",
        "4 .  .  .  .  .o .  .  .",
        "3 .  .  .  .  .o .  .  .",
        "2 P  P  P  P  .* P  P  P",
        "1 R  N  B  Q  K  B  N  R",
        "  a  b  c  d  e  f  g  h",
    ]


def test_text_leds_interface():
    t = leds.TextLeds(blink=True)
    frame = one(S.ILLEGAL)
    assert t.show(frame, 0) and t.frame[E4] == S.ILLEGAL
    assert not t.show(frame, 1)
    assert t.show(frame, 128) and t.frame[E4] == S.OFF  # the dark half of the fast blink
    steady = leds.TextLeds()
    steady.show(frame, 128)
    assert steady.text().splitlines()[4] == "4 . . . . ! . . ."


def test_the_palette_tells_apart_what_players_confused():
    # Issue 13: signals that once shared a colour must differ by colour alone, blink aside, so a
    # glance tells them apart: what may be taken from what must go and what was wrong, where a
    # piece may go from where one must go, and the game-end marks from both.
    def colour(code):
        return bytes(leds.COLOURS[3 * code : 3 * code + 3])

    for group in (
        (S.CAPTURE, S.REMOVE, S.ILLEGAL, S.MATED_KING),
        (S.QUIET, S.PLACE_HERE, S.MATING_PIECE),
    ):
        assert len({colour(c) for c in group}) == len(group), [S.name(c) for c in group]
    # The last move is seen on dark squares too: not a dim blue (the eye is least sensitive to
    # blue), but a warm white that lights every channel.
    r, g, b = colour(S.LAST_MOVE)
    assert min(r, g, b) > 0 and 0.2126 * r + 0.7152 * g + 0.0722 * b >= 30
    # The promotion piece shows on a white queen: no promotion colour is white or near it.
    for code in (S.PROMOTE_QUEEN, S.PROMOTE_ROOK, S.PROMOTE_BISHOP, S.PROMOTE_KNIGHT):
        assert min(colour(code)) == 0, S.name(code)
    assert len({colour(c) for c in (S.PROMOTE_QUEEN, S.PROMOTE_ROOK, S.PROMOTE_BISHOP, S.PROMOTE_KNIGHT)}) == 4
