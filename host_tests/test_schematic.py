# The schematic as code (tools/schematic/): its electrical rules check, its pins against
# hardware/pinout.md and firmware/config.py, and the committed netlists and pictures up to date.
import os
import sys

import pytest

import config
from hardware.ssd1306 import ADDRESS as OLED_ADDRESS
from test_pinout import PICO_PIN, documented_pins, expected_pins, kept_free, oled_nets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "schematic"))

build = pytest.importorskip("build")  # tools/schematic/build.py (needs skidl and schemdraw)
board = build.board
FILES = "abcdefgh"


@pytest.fixture(scope="module")
def circuits():
    return {led: board.build(led) for led in ("ws2812", "max7219")}


def part(circuit, ref):
    found = [p for p in circuit.parts if p.ref == ref]
    assert len(found) == 1, ref
    return found[0]


def net_of(circuit, ref, pin):
    return part(circuit, ref)[pin].net.name


def refs_on(circuit, net_name):
    nets = [n for n in circuit.nets if n.name == net_name]
    assert len(nets) == 1, net_name
    return sorted("%s.%s" % (p.part.ref, p.name) for p in nets[0].pins)


@pytest.mark.parametrize("led", ["ws2812", "max7219"])
def test_the_electrical_rules_check_passes(circuits, led):
    assert build.erc(circuits[led]) == []


def test_the_electrical_rules_check_finds_a_floating_input():
    # The check is real: a buffer with its inputs and supply left open is reported.
    circuit = board.Circuit()
    circuit.no_files = True
    with circuit:
        board._parts()["buffer"](ref="U9", tag="U9")
    problems = build.erc(circuit)
    assert any("Unconnected pin" in text and "U9" in text for level, text in problems), problems


@pytest.mark.parametrize("led", ["ws2812", "max7219"])
def test_pico_pins_agree_with_pinout_md_and_config(circuits, led):
    s = config.Settings().updated({"led_type": led})
    doc = documented_pins()
    want = expected_pins(s)
    circuit = circuits[led]
    wired = {}
    for gpio, (function, net) in want.items():
        if gpio == config.ONBOARD_LED_GPIO:
            continue  # on the Pico itself
        assert doc[gpio][1] == net and doc[gpio][2] == str(PICO_PIN[gpio])
        name = net_of(circuit, "U1", PICO_PIN[gpio])
        if net in ("LED_DATA",) and led == "max7219" or net.startswith("MAX_") and led == "ws2812":
            assert name.startswith("__NOCONNECT") or name == "", (gpio, name)  # the other option's pins
        else:
            assert name == net, "GP%d is %s in the schematic, %s in pinout.md" % (gpio, name, net)
            wired[gpio] = net
    assert len(wired) == (17 if led == "ws2812" else 20)
    # Pins kept free in pinout.md are left unconnected in the schematic, but for the two that
    # the optional clock display takes (test_the_clock_display_is_wired_as_oled_md_says).
    display = set(oled_nets().values())
    for gpio in sorted(set(kept_free()) - display):
        assert net_of(circuit, "U1", PICO_PIN[gpio]).startswith("__NOCONNECT"), gpio
    assert len(kept_free()) - len(display) == 3  # GP0, GP1 (UART0) and GP28 stay free
    assert net_of(circuit, "U1", 36) == "3V3" and net_of(circuit, "U1", 39) == "VSYS"


@pytest.mark.parametrize("led", ["ws2812", "max7219"])
def test_the_clock_display_is_wired_as_oled_md_says(circuits, led):
    # DS1, the SSD1306 module's 4-pin header, on the pins of oled.md's board.json example (which
    # config.py accepts as SDA and SCL of its default I2C block), powered from 3V3.
    c = circuits[led]
    for net, gpio in sorted(oled_nets().items()):
        role = net[len("OLED_"):]
        assert net_of(c, "U1", PICO_PIN[gpio]) == net
        # Nothing else on the line: the module carries the pull-ups, the board adds none.
        assert refs_on(c, net) == sorted(["DS1." + role, "U1.GP%d" % gpio])
    assert net_of(c, "DS1", "GND") == "GND"
    assert net_of(c, "DS1", "VCC") == "3V3"  # never +5V: the pull-ups would lift the Pico's pins to 5 V
    ds1 = part(c, "DS1")
    assert "I2C 0x%02X" % OLED_ADDRESS in ds1.value  # the address the driver talks to
    assert "pull-ups" in ds1.description and "on the module" in ds1.description


def test_the_matrix_has_a_diode_and_a_reed_per_square_the_right_way_round(circuits):
    circuit = circuits["ws2812"]
    for f in range(8):
        col = "COL" + FILES[f].upper()
        want = ["D_%s%d.A" % (FILES[f], r) for r in range(1, 9)] + ["R%d.2" % (f + 1), "U1.GP%d" % (2 + f)]
        assert refs_on(circuit, col) == sorted(want)
        assert part(circuit, "R%d" % (f + 1)).value == "10k"
    for r in range(1, 9):
        row = "ROW%d" % r
        want = ["S_%s%d.2" % (FILES[f], r) for f in range(8)] + ["U1.GP%d" % config.Settings().row_pins[r - 1]]
        assert refs_on(circuit, row) == sorted(want)
        for f in range(8):
            sq = "%s%d" % (FILES[f], r)
            assert refs_on(circuit, "n_" + sq) == ["D_%s.K" % sq, "S_%s.1" % sq]


def test_power_input_is_protected_and_switched(circuits):
    c = circuits["ws2812"]
    assert refs_on(c, "VBUS_IN") == ["F1.1", "J1.VBUS"]
    assert refs_on(c, "+5V_FUSED") == ["D1.K", "F1.2", "SW1.1"]  # TVS after the fuse: a clamp trips it
    assert "D2.A" in refs_on(c, "+5V") and refs_on(c, "VSYS") == ["D2.K", "U1.VSYS"]
    assert net_of(c, "U1", 40).startswith("__NOCONNECT")  # the Pico's VBUS never feeds the LEDs


def test_led_options_buffer_and_chain(circuits):
    ws = circuits["ws2812"]
    assert refs_on(ws, "LED_DATA") == ["U1.GP22", "U2.1A"]
    for unused in ("2A", "3A", "4A"):
        assert net_of(ws, "U2", unused) == "GND"
    chain = config.chain_squares("serpentine")
    assert refs_on(ws, "DIN_1") == ["LED_a1.DIN", "R9.2"]
    for n in range(1, 64):
        sq = chain[n]
        prev = chain[n - 1]
        assert refs_on(ws, "DIN_%d" % (n + 1)) == sorted(
            ["LED_%s%d.DOUT" % (FILES[prev % 8], prev // 8 + 1), "LED_%s%d.DIN" % (FILES[sq % 8], sq // 8 + 1)]
        )
    mx = circuits["max7219"]
    assert net_of(mx, "U2", "1A") == "GND"  # the WS2812B channel, unused on this build: grounded
    assert part(mx, "R12").value.startswith("28.0k")  # RSET for 20 mA at 2.0 V (datasheet Table 11)
    assert net_of(mx, "LED_a1", "A") == net_of(mx, "U3", 17)  # file a on SEG G
    assert net_of(mx, "LED_a1", "K") == net_of(mx, "U3", 2)  # rank 1 on DIG0


def test_generated_files_are_up_to_date(circuits):
    # make schematic rewrites them; a change to the circuit or the pictures without it fails here.
    stale = []
    for name, text in sorted(build.outputs(circuits).items()):
        path = os.path.join(build.OUT, name)
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                stale.append(name)
    assert stale == [], "run make schematic: %s out of date" % ", ".join(stale)
