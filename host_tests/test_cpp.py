# CPP on the USB link (firmware/link/cpp.py), against a central that checks every line the board
# sends: the grammar of the Chess Peripheral Protocol README at commit a0a7d8c6 and the order that
# dkwach/chess_peripheral_driver's state machine expects (one answer per feature/variant query and
# nothing else meanwhile, sync/unsync first after begin, moves only in step, promotions without
# their piece, offers only with their features, nothing unasked outside a round). The central keeps
# its own game in python-chess and plays whole rounds with the board's hands on the virtual matrix.
import re

import chess
import pytest
from core import signals as S
from core.position import STARTING_FEN, Position, parse_square
from core.referee import PLAY
from test_link import START_PLACEMENT, Rig, frame_squares

_PIECES = set("pnbrqkPNBRQK?Uu")
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][nbrq]?$")
_FEATURES = (
    "msg", "last_move", "check", "moved", "resign", "undo_redo", "undo_offer", "draw_offer", "draw_reason",
    "variant_reason", "side", "score", "time", "get_state", "set_state", "submove_state", "option",
)


class ProtocolError(AssertionError):
    pass


def placement_ok(text):
    ranks = text.split("/")
    if len(ranks) != 8:
        return False
    for rank in ranks:
        n = 0
        for ch in rank:
            if ch in "12345678":
                n += int(ch)
            elif ch in _PIECES:
                n += 1
            else:
                return False
        if n != 8:
            return False
    return True


