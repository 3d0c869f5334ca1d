# The companion against the real Stockfish, on the simulated board over a pseudo-terminal.
#
# Scripted hands play on tools/sim_terminal.py --serial (the firmware's own Link on a pty); the
# companion (tools/play.py engine) talks to it with pyserial as it would to a Pico, and to
# Debian's Stockfish through python-chess. The hands make the engine's moves as the companion
# announces them, so the games are whole games, ended by the rules, and their PGN is checked.
import random
import re
import sys
import time

import chess
import pytest

from companion_rig import PLAYS, STOCKFISH, Companion, dump, engine_games, needs_stockfish, read_pgn

pytestmark = needs_stockfish()


@pytest.fixture
def rig(tmp_path):
    yield from engine_games(tmp_path)


def engine_reply(comp, board, sim):
    """Wait for the engine's move, check it is legal, make it on the board."""
    uci = comp.expect(PLAYS).group(1)
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves, uci
    sim.play(board, move)
    board.push(move)
    return move


def test_a_whole_game_against_stockfish_with_a_wrong_move_a_takeback_and_a_hint(rig, tmp_path):
    sim, comp = rig("--time", "0.02", "--takeback-pause", "2")
    comp.expect(r"you play White against Stockfish")
    comp.expect("board connected")
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    rng = random.Random(9)

    # 1. e4, and the engine's reply made wrongly first: another black move is refused, guided back.
    sim.play(board, chess.Move.from_uci("e2e4"))
    board.push_uci("e2e4")
    comp.expect(r"you play e4")
    uci = comp.expect(PLAYS).group(1)
    # The engine's move is lit on the board (from and to) until it is made.
    for attempt in range(20):  # (the line may still be on its way to the board)
        sim.send("show")
        lit = sim.expect(r"^leds: ").string
        if re.search(r"\b%s:\S+" % uci[:2], lit) and re.search(r"\b%s:\S+" % uci[2:4], lit):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the engine's move %s is not lit: %s" % (uci, lit))
    wrong = next(m for m in board.legal_moves if m.uci() != uci and not board.is_capture(m) and not board.is_castling(m))
    sim.play(board, wrong)  # the hands play some other black move
    comp.expect(r"board: .*(played|not)")  # the board (or the companion) refuses it
    sim.send("move %s %s" % (chess.square_name(wrong.to_square), chess.square_name(wrong.from_square)))
    move = chess.Move.from_uci(uci)
    sim.play(board, move)
    board.push(move)

    # 2. A takeback in casual mode: the engine's reply and then the player's move put back.
    sim.play(board, chess.Move.from_uci("g1f3"))
    board.push_uci("g1f3")
    reply = chess.Move.from_uci(comp.expect(PLAYS).group(1))
    capture = board.is_capture(reply)
    sim.play(board, reply)
    board.push(reply)
    if not capture:  # (a capture's takeback puts two pieces back: the quiet case is enough here)
        sim.send("move %s %s" % (chess.square_name(reply.to_square), chess.square_name(reply.from_square)))
        comp.expect(r"taken back: " + reply.uci())
        board.pop()
        comp.expect(r"waits")
        sim.send("move f3 g1")
        comp.expect(r"taken back: g1f3")
        board.pop()

    # 3. A hint, lit on the board and made there.
    comp.send("hint")
    hint = comp.expect(r"hint: \S+ \(lit on the board").group(0)
    shown = re.search(r"hint: (\S+)", hint).group(1)
    hint_move = board.parse_san(shown)
    sim.play(board, hint_move)
    board.push(hint_move)
    comp.expect(r"you play %s" % re.escape(shown))

    # 4. Then random moves of the hands against the engine's, to the end of the game.
    while not board.is_game_over(claim_draw=False):
        engine_reply(comp, board, sim)
        if board.is_game_over(claim_draw=False):
            break
        moves = [m for m in board.legal_moves if m.promotion in (None, chess.QUEEN)]
        move = rng.choice(moves)
        sim.play(board, move)
        board.push(move)
        comp.expect(r"you play .*\(%s\)" % move.uci())
        assert len(board.move_stack) < 300
    result = board.result(claim_draw=False)
    comp.expect(r"game over: %s" % re.escape(result))
    comp.expect(r"game saved")
    comp.stop()
    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
        assert game.headers.get(tag) not in (None, "")
    assert game.headers["Black"].startswith("Stockfish") and game.headers["Result"] == result
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]


CRASHING_ENGINE = r'''
import os, subprocess, sys, threading
# Stockfish behind a pipe that dies at its second "go", once (the marker file remembers).
marker = sys.argv[1]
sf = subprocess.Popen([sys.argv[2]], stdin=subprocess.PIPE, stdout=sys.stdout, text=True, bufsize=1)
gos = 0
for line in sys.stdin:
    if line.startswith("go"):
        gos += 1
        if gos == 2 and not os.path.exists(marker):
            open(marker, "w").close()
            sf.kill()
            os._exit(3)
    sf.stdin.write(line)
    sf.stdin.flush()
    if line.strip() == "quit":
        sf.wait()
        break
'''


def test_an_engine_that_crashes_mid_game_is_started_again_and_the_game_goes_on(rig, tmp_path):
    script = tmp_path / "crashing_engine.py"
    script.write_text(CRASHING_ENGINE)
    command = "%s %s %s %s" % (sys.executable, script, tmp_path / "crashed", STOCKFISH)
    sim, comp = rig("--time", "0.02", "--engine", command)
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    for uci in ("e2e4", "b1c3", "g1f3"):  # legal whatever Stockfish answers
        move = chess.Move.from_uci(uci)
        sim.play(board, move)
        board.push(move)
        if len(board.move_stack) == 3:
            comp.expect(r"stopped \(.*\): starting it again, the game is kept")
            comp.expect(r"is back and plays on")
        engine_reply(comp, board, sim)
    assert (tmp_path / "crashed").exists()


def test_a_companion_killed_mid_game_continues_the_game_the_board_kept(rig, tmp_path):
    sim, comp = rig("--time", "0.02")
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    for uci in ("e2e4", "b1c3"):
        sim.play(board, chess.Move.from_uci(uci))
        board.push_uci(uci)
        engine_reply(comp, board, sim)
    comp.proc.kill()  # no goodbye: as a crash or a closed window
    comp.proc.wait()
    again = Companion("engine", "--port", str(tmp_path / "board"), "--pgn", str(tmp_path / "games.pgn"),
                      "--time", "0.02")
    try:
        again.expect(r"continuing the game on the board \(4 moves\)")
        again.expect("the pieces on the board match the game")
        sim.play(board, chess.Move.from_uci("g1f3"))
        board.push_uci("g1f3")
        engine_reply(again, board, sim)
        again.send("quit")
        again.proc.wait(10)
    finally:
        again.stop()
        print(dump(again))
    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    assert game.headers["Result"] == "*"
