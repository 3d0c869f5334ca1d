# Start-up safety and the builder's bring-up test, on the fake Pico main.py is wired to.
#
# main.py must darken the LEDs before anything else in its wiring can fail, set the row pads to
# 12 mA and read them back; `selftest` on the USB console must light every LED in turn and read
# every square as a builder's hand places one piece, reporting what a miswired board shows.
import pytest

import config
from core.position import parse_square, square_name
from hardware import fake
from hardware import leds as L
from hardware import pico as pico_wiring
import selftest

START = list(range(16)) + list(range(48, 64))


def FakePico(settings, occupied=START):
    return fake.FakePico(settings.row_pins, settings.column_pins, config.SIO_GPIO_IN, occupied=occupied, cs_gpio=settings.spi_cs)


@pytest.fixture
def main_module(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    import wiring

    # The selftest's microsecond clock: every reading 700 us after the last, so a scan (two
    # readings) measures 700 us and an LED write too, whatever the PC's speed.
    ticks = [0]

    def ticks_us():
        ticks[0] += 700
        return ticks[0]

    monkeypatch.setattr(selftest, "_clock", lambda: (ticks_us, lambda a, b: a - b))
    return wiring


def pad(pico, gpio):
    return pico.vm.mem32.pads[gpio]


def test_row_pads_are_set_to_12_mA_and_nothing_else_changes(main_module):
    settings = config.Settings()
    pico = FakePico(settings)
    pico.vm.mem32.pads[settings.row_pins[3]] = 0x5E  # a pull-up left on by someone: must stay
    out = []
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    for gpio in range(30):
        if gpio in settings.row_pins:
            assert (pad(pico, gpio) >> 4) & 3 == 3, gpio  # DRIVE = 12 mA
            assert pad(pico, gpio) & ~0x30 == (0x4E if gpio == settings.row_pins[3] else 0x46)
        else:
            assert pad(pico, gpio) == 0x56, gpio  # columns, LED data, SPI: reset value, 4 mA
    assert board.app.row_drive_ma == [12] * 8
    assert out == []  # nothing to say when every row took it


def test_a_row_pad_that_does_not_take_12_mA_is_reported(main_module):
    settings = config.Settings()
    pico = FakePico(settings)
    mem32 = pico.vm.mem32
    write = mem32.__setitem__
    stuck = 4 * settings.row_pins[5] + 4 + config.PADS_BANK0_RP2040

    class StuckPad:
        # A chip (or an emulator) whose pad register for ROW6 ignores writes.
        def __getitem__(self, address):
            return mem32[address]

        def __setitem__(self, address, value):
            if address != stuck:
                write(address, value)

    pico.machine.mem32 = StuckPad()
    out = []
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    assert board.app.row_drive_ma == [12, 12, 12, 12, 12, 4, 12, 12]
    board.link.use("board")  # held until the PC speaks the board's commands (docs/spec.md section 6)
    assert out == [
        "msg row pads did not read back 12 mA drive: GPIO 19 (4 mA); a full rank may read empty "
        "(hardware/schematic.md, Pull-ups and logic levels)\n"
    ]


def test_the_rp2350_pads_are_used_only_where_micropython_names_that_chip(monkeypatch):
    monkeypatch.setattr(pico_wiring.sys.implementation, "_machine", "Raspberry Pi Pico2 with RP2350", raising=False)
    assert pico_wiring.pads_base() == config.PADS_BANK0_RP2350 == 0x40038000
    monkeypatch.setattr(pico_wiring.sys.implementation, "_machine", "Raspberry Pi Pico with RP2040", raising=False)
    assert pico_wiring.pads_base() == config.PADS_BANK0_RP2040 == 0x4001C000


class LitAtPowerUp(fake.FakeNeoPixel):
    """A WS2812B clone that powers up showing full white."""

    def __init__(self, pin=None, n=64, bpp=3, timing=1):
        super().__init__(pin, n, bpp, timing)
        for i in range(len(self.shown)):
            self.shown[i] = 255


def test_leds_go_dark_before_anything_else_in_the_wiring_can_fail(main_module, monkeypatch):
    settings = config.Settings()
    pico = FakePico(settings)
    strips = []

    def neopixel(pin, n):
        strips.append(LitAtPowerUp(pin, n))
        return strips[0]

    pico.neopixel.NeoPixel = neopixel

    def broken_scanner(settings, machine):
        assert strips and strips[0].writes == 1 and not any(strips[0].shown)  # already dark
        raise OSError("a pin the board cannot have")

    monkeypatch.setattr(pico_wiring, "make_scanner", broken_scanner)
    with pytest.raises(OSError):
        main_module.build(settings, pico.machine, pico.neopixel, [].append)
    assert not any(strips[0].shown)


def test_max7219_is_cleared_at_boot_too(main_module):
    settings = config.Settings().updated({"led_type": "max7219"})
    pico = FakePico(settings)
    for r in range(1, 9):
        pico.chip.registers[r] = 0xFF  # noise in the digit registers at power-up
    main_module.build(settings, pico.machine, pico.neopixel, [].append)
    assert pico.chip.lit() == bytearray(8)


# -- selftest ----------------------------------------------------------------------------------


class Bench:
    """The board on the fake Pico, a console and a builder's hand that follows the lit LED."""

    def __init__(self, main, settings, occupied=START):
        self.pico = FakePico(settings, occupied)
        self.out = []
        self.board = main.build(settings, self.pico.machine, self.pico.neopixel, self.out.append)
        self.vm = self.pico.vm
        self.t = 0
        self.board.start(0)
        self.board.link.use("board")  # a builder at a terminal: the start-up messages come out
        self.chain = config.chain_squares(settings.led_chain)

    def type(self, line):
        self.board.link.feed(line + "\n")

    def run(self, ms):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.board.tick(self.t)

    def lit(self):
        """{square: (r, g, b)} of the LEDs lit now."""
        np = self.pico.np
        out = {}
        for i in range(64):
            rgb = np.pixel(i)
            if any(rgb):
                out[self.chain[i]] = rgb
        return out

    def said(self):
        text = [line.rstrip("\n") for line in self.out if line.startswith("selftest ")]
        del self.out[:]
        return text


def test_selftest_lights_every_led_in_turn_in_each_colour_and_reads_every_square(main_module):
    settings = config.Settings()
    bench = Bench(main_module, settings)
    bench.type("selftest")
    bench.run(5)
    assert bench.said()[:2] == [
        "selftest started: scan, leds, squares; 'selftest skip' passes a square, 'selftest stop' ends it",
        "selftest scan: timing 200 scans",
    ]
    bench.run(1000)
    said = bench.said()
    assert said[0] == "selftest scan: 200 scans, 700 us least, 700 mean, 700 most (17% of the 4 ms period; settle 10 us x 8 rows)"
    assert said[1].startswith("selftest scan: closed now: a1 b1 c1")  # the start position is on it
    assert said[2] == "selftest scan: row pads read back 12 mA drive on all 8 rows"
    assert said[3].startswith("selftest leds: a1, b1 ... h8 one after the other in red, green, blue, white")
    # The walk: one LED at a time, a1 to h8, in each colour, at the configured brightness.
    k = settings.brightness + 1
    walk = []
    for _ in range(4 * 64 * 12 + 10):
        bench.run(5)
        lit = bench.lit()
        if len(lit) == 1:
            step = list(lit.items())[0]
            if not walk or walk[-1] != step:
                walk.append(step)
        elif len(lit) == 64:
            break
    colours = [tuple((c * k) >> 8 for c in rgb) for rgb in ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255))]
    assert walk == [(sq, rgb) for rgb in colours for sq in range(64)]
    assert len(bench.lit()) == 64
    bench.run(1100)
    said = bench.said()
    assert said[0].startswith("selftest leds: done; the longest write took 700 us; ")
    # 64 white at brightness 48: 64 x 3 channels at 48 of 255, 20 mA each at 255, plus 1 mA an LED.
    assert "all 64 white came to an estimated %d mA (cap 1500 mA)" % (64 * 3 * 48 * 20 // 255 + 64) in said[0]
    assert said[1].startswith("selftest squares: clear the board")
    # The builder clears the board, then follows the LED. Wiring faults: c3's column wire is
    # crossed with d3's (the hand's piece on c3 closes d3), f6's reed is broken, b2 also closes h8.
    for sq in START:
        bench.vm.lift(sq)
    bench.run(100)
    assert bench.said() == ["selftest put a piece on a1"]
    wired = {parse_square("c3"): [parse_square("d3")], parse_square("f6"): [], parse_square("b2"): [parse_square("b2"), parse_square("h8")]}
    for sq in range(64):
        lit = bench.lit()
        assert list(lit) == [sq], square_name(sq)
        closes = wired.get(sq, [sq])
        for s in closes:
            bench.vm.place(s, bounce_ms=3)
        bench.run(100 if closes else 20100)
        for s in closes:
            bench.vm.lift(s, bounce_ms=3)
        bench.run(100)
    said = bench.said()
    assert "selftest c3 read as d3 (crossed row or column wires?)" in said
    assert "selftest b2 read with h8 (missing or shorted diode, or a short between wires?)" in said
    assert any(line.startswith("selftest f6: nothing read in 20 s") for line in said)
    assert said[-2] == "selftest squares: 61 of 64 tested read right; no reading: f6; read elsewhere: c3>d3; read with others: b2>h8"
    assert said[-1] == "selftest done: no reading, read elsewhere, read with others"
    assert bench.board.app.selftest is None
    # The game resumes: the start position is off the board, so the LEDs ask for the pieces back.
    bench.run(500)
    assert len(bench.lit()) == 32


def test_selftest_skip_stop_and_refusals(main_module):
    bench = Bench(main_module, config.Settings(), occupied=())
    del bench.out[:]  # the start-up messages
    bench.type("selftest skip")
    bench.run(5)
    assert bench.out == ["err selftest is not running\n"]
    del bench.out[:]
    bench.type("selftest lamps")
    bench.run(5)
    assert bench.out == ["err selftest takes scan, leds, squares, skip or stop\n"]
    del bench.out[:]
    bench.type("selftest squares")
    bench.run(200)
    bench.type("selftest squares")
    bench.run(5)
    assert "err selftest is already running ('selftest stop' ends it)\n" in bench.out
    bench.said()
    bench.vm.place(0)
    bench.run(100)
    bench.vm.lift(0)
    bench.run(100)
    bench.type("selftest skip")  # b1
    bench.run(5)
    bench.type("selftest stop")
    bench.run(5)
    assert bench.said()[-5:] == [
        "selftest b1 skipped",
        "selftest put a piece on c1",
        "selftest stopped",
        "selftest squares: 1 of 2 tested read right; skipped: b1",
        "selftest done: no problems found",
    ]
    assert bench.board.app.selftest is None


def test_selftest_on_a_max7219_board_walks_its_one_colour():
    class Leds:
        def __init__(self):
            self.frames = []

        def show(self, frame, now):
            self.frames.append(bytes(frame))
            return True

    settings = config.Settings().updated({"led_type": "max7219"})
    vm = fake.VirtualReedMatrix()
    from hardware.matrix import MatrixScanner

    matrix = MatrixScanner(vm.rows, read_columns=vm.read_columns)
    leds = Leds()
    said = []
    clock = [0]
    test = selftest.SelfTest(settings, matrix, leds, said.append, lambda: clock[0], lambda a, b: a - b, ("leds",))
    assert [name for code, name in test.lamps] == ["lit"]
    assert L.MONO_BLINK[test.lamps[0][0]] == L.STEADY
    now = 0
    while test.step(now):
        now += 5
    single = []
    for f in leds.frames:
        on = [sq for sq in range(64) if f[sq]]
        if len(on) == 1 and (not single or single[-1] != on[0]):
            single.append(on[0])
    assert single == list(range(64))
    assert said[-2].startswith("leds: done; the longest write took ")
    assert said[-1] == "done: no problems found"