class Central:
    """The app's side of CPP, as the driver runs it, checking the board at every line."""

    def __init__(self, rig):
        self.rig = rig
        self.features = []
        self.query = None  # the feature/variant query in flight
        self.round = False
        self.begun = False  # begin sent, sync/unsync not yet received
        self.synced = False
        self.fields = 0
        self.board = None  # python-chess: the central's game
        self.peripheral_move = None  # the board's move waiting for the central's answer
        self.offer = None  # the central's draw_offer/undo_offer waiting for the board's answer
        self.board_offer = None  # the board's draw_offer/undo_offer waiting for the central's
        self.streaming = False  # get_state asked: state lines until begin
        self.answerable = False  # the last central line may be answered with err
        self.received = []  # every line the board sent, checked
        self.events = []  # what the app's screen would show: ("move", uci), ("resign",), ...

    # -------------------------------------------------------------- the wire

    def send(self, line, run_ms=0):
        self.rig.send(line + "\n")
        self.answerable = True
        self._read()
        if run_ms:
            self.run(run_ms)

    def run(self, ms):
        self._read()
        for _ in range(ms // 5):
            self.rig.run(5)
            self._read()

    def _read(self):
        for line in self.rig.lines():
            self._check(line)
            self.received.append(line)

    def take(self):
        got = self.received
        self.received = []
        return got

    def fail(self, line, why):
        raise ProtocolError("%s: board sent %r (features %s, round=%s)" % (why, line, self.features, self.round))

    # -------------------------------------------------------------- every line of the board

    def _check(self, line):
        if line != line.strip() or not line or len(line) > 128:
            self.fail(line, "a line is one command, ASCII, at most 128 bytes")
        word, _, rest = line.partition(" ")
        if self.query is not None:
            # The driver's IterableExchangeState takes any line as the answer to the query.
            if line not in ("ok", "nok"):
                self.fail(line, "unasked line while %r waits for its answer" % self.query)
            if line == "ok" and self.query.startswith("feature "):
                self.features.append(self.query.split()[1])
            self.query = None
            self.answerable = False
            return
        if word == "err":
            if not self.answerable and not self.round:
                self.fail(line, "err outside a round that answers nothing")
            self.events.append(("err", rest))
            return
        if not self.round:
            if word == "state" and self.streaming and placement_ok(rest):
                return
            self.fail(line, "the board speaks unasked outside a round")
        if self.begun and word not in ("sync", "unsync"):
            self.fail(line, "the answer to begin is sync or unsync")
        if word in ("sync", "unsync", "state"):
            fields = rest.split()
            # state: the README's examples give the placement alone; sync and unsync a full FEN.
            allowed = (1, self.fields) if word == "state" else (self.fields,)
            if not fields or not placement_ok(fields[0]) or len(fields) not in allowed:
                self.fail(line, "a FEN with the central's %d fields" % self.fields)
            if word == "sync":
                if fields[0] != self.board.board_fen() or (len(fields) > 1 and fields[1] != "wb"[not self.board.turn]):
                    self.fail(line, "sync in another position than the central's %s" % self.board.fen())
                self.synced = True
            elif word == "unsync":
                self.synced = False
            elif self.synced:
                self.fail(line, "state while in step")
            self.begun = False
            return
        if word == "move":
            if not self.synced or self.peripheral_move is not None:
                self.fail(line, "a move while out of step or while one waits for an answer")
            if not _UCI.match(rest):
                self.fail(line, "not a UCI move")
            uci = rest
            legal = [m.uci() for m in self.board.legal_moves]
            if len(uci) == 5:
                self.fail(line, "a promotion goes out without its piece: the central chooses")
            if uci not in legal and uci + "q" not in legal:
                self.fail(line, "an illegal move in %s" % self.board.fen())
            if self.offer is not None:
                self.fail(line, "a move while the central's %s waits for its answer" % self.offer)
            self.peripheral_move = uci
            self.events.append(("move", uci))
            return
        if word in ("ok", "nok"):
            if self.offer is None or rest:
                self.fail(line, "ok/nok that answers nothing")
            self.events.append((self.offer, word))
            self.offer = None
            return
        need = {"resign": ("resign",), "draw_offer": ("draw_offer",), "undo_offer": ("undo_offer", "undo_redo"),
                "moved": ("moved",), "msg": ("msg",)}.get(word)
        if need is None:
            self.fail(line, "not a command of a CPP peripheral")
        for feature in need:
            if feature not in self.features:
                self.fail(line, "needs feature %s" % feature)
        if word in ("draw_offer", "undo_offer"):
            self.board_offer = word
        if word != "msg" and rest:
            self.fail(line, "%s takes nothing after it" % word)
        self.events.append((word, rest) if rest else (word,))

    # -------------------------------------------------------------- the central's commands

    def negotiate(self, features, between=None):
        """Feature queries one at a time, as the driver does; between(i) moves pieces meanwhile."""
        for i, name in enumerate(features):
            self.query = "feature " + name
            self.send(self.query)
            if between is not None:
                between(i)
                self._read()
            if self.query is not None:
                raise ProtocolError("no answer to " + self.query)
        for name, ok in (("standard", True), ("chess_960", False)):
            self.query = "variant " + name
            self.send(self.query)
            assert self.query is None
        self.take()  # the answers, checked

    def begin(self, fen):
        fields = fen.split()
        self.board = chess.Board(" ".join(fields + ["w", "KQkq", "-", "0", "1"][len(fields) - 1 :]))
        self.board.castling_rights = self.board.clean_castling_rights()
        self.fields = len(fen.split())
        self.round = True
        self.begun = True
        self.streaming = False
        self.peripheral_move = None
        self.send("set_variant standard")
        self.send("begin " + fen)
        if self.begun:
            raise ProtocolError("no sync/unsync after begin")

    def accept(self, promotion=None):
        """Answer the board's move: ok, or promote with the central's choice of piece."""
        uci = self.peripheral_move
        assert uci is not None, "no move of the board to answer"
        self.peripheral_move = None
        move = chess.Move.from_uci(uci)
        if self.board.piece_type_at(move.from_square) == chess.PAWN and chess.square_rank(move.to_square) in (0, 7):
            uci += promotion or "q"
            self.send("promote " + uci)
        else:
            self.send("ok")
        self.board.push_uci(uci)

    def reject(self):
        assert self.peripheral_move is not None
        self.peripheral_move = None
        self.send("nok")

    def move(self, uci):
        self.board.push_uci(uci)
        self.send("move " + uci)

    def undo(self):
        self.board.pop()
        self.send("undo " + self._fen())

    def redo(self, uci):
        self.board.push_uci(uci)
        self.send("redo " + self._fen())

    def answer_offer(self, accepted):
        offer = self.board_offer
        assert offer is not None
        self.board_offer = None
        self.send("ok" if accepted else "nok")
        return offer

    def offer_draw(self):
        self.offer = "draw_offer"
        self.send("draw_offer")

    def offer_undo(self):
        self.offer = "undo_offer"
        self.send("undo_offer")

    def end(self, reason):
        self.send("end " + reason)
        self.round = False

    def get_state(self):
        self.round = False
        self.streaming = True
        self.send("get_state")

    def _fen(self):
        return " ".join(self.board.fen().split()[: self.fields])


ALL = ("msg", "check", "moved", "resign", "undo_redo", "undo_offer", "draw_offer", "draw_reason", "variant_reason",
       "side", "time", "get_state")


def central(mode="strict", occupied=None, features=ALL):
    rig = Rig(mode=mode, occupied=occupied)
    c = Central(rig)
    c.negotiate(features)
    return rig, c


def test_negotiation_while_pieces_move_gets_one_answer_per_query():
    rig = Rig()
    c = Central(rig)
    rig.link.info("chessboard ready")  # start-up message: held, never sent to a CPP app

    def hands(i):
        # A piece nudged, a move made and taken back, a stray piece: the board must stay quiet.
        for name in (("e2", "e4"), ("g1", "f3"), ("f3", "g1"), ("e4", "e2"), ("b1", "b1"))[i % 5:i % 5 + 1]:
            rig.lift(name[0], ms=80)
            rig.place(name[1], ms=300)

    c.negotiate(_FEATURES, between=hands)
    assert c.features == [f for f in _FEATURES if f in ALL]
    c.send("side ?")  # no answer
    c.send("check e1")  # no answer
    c.send("time 300000 300000")
    c.send("msg Hello peripheral")
    c.send("err something on the app")
    assert c.take() == []


def test_a_whole_round_setup_moves_promotion_and_end():
    # The board as the CPP README's example finds it: the a-pawn on a3 instead of a2.
    start = [sq for sq in list(range(16)) + list(range(48, 64)) if sq != parse_square("a2")]
    rig, c = central(occupied=start + [parse_square("a3")])
    c.begin(START_PLACEMENT + " w")
    # Nothing was seen lifted: the piece on a3 is unknown.
    assert c.take() == ["unsync rnbqkbnr/pppppppp/8/8/8/?7/1PPPPPPP/RNBQKBNR w"]
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("a2")]
    rig.lift("a3")
    c.run(0)
    rig.place("a2", ms=400)
    c.run(0)
    assert c.take() == [
        "state rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR",
        "state " + START_PLACEMENT,
        "sync " + START_PLACEMENT + " w",
    ]
    # Moves both ways.
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.move("d7d5")
    rig.run(10)
    assert frame_squares(rig, S.REMOTE_MOVE) == [parse_square("d5"), parse_square("d7")]
    rig.play("d7d5")
    c.run(0)
    assert c.take() == ["move e2e4", "moved"]  # the central's move made on the board: `moved`
    rig.play("e4d5")
    c.run(0)
    c.accept()
    c.move("c7c6")
    rig.play("c7c6")
    rig.play("d5c6")
    c.run(0)
    c.accept()
    c.move("g8f6")
    rig.play("g8f6")
    rig.play("c6b7")
    c.run(0)
    c.accept()
    c.move("f6e4")
    rig.play("f6e4")
    c.run(0)
    # b7xa8: a promotion goes out without its piece; the central's `promote` chooses a knight.
    rig.play("b7a8")
    c.run(0)
    assert c.take()[-1] == "move b7a8"
    c.accept(promotion="n")
    c.run(50)
    assert rig.game.uci_moves()[-1] == "b7a8n"
    assert rig.app.referee.game.position.piece_at(parse_square("a8")) == 2  # a white knight
    assert c.take() == []
    c.end("undefined")
    # After end: silence, whatever the hands do.
    rig.lift("h7", ms=300)
    rig.place("h5", ms=600)
    c.run(0)
    assert c.take() == []
    assert rig.link.errors == 0


