# The board plays you (engine/opponent.py), played with hands on the virtual reed matrix through
# App: the two-kings gesture, the board's move lit until it is made, a wrong move refused and guided
# back, a hint, a takeback, the USB command, and the game against the engine resumed after a reboot.
import config
from app import App
from core import signals as S
from core.position import BLACK, WHITE, move_from, move_to, move_uci, parse_square
from engine.opponent import NODES_PER_STEP, TAKEBACK_PAUSE_MS
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from link.link import Link
from store import GameStore
from test_store_portable import FakeFlash

START = [sq for sq in range(64) if sq < 16 or sq >= 48]
PERIOD = 5


class Table:
    """A board on the table: the virtual matrix, the App and what it said, on a fake clock."""

    def __init__(self, mode="strict", store=None, occupied=START, **overrides):
        settings = config.Settings().updated(dict(mode=mode, **overrides))
        self.vm = VirtualReedMatrix()
        for sq in occupied:
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.said = []
        self.app = App(settings, scanner, TextLeds(), store, self.said.append)
        self.events = []
        self.app.listeners.append(self.events.append)
        self.t = 0
        self.app.start(0)
        self.frames = []

    @property
    def ref(self):
        return self.app.referee

    def wait(self, ms):
        end = self.t + ms
        while self.t < end:
            self.t += PERIOD
            self.vm.now_ms = self.t
            self.app.step(self.t)
            self.frames.append(bytes(self.app.frame))

    def hands(self, *actions, pause=400):
        """('lift'|'place', 'e2'), ... each followed by `pause` ms: a person's pace."""
        for kind, name in actions:
            getattr(self.vm, kind)(parse_square(name))
            self.wait(pause)

    def move(self, uci, pause=400):
        self.hands(("lift", uci[:2]), ("place", uci[2:4]), pause=pause)

    def play(self, uci):
        """A move as a person makes it: a capture lifts the attacker, then the victim."""
        if self.ref.game.position.piece_at(parse_square(uci[2:4])):
            self.hands(("lift", uci[:2]), ("lift", uci[2:4]), ("place", uci[2:4]))
        else:
            self.move(uci)

    def until_the_board_moves(self, limit_ms=60000):
        waited = 0
        while not self.ref.remote and waited < limit_ms:
            self.wait(PERIOD)
            waited += PERIOD
        assert self.ref.remote, "the engine showed no move"
        return move_uci(self.ref.remote)

    def moves(self):
        return [move_uci(ev[1]) for ev in self.events if ev[0] == "move"]

    def errors(self):
        return [ev for ev in self.events if ev[0] == "error"]


def choose(table, square):
    """The gesture: both kings up, one on `square`, both home."""
    table.hands(("lift", "e1"), ("lift", "e8"), ("place", square), ("place", "e1"), ("lift", square), ("place", "e8"))


def test_two_kings_gesture_picks_side_and_level_and_is_never_a_move():
    table = Table()
    table.hands(("lift", "e1"), ("lift", "e8"))
    menu = table.app.frame
    assert all(menu[sq] == S.QUIET for sq in range(16, 24)) and all(menu[sq] == S.QUIET for sq in range(40, 48))
    table.hands(("place", "b3"), ("place", "e1"), ("lift", "b3"), ("place", "e8"))
    opp = table.app.opponent
    assert (opp.colour, opp.level) == (BLACK, 2)  # b3: the player takes white, level 2
    assert table.moves() == [] and table.errors() == [] and table.ref.game.ply() == 0
    assert "the board plays black at level 2" in table.said
    # Rank 6 gives the player black: the board moves first.
    choose(table, "a6")
    assert (opp.colour, opp.level) == (WHITE, 1)
    first = table.until_the_board_moves()
    assert table.ref.game.ply() == 0 and table.ref.remote_required
    # Rank 4 or 5: two players again, the board's move is no longer lit.
    choose(table, "c4")
    assert opp.colour is None
    table.wait(200)
    assert not table.ref.remote and table.errors() == [], first


def test_the_board_s_move_is_lit_and_only_that_move_is_accepted():
    table = Table()
    choose(table, "a3")  # player white, level 1
    table.move("e2e4")
    reply = table.until_the_board_moves()
    m = table.ref.remote
    frame = table.app.frame
    assert frame[move_from(m)] == S.REMOTE_MOVE and frame[move_to(m)] == S.REMOTE_MOVE
    # Another black move: refused, shown as an error with the way back lit, never committed.
    wrong = "a7a6" if reply != "a7a6" else "h7h6"
    table.move(wrong, pause=600)
    assert table.moves() == ["e2e4"]
    assert table.errors() and table.errors()[-1][1] == "illegal"
    assert table.app.frame[parse_square(wrong[:2])] == S.PLACE_HERE
    assert table.app.frame[parse_square(wrong[2:])] in (S.ILLEGAL, S.REMOVE)  # the piece comes off there
    table.move(wrong[2:] + wrong[:2])  # put it back
    assert table.ref.error is None
    table.play(reply)
    assert table.moves() == ["e2e4", reply]
    assert not table.ref.remote and not table.ref.remote_required


