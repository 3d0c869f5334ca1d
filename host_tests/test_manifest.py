# firmware/MANIFEST.md against the real imports: every firmware module is in its table once, and a
# board booted on CPython (fake Pico hardware, in a fresh interpreter, as main.main() boots it)
# loads exactly the modules the table says load at boot, for each LED driver. The Pico-only
# modules (runs on: native, rp2) cannot load here: for them, and for the modules loaded on first
# use, the imports at each module's top are read instead (none may name a module that loads later
# or runs on fewer runtimes).
import json
import os
import subprocess
import sys

import pytest

import flash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
LOADS = ("boot", "boot: ws2812", "boot: max7219", "boot: ble", "build", "first use", "never")
RUNS = ("all", "plain", "native", "rp2", "pc")

# Boots a board as wiring.boot() does (build, forget the build-only modules, start) and scans for a
# second with nothing happening; prints the firmware modules then loaded, as JSON.
BOOT = r"""
import json, os, sys
root, led_type = sys.argv[1], sys.argv[2]
sys.path[:0] = [root + "/firmware", root + "/tools/shims"]
before = set(sys.modules)
import config, wiring
from hardware import fake
settings = config.Settings()
settings.led_type = led_type
start = [sq for sq in range(64) if sq < 16 or sq >= 48]
pico = fake.FakePico(settings.row_pins, settings.column_pins, config.SIO_GPIO_IN, occupied=start,
                     max7219_answers=True, cs_gpio=settings.spi_cs)
board = wiring.build(settings, pico.machine, pico.neopixel, [].append)
wiring.forget(wiring.BOOT_ONLY + ("wiring",))
board.start(0)
for t in range(0, 1000, 5):
    pico.vm.now_ms = t
    board.tick(t)
firmware = os.path.join(root, "firmware") + os.sep
loaded = []
for name, module in sys.modules.items():
    path = getattr(module, "__file__", None) or ""
    if name not in before and path.startswith(firmware):
        loaded.append(os.path.relpath(path, firmware).replace(os.sep, "/"))
print(json.dumps(sorted(loaded)))
"""


def table_rows():
    with open(flash.MODULES) as f:
        return [line for line in f if line.startswith("| `")]


def firmware_files():
    found = []
    for folder, dirs, files in os.walk(FIRMWARE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(folder, name), FIRMWARE).replace(os.sep, "/"))
    return sorted(found)


def test_every_firmware_module_is_in_the_table_once_with_known_words():
    table = flash.module_table()
    assert len(table_rows()) == len(table), "a module is listed twice"
    assert sorted(table) == firmware_files()
    for path, (loads, runs) in table.items():
        assert loads in LOADS, (path, loads)
        assert runs in RUNS, (path, runs)
        assert (loads == "never") == (runs == "pc"), path


@pytest.mark.parametrize("led_type", ["ws2812", "max7219"])
def test_a_booted_board_loads_exactly_the_modules_the_table_says(led_type, tmp_path):
    r = subprocess.run([sys.executable, "-c", BOOT, ROOT, led_type], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    loaded = set(json.loads(r.stdout)) - {"hardware/fake.py"}  # the test's own hardware
    expected = {
        path
        for path, (loads, runs) in flash.module_table().items()
        if loads in ("boot", "boot: " + led_type) and runs in ("all", "plain")
    } - {"main.py"}  # MicroPython runs it as __main__; here the snippet stands in for it
    assert sorted(loaded - expected) == [], "loaded at boot, but the table says later (or never)"
    assert sorted(expected - loaded) == [], "the table says boot, but nothing loaded it"


def test_the_build_only_modules_are_the_wirings_boot_only():
    import wiring

    build = {path for path, (loads, _) in flash.module_table().items() if loads == "build"}
    names = {m.replace(".", "/") + ".py" for m in wiring.BOOT_ONLY}
    assert names | {"wiring.py"} == build  # wiring.boot() drops itself last


def test_flash_copies_no_module_that_runs_on_the_pc_only():
    pc = [path for path, (_, runs) in flash.module_table().items() if runs == "pc"]
    assert pc == ["hardware/fake.py"]
    assert all(p[:-3] + ".mpy" in flash.HOST_ONLY for p in pc)


def _top_level_imports(path):
    """The firmware modules (as table paths) a file imports when it is itself imported: its import
    statements outside any function or class body."""
    import ast

    with open(os.path.join(FIRMWARE, path)) as f:
        tree = ast.parse(f.read())
    table = flash.module_table()

    def as_path(name):
        for candidate in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
            if candidate in table:
                return candidate
        return None

    found = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.Import):
            found.update(as_path(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(as_path(node.module))
            found.update(as_path(node.module + "." + a.name) for a in node.names)
        else:
            todo.extend(ast.iter_child_nodes(node))
    found.discard(None)
    found.discard(path)
    return found


def test_no_module_imports_at_its_top_a_module_that_loads_later_or_runs_on_fewer_runtimes():
    # What the CPython boot above cannot see: the Pico's own paths (native, rp2), and modules
    # that load on first use, must be imported inside the functions that need them.
    table = flash.module_table()
    when = {"boot": 0, "boot: ws2812": 0, "boot: max7219": 0, "boot: ble": 0, "build": 0, "first use": 1, "never": 2}
    for path, (loads, runs) in table.items():
        for imported in _top_level_imports(path):
            their_loads, their_runs = table[imported]
            assert when[their_loads] <= when[loads], "%s (%s) imports %s (%s)" % (path, loads, imported, their_loads)
            if runs == "all":
                assert their_runs == "all", "%s runs everywhere, but imports %s (%s)" % (path, imported, their_runs)