def test_promotion_answered_ok_is_a_queen_and_a_tap_waits_for_the_central():
    rig, c = central(occupied=[parse_square(s) for s in ("e1", "a7", "h8")])
    c.begin("7k/P7/8/8/8/8/8/4K3 w")
    rig.play("a7a8")
    c.run(0)
    assert c.take() == ["sync 7k/P7/8/8/8/8/8/4K3 w", "move a7a8"]
    # The player taps the piece before the central answers: the central's answer still decides.
    rig.lift("a8", ms=40)
    rig.place("a8", ms=300)
    c.run(0)
    assert c.take() == []
    c.accept(promotion="b")
    c.run(20)
    assert rig.game.uci_moves() == ["a7a8b"]
    # A tap after the central chose: its piece stays.
    rig.lift("a8", ms=40)
    rig.place("a8", ms=300)
    c.run(20)
    assert rig.game.uci_moves() == ["a7a8b"] and c.take() == []


def test_a_start_position_set_up_in_a_round_is_reported_not_a_new_game():
    rig, c = central()
    c.begin(STARTING_FEN)
    rig.play("e2e4")
    c.run(0)
    c.accept()
    rig.lift("e4")
    rig.place("e2", ms=800)
    c.run(0)
    got = c.take()
    assert got[0] == "sync " + STARTING_FEN and got[1] == "move e2e4"
    # The start position, reported: the pawn lifted from e4 stands on e2.
    assert got[2] == "unsync " + START_PLACEMENT + " b KQkq - 0 1"
    assert got[3:] == ["msg error mismatch e4 e2"]
    assert rig.game.uci_moves() == ["e2e4"]  # ... and the round goes on
    c.move("e7e5")  # the app's next move is no "err ... no round"; out of step, it moves the target
    assert c.take() == []
    for frm, to in (("e2", "e4"), ("e7", "e5")):
        rig.lift(frm)
        c.run(0)
        rig.place(to, ms=400)
        c.run(0)
    assert c.take()[-1] == "sync rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    rig.play("g1f3")
    c.run(0)
    assert c.take() == ["move g1f3"]
    assert rig.link.errors == 0


