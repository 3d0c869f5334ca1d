# The companion on "Lichess": a local server of the Board API (fake_lichess.py, 127.0.0.1 only)
# with the documented ndjson streams, the simulated board on a pseudo-terminal, scripted hands.
# One game goes through a seek, chat, an opponent who leaves and comes back, a game stream that
# stalls and one that drops mid-game (the opponent's move made meanwhile arrives through
# gameFull), the board unplugged and plugged back with a move lit, a draw offer declined by a
# move, and a resignation with the kings' sign; then the PGN is checked.
import os
import socket
import time

import chess
import pytest

from companion_rig import Companion, SimBoard, dump, read_pgn
from fake_lichess import FakeLichess

TOKEN = "lip_secret_token_never_printed"
PLAYS = r"plays \S+ \((\w+)\): make it on the board"


def wait_for(condition, timeout=10):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


def free_port():
    for port in range(8900, 8920):
        with socket.socket() as s:
            # As the server binds (HTTPServer.allow_reuse_address): a port left in TIME_WAIT by the
            # previous test's connections is free for it.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    pytest.skip("no free port in 8900-8919")


@pytest.fixture
def rig(tmp_path):
    parts = []
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    server = FakeLichess(TOKEN, free_port()).start()

    def start(*companion_args):
        link = str(tmp_path / "board")
        sim = SimBoard(link)
        parts.append(sim)
        comp = Companion("lichess", "--server", server.url, "--token-file", str(token_file), "--port", link,
                         "--pgn", str(tmp_path / "games.pgn"), "--stream-timeout", "1.5", "--trace", *companion_args)
        parts.append(comp)
        return sim, comp

    yield server, start
    for p in reversed(parts):
        p.stop()
    server.stop()
    text = dump(*parts)
    print(text)
    assert TOKEN not in text


# White's moves (the hands) and Black's (the server's opponent): the kings end castled, d4 and e5 empty.
WHITE = ["g1f3", "g2g3", "f1g2", "e1g1", "c2c4", "b1c3", "a2a3"]
BLACK = ["g8f6", "g7g6", "f8g7", "e8g8", "c7c5", "b8c6", "a7a6"]


def test_a_seek_game_with_stalls_drops_an_unplugged_board_and_a_resignation(rig, tmp_path):
    server, start = rig
    server.next_game = (True, list(BLACK))
    sim, comp = start("--seek", "10+0")
    comp.expect(r"signed in to .* as Tester")
    comp.expect(r"Casual Rapid game \(600\+0\) against Opponent: you play White")
    comp.expect("the pieces on the board match the game")
    board = chess.Board()

    def white(uci):
        move = chess.Move.from_uci(uci)
        sim.play(board, move)
        board.push(move)
        comp.expect(r"you play .*\(%s\)" % uci)

    def black():
        uci = comp.expect(PLAYS).group(1)
        assert uci == BLACK[len(board.move_stack) // 2]
        move = chess.Move.from_uci(uci)
        sim.play(board, move)
        board.push(move)

    white(WHITE[0])
    black()
    comp.send("show")  # the view, clocks included (a pipe gets it on request)
    comp.expect(r"Opponent\s+10:00")
    server.chat("good luck!")
    comp.expect(r"chat Opponent: good luck!")
    server.gone(True, 10)
    comp.expect(r"Opponent has left the game \(the win can be claimed in 10 s\)")
    server.gone(False)
    comp.expect(r"Opponent is back")

    # A game stream that stalls: no line, no keep-alive. The read time-out notices, it comes back.
    server.stall()
    comp.expect(r"Lichess game stream lost \(no data for too long \(stalled\)\)", timeout=10)
    comp.expect(r"back in step with Lichess")
    white(WHITE[1])
    black()

    # A stream dropped mid-game: the opponent's reply, made meanwhile, comes with gameFull.
    server.drop()
    comp.expect(r"Lichess game stream lost")
    white(WHITE[2])
    black()
    assert server.streams_open() == 1  # one game stream at a time

    # The board unplugged while the opponent moves: plugged back, the move is lit again.
    server.reply_delay = 1.0
    white(WHITE[3])
    sim.send("unplug")
    comp.expect(r"the board is unplugged")
    comp.expect(r"plays O-O")
    sim.send("plug")
    comp.expect(r"board connected")
    comp.expect(r"to board: move e8g8")
    move = chess.Move.from_uci(BLACK[3])
    sim.play(board, move)
    board.push(move)
    server.reply_delay = 0.15
    # A move made on the board while it is unplugged: the board keeps it, it reaches Lichess.
    sim.send("unplug")
    comp.expect(r"the board is unplugged")
    white_move = chess.Move.from_uci(WHITE[4])
    sim.play(board, white_move)  # made while unplugged: the board keeps it
    board.push(white_move)
    sim.send("plug")
    comp.expect(r"the board has a move made while the PC was not listening: c4")
    black()

    # A draw offer, declined by a move.
    server.offer_draw()
    comp.expect(r"Opponent offers a draw")
    white(WHITE[5])
    black()
    assert ("POST", "/api/board/game/seek0000/draw/no") in server.requests

    # Resignation with the kings' sign: White's king on d4, Black's on e5 (the dark centre squares).
    sim.send("lift g1; place d4; lift g8; place e5")
    comp.expect(r"resigning on Lichess")
    comp.expect(r"game over: 0-1 \(resignation\)")
    comp.expect(r"game saved")
    comp.stop()
    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    assert game.headers["White"] == "Tester" and game.headers["Black"] == "Opponent"
    assert game.headers["Result"] == "0-1" and game.headers["Site"].endswith("/seek0000")
    assert game.headers["Event"] == "Casual Rapid game" and game.headers["TimeControl"] == "600+0"
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]


