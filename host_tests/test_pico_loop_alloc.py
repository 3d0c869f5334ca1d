"""The Pico's whole loop turn (main.py's Board.tick: scan step, USB link, heartbeat) allocates
nothing, measured under MicroPython by tools/bench/bench_board.py on the fake Pico, with the firmware
loaded as the Pico loads it: .mpy files from mpy-cross (compiled afresh here), so that no
compiler's working memory crowds the heap. The heap is the RPI_PICO build's 240 kB (docs/figures.md);
the unix port's 64-bit objects take about a quarter more of it than the RP2040's 32-bit ones, so the
board leaves less free here than on the chip."""
import pytest
from mpy_board import run_on_mpy

# Both modules compile firmware/ into build/mpy/ and run it from there: one worker runs them (make
# test-cpython runs pytest on two, pytest-xdist), so neither reads a file the other is rewriting.
pytestmark = pytest.mark.xdist_group("build_mpy")


PICO_HEAP = "240k"


def test_loop_turns_allocate_nothing_on_micropython():
    out = run_on_mpy(["tools/bench/bench_board.py", "--mpy"], heap=PICO_HEAP)
    figures = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    # The board runs on without the modules only wiring needed (main.BOOT_ONLY), dropped as on the Pico.
    assert figures["boot_modules_loaded"] == "none"
    assert figures["alloc_per_idle_tick"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_cpp_round"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink_every_scan"] == "0 bytes"
    free = int(figures["ram_free_after_start"].split()[0])
    assert "code from .mpy" in figures["ram_free_after_start"]
    # 64 kB here is about 100 kB on the chip: room for the engine (docs/figures.md) and a game.
    assert free > 64 * 1024, "the board leaves only %d bytes of a %s heap" % (free, PICO_HEAP)


def test_loop_turns_with_a_dgt_host_allocate_nothing_on_micropython():
    out = run_on_mpy(["tools/bench/bench_board.py", "--mpy", "--dgt"], heap=PICO_HEAP)
    figures = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert figures["alloc_per_idle_tick_in_dgt"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_dgt_bus"] == "0 bytes"
    assert "ram_dgt_session" in figures
