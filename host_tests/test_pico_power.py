"""The board on the emulated Pico: LEDs read from the WS2812B pin, the saved game across resets and
power cuts in the middle of saves, quick hands while the board saves (make test-pico; see
test_pico_games.py for the set-up).

A power cut stops the chip at a random flash erase or program of a save, with a random part of it
done (a cut mid-erase leaves a half-erased sector, mid-program a half-written one), and restores
the power: only the flash survives. The game must come back the move before or the move itself,
never lost or corrupt; and since the pieces stand where the move left them, the board must then
read the move from them by itself (docs/power-up.md). The cuts are counted as "nothing lost",
"re-read from the board" and "lost a ply"; the last must not happen."""
import os
import random

import pytest

from pico_board import booted_board, emu_board, emu_chip

# Seeded, so a failure replays; PICO_CUT_SEED picks other instants.
SEED = int(os.environ.get("PICO_CUT_SEED", "8"))
START = emu_board.transcript.STARTING_FEN
# One cut in the save of each of these plies (UCI, with the FEN after it from python-chess).
PLIES = ("e2e4", "e7e5", "g1f3")

CHECK = """# white gives check along the rank; the black king is not mated
@fen 7k/8/8/8/8/8/8/R5K1 w - - 0 1
1000 lift a1
1300 place a8
"""
MATE = """# a back-rank mate
@fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1
1000 lift a1
1300 place a8
"""


@pytest.fixture(scope="module")
def board():
    b = booted_board("power")
    yield b
    b.close()


def lit_at(played, t_ms):
    frame = played.frame_at(t_ms)
    assert frame is not None, "no LED frame by %d ms" % t_ms
    return emu_board.lit(frame)


def seen_after(played, t_ms):
    """{square: every signal shown on it} over the frames from t_ms on (blinking signals are dark
    half the time)."""
    seen = {}
    for t, frame in played.frames:
        if t >= t_ms:
            for sq, names in emu_board.lit(frame).items():
                seen.setdefault(sq, set()).update(names)
    return seen


def test_leds_of_a_lift(board):
    # A pawn lifted at e2 in the start position: its square cyan, e3 and e4 green, nothing else.
    played = board.play("1000 lift e2\n1600 place e2\n", fen=START, mode="casual")
    shown = lit_at(played, 400)
    assert set(shown) == {"e2", "e3", "e4"}, shown
    assert "lifted" in shown["e2"] and "quiet" in shown["e3"] and "quiet" in shown["e4"]
    # The first frame showing it came within a few 5 ms scans of the lift (10 ms debounce).
    first = min(t for t, f in played.frames if "e3" in emu_board.lit(f))
    assert first < 40, played.frames
    assert lit_at(played, 1500) == {}


def test_leds_of_a_check(board):
    played = board.play(CHECK)
    assert played.lines[0] == "move a1a8"
    # The check pulses orange on the checked king (h8), beside the last move (a1, a8 dim blue).
    shown = lit_at(played, 1000)
    assert "check" in shown["h8"], shown
    assert "last-move" in shown["a1"] and "last-move" in shown["a8"]


def test_leds_of_a_mate(board):
    played = board.play(MATE)
    assert played.lines[:2] == ["move a1a8", "end 1-0 checkmate"]
    # The mated king blinks red and the mating rook green at 1 Hz.
    seen = seen_after(played, 300)
    assert "mated-king" in seen.get("g8", ()), seen
    assert "mating-piece" in seen.get("a8", ()), seen


def ply_events(uci):
    a, b = uci[:2], uci[2:4]
    return "1000 lift %s\n1001 place %s\n1003 lift %s\n1400 place %s\n" % (a, a, a, b)


def fen_after(fen, uci):
    import chess

    board = chess.Board(fen)
    board.push_uci(uci)
    return board.fen()


def san_of(fen, uci):
    import chess

    board = chess.Board(fen)
    return board.san(chess.Move.from_uci(uci))


def board_fen(chip):
    chip.command("fen", until="fen ")
    return [t for _, t in chip.lines if t.startswith("fen ")][-1][4:]


def wait_ready(chip):
    chip.run(1500)  # the restart: boot ROM, MicroPython, main.py, USB enumeration
    chip.wait_ready()


