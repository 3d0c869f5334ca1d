# Portable tests of firmware/store.py: a power cut at every step of every save never loses the game.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
# FakeFlash stands in for the Pico's filesystem and counts every operation a save performs (open,
# each write, close, rename, remove); with cut_at set, that operation is where the power goes:
# it raises PowerCut, and so does every operation after it until the flash "boots" again.
# It is pessimistic on purpose: a file opened for writing is visible (empty) at once and a write
# cut in the middle leaves half its bytes - worse than littlefs, which shows a file's data only
# after close() - so what survives this survives the Pico.
from core.game import Game
from store import GameStore, StoreError, adler32
from store_read import parse

PATH = "game.sav"

# 30 plies with a capture, en passant (e5d6), castling on both sides of the board (e8g8, e1g1).
GAME_1 = (
    "e2e4 g8f6 e4e5 d7d5 e5d6 e7d6 g1f3 f8e7 f1c4 e8g8 e1g1 b8c6 d2d4 c8g4 b1c3 d8d7 c1e3 a8e8 "
    "d1d2 c6d4 f3d4 d6d5 c4d5 f6d5 c3d5 d7d5 a2a4 e7b4 c2c3 b4c5"
).split()
# From a set-up position: queen-side castling, promotions to a knight and a queen, a check.
FEN_2 = "4k2r/1P6/8/8/8/8/6p1/R3K3 w Qk - 0 1"
GAME_2 = "e1c1 e8g8 b7b8n g2g1q d1g1 g8h7".split()


class PowerCut(Exception):
    """The power went at this operation."""


class _Reader:
    def __init__(self, data):
        self._data = data
        self._at = 0

    def read(self, n=-1):
        if n < 0:
            n = len(self._data)
        out = self._data[self._at : self._at + n]
        self._at += len(out)
        return out

    def close(self):
        pass


