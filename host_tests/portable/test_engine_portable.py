# The engine on every runtime (CPython, MicroPython unix with the Pico's heap, WebAssembly): its
# state fits the 24 KB budget, a search allocates nothing per node, it mates and keeps the
# position intact. The thorough checks against python-chess are in host_tests/test_engine.py.
import gc

from heap import can_count_bytes
from core.position import Position, move_uci
from engine.search import MATE, Search

MIDDLEGAME = "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10"


def test_state_fits_in_24_kb():
    search = Search()
    assert search.footprint() <= 24 * 1024, search.footprint()


def test_a_search_allocates_nothing_per_node():
    search = Search()
    pos = Position(MIDDLEGAME)
    search.start(pos, max_nodes=400)
    search.run(1)  # the first slice may intern what it needs
    if not can_count_bytes():
        while not search.run(50):
            pass
        return
    gc.collect()
    before = gc.mem_alloc()
    while not search.run(50):
        pass
    used = gc.mem_alloc() - before
    assert search.nodes >= 400
    assert used == 0, used


def test_mate_in_two_and_the_position_is_left_as_it_was():
    pos = Position("r1b1kb1r/1ppp2pp/2n1p2n/8/2Pp4/pK6/3qQ2P/RN4NR b kq - 5 17")
    before = pos.fen()
    search = Search()
    m = search.think(pos, max_nodes=20000)
    assert search.score == MATE - 3
    assert move_uci(m) == "c6a5"  # the only move that mates in two (python-chess: host_tests/test_engine.py)
    assert pos.fen() == before

