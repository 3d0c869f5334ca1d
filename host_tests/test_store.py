# Tests of firmware/store.py with App and the real filesystem (the power-cut tests run portably in
# host_tests/portable/test_store_portable.py, on CPython, MicroPython and WebAssembly alike).
import os
import zlib

import config
from app import App
from core.game import Game
from core.position import parse_square
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from store import GameStore, StoreError, adler32
from store_read import parse
from test_store_portable import GAME_1, FakeFlash, PowerCut, play, record, start_line

START = list(range(16)) + list(range(48, 64))


def board(store, occupied=START, console=None):
    vm = VirtualReedMatrix()
    for sq in occupied:
        vm.place(sq)
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    app = App(config.Settings(), scanner, TextLeds(), store, console)
    return app, vm


def test_adler32_is_zlibs():
    for data in (b"", b"a", b"chessboard-game 1\n", bytes(range(256)) * 40, b"\xff" * 9000):
        a, b = adler32(data)
        assert (b << 16) | a == zlib.adler32(data)


def test_real_filesystem_round_trip_and_replace(tmp_path):
    path = str(tmp_path / "game.sav")
    store = GameStore(path)
    assert store.load() is None
    store.save(play(GAME_1[:5]), "strict")
    store.save(play(GAME_1[:6]), "casual")  # rename over an existing file
    assert sorted(os.listdir(tmp_path)) == ["game.sav"]  # no .tmp left behind
    assert GameStore(path).load() == (Game().start_fen, GAME_1[:6], "casual")


def test_unreadable_path_is_a_store_error(tmp_path):
    (tmp_path / "game.sav").mkdir()  # a directory where the file should be
    try:
        GameStore(str(tmp_path / "game.sav")).load()
    except StoreError as e:
        assert "cannot be read" in str(e)
    else:
        raise AssertionError("a directory loaded as a game")


def test_app_resumes_the_saved_game_after_a_reboot():
    flash = FakeFlash()
    GameStore("game.sav", flash).save(play(GAME_1[:4]), "casual")
    said = []
    # The pieces stand where the saved game has them.
    game = play(GAME_1[:4])
    occupied = [sq for sq in range(64) if game.position.piece_at(sq)]
    app, vm = board(GameStore("game.sav", flash), occupied, said.append)
    app.start(0)
    assert app.referee.game.uci_moves() == GAME_1[:4]
    assert app.referee.mode == "casual"
    assert said == ["resuming the saved game after 4 moves"]


def test_app_with_a_corrupt_save_starts_a_new_game_and_says_why():
    flash = FakeFlash()
    GameStore("game.sav", flash).save(play(GAME_1[:4]), "strict")
    flash.files["game.sav"] = flash.files["game.sav"][:-9]  # cut off mid end line
    said = []
    app, vm = board(GameStore("game.sav", flash), START, said.append)
    app.start(0)
    assert app.referee.game.moves == []
    assert len(said) == 1
    assert said[0].startswith("saved game unreadable, starting a new game: game.sav: truncated")
    # The next move saves a good file again.
    vm.lift(parse_square("e2"))
    vm.place(parse_square("e4"))
    for t in range(5, 600, 5):
        vm.now_ms = t
        app.step(t)
    assert app.referee.game.uci_moves() == ["e2e4"]
    assert GameStore("game.sav", flash).load()[1] == ["e2e4"]


def test_app_resumes_the_good_game_when_a_newer_tmp_does_not_replay_and_says_so():
    flash = FakeFlash()
    game = play(GAME_1[:4])
    GameStore("game.sav", flash).save(game, "strict")
    flash.files["game.sav.tmp"] = record(start_line("4k3/8/8/8/8/8/8/4K2R w K - 8388608 1"), seq=7)
    said = []
    occupied = [sq for sq in range(64) if game.position.piece_at(sq)]
    app, vm = board(GameStore("game.sav", flash), occupied, said.append)
    app.start(0)  # raised OverflowError on CPython before issue 11
    assert app.referee.game.uci_moves() == GAME_1[:4]
    assert len(said) == 2 and "game.sav.tmp: does not replay" in said[0] and "using game.sav" in said[0]
    assert said[1] == "resuming the saved game after 4 moves"


def test_app_with_only_a_record_that_does_not_replay_starts_a_new_game():
    flash = FakeFlash()
    flash.files["game.sav"] = record(start_line("4k3/8/8/8/8/8/8/4K2R w K - 8388608 1"))
    said = []
    app, vm = board(GameStore("game.sav", flash), START, said.append)
    app.start(0)
    assert app.referee.game.moves == [] and app.referee.game.fen() == Game().fen()
    assert said[0].startswith("saved game unreadable, starting a new game: game.sav: does not replay (FEN halfmove clock")


