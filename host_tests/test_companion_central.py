# The companion's CPP central (tools/companion/board.py) line by line, in both dialects a board
# may speak: promotions as four characters answered `promote UCI` or as five answered `ok`,
# takebacks as `undo_offer` (answered ok, then `undo FEN`) or as `undo UCI`. No processes here:
# the game loop's board side (match.Match) is driven with the lines a board sends.
import io

import chess

from companion.match import Match
from companion.view import View


class FakePort:
    def __init__(self):
        self.sent = []

    def write(self, line):
        self.sent.append(line)
        return True

    def start(self):
        pass

    def stop(self):
        pass


def connected(fen, features, board_fen=None):
    """A Match whose board answered the handshake: `features` accepted, the rest refused."""
    port = FakePort()
    m = Match(port, you=chess.WHITE, fen=fen, view=View(out=io.StringIO()))
    c = m.central
    c.on_event("board-up", "/dev/ttyACM0")
    while port.sent and port.sent[-1].startswith("feature "):
        name = port.sent[-1].split()[1]
        c.line("ok" if name in features else "nok")
    assert port.sent[-1] == "fen"
    c.line("fen " + (board_fen or fen))
    assert port.sent[-1] == "begin " + m.game.fen()
    c.line("sync " + m.game.fen())
    port.sent.clear()
    return m, port


PROMOTION = "8/P6p/8/8/8/8/8/k6K w - - 0 1"


def test_a_four_character_promotion_is_answered_with_the_piece_chosen():
    m, port = connected(PROMOTION, {"msg", "undo_redo", "undo_offer"})
    m.key("promote n")
    m.central.line("move a7a8")
    assert port.sent == ["promote a7a8n"]
    assert m.game.peek() == chess.Move.from_uci("a7a8n") and m.promotion == "q"


def test_a_five_character_promotion_is_the_boards_choice():
    m, port = connected(PROMOTION, {"msg", "undo"})
    m.central.line("move a7a8r")
    assert port.sent == ["ok"] and m.game.peek().promotion == chess.ROOK


def test_a_move_for_the_wrong_side_or_an_illegal_one_is_refused():
    m, port = connected(chess.STARTING_FEN, {"msg"})
    m.central.line("move e2e5")
    m.central.line("move e7e5")
    assert port.sent == ["nok", "nok"] and not m.game.move_stack


class Takebacks(Match):
    def takeback_wanted(self):
        return True


def test_takebacks_in_both_dialects():
    for features, line, answer in (({"undo_redo", "undo_offer"}, "undo_offer", ["ok", "undo FEN"]),
                                   ({"undo"}, "undo e2e4", ["ok"])):
        port = FakePort()
        m = Takebacks(port, you=chess.WHITE, view=View(out=io.StringIO()))
        m.central.on_event("board-up", "x")
        while port.sent[-1].startswith("feature "):
            m.central.line("ok" if port.sent[-1].split()[1] in features else "nok")
        m.central.line("fen " + chess.STARTING_FEN)
        m.central.line("sync " + chess.STARTING_FEN)
        m.central.line("move e2e4")
        port.sent.clear()
        m.central.line(line)
        assert [s if not s.startswith("undo ") else "undo FEN" for s in port.sent] == answer
        assert not m.game.move_stack
        if line == "undo_offer":
            assert port.sent[1] == "undo " + chess.STARTING_FEN


def test_a_move_made_while_the_cable_was_out_is_kept():
    after = chess.Board()
    after.push_uci("d2d4")
    port = FakePort()
    m = Match(port, you=chess.WHITE, view=View(out=io.StringIO()))
    m.central.on_event("board-up", "x")
    while port.sent[-1].startswith("feature "):
        m.central.line("nok")
    m.central.line("fen " + after.fen())
    assert port.sent[-1] == "begin " + after.fen()
    assert [mv.uci() for mv in m.game.move_stack] == ["d2d4"]


def test_lines_outside_a_round_are_the_boards_own_and_change_nothing():
    port = FakePort()
    m = Match(port, you=chess.WHITE, view=View(out=io.StringIO()))
    m.central.on_event("board-up", "x")
    m.central.line("move e2e4")  # the board's event stream before begin: not a move of the round
    m.central.line("msg chessboard ready")
    assert not m.game.move_stack and port.sent == ["feature msg"]


def test_the_handshake_is_on_until_the_board_has_told_its_game():
    port = FakePort()
    m = Match(port, you=chess.WHITE, fen=chess.STARTING_FEN, view=View(out=io.StringIO()))
    c = m.central
    assert not c.handshaking()  # no board yet
    c.on_event("board-up", "/dev/ttyACM0")
    while port.sent[-1].startswith("feature "):
        assert c.handshaking()
        c.line("ok")
    assert port.sent[-1] == "fen" and c.handshaking()
    c.line("fen " + chess.STARTING_FEN)
    assert not c.handshaking()
    c.on_event("board-down", "unplugged")
    assert not c.handshaking()
