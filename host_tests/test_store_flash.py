"""The saved game on a real littlefs with the Pico's geometry and settings (littlefs-python, through
host_tests/helpers/lfs_flash.py): what a game's saves cost the flash in erases and programs, that
none of them comes while a hand holds a piece up, and that a power cut at any one erase or program
of a game's saves loses no ply the pieces cannot give back.

Random legal games (python-chess) are played by hands on a virtual reed matrix read by the real
scanner, through App.step() every 5 ms, so the saves come when the firmware makes them: the hands
lift a piece, hold it 0.15-0.7 s, put it down; captures either piece first, castling king first,
en passant's victim taken off last, under-promotions chosen by taps; between moves a player
thinks 0.3-2.5 s, and one reply in five comes within 190 ms of the move before (the lift then
commits that move while the piece is in the air). The test prints the figures docs/figures.md
records."""
import random

import chess
import pytest

import config
import lfs_flash
from app import App
from core.game import Game
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from store import GameStore

# The king's destination when castling -> (rook from, rook to).
CASTLING_ROOK = {chess.G1: (chess.H1, chess.F1), chess.C1: (chess.A1, chess.D1), chess.G8: (chess.H8, chess.F8), chess.C8: (chess.A8, chess.D8)}
TAPS = {chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}
START = [sq for sq in range(64) if sq < 16 or sq >= 48]
# At most one sector erase per this many plies in a 100-ply game's saves: see
# test_a_100_ply_game_erases_a_sector_every_12_plies_at_most.
PLIES_PER_ERASE = 12


@pytest.fixture(scope="module")
def new_board():
    """A flash as a board's is at its first power-up: the firmware's files, no saved game."""
    flash = lfs_flash.Flash()
    lfs_flash.with_firmware(flash)
    return flash.image()


@pytest.fixture(scope="module")
def blank():
    """A flash as a board's is before a game: the firmware's files and the saved game of a new game
    (a board that played before; at its very first power-up a board has none, and the first move's
    save cut off is a ply the pieces cannot give back: power-up reads a move from a saved game only)."""
    flash = lfs_flash.Flash()
    GameStore("game.sav", lfs_flash.LfsFiles(lfs_flash.with_firmware(flash))).save(Game(), "strict")
    flash.erases = flash.programs = flash.ops = 0
    flash.log = []
    return flash.image()


def random_game(seed, plies):
    """`plies` random legal moves that do not end the game, promotions and captures often."""
    rng = random.Random(seed)
    board = chess.Board()
    moves = []
    while len(moves) < plies:
        legal = list(board.legal_moves)
        special = [m for m in legal if m.promotion or board.is_capture(m) or board.is_castling(m)]
        move = rng.choice(special if special and rng.random() < 0.4 else legal)
        board.push(move)
        if board.is_game_over(claim_draw=False):
            board.pop()
            continue
        moves.append(move)
    return moves


class Table:
    """A board whose flash is `flash` (lfs_flash.Flash) and whose pieces stand on `occupied`,
    switched on at `t` ms: App, the store on littlefs, the hands' clock."""

    def __init__(self, flash, occupied=START, t=0, settings=None):
        self.flash = flash
        self.files = lfs_flash.LfsFiles(lfs_flash.mount(flash))
        self.vm = VirtualReedMatrix()
        for sq in occupied:
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.said = []
        self.app = App(settings or config.Settings(), scanner, TextLeds(), GameStore("game.sav", self.files), self.said.append)
        self.t = t
        self.holding = False  # a hand holds a piece up that it will put down on a square
        self.in_air = []  # (ms, "erase"/"program") of the flash writes while it did
        self.by_lift = set()  # plies committed while a hand held a piece up (the opponent's lift)
        flash.watch = self._watch
        self.app.listeners.append(self._event)
        self.vm.now_ms = t
        self.app.start(t)

    def _event(self, ev):
        if ev[0] == "move" and self.holding:
            self.by_lift.add(self.app.referee.game.ply())

    def _watch(self, op):
        if self.holding:
            self.in_air.append((self.t, op))

    def run(self, ms):
        """Scan every 5 ms for `ms`, or until the power goes."""
        end = self.t + ms
        while self.t < end and not self.flash.dead:
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)

    def up(self, sq):
        if not self.flash.dead:  # with the power gone the test stops the hands too
            self.holding = True
            self.vm.lift(sq)

    def down(self, sq):
        if not self.flash.dead:
            self.vm.place(sq)
            self.holding = False

    def off(self, sq):
        """A captured piece taken off the board (it goes to the side: not a piece in the air)."""
        if not self.flash.dead:
            self.vm.lift(sq)

    def moves(self):
        return self.app.referee.game.uci_moves()


