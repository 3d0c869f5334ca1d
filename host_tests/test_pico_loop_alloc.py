"""The Pico's whole loop turn (main.py's Board.tick: scan step, USB link, heartbeat) allocates
nothing, measured under MicroPython by tools/bench_board.py on the fake Pico. The whole firmware
compiled from .py needs more than the 200 kB heap of the core tests on a 64-bit unix port (the
Pico loads .mpy files and has 32-bit objects), so this runs the tool with the 240 kB it uses."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


def test_loop_turns_allocate_nothing_on_micropython():
    if not os.path.exists(MICROPYTHON):
        pytest.fail("no MicroPython in .venv: make test installs it")
    r = subprocess.run([MICROPYTHON, "-X", "heapsize=240k", "tools/bench_board.py"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    figures = dict(line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    assert figures["alloc_per_idle_tick"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_cpp_round"] == "0 bytes"
    free = int(figures["ram_free_after_start"].split()[0])
    assert free > 64 * 1024, "the board leaves only %d bytes of a 240 kB heap" % free