class _Writer:
    def __init__(self, flash, path):
        self._flash = flash
        self._path = path
        self._closed = False

    def write(self, data):
        flash = self._flash
        try:
            flash.step("write")
        except PowerCut:
            flash.files[self._path] = flash.files[self._path] + bytes(data[: len(data) // 2])
            raise
        flash.files[self._path] = flash.files[self._path] + bytes(data)
        return len(data)

    def close(self):
        if not self._closed:
            self._closed = True
            self._flash.step("close")


class FakeFlash:
    """Files as bytes in a dict. fat=True refuses to rename over an existing file, like FAT."""

    def __init__(self, fat=False):
        self.files = {}
        self.dirs = set()
        self.fat = fat
        self.ops = 0
        self.cut_at = None  # the operation number (1 = the next one) that loses power
        self.last = None  # name of the last operation

    def step(self, name):
        self.ops += 1
        self.last = name
        if self.cut_at is not None and self.ops >= self.cut_at:
            raise PowerCut(name)

    def boot(self):
        """Power back: no operation is cut any more; the files are what the flash holds."""
        self.cut_at = None

    def open(self, path, mode):
        self.step("open")
        if "r" in mode:
            if path not in self.files:
                raise OSError(2, "ENOENT")
            return _Reader(self.files[path])
        if "a" not in mode or path not in self.files:
            self.files[path] = b""
        return _Writer(self, path)

    def mkdir(self, path):
        self.step("mkdir")
        if path in self.dirs:
            raise OSError(17, "EEXIST")
        self.dirs.add(path)

    def rename(self, old, new):
        self.step("rename")
        if old not in self.files:
            raise OSError(2, "ENOENT")
        if new in self.files and self.fat:
            raise OSError(17, "EEXIST")
        self.files[new] = self.files.pop(old)

    def remove(self, path):
        self.step("remove")
        if path not in self.files:
            raise OSError(2, "ENOENT")
        del self.files[path]


def play(moves, fen=None):
    game = Game(fen) if fen else Game()
    for uci in moves:
        game.push_uci(uci)
    return game


def loaded(flash):
    """What a freshly booted board loads: (moves, mode) or None."""
    flash.boot()
    got = GameStore(PATH, flash).load()
    return None if got is None else (got[1], got[2])


def check_every_cut(flash, fen, moves):
    """Save after each move with the power cut at each step of that save in turn: the board must
    come back with the game before or after that move, never an older one, never an error."""
    start = Game(fen).start_fen if fen else Game().start_fen
    store = GameStore(PATH, flash)
    store.save(play([], fen), "strict")
    cuts = 0
    for n in range(1, len(moves) + 1):
        game = play(moves[:n], fen)
        before = dict(flash.files)
        # How many operations a whole save takes from this state.
        probe = FakeFlash(flash.fat)
        probe.files = dict(before)
        GameStore(PATH, probe).save(game, "strict")
        steps = probe.ops
        for k in range(1, steps + 1):
            flash.files = dict(before)
            flash.boot()
            board = GameStore(PATH, flash)
            board.load()  # power-up: the save counter continues from the file
            flash.cut_at = flash.ops + k
            try:
                board.save(game, "strict")
                raise AssertionError("save finished although the power was cut at step %d" % k)
            except PowerCut:
                pass
            cuts += 1
            got = GameStore(PATH, flash)
            flash.boot()
            record = got.load()
            assert record is not None, "game lost after a cut at step %d of the save after ply %d" % (k, n)
            assert record[0] == start
            assert record[1] in (moves[: n - 1], moves[:n]), (
                "cut at step %d (%s) of ply %d loaded %d plies" % (k, flash.last, n, len(record[1]))
            )
        # And the save that is not cut.
        flash.files = dict(before)
        flash.boot()
        board = GameStore(PATH, flash)
        board.load()
        board.save(game, "strict")
        assert loaded(flash) == (moves[:n], "strict")
    return cuts


def test_power_cut_at_every_step_of_every_save():
    cuts = check_every_cut(FakeFlash(), None, GAME_1)
    assert cuts > 8 * len(GAME_1)  # open, the lines, end, close, rename: every one was cut


def test_power_cut_on_a_filesystem_without_atomic_replace():
    # FAT: remove + rename; a cut between them leaves only the complete .tmp, which load() uses.
    flash = FakeFlash(fat=True)
    check_every_cut(flash, FEN_2, GAME_2)
    flash.files = {PATH + ".tmp": flash.files[PATH]}  # the cut between remove and rename
    assert loaded(flash) == (GAME_2, "strict")


def test_a_complete_tmp_newer_than_the_record_wins():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    store.save(play(GAME_1[:3]), "strict")
    old = flash.files[PATH]
    store.save(play(GAME_1[:4]), "casual")
    flash.files[PATH + ".tmp"] = flash.files[PATH]  # cut after close(), before rename()
    flash.files[PATH] = old
    assert loaded(flash) == (GAME_1[:4], "casual")
    # A stale, older .tmp never wins over the record.
    store2 = GameStore(PATH, flash)
    store2.load()
    store2.save(play(GAME_1[:5]), "strict")
    flash.files[PATH + ".tmp"] = old
    assert loaded(flash) == (GAME_1[:5], "strict")


def test_nothing_saved_loads_as_none():
    assert GameStore(PATH, FakeFlash()).load() is None


def test_round_trip_keeps_start_moves_mode_and_counter():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    store.save(play(GAME_2, FEN_2), "casual")
    store.save(play(GAME_2, FEN_2), "casual")
    again = GameStore(PATH, flash)
    fen, moves, mode = again.load()
    assert fen == Game(FEN_2).start_fen and moves == GAME_2 and mode == "casual"
    assert again.seq == 2
    text = flash.files[PATH].decode()
    assert text.startswith("chessboard-game 1\nseq 2\nmode casual\nstart 4k2r/1P6/")
    assert "moves e1c1 e8g8 b7b8n g2g1q d1g1 g8h7\n" in text


def test_long_games_split_their_moves_over_lines():
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_1), "strict")
    lines = flash.files[PATH].decode().split("\n")
    assert len([x for x in lines if x.startswith("moves ")]) == 2  # 16 + 14
    assert GameStore(PATH, flash).load()[1] == GAME_1


def test_every_truncation_is_reported():
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_1[:6]), "strict")
    whole = flash.files[PATH]
    for n in range(len(whole)):
        try:
            parse(whole[:n], PATH)
        except StoreError as e:
            message = str(e)
            assert message.startswith(PATH + ": ")
            assert "truncated" in message or "empty" in message or "corrupt" in message, message
        else:
            raise AssertionError("a file cut to %d of %d bytes loaded" % (n, len(whole)))