def test_refused_move_is_guided_back():
    rig, c = central()
    c.begin(START_PLACEMENT + " w")
    rig.play("g1f3")
    c.run(0)
    c.take()
    c.reject()
    c.run(10)
    assert c.take() == ["unsync rnbqkbnr/pppppppp/8/8/8/5?2/PPPPPPPP/RNBQKB1R w"]
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("g1")]
    rig.lift("f3")
    c.run(0)
    rig.place("g1", ms=400)
    c.run(0)
    assert c.take()[-1] == "sync " + START_PLACEMENT + " w"


def test_undo_redo_from_the_central_and_undo_offers_both_ways():
    rig, c = central(mode="casual")
    c.begin(STARTING_FEN)
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.take()
    # The central takes e2e4 back (undo FEN): the LEDs guide the pawn home.
    c.undo()
    c.run(10)
    assert c.take()[0].startswith("unsync ")
    assert rig.game.uci_moves() == []
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("e2")]
    rig.lift("e4")
    c.run(0)
    rig.place("e2", ms=400)
    c.run(0)
    assert c.take()[-1] == "sync " + STARTING_FEN
    # ... and redoes it (redo FEN): now the pawn goes to e4 again.
    c.redo("e2e4")
    c.run(10)
    assert rig.game.uci_moves() == ["e2e4"]
    rig.lift("e2")
    rig.place("e4", ms=400)
    c.run(0)
    assert c.take()[-1].startswith("sync ")
    # The player takes a move back on the board (casual mode): an undo offer, refused.
    c.move("e7e5")
    rig.play("e7e5")
    rig.play("d2d4")
    c.run(0)
    c.accept()
    rig.lift("d4")
    rig.place("d2", ms=400)
    c.run(0)
    assert c.take() == ["moved", "move d2d4", "undo_offer"]
    c.answer_offer(False)  # nok: the pawn must go back to d4
    c.run(10)
    assert rig.game.uci_moves() == ["e2e4", "e7e5", "d2d4"]
    assert c.take()[0].startswith("unsync ")
    rig.lift("d2")
    rig.place("d4", ms=400)
    c.run(0)
    assert c.take()[-1].startswith("sync ")
    # Offered again and accepted: the central sends `undo FEN`, the board is there already.
    rig.lift("d4")
    rig.place("d2", ms=400)
    c.run(0)
    assert c.take() == ["undo_offer"]
    c.answer_offer(True)
    c.undo()
    c.run(20)
    assert c.take() == [] and rig.game.uci_moves() == ["e2e4", "e7e5"]
    # The central offers a takeback; the player takes the move back: accepted.
    rig.play("g1f3")
    c.run(0)
    c.accept()
    c.take()
    c.offer_undo()
    rig.lift("f3")
    rig.place("g1", ms=400)
    c.run(0)
    assert c.take() == ["ok"]
    c.undo()
    c.run(20)
    assert rig.game.uci_moves() == ["e2e4", "e7e5"]
    # Offered again; a move declines it.
    rig.play("g1f3")
    c.run(0)
    c.accept()
    c.offer_undo()
    c.move("b8c6")
    rig.play("b8c6")
    c.run(0)
    assert c.take()[-1] == "moved"
    assert rig.link.errors == 0


