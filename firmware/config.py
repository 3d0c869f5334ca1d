# Board settings: defaults for a Raspberry Pi Pico build, overridable by a JSON file on the Pico.
#
# The defaults describe the wiring in hardware/pinout.md (host_tests/test_pinout.py keeps the two
# in step). A builder who wired differently, or wants other timings, puts only the keys that differ
# in a JSON object in board.json on the Pico, e.g. {"led_type": "max7219", "brightness": 80}.
# Every key is checked: an unknown key, a wrong type, a value out of range, a GPIO used twice or
# columns that are not consecutive raise SettingsError naming the key. load_or_default() is for
# wiring.py: a broken board.json must never stop the board, which then starts on the defaults and
# prints the reason on the USB console.
#
# Squares: row_pins[r] drives rank r+1 and column_pins[f] reads file "abcdefgh"[f], so the switch
# at (r, f) is square 8*r + f (a1 = 0 ... h8 = 63).
import json
import sys
from micropython import const

# RP2040 SIO GPIO_IN: one 32-bit read returns the input level of GPIO 0-29, so the 8 columns on
# consecutive GPIOs are read in one access: (machine.mem32[SIO_GPIO_IN] >> column_base) & 0xFF.
# Keep the address here and nowhere else. On the RP2350 (Pico 2) GPIO_IN is still SIO_BASE + 0x004
# = 0xd0000004, but the output and output-enable registers moved (GPIO_OUT_SET 0x014 -> 0x018,
# GPIO_OE 0x020 -> 0x030) and bits 30-31 are real GPIOs on the RP2350B: check the datasheet before
# adding any other SIO address. The address is 2**30 or more, so it is a heap int on the Pico; the
# const() makes it one constant object in the bytecode, and the value read (GPIO 0-29, below
# 2**30) stays a small int, so a scan allocates nothing.
SIO_GPIO_IN = const(0xD0000004)

# PADS_BANK0: the pad control register of GPIO n is at PADS_BANK0 + 4 + 4*n (offset 0 is
# VOLTAGE_SELECT), the same layout on the RP2040 and the RP2350 but at a different base. Bits 5:4
# are DRIVE: 0 = 2 mA, 1 = 4 mA (the reset value), 2 = 8 mA, 3 = 12 mA. The RP2040 guarantees an
# output-low voltage of at most 0.5 V only up to the current of the selected drive, and a row pin
# sinks every closed switch of its rank (about 3 mA for 8 pieces with 10 kOhm pull-ups), so
# hardware/pico.py sets the rows to 12 mA at start-up and reads the value back
# (hardware/schematic.md, "Pull-ups and logic levels"). The RP2350's base is used only when
# MicroPython names that chip: on an RP2040 that address is another peripheral.
PADS_BANK0_RP2040 = const(0x4001C000)
PADS_BANK0_RP2350 = const(0x40038000)
PAD_DRIVE_SHIFT = const(4)
PAD_DRIVE_MASK = const(0x30)
PAD_DRIVE_12MA = const(3)
PAD_DRIVE_MA = (2, 4, 8, 12)  # mA of each DRIVE value

DEFAULT_PATH = "board.json"

# GPIOs on the Pico's 40-pin header. 23 (regulator mode), 24 (VBUS sense), 25 (on-board LED) and
# 29 (VSYS/3 for the ADC) are wired on the board itself and never reach the header.
HEADER_GPIOS = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 26, 27, 28,
)  # fmt: skip
ONBOARD_LED_GPIO = const(25)


def board_led(machine_name=None):
    """The status LED of the board MicroPython runs on: "LED" on a Pico W or Pico 2 W, whose LED
    hangs off the radio chip (GP25 is that chip's SPI chip select: a heartbeat on it would disturb
    Wi-Fi and Bluetooth), else GP25. machine_name: sys.implementation._machine, e.g. "Raspberry Pi
    Pico W with RP2040" (CPython and the unix port name no Pico: GP25)."""
    if machine_name is None:
        machine_name = getattr(sys.implementation, "_machine", "")
    if "Pico W" in machine_name or "Pico 2 W" in machine_name:
        return "LED"
    return ONBOARD_LED_GPIO

