# Tests of firmware/link/: framing, the choice of dialect and the board's own commands, on an App
# built on fakes (CPP: test_cpp.py; ChessLink: test_chesslink.py; both use the Rig below).
#
# Each test is a transcript: what the PC sends, what the hands do on the virtual reed matrix, and
# the lines the board must answer with. The clock advances in 5 ms scans, as on the Pico.
import config
import pytest
from app import App
from core.position import STARTING_FEN, parse_square
from core import signals as S
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from link.commands import HELP
from link.link import MAX_LINE, Link
from store import GameStore
from test_store_portable import FakeFlash

START_PLACEMENT = STARTING_FEN.split()[0]


class Rig:
    """A board on fakes with its USB link; out collects what the link wrote. dgt: the link takes
    DGT hosts as the USB port does (main.py)."""

    def __init__(self, occupied=None, store=True, mode="strict", dgt=False):
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
        self.link = Link(self.app, self.out.append, lambda data: self.out.append(bytes(data)), dgt=dgt)
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
        text = "".join(x if isinstance(x, str) else x.decode("latin-1") for x in self.out)
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
    assert rig.ask("new " + STARTING_FEN + " extra") == ["err new: a FEN has at most 6 fields, got 7"]
    assert rig.game.fen() == before
    assert rig.ask("new 4k3/8/8/8/8/8/8/4K3 w") == ["ok"]
    assert rig.game.fen() == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


@pytest.mark.parametrize(
    "fen",
    [
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",  # over as it is given (no mating material): still the game
    ],
)
def test_new_fen_is_the_game_until_the_pieces_are_set_up_to_it(fen):
    # Issue 29: on a board standing on the start position, `new FEN` answered ok, and then the start
    # position on the squares started a new game: `new`, and `fen` gave the start position.
    rig = Rig()
    assert rig.ask("new " + fen) == ["ok"]
    rig.run(1000)
    assert rig.lines() == []
    assert rig.ask("fen") == ["fen " + fen]


def test_new_fen_survives_the_hands_passing_the_start_position():
    rig = Rig()
    rig.play("e2e4")
    rig.lines()
    fen = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"
    assert rig.ask("new " + fen) == ["ok"]
    rig.lift("e4")
    rig.place("e2", 1000)  # the start position, for a second, on the hands' way
    rig.lift("d2")
    rig.place("d4", 500)
    assert rig.lines() == []
    assert rig.ask("fen") == ["fen " + fen]
    rig.play("g8f6")
    assert rig.lines()[0] == "move g8f6"
    # Once the FEN's position has stood on the board, the start position set up is a new game again.
    for uci in ("f6g8", "d4d2"):
        rig.lift(uci[:2])
        rig.place(uci[2:], 100)
    rig.run(500)
    assert "new" in rig.lines()
    assert rig.ask("fen") == ["fen " + STARTING_FEN]


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
    assert rig.lines() == ["promote a7a8n", "msg the pawn on a8 becomes a knight"]
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
    assert not rig.link.sessions["cpp"].round


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

    import link.commands

    rows = tuple((row[0], broken, row[2], row[3]) if row[0] == "fen" else row for row in link.commands.COMMANDS)
    monkeypatch.setattr(link.commands, "COMMANDS", rows)
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
    assert whole[:3] == ["ok", "ok", whole[2]] and whole[2].startswith("status ")
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


def test_the_board_says_nothing_until_the_pc_speaks():
    rig = Rig()
    rig.link.info("chessboard ready; type help for the commands")
    rig.play("e2e4")
    assert rig.lines() == []  # a CPP app opening the port must not read this as an answer
    assert rig.ask("fen") == ["msg chessboard ready; type help for the commands", "fen " + rig.game.fen()]
    rig.play("e7e5")
    assert rig.lines() == ["move e7e5"]  # a board command chose the board's dialect: events stream


def test_outside_a_round_the_board_streams_its_events():
    rig = Rig(mode="casual")  # in strict mode the d-pawn, held that long, would have to move
    rig.ask("status")  # the board's own dialect
    rig.play("e2e4")
    assert rig.lines() == ["move e2e4"]
    rig.lift("d7")
    rig.place("d4", ms=600)  # d7-d4 is no move: an illegal move, said once (App's console repeat dropped)
    # The machine line, then the same in plain words for a person at the console (core/messages.py).
    assert rig.lines() == ["error illegal d7 d4", "msg the pawn on d7 cannot go to d4: put it back on d7"]
    rig.lift("d4")
    rig.place("d7", ms=400)
    assert rig.lines() == []
    rig.play("e7e5")
    assert rig.lines() == ["move e7e5"]


def test_console_messages_become_msg_lines():
    rig = Rig()
    rig.ask("mode")
    rig.link.info("hello \u00e9")
    assert rig.lines() == ["msg hello ?"]


# ---------------------------------------------------------------------- dialects


def test_a_cpp_command_makes_the_board_quiet_outside_a_round():
    rig = Rig()
    rig.ask("mode")  # the board's own commands first: events stream ...
    rig.play("e2e4")
    assert rig.lines() == ["move e2e4"]
    assert rig.ask("feature msg") == ["ok"]  # ... until a CPP app speaks
    rig.play("e7e5")
    rig.link.info("a message for a person")
    assert rig.lines() == []
    assert rig.link.dialect == "cpp"
    # Board queries answer in any dialect and leave it as it is; a board command that changes
    # the game brings the board's dialect back.
    assert rig.ask("fen")[0].startswith("fen ")
    assert rig.link.dialect == "cpp"
    assert rig.ask("new") == ["ok"]
    assert rig.link.dialect == "board"


def test_a_chesslink_message_starts_chesslink_and_new_leaves_it():
    rig = Rig()
    rig.send(b"V56")  # V and its block check: ChessLink, no line end
    assert rig.out == [b"v010374"]  # as a Millennium answered in python-mchess's log
    assert rig.link.dialect == "chesslink"
    rig.out.clear()
    rig.send("status\n")
    assert rig.lines()[0].startswith("status ")
    assert rig.link.dialect == "chesslink"  # a query: answered, ChessLink stays
    assert rig.ask("mode casual") == ["mode casual"]
    assert rig.link.dialect == "chesslink"
    assert rig.ask("new") == ["ok"]
    assert rig.link.dialect == "board"


@pytest.mark.parametrize("first", ["Help", "Zebra"])
def test_upper_case_text_that_is_no_chesslink_command_is_a_line(first):
    rig = Rig()
    assert rig.ask(first) == ["err unknown command: %s (try help)" % first]