def test_every_flipped_bit_is_reported():
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_2, FEN_2), "strict")
    whole = flash.files[PATH]
    for i in range(len(whole)):
        for bit in range(8):
            damaged = bytearray(whole)
            damaged[i] ^= 1 << bit
            try:
                parse(bytes(damaged), PATH)
            except StoreError:
                pass
            else:
                raise AssertionError("byte %d bit %d flipped and the file still loaded" % (i, bit))


def test_messages_say_what_is_wrong():
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_1[:2]), "strict")
    whole = flash.files[PATH]
    cases = (
        (b"", "empty file"),
        (whole[: len(whole) // 2], "truncated"),
        (whole[:-1], "truncated (the last line is incomplete)"),
        (whole.replace(b"e2e4", b"e2e5"), "corrupt (checksum"),
        (b"hello\n", "truncated (no end line"),
    )
    for data, words in cases:
        try:
            parse(data, PATH)
        except StoreError as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError("loaded: %r" % data[:20])


def test_a_record_from_another_format_is_refused_clearly():
    body = b"chessboard-game 2\nseq 1\nmode strict\nstart x\n"
    a, b = adler32(body)
    data = body + ("end %d %04x%04x\n" % (len(body), b, a)).encode()
    try:
        parse(data, PATH)
    except StoreError as e:
        assert "format 2" in str(e)
    else:
        raise AssertionError("format 2 loaded")


def test_a_corrupt_record_with_a_good_tmp_loads_the_tmp():
    flash = FakeFlash()
    store = GameStore(PATH, flash)
    store.save(play(GAME_1[:7]), "strict")
    flash.files[PATH + ".tmp"] = flash.files[PATH]
    flash.files[PATH] = flash.files[PATH][:20]
    assert loaded(flash) == (GAME_1[:7], "strict")
    # Without the spare the error comes through.
    del flash.files[PATH + ".tmp"]
    try:
        GameStore(PATH, flash).load()
    except StoreError as e:
        assert "truncated" in str(e)
    else:
        raise AssertionError("corrupt record loaded")


def test_resignation_and_agreement_survive_a_reboot():
    flash = FakeFlash()
    for colour, result, reason in ((0, "0-1", "resignation"), (8, "1-0", "resignation"), (None, "1/2-1/2", "agreement")):
        game = play(GAME_1[:10])
        if colour is None:
            game.agree_draw()
        else:
            game.resign(colour)
        GameStore(PATH, flash).save(game, "strict")
        store = GameStore(PATH, flash)
        fen, moves, mode = store.load()
        again = play(moves)
        assert not again.is_over()
        assert store.apply_result(again)
        assert (again.result, again.reason) == (result, reason)
        # Only the game that was loaded gets the result.
        other = play(moves[:-1])
        assert not store.apply_result(other) and not other.is_over()


def test_adler32_matches_zlib():
    # Values from zlib.adler32 (RFC 1950).
    assert adler32(b"") == (1, 0)
    a, b = adler32(b"Wikipedia")
    assert "%04x%04x" % (b, a) == "11e60398"


# ---------------------------------------------------------------------- hostile records (issue 11)
# Records with a valid checksum that no board of this firmware would write: the checksum says the
# bytes are what was written, not that they make sense.

# Knights out and back: the start position again after every 4 plies (fivefold after 16).
SHUFFLE = "g1f3 g8f6 f3g1 f6g8".split()


def record(body, seq=1):
    """A well-checksummed record from its lines after the seq line."""
    text = ("chessboard-game 1\nseq %d\n" % seq + body).encode()
    a, b = adler32(text)
    return text + ("end %d %04x%04x\n" % (len(text), b, a)).encode()


def start_line(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):
    return "mode strict\nstart %s\n" % fen


def resumed(flash):
    """(moves, result, reason, notes) of what a freshly booted board resumes."""
    flash.boot()
    game, mode, notes = GameStore(PATH, flash).resume()
    return game.uci_moves(), game.result, game.reason, notes


def test_a_newer_tmp_that_does_not_replay_gives_way_to_the_good_record():
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_1[:8]), "strict")
    for bad in ("moves e2e4 e2e4\n", "moves e2e5\n", "moves zz\n"):
        flash.files[PATH + ".tmp"] = record(start_line() + bad, seq=99)
        moves, result, _, notes = resumed(flash)
        assert moves == GAME_1[:8] and result == "*"
        assert len(notes) == 1 and "game.sav.tmp: does not replay" in notes[0] and "using game.sav" in notes[0], notes
        assert GameStore(PATH, flash).load()[1] == GAME_1[:8]
    # The next save outnumbers the bad .tmp, so a cut after it cannot bring the bad one back.
    store = GameStore(PATH, flash)
    store.resume()
    assert store.seq == 99
    store.save(play(GAME_1[:9]), "strict")
    assert parse(flash.files[PATH])[0] == 100


