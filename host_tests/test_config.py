# Tests of firmware/config.py: the defaults, every kind of bad board.json, and the safe start.
import json
import os
import shutil
import subprocess
import sys

import pytest

import config
from config import SettingsError

FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "firmware")


def test_defaults_are_valid():
    s = config.Settings()
    s.check()
    assert s.column_base == s.column_pins[0] == 2
    assert s.mode == "strict"
    assert s.led_type == "ws2812"
    assert s.scan_period_ms == 4 and s.debounce_ms == 8 and s.settle_us == 10
    assert s.commit_delay_ms > config.SLIDE_WINDOW_MS == 150
    assert config.SIO_GPIO_IN == 0xD0000004


def test_defaults_keep_64_leds_within_a_2a_supply():
    s = config.Settings()
    # Cap plus about 1 mA quiescent per LED plus the Pico must fit 2 A.
    assert s.current_cap_ma + 64 + 100 <= 2000
    assert 0 < s.brightness <= 64  # "modest"


def test_empty_object_gives_the_defaults():
    assert config.from_json("{}").as_dict() == config.Settings().as_dict()


def test_as_dict_round_trips_through_json():
    s = config.from_json('{"led_type": "max7219", "brightness": 80, "spi_miso": null}')
    again = config.from_json(json.dumps(s.as_dict()))
    assert again.as_dict() == s.as_dict()
    assert again.spi_miso is None


def test_overrides_apply_and_leave_the_rest():
    s = config.from_json('{"mode": "casual", "debounce_ms": 20, "save_path": null}')
    assert s.mode == "casual" and s.debounce_ms == 20 and s.save_path is None
    assert s.row_pins == config.Settings().row_pins


def test_column_base_shorthand_moves_all_eight_columns():
    text = (
        '{"column_base": 6, "spi_id": 0, "spi_sck": 2, "spi_mosi": 3, '
        '"spi_miso": 4, "spi_cs": 5}'
    )
    s = config.from_json(text)
    assert s.column_pins == (6, 7, 8, 9, 10, 11, 12, 13)
    assert s.column_base == 6


def test_status_led_accepts_pico_w_name_and_none():
    assert config.from_json('{"status_led_pin": "LED"}').status_led_pin == "LED"
    assert config.from_json('{"status_led_pin": null}').status_led_pin is None


@pytest.mark.parametrize(
    "machine,led",
    [
        ("Raspberry Pi Pico W with RP2040", "LED"),
        ("Raspberry Pi Pico 2 W with RP2350", "LED"),
        ("Raspberry Pi Pico with RP2040", 25),
        ("Raspberry Pi Pico 2 with RP2350", 25),
        ("linux [GCC 12.2.0] version", 25),  # the unix port
    ],
)
def test_the_board_picks_its_own_status_led(monkeypatch, tmp_path, machine, led):
    # sys.implementation._machine says which board MicroPython runs on: a Pico W's LED hangs off
    # the radio chip, and GP25 is that chip's chip select, so its default is "LED" and the README's
    # `ble both` (or "ble" alone in board.json) is accepted on a fresh Pico W.
    monkeypatch.setattr(sys.implementation, "_machine", machine, raising=False)
    assert config.Settings().status_led_pin == led
    settings, problem = config.load_or_default(str(tmp_path / "board.json"))  # no board.json
    assert problem is None and settings.status_led_pin == led
    (tmp_path / "board.json").write_text('{"ble": "both"}')
    settings, problem = config.load_or_default(str(tmp_path / "board.json"))
    if led == "LED":
        assert problem is None and settings.ble == "both" and settings.status_led_pin == "LED"
    else:
        assert "chip select" in problem and settings.ble == "off"
    # An explicit setting still wins (and GP25 with ble on is still refused: it is the radio).
    assert config.from_json('{"status_led_pin": 25}').status_led_pin == 25
    assert config.from_json('{"status_led_pin": null}').status_led_pin is None
    with pytest.raises(SettingsError):
        config.from_json('{"status_led_pin": 25, "ble": "cpp"}')


