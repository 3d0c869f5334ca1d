# core/messages.py: the plain words beside the board's event lines, for each kind of line.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
from core.messages import explain
from core.position import Position

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


def test_mismatch_says_which_piece_goes_back_where():
    p = Position(AFTER_E4_E5)
    assert explain("error mismatch f1", p) == "put the bishop back on f1"
    # Pieces of both colours: the colours are named. A square the game has empty: take it off.
    assert explain("error mismatch f1 b8 c4", p) == "put the white bishop back on f1, the black knight on b8; take the piece off c4"
    assert explain("error mismatch b2 c2 d2", p) == "put the pawns back on b2, c2 and d2"
    assert explain("error mismatch e3 f3", p) == "take the pieces off e3 and f3"
    # One piece missing and one stray: the same piece, on its way back.
    assert explain("error mismatch f1 c4", p) == "move the bishop from c4 back to f1"


def test_touch_move_names_the_touched_piece():
    p = Position(AFTER_E4_E5)
    assert explain("error touch-move d2 g1 f3", p) == "you touched the pawn on d2: it must move; move the knight from f3 back to g1"
    assert explain("error touch-move e5 f1 c4", p) == "you touched the pawn on e5: it must be taken; move the bishop from c4 back to f1"


def test_illegal_move():
    p = Position(AFTER_E4_E5)
    assert explain("error illegal b1 b3", p) == "the knight on b1 cannot go to b3: put it back on b1"
    # A legal move refused all the same: the board's engine has shown the move it plays.
    assert explain("error illegal b1 c3", p) == "the knight on b1 may not go to c3 now: the board has shown its own move; put it back on b1"


def test_game_events():
    p = Position()
    assert explain("end 1-0 checkmate", p) == "checkmate: White wins"
    assert explain("end 0-1 resignation", p) == "Black wins: the other side resigned"
    assert explain("end 1/2-1/2 stalemate", p) == "stalemate: the game is drawn"
    assert explain("end 1/2-1/2 dead-position", p) == "draw: a dead position, neither side can ever mate"
    assert explain("claim threefold", p) == "a draw can be claimed: the same position for the third time"
    assert explain("promote f7f8r", p) == "the pawn on f8 becomes a rook"
    assert explain("new", p).startswith("new game")


def test_power_up_reads_and_choices():
    # docs/power-up.md: a move the save did not reach, read from the pieces; two captures that
    # look alike, named with the saved game's position (the bishop still on c4 there).
    p = Position("4k3/5p2/8/1p6/2B5/8/8/4K3 w - - 0 1")
    # The move read is named as a player writes it (its SAN), whether the game has made it yet or not.
    assert explain("read c4f7", p) == "read the last move, Bxf7+, from the board"
    p.make(p.parse_uci("c4f7"))
    assert explain("read c4f7", p) == "read the last move, Bxf7+, from the board"
    assert p.fen() == "4k3/5B2/8/1p6/8/8/8/4K3 b - - 0 1"  # the game as it was
    p.unmake()
    q = Position("1k6/8/1q6/8/8/8/8/1R2K3 b - - 0 1")
    q.make(q.parse_uci("b6b1"))
    assert explain("read b6b1", q) == "read the last move, Qxb1+, from the board"
    q = Position("4k3/P7/8/8/8/8/8/4K3 w - - 0 1")
    assert explain("read a7a8q", q) == "read the last move, a8=Q+, from the board"
    # A move that is not the game's (no position for it): its squares.
    assert explain("read e2e4", p) == "read the last move, e2-e4, from the board"
    assert explain("read e7e8q", p) == "read the last move, e7-e8=Q, from the board"
    assert explain("choose c4 b5 f7", p) == (
        "the last move was not saved: the bishop from c4 took on b5 or f7; lift it where it stands "
        "and put it back (or set up the saved position again)"
    )
    assert explain("choose c4 b5 d5 f7", p).startswith("the last move was not saved: the bishop from c4 took on b5, d5 or f7;")
    for line in ("read", "read e2", "choose c4", "choose c4 z9"):
        assert explain(line, p) == "", line


def test_lines_that_need_no_words_or_are_unknown_get_none():
    p = Position()
    for line in ("move e2e4", "undo e2e4", "", "error", "error mismatch z9", "error new-kind e4", "end * ?", "fen x"):
        assert explain(line, p) == "", line
