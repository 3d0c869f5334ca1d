# Tests of firmware/link.py: the USB line protocol (CPP + the board's own commands) on an App built on fakes.
#
# Each test is a transcript: what the PC sends, what the hands do on the virtual reed matrix, and
# the lines the board must answer with. The clock advances in 5 ms scans, as on the Pico.
import config
from app import App
from core.position import STARTING_FEN, parse_square
from core import signals as S
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from link import HELP, MAX_LINE, Link
from store import GameStore
from test_store_portable import FakeFlash

START_PLACEMENT = STARTING_FEN.split()[0]


class Rig:
    """A board on fakes with its USB link; out collects what the link wrote."""

    def __init__(self, occupied=None, store=True, mode="strict"):
        self.vm = VirtualReedMatrix()
        squares = occupied if occupied is not None else list(range(16)) + list(range(48, 64))
        for sq in squares:
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        settings = config.Settings().updated({"mode": mode})
        self.flash = FakeFlash()
        self.store = GameStore("game.sav", self.flash) if store else None
        self.leds = TextLeds()
        self.app = App(settings, scanner, self.leds, self.store)
        self.out = []
        self.link = Link(self.app, self.out.append)
        self.app.console = self.link.info
        self.t = 0
        self.app.start(0)
        self.link.poll(0)

    # -- time and hands ------------------------------------------------------------------

    def run(self, ms=300):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)
            self.link.poll(self.t)

    def lift(self, name, ms=60):
        self.vm.lift(parse_square(name))
        self.run(ms)

    def place(self, name, ms=60):
        self.vm.place(parse_square(name))
        self.run(ms)

    def play(self, uci, settle=300):
        """A player's hands making a move: own piece up, victim off, piece down (and the rook)."""
        pos = self.app.referee.game.position
        f, t = parse_square(uci[:2]), parse_square(uci[2:4])
        piece = pos.piece_at(f) & 7
        self.lift(uci[:2])
        if self.vm.occupied(t):
            self.lift(uci[2:4])
        elif piece == 1 and (f & 7) != (t & 7):  # en passant: the pawn beside
            self.lift(uci[2] + uci[1])
        self.place(uci[2:4])
        if piece == 6 and abs((f & 7) - (t & 7)) == 2:  # castling: the rook follows
            rf, rt = (t + 1, t - 1) if t > f else (t - 2, t + 1)
            self.vm.lift(rf)
            self.run(60)
            self.vm.place(rt)
            self.run(60)
        self.run(settle)

    # -- the wire ------------------------------------------------------------------------

    def send(self, text):
        self.link.feed(text)

    def lines(self):
        text = "".join(self.out)
        del self.out[:]
        assert text == "" or text.endswith("\n")
        return text.splitlines()

    def ask(self, text):
        self.out.clear()
        self.send(text + "\n")
        return self.lines()

    @property
    def game(self):
        return self.app.referee.game


def frame_squares(rig, signal):
    return sorted(i for i in range(64) if rig.app.frame[i] == signal)


# ---------------------------------------------------------------------- board extensions


def test_board_shows_the_switches_and_where_they_differ():
    rig = Rig()
    got = rig.ask("board")
    assert got[0] == "board 10"
    assert got[1] == "8 X X X X X X X X" and got[5] == "4 . . . . . . . ." and got[8] == "1 X X X X X X X X"
    assert got[9] == "  a b c d e f g h"
    assert got[10] == "32 occupied; differs from the game at: none"
    rig.lift("b1", 400)  # a piece knocked off on white's turn ... and a stray one on e4
    rig.place("e4", 400)
    got = rig.ask("board")
    assert got[8] == "1 X . X X X X X X" and got[5] == "4 . . . . X . . ."
    assert got[10] == "32 occupied; differs from the game at: b1 e4"


def test_help_is_framed_with_its_line_count():
    rig = Rig()
    got = rig.ask("help")
    assert got[0] == "help %d" % len(HELP)
    assert got[1:] == list(HELP)
    assert all(len(x) <= MAX_LINE for x in got)