def test_the_saved_game_resumes_after_a_reset(board):
    chip = board.chip
    board.new_game(START, "strict")
    fen = START
    for uci in PLIES[:2]:
        played = board.play(ply_events(uci), new_game=False)
        fen = fen_after(fen, uci)
        assert played.lines == ["move " + uci, "fen " + fen]
    # machine.reset() from the REPL, as mpremote's `reset` does: the watchdog restarts the chip.
    resets = chip.last["resets"]
    chip.write("\x03\x03")
    chip.run(100)
    chip.write("import machine\rmachine.reset()\r")
    wait_ready(chip)
    assert chip.last["resets"] == resets + 1
    said = [t for _, t in chip.lines]
    assert "msg resuming the saved game after 2 moves" in said, said
    assert board_fen(chip) == fen


def test_power_cuts_during_saves_lose_nothing(board):
    chip = board.chip
    rng = random.Random(SEED)
    board.new_game(START, "strict")
    chip.run(300)
    # How many flash operations one save takes: the cuts fall among them.
    before = chip.flash_ops()
    board.play(ply_events("d2d3"), new_game=False)
    per_save = chip.flash_ops() - before
    assert per_save > 0, "a move saved nothing to the flash"
    board.new_game(START, "strict")
    chip.run(300)
    fen = START
    # What each cut left (issue 25): the move on the flash ("nothing lost"), the move missing from
    # the flash and read from the pieces at power-up ("re-read from the board", docs/power-up.md),
    # or the move missing and the pieces asked back ("lost a ply").
    outcomes = {"nothing lost": 0, "re-read from the board": 0, "lost a ply": 0, "no cut": 0}
    for uci in PLIES:
        after = fen_after(fen, uci)
        events = emu_board.transcript.parse(ply_events(uci))[2]
        first = events[0][0]
        k = rng.randrange(per_save + 2)  # now and then past the save's end: no cut at all
        keep = rng.random()
        answer = chip.run(1200, events=[(t - first, o, sq) for t, o, sq in events], cut=k, keep=keep)
        for t, occupied, sq in events:
            board.closed[sq] = occupied
        where = "cut at flash operation %d of %d (%.0f%% done), seed %d" % (k, per_save, 100 * keep, SEED)
        if not answer["cut"]:
            outcomes["no cut"] += 1
        else:
            wait_ready(chip)
            resumed = board_fen(chip)
            said = [t for _, t in chip.lines]  # since the restart (chip.run starts them over at a cut)
            assert not any("unreadable" in t or "does not replay" in t for t in said), (where, said)
            assert resumed in (fen, after), (where, resumed, said)
            read = "msg read the last move, %s, from the board" % san_of(fen, uci)
            if read in said:
                assert resumed == after, (where, resumed, said)
                outcomes["re-read from the board"] += 1
            elif resumed == after:
                outcomes["nothing lost"] += 1
            else:
                outcomes["lost a ply"] += 1
                # The LEDs ask for the piece back; the player puts it back and makes the move
                # again, so that the cuts after this one still start from the game they expect.
                a, b = uci[:2], uci[2:4]
                played = board.play("1000 lift %s\n1400 place %s\n" % (b, a) + ply_events(uci).replace("1000", "2000", 1).replace("1001", "2001").replace("1003", "2003").replace("1400", "2400"), new_game=False)
                assert "move " + uci in played.lines, (where, played.console)
        assert board_fen(chip) == after, where
        fen = after
    print("power cuts during saves, seed %d: %s" % (SEED, ", ".join("%s %d" % kv for kv in outcomes.items())))
    assert outcomes["lost a ply"] == 0, outcomes


def long_game(plies=100, seed=7):
    """A game of `plies` random legal moves (never one that ends it), by the firmware's own core."""
    from core.game import Game

    game = Game()
    while game.ply() < plies:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        legal = game.legal
        game.push(legal[seed % len(legal)])
        if game.is_over():
            game.pop()
            seed += 1
    return game


def quick_hands(fen, plies=6, place_after=150, lift_after=230):
    """A transcript of `plies` quiet moves from `fen`, as fast as hands go: each piece put down
    place_after ms after it was lifted, and the next lifted lift_after ms after that placement,
    which is as soon as the move before commits (10 ms debounce + 200 ms commit delay + a scan)."""
    import chess

    board = chess.Board(fen)
    lines = ["@fen " + fen]
    t = 1000
    expect = []
    for _ in range(plies):
        move = next(m for m in board.legal_moves if not board.is_capture(m) and not board.is_castling(m) and m.promotion is None)
        a, b = chess.square_name(move.from_square), chess.square_name(move.to_square)
        lines += ["%d lift %s" % (t, a), "%d place %s" % (t + place_after, b)]
        expect.append("# expect move " + move.uci())
        board.push(move)
        t += place_after + lift_after
    return "\n".join(lines + expect) + "\n", board.fen()