def play(table, board, move, rng):
    """The hands make `move` (python-chess) on the table; board: the position before it."""
    a, b = move.from_square, move.to_square

    def hold():
        table.run(rng.randint(150, 700))

    if board.is_castling(move):
        rook_from, rook_to = CASTLING_ROOK[b]
        table.up(a), hold(), table.down(b)
        table.run(rng.randint(60, 300))
        table.up(rook_from), hold(), table.down(rook_to)
    elif board.is_en_passant(move):
        table.up(a), hold(), table.down(b)
        table.run(rng.randint(100, 400))
        table.off(chess.square(chess.square_file(b), chess.square_rank(a)))
    elif board.is_capture(move):
        if rng.random() < 0.5:
            table.up(b), hold(), table.up(a), hold()  # the victim first
        else:
            table.up(a), hold(), table.up(b), table.run(rng.randint(60, 300))
        table.down(b)
    else:
        table.up(a), hold(), table.down(b)
    for _ in range(TAPS.get(move.promotion, 0)):
        table.run(rng.randint(300, 700))
        table.up(b), table.run(rng.randint(150, 400)), table.down(b)


def play_game(table, moves, seed, think=(300, 2500)):
    """The hands play `moves` on `table` (from the start position) until they are done or the power
    goes; returns how many they made."""
    rng = random.Random(seed)
    board = chess.Board()
    for i, move in enumerate(moves):
        if table.flash.dead:
            return i
        quick = rng.random() < 0.2
        table.run(rng.randint(30, 190) if quick else rng.randint(*think))
        play(table, board, move, rng)
        board.push(move)
    table.run(1000)
    return len(moves)


def test_a_100_ply_game_erases_a_sector_every_12_plies_at_most(blank):
    # Where the erases come from: the journal commits one 256-byte page a ply into its directory's
    # 4 KB metadata block, and littlefs compacts the directory into the other block of its pair (one
    # erase) every 16 commits; the whole game written again when the journal is full (at about 55
    # plies) is a file of more than 512 bytes, whose data takes a block of its own (one erase);
    # the journal's directory is made once on a board (one erase). Issue 32's aim, one erase per
    # 20 plies, needs fewer commits than plies, and then two plies would be unsaved at a time: the
    # pieces can give back only one (docs/power-up.md).
    moves = random_game(7, 100)
    flash = lfs_flash.Flash(blank)
    table = Table(flash)
    play_game(table, moves, 7)
    assert table.moves() == [m.uci() for m in moves]
    assert table.said == ["resuming the saved game after 0 moves"], table.said
    assert table.in_air == [], "flash writes while a piece was in the air: %s" % table.in_air[:5]
    erases, programs = flash.counts()
    journal = table.files.written["game.sav.d/journal"]
    print("100-ply game, saves through the journal: %d erases, %d programs (%.2f and %.2f a ply); %d saves, %d bytes to the journal" % (
        erases, programs, erases / 100, programs / 100, table.app.store.writes, journal))
    assert erases * PLIES_PER_ERASE <= 100, (erases, programs)
    assert programs <= 110 and journal <= 5 * 100, (programs, journal)  # a page a ply; 4 bytes a ply and the headers
    # The game resumes from this flash whole.
    again = Table(lfs_flash.Flash(flash.image()), occupied=[sq for sq in range(64) if table.vm.occupied(sq)], t=table.t)
    assert again.moves() == table.moves() and again.said == ["resuming the saved game after 100 moves"], again.said


def test_the_same_game_written_whole_after_every_move_erased_far_more(blank):
    # The figure the journal is measured against: the saves as they were before it, the whole
    # game rewritten at each ply (GameStore.save).
    moves = random_game(7, 100)
    flash = lfs_flash.Flash(blank)
    store = GameStore("game.sav", lfs_flash.LfsFiles(lfs_flash.mount(flash)))
    game = Game()
    for move in moves:
        game.push_uci(move.uci())
        store.save(game, "strict")
    erases, programs = flash.counts()
    print("100-ply game, the whole game written at each ply: %d erases, %d programs (%.2f and %.2f a ply)" % (
        erases, programs, erases / 100, programs / 100))
    assert erases > 30


