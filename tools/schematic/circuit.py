"""The whole board as a SKiDL circuit: Pico, power input with protection, switch matrix, LED option,
and the optional clock display.

This is the schematic (hardware/README.md). Every part is defined here, pins and pin types
included, so neither KiCad nor its symbol libraries are needed: SKiDL runs its electrical rules
check (ERC) on it and writes a KiCad netlist (tools/schematic/build.py). The Pico's header is
wired by physical pin number, as on a drawn schematic; host_tests/test_schematic.py checks those
pins against hardware/pinout.md and firmware/config.py.

    build("ws2812") or build("max7219") -> skidl.Circuit, one per LED option of hardware/leds.md.

Power nets get a drive flag where a supply enters them through a passive part (a fuse, a switch,
a diode), as KiCad's PWR_FLAG does: the ERC then checks that every power input sits on a net
with a source, and that no two outputs drive one net.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _path in (os.path.join(ROOT, "tools", "shims"), os.path.join(ROOT, "firmware")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
# No KiCad install is needed: the parts come from this file. Naming the library folders (empty)
# keeps SKiDL from warning, at import, that it cannot find KiCad's own.
for _v in ("", "6", "7", "8", "9", "10"):
    os.environ.setdefault("KICAD%s_SYMBOL_DIR" % _v, "")

import skidl  # noqa: E402
from skidl import POWER, Circuit, Net, Part, Pin  # noqa: E402

import config  # noqa: E402  (only for chain_squares: the LED chain order is the firmware's)


def _skidl_trace():
    """SKiDL's get_skidl_trace(), the (file, line) of each caller outside SKiDL, by walking the
    frames: SKiDL's own calls inspect.stack(), which reads the source of every frame, for every
    part and net, and spent 90 % of the time building this circuit (the output is the same)."""
    skidl_dir = os.path.dirname(skidl.__file__)
    trace = []
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(skidl_dir):
            trace.append((os.path.abspath(name), str(frame.f_lineno)))
        frame = frame.f_back
    trace.reverse()
    return trace


for _module in ("skidl.scriptinfo", "skidl.circuit", "skidl.node", "skidl.logger"):
    if hasattr(sys.modules.get(_module), "get_skidl_trace"):
        sys.modules[_module].get_skidl_trace = _skidl_trace

FILES = "abcdefgh"
T = Pin.types

# The Raspberry Pi Pico's 40 header pins (Pico datasheet, pinout) and the BOOTSEL test pad TP6 on
# its underside (a button from TP6 to GND is a BOOTSEL button reachable once the Pico is enclosed).
PICO_PINS = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND", 9: "GP6",
    10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11", 16: "GP12", 17: "GP13",
    18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17", 23: "GND", 24: "GP18", 25: "GP19",
    26: "GP20", 27: "GP21", 28: "GND", 29: "GP22", 30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND",
    34: "GP28", 35: "ADC_VREF", 36: "3V3", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
    41: "TP6_BOOTSEL",
}  # fmt: skip

# What this board connects to each Pico pin, by physical pin: the schematic's own statement, which
# the test compares with pinout.md and config.py. Pins not named here are left unconnected.
MATRIX_NETS = {4: "COLA", 5: "COLB", 6: "COLC", 7: "COLD", 9: "COLE", 10: "COLF", 11: "COLG", 12: "COLH",
               19: "ROW1", 20: "ROW2", 21: "ROW3", 22: "ROW4", 24: "ROW5", 25: "ROW6", 26: "ROW7", 27: "ROW8"}  # fmt: skip
WS2812_NETS = {29: "LED_DATA"}
MAX7219_NETS = {14: "MAX_CLK", 15: "MAX_DIN", 16: "MAX_DOUT", 17: "MAX_LOAD"}
# The optional clock display (hardware/oled.md) on I2C1: GP26 SDA, GP27 SCL. config.py leaves
# oled_sda/oled_scl null (a board without the display must not drive these pins); a builder who
# fits it names these two in board.json.
OLED_NETS = {31: "OLED_SDA", 32: "OLED_SCL"}
POWER_NETS = {3: "GND", 8: "GND", 13: "GND", 18: "GND", 23: "GND", 28: "GND", 33: "GND", 38: "GND",
              36: "3V3", 39: "VSYS", 30: "RUN", 41: "BOOTSEL"}  # fmt: skip

# MAX7219 (DIP-24): digit pin of each rank and segment pin of each file (hardware/leds.md).
MAX_DIGIT_PINS = (2, 11, 6, 7, 3, 10, 5, 8)  # DIG0..DIG7 = ranks 1..8
MAX_SEGMENT_PINS = (17, 15, 21, 23, 20, 16, 14, 22)  # SEG G, F, E, D, C, B, A, DP = files a..h


def pico_nets(led_type):
    nets = dict(MATRIX_NETS)
    nets.update(WS2812_NETS if led_type == "ws2812" else MAX7219_NETS)
    nets.update(OLED_NETS)
    nets.update(POWER_NETS)
    return nets


def _template(name, ref, pins, value="", footprint="", description=""):
    """A part defined here: pins is [(number, name, type)]."""
    return Part(
        name=name,
        tool=skidl.SKIDL,
        dest=skidl.TEMPLATE,
        ref_prefix=ref,
        value=value,
        footprint=footprint,
        description=description,
        pins=[Pin(num=n, name=nm, func=f) for n, nm, f in pins],
    )


def _pico_pin_type(name):
    if name.startswith("GP"):
        return T.BIDIR
    if name in ("GND", "AGND"):
        return T.PWRIN
    if name == "3V3":
        return T.PWROUT  # the Pico's own 3.3 V regulator: the column pull-ups hang on it
    if name == "VSYS":
        return T.PWRIN
    if name == "VBUS":
        return T.PWROUT  # 5 V from the Pico's USB socket: left unconnected on this board
    return T.INPUT  # RUN, 3V3_EN, ADC_VREF, TP6 (BOOTSEL)


def _parts():
    P = T.PASSIVE
    two = [(1, "1", P), (2, "2", P)]
    diode = [(1, "K", P), (2, "A", P)]
    return {
        "pico": _template(
            "RaspberryPi_Pico", "U", [(n, nm, _pico_pin_type(nm)) for n, nm in PICO_PINS.items()],
            "Raspberry Pi Pico SC0915", "chessboard:RaspberryPi_Pico_THT", "RP2040 board, MicroPython 1.27",
        ),
        "usbc": _template(
            "USB_C_Power_Sink", "J", [(1, "VBUS", T.PWROUT), (2, "GND", P)],
            "USB-C receptacle breakout, 5.1k CC pull-downs", "chessboard:USB_C_Sink_Breakout_1x04",
            "5 V input only: a USB-C source gives 5 V to a sink that asks for nothing else",
        ),
        "polyfuse": _template("Polyfuse", "F", two, "MF-R185 (1.85 A hold, 3.7 A trip)", "Fuse:Fuse_Bourns_MF-R185", "resettable fuse"),
        "tvs": _template("D_TVS", "D", diode, "SMAJ5.0A", "Diode_SMD:D_SMA", "5.0 V stand-off, 6.4 V breakdown: clamps spikes"),
        "switch": _template("SW_SPST", "SW", two, "on/off, 3 A DC or more", "chessboard:Switch_Panel_SPST", "power switch"),
        "button": _template("SW_Push", "SW", two, "push button", "Button_Switch_THT:SW_PUSH_6mm", "momentary"),
        "schottky": _template("D_Schottky", "D", diode, "1N5819", "Diode_THT:D_DO-41_SOD81_P10.16mm_Horizontal", "40 V 1 A Schottky"),
        "signal_diode": _template("D_Schottky", "D", diode, "BAT85", "Diode_THT:D_DO-34_SOD68_P7.62mm_Horizontal", "30 V 200 mA Schottky"),
        "reed": _template("Reed_NO", "S", two, "MDSR-7-15-20", "chessboard:Reed_Upright_12.7mm", "normally open, 15-20 AT"),
        "resistor": _template("R", "R", two, "", "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal", "1/4 W"),
        "capacitor": _template("C", "C", two, "", "Capacitor_THT:C_Disc_D5.0mm_W2.5mm_P5.00mm", "ceramic"),
        "electrolytic": _template("C_Polarized", "C", [(1, "+", P), (2, "-", P)], "", "Capacitor_THT:CP_Radial_D10.0mm_P5.00mm", "electrolytic"),
        "buffer": _template(
            "74AHCT125", "U",
            [(1, "1OE", T.INPUT), (2, "1A", T.INPUT), (3, "1Y", T.OUTPUT), (4, "2OE", T.INPUT), (5, "2A", T.INPUT),
             (6, "2Y", T.OUTPUT), (7, "GND", T.PWRIN), (8, "3Y", T.OUTPUT), (9, "3A", T.INPUT), (10, "3OE", T.INPUT),
             (11, "4Y", T.OUTPUT), (12, "4A", T.INPUT), (13, "4OE", T.INPUT), (14, "VCC", T.PWRIN)],
            "SN74AHCT125N", "Package_DIP:DIP-14_W7.62mm", "quad buffer, TTL inputs, 5 V outputs",
        ),  # fmt: skip
        "ws2812": _template(
            "WS2812B", "LED", [(1, "VDD", T.PWRIN), (2, "DOUT", T.OUTPUT), (3, "VSS", T.PWRIN), (4, "DIN", T.INPUT)],
            "WS2812B", "LED_SMD:LED_WS2812B_PLCC4_5.0x5.0mm_P3.2mm", "RGB LED with driver, 100 nF on its pixel board",
        ),
        "max7219": _template(
            "MAX7219", "U",
            [(1, "DIN", T.INPUT), (2, "DIG0", T.OUTPUT), (3, "DIG4", T.OUTPUT), (4, "GND", T.PWRIN), (5, "DIG6", T.OUTPUT),
             (6, "DIG2", T.OUTPUT), (7, "DIG3", T.OUTPUT), (8, "DIG7", T.OUTPUT), (9, "GND", T.PWRIN), (10, "DIG5", T.OUTPUT),
             (11, "DIG1", T.OUTPUT), (12, "LOAD", T.INPUT), (13, "CLK", T.INPUT), (14, "SEG_A", T.OUTPUT), (15, "SEG_F", T.OUTPUT),
             (16, "SEG_B", T.OUTPUT), (17, "SEG_G", T.OUTPUT), (18, "ISET", T.PASSIVE), (19, "V+", T.PWRIN), (20, "SEG_C", T.OUTPUT),
             (21, "SEG_E", T.OUTPUT), (22, "SEG_DP", T.OUTPUT), (23, "SEG_D", T.OUTPUT), (24, "DOUT", T.OUTPUT)],
            "MAX7219CNG+", "Package_DIP:DIP-24_W7.62mm", "8x8 LED driver, 24-pin narrow (300 mil) DIP",
        ),  # fmt: skip
        # The common 0.96" module, by its 4-pin header in the module's own order. It carries the
        # pull-ups of both I2C lines (4.7-10k to its VCC, here 3V3), so the board adds none; the
        # SSD1306 only listens on SCL (a slave that never stretches the clock).
        "oled": _template(
            "OLED_SSD1306_I2C", "DS",
            [(1, "GND", T.PWRIN), (2, "VCC", T.PWRIN), (3, "SCL", T.INPUT), (4, "SDA", T.BIDIR)],
            "SSD1306 128x64 OLED module, I2C 0x3C", "Connector_PinHeader_2.54mm:PinHeader_1x04_P2.54mm_Vertical",
            "optional clock display; SDA and SCL pull-ups to VCC on the module",
        ),  # fmt: skip
        "led": _template("LED", "LED", [(1, "K", P), (2, "A", P)], "WP7113ID", "LED_THT:LED_D5.0mm", "5 mm red, diffused"),
    }


def _power(name):
    net = Net(name)
    net.drive = POWER  # a supply enters this net through a passive part (PWR_FLAG)
    return net


def build(led_type):
    """The board with LED option led_type ("ws2812" or "max7219") as a new skidl.Circuit."""
    if led_type not in config.LED_TYPES:
        raise ValueError("led_type must be one of %s" % (config.LED_TYPES,))
    circuit = Circuit()
    circuit.no_files = True  # nothing written beside the script: build.py writes what is kept
    with circuit:
        _wire(led_type, _parts(), circuit.NC)
    return circuit


def _wire(led_type, parts, nc):
    gnd = _power("GND")
    vbus_in, fused, v5, vsys = Net("VBUS_IN"), _power("+5V_FUSED"), _power("+5V"), _power("VSYS")
    v3 = Net("3V3")

    # Power input (hardware/leds.md, "Power wiring"): USB-C 5 V only, a polyfuse against a short,
    # a TVS against spikes, the on/off switch, then the LED rail; the Pico through a Schottky.
    j1 = parts["usbc"](ref="J1", tag="J1")
    f1 = parts["polyfuse"](ref="F1", tag="F1")
    d1 = parts["tvs"](ref="D1", tag="D1")
    sw1 = parts["switch"](ref="SW1", tag="SW1")
    d2 = parts["schottky"](ref="D2", tag="D2")
    j1["VBUS"] += vbus_in
    j1["GND"] += gnd
    f1[1] += vbus_in
    f1[2] += fused
    d1["K"] += fused
    d1["A"] += gnd
    sw1[1] += fused
    sw1[2] += v5
    d2["A"] += v5
    d2["K"] += vsys

    # The Pico, pin by pin.
    u1 = parts["pico"](ref="U1", tag="U1")
    nets = {"GND": gnd, "3V3": v3, "VSYS": vsys}
    for pin, name in sorted(pico_nets(led_type).items()):
        if name not in nets:
            nets[name] = Net(name)
        u1[pin] += nets[name]
    for pin in PICO_PINS:
        if not u1[pin].is_connected():
            u1[pin] += nc
    # RUN and BOOTSEL buttons, reachable from outside the enclosure (hardware/build-notes.md).
    sw2 = parts["button"](ref="SW2", tag="SW2", value="RESET (RUN to GND)")
    sw3 = parts["button"](ref="SW3", tag="SW3", value="BOOTSEL (TP6 to GND)")
    sw2[1] += nets["RUN"]
    sw3[1] += nets["BOOTSEL"]
    sw2[2] += gnd
    sw3[2] += gnd

    # The optional clock display (hardware/oled.md): from the Pico's 3V3, never 5 V, so the
    # module's own pull-ups hold SDA and SCL at 3.3 V, what the RP2040's pins stand.
    ds1 = parts["oled"](ref="DS1", tag="DS1")
    ds1["GND"] += gnd
    ds1["VCC"] += v3
    ds1["SCL"] += nets["OLED_SCL"]
    ds1["SDA"] += nets["OLED_SDA"]

    # The switch matrix (hardware/schematic.md): pull-ups, then a diode and a reed per square,
    # anode on the file's column, cathode to the reed, reed to the rank's row.
    for f in range(8):
        r = parts["resistor"](ref="R%d" % (f + 1), tag="R%d" % (f + 1), value="10k")
        r[1] += v3
        r[2] += nets["COL" + FILES[f].upper()]
    for rank in range(1, 9):
        for f in range(8):
            sq = "%s%d" % (FILES[f], rank)
            d = parts["signal_diode"](ref="D_" + sq, tag="D_" + sq)
            s = parts["reed"](ref="S_" + sq, tag="S_" + sq)
            d["A"] += nets["COL" + FILES[f].upper()]
            d["K"] += s[1]
            s[1].net.name = "n_" + sq
            s[2] += nets["ROW%d" % rank]

    # The level shifter, powered from +5V, outputs always on (every OE low).
    u2 = parts["buffer"](ref="U2", tag="U2")
    c1 = parts["capacitor"](ref="C1", tag="C1", value="100n")
    u2["VCC"] += v5
    u2["GND"] += gnd
    c1[1] += v5
    c1[2] += gnd
    for oe in ("1OE", "2OE", "3OE", "4OE"):
        u2[oe] += gnd
    if led_type == "ws2812":
        _ws2812(parts, u2, nets, v5, gnd, nc)
    else:
        _max7219(parts, u2, nets, v5, gnd, nc)


def _ws2812(parts, u2, nets, v5, gnd, nc):
    u2["1A"] += nets["LED_DATA"]
    for unused in ("2A", "3A", "4A"):
        u2[unused] += gnd  # an input left open floats and can oscillate
    for y in ("2Y", "3Y", "4Y"):
        u2[y] += nc
    r = parts["resistor"](ref="R9", tag="R9", value="330")
    c = parts["electrolytic"](ref="C2", tag="C2", value="1000u 10V")
    c["+"] += v5
    c["-"] += gnd
    r[1] += u2["1Y"]
    r[1].net.name = "LED_DATA_5V"
    data = Net("DIN_1")
    r[2] += data
    chain = config.chain_squares("serpentine")
    for n in range(64):
        sq = chain[n]
        name = "%s%d" % (FILES[sq % 8], sq // 8 + 1)
        led = parts["ws2812"](ref="LED_" + name, tag="LED_" + name)
        led["VDD"] += v5
        led["VSS"] += gnd
        led["DIN"] += data
        if n < 63:
            data = Net("DIN_%d" % (n + 2))
            led["DOUT"] += data
        else:
            led["DOUT"] += nc


def _max7219(parts, u2, nets, v5, gnd, nc):
    u3 = parts["max7219"](ref="U3", tag="U3")
    u2["1A"] += gnd  # the WS2812B's channel, unused here: grounded so it does not float
    u2["1Y"] += nc
    u2["2A"] += nets["MAX_DIN"]
    u2["3A"] += nets["MAX_CLK"]
    u2["4A"] += nets["MAX_LOAD"]
    u3["DIN"] += u2["2Y"]
    u3["CLK"] += u2["3Y"]
    u3["LOAD"] += u2["4Y"]
    u3[4, 9] += gnd
    u3["V+"] += v5
    rset = parts["resistor"](ref="R12", tag="R12", value="28.0k 1%")
    rset[1] += v5
    rset[2] += u3["ISET"]
    c10 = parts["electrolytic"](ref="C3", tag="C3", value="10u 10V")
    c11 = parts["capacitor"](ref="C4", tag="C4", value="100n")
    for c in (c10, c11):
        c[1] += v5
        c[2] += gnd
    # DOUT (5 V) back to GP12 through a divider: 5 V x 15 / (10 + 15) = 3.0 V.
    top = parts["resistor"](ref="R10", tag="R10", value="10k")
    bottom = parts["resistor"](ref="R11", tag="R11", value="15k")
    top[1] += u3["DOUT"]
    top[2] += nets["MAX_DOUT"]
    bottom[1] += nets["MAX_DOUT"]
    bottom[2] += gnd
    for rank in range(1, 9):
        for f in range(8):
            sq = "%s%d" % (FILES[f], rank)
            led = parts["led"](ref="LED_" + sq, tag="LED_" + sq)
            led["A"] += u3[MAX_SEGMENT_PINS[f]]
            led["K"] += u3[MAX_DIGIT_PINS[rank - 1]]
