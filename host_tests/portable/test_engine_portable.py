# The engine on every runtime (CPython, MicroPython unix with the Pico's heap, WebAssembly): its
# state fits the 24 KB budget, a search allocates nothing per node, it mates and keeps the
# position intact. The thorough checks against python-chess are in host_tests/test_engine.py.
import gc

from heap import can_count_bytes
from core.position import Position, move_uci
from engine.search import MATE, Search

try:
    from unittest import SkipTest  # pytest reports this as a skip too
except ImportError:  # MicroPython: run_portable counts any exception class named SkipTest as a skip

    class SkipTest(Exception):
        pass

MIDDLEGAME = "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10"


def test_state_fits_in_24_kb():
    search = Search()
    assert search.footprint() <= 24 * 1024, search.footprint()


def _allocates_nothing_per_node():
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


def test_a_search_allocates_nothing_per_node():
    _allocates_nothing_per_node()


def test_a_native_search_allocates_nothing_per_node():
    # The Pico's path (engine/native.py): its calls back into Python (the rules core's make, the
    # castling check) pass small ints only.
    import engine.search as es

    if not es.use_native(True):
        es.use_native(es.NATIVE)
        raise SkipTest("no native emitter on this runtime")
    try:
        _allocates_nothing_per_node()
    finally:
        es.use_native(es.NATIVE)


def test_mate_in_two_and_the_position_is_left_as_it_was():
    pos = Position("r1b1kb1r/1ppp2pp/2n1p2n/8/2Pp4/pK6/3qQ2P/RN4NR b kq - 5 17")
    before = pos.fen()
    search = Search()
    m = search.think(pos, max_nodes=20000)
    assert search.score == MATE - 3
    assert move_uci(m) == "c6a5"  # the only move that mates in two (python-chess: host_tests/test_engine.py)
    assert pos.fen() == before



# Castling both ways, promotions with and without captures, en passant, a king in check, pins.
_BOTH_PATHS = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/1b6/8/8/8/R3K2R w KQ - 0 1",
    MIDDLEGAME,
)


# A fork by each kind of piece (knight, pawn, bishop, rook), white's and black's: the move named
# attacks two pieces worth more than the forker.
FORKS = (
    ("r3k3/8/8/1N1q4/8/8/8/4K3 w - - 0 1", "b5c7"),
    ("4k3/8/8/2n1b3/8/8/3P4/4K3 w - - 0 1", "d2d4"),
    ("4k3/8/1r3q2/8/8/8/8/B3K3 w - - 0 1", "a1d4"),
    ("4k3/8/3q4/1q6/8/8/8/3RK3 w - - 0 1", "d1d5"),
    ("4k3/3p4/8/2N1B3/8/8/8/4K3 b - - 0 1", "d7d6"),
    ("4k3/8/8/8/4n3/8/8/3QK2R b - - 0 1", "e4f2"),
)


def _same_forks(native, s, p):
    # Quiescence's fork test (Search._forked, native.forked on the Pico) after every legal move of p
    # (s searches p): both say the same of every move.
    for m in p.legal_moves():
        p.make(m)
        assert native.forked(s, m) == s._forked(m), (p.fen(), move_uci(m))
        p.unmake()


def test_native_and_plain_paths_search_alike():
    # engine/search.py runs engine/native.py's generator, make, unmake, pick and order on the Pico
    # (the unix port compiles them too when asked). Both paths must write the same move lists in
    # the same order and search the same tree: the same best move, score, nodes and depth.
    # (On the chip itself: host_tests/test_pico_games.py.)
    import engine.search as es
    from engine import movegen

    if not es.use_native(True):
        es.use_native(es.NATIVE)
        raise SkipTest("no native emitter on this runtime: the plain path is the only one")
    from engine import native

    try:
        for fen in _BOTH_PATHS:
            p = Position(fen)
            s = Search()
            s.start(p, max_nodes=1)
            native.bind(s)  # (start() binds only when the native path is in use: not after a plain search)
            for i in range(len(s.history)):
                s.history[i] = (i * 37) % 4001  # quiet moves' keys, as after many cutoffs
            side = p.side >> 3
            for in_check in (0, 1):
                for captures in (0, 1):
                    n = movegen.generate(p, s.moves, 3, in_check, captures, s.history, s.pieces, side << 4, s.count[side])
                    plain = list(s.moves[3:n])
                    spec = 3 | captures << 16 | in_check << 17
                    assert native.generate(p, s.moves, spec, s) == n, fen
                    assert list(s.moves[3:n]) == plain, fen
            _same_forks(native, s, p)
            s.stop()
            answers = []
            for on in (True, False):
                assert es.use_native(on) == on
                s = Search()
                m = s.think(Position(fen), max_nodes=1500)
                answers.append((move_uci(m), s.score, s.nodes, s.depth))
            assert answers[0] == answers[1], (fen, answers)
        for fen, fork in FORKS:
            p = Position(fen)
            s = Search()
            s.start(p, max_nodes=1)
            native.bind(s)
            for m in p.legal_moves():
                if move_uci(m) == fork:
                    p.make(m)
                    assert native.forked(s, m) > 0, (fen, fork)  # the fork is seen ...
                    p.unmake()
            _same_forks(native, s, p)  # ... and every move is read alike
            s.stop()
    finally:
        es.use_native(es.NATIVE)  # as chosen at import