def test_a_game_with_a_clock_journals_its_times_too(new_board):
    moves = random_game(11, 100)
    flash = lfs_flash.Flash(new_board)
    settings = config.Settings().updated({"clock": "90+30"})
    table = Table(flash, settings=settings)
    play_game(table, moves, 11)
    assert table.moves() == [m.uci() for m in moves]
    assert table.in_air == [], table.in_air[:5]
    erases, programs = flash.counts()
    journal = table.files.written["game.sav.d/journal"]
    print("100-ply game with a clock, saves through the journal: %d erases, %d programs (%.2f and %.2f a ply); %d saves, %d bytes to the journal" % (
        erases, programs, erases / 100, programs / 100, table.app.store.writes, journal))
    assert erases <= 20 and journal <= 30 * 100, (erases, journal)
    # Switched off a second after the last move: the clock comes back as the last save left it,
    # each side's time when its turn began, the moves counted (the last turn's second is not saved).
    clock = table.app.referee.clock
    again = Table(lfs_flash.Flash(flash.image()), occupied=[sq for sq in range(64) if table.vm.occupied(sq)], t=table.t, settings=settings)
    assert again.moves() == table.moves()
    resumed = again.app.referee.clock
    assert (resumed.base, resumed.moves, resumed.side) == (clock.base, clock.moves, clock.side), again.said


def power_cuts(blank, plies, seed, done):
    """Play a game of `plies` with the power cut at each write of its saves in turn, `done` of that
    write done; after each cut switch the board on again with the pieces where they stood, and
    count what it came back with. Fails when the flash held less than the committed game but its
    last ply, or when power-up did not give that ply back although the pieces showed it."""
    moves = random_game(seed, plies)
    flash = lfs_flash.Flash(blank)
    play_game(Table(flash), moves, seed, think=(300, 900))
    writes = flash.ops
    outcomes = {"nothing lost": 0, "read again from the pieces": 0, "lost: committed by a lift, saved after the next move": 0}
    for n in range(1, writes + 1):
        flash = lfs_flash.Flash(blank)
        flash.cut_at = n
        flash.done = done
        table = Table(flash)
        play_game(table, moves, seed, think=(300, 900))
        assert flash.dead, "no write %d in the replay" % n
        committed = table.moves()
        pieces = [sq for sq in range(64) if table.vm.occupied(sq)]
        where = "cut at write %d of %d (%d%% of it done), %d plies committed" % (n, writes, done * 100, len(committed))
        again = Table(lfs_flash.Flash(flash.image()), occupied=pieces, t=table.t)
        saved = again.moves()
        assert not any("unreadable" in t or "does not replay" in t for t in again.said), (where, again.said)
        # The save's promise: the flash holds the committed game, or all of it but its last ply.
        # (A promotion chosen again by a tap whose save was cut off comes back as it was saved.)
        behind = saved != committed and not (saved and saved[:-1] == committed[:-1] and saved[-1][:4] == committed[-1][:4])
        assert not behind or saved == committed[:-1], (where, saved, committed)
        again.run(1500)
        if behind and any(t.startswith("the last move was not saved") for t in again.said):
            # Several captures fit the pieces: the player lifts the capturing piece where it
            # stands and puts it back (docs/power-up.md).
            to = chess.parse_square(committed[-1][2:4])
            again.up(to), again.run(300), again.down(to), again.run(1000)
        got = again.moves()
        if not behind:
            outcomes["nothing lost"] += 1
        elif got == committed:
            assert any(t.startswith("read the last move") for t in again.said), (where, again.said)
            outcomes["read again from the pieces"] += 1
        else:
            # The one case the pieces cannot give back: the opponent's lift committed the ply
            # (a reply within the commit delay), so its save waited for that piece to land: on a
            # new move, and the pieces stand two plies ahead of the flash (docs/saved-game.md).
            assert len(committed) in table.by_lift and got == saved, (where, got, committed, again.said)
            outcomes["lost: committed by a lift, saved after the next move"] += 1
    print("power cuts at each of the %d writes of a %d-ply game's saves (%d%% of the write done): %s" % (
        writes, plies, done * 100, outcomes))
    return outcomes


def test_a_power_cut_at_any_write_of_the_saves_loses_at_most_the_last_ply(blank):
    # The write cut off entirely: the ply being saved is not on the flash; the pieces show it.
    outcomes = power_cuts(blank, 40, 3, 0)
    assert outcomes["read again from the pieces"] >= 30, outcomes


def test_a_power_cut_in_the_middle_of_a_write_loses_at_most_the_last_ply(blank):
    # Half a page programmed, half a sector erased: littlefs finds the commit incomplete (its
    # checksum) and falls back to the one before, or had already finished it.
    outcomes = power_cuts(blank, 40, 5, 0.5)
    assert outcomes["nothing lost"] and outcomes["read again from the pieces"], outcomes