def test_status_fen_and_pgn():
    rig = Rig()
    rig.play("e2e4")
    rig.lines()
    assert rig.ask("status") == [
        "status phase=play mode=strict turn=b moves=1 result=* reason=- check=no error=none round=off remote=-"
    ]
    assert rig.ask("fen") == ["fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
    got = rig.ask("pgn")
    n = int(got[0].split()[1])
    assert got[0] == "pgn %d" % n and len(got) == n + 1
    assert got[1] == '[Event "Casual game"]'
    assert got[-1] == "1. e4 *"
    assert "" in got  # the blank line between tags and moves counts as a line


def test_mode_query_set_and_saved():
    rig = Rig()
    assert rig.ask("mode") == ["mode strict"]
    assert rig.ask("mode casual") == ["mode casual"]
    assert rig.app.referee.mode == "casual"
    assert GameStore("game.sav", rig.flash).load()[2] == "casual"
    assert rig.ask("mode sloppy") == ["err mode must be strict or casual"]
    assert rig.app.referee.mode == "casual"


def test_new_game_and_new_from_fen():
    rig = Rig()
    rig.play("e2e4")
    rig.lines()
    assert rig.ask("new") == ["ok"]
    assert rig.game.moves == [] and rig.app.referee.phase == 1  # SETUP: e4 must go back to e2
    rig.run(10)
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("e2")]
    assert frame_squares(rig, S.REMOVE) == [parse_square("e4")]
    before = rig.game.fen()
    got = rig.ask("new 8/8/8/8/8/8/8/8 w - - 0 1")
    assert len(got) == 1 and got[0].startswith("err new: FEN has 0 white kings")
    assert rig.game.fen() == before
    assert rig.ask("new 4k3/8/8/8/8/8/8/4K3 w") == ["ok"]
    assert rig.game.fen() == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_promotion_choice_from_the_pc():
    rig = Rig(occupied=[parse_square(s) for s in ("e1", "a7", "h7", "h8")])
    rig.send("new 7k/P6p/8/8/8/8/8/4K3 w\n")
    rig.run(300)
    rig.lines()
    assert rig.ask("promote n") == ["err promote: no promotion to change (only right after a pawn promoted)"]
    rig.play("a7a8")
    assert rig.lines() == ["move a7a8q"]
    assert rig.ask("promote n") == ["ok"]
    rig.run(20)
    assert rig.lines() == ["promote a7a8n"]
    assert rig.game.uci_moves() == ["a7a8n"]
    assert rig.ask("promote x") == ["err promote needs q, r, b or n"]


# ---------------------------------------------------------------------- bad input


def test_unknown_commands_and_malformed_lines_change_nothing():
    rig = Rig()
    rig.play("e2e4")
    rig.lines()
    saves = rig.flash.ops
    fen = rig.game.fen()
    for line, reply in (
        ("hello", "err unknown command: hello (try help)"),
        ("BEGIN " + STARTING_FEN, "err unknown command: BEGIN (try help)"),
        ("begin", "err begin needs a FEN"),
        ("begin rnbqkbnr/pppppppp/8/8", None),
        ("move e2e4", "err move: no round (send begin FEN first)"),
        ("ok", "err ok: no move, undo or draw offer is waiting for an answer"),
        ("nok now", "err nok takes nothing after it"),
        ("check z9", "err check needs the king's square, e.g. e1"),
        ("side x", "err side must be w, b or ?"),
        ("last_move e2e4", "err not supported by this board (feature refused)"),
        ("promote a7a8x", "err promote needs q, r, b or n, or a UCI move such as a7a8n"),
        ("x" * 40, "err unknown command: xxxxxxxxxxxxxxxxxxxxx... (try help)"),
    ):
        got = rig.ask(line)
        assert len(got) == 1 and got[0].startswith("err "), (line, got)
        if reply:
            assert got[0] == reply
    assert rig.game.fen() == fen
    assert rig.flash.ops == saves  # nothing was saved: nothing changed
    assert not rig.link.round


