# Portable tests of the saved game's journal (firmware/store.py): each change of the game appended
# as a few bytes, a power cut at any step of any append never losing more than that change, a
# journal cut short or damaged detected without losing what was written whole before it, and the
# saved games of the firmware before the journal still resumed.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
# The store is driven as App drives it (note() for each referee event, update() when the board is
# still), on test_store_portable.FakeFlash: worse than littlefs, whose commits are whole or absent.
from core.game import Game
from core.position import QUEEN, ROOK, with_promotion
from store import GameStore
from store_read import parse
from test_store_portable import FEN_2, GAME_1, PATH, FakeFlash, PowerCut, record, start_line

JOURNAL = PATH + ".d/journal"
# store.py's _JOURNAL_MAX (private there: a const MicroPython does not keep as a name)
JOURNAL_MAX = 224


def long_moves(plies, seed=7):
    """`plies` moves of a random legal game that never ends, by the firmware's own core (UCI)."""
    game = Game()
    while game.ply() < plies:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        legal = game.legal
        game.push(legal[seed % len(legal)])
        if game.is_over():
            game.pop()
            seed += 1
    return game.uci_moves()


def act(store, game, action, mode="strict"):
    """Make one change to `game` as the referee would and save it as App does."""
    kind = action[0]
    if kind == "move":
        store.note(("move", game.push_uci(action[1])))
    elif kind == "undo":
        store.note(("undo", game.pop()))
    elif kind == "promote":  # the promoted piece tapped: another piece
        m = with_promotion(game.pop(), action[1])
        game.push(m)
        store.note(("promote", m))
    elif kind == "castle":  # casual: the rook moved first, then the king: the rook's move taken back
        store.note(("undo", game.pop()))
        store.note(("move", game.push_uci(action[1])))
    store.update(game, mode)


def booted(flash):
    """A board switched on again: its store, the game it resumed (None when nothing was saved) and
    what it would tell the players."""
    flash.boot()
    store = GameStore(PATH, flash)
    got = store.resume()
    return (store, None, []) if got is None else (store, got[0], got[2])


def check_every_cut(actions, fen=None, mode="strict"):
    """Play `actions` from a new game saved whole; at each, cut the power at each step of its save
    in turn: the board must come back with the game before or after that change, never an older
    one, never an error. Returns how many cuts were tried."""
    flash = FakeFlash()
    game = Game(fen) if fen else Game()
    GameStore(PATH, flash).save(game, mode)
    cuts = 0
    for i in range(len(actions)):
        before = dict(flash.files)
        store, game, notes = booted(flash)
        moves_before = game.uci_moves()
        flash.ops = 0
        act(store, game, actions[i], mode)
        steps = flash.ops
        moves_after = game.uci_moves()
        after = dict(flash.files)
        for k in range(1, steps + 1):
            flash.files = dict(before)
            store, game, notes = booted(flash)
            flash.cut_at = flash.ops + k
            try:
                act(store, game, actions[i], mode)
                raise AssertionError("the save finished although the power was cut at its step %d" % k)
            except PowerCut:
                pass
            cuts += 1
            store, game, notes = booted(flash)
            got = game.uci_moves()
            assert got in (moves_before, moves_after), "cut at step %d (%s) of %r: %r" % (k, flash.last, actions[i], got)
        flash.files = after
        flash.boot()
        assert booted(flash)[1].uci_moves() == moves_after
    return cuts


def test_a_move_is_a_few_bytes_appended_to_the_journal():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    whole = flash.files[PATH]
    act(store, game, ("move", "e2e4"))
    assert flash.files[PATH] == whole  # the whole record stays as it was
    assert len(flash.files[JOURNAL]) == 8 + 4  # the header, then the move
    act(store, game, ("move", "e7e5"))
    assert len(flash.files[JOURNAL]) == 8 + 2 * 4
    assert booted(flash)[1].uci_moves() == ["e2e4", "e7e5"]


def test_power_cut_at_every_step_of_every_append():
    actions = [("move", m) for m in GAME_1]
    cuts = check_every_cut(actions)
    assert cuts >= 3 * len(actions)  # open, write, close: every one was cut


def test_takebacks_and_promotions_chosen_again_are_journaled_and_survive_cuts():
    # From a set-up position: a rook-first castling (the rook's move taken back and the castling made
    # in one save), a takeback, a promotion to a queen tapped into a rook, then a queen.
    actions = [("move", "a1d1"), ("castle", "e1c1"), ("undo",), ("move", "e1c1"), ("move", "e8g8"), ("move", "b7b8q"),
               ("promote", ROOK), ("promote", QUEEN), ("move", "g2g1q"), ("undo",), ("move", "g2g1n")]
    check_every_cut(actions, FEN_2, "casual")
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game(FEN_2)
    store.save(game, "casual")
    for a in actions:
        act(store, game, a, "casual")
    assert PATH + ".tmp" not in flash.files and store.writes == 1 + len(actions)
    flash.boot()
    game, mode, notes = GameStore(PATH, flash).resume()
    assert game.uci_moves() == ["e1c1", "e8g8", "b7b8q", "g2g1n"] and mode == "casual" and notes == []


