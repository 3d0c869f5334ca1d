"""The Pico's whole loop turn (main.py's Board.tick: scan step, USB link, heartbeat) allocates
nothing, measured under MicroPython by tools/bench/bench_board.py on the fake Pico, with the firmware
loaded as the Pico loads it: .mpy files from mpy-cross (compiled afresh here), so that no
compiler's working memory crowds the 200 kB heap."""
import pytest
from mpy_board import run_on_mpy

# Both modules compile firmware/ into build/mpy/ and run it from there: one worker runs them (make
# test-cpython runs pytest on two, pytest-xdist), so neither reads a file the other is rewriting.
pytestmark = pytest.mark.xdist_group("build_mpy")


def test_loop_turns_allocate_nothing_on_micropython():
    out = run_on_mpy(["tools/bench/bench_board.py", "--mpy"])
    figures = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    # The board runs on without the modules only wiring needed (main.BOOT_ONLY), dropped as on the Pico.
    assert figures["boot_modules_loaded"] == "none"
    assert figures["alloc_per_idle_tick"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_cpp_round"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink_every_scan"] == "0 bytes"
    free = int(figures["ram_free_after_start"].split()[0])
    assert "code from .mpy" in figures["ram_free_after_start"]
    assert free > 40 * 1024, "the board leaves only %d bytes of a 200 kB heap" % free