def test_a_challenge_accepted_and_a_game_in_progress_resumed(rig, tmp_path):
    server, start = rig
    sim, comp = start("--accept", "opponent")
    comp.expect(r"waiting for a challenge from opponent")
    server.challenge("chal0001", False, ["e2e4"])
    comp.expect(r"accepting the challenge of Opponent \(10\+5\)")
    comp.expect(r"you play Black")
    board = chess.Board()
    uci = comp.expect(PLAYS).group(1)
    assert uci == "e2e4"
    sim.play(board, chess.Move.from_uci(uci))
    board.push_uci(uci)
    sim.play(board, chess.Move.from_uci("e7e5"))
    board.push_uci("e7e5")
    comp.expect(r"you play e5")
    comp.send("say thanks")
    comp.expect(r"chat Tester: \(sent\)")
    comp.send("quit")
    comp.proc.wait(10)
    # Started again with no option: the game in progress is resumed where it stands.
    comp2 = Companion("lichess", "--server", server.url, "--token-file", str(tmp_path / "token"), "--port",
                      str(tmp_path / "board"), "--pgn", str(tmp_path / "games.pgn"), "--stream-timeout", "1.5")
    try:
        comp2.expect(r"playing game .*/chal0001")
        comp2.expect(r"you play Black")
        server.opponent_resigns()
        comp2.expect(r"game over: 0-1 \(resignation\)")
        comp2.expect(r"game saved")
    finally:
        comp2.stop()
        print(dump(comp2))
    games = read_pgn(str(tmp_path / "games.pgn"))
    assert [g.headers["Result"] for g in games] == ["*", "0-1"]
    assert [m.uci() for m in games[-1].mainline_moves()] == ["e2e4", "e7e5"]


def test_a_game_named_by_id_aborted_from_the_keyboard(rig, tmp_path):
    server, start = rig
    server.add_game("abcd1234", True, ["e7e5"])
    sim, comp = start("--game", "abcd1234")
    comp.expect(r"you play White")
    comp.expect("the pieces on the board match the game")
    comp.send("abort")
    comp.expect(r"game over: \* \(aborted\)")
    comp.expect(r"game saved")
    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    assert game.headers["Result"] == "*" and game.headers["Site"].endswith("/abcd1234")