def test_non_ascii_control_and_overlong_lines_get_one_error_each():
    rig = Rig()
    assert rig.ask("fen\xe9") == ["err non-ASCII byte 0xe9: line ignored"]
    rig.out.clear()
    rig.send(b"status \xff\xfe\xfd garbage\n")
    assert rig.lines() == ["err non-ASCII byte 0xff: line ignored"]
    rig.send(b"fen\x07\n")
    assert rig.lines() == ["err control byte 0x07: line ignored"]
    rig.send(b"x" * MAX_LINE + b"\n")  # exactly the limit: an ordinary (unknown) command
    assert rig.lines() == ["err unknown command: xxxxxxxxxxxxxxxxxxxxx... (try help)"]
    rig.send(b"fen " + b"y" * 1000)  # overlong, in pieces, then its end
    rig.send(b"z" * 1000)
    rig.send(b"\r\nfen\n")
    assert rig.lines() == ["err line longer than %d bytes: line ignored" % MAX_LINE, "fen " + STARTING_FEN]
    assert rig.link.errors == 5


def test_empty_lines_are_ignored_and_every_line_end_works():
    rig = Rig()
    rig.send("\n\r\n\r\r\n   \n")
    assert rig.lines() == []
    for end in ("\n", "\r\n", "\r"):
        rig.send("mode" + end)
        assert rig.lines() == ["mode strict"]
    # "\r" then "\n" in separate chunks is still one line end.
    rig.send("mode\r")
    rig.send("\nmode\n")
    assert rig.lines() == ["mode strict", "mode strict"]


def test_an_exception_in_a_command_is_an_error_line(monkeypatch):
    rig = Rig()

    def broken(self, rest):
        raise RuntimeError("boom")

    monkeypatch.setitem(__import__("link")._COMMANDS, "fen", broken)
    assert rig.ask("fen") == ["err internal error: RuntimeError('boom')"]
    assert rig.ask("mode") == ["mode strict"]  # and the link carries on


SCRIPT = (
    "feature msg\r\n"
    "feature time\n"
    "status\n"
    "bogus \xff\n"
    "mode casual\r"
    "\n"
    "help\n"
    + "q" * 300
    + "\n"
    "fen\n"
    "variant chess_960\n"
    "get_state\n"
).encode("latin-1")


def run_script(chunks):
    rig = Rig(store=False)
    for chunk in chunks:
        rig.link.feed(chunk)
    return rig.lines(), rig.app.referee.mode


def test_input_split_at_every_byte_boundary_gives_the_same_answers():
    whole, mode = run_script([SCRIPT])
    assert mode == "casual"
    assert whole[:3] == ["ok", "nok", whole[2]] and whole[2].startswith("status ")
    assert "err non-ASCII byte 0xff: line ignored" in whole
    assert "err line longer than 128 bytes: line ignored" in whole
    assert whole[-1] == "state " + START_PLACEMENT
    for i in range(len(SCRIPT) + 1):
        assert run_script([SCRIPT[:i], SCRIPT[i:]]) == (whole, "casual"), i
    assert run_script([SCRIPT[i : i + 1] for i in range(len(SCRIPT))]) == (whole, "casual")
    # And as str chunks (what a text stream gives).
    text = SCRIPT.decode("latin-1")
    assert run_script([text[:7], text[7:100], text[100:]]) == (whole, "casual")


# ---------------------------------------------------------------------- the live stream


def test_outside_a_round_the_board_streams_its_events():
    rig = Rig(mode="casual")  # in strict mode the d-pawn, held that long, would have to move
    rig.play("e2e4")
    assert rig.lines() == ["move e2e4"]
    rig.lift("d7")
    rig.place("d4", ms=600)  # d7-d4 is no move: an illegal move, said once (App's console repeat dropped)
    assert rig.lines() == ["error illegal d7 d4"]
    rig.lift("d4")
    rig.place("d7", ms=400)
    assert rig.lines() == []
    rig.play("e7e5")
    assert rig.lines() == ["move e7e5"]


