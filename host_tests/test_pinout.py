# Tests that the builder's documents in hardware/ agree with firmware/config.py's defaults.
import json
import os
import re
import sys
import types

import pytest

import config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HARDWARE = os.path.join(ROOT, "hardware")
FILES = "abcdefgh"

# Raspberry Pi Pico: GPIO -> physical header pin (Pico datasheet, pinout diagram).
PICO_PIN = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}  # fmt: skip


def read(name):
    with open(os.path.join(HARDWARE, name), encoding="utf-8") as f:
        return f.read()


def tables(text):
    """Every pipe table outside code fences: a list of (header cells, list of row cells)."""
    found = []
    lines = text.splitlines()
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("|") and i + 1 < len(lines):
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            start = i - len(block) + 1
            assert len(block) >= 2, "table of one line at line %d" % start
            assert set("".join(block[1])) <= set("-: "), "no separator line at line %d" % start
            found.append((block[0], block[2:]))
            continue
        i += 1
    return found


def table(text, header):
    matches = [rows for head, rows in tables(text) if head == header]
    assert len(matches) == 1, "expected one table with header %r" % (header,)
    return matches[0]


def gpio_number(cell):
    m = re.fullmatch(r"GP(\d+)", cell)
    assert m, "GPIO cell must read GPn, got %r" % cell
    return int(m.group(1))


def expected_pins(s):
    """GPIO -> (function, net) that pinout.md must show for the settings `s`."""
    want = {}
    for i, pin in enumerate(s.row_pins):
        want[pin] = ("row, rank %d" % (i + 1), "ROW%d" % (i + 1))
    for f, pin in enumerate(s.column_pins):
        want[pin] = ("column, file %s" % FILES[f], "COL" + FILES[f].upper())
    want[s.led_pin] = ("WS2812B data", "LED_DATA")
    want[s.spi_sck] = ("MAX7219 CLK, SPI%d SCK" % s.spi_id, "MAX_CLK")
    want[s.spi_mosi] = ("MAX7219 DIN, SPI%d TX" % s.spi_id, "MAX_DIN")
    if s.spi_miso is not None:
        want[s.spi_miso] = ("MAX7219 DOUT, SPI%d RX" % s.spi_id, "MAX_DOUT")
    want[s.spi_cs] = ("MAX7219 LOAD (CS)", "MAX_LOAD")
    if type(s.status_led_pin) is int:
        want[s.status_led_pin] = ("on-board LED", "LED_ONBOARD")
    return want


def documented_pins():
    rows = table(read("pinout.md"), ["GPIO", "function", "net", "Pico pin"])
    doc = {}
    for gpio, function, net, pico_pin in rows:
        n = gpio_number(gpio)
        assert n not in doc, "GP%d listed twice in pinout.md" % n
        doc[n] = (function, net, pico_pin)
    return doc


def kept_free():
    """GPIO -> (purpose, Pico pin) of pinout.md's table of pins kept free."""
    free = {}
    for gpio, purpose, pico_pin in table(read("pinout.md"), ["GPIO", "kept free for", "Pico pin"]):
        n = gpio_number(gpio)
        assert n not in free, "GP%d listed twice among the free pins" % n
        free[n] = (purpose, pico_pin)
    return free


def oled_settings():
    """The settings of oled.md's board.json example: the optional clock display's pins. config.py
    itself leaves oled_sda and oled_scl null, as a board without the display must not drive them."""
    blocks = re.findall(r"```json\n(.*?)```", read("oled.md"), re.S)
    assert len(blocks) == 1, "oled.md should give one board.json example"
    return config.from_json(blocks[0])  # raises if the pins are not one I2C block's SDA and SCL


def oled_nets():
    """Net -> GPIO of the optional clock display, as oled.md's board.json example wires it."""
    s = oled_settings()
    return {"OLED_SDA": s.oled_sda, "OLED_SCL": s.oled_scl}


def test_every_configured_pin_is_documented_with_its_function():
    doc = documented_pins()
    for gpio, (function, net) in sorted(expected_pins(config.Settings()).items()):
        assert gpio in doc, "GP%d (%s) is configured but missing from pinout.md" % (gpio, function)
        assert doc[gpio][:2] == (function, net), "GP%d" % gpio


def test_every_documented_pin_is_configured():
    want = expected_pins(config.Settings())
    for gpio in sorted(documented_pins()):
        assert gpio in want, "GP%d is in pinout.md but not in config.py's defaults" % gpio


def test_every_configured_pin_is_in_pin_uses_once():
    uses = [pin for key, pin in config.Settings().pin_uses() if type(pin) is int]
    assert len(uses) == len(set(uses))
    assert set(uses) == set(expected_pins(config.Settings()))