def test_a_draw_offered_by_the_opponent_accepted_with_the_kings_sign(rig, tmp_path):
    server, start = rig
    server.add_game("draw0001", True, [])
    sim, comp = start("--game", "draw0001")
    comp.expect("the pieces on the board match the game")
    server.offer_draw()
    comp.expect(r"Opponent offers a draw")
    sim.send("lift e1; place d4; lift e8; place d5")  # one king on d4 or e5, the other on d5 or e4
    comp.expect(r"you accept the draw")
    comp.expect(r"game over: 1/2-1/2")
    assert ("POST", "/api/board/game/draw0001/draw/yes") in server.requests


def test_a_seek_faster_than_rapid_is_refused_with_the_reason(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    comp = Companion("lichess", "--seek", "3+2", "--token-file", str(token_file), "--server", "http://127.0.0.1:1")
    assert comp.proc.wait(20) == 2
    comp.q.get(timeout=5)
    assert "only seeks rapid or slower" in comp.text()
    assert TOKEN not in comp.text()
    os.environ.get("CI")


def test_a_draw_offered_on_the_players_own_turn_and_declined_lets_the_game_go_on(rig, tmp_path):
    # Issue 23: the board's draw_offer was never answered when the opponent declined on the
    # player's turn (only an opponent's move answered it), and the board read no further move.
    server, start = rig
    server.add_game("own00001", True, ["e7e5"])
    sim, comp = start("--game", "own00001")
    comp.expect("the pieces on the board match the game")
    sim.send("lift e1; place d4; lift e8; place d5")  # the kings' draw sign on White's own turn
    comp.expect(r"draw offered to Opponent")
    wait_for(lambda: ("POST", "/api/board/game/own00001/draw/yes") in server.requests)
    server.decline_my_draw()
    comp.expect(r"to board: nok")
    comp.expect(r"Opponent declines the draw: play on")
    sim.send("lift d4; place e1; lift d5; place e8")  # the kings home again, as the LEDs show
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"you play e4")
    comp.expect(r"Opponent plays e5")


def test_a_move_answered_429_waits_then_goes_through_once(rig, tmp_path):
    # Issue 23: a 429 was taken as a refusal (the move put back, a replay sent 1.3 s later).
    server, start = rig
    server.add_game("slow0001", True, ["e7e5"])
    sim, comp = start("--game", "slow0001", "--rate-limit-wait", "1")
    comp.expect("the pieces on the board match the game")
    server.too_many = 1
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"you play e4")
    comp.expect(r"Lichess asks for a pause \(too many requests\): your move e2e4 goes in 1 s; your clock runs there")
    comp.expect(r"Opponent plays e5")
    assert server.moves_seen == ["e2e4"]
    assert "refused" not in comp.text()


def test_a_refused_move_is_put_back_with_lichess_reason(rig, tmp_path):
    server, start = rig
    g = server.add_game("gone0001", True, ["e7e5"])
    sim, comp = start("--game", "gone0001")
    comp.expect("the pieces on the board match the game")
    with server.lock:
        g.board.push_uci("d2d4")  # Lichess's game moved on behind the board's back: e2e4 is refused
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"Lichess refused the move e2e4 \(Not your turn, or an invalid move\): it is put back")


def test_a_move_made_on_the_board_while_the_companion_was_closed_reaches_lichess(rig, tmp_path):
    # Issue 23: the board answers before gameFull comes (nearly always), and the move made on it
    # while no companion listened was lost ("brought back in step", the LEDs asking for it back).
    server, start = rig
    server.add_game("away0001", True, ["e7e5"])
    link = str(tmp_path / "board")
    sim = SimBoard(link)
    try:
        board = chess.Board()
        sim.play(board, chess.Move.from_uci("e2e4"))  # on the board alone, no PC
        time.sleep(0.5)
        comp = Companion("lichess", "--server", server.url, "--token-file", str(tmp_path / "token"), "--port", link,
                         "--pgn", str(tmp_path / "games.pgn"), "--stream-timeout", "1.5", "--game", "away0001")
        try:
            comp.expect(r"the board has a move made while the PC was not listening: e4")
            comp.expect(r"Opponent plays e5")
            assert server.moves_seen == ["e2e4"]
            assert "brought back in step" not in comp.text() and TOKEN not in comp.text()
        finally:
            comp.stop()
            print(dump(comp))
    finally:
        sim.stop()