def test_every_step_thinks_a_slice_only():
    """Without a clock the engine searches NODES_PER_STEP positions a step (a capture sequence at
    the horizon counts as one: quiescence runs in one call): the scan never waits long."""
    table = Table()
    choose(table, "h3")  # level 8: a minute a move
    table.move("d2d4")
    search = table.app.opponent.search
    calls = []
    run = search.run

    def counted(budget, clock=None, until=0):
        calls.append((budget, clock))
        return run(budget, clock, until)

    search.run = counted
    before = search.nodes
    most = 0
    for _ in range(50):
        n = search.nodes
        del calls[:]
        table.wait(PERIOD)
        assert calls == [(NODES_PER_STEP, None)] * (PERIOD // table.app.settings.scan_period_ms)
        most = max(most, search.nodes - n)
    assert search.nodes > before and not table.ref.remote
    assert most <= 16 * NODES_PER_STEP, most


def test_hint_in_casual_mode_and_a_takeback_the_engine_waits_for():
    table = Table(mode="casual")
    choose(table, "b3")
    table.hands(("lift", "e1"), ("lift", "e8"), ("place", "e1"), ("place", "e8"))
    hint = table.until_the_board_moves()
    assert not table.ref.remote_required and table.ref.game.ply() == 0
    assert "hint: " + hint in table.said
    # The player may play anything else; the hint goes out.
    other = "g1f3" if hint != "g1f3" else "b1c3"
    table.move(other)
    assert table.moves() == [other]
    reply = table.until_the_board_moves()
    table.play(reply)
    assert table.moves() == [other, reply]
    # Take back the board's move: the engine waits, so the player's own can go back too.
    table.move(reply[2:] + reply[:2])
    assert [ev[0] for ev in table.events].count("undo") == 1
    table.wait(TAKEBACK_PAUSE_MS // 2)
    assert not table.ref.remote
    table.move(other[2:] + other[:2])
    assert [ev[0] for ev in table.events].count("undo") == 2 and table.ref.game.ply() == 0
    table.wait(TAKEBACK_PAUSE_MS + 500)
    assert not table.ref.remote  # white (the player) to move: nothing to show


def test_strict_mode_has_no_hints():
    table = Table()
    choose(table, "b3")
    table.hands(("lift", "e1"), ("lift", "e8"), ("place", "e1"), ("place", "e8"))
    table.wait(1000)
    assert not table.ref.remote and table.errors() == []


def test_usb_command_and_board_json():
    table = Table(opponent="black", level=1)
    out = []
    link = Link(table.app, out.append)
    link.feed(b"engine\n")
    assert out[-1] == "engine plays=black level=1 state=waiting\n"
    link.feed(b"engine white 2\n")
    assert out[-1] == "engine plays=white level=2 state=waiting\n"
    table.wait(PERIOD)
    assert table.app.opponent.describe().endswith("state=thinking")
    link.feed(b"engine level 9\n")
    assert out[-1].startswith("err engine: level must be 1 to 8")
    link.feed(b"engine hint\n")
    assert out[-1].startswith("err engine: a hint needs casual mode")
    link.feed(b"engine off\n")
    assert out[-1] == "engine plays=none level=2 state=waiting\n"


def test_a_game_against_the_board_survives_a_power_cut():
    flash = FakeFlash()
    table = Table(store=GameStore("game.sav", flash))
    choose(table, "a3")
    table.move("e2e4")
    reply = table.until_the_board_moves()
    assert GameStore("game.sav", flash).load() is not None
    # Power cut while the board's move is lit; the pieces stay where they are.
    game = table.ref.game
    occupied = [sq for sq in range(64) if game.position.piece_at(sq)]
    again = Table(store=GameStore("game.sav", flash), occupied=occupied)
    assert again.ref.game.uci_moves() == ["e2e4"]
    assert (again.app.opponent.colour, again.app.opponent.level) == (BLACK, 1)
    assert again.until_the_board_moves() == reply  # level 1 is a fixed depth: the same move


def test_the_engine_waits_while_the_board_reads_its_move_from_the_pieces():
    # docs/power-up.md: the board (white, level 1) took on b5 or f7 with its bishop, the player
    # carried the move out, and the power went before the save. At power-up the board asks which;
    # its engine must not pick a move of its own meanwhile (only that one would be accepted).
    from core.game import Game

    fen = "4k3/5p2/8/1p6/2B5/8/8/4K3 w - - 0 1"
    flash = FakeFlash()
    store = GameStore("game.sav", flash)
    store.opponent = "white 1"
    store.save(Game(fen), "strict")
    occupied = [parse_square(n) for n in ("e8", "f7", "b5", "e1")]
    table = Table(store=GameStore("game.sav", flash), occupied=occupied)
    assert table.app.opponent.colour == WHITE
    table.wait(3000)
    assert any(t.startswith("the last move was not saved: the bishop from c4") for t in table.said), table.said
    assert table.ref.remote == 0 and table.app.opponent.thinking_steps == 0
    table.hands(("lift", "f7"), ("place", "f7"), pause=600)
    assert "read the last move, Bxf7+, from the board" in table.said
    assert table.ref.game.uci_moves() == ["c4f7"] and table.errors() == []


def test_a_saved_opponent_line_is_checked():
    import pytest
    from store import StoreError

    from core.game import Game

    flash = FakeFlash()
    store = GameStore("game.sav", flash)
    store.opponent = "purple 9"  # no firmware writes this: a hostile or damaged record
    store.save(Game(), "strict")
    with pytest.raises(StoreError, match="bad opponent line"):
        GameStore("game.sav", flash).resume()
    store.opponent = "white 4"
    store.save(Game(), "casual")
    again = GameStore("game.sav", flash)
    assert again.resume()[1] == "casual" and again.opponent == "white 4"
