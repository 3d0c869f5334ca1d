"""The README says what the code does: its LED table and its replay example are checked here."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("|--")]


def test_led_table_is_the_drivers_table():
    leds = read("firmware/hardware/leds.py")
    drivers = leds[leds.index("| signal ") : leds.index("RGB colours are at full scale")]
    readme = read("README.md")
    start = readme.index("| signal ")
    shown = readme[start : readme.index("\n\n", start)]
    assert table_rows(shown) == table_rows(drivers)


def test_replay_example_prints_what_the_readme_says():
    readme = read("README.md")
    block = re.search(r"\$ printf '(.*?)' \| python3 tools/replay.py -\n(.*?)```", readme, re.S)
    assert block, "the README's replay example is missing"
    events = block.group(1).replace("\\n", "\n")
    want = block.group(2).strip().splitlines()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "replay.py"), "-"], input=events, capture_output=True, text=True)
    assert r.stdout.strip().splitlines() == want


def test_set_up_commands_come_first():
    readme = read("README.md")
    first_block = readme[readme.index("```sh") : readme.index("```", readme.index("```sh") + 5)]
    assert "make sim" in first_block and "make test" in first_block
