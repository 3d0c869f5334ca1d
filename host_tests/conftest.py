# pytest set-up for host_tests/: firmware/ and the CPython shims become importable, as on the Pico.
#
# firmware/ goes on sys.path so tests import modules exactly as the Pico does (`import core.position`);
# tools/shims provides a CPython `micropython` module (const, native, viper); host_tests/portable
# lets the portable tests import their shared helpers as they do under run_portable.py; tools/
# lets tests import the PC tools (perft, replay). Earlier entries win a name clash.
#
# pytest also collects host_tests/portable/test_*.py (so they run on CPython with pytest's
# assertion messages); as neither folder is a package, a module name must not appear in both.
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

for _path in reversed(
    (
        os.path.join(ROOT, "firmware"),
        os.path.join(ROOT, "tools", "shims"),
        os.path.join(ROOT, "host_tests", "portable"),
        os.path.join(ROOT, "tools"),
    )
):
    if _path not in sys.path:
        sys.path.insert(0, _path)
