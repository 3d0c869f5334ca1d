"""A heap made smaller step by step never stops the board (docs/spec.md section 11): each feature's
game of tools/memory/exhaust.py on the MicroPython unix port, the firmware as .mpy files, at heaps
from roomy down to the first one the board cannot boot in. At every size the scan loop must run to
the end (a MemoryError escaping it ends the process with a traceback), and every move the hands
made must be read, unless the game itself found no memory once everything beside it had stopped,
which the board then says (loop.py's shed()). The unix port's objects are 64-bit, so its sizes are
not the chip's: the chips' budgets are tools/memory/report.py's (make test-memory)."""
import pytest
from mpy_board import run_on_mpy

pytestmark = pytest.mark.xdist_group(name="build_mpy")  # it compiles build/mpy/, as test_pico_loop_alloc does

FEATURES = ("engine", "ble", "cpp", "chesslink", "dgt", "clock display", "online")
# From a heap the whole game fits in to below the board's own need, in 16 KB steps (64-bit objects);
# a Lichess game, its TLS buffers at the chip's sizes beside 64-bit objects, from further up in 32 KB steps.
HEAPS_KB = {"online": range(512, 208, -32)}
OTHERS_KB = range(320, 160, -16)
GAME_SHORT = "said not enough memory for the game"
# The clock display takes little: the heap that stops it is too small to boot the board at all.
REACHES_ITS_EDGE = ("engine", "ble", "cpp", "chesslink", "dgt", "online")


@pytest.mark.parametrize("feature", FEATURES)
def test_a_shrinking_heap_stops_features_never_the_board(feature):
    code = "import sys; sys.path[:0] = ['build/mpy', 'tools/memory']; import exhaust; exhaust.main(%r)" % feature
    booted = 0
    stopped_somewhere = False
    heaps = HEAPS_KB.get(feature, OTHERS_KB)
    for kb in heaps:
        out = run_on_mpy(["-c", code], heap="%dk" % kb, compile=kb == heaps[0])  # fails on a traceback
        if "no room to boot" in out:
            break
        booted += 1
        lines = out.splitlines()
        moves = next(line for line in lines if line.startswith("moves "))
        if "feature stopped" in lines:
            stopped_somewhere = True
            assert any(line.startswith("said ") and "not enough memory" in line for line in lines), (kb, out)
        if GAME_SHORT not in out:
            assert moves.endswith("same"), "%d KB: a move lost (%s)" % (kb, moves)
    assert booted >= 3, "the board booted at only %d of the heaps" % booted
    assert stopped_somewhere or feature not in REACHES_ITS_EDGE, "no heap was small enough to stop the %s: the test does not reach its edge" % feature
