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


# The emulated Pico's tests skip when a user has not provided its two input files
# (host_tests/pico_board.py). A skip must not read as a pass: say how many and why, loudly.
def pytest_terminal_summary(terminalreporter):
    pico_board = sys.modules.get("pico_board")
    if pico_board is None:
        return  # no chip test was collected
    reasons = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if reason.startswith("Skipped: "):
            reason = reason[len("Skipped: ") :]
        if reason.startswith(pico_board.SKIP_PREFIX):
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in reasons.items():
        terminalreporter.write_sep("!", "%d CHIP TESTS SKIPPED (not passed): %s" % (count, reason[len(pico_board.SKIP_PREFIX) :]), yellow=True)
