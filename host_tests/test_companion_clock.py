# The companion's chess clock against a UCI engine (`play.py engine --clock CONTROL`), on the
# simulated board over a pseudo-terminal, with Debian's Stockfish: the clock is the firmware's own
# core/clock.py, pressed at each move; the board is sent both times (CPP `time W B`) and shows
# them; a flag fall ends the game (core/arbiter.py decides loss or draw); the PGN carries the
# TimeControl tag and a [%clk] after each move. Controls of a few seconds keep each game short.
import re

import chess
import pytest

from companion_rig import PLAYS, Companion, engine_games, needs_stockfish, read_pgn

pytestmark = needs_stockfish()


@pytest.fixture
def rig(tmp_path):
    yield from engine_games(tmp_path)


def seconds(text):
    """Seconds of a clock face: 2.9 or 0:05."""
    if ":" in text:
        m, s = text.split(":")
        return int(m) * 60 + int(s)
    return float(text)


def test_a_game_on_the_clock_ends_when_the_players_flag_falls_and_its_pgn_has_the_clocks(rig, tmp_path):
    # The engine moves in 0.05 s (--time): only the player's time can run out, three seconds
    # plus one a move.
    sim, comp = rig("--clock", "0:03+1", "--time", "0.05")
    comp.expect(r"you play White against Stockfish.*clock 0:03\+1")
    assert comp.expect(r"to board: time (\d+) (\d+)").groups() == ("3000", "3000")  # sent after begin
    comp.expect("the pieces on the board match the game")
    board = chess.Board()
    for uci in ("e2e4", "b1c3"):  # legal whatever Stockfish answers
        move = chess.Move.from_uci(uci)
        sim.play(board, move)
        board.push(move)
        comp.expect(r"you play ")
        comp.expect(r"clock: White \S+, Black \S+")  # the player's press
        uci = comp.expect(PLAYS).group(1)
        reply = chess.Move.from_uci(uci)
        assert reply in board.legal_moves, uci
        sim.play(board, reply)
        board.push(reply)
        # The engine's press comes when its move is made on the board: the player's time runs.
        # (Three seconds, and one more after each move but white's first.)
        w, b = comp.expect(r"clock: White (\S+), Black (\S+)").groups()
        assert 0 < seconds(w) <= 5 and 0 < seconds(b) <= 5
    # The board shows the times the companion sent (its display, as the simulator prints it).
    sim.send("show")
    w, b = sim.expect(r"^clock app: white (\S+) - black (\S+)").groups()
    assert 0 < seconds(w) <= 5 and 0 < seconds(b) <= 5
    # The companion's own view shows both times beside the players.
    comp.send("show")
    assert re.match(r"^.\s*Stockfish.*\s\d+(\.\d|:\d\d)$", comp.expect(r"Stockfish\S*\s.*\d$").string)
    assert re.match(r"^.\s*Player\s.*\s\d+(\.\d|:\d\d)$", comp.expect(r"Player\s.*\d$").string)
    # The player thinks too long: the flag falls, and Stockfish has the pieces to mate.
    comp.expect(r"to board: time 0 \d+", timeout=10)
    comp.expect(r"to board: end timeout")
    comp.expect(r"game over: 0-1 \(White's flag fell\)")
    comp.expect(r"game saved to")

    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    assert game.headers["Result"] == "0-1"
    assert game.headers["TimeControl"] == "3+1"
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    clocks = [node.clock() for node in game.mainline()]
    assert clocks[0] == 3  # white's first move starts the clock and costs nothing
    assert all(c is not None and 0 < c <= 5 for c in clocks), clocks
    assert "{ [%clk 0:00:03] }" in str(game)


def test_an_engine_move_not_made_on_the_board_in_time_falls_with_its_flag_and_a_lone_knight_cannot_win(rig, tmp_path):
    # White (the player) has a king and a knight, black (Stockfish) a king and a queen. The
    # engine's move is lit but the hands never make it: its time runs on until its flag falls.
    # The move does not stand, and a lone knight cannot mate a king that has a queen: a draw.
    fen = "3qk3/8/8/8/8/8/8/4K1N1 w - - 0 1"
    sim, comp = rig("--clock", "0:02", "--time", "0.05", "--fen", fen, sim_args=("--fen", fen))
    comp.expect("the pieces on the board match the game")
    board = chess.Board(fen)
    move = chess.Move.from_uci("g1f3")
    sim.play(board, move)
    board.push(move)
    lit = comp.expect(PLAYS).group(1)
    assert chess.Move.from_uci(lit) in board.legal_moves
    comp.expect(r"game over: 1/2-1/2 \(Black's flag fell, White cannot mate\)", timeout=10)
    comp.expect(r"game saved to")
    # The board was told: the lit move taken back, then the round ended as a draw.
    trace = comp.text()
    assert re.search(r"to board: undo .*\n(.*\n)*to board: end draw", trace), trace[-2000:]

    (game,) = read_pgn(str(tmp_path / "games.pgn"))
    assert game.headers["Result"] == "1/2-1/2"
    assert game.headers["TimeControl"] == "2"
    assert [m.uci() for m in game.mainline_moves()] == ["g1f3"]
    assert game.next().clock() == 2