def test_a_move_sent_while_the_network_drops_goes_through_once_it_is_back(rig, tmp_path):
    # Issue 23: after 6 tries (about 28 s) the move was dropped and the board put back.
    server, start = rig
    server.add_game("cut00001", True, ["e7e5"])
    sim, comp = start("--game", "cut00001")
    comp.expect("the pieces on the board match the game")
    server.cut_posts = 2
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"Lichess has not got your move e2e4 yet \(.*\): your clock runs there")
    comp.expect(r"Opponent plays e5")
    assert server.moves_seen == ["e2e4"]


def test_the_next_game_of_a_session_is_a_new_game_in_the_pgn(rig, tmp_path):
    # Issue 23: only the first game reached the PGN; the next was "back in step with Lichess".
    server, start = rig
    sim, comp = start("--accept")
    comp.expect(r"waiting for a challenge")
    server.challenge("one00001", True, [])
    comp.expect(r"you play White")
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("d2d4"))
    comp.expect(r"you play d4")
    server.opponent_resigns()
    comp.expect(r"game over: 1-0 \(resignation\)")
    comp.expect(r"game saved")
    server.challenge("two00002", True, [])
    comp.expect(r"Casual Rapid game .* you play White")
    comp.expect(r"the board is brought back|the pieces|to board: begin")
    server.opponent_resigns()
    comp.expect(r"game over: 1-0 \(resignation\)")
    comp.expect(r"game saved")
    comp.stop()
    games = read_pgn(str(tmp_path / "games.pgn"))
    assert [g.headers["Site"].rsplit("/", 1)[1] for g in games] == ["one00001", "two00002"]
    assert "back in step with Lichess" not in comp.text()


def test_an_under_promotion_chosen_by_a_tap_on_the_board(rig, tmp_path):
    # Issue 23: a tap flipped the new piece to a rook and straight back to a queen.
    server, start = rig
    fen = "7k/P7/8/8/8/8/8/4K3 w - - 0 1"
    server.add_game("prom0001", True, ["h8h7"], fen=fen)
    link = str(tmp_path / "board")
    sim = SimBoard(link, "--fen", fen)
    comp = Companion("lichess", "--server", server.url, "--token-file", str(tmp_path / "token"), "--port", link,
                     "--pgn", str(tmp_path / "games.pgn"), "--stream-timeout", "1.5", "--game", "prom0001", "--trace")
    try:
        comp.expect("the pieces on the board match the game")
        sim.send("move a7 a8")
        sim.send("tap a8")  # the queen becomes a rook
        comp.expect(r"promotion to a rook")
        comp.expect(r"you play a8=R\+")
        comp.expect(r"Opponent plays Kh7")
        assert server.moves_seen == ["a7a8r"]
    finally:
        comp.stop()
        sim.stop()
        print(dump(sim, comp))