def test_undo_offer_declined_by_a_move():
    rig, c = central()
    c.begin(STARTING_FEN)
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.move("e7e5")
    rig.play("e7e5")
    c.run(0)
    c.take()
    c.offer_undo()
    rig.play("g1f3")
    c.run(0)
    assert c.take() == ["nok", "move g1f3"]


def test_takeback_without_the_undo_features_is_put_back():
    rig, c = central(mode="casual", features=("msg",))
    c.begin(STARTING_FEN)
    rig.play("e2e4")
    c.run(0)
    c.accept()
    rig.lift("e4")
    rig.place("e2", ms=400)
    c.run(10)
    got = c.take()
    assert "undo_offer" not in got and got[-1].startswith("unsync ")
    assert rig.game.uci_moves() == ["e2e4"]  # the LEDs ask for the pawn on e4 again


def test_rook_first_castling_waits_for_the_rook_move_to_be_taken_back():
    rig, c = central(mode="casual")
    c.begin(STARTING_FEN)
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"):
        rig.play(uci)  # one player at the board makes both sides' moves (CPP side "?")
        c.run(0)
        c.accept()
    rig.play("h1f1")  # the rook first: a rook move, sent as such
    c.run(0)
    c.accept()
    rig.lift("e1")
    rig.place("g1", ms=400)  # the king follows: it was castling
    c.run(0)
    assert c.take()[-2:] == ["move h1f1", "undo_offer"]
    c.answer_offer(True)
    c.undo()  # the central takes h1f1 back ... and the castling goes out
    c.run(0)
    assert c.take() == ["move e1g1"]
    c.accept()
    assert rig.game.uci_moves()[-1] == "e1g1"
    assert rig.link.errors == 0


def test_resign_and_draw_offers_with_the_kings():
    rig, c = central()
    c.begin(STARTING_FEN)
    # The central offers a draw; a move declines.
    c.offer_draw()
    rig.play("e2e4")
    c.run(0)
    assert c.take() == ["sync " + STARTING_FEN, "nok", "move e2e4"]
    c.accept()
    # The board offers (kings on one light and one dark centre square); the central refuses.
    rig.lift("e1")
    rig.place("d4")
    rig.lift("e8")
    rig.place("d5", ms=800)
    c.run(0)
    assert c.take() == ["draw_offer"]
    c.answer_offer(False)
    c.run(10)
    assert rig.game.result == "*" and c.take()[0].startswith("unsync ")
    rig.lift("d4")
    rig.place("e1")
    rig.lift("d5")
    rig.place("e8", ms=400)
    c.run(0)
    assert c.take()[-1].startswith("sync ")
    # The central offers and the player accepts with the kings.
    c.offer_draw()
    rig.lift("e1")
    rig.place("d4")
    rig.lift("e8")
    rig.place("d5", ms=800)
    c.run(0)
    assert c.take() == ["ok"]
    c.end("draw_offer")  # feature draw_reason: the reason instead of `draw`
    assert (rig.game.result, rig.game.reason) == ("1/2-1/2", "agreement")
    # A new round from the position on the board: the kings on the dark centre squares resign
    # for white.
    rig.lift("d4")
    rig.place("e1")
    rig.lift("d5")
    rig.place("e8", ms=400)
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    c.begin(fen)
    rig.lift("e1")
    rig.place("d4")
    rig.lift("e8")
    rig.place("e5", ms=800)
    c.run(0)
    assert c.take() == ["sync " + fen, "resign"]
    assert rig.game.result == "0-1"
    c.end("resign")


def test_end_with_a_draw_reason_shows_the_draw():
    rig, c = central()
    c.begin(STARTING_FEN)
    c.end("threefold_repetition")
    rig.run(10)
    assert rig.game.result == "1/2-1/2"
    assert sorted(frame_squares(rig, S.DRAW)) == [parse_square("e1"), parse_square("e8")]