LED_TYPES = ("ws2812", "max7219")
LED_CHAINS = ("serpentine", "rows")
MODES = ("strict", "casual")
PROMOTION_PIECES = ("q", "r", "b", "n")
OPPONENTS = ("none", "white", "black")
# Bluetooth LE on a Pico W (link/ble.py, docs/spec.md section 9): the services the board offers to phone apps;
# "off" (and any Pico without the radio) leaves the radio off.
BLE_SERVICES = ("off", "cpp", "chesslink", "both")
ONLINE_SEEKS = ("none", "10+0", "10+5", "15+10", "30+0", "30+20")
ILLEGAL_RULES = ("fide", "lose")
FILES = "abcdefgh"

# docs/spec.md section 3: a board that matches a legal move commits it within 500 ms of its last transition.
COMMIT_LIMIT_MS = const(500)
# docs/spec.md section 3: a placement undone within 150 ms never becomes a move (a slid piece crossing a
# square, a swap's overlap). The referee guarantees it by committing only after commit_delay_ms of
# stillness, so commit_delay_ms must be longer than this.
SLIDE_WINDOW_MS = const(150)

# Kinds of value.
_INT = const(0)  # whole number in [low, high]
_PIN = const(1)  # one header GPIO
_PINS = const(2)  # list of 8 header GPIOs
_CHOICE = const(3)  # one of the strings in `low`
_PATH = const(4)  # file name on the Pico, or null for none
_LED_PIN = const(5)  # the status LED: 25, a header GPIO, "LED" (Pico W) or null
_OPT_PIN = const(6)  # one header GPIO, or null when not wired
_CLOCK = const(7)  # a time control in core/clock.py's notation, or "none"
_TEXT = const(8)  # a line of text of low to high characters (a PGN tag's value), or null
_ROUND_ID = const(9)  # a Lichess broadcast round's id: 8 letters and digits, or null