def test_console_messages_become_msg_lines():
    rig = Rig()
    rig.link.info("hello \u00e9")
    assert rig.lines() == ["msg hello ?"]


# ---------------------------------------------------------------------- CPP


def test_feature_and_variant_negotiation():
    rig = Rig()
    for name in ("msg", "last_move", "check", "side", "resign", "draw_offer", "get_state", "undo", "time", "score"):
        expected = "nok" if name in ("last_move", "time", "score") else "ok"
        assert rig.ask("feature " + name) == [expected], name
    assert rig.link.features == ["msg", "check", "side", "resign", "draw_offer", "get_state", "undo"]
    assert rig.ask("variant standard") == ["ok"]
    assert rig.ask("variant chess_960") == ["nok"]
    assert rig.ask("set_variant standard") == ["ok"]
    assert rig.ask("side w") == [] and rig.link.side == "w"
    assert rig.ask("check e1") == []
    assert rig.ask("msg Hello peripheral") == []
    assert rig.ask("err something on the app") == []
    assert rig.ask("get_state") == ["state " + START_PLACEMENT]


def test_full_cpp_session():
    # The board as the CPP README's example finds it: the a-pawn on a3 instead of a2.
    start = [sq for sq in list(range(16)) + list(range(48, 64)) if sq != parse_square("a2")]
    rig = Rig(occupied=start + [parse_square("a3")])
    rig.lines()
    assert rig.ask("feature msg") == ["ok"]
    assert rig.ask("feature undo") == ["ok"]
    assert rig.ask("side w") == []

    # begin -> unsync: the piece on a3 is unknown to the game ("?"), a2 is empty.
    assert rig.ask("begin " + START_PLACEMENT + " w") == [
        "unsync rnbqkbnr/pppppppp/8/8/8/?7/1PPPPPPP/RNBQKBNR w"
    ]
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("a2")]
    assert frame_squares(rig, S.REMOVE) == [parse_square("a3")]
    # state until it matches, then sync.
    rig.lift("a3")
    assert rig.lines() == ["state rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR"]
    rig.place("a2", ms=400)
    assert rig.lines() == ["state " + START_PLACEMENT, "sync " + START_PLACEMENT + " w"]
    assert rig.ask("status")[0].endswith("round=sync remote=-")

    # A move made on the board goes to the central, which accepts it.
    rig.play("e2e4")
    assert rig.lines() == ["move e2e4"]
    assert rig.ask("ok") == []
    # A move from the central is shown from and to until the player makes it; nothing is echoed.
    assert rig.ask("move e7e5") == []
    rig.run(10)
    assert frame_squares(rig, S.REMOTE_MOVE) == [parse_square("e5"), parse_square("e7")]
    rig.play("e7e5")
    assert rig.lines() == []
    assert frame_squares(rig, S.REMOTE_MOVE) == []
    assert rig.game.uci_moves() == ["e2e4", "e7e5"]

    # A move the central refuses: the LEDs guide the knight back, unsync/state/sync report it.
    rig.play("g1f3")
    assert rig.lines() == ["move g1f3"]
    assert rig.ask("nok") == []
    rig.run(10)
    assert rig.lines() == ["unsync rnbqkbnr/pppp1ppp/8/4p3/4P3/5?2/PPPP1PPP/RNBQKB1R w"]
    assert rig.game.uci_moves() == ["e2e4", "e7e5"]
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("g1")]
    rig.lift("f3")
    rig.place("g1", ms=400)
    assert rig.lines() == [
        "state rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKB1R",
        "state rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
        "sync rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w",
    ]

    # The player plays another move instead; the central answers with its own.
    rig.play("f1c4")
    assert rig.lines() == ["move f1c4"]
    rig.send("ok\nmove b8c6\n")
    rig.play("b8c6")
    rig.play("d1h5")
    assert rig.lines() == ["move d1h5"]
    rig.send("ok\nmove g8f6\n")
    rig.play("g8f6")
    rig.play("h5f7")  # mate
    assert rig.lines() == ["move h5f7"]
    assert rig.game.result == "1-0"
    assert rig.ask("ok") == []
    assert rig.ask("end checkmate") == []
    assert not rig.link.round
    # Knocked pieces after the round: the stream is back.
    rig.lift("a7", ms=500)
    assert rig.lines() == []  # the game is over: the board only waits for a new set-up
    assert rig.game.uci_moves() == ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]