def test_get_state_aborts_the_round_and_streams_until_begin():
    rig, c = central()
    c.begin(STARTING_FEN)
    c.get_state()
    assert c.take() == ["sync " + STARTING_FEN, "state " + START_PLACEMENT]
    rig.lift("b1")
    c.run(0)
    assert c.take() == ["state rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR"]
    c.begin(STARTING_FEN)
    # The knight in the air is a move in progress on the board's game, as it is within a round
    # (CPP's state_stream: pieces lifted before a move are no mismatch): begin gets sync, and
    # the knight put back where it stood is no move, so nothing more is said.
    rig.place("b1", ms=300)
    c.run(0)
    assert c.take() == ["sync " + STARTING_FEN]


def test_error_in_a_round_is_unsync_with_the_lifted_piece_and_msg():
    rig, c = central()
    c.begin(STARTING_FEN)
    rig.lift("d2")
    rig.place("d5", ms=600)
    c.run(0)
    assert c.take() == [
        "sync " + STARTING_FEN,
        "unsync rnbqkbnr/pppppppp/8/3P4/8/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1",  # the pawn lifted from d2
        "msg error illegal d2 d5",
    ]
    rig.lift("d5")
    c.run(0)
    rig.place("d4", ms=400)
    c.run(0)
    assert c.take()[-2:] == ["sync " + STARTING_FEN, "move d2d4"]


def test_set_variant_unsupported_refuses_begin_and_gets_no_answer():
    rig = Rig()
    assert rig.ask("set_variant chess_960") == []
    assert rig.ask("begin " + STARTING_FEN) == ["err begin: this board plays only standard chess (set_variant standard)"]
    assert rig.ask("set_variant standard") == []
    assert rig.ask("begin " + STARTING_FEN) == ["sync " + STARTING_FEN]


@pytest.mark.parametrize(
    "line, reply",
    [
        ("move e2e5", "err move: illegal move e2e5 in " + STARTING_FEN),
        ("time 1 x", "err time needs the milliseconds left to white and to black, e.g. time 31444 12510"),
        ("undo 8/8/8", "err undo: FEN has 3 ranks, not 8"),
        ("score 1700 1200", "err not supported by this board (feature refused)"),
        ("ok", "err ok: no move, undo or draw offer is waiting for an answer"),
    ],
)
def test_bad_central_lines_get_one_err_and_change_nothing(line, reply):
    rig = Rig()
    rig.ask("begin " + STARTING_FEN)
    got = rig.ask(line)
    assert len(got) == 1 and got[0].startswith("err ")
    if not reply.startswith("err undo"):
        assert got == [reply]
    assert rig.game.uci_moves() == [] and rig.link.sessions["cpp"].round


# ---------------------------------------------------------------------- hostile lines (issue 20)


def status_words(rig):
    (line,) = rig.ask("status")
    return dict(w.split("=", 1) for w in line.split()[1:])


def test_a_refused_new_in_a_round_changes_nothing():
    rig = Rig()
    assert rig.ask("begin " + STARTING_FEN) == ["sync " + STARTING_FEN]
    got = rig.ask("new x")
    assert len(got) == 1 and got[0].startswith("err new: ")
    assert status_words(rig)["round"] == "sync" and rig.link.dialect == "cpp"
    rig.play("e2e4")  # the round goes on: the board's move reaches the central as CPP says it
    assert rig.lines() == ["move e2e4"]


def test_a_refused_new_outside_a_round_keeps_the_board_silent():
    rig = Rig()
    assert rig.ask("feature msg") == ["ok"] and rig.link.dialect == "cpp"
    assert rig.ask("new x")[0].startswith("err new: ")
    rig.play("e2e4")
    assert rig.lines() == []  # CPP outside a round: nothing unasked, not a text `move` line
    assert rig.link.dialect == "cpp"