def test_a_long_journal_is_written_whole_again():
    moves = long_moves(130)
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    rewrites = []
    for i in range(len(moves)):
        seq = store.seq
        act(store, game, ("move", moves[i]))
        assert len(flash.files.get(JOURNAL, b"")) <= JOURNAL_MAX
        if store.seq != seq:
            rewrites.append(i + 1)
            assert parse(flash.files[PATH])[3] == moves[: i + 1]  # the whole game, this move too
    assert len(rewrites) == 2 and rewrites[0] > 50, rewrites
    assert booted(flash)[1].uci_moves() == moves
    # A cut at each step of the appends around the rewrite, and of the rewrite itself.
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    first = rewrites[0] - 3
    for m in moves[:first]:
        act(store, game, ("move", m))
    base = Game()
    for m in moves[:first]:
        base.push_uci(m)
    rest = [("move", m) for m in moves[first : rewrites[0] + 3]]
    # check_every_cut starts from a whole record: start it from this flash instead.
    saved = dict(flash.files)
    cuts = 0
    for i in range(len(rest)):
        store, game, notes = booted(flash)
        before = game.uci_moves()
        flash.ops = 0
        act(store, game, rest[i])
        steps = flash.ops
        after_files = dict(flash.files)
        after = game.uci_moves()
        for k in range(1, steps + 1):
            flash.files = dict(saved)
            store, game, notes = booted(flash)
            flash.cut_at = flash.ops + k
            try:
                act(store, game, rest[i])
                raise AssertionError("not cut")
            except PowerCut:
                pass
            cuts += 1
            got = booted(flash)[1].uci_moves()
            assert got in (before, after), (i, k, flash.last)
        flash.files = after_files
        saved = dict(after_files)
    assert cuts > 6 * 4


def test_every_truncation_of_the_journal_keeps_the_records_before_it():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:10]:
        act(store, game, ("move", m))
    files = dict(flash.files)
    whole = files[JOURNAL]
    for n in range(len(whole)):
        flash.files = dict(files)
        flash.files[JOURNAL] = whole[:n]
        store, game, notes = booted(flash)
        plies = max(0, (n - 8) // 4)  # the header's 8 bytes, then 4 a move
        assert game.uci_moves() == GAME_1[:plies], (n, game.uci_moves())
        if n % 4 or 0 < n < 8:
            assert len(notes) == 1 and ("cut short" in notes[0] or "no whole header" in notes[0]), (n, notes)
        else:
            assert notes == [], (n, notes)
        # The next change: nothing is appended after a record cut short (the game goes whole).
        act(store, game, ("move", GAME_1[plies]))
        assert booted(flash)[1].uci_moves() == GAME_1[: plies + 1]


def test_every_flipped_bit_of_the_journal_is_found_and_what_came_before_it_kept():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:6]:
        act(store, game, ("move", m))
    whole = flash.files[JOURNAL]
    for i in range(len(whole)):
        for bit in range(8):
            damaged = bytearray(whole)
            damaged[i] ^= 1 << bit
            flash.files[JOURNAL] = bytes(damaged)
            store, game, notes = booted(flash)
            kept = 0 if i < 8 else (i - 8) // 4  # the moves whose records come before the flip
            assert game.uci_moves() == GAME_1[:kept], (i, bit, game.uci_moves())
            assert len(notes) == 1 and "journal" in notes[0], (i, bit, notes)


def test_a_stale_journal_is_ignored():
    # A whole record written after the journal (a new game, a long journal): the journal names an
    # older record and adds nothing to the new one.
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:4]:
        act(store, game, ("move", m))
    stale = flash.files[JOURNAL]
    store.save(Game(), "strict")  # a new game
    assert flash.files[JOURNAL] == stale
    store, game, notes = booted(flash)
    assert game.uci_moves() == [] and notes == []
    act(store, game, ("move", "d2d4"))
    assert flash.files[JOURNAL] != stale and booted(flash)[1].uci_moves() == ["d2d4"]


def test_a_record_cut_before_its_rename_keeps_its_journal_apart():
    # A whole record (seq 2) in PATH.tmp, complete, not yet renamed over PATH (seq 1), whose
    # journal goes on: power-up takes the newer .tmp, and the next change renames it over PATH
    # before anything else, so that a cut in the next whole record cannot bring back PATH alone.
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:3]:
        act(store, game, ("move", m))
    old = flash.files[PATH]
    store.save(game, "casual")  # seq 2: the mode changed
    flash.files[PATH + ".tmp"] = flash.files[PATH]
    flash.files[PATH] = old
    store, game, notes = booted(flash)
    assert game.uci_moves() == GAME_1[:3] and store.clock is None and parse(flash.files[PATH + ".tmp"])[1] == "casual"
    act(store, game, ("move", GAME_1[3]), "casual")
    assert PATH + ".tmp" not in flash.files and parse(flash.files[PATH])[1] == "casual"
    assert booted(flash)[1].uci_moves() == GAME_1[:4]