def test_nets_are_unique():
    nets = [net for function, net, pico_pin in documented_pins().values()]
    assert len(nets) == len(set(nets))


def test_pico_pin_numbers_are_right():
    for gpio, (function, net, pico_pin) in documented_pins().items():
        if gpio in PICO_PIN:
            assert pico_pin == str(PICO_PIN[gpio]), "GP%d is Pico pin %d" % (gpio, PICO_PIN[gpio])
        else:
            assert gpio == config.ONBOARD_LED_GPIO and pico_pin == "on the board"


def test_free_pins_are_free_and_every_header_pin_is_accounted_for():
    free = {}
    for n, (purpose, pico_pin) in kept_free().items():
        assert pico_pin == str(PICO_PIN[n])
        free[n] = purpose
    used = set(documented_pins())
    assert not used & set(free), "a pin is both used and kept free"
    assert used | set(free) == set(config.HEADER_GPIOS) | {config.ONBOARD_LED_GPIO}
    assert "UART0" in free[0] and "UART0" in free[1]  # the debug console stays available


def test_clock_display_wiring_agrees_with_the_config_and_the_pin_map():
    default = config.Settings()
    s = oled_settings()
    assert default.oled_sda is None and default.oled_scl is None  # fitted only when board.json says
    assert s.oled_i2c_id == default.oled_i2c_id, "oled.md's example should use the default I2C block"
    rows = table(read("oled.md"), ["module pin", "Pico", "Pico pin"])
    wiring = {pin: (pico, pico_pin) for pin, pico, pico_pin in rows}
    assert wiring["GND"] == ("GND", "38") and wiring["VCC"] == ("3V3(OUT)", "36")  # never the 5 V rail
    free = kept_free()
    for role, gpio in (("SDA", s.oled_sda), ("SCL", s.oled_scl)):
        assert wiring[role] == ("GP%d, I2C%d %s" % (gpio, s.oled_i2c_id, role), str(PICO_PIN[gpio])), role
        # pinout.md keeps the pin free for the display and names the schematic's net.
        purpose = free[gpio][0]
        assert "I2C%d %s of the optional clock display, net OLED_%s" % (s.oled_i2c_id, role, role) in purpose
    rows = table(read("build-notes.md"), ["key", "default", "when to change"])
    why = {key.strip("`"): text for key, default_text, text in rows}
    assert why["oled_sda"].startswith("%d with the optional clock display" % s.oled_sda)
    assert why["oled_scl"].startswith("%d with the optional clock display" % s.oled_scl)


def test_header_drawing_matches_the_table():
    text = read("pinout.md")
    drawing = text[text.index("## Physical header") :]
    drawing = drawing[drawing.index("```") + 3 :]
    drawing = drawing[: drawing.index("```")]
    nets = {gpio: net for gpio, (function, net, pico_pin) in documented_pins().items()}
    seen = set()
    for line in drawing.splitlines():
        left = re.search(r"^\s*(\S*)\s+.*?GP(\d+)\s+(\d+) \|o", line)
        if left:
            gpio, pin = int(left.group(2)), int(left.group(3))
            assert PICO_PIN[gpio] == pin, line
            if gpio in nets:
                assert left.group(1) == nets[gpio], line
            seen.add(gpio)
        right = re.search(r"o\| (\d+) GP(\d+)\s*(\S*)", line)
        if right:
            pin, gpio = int(right.group(1)), int(right.group(2))
            assert PICO_PIN[gpio] == pin, line
            if gpio in nets:
                assert right.group(3) == nets[gpio], line
            seen.add(gpio)
    assert seen == set(PICO_PIN)


def test_schematic_netlist_matches_the_config():
    s = config.Settings()
    rows = table(read("schematic.md"), ["net", "GPIO", "connects to"])
    by_net = {net: (gpio, connects) for net, gpio, connects in rows}
    for f in range(8):
        gpio, connects = by_net["COL" + FILES[f].upper()]
        assert gpio_number(gpio) == s.column_pins[f]
        assert "Pico pin %d;" % PICO_PIN[s.column_pins[f]] in connects
        assert "R%d (10 kOhm) to 3V3" % (f + 1) in connects
        diodes = re.findall(r"D_([a-h][1-8])", connects)
        assert diodes == ["%s%d" % (FILES[f], r) for r in range(1, 9)]
    for r in range(8):
        gpio, connects = by_net["ROW%d" % (r + 1)]
        assert gpio_number(gpio) == s.row_pins[r]
        assert "Pico pin %d;" % PICO_PIN[s.row_pins[r]] in connects
        reeds = re.findall(r"S_([a-h][1-8])", connects)
        assert reeds == ["%s%d" % (FILES[f], r + 1) for f in range(8)]
    # The optional clock display's header DS1, on the pins of oled.md's board.json example.
    rows = table(read("schematic.md"), ["DS1 pin", "net", "GPIO", "Pico pin"])
    display = {pin: (net, gpio, pico_pin) for pin, net, gpio, pico_pin in rows}
    assert display["1 GND"] == ("GND", "-", "38") and display["2 VCC"] == ("3V3", "-", "36")
    for pin, net in (("3 SCL", "OLED_SCL"), ("4 SDA", "OLED_SDA")):
        gpio = oled_nets()[net]
        assert display[pin] == (net, "GP%d" % gpio, str(PICO_PIN[gpio])), pin


