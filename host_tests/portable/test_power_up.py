# Power-up with the saved game one ply behind the pieces (issue 25, docs/power-up.md): the board
# reads the move from the pieces, for every kind of move; two plies or a difference the rules
# refuse are guided back as before.
#
# Plain asserts only: runs under pytest, the MicroPython unix port and WebAssembly
# (host_tests/helpers/run_portable.py). The whole power-up path: a record written by store.GameStore on a
# file system in RAM, the pieces on a virtual reed matrix read by the real scanner, App.start()
# and App.step() every 5 ms scan as on the Pico, what the console says, the LED frame, and the
# record saved afterwards.
import gc

# On MicroPython the firmware's .py files compile at import (the Pico loads .mpy files instead):
# the plain words the App loads at its first power-up message compile here, before the boards of
# the tests below break the 320 kB heap into pieces too small for the compiler.
import core.messages  # noqa: F401

gc.collect()
# ... and the two biggest (the rules, the referee) one at a time, as test_transcripts.py does: the
# compiler's working memory for them is this module's peak.
import core.position  # noqa: E402,F401

gc.collect()
import core.referee  # noqa: E402,F401

gc.collect()
from hardware.fake import RamFiles, VirtualReedMatrix  # noqa: E402

gc.collect()
import config  # noqa: E402
from app import App  # noqa: E402
from core import signals as S  # noqa: E402
from core.game import Game  # noqa: E402
from core.position import parse_square  # noqa: E402
from hardware.leds import TextLeds  # noqa: E402
from hardware.matrix import MatrixScanner  # noqa: E402
from heap import can_count_bytes  # noqa: E402
from store import GameStore  # noqa: E402

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# The bishop on c4 can take on b5 or on f7 (with check): two captures leave the same squares.
TWO_VICTIMS = "4k3/5p2/8/1p6/2B5/8/8/4K3 w - - 0 1"


def occupancy(game):
    buf = bytearray(64)
    game.position.occupancy_into(buf)
    return buf


class PoweredBoard:
    """A board whose flash (files) and pieces (vm) outlive its power: each power-up is a new App."""

    def __init__(self, fen=START_FEN, saved=(), mode="strict"):
        self.files = RamFiles()
        game = Game(fen)
        for uci in saved:
            game.push_uci(uci)
        GameStore("game.sav", self.files).save(game, mode)
        self.vm = VirtualReedMatrix()
        self.vm.set_occupancy(occupancy(game))
        self.fen = fen
        self.saved = list(saved)
        self.app = None

    def move_pieces(self, moves):
        """The players move the pieces (while the board is off): only which squares hold one counts."""
        game = Game(self.fen)
        for uci in self.saved + list(moves):
            game.push_uci(uci)
        self.vm.set_occupancy(occupancy(game))

    def power_up(self, leds=None):
        self.said = []
        self.t = 0
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        leds = leds or TextLeds()
        self.app = App(config.Settings(), scanner, leds, GameStore("game.sav", self.files), self.said.append)
        self.app.start(0)
        return self.app

    def run(self, ms):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)

    def lift_and_put_back(self, name):
        sq = parse_square(name)
        self.vm.lift(sq)
        self.run(300)
        self.vm.place(sq)
        self.run(600)

    def moves(self):
        return self.app.referee.game.uci_moves()

    def saved_moves(self):
        return GameStore("game.sav", self.files).load()[1]


def read_from_the_board(saved, move, san, fen=START_FEN, mode="strict"):
    """The saved game is `saved`, the pieces stand one `move` further: the board takes the move,
    and names it as a player writes it (`san`)."""
    b = PoweredBoard(fen, saved, mode)
    b.move_pieces([move])
    b.power_up()
    b.run(2500 if len(move) == 5 else 1000)  # a promotion is saved after 2 s, for its taps (app.py)
    assert "read the last move, %s, from the board" % san in b.said, b.said
    assert b.moves() == list(saved) + [move], b.moves()
    assert b.saved_moves() == list(saved) + [move], "the move read was not saved"
    assert b.app.referee.error is None and b.app.referee.reading is None
    return b