def test_begin_when_the_board_already_matches_keeps_a_resumed_game():
    rig = Rig()
    rig.play("e2e4")
    rig.play("e7e5")
    rig.lines()
    fen = rig.game.fen()
    assert rig.ask("begin " + fen) == ["sync " + fen]
    assert rig.game.uci_moves() == ["e2e4", "e7e5"]  # the record goes on
    assert rig.link.round and rig.link._agreed == ["e2e4", "e7e5"]
    # The start position always begins a fresh record.
    assert rig.ask("begin " + STARTING_FEN)[0].startswith("unsync ")
    assert rig.game.moves == []


def test_begin_with_a_bad_fen_changes_nothing():
    rig = Rig()
    got = rig.ask("begin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w")
    assert len(got) == 1 and got[0].startswith("err begin: FEN rank 1")
    assert not rig.link.round
    assert rig.ask("begin a b c d e f g") == ["err begin needs a FEN"]


def test_central_move_checks_legality_and_waits_for_answers():
    rig = Rig()
    rig.ask("begin " + STARTING_FEN)
    assert rig.ask("move e2e5")[0] == "err move: illegal move e2e5 in " + STARTING_FEN
    assert rig.ask("move e2e4") == []
    assert rig.ask("move e7e5") == ["err move e7e5: the board is still waiting for e2e4"]
    rig.play("e2e4")
    assert rig.lines() == []
    rig.play("e7e5")
    assert rig.lines() == ["move e7e5"]
    assert rig.ask("move g1f3") == ["err move g1f3: the board is still waiting for an answer to move e7e5"]


def test_player_makes_a_different_move_than_the_central_sent():
    rig = Rig()
    rig.ask("begin " + STARTING_FEN)
    rig.ask("move d2d4")
    rig.play("e2e4")
    got = rig.lines()
    assert got[0] == "err the board played e2e4, the move to make was d2d4"
    assert got[1].startswith("unsync ")
    # The LEDs now guide to the position after d2d4: e4 back... and d2 to d4.
    assert rig.game.uci_moves() == ["d2d4"]
    assert frame_squares(rig, S.REMOVE) == [parse_square("d2"), parse_square("e4")]
    assert frame_squares(rig, S.PLACE_HERE) == [parse_square("e2"), parse_square("d4")]


def test_central_move_while_unsynced_moves_the_target():
    rig = Rig(occupied=list(range(15)) + list(range(48, 64)))  # h2 missing
    assert rig.ask("begin " + STARTING_FEN)[0].startswith("unsync ")
    assert rig.ask("move e2e4") == []  # CPP: the central may move while unsynchronised
    assert rig.game.uci_moves() == ["e2e4"]
    rig.place("h2")
    rig.lift("e2")
    rig.place("e4", ms=400)
    got = rig.lines()
    assert got[-1] == "sync rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def test_promotion_in_a_round():
    rig = Rig(occupied=[parse_square(s) for s in ("e1", "a7", "h8")])
    assert rig.ask("begin 7k/P7/8/8/8/8/8/4K3 w")[0] == "sync 7k/P7/8/8/8/8/8/4K3 w"
    rig.play("a7a8")
    assert rig.lines() == ["move a7a8q"]
    # The central chooses a knight instead (CPP "promote"): the board's game follows, silently.
    assert rig.ask("promote a7a8n") == []
    rig.run(20)
    assert rig.lines() == []
    assert rig.game.uci_moves() == ["a7a8n"] and rig.link._agreed == ["a7a8n"]