# (key, kind, default, low or choices, high). The order is the order of as_dict() and of the checks,
# so the first error reported is the same on CPython and MicroPython.
FIELDS = (
    # Pins: see hardware/pinout.md for why each one sits where it does.
    ("row_pins", _PINS, (14, 15, 16, 17, 18, 19, 20, 21), None, None),
    ("column_pins", _PINS, (2, 3, 4, 5, 6, 7, 8, 9), None, None),
    ("led_pin", _PIN, 22, None, None),
    ("spi_id", _INT, 1, 0, 1),
    ("spi_sck", _PIN, 10, None, None),
    ("spi_mosi", _PIN, 11, None, None),
    ("spi_miso", _OPT_PIN, 12, None, None),  # null when MAX7219 DOUT is not wired back
    ("spi_cs", _PIN, 13, None, None),
    # The MAX7219 takes 10 MHz; 1 MHz leaves margin for the 74AHCT125, long wires and the
    # resistor divider on DOUT, and 8 register writes still take well under 1 ms.
    ("spi_baudrate", _INT, 1000000, 10000, 10000000),
    # (On a Pico W or Pico 2 W the default is "LED": Settings() asks board_led().)
    ("status_led_pin", _LED_PIN, ONBOARD_LED_GPIO, None, None),
    # The optional clock display: an SSD1306 128x64 OLED on I2C (hardware/oled.md). null: none
    # fitted. Its I2C block's SDA on an even GPIO, SCL on the odd one after it, e.g. 26 and 27 on I2C1.
    ("oled_i2c_id", _INT, 1, 0, 1),
    ("oled_sda", _OPT_PIN, None, None, None),
    ("oled_scl", _OPT_PIN, None, None, None),
    # LEDs: see hardware/leds.md.
    ("led_type", _CHOICE, "ws2812", LED_TYPES, None),
    ("led_chain", _CHOICE, "serpentine", LED_CHAINS, None),
    # 0-255 scale for every colour channel; the MAX7219 uses brightness >> 4 as its 16-step
    # intensity. 48 is readable under a thin board top and keeps 64 white LEDs near 0.7 A.
    ("brightness", _INT, 48, 0, 255),
    # Budget for the WS2812B chain, its quiescent 1 mA per LED included: 1500 mA leaves 500 mA of a
    # 5 V / 2 A supply for the Pico and the level shifter. The driver scales a frame down to it.
    ("current_cap_ma", _INT, 1500, 100, 10000),
    # Current of one colour channel at value 255: 20 mA for a WS2812B-5050 (60 mA full white).
    ("led_channel_ma", _INT, 20, 1, 60),
    # Game.
    ("mode", _CHOICE, "strict", MODES, None),
    ("promotion_piece", _CHOICE, "q", PROMOTION_PIECES, None),
    # The board's own engine (engine/opponent.py): the side it plays ("none": two players) and
    # its level, 1 (one ply) to 8 (a minute a move). The gesture at the start position sets both.
    ("opponent", _CHOICE, "none", OPPONENTS, None),
    ("level", _INT, 3, 1, 8),
    # Online (Pico W, docs/lichess-wifi.md): the time control the board seeks on Lichess at power-up
    # when no game is in progress ("none": it only resumes a game or takes a challenge). The Board
    # API pairs rapid and slower seeks only; these are Lichess's own rapid and classical pools.
    ("online_seek", _CHOICE, "none", ONLINE_SEEKS, None),
    # The clock (docs/clock.md): the time control of every new game ("none": no clock), e.g. "5+3",
    # "15+10", "90/40+30,30+30", "5d3" (US delay), "5b3" (Bronstein).
    ("clock", _CLOCK, "none", None, None),
    # A completed illegal move (FIDE 7.5): "fide" gives the opponent extra time and the second
    # loses; "lose": the first loses in rapid and blitz (the older rule of the seeds).
    ("illegal_moves", _CHOICE, "fide", ILLEGAL_RULES, None),
    # How long an illegal move stands, shown as an error, before it counts as completed (as if
    # the player had pressed the clock); the opponent lifting a piece completes it sooner.
    ("illegal_complete_ms", _INT, 2000, 500, 60000),
    # Timings. A lift is lit once the scan after it has seen it and debounce_ms more have confirmed
    # it, then the step's work and the 1.9 ms the WS2812B chain takes to receive its frame: at 4 ms
    # and 8 ms that is at most 4 + 8 + the step + 1.9 ms, inside docs/spec.md section 3's 20 ms even
    # for a slow step (at 5 and 10 ms the step had barely a few ms left, and the emulated Pico's worst
    # lift missed the 20 ms: docs/figures.md).
    ("scan_period_ms", _INT, 4, 1, 50),
    # Reed contacts bounce 0.5-2 ms and a hand lowering a magnet chatters longer: a square is
    # reported after it held one level for debounce_ms (two scans at the defaults).
    ("debounce_ms", _INT, 8, 0, 200),
    # After a row is released the column it held low rises through its pull-up: 10 kOhm against
    # at most 200 pF of wire and diodes is an RC of 2 us, above the 2.0 V input-high level after
    # 1.9 us, so 10 us is 5 RC. Internal pull-ups alone (50-80 kOhm) need 40. See hardware/schematic.md.
    ("settle_us", _INT, 10, 0, 1000),
    # Quiet time after the last transition before a matching move is committed. It must outlast
    # SLIDE_WINDOW_MS, and debounce + commit + one scan must stay within the 500 ms of docs/spec.md section 3.
    ("commit_delay_ms", _INT, 200, 0, COMMIT_LIMIT_MS),
    # Where the game in progress is saved so a power cut does not lose it.
    ("save_path", _PATH, "game.sav", None, None),
    # Bluetooth LE (Pico W): "cpp" for the CPP apps, "chesslink" for the apps of Millennium
    # boards, "both", or "off". See docs/bluetooth.md.
    ("ble", _CHOICE, "off", BLE_SERVICES, None),
    # A Lichess broadcast (Pico W, docs/broadcast.md): the round the board pushes its game to (its
    # 8-character id, null: none), and the game's PGN tags, by which Lichess tells the round's
    # boards apart. Names null: "White, board N" and "Black, board N" (Lichess drops a name of one
    # character, "?" among them, and two boards with the same names would be one game to it).
    ("broadcast", _ROUND_ID, None, None, None),
    ("broadcast_white", _TEXT, None, 2, 64),
    ("broadcast_black", _TEXT, None, 2, 64),
    ("broadcast_board", _INT, 1, 1, 999),
    ("broadcast_round", _TEXT, "1", 1, 32),
    ("broadcast_event", _TEXT, "Club game", 1, 64),
)


class SettingsError(ValueError):
    """A setting that cannot be used; .key names it (e.g. "row_pins[3]" or "brightness")."""

    def __init__(self, key, problem):
        super().__init__(key + ": " + problem)
        self.key = key