def test_gpio_mentions_in_every_document_use_the_right_net():
    nets = {net: gpio for gpio, (function, net, pico_pin) in documented_pins().items()}
    nets.update(oled_nets())
    checked = 0
    for name in sorted(os.listdir(HARDWARE)):
        if not name.endswith(".md"):
            continue
        text = read(name)
        pairs = [(int(g), n) for g, n in re.findall(r"\bGP(\d+)(?:, | \()([A-Z][A-Z0-9_]+)", text)]
        pairs += [(int(g), n) for n, g in re.findall(r"\b([A-Z][A-Z0-9_]+) \(GP(\d+)\)", text)]
        for gpio, net in pairs:
            if net in nets:
                assert nets[net] == gpio, "%s: GP%d is not %s" % (name, gpio, net)
                checked += 1
    assert checked >= 10  # the patterns still find the mentions


def test_json_examples_in_the_documents_are_accepted():
    count = 0
    for name in sorted(os.listdir(HARDWARE)):
        if name.endswith(".md"):
            for block in re.findall(r"```json\n(.*?)```", read(name), re.S):
                config.from_json(block)
                count += 1
    assert count >= 1


def test_settings_table_in_build_notes_matches_the_defaults():
    defaults = config.Settings().as_dict()
    rows = table(read("build-notes.md"), ["key", "default", "when to change"])
    for key, default, why in rows:
        key = key.strip("`")
        assert key in defaults, key
        assert json.loads(default.strip("`")) == defaults[key], key


# The matrix test script in build-notes.md, run against a fake Pico with a diode matrix.


class _Stop(Exception):
    pass


def _fake_pico(s, occupied, changes, stop_after):
    # occupied: set of squares with a piece; changes: {scan number: (square, piece or not)}.
    level = {}
    reads = [0]

    class Pin:
        IN, OUT, OPEN_DRAIN, PULL_UP = 0, 1, 2, 1

        def __init__(self, n, mode=None, pull=None, value=None):
            self.n = n
            if mode == Pin.OPEN_DRAIN:
                level[n] = 1 if value is None else value

        def value(self, v):
            level[self.n] = v

    class Mem32:
        def __getitem__(self, address):
            assert address == config.SIO_GPIO_IN
            scan = reads[0] // 8
            if reads[0] % 8 == 0 and scan in changes:
                square, present = changes[scan]
                (occupied.add if present else occupied.discard)(square)
            if scan >= stop_after:
                raise _Stop()
            reads[0] += 1
            value = (1 << 30) - 1  # all pulled up
            for r, pin in enumerate(s.row_pins):
                if level[pin] == 0:  # selected rank: with diodes, only its own switches count
                    for f in range(8):
                        if 8 * r + f in occupied:
                            value &= ~(1 << s.column_pins[f])
            return value

    machine = types.ModuleType("machine")
    machine.Pin = Pin
    machine.mem32 = Mem32()
    clock = types.ModuleType("time")
    clock.sleep_us = clock.sleep_ms = lambda t: None
    return machine, clock


def test_matrix_test_script_in_build_notes_prints_the_board(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", read("build-notes.md"), re.S)
    script = [b for b in blocks if b.startswith("# matrix_test.py")]
    assert len(script) == 1
    s = config.Settings()
    # a1, a2, b2: b1 must not show (the ghosting check). Scan 3 lifts a2.
    machine, clock = _fake_pico(s, {0, 8, 9}, {3: (8, False)}, stop_after=5)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "time", clock)
    monkeypatch.chdir(os.path.join(ROOT, "firmware"))  # no board.json there: defaults
    with pytest.raises(_Stop):
        exec(compile(script[0], "matrix_test.py", "exec"), {"__name__": "__main__"})
    out = capsys.readouterr().out.splitlines()
    first = out[: out.index("  a b c d e f g h   3 occupied") + 1]
    assert first[-3:-1] == ["2 X X . . . . . .", "1 X . . . . . . ."]
    assert first[0] == "8 . . . . . . . ."
    rest = out[len(first) :]
    assert rest[0] == "lift a2"
    assert rest[-3:] == ["2 . X . . . . . .", "1 X . . . . . . .", "  a b c d e f g h   2 occupied"]