def long_game_with_a_full_journal():
    """The files of a 100-ply game saved as the firmware saves it: the whole game at 46 plies, the
    54 plies after it in the journal, which is then full (store.py's _JOURNAL_MAX, 224 bytes): the
    next move writes the whole game again, the long save (erases) of issue 32."""
    from core.game import Game
    from hardware.fake import RamFiles
    from store import GameStore

    game = long_game()
    files = RamFiles()
    store = GameStore("game.sav", files)
    played = Game()
    moves = game.moves
    for m in moves[:46]:
        played.push(m)
    store.save(played, "casual")
    for m in moves[46:]:
        played.push(m)
        store.note(("move", m))
        store.update(played, "casual")
    assert store.seq == 1 and len(files.files["game.sav.d/journal"]) == 224
    return game, {"game.sav": files.files["game.sav"], "game.sav.d/journal": files.files["game.sav.d/journal"]}


def test_quick_moves_while_the_board_saves_a_long_game(board, tmp_path):
    # A move's save is a journal append, a page programmed; the whole game is written again when
    # the journal is full, and that save stops the CPU for tens of ms (littlefs erases a 4 kB
    # sector, 45 ms, while no code can run from the flash). It comes in the scan after the commit,
    # and the next player's hand may move while it lasts: what the switches say when the save
    # ends must still be read. The flash starts with the journal full, so the first move's save
    # is that long one; the board is booted from it again for each part of the test.
    game, files = long_game_with_a_full_journal()
    chip = board.chip
    fen = game.fen()
    image = emu_chip.firmware_image(extra=files, out=str(tmp_path / "long.bin"), prepare=False)

    def boot():
        board.closed = emu_board.occupancy(fen)
        board.boot(fs=image)
        said = [t for _, t in chip.lines]
        assert "msg resuming the saved game after 100 moves" in said, said

    # First at an easy pace, to find when the long save comes after a put-down and how long it
    # lasts; then, from the same flash, with the next lift timed into the middle of that save.
    boot()
    text, _ = quick_hands(fen, plies=2, lift_after=400)
    played = board.play(text, new_game=False)
    assert played.lines == emu_board.expected(text), played.console
    places = [t - 1000 for t, occupied, sq in emu_board.transcript.parse(text)[2] if occupied]
    after = sorted((s - max(p for p in places if p <= s), ms) for s, ms in played.saves if ms >= 20)
    assert after, "no save of the long game took the flash 20 ms or more: %s" % played.saves
    delay, lasts = after[0]
    boot()
    text, final = quick_hands(fen, plies=4, lift_after=int(delay + lasts / 2))
    played = board.play(text, new_game=False)
    assert played.lines == emu_board.expected(text), played.console
    assert played.lines[-1] == "fen " + final
    events = emu_board.transcript.parse(text)[2]
    inside = [t - 1000 for t, _, _ in events if any(s <= t - 1000 < s + ms for s, ms in played.saves)]
    assert inside, "no lift fell inside a save: saves %s, delay %.0f ms" % (played.saves, delay)


def test_max7219_board_shows_a_lift():
    # A builder's board.json picks the monochrome MAX7219 matrix: its self-test must find the chip
    # on DOUT -> MISO, and a lift must light the piece and its destinations.
    b = booted_board("max7219", settings={"led_type": "max7219"})
    try:
        said = [t for _, t in b.chip.lines]
        assert not any("MAX7219 does not answer" in t for t in said), said
        played = b.play("1000 lift e2\n1600 place e2\n", fen=START, mode="casual")
        # The driver writes one rank's register at a time: what the LEDs show is the state after
        # each burst of writes.
        mono = played.mono
        settled = [
            emu_board.mono_lit(rows) if on else set()
            for i, (t, rows, on) in enumerate(mono)
            if i + 1 == len(mono) or mono[i + 1][0] - t > 1
        ]
        times = [t for i, (t, rows, on) in enumerate(mono) if i + 1 == len(mono) or mono[i + 1][0] - t > 1]
        during = [s for s, t in zip(settled, times) if 0 < t < 600]
        assert {"e2", "e3", "e4"} in during, mono
        assert all(s <= {"e2", "e3", "e4"} for s in during), during
        assert settled[-1] == set()
    finally:
        b.close()