def test_promotion_tap_in_a_round_with_and_without_undo():
    for undo in (True, False):
        rig = Rig(occupied=[parse_square(s) for s in ("e1", "a7", "h8")])
        if undo:
            rig.ask("feature undo")
        rig.ask("begin 7k/P7/8/8/8/8/8/4K3 w")
        rig.play("a7a8")
        assert rig.ask("ok") == []
        rig.out.clear()
        rig.lift("a8", ms=40)  # a quick tap: the queen becomes a rook
        rig.place("a8", ms=300)
        if undo:
            assert rig.lines() == ["undo a7a8q", "move a7a8r"]
            assert rig.game.uci_moves() == ["a7a8r"]
            rig.send("ok\nok\n")
            assert rig.link._agreed == ["a7a8r"]
        else:
            # The central cannot take a move back: the queen it has stays.
            assert rig.lines() == []
            assert rig.game.uci_moves() == ["a7a8q"]


def test_undo_both_ways():
    rig = Rig(mode="casual")
    rig.ask("feature undo")
    rig.ask("begin " + STARTING_FEN)
    rig.play("e2e4")
    rig.send("ok\n")
    # The central takes a move back: the LEDs guide the pawn home.
    assert rig.ask("undo e7e5") == ["err undo e7e5: not the last move"]
    assert rig.ask("undo e2e4") == []
    assert rig.game.moves == []
    rig.run(10)
    assert rig.lines()[0].startswith("unsync ")
    rig.lift("e4")
    rig.place("e2", ms=400)
    assert rig.lines()[-1] == "sync " + STARTING_FEN
    # The player takes a move back on the board (casual mode): the central is asked.
    rig.play("d2d4")
    rig.send("ok\n")
    rig.lines()
    rig.lift("d4")
    rig.place("d2", ms=400)
    assert rig.lines() == ["undo d2d4"]
    assert rig.ask("nok") == []  # refused: the pawn must go back to d4
    assert rig.game.uci_moves() == ["d2d4"]
    rig.run(10)
    assert rig.lines()[0].startswith("unsync ")
    # A central move shown but not yet made can be taken back too.
    rig.lift("d2")
    rig.place("d4", ms=400)
    rig.lines()
    rig.ask("move d7d5")
    assert rig.ask("undo d7d5") == []
    rig.run(10)
    assert frame_squares(rig, S.REMOTE_MOVE) == []


def test_takeback_without_the_undo_feature_is_put_back():
    rig = Rig(mode="casual")
    rig.ask("begin " + STARTING_FEN)
    rig.play("e2e4")
    rig.send("ok\n")
    rig.lift("e4")
    rig.place("e2", ms=400)
    got = rig.lines()
    assert "undo e2e4" not in got
    assert rig.game.uci_moves() == ["e2e4"]  # the LEDs ask for the pawn on e4 again
    assert got[-1].startswith("unsync ")


def test_resign_with_the_kings():
    for feature in (True, False):
        rig = Rig()
        if feature:
            rig.ask("feature resign")
        rig.ask("begin " + STARTING_FEN)
        # Both kings on the light centre squares (d5, e4): black resigns (DGT convention).
        rig.lift("e1")
        rig.place("e4")
        rig.lift("e8")
        rig.place("d5", ms=800)
        got = rig.lines()
        if feature:
            assert got == ["resign"]
            assert rig.game.result == "1-0"
        else:
            assert got[0].startswith("unsync ")
            assert rig.game.result == "*"