# (board.json text, the key the error must name)
BAD = [
    ('{"brightnes": 40}', "brightnes"),  # unknown key (typo)
    ('{"colour": "red"}', "colour"),  # unknown key
    ('{"brightness": 256}', "brightness"),  # out of range
    ('{"brightness": -1}', "brightness"),
    ('{"brightness": "50"}', "brightness"),  # wrong type
    ('{"brightness": 50.0}', "brightness"),  # a float is not a whole number
    ('{"brightness": true}', "brightness"),  # bool is not a number here
    ('{"scan_period_ms": 0}', "scan_period_ms"),
    ('{"debounce_ms": null}', "debounce_ms"),
    ('{"led_type": "apa102"}', "led_type"),
    ('{"mode": "blitz"}', "mode"),
    ('{"mode": 1}', "mode"),
    ('{"promotion_piece": "k"}', "promotion_piece"),
    ('{"led_chain": "zigzag"}', "led_chain"),
    ('{"row_pins": [14, 15, 16]}', "row_pins"),  # not 8
    ('{"row_pins": "14-21"}', "row_pins"),
    ('{"row_pins": [14, 15, 16, 17, 18, 19, 20, 23]}', "row_pins[7]"),  # GP23 is not on the header
    ('{"row_pins": [14, 15, 16, 17, 18, 19, 20, 30]}', "row_pins[7]"),
    ('{"row_pins": [14, 15, 16, 17, 18, 19, 20, 20]}', "row_pins[7]"),  # duplicate within rows
    ('{"row_pins": [2, 15, 16, 17, 18, 19, 20, 21]}', "column_pins[0]"),  # row on a column pin
    ('{"led_pin": 9}', "led_pin"),  # duplicate with a column
    ('{"spi_cs": 14}', "spi_cs"),  # duplicate with a row (found on the later key)
    ('{"column_pins": [2, 3, 4, 5, 6, 7, 8, 10]}', "column_pins"),  # not consecutive
    ('{"column_pins": [9, 8, 7, 6, 5, 4, 3, 2]}', "column_pins"),  # wrong order
    ('{"column_base": 16}', "column_base"),  # would reach GP23
    ('{"column_base": 4, "column_pins": [2, 3, 4, 5, 6, 7, 8, 9]}', "column_base"),
    ('{"spi_id": 2}', "spi_id"),
    ('{"spi_id": 0}', "spi_sck"),  # SPI1 pins do not belong to SPI0
    ('{"spi_sck": 14}', "spi_sck"),  # an SCK pin of SPI1, but taken by a row
    ('{"spi_sck": 11}', "spi_sck"),  # TX pin, not SCK
    ('{"spi_mosi": 12}', "spi_mosi"),
    ('{"spi_miso": 13}', "spi_miso"),
    ('{"spi_baudrate": 20000000}', "spi_baudrate"),
    ('{"status_led_pin": "LED2"}', "status_led_pin"),
    ('{"status_led_pin": 2}', "status_led_pin"),  # taken by a column
    ('{"commit_delay_ms": 100}', "commit_delay_ms"),  # shorter than the slide window
    ('{"commit_delay_ms": 490}', "commit_delay_ms"),  # over the 500 ms of docs/spec.md section 3 with debounce
    ('{"settle_us": 1000, "scan_period_ms": 2}', "settle_us"),
    ('{"save_path": ""}', "save_path"),
    ('{"save_path": 5}', "save_path"),
    ("[1, 2]", "(top level)"),  # not an object
    ('"board"', "(top level)"),
    ("{brightness: 40}", "(file)"),  # not JSON
    ('{"brightness": 40', "(file)"),  # truncated
    ("", "(file)"),
]


@pytest.mark.parametrize("text, key", BAD)
def test_bad_settings_name_the_key(text, key):
    with pytest.raises(SettingsError) as caught:
        config.from_json(text)
    assert caught.value.key == key
    assert str(caught.value).startswith(key + ": ")
    assert isinstance(caught.value, ValueError)


def test_unknown_key_suggests_the_close_one():
    with pytest.raises(SettingsError, match='did you mean "brightness"'):
        config.from_json('{"brightnes": 40}')


def test_bad_spi_pin_message_lists_the_right_pins():
    with pytest.raises(SettingsError) as caught:
        config.from_json('{"spi_sck": 9}')
    assert str(caught.value) == "spi_sck: GPIO 9 cannot be SPI1 SCK; that is GPIO 10 or 14 or 26"