def test_in_a_round_a_dead_position_is_the_centrals_to_end():
    # The board ends a dead position by itself (FIDE 5.2.2, core/dead.py), but not in a round: the
    # central rules it, and python-chess (the companion), Lichess and the apps end none but by
    # material. The round goes on; after it the board judges them again.
    before = "4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1PP/8/4K3"
    squares = [sq for sq in range(64) if Position(before + " w - - 0 1").piece_at(sq)]
    rig, c = central(occupied=squares)
    c.begin(before + " w")
    c.take()
    rig.play("h3h4")
    c.run(0)
    c.accept()
    assert not rig.game.is_over() and rig.app.referee.phase == PLAY
    c.move("e8d8")
    rig.play("e8d8")
    c.run(0)
    assert c.take() == ["move h3h4", "moved"] and not rig.game.is_over()
    c.end("draw")
    assert rig.ask("new " + before + " w - - 0 1")[-1] == "ok"
    for frm, to in (("h4", "h3"), ("d8", "e8")):  # the pieces set up as the LEDs ask
        rig.lift(frm)
        rig.place(to, 400)
    rig.play("h3h4")
    assert (rig.game.result, rig.game.reason) == ("1/2-1/2", "dead-position")


def test_end_with_a_result_shows_a_game_lost_on_lichess_on_the_losers_king():
    # Issue 29 item 9: a game Lichess ended by resignation, flag or a claim was left showing whose
    # move it was. The board's extension `end REASON RESULT` (the companion's) ends the board's game
    # on the loser's king; CPP's own `end resign` (no result) leaves it as the apps expect.
    for reason, result, loser in (("resign", "1-0", "e8"), ("timeout", "0-1", "e1")):
        rig = Rig()
        assert rig.ask("begin " + STARTING_FEN) == ["sync " + STARTING_FEN]
        rig.play("e2e4")
        assert rig.ask("end %s %s" % (reason, result)) == []  # CPP: no answer
        rig.run(100)
        assert rig.game.result == result
        assert frame_squares(rig, S.RESIGNED) == [parse_square(loser)]
    rig = Rig()
    rig.ask("begin " + STARTING_FEN)
    rig.play("e2e4")
    assert rig.ask("end resign") == []
    assert rig.game.result == "*"  # who resigned, CPP's end does not say: the board's game goes on


def test_end_outside_a_round_does_not_end_the_boards_game():
    rig = Rig()
    assert rig.ask("end draw") == []  # CPP: no answer
    assert status_words(rig)["phase"] == "play" and rig.game.result == "*"
    rig.play("e2e4")  # and the board still reads moves
    assert rig.game.uci_moves() == ["e2e4"]


def test_a_bad_chesslink_message_in_a_round_changes_nothing():
    rig = Rig()
    assert rig.ask("begin " + STARTING_FEN) == ["sync " + STARTING_FEN]
    rig.send("S00\n")  # an S, then a block check that is not the S's (53): ignored
    rig.run(100)
    assert rig.lines() == []  # no status report, then or at any scan after
    assert rig.link.dialect == "cpp" and rig.link.sessions["cpp"].round
    rig.play("e2e4")
    assert rig.lines() == ["move e2e4"]


def test_hostile_lines_over_the_port_change_nothing(tmp_path):
    """The same lines as a user types them into tools/sim_terminal.py --serial's port."""
    import queue

    from chesslink_client import PtyTransport
    from companion_rig import SimBoard, dump

    path = str(tmp_path / "board")
    sim = SimBoard(path)
    port = PtyTransport(path)
    got = queue.Queue()
    text = bytearray()

    def lines(data):
        text.extend(data)
        while b"\n" in text:
            i = text.index(b"\n")
            got.put(bytes(text[:i]).decode())
            del text[: i + 1]

    def ask(line, timeout=5.0):
        port.write((line + "\n").encode())
        return got.get(timeout=timeout)

    def quiet(seconds=0.5):
        try:
            return got.get(timeout=seconds)
        except queue.Empty:
            return None

    port.attach(lines)
    try:
        port.write(b"end draw\n")
        assert quiet() is None  # CPP: no answer ...
        status = ask("status")
        assert " phase=play " in status and " result=* " in status, status  # ... and no draw
        assert ask("begin " + STARTING_FEN) == "sync " + STARTING_FEN
        assert ask("new x").startswith("err new: ")
        port.write(b"S00\n")
        assert quiet() is None
        assert "round=sync" in ask("status"), dump(sim)
        sim.send("move e2 e4")
        assert got.get(timeout=5) == "move e2e4"  # the round goes on, in CPP's words
    finally:
        port.close()
        sim.stop()
