# Who can still mate, and dead positions (firmware/core/dead.py: FIDE 5.2.2 and 6.9), on every
# runtime: positions from the literature, fortresses, positions that look dead and are not, the
# search's bound, and the 110 labelled positions of host_tests/data/unwinnable.txt (from D3-Chess).
from core.dead import ARBITER_NODES, DEAD, MATE, UNKNOWN, by_material, can_mate, is_dead, pawn_wall, search
from core.dead import DEAD_POSITION
from core.game import INSUFFICIENT_MATERIAL, Game
from core.position import BLACK, WHITE, Position

# The position of issue 29: every pawn locked, no piece, neither king can get through.
WALL = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"


def _verdict(fen, nodes=ARBITER_NODES):
    """'WB', 'W-', '-B' or '--': which sides can_mate() leaves able to mate."""
    p = Position(fen)
    before = p.fen()
    w = can_mate(p, WHITE, nodes)
    b = can_mate(p, BLACK, nodes)
    assert p.fen() == before, "the position changed: " + fen
    return ("W" if w else "-") + ("B" if b else "-")


def test_the_locked_wall_is_dead():
    p = Position(WALL)
    assert pawn_wall(p) == 3 and is_dead(p)
    assert not can_mate(p, WHITE) and not can_mate(p, BLACK)
    g = Game(WALL)
    assert (g.result, g.reason) == ("1/2-1/2", DEAD_POSITION)
    # python-chess's line (insufficient material) does not see it: pawns are on the board.
    assert not p.is_insufficient_material()


def test_the_move_that_locks_the_wall_ends_the_game_and_its_takeback_reopens_it():
    g = Game("4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1PP/8/4K3 w - - 0 1")
    assert not g.is_over()
    g.push_uci("h3h4")
    assert (g.result, g.reason) == ("1/2-1/2", DEAD_POSITION)
    g.pop()
    assert not g.is_over()


def test_an_en_passant_capture_keeps_it_alive_for_one_move():
    g = Game("4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1P1/7P/4K3 w - - 0 1")
    g.push_uci("h2h4")  # g4xh3 e.p. is possible: the pawns may still change
    assert not g.is_over()
    g.push_uci("e8d8")  # a quiet move: the game asks again because the last position had e.p.
    assert g.reason == DEAD_POSITION


def test_fortresses_from_the_literature():
    # Fortresses of D3-Chess's test vectors (host_tests/data/unwinnable.txt has more).
    assert _verdict("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1") == "--"  # bishops of each side on their own colour
    assert _verdict("1k6/8/8/p1p1p1p1/P1P1P1P1/8/8/1K6 b - - 0 1") == "--"
    assert _verdict("7k/8/8/8/p1p5/P1Pp2p1/P2P2P1/6K1 w - - 0 1") == "--"


def test_same_coloured_bishops_cannot_mate():
    assert not by_material(Position("8/8/4k3/8/2b5/8/8/4KB2 w - - 0 1"), WHITE)
    assert Game("8/8/4k3/8/2b5/8/8/4KB2 w - - 0 1").reason == INSUFFICIENT_MATERIAL
    # ... behind a wall, against a king with pawns: the bishop never reaches a square it could check from.
    assert _verdict("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/3B4/4K3 w - - 0 1") == "--"


def test_positions_that_look_dead_but_are_not():
    # A pawn capture is still there: g3xh4 (and h4xg3).
    assert _verdict("4k3/8/8/1p1p1p2/pPpPpPpp/P1P1P1PP/8/4K3 w - - 0 1") == "WB"
    # The wall has a gap: white's king walks round to the undefended d5 pawn.
    assert _verdict("4k3/8/8/3p1p1p/2pPpPpP/2P1P1P1/8/4K3 w - - 0 1") == "WB"
    # A bishop on the other colour reaches the black king's squares (d8, dark, over the rank-5 gaps).
    assert _verdict("3Bk3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1") == "W-"
    assert not is_dead(Position("3Bk3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"))
    # A knight behind the wall can step where a black pawn takes it (b3: a4xb3), and that pawn then
    # runs to promote: not dead.
    assert _verdict("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/N3K3 w - - 0 1") == "WB"
    # En passant is possible now (h2-h4 was the last move).
    assert _verdict("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 b - h3 0 1") == "WB"
    # A free pawn: it promotes.
    assert _verdict("4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1P1/7P/4K3 b - - 0 1") == "WB"


def test_the_search_finds_a_helpmate():
    # A lone knight against a king and pawn: the pawn boxes its own king in (Nc7 mates).
    assert search(Position("k1K5/p7/4N3/8/8/8/8/8 w - - 0 1"), WHITE, 20) == MATE
    assert not is_dead(Position("k1K5/p7/4N3/8/8/8/8/8 w - - 0 1"), ARBITER_NODES)
    assert search(Position("k7/8/1K6/8/8/8/8/7R w - - 0 1"), WHITE, 20) == MATE


def test_the_search_proves_a_forced_line():
    # Black's only move is Kxb7: then king against king. White cannot mate, whatever the rook says.
    p = Position("k7/1R6/8/2K5/8/8/8/8 b - - 0 1")
    assert by_material(p, WHITE)
    assert search(p, WHITE, 8) == DEAD
    assert not can_mate(p, WHITE) and is_dead(p, ARBITER_NODES)
    # In check from the wall's pawns (c4, e4): the king must step back, and then the wall holds.
    p = Position("4k3/8/8/1p1p1p1p/pPpPpPpP/P1PKP1P1/8/8 w - - 0 1")
    assert pawn_wall(p) == 0
    assert _verdict(p.fen()) == "--" and is_dead(p, ARBITER_NODES)
    assert not is_dead(p)  # after a move only the wall is asked: it proves nothing here


class _Counted(Position):
    """A position that counts the moves made on it."""

    made = 0

    def make(self, m):
        self.made += 1
        Position.make(self, m)


def test_the_search_stays_within_its_positions():
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/N3K3 w - - 0 1"):
        p = _Counted(fen)
        assert search(p, WHITE, ARBITER_NODES) == UNKNOWN
        assert p.made <= ARBITER_NODES
        assert p.fen() == Position(fen).fen()


class _Exhausted(Position):
    """A position whose move generator runs out of memory after a few calls."""

    calls = 0

    def generate_legal(self, out, only=-1):
        self.calls += 1
        if self.calls > 1:
            raise MemoryError("no more")
        return Position.generate_legal(self, out, only)


def test_running_out_of_memory_proves_nothing_and_changes_nothing():
    fen = "k7/1R6/8/2K5/8/8/8/8 b - - 0 1"
    p = _Exhausted(fen)
    assert can_mate(p, WHITE)  # unproven: able to mate
    assert p.fen() == Position(fen).fen()
    p = _Exhausted(fen)
    assert not is_dead(p, ARBITER_NODES)


def test_the_labelled_positions_of_d3_chess():
    # Never "cannot mate" where a series of legal moves mates (the labels); and how many of the sides
    # that cannot mate are proven so, on every runtime alike.
    proven = 0
    cannot = 0
    lines = 0
    with open("host_tests/data/unwinnable.txt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            label = line[:2]
            fen = line[3:].strip()
            ours = _verdict(fen)
            lines += 1
            for i in (0, 1):
                if label[i] != "-":
                    assert ours[i] != "-", "%s: %s says a side that can mate cannot" % (fen, ours)
                else:
                    cannot += 1
                    if ours[i] == "-":
                        proven += 1
    print("  %d positions: %d of the %d sides that cannot mate proven so" % (lines, proven, cannot))
    assert lines == 110
    assert proven >= 67