def _show(value):
    # JSON spelling in messages, since that is what the builder typed.
    try:
        return json.dumps(value)
    except Exception:  # noqa: BLE001 - a value json cannot spell is still worth showing
        return repr(value)


def _whole(key, value):
    # bool is its own type on MicroPython, an int on CPython; `type(v) is int` rejects it on both.
    if type(value) is not int:
        raise SettingsError(key, "must be a whole number, got " + _show(value))
    return value


def _gpio(key, value):
    _whole(key, value)
    if value not in HEADER_GPIOS:
        raise SettingsError(
            key, "GPIO %d is not on the Pico's header (usable: 0-22, 26-28)" % value
        )
    return value


def _pins(key, value):
    if type(value) not in (list, tuple) or len(value) != 8:
        raise SettingsError(key, "must be a list of 8 GPIO numbers, got " + _show(value))
    for i in range(8):
        _gpio("%s[%d]" % (key, i), value[i])
    return tuple(value)


def _choice(key, value, choices):
    if type(value) is not str or value not in choices:
        raise SettingsError(
            key, "must be one of " + ", ".join(_show(c) for c in choices) + "; got " + _show(value)
        )
    return value


def _value(key, kind, value, low, high):
    # Check one value by its kind and return it in the form Settings keeps (lists become tuples).
    if kind == _INT:
        _whole(key, value)
        if value < low or value > high:
            raise SettingsError(key, "must be %d to %d, got %d" % (low, high, value))
        return value
    if kind == _PIN:
        return _gpio(key, value)
    if kind == _OPT_PIN:
        return None if value is None else _gpio(key, value)
    if kind == _PINS:
        return _pins(key, value)
    if kind == _CHOICE:
        return _choice(key, value, low)
    if kind == _CLOCK:
        if type(value) is not str:
            raise SettingsError(key, 'must be a time control like "5+3" or "none", got ' + _show(value))
        if value.strip().lower() not in ("", "none", "off", "-"):
            from core.clock import parse_control

            try:
                parse_control(value)
            except ValueError as e:
                raise SettingsError(key, str(e))
        return value
    if kind == _TEXT:
        return text_value(key, value, low, high)
    if kind == _ROUND_ID:
        return round_id(key, value)
    if kind == _PATH:
        if value is None:
            return None
        if type(value) is not str or not value or len(value) > 64 or "\n" in value:
            raise SettingsError(key, "must be a file name (1-64 characters) or null")
        return value
    # _LED_PIN
    if value is None or value == "LED":
        return value
    if value == ONBOARD_LED_GPIO and type(value) is int:
        return value
    return _gpio(key, value)


def text_value(key, value, low, high):
    """A tag's text: null, or low to high printable characters on one line (the USB command
    online broadcast-white and its kin check theirs here too)."""
    if value is None:
        return None
    if type(value) is not str or not low <= len(value) <= high:
        raise SettingsError(key, "must be text of %d to %d characters or null, got %s" % (low, high, _show(value)[:40]))
    for c in value:
        if ord(c) < 32 or c == "\x7f":
            raise SettingsError(key, "must be one line of printable text")
    return value


def round_id(key, value):
    """A Lichess broadcast round's id (8 letters and digits, as in its URL), or null."""
    if value is None:
        return None
    if type(value) is not str or len(value) != 8 or not all(c.isalpha() or c.isdigit() for c in value):
        raise SettingsError(key, "must be a broadcast round's id, the 8 letters and digits at the end of "
                                 "its URL (lichess.org/broadcast/.../ROUNDID), or null; got %s" % _show(value)[:40])
    return value


def _did_you_mean(key):
    # The closest known key by shared leading characters, for typos like "brightnes".
    best = ""
    best_len = 2  # need 3 shared characters to suggest anything
    for field in FIELDS:
        name = field[0]
        n = 0
        while n < len(name) and n < len(key) and name[n] == key[n]:
            n += 1
        if n > best_len:
            best, best_len = name, n
    return best


