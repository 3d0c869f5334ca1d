"""The Pico's whole loop turn (main.py's Board.tick: scan step, USB link, heartbeat) allocates
nothing, measured under MicroPython by tools/bench_board.py on the fake Pico, with the firmware
loaded as the Pico loads it: .mpy files from mpy-cross (compiled afresh here), so that no
compiler's working memory crowds the 200 kB heap."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def test_loop_turns_allocate_nothing_on_micropython():
    if not os.path.exists(MICROPYTHON):
        pytest.fail("no MicroPython in .venv: make test installs it")
    compiled = subprocess.run(
        [os.path.join(ROOT, ".venv", "bin", "python"), "tools/check_mpy.py", "--mpy-cross", os.path.join(ROOT, ".venv", "bin", "mpy-cross")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    r = subprocess.run([MICROPYTHON, "-X", "heapsize=200k", "tools/bench_board.py", "--mpy"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    figures = dict(line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    assert figures["alloc_per_idle_tick"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_cpp_round"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink_every_scan"] == "0 bytes"
    free = int(figures["ram_free_after_start"].split()[0])
    assert "code from .mpy" in figures["ram_free_after_start"]
    assert free > 40 * 1024, "the board leaves only %d bytes of a 200 kB heap" % free