def test_a_failed_overlay_leaves_the_base_untouched():
    base = config.Settings()
    with pytest.raises(SettingsError):
        base.updated({"brightness": 10, "mode": "blitz"})
    assert base.brightness == 48 and base.mode == "strict"


def test_load_reads_a_file_or_text(tmp_path):
    path = tmp_path / "board.json"
    path.write_text('{"led_type": "max7219"}')
    assert config.load(str(path)).led_type == "max7219"
    assert config.load('  {"led_type": "max7219"}').led_type == "max7219"


def test_load_or_default_missing_file_is_silent(tmp_path):
    settings, problem = config.load_or_default(str(tmp_path / "board.json"))
    assert problem is None
    assert settings.as_dict() == config.Settings().as_dict()


def test_load_or_default_good_file(tmp_path):
    path = tmp_path / "board.json"
    path.write_text('{"brightness": 100}\n')
    settings, problem = config.load_or_default(str(path))
    assert problem is None and settings.brightness == 100


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"brightness": 100,', ["not valid JSON"]),  # truncated write
        (b"\xff\xfe\x00garbage", None),  # not even text
        ('{"brightness": 999}', ["brightness", "0 to 255"]),
        ('{"rows": [1]}', ["rows", "unknown setting"]),
    ],
)
def test_load_or_default_corrupt_file_gives_defaults_and_a_message(tmp_path, content, words):
    path = tmp_path / "board.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    settings, problem = config.load_or_default(str(path))
    assert settings.as_dict() == config.Settings().as_dict()
    assert problem.startswith(str(path) + ": ")
    assert "default settings" in problem
    for word in words or []:
        assert word in problem


def test_load_or_default_unreadable_path_gives_defaults(tmp_path):
    settings, problem = config.load_or_default(str(tmp_path))  # a directory, not a file
    assert settings.as_dict() == config.Settings().as_dict()
    assert problem and "default settings" in problem


def test_chain_orders_are_permutations_of_the_squares():
    rows = config.chain_squares("rows")
    snake = config.chain_squares("serpentine")
    assert list(rows) == list(range(64))
    assert sorted(snake) == list(range(64))
    assert list(snake[:9]) == [0, 1, 2, 3, 4, 5, 6, 7, 15]  # a1..h1, then h2
    assert snake[63] == 56  # the chain ends at a8
    # Neighbours in the serpentine chain are neighbouring squares: no long wires.
    for n in range(63):
        a, b = snake[n], snake[n + 1]
        assert abs(a % 8 - b % 8) + abs(a // 8 - b // 8) == 1


def test_chain_order_must_be_known():
    with pytest.raises(ValueError):
        config.chain_squares("zigzag")


def test_every_field_default_passes_its_own_check():
    for key, kind, default, low, high in config.FIELDS:
        value = list(default) if isinstance(default, tuple) else default
        config.from_json(json.dumps({key: value}))


def _micropython():
    found = shutil.which("micropython")
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    return beside if os.path.exists(beside) else None


MICROPYTHON_CHECK = r"""
import config, gc
s = config.Settings()
s.check()
assert s.column_base == 2
try:
    config.from_json('{"brightness": 300}')
    raise SystemExit("no error")
except config.SettingsError as e:
    assert e.key == "brightness", e.key
try:
    config.from_json('{"brightness": true}')
    raise SystemExit("no error for a bool")
except config.SettingsError as e:
    assert e.key == "brightness"
s2, problem = config.load_or_default("no-such-board.json")
assert problem is None and s2.brightness == s.brightness
t = config.from_json('{"led_type": "max7219", "column_base": 6, "spi_id": 0, '
                     '"spi_sck": 2, "spi_mosi": 3, "spi_miso": 4, "spi_cs": 5}')
assert t.column_pins == (6, 7, 8, 9, 10, 11, 12, 13)
assert config.SIO_GPIO_IN == 0xD0000004
print("ok")
"""


@pytest.mark.skipif(_micropython() is None, reason="no micropython binary")
def test_runs_on_micropython():
    out = subprocess.run(
        [_micropython(), "-X", "heapsize=200k", "-c", MICROPYTHON_CHECK],
        cwd=FIRMWARE,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "ok"