class Settings:
    """All settings as plain attributes, named like the JSON keys, plus column_base."""

    def __init__(self):
        for key, kind, default, low, high in FIELDS:
            setattr(self, key, default)
        self.status_led_pin = board_led()  # the board's own LED: a Pico W's is not GP25
        self.column_base = self.column_pins[0]

    def copy(self):
        other = Settings()
        for field in FIELDS:
            setattr(other, field[0], getattr(self, field[0]))
        other.column_base = self.column_base
        return other

    def as_dict(self):
        out = {}
        for field in FIELDS:
            value = getattr(self, field[0])
            out[field[0]] = list(value) if type(value) is tuple else value
        return out

    def updated(self, overrides):
        """A new Settings: this one with the JSON object `overrides` laid over it, all checked."""
        if type(overrides) is not dict:
            raise SettingsError(
                "(top level)", "must be a JSON object {...}, got " + _show(overrides)
            )
        # Unknown keys first, in sorted order: dict order differs between CPython and MicroPython.
        for key in sorted(overrides):
            if type(key) is not str:
                raise SettingsError(str(key), "unknown setting")
            if key == "column_base":
                continue
            known = False
            for field in FIELDS:
                if field[0] == key:
                    known = True
                    break
            if not known:
                hint = _did_you_mean(key)
                raise SettingsError(
                    key,
                    "unknown setting" + (" (did you mean %s?)" % _show(hint) if hint else ""),
                )
        new = self.copy()
        for key, kind, default, low, high in FIELDS:
            if key in overrides:
                setattr(new, key, _value(key, kind, overrides[key], low, high))
        if "column_base" in overrides:
            # Shorthand for 8 consecutive column GPIOs; must agree with column_pins if both given.
            base = _whole("column_base", overrides["column_base"])
            if base < 0 or base > 15:
                # GPIO 23 and up are not all on the header, so base + 7 must stay at or below 22.
                raise SettingsError(
                    "column_base", "must be 0 to 15 (columns on GPIO base to base+7)"
                )
            pins = tuple(range(base, base + 8))
            if "column_pins" in overrides and new.column_pins != pins:
                raise SettingsError("column_base", "disagrees with column_pins; give only one")
            new.column_pins = _pins("column_base", pins)
        new.column_base = new.column_pins[0]
        new.check()
        return new

    def check(self):
        """Checks across keys; raises SettingsError naming the key at fault."""
        cols = self.column_pins
        for i in range(1, 8):
            if cols[i] != cols[0] + i:
                raise SettingsError(
                    "column_pins",
                    "must be 8 consecutive GPIOs in file order a-h, read in one GPIO_IN access; "
                    "column_pins[%d] is %d, expected %d" % (i, cols[i], cols[0] + i),
                )
        self._check_spi()
        self._check_i2c()
        self._check_unique()
        if self.commit_delay_ms <= SLIDE_WINDOW_MS:
            raise SettingsError(
                "commit_delay_ms",
                "must be more than %d ms, else a slid piece commits a square it crosses (docs/spec.md section 3)"
                % SLIDE_WINDOW_MS,
            )
        total = self.debounce_ms + self.commit_delay_ms + self.scan_period_ms
        if total > COMMIT_LIMIT_MS:
            raise SettingsError(
                "commit_delay_ms",
                "debounce_ms + commit_delay_ms + scan_period_ms = %d ms, over the %d ms in which "
                "docs/spec.md section 3 promises a commit" % (total, COMMIT_LIMIT_MS),
            )
        if 8 * self.settle_us > 500 * self.scan_period_ms:
            raise SettingsError(
                "settle_us",
                "8 rows x %d us is over half the %d ms scan period"
                % (self.settle_us, self.scan_period_ms),
            )
        if self.ble != "off" and self.status_led_pin == ONBOARD_LED_GPIO:
            # Bluetooth means a Pico W, where GP25 is the radio chip's SPI chip select: driving it
            # as the status LED would cut the radio off.
            raise SettingsError(
                "status_led_pin",
                'GP25 is the radio\'s chip select on a Pico W: use "LED" (or null) with ble "%s"' % self.ble,
            )

    def _check_spi(self):
        # RP2040 function table: GPIO n belongs to SPI block (n >> 3) & 1, and n % 4 gives its role:
        # 0 RX (MISO), 1 CSn, 2 SCK, 3 TX (MOSI). CS is driven as a plain GPIO, so any pin will do.
        for key, role, name in (
            ("spi_sck", 2, "SCK"),
            ("spi_mosi", 3, "TX (MOSI)"),
            ("spi_miso", 0, "RX (MISO)"),
        ):
            pin = getattr(self, key)
            if pin is None:
                continue
            if (pin >> 3) & 1 != self.spi_id or pin % 4 != role:
                options = [p for p in HEADER_GPIOS if (p >> 3) & 1 == self.spi_id and p % 4 == role]
                raise SettingsError(
                    key,
                    "GPIO %d cannot be SPI%d %s; that is GPIO %s"
                    % (pin, self.spi_id, name, " or ".join(str(p) for p in options)),
                )

    def _check_i2c(self):
        # RP2040 function table: GPIO n belongs to I2C block (n >> 1) & 1, SDA when n is even, SCL odd.
        if (self.oled_sda is None) != (self.oled_scl is None):
            raise SettingsError("oled_sda" if self.oled_sda is None else "oled_scl",
                                "give both oled_sda and oled_scl, or neither (no display)")
        for key, odd, name in (("oled_sda", 0, "SDA"), ("oled_scl", 1, "SCL")):
            pin = getattr(self, key)
            if pin is not None and ((pin >> 1) & 1 != self.oled_i2c_id or pin & 1 != odd):
                options = [p for p in HEADER_GPIOS if (p >> 1) & 1 == self.oled_i2c_id and p & 1 == odd]
                raise SettingsError(
                    key,
                    "GPIO %d cannot be I2C%d %s; that is GPIO %s"
                    % (pin, self.oled_i2c_id, name, ", ".join(str(p) for p in options)),
                )

    def _check_unique(self):
        used = {}  # GPIO -> the key that took it
        for key, pin in self.pin_uses():
            if type(pin) is not int:
                continue
            if pin in used:
                raise SettingsError(key, "GPIO %d is already used by %s" % (pin, used[pin]))
            used[pin] = key

    def pin_uses(self):
        """(key, GPIO) for every configured pin, e.g. ("row_pins[0]", 14); None when not wired."""
        out = []
        for i in range(8):
            out.append(("row_pins[%d]" % i, self.row_pins[i]))
        for i in range(8):
            out.append(("column_pins[%d]" % i, self.column_pins[i]))
        for key in ("led_pin", "spi_sck", "spi_mosi", "spi_miso", "spi_cs", "status_led_pin", "oled_sda", "oled_scl"):
            out.append((key, getattr(self, key)))
        return out