def test_a_bad_time_control_is_refused_with_the_reason():
    comp = Companion("engine", "--port", "/nonexistent", "--clock", "5+x", "--no-keys")
    try:
        assert comp.proc.wait(20) == 2
    finally:
        comp.stop()
    assert "--clock 5+x" in comp.text() and "'x' has no place in one" in comp.text()


# ---------------------------------------------------------------------- in-process, time injected
#
# The game loop (companion.engine_game.EngineMatch) driven with the lines a board sends, the
# engine's answers put in by hand and the companion's time (engine_game.now_ms) set by the test.

class FakePort:
    def __init__(self):
        self.sent = []

    def write(self, line):
        self.sent.append(line)
        return True


class FakeEngine:
    elo = depth = None
    movetime = None

    def __init__(self):
        self.asked = []  # (fen, clocks) of each search asked for

    def think(self, board, ticket, hint=False, clocks=None):
        self.asked.append((board.fen(), clocks))


def clocked_match(control, monkeypatch, you=chess.WHITE):
    import io

    from companion import engine_game
    from companion.view import View
    from core.clock import parse_control

    now = [10000]
    monkeypatch.setattr(engine_game, "now_ms", lambda: now[0])
    port = FakePort()
    engine = FakeEngine()
    m = engine_game.EngineMatch(port, engine, control=parse_control(control), you=you,
                                view=View(out=io.StringIO()))
    m.central.want_record = False
    c = m.central
    c.on_event("board-up", "/dev/ttyACM0")
    while port.sent and port.sent[-1].split()[0] in ("mode", "feature"):
        if port.sent[-1].startswith("mode"):
            c.line(port.sent[-1])
        else:
            c.line("ok")  # every feature, time and moved among them
    c.line("fen " + m.game.fen())
    c.line("sync " + m.game.fen())
    return m, port, engine, now


def times_sent(port):
    return [tuple(int(x) for x in s.split()[1:]) for s in port.sent if s.startswith("time ")]


def test_each_press_sends_both_times_and_a_takeback_puts_the_clock_back(monkeypatch):
    m, port, engine, now = clocked_match("5+3", monkeypatch)
    assert times_sent(port)[-1] == (300000, 300000)
    m.central.line("move e2e4")  # white's first move: starts the clock, costs nothing
    assert times_sent(port)[-1] == (300000, 300000)
    fen, clocks = engine.asked[-1]
    assert clocks == {"white_clock": 300.0, "black_clock": 300.0, "white_inc": 3.0, "black_inc": 3.0}
    m.opponent_event(("engine-move", m.ticket, "e7e5"))
    assert m.central.shown == "e7e5"
    now[0] += 2500  # the player makes the engine's move on the board 2.5 s later: its time until then
    m.central.line("moved")
    assert times_sent(port)[-1] == (300000, 300000 - 2500 + 3000)
    now[0] += 4000
    m.central.line("move g1f3")
    assert times_sent(port)[-1] == (300000 - 4000 + 3000, 300500)
    assert m.pgn_clocks() == [300000, 300500, 299000]
    # The player takes the move back on the board (casual): the clock is as before it, white's
    # time having run all along.
    now[0] += 1000
    m.central.line("undo_offer")
    assert m.game.fen() == chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").fen()
    assert times_sent(port)[-1] == (300000 - 5000, 300500)
    assert m.pgn_clocks() == [300000, 300500]
    assert m.state()["wtime"] == 295000 and m.state()["btime"] == 300500


def test_a_multi_period_control_tells_the_engine_the_moves_to_go(monkeypatch):
    m, port, engine, now = clocked_match("90/40+30,30+30", monkeypatch)
    board = chess.Board()
    for white, black in (("e2e4", "e7e5"), ("g1f3", "b8c6")):
        now[0] += 1000
        m.central.line("move " + white)
        board.push_uci(white)
        fen, clocks = engine.asked[-1]
        assert fen == board.fen()
        assert clocks["remaining_moves"] == 40 - len(board.move_stack) // 2
        assert clocks["black_inc"] == 30.0
        m.opponent_event(("engine-move", m.ticket, black))
        board.push_uci(black)
        now[0] += 1000
        m.central.line("moved")


def test_a_game_ended_by_the_engines_mate_has_a_clock_on_its_last_move(monkeypatch):
    # Fool's mate with the player as white: the engine's mating move is pressed at once (the
    # game is over), not when it is made on the board, so the PGN's last move has its time too.
    m, port, engine, now = clocked_match("3+2", monkeypatch)
    for white, black in (("f2f3", "e7e5"), ("g2g4", "d8h4")):
        now[0] += 1000
        m.central.line("move " + white)
        now[0] += 500
        m.opponent_event(("engine-move", m.ticket, black))
        if black != "d8h4":
            m.central.line("moved")
    assert m.over == ("0-1", "checkmate")
    clocks = m.pgn_clocks()
    assert len(clocks) == 4 and None not in clocks
    assert clocks[-1] == 180000 + 2000 - 500 + 2000 - 500  # black's two moves, 0.5 s each, +2 s each
    assert not m.clock.running