def test_a_start_position_no_game_can_have_gives_way_too():
    # Issue 11: a start FEN with a halfmove clock of 2**23 made App.start raise OverflowError.
    flash = FakeFlash()
    GameStore(PATH, flash).save(play(GAME_1[:2]), "casual")
    flash.files[PATH + ".tmp"] = record(start_line("4k3/8/8/8/8/8/8/4K2R w K - 8388608 1"), seq=5)
    moves, _, _, notes = resumed(flash)
    assert moves == GAME_1[:2]
    assert "halfmove clock 8388608 is impossible" in notes[0], notes
    # With no good record to fall back on: a clear error, and the caller starts a new game.
    flash.files[PATH] = flash.files.pop(PATH + ".tmp")
    try:
        GameStore(PATH, flash).resume()
    except StoreError as e:
        assert "game.sav: does not replay" in str(e) and "halfmove clock" in str(e), str(e)
    else:
        raise AssertionError("an impossible start position resumed")


def test_a_record_past_a_fivefold_repetition_stops_at_the_end():
    # Issue 11: a record going on after a fivefold repetition resumed silently, on to 75 moves.
    flash = FakeFlash()
    moves = SHUFFLE * 4 + ["e2e4"] + SHUFFLE * 10
    lines = "".join("moves %s\n" % " ".join(moves[i : i + 16]) for i in range(0, len(moves), 16))
    flash.files[PATH] = record(start_line() + lines)
    got, result, reason, notes = resumed(flash)
    assert got == SHUFFLE * 4 and (result, reason) == ("1/2-1/2", "fivefold-repetition")
    assert len(notes) == 1 and "ended after 16 moves (fivefold-repetition)" in notes[0], notes
    assert "41 moves recorded after that are ignored" in notes[0], notes


def test_a_claimed_draw_no_position_offers_is_refused():
    flash = FakeFlash()
    flash.files[PATH] = record(start_line() + "moves e2e4 e7e5\nresult 1/2-1/2 claimed-draw\n")
    moves, result, _, notes = resumed(flash)
    assert moves == ["e2e4", "e7e5"] and result == "*"  # the game goes on
    assert "refused its result 1/2-1/2 claimed-draw" in notes[0], notes
    # A claim the position does offer (threefold after 8 plies) is kept.
    flash.files[PATH] = record(start_line() + "moves %s\nresult 1/2-1/2 claimed-draw\n" % " ".join(SHUFFLE * 2))
    moves, result, reason, notes = resumed(flash)
    assert (result, reason, notes) == ("1/2-1/2", "claimed-draw", [])


def test_result_lines_and_counters_that_do_not_fit_are_refused():
    cases = (
        ("result 1/2-1/2 resignation\n", "bad result line"),
        ("result 1-0 agreement\n", "bad result line"),
        ("result 0-1 claimed-draw\n", "bad result line"),
    )
    for line, words in cases:
        try:
            parse(record(start_line() + line), PATH)
        except StoreError as e:
            assert words in str(e), str(e)
        else:
            raise AssertionError("loaded: " + line)
    for seq in ("-1", "1073741824", "9" * 3000, "0x10"):
        data = record(start_line()).replace(b"seq 1\n", ("seq %s\n" % seq).encode())
        a, b = adler32(data[: data.rfind(b"end")])
        data = data[: data.rfind(b"end")] + ("end %d %04x%04x\n" % (data.rfind(b"end"), b, a)).encode()
        try:
            parse(data, PATH)
        except StoreError as e:
            assert "bad save counter" in str(e) and len(str(e)) < 120, str(e)[:200]
        else:
            raise AssertionError("loaded seq " + seq[:20])