def test_draw_offers_both_ways():
    rig = Rig()
    rig.ask("feature draw_offer")
    rig.ask("begin " + STARTING_FEN)
    # The central offers; a move on the board declines.
    assert rig.ask("draw_offer") == []
    rig.play("e2e4")
    assert rig.lines() == ["nok", "move e2e4"]
    rig.send("ok\n")
    # The board offers (kings on one light and one dark centre square); the central refuses.
    rig.lift("e1")
    rig.place("d4")  # d4 dark, d5 light: the draw sign
    rig.lift("e8")
    rig.place("d5", ms=800)
    assert rig.lines() == ["draw_offer"]
    assert rig.game.result == "1/2-1/2"
    assert rig.ask("nok") == []
    assert rig.game.result == "*"
    rig.run(10)
    assert rig.lines()[0].startswith("unsync ")
    rig.lift("d4")
    rig.place("e1")
    rig.lift("d5")
    rig.place("e8", ms=400)
    assert rig.lines()[-1].startswith("sync ")
    # The central offers and the player accepts with the kings.
    assert rig.ask("draw_offer") == []
    rig.lift("e1")
    rig.place("d4")
    rig.lift("e8")
    rig.place("d5", ms=800)
    assert rig.lines() == ["ok"]
    assert (rig.game.result, rig.game.reason) == ("1/2-1/2", "agreement")


def test_error_during_a_round_is_unsync_and_msg():
    rig = Rig()
    rig.ask("feature msg")
    rig.ask("begin " + STARTING_FEN)
    rig.lift("d2")
    rig.place("d5", ms=600)
    assert rig.lines() == [
        "unsync rnbqkbnr/pppppppp/8/3?4/8/8/PPP1PPPP/RNBQKBNR w KQkq - 0 1",
        "msg error illegal d2 d5",
    ]
    # Finishing a legal move instead brings the board back in step: sync, then the move.
    rig.lift("d5")
    rig.place("d4", ms=400)
    assert rig.lines()[-2:] == ["sync " + STARTING_FEN, "move d2d4"]


def test_new_game_set_up_during_a_round_ends_it():
    rig = Rig()
    rig.ask("begin " + STARTING_FEN)
    rig.play("e2e4")
    rig.send("ok\n")
    rig.lift("e4")
    rig.place("e2", ms=600)
    got = rig.lines()
    assert got[-1] == "err new game set up on the board: round ended, send begin to play on"
    assert not rig.link.round


def test_draw_offer_outside_a_round_is_refused():
    rig = Rig()
    assert rig.ask("draw_offer") == ["nok"]


def test_the_game_from_begin_is_saved():
    rig = Rig()
    rig.ask("begin 4k3/8/8/8/8/8/8/4K3 w")
    assert GameStore("game.sav", rig.flash).load()[0] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_rook_first_castling_in_casual_mode():
    for undo in (True, False):
        rig = Rig(mode="casual")
        if undo:
            rig.ask("feature undo")
        rig.ask("begin " + STARTING_FEN)
        for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"):
            rig.play(uci)  # one player at the board makes both sides' moves (CPP side "?")
            rig.send("ok\n")
        assert rig.lines() == ["move e2e4", "move e7e5", "move g1f3", "move b8c6", "move f1c4", "move g8f6"]
        rig.play("h1f1")  # the rook first: a rook move, sent as such
        assert rig.lines() == ["move h1f1"]
        rig.send("ok\n")
        rig.lift("e1")
        rig.place("g1", ms=400)  # the king follows: it was castling
        got = rig.lines()
        if undo:
            assert got == ["undo h1f1", "move e1g1"]
            rig.send("ok\nok\n")
            assert rig.link._agreed[-1] == "e1g1" and rig.game.uci_moves()[-1] == "e1g1"
        else:
            # The app cannot take the rook move back: the king is guided home again.
            assert got[0].startswith("unsync ")
            assert rig.game.uci_moves()[-1] == "h1f1"
            assert frame_squares(rig, S.PLACE_HERE) == [parse_square("e1")]
        assert rig.link.errors == 0