def test_a_quiet_move():
    b = read_from_the_board([], "e2e4", "e4")
    assert b.said[0] == "resuming the saved game after 0 moves", b.said
    assert not any("set up the position" in t for t in b.said), b.said
    b = read_from_the_board([], "d2d4", "d4", mode="casual")  # the saved game's mode comes back with it
    assert b.app.referee.mode == "casual"


def test_a_capture_with_one_victim():
    read_from_the_board(["e2e4", "d7d5"], "e4d5", "exd5")


def test_en_passant():
    read_from_the_board(["e2e4", "a7a6", "e4e5", "d7d5"], "e5d6", "exd6")


def test_castling_king_side_and_queen_side():
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    read_from_the_board([], "e1g1", "O-O", fen)
    read_from_the_board(["e1g1"], "e8c8", "O-O-O", fen)


def test_a_promotion_takes_the_default_queen_and_a_tap_changes_it():
    b = read_from_the_board([], "e7e8q", "e8=Q", "8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    # The pawn's new piece is chosen by tapping it, as after any promotion (docs/spec.md section 3).
    assert b.app.referee.promotion_square == parse_square("e8")
    b.lift_and_put_back("e8")
    b.run(2500)
    assert b.moves() == ["e7e8r"], b.moves()
    assert b.saved_moves() == ["e7e8r"]


def test_a_move_giving_check():
    b = read_from_the_board([], "a1a8", "Ra8+", "7k/8/8/8/8/8/8/R5K1 w - - 0 1")
    assert b.app.referee.game.check
    assert b.app.frame[parse_square("h8")] == S.CHECK


def test_a_capture_with_two_victims_waits_for_the_players_gesture():
    b = PoweredBoard(TWO_VICTIMS)
    b.move_pieces(["c4f7"])
    b.power_up()
    b.run(2000)
    said = b.said
    assert (
        "the last move was not saved: the bishop from c4 took on b5 or f7; lift it where it stands "
        "and put it back (or set up the saved position again)" in said
    ), said
    assert b.moves() == [], "a capture was guessed"
    ref = b.app.referee
    assert ref.error is None
    frame = b.app.frame
    lit = [sq for sq in range(64) if frame[sq]]
    assert lit == [parse_square(n) for n in ("c4", "b5", "f7")], lit
    assert frame[parse_square("c4")] == S.LIFTED
    assert frame[parse_square("b5")] == S.CAPTURE and frame[parse_square("f7")] == S.CAPTURE
    # The player lifts the bishop where it stands, on f7, and puts it back.
    b.lift_and_put_back("f7")
    assert "read the last move, Bxf7+, from the board" in b.said, b.said
    assert b.moves() == ["c4f7"] and ref.game.check
    assert b.saved_moves() == ["c4f7"]


def test_two_victims_and_the_saved_position_set_up_again():
    b = PoweredBoard(TWO_VICTIMS)
    b.move_pieces(["c4b5"])
    b.power_up()
    b.run(500)
    # The player puts the bishop back on c4 (and the taken pawn back): the saved game plays on.
    b.vm.place(parse_square("c4"))
    b.run(1000)
    assert b.moves() == [] and b.app.referee.reading is None
    assert not any("read the last move" in t for t in b.said), b.said
    frame = b.app.frame
    assert [sq for sq in range(64) if frame[sq]] == [], "the LEDs still show the choice"
    # ... and the next move is an ordinary one.
    b.vm.lift(parse_square("c4"))
    b.run(50)
    b.vm.place(parse_square("d5"))
    b.run(600)
    assert b.moves() == ["c4d5"]


def test_a_board_switched_off_between_moves():
    # The game was saved after 1.e4; the board was switched off; Black answered 1...c5 meanwhile.
    b = PoweredBoard()
    b.power_up()
    b.vm.lift(parse_square("e2"))
    b.run(100)
    b.vm.place(parse_square("e4"))
    b.run(1000)
    assert b.saved_moves() == ["e2e4"]
    b.vm.lift(parse_square("c7"))  # the power is off: nothing scans these
    b.vm.place(parse_square("c5"))
    b.power_up()
    b.run(1000)
    assert "resuming the saved game after 1 moves" in b.said
    assert "read the last move, c5, from the board" in b.said, b.said
    assert b.moves() == ["e2e4", "c7c5"] and b.saved_moves() == ["e2e4", "c7c5"]


def test_a_power_cut_before_the_save():
    # The move is committed (200 ms still) and the power goes in that very scan, before the scan
    # after it saves the move (app.py): the flash still holds the game without it.
    b = PoweredBoard()
    b.power_up()
    b.vm.lift(parse_square("g1"))
    b.run(100)
    b.vm.place(parse_square("f3"))
    while b.moves() != ["g1f3"]:
        b.run(5)
    assert b.saved_moves() == []
    b.power_up()
    b.run(1000)
    assert "read the last move, Nf3, from the board" in b.said, b.said
    assert b.saved_moves() == ["g1f3"]


def test_the_scan_after_the_commit_saves_it():
    b = PoweredBoard()
    b.power_up()
    b.vm.lift(parse_square("g1"))
    b.run(100)
    b.vm.place(parse_square("f3"))
    while b.moves() != ["g1f3"]:
        b.run(5)
    b.run(5)
    assert b.saved_moves() == ["g1f3"]


def guided_back(saved, board_moves, fen=START_FEN):
    """Not one legal move ahead: the LEDs guide the pieces back to the saved game, as before."""
    b = PoweredBoard(fen, saved)
    b.move_pieces(board_moves)
    b.power_up()
    b.run(1500)
    assert not any("read the last move" in t or "not saved" in t for t in b.said), b.said
    assert "set up the position: the LEDs show where pieces must go" in b.said, b.said
    assert b.moves() == list(saved) and b.saved_moves() == list(saved)
    ref = b.app.referee
    assert ref.reading is None
    frame = b.app.frame
    for sq in ref.emptied:
        assert frame[sq] == S.PLACE_HERE
    for sq in ref.filled:
        assert frame[sq] == S.REMOVE
    return b


def test_two_plies_behind_are_guided_back():
    b = guided_back(["e2e4"], ["e7e5", "g1f3"])
    assert sorted(b.app.referee.emptied + b.app.referee.filled) == sorted(
        parse_square(n) for n in ("e7", "e5", "g1", "f3")
    )


def test_a_difference_the_rules_refuse_is_guided_back():
    # The e-pawn three squares ahead, and a black move with White to move: no legal move leaves
    # these squares.
    for frm, to in (("e2", "e5"), ("e7", "e5")):
        b = PoweredBoard()
        b.vm.lift(parse_square(frm))
        b.vm.place(parse_square(to))
        b.power_up()
        b.run(1500)
        assert not any("read the last move" in t for t in b.said), b.said
        assert "set up the position: the LEDs show where pieces must go" in b.said, b.said
        assert b.moves() == [] and b.app.referee.reading is None
        frame = b.app.frame
        assert frame[parse_square(frm)] == S.PLACE_HERE and frame[parse_square(to)] == S.REMOVE


def test_waiting_for_the_gesture_allocates_nothing_per_scan():
    # The scan loop stays allocation-free while the board waits for the player to pick a capture
    # (measured where the runtime can count: the MicroPython unix port).
    from hardware.fake import FakeNeoPixel
    from hardware.ws2812 import Ws2812Leds

    b = PoweredBoard(TWO_VICTIMS)
    b.move_pieces(["c4b5"])
    b.power_up(Ws2812Leds(FakeNeoPixel()))
    b.run(500)
    assert b.app.referee.reading is not None
    if not can_count_bytes():
        return  # CPython and WebAssembly: the behaviour above is what is checked there
    gc.collect()
    before = gc.mem_alloc()
    b.run(2000)  # 400 scans
    grew = gc.mem_alloc() - before
    assert grew == 0, "%d bytes allocated in 400 scans while waiting for the gesture" % grew