def test_app_saves_after_every_move_and_a_cut_save_resumes_one_move_back():
    flash = FakeFlash()
    app, vm = board(GameStore("game.sav", flash))
    app.start(0)
    t = 0

    def hands(*actions):
        # One action per 50 ms, as hands do: a lift and a place in the same scan would cancel out.
        nonlocal t
        for act, name in actions:
            getattr(vm, act)(parse_square(name))
            for _ in range(10):
                t += 5
                vm.now_ms = t
                app.step(t)

    for uci in GAME_1[:6]:
        steps = [("lift", uci[:2])]
        if vm.occupied(parse_square(uci[2:4])):
            steps.append(("lift", uci[2:4]))
        steps.append(("place", uci[2:4]))
        if uci == "e5d6":
            steps.append(("lift", "d5"))
        before = flash.ops
        hands(*steps)
        for _ in range(80):
            t += 5
            vm.now_ms = t
            app.step(t)
        assert flash.ops > before, "no save after " + uci
        assert GameStore("game.sav", flash).load()[1] == app.referee.game.uci_moves()
    assert app.referee.game.uci_moves() == GAME_1[:6]
    # The power goes at each step of the next save in turn (the journal's append: open, write,
    # close): the board comes back with the move or the one before it, never older.
    saved = dict(flash.files)
    pieces = [sq for sq in range(64) if vm.occupied(sq)]
    outcomes = set()
    k = 1
    while True:
        flash.files = dict(saved)
        flash.boot()
        app, vm = board(GameStore("game.sav", flash), pieces)
        app.start(t)
        flash.cut_at = flash.ops + k
        vm.lift(parse_square("g1"))
        vm.place(parse_square("f3"))
        try:
            for _ in range(80):
                t += 5
                vm.now_ms = t
                app.step(t)
        except PowerCut:
            pass
        else:
            assert app.referee.game.uci_moves() == GAME_1[:6] + ["g1f3"]
            break  # the save was done before step k
        flash.boot()
        got = GameStore("game.sav", flash).load()[1]
        assert got in (GAME_1[:6], GAME_1[:6] + ["g1f3"]), (k, flash.last, got)
        outcomes.add(len(got))
        k += 1
    assert k == 4 and outcomes == {6, 7}, (k, outcomes)  # open, write (half its bytes), close


def test_resignation_survives_a_reboot():
    flash = FakeFlash()
    game = play(GAME_1[:4])
    game.resign(0)
    GameStore("game.sav", flash).save(game, "strict")
    store = GameStore("game.sav", flash)
    occupied = [sq for sq in range(64) if game.position.piece_at(sq)]
    app, vm = board(store, occupied)
    app.start(0)
    assert (app.referee.game.result, app.referee.game.reason) == ("0-1", "resignation")
    assert app.referee.phase == 2  # OVER: the board waits for a new game


def test_parse_reports_unknown_lines_and_modes():
    for body, words in (
        (b"chessboard-game 1\nseq 1\nmode wild\nstart x\n", "unknown mode"),
        (b"chessboard-game 1\nseq 1\nmode strict\nstart x\nfoo bar\n", "unknown line"),
        (b"chessboard-game 1\nmode strict\nstart x\n", "incomplete record"),
        (b"chessboard-game 1\nseq 1\nmode strict\nstart x\nresult 1-0 checkmate\n", "bad result line"),
        (b"some-other-file 1\n", "not a saved game"),
    ):
        a, b = adler32(body)
        data = body + ("end %d %04x%04x\n" % (len(body), b, a)).encode()
        try:
            parse(data, "game.sav")
        except StoreError as e:
            assert words in str(e), (words, str(e))
        else:
            raise AssertionError(words)


def test_a_save_without_memory_leaves_the_scan_loop_running_and_the_next_save_writes_it():
    # A MemoryError in a feature must not stop the scan loop: here the save (loading store_write.py
    # on a full heap, say); the next change writes the whole game.
    class NoRoom(FakeFlash):
        full = False

        def open(self, path, mode):
            if self.full and "r" not in mode:
                raise MemoryError("memory allocation failed")
            return FakeFlash.open(self, path, mode)

    flash = NoRoom()
    GameStore("game.sav", flash).save(play([]), "strict")
    said = []
    app, vm = board(GameStore("game.sav", flash), START, said.append)
    app.start(0)
    t = 0
    for uci, full in (("e2e4", True), ("e7e5", False)):
        flash.full = full
        vm.lift(parse_square(uci[:2]))
        vm.place(parse_square(uci[2:]))
        for _ in range(100):
            t += 5
            vm.now_ms = t
            app.step(t)
    assert app.referee.game.uci_moves() == ["e2e4", "e7e5"]
    assert "could not save the game: memory allocation failed" in said, said
    assert GameStore("game.sav", flash).load()[1] == ["e2e4", "e7e5"]