def from_json(text, base=None):
    """Settings from JSON text laid over `base` (default: the defaults). Raises SettingsError."""
    try:
        overrides = json.loads(text)
    except ValueError as e:
        raise SettingsError("(file)", "not valid JSON (%s)" % e)
    return (base or Settings()).updated(overrides)


def load(path_or_text):
    """Settings from a JSON file, or from JSON text if the argument starts with "{".

    Raises SettingsError for bad settings and OSError when the file cannot be read."""
    text = path_or_text
    if not text.lstrip().startswith("{"):
        with open(path_or_text) as f:
            text = f.read()
    return from_json(text)


def load_or_default(path=DEFAULT_PATH):
    """(settings, None) from `path`, or (defaults, message) if it is unreadable or invalid.

    A missing file is normal (the defaults match hardware/pinout.md) and gives no message."""
    try:
        return load(path), None
    except SettingsError as e:
        return Settings(), "%s: %s; starting with the default settings" % (path, e)
    except OSError as e:
        if e.args and e.args[0] == 2:  # ENOENT: no board.json
            return Settings(), None
        return Settings(), "%s: cannot read (%s); starting with the default settings" % (path, e)
    except Exception as e:  # noqa: BLE001 - bytes that are not UTF-8, a file too big for the heap:
        # whatever is in the file, the board must still start.
        return Settings(), "%s: unusable (%r); starting with the default settings" % (path, e)


def chain_squares(order):
    """bytes(64): the square of each WS2812B in chain order (first LED at a1).

    "serpentine": rank 1 a->h, rank 2 h->a, rank 3 a->h ... (short wires between ranks);
    "rows": every rank a->h, so LED n is square n (a long return wire from h to a)."""
    if order not in LED_CHAINS:
        raise ValueError("unknown LED chain order: %s" % order)
    out = bytearray(64)
    for n in range(64):
        rank, f = n >> 3, n & 7
        if order == "serpentine" and rank & 1:
            f = 7 - f
        out[n] = 8 * rank + f
    return bytes(out)