def test_slow_taps_for_a_knight_are_all_counted_before_the_companion_sends_the_move(rig, tmp_path):
    # Issue 29 item 7, the companion's side: the 2 s ran from the move, so taps 0.9 s apart sent the
    # bishop while the player was still tapping for the knight. The wait runs from the last tap.
    server, start = rig
    fen = "7k/P6p/8/8/8/8/8/4K3 w - - 0 1"  # a black pawn left: a knight or bishop can still mate
    server.add_game("prom0003", True, ["h8g7"], fen=fen)
    link = str(tmp_path / "board")
    sim = SimBoard(link, "--fen", fen)
    comp = Companion("lichess", "--server", server.url, "--token-file", str(tmp_path / "token"), "--port", link,
                     "--pgn", str(tmp_path / "games.pgn"), "--stream-timeout", "1.5", "--game", "prom0003", "--trace")
    try:
        comp.expect("the pieces on the board match the game")
        sim.send("move a7 a8")
        for _ in "rbn":  # queen -> rook -> bishop -> knight, a tap every 0.9 s
            time.sleep(0.9)
            sim.send("tap a8")
            assert server.moves_seen == [], "sent while the player still taps"
        comp.expect(r"promotion to a knight")
        comp.expect(r"Opponent plays Kg7")
        assert server.moves_seen == ["a7a8n"]
        assert "promotion to a bishop" not in comp.text()
    finally:
        comp.stop()
        sim.stop()
        print(dump(sim, comp))


@pytest.mark.parametrize("status, winner, said, result, loser", [
    ("resign", "me", r"game over: 1-0 \(resignation\)", "1-0", "e8"),
    ("outoftime", "them", r"game over: 0-1 \(you ran out of time\)", "0-1", "e1"),
    ("timeout", "me", r"game over: 1-0 \(your opponent left the game\)", "1-0", "e8"),
])
def test_a_game_lichess_ends_is_shown_ended_on_the_board(rig, tmp_path, status, winner, said, result, loser):
    # Issue 29 item 9: a resignation, a flag or a claimed win on Lichess left the board showing
    # whose move it was. The board's game ends too, on the loser's king (`end REASON RESULT`).
    server, start = rig
    server.add_game("over0001", True, ["e7e5"])
    sim, comp = start("--game", "over0001")
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"Opponent plays e5")  # said once the move went to the board to light
    time.sleep(0.5)  # the board has it lit: the hands make it (not a move of their own)
    sim.play(board, chess.Move.from_uci("e7e5"))
    comp.expect(r"from board: moved")
    server.ends(status, winner)
    # The companion's words and its line to the board come from two threads: either may be first.
    comp.expect(said)
    wait_for(lambda: any(line.startswith("to board: end ") and line.endswith(" " + result) for line in comp.lines))
    sim.send("wait 100")
    sim.send("show")
    sim.expect(r"status: %s" % result)
    sim.expect(r"leds: .*%s:resigned" % loser)  # the loser's king shows the resignation


def test_the_opponents_first_move_already_in_gamefull_is_said_as_well_as_lit(rig, tmp_path):
    # Issue 29 item 9: playing Black, White's first move came in gameFull: lit, never said.
    server, start = rig
    server.add_game("black001", False, ["d2d4"])
    sim, comp = start("--game", "black001")
    comp.expect(r"Opponent plays d4 \(d2d4\): make it on the board, the LEDs show it")
    comp.expect("to board: move d2d4")


def test_a_429_on_a_stream_holds_the_next_move_for_the_whole_pause(rig, tmp_path):
    # Issue 29 item 9: a 429 on the game stream paused that stream only, and a move went out 3 s
    # later, where Lichess asks for a full minute of silence from every request. Here the pause is
    # 2 s (--rate-limit-wait): the move waits it out, then goes, once.
    server, start = rig
    server.add_game("hush0001", True, ["e7e5"])
    sim, comp = start("--game", "hush0001", "--rate-limit-wait", "2")
    comp.expect("the pieces on the board match the game")
    server.too_many = 1  # the game stream's reconnect is answered 429
    server.drop()
    comp.expect(r"Lichess asks for a pause \(too many requests\): nothing is sent for 2 s")
    paused = time.monotonic()
    board = chess.Board()
    sim.play(board, chess.Move.from_uci("e2e4"))
    comp.expect(r"you play e4")
    deadline = time.monotonic() + 15
    while server.moves_seen != ["e2e4"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.moves_seen == ["e2e4"]
    assert time.monotonic() - paused >= 1.8, "the move went out inside the 429's pause"
    comp.expect(r"Opponent plays e5")
    assert server.moves_seen == ["e2e4"]
