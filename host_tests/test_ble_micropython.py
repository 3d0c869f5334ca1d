"""The BLE link's allocation check (host_tests/portable/test_ble_alloc.py) on the MicroPython unix
port, with a heap big enough to compile the board, the BLE link and both dialects from .py (768 kB,
as test_fuzz_runtimes.py gives the link's fuzz): at the 320 kB of `make test-micropython` that
portable test skips, saying so. The Pico loads .mpy files and needs no compiler memory."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def test_ble_link_allocates_nothing_per_idle_scan_on_micropython():
    if not os.path.exists(MICROPYTHON):
        pytest.fail("no MicroPython in .venv: make test installs it")
    r = subprocess.run(
        [MICROPYTHON, "-X", "heapsize=768k", "host_tests/helpers/run_portable.py", "test_ble_alloc"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "2 passed, 0 failed", r.stdout
    # The figures the test measured (it asserts them zero itself): printed for the record.
    print("\n".join(line for line in lines if "idle scans" in line))