def test_a_journal_move_the_rules_refuse_ends_the_journal_there():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:3]:
        act(store, game, ("move", m))
    data = bytearray(flash.files[JOURNAL])
    # Rewrite the third move as e2e4 again (illegal there) with a good checksum.
    from store import adler32

    data[16] = (12 | 28 << 6) >> 8
    data[17] = (12 | 28 << 6) & 255
    a, b = adler32(bytes(data[:6]))
    for i in range(8, len(data), 4):
        a, b = adler32(bytes(data[i : i + 2]), a, b)
        data[i + 2] = b >> 8
        data[i + 3] = b & 255
    flash.files[JOURNAL] = bytes(data)
    store, game, notes = booted(flash)
    assert game.uci_moves() == GAME_1[:2]
    assert len(notes) == 1 and "a move the rules refuse" in notes[0] and "after ply 2" in notes[0], notes


def test_a_saved_game_of_the_firmware_before_the_journal_resumes_and_goes_on():
    # A board updated in the middle of a game: its game.sav is a whole record, no journal beside it.
    flash = FakeFlash()
    flash.files[PATH] = record(start_line() + "moves %s\nopponent black 3\n" % " ".join(GAME_1[:5]), seq=41)
    store, game, notes = booted(flash)
    assert game.uci_moves() == GAME_1[:5] and store.opponent == "black 3"
    act(store, game, ("move", GAME_1[5]))
    assert JOURNAL in flash.files and parse(flash.files[PATH])[0] == 41  # appended, not rewritten
    store, game, notes = booted(flash)
    assert game.uci_moves() == GAME_1[:6] and store.opponent == "black 3"


def test_a_result_a_mode_or_an_opponent_writes_the_whole_game():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    game = Game()
    store.save(game, "strict")
    for m in GAME_1[:4]:
        act(store, game, ("move", m))
    assert parse(flash.files[PATH])[0] == 1
    store.update(game, "casual")  # the `mode` command
    assert parse(flash.files[PATH])[:2] == (2, "casual")
    store.opponent = "white 2"  # the engine chosen (engine/opponent.py saves it as it is set)
    act(store, game, ("move", GAME_1[4]), "casual")
    got = parse(flash.files[PATH])
    assert got[0] == 3 and got[3] == GAME_1[:5] and got[5] == "white 2"
    act(store, game, ("move", GAME_1[5]), "casual")
    assert parse(flash.files[PATH])[0] == 3  # journaled
    game.resign(0)  # white resigns: the kings' gesture (an "end" event)
    store.note(("end", game.result, game.reason))
    store.update(game, "casual")
    got = parse(flash.files[PATH])
    assert got[0] == 4 and got[3] == GAME_1[:6] and got[4] == ("0-1", "resignation")
    store, game, notes = booted(flash)
    assert (game.result, game.reason) == ("0-1", "resignation") and store.opponent == "white 2" and notes == []
    # A new game: written whole, and the old journal, now stale, adds nothing to it.
    store.note(("new",))
    store.update(Game(), "casual")
    assert booted(flash)[1].uci_moves() == []


def test_a_clock_is_journaled_with_each_move_and_a_new_control_writes_the_whole_game():
    lines = ["5+3 300000 300000 0 0 0 0 0 0 0 0 0"]
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    store.clock_line = lambda: lines[-1]
    game = Game()
    store.save(game, "strict")
    act(store, game, ("move", "e2e4"))  # the clock unchanged: the move alone
    assert len(flash.files[JOURNAL]) == 8 + 4
    lines.append("5+3 300000 300000 0 0 1 0 1 1 1234 0 0")
    act(store, game, ("move", "e7e5"))
    assert len(flash.files[JOURNAL]) > 8 + 2 * 4 and parse(flash.files[PATH])[0] == 1
    store, game, notes = booted(flash)
    assert game.uci_moves() == ["e2e4", "e7e5"] and notes == []
    assert store.clock == ("5+3", (300000, 300000, 0, 0, 1, 0, 1, 1, 1234), (0, 0))
    # Another time control: the whole game, with its clock line.
    store.clock_line = lambda: "10 600000 600000 0 0 0 0 0 0 0 0 1"
    act(store, game, ("move", "g1f3"))
    got = parse(flash.files[PATH])
    assert got[0] == 2 and got[6] == ("10", (600000, 600000, 0, 0, 0, 0, 0, 0, 0), (0, 1))
