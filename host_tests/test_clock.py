# The clock on the whole board (docs/clock.md, docs/spec.md section 10): transcripts played through
# the firmware's pipeline (tools/hands/transcript.py), the USB `clock` command, the clock saved with the
# game and resumed paused, and who can still mate against python-chess.
#
# The expected times come from test_clock_portable.reference(), a model of the controls written
# apart from core/clock.py; the think times come from the transcript's own timestamps.
import random

import chess
import config
import pytest
import transcript
from app import App
from core.arbiter import can_mate
from core.dead import by_material
from core.position import BLACK, WHITE, Position, parse_square
from store import GameStore
from test_clock_portable import reference
from test_link import Rig
from test_store_portable import FakeFlash

DEBOUNCE = config.Settings().debounce_ms  # a place is read this long after it happens (5 ms scans)

# A legal game of 40 plies (captures, castling both ways, a promotion-free middlegame).
GAME = (
    "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 "
    "b3c2 c7c5 d2d4 d8c7 b1d2 c5d4 c3d4 a5c6 d2b3 a6a5 c1e3 a5a4 b3d2 c8d7 a1c1 c7b7 d2f1 f8c8 "
    "d4e5 d6e5 f3h4 c6d4"
).split()


def hands(moves, thinks, fen=None, start=1000):
    """Transcript events for a player's hands making `moves`, the i-th placed thinks[i] ms after the
    one before it was read; returns (events, the time each move was read by the board)."""
    pos = Position(fen) if fen else Position()
    events = []
    read_at = []
    t = start
    for uci, think in zip(moves, thinks):
        f, to = parse_square(uci[:2]), parse_square(uci[2:4])
        piece = pos.piece_at(f) & 7
        castles = piece == 6 and abs((f & 7) - (to & 7)) == 2
        # Lift, place 100 ms later (the rook 200 ms after that), read DEBOUNCE ms after the last place.
        t += think - 100 - DEBOUNCE - (200 if castles else 0)
        if pos.piece_at(to):
            events.append((t - 100, 0, to))  # the victim off first
        events.append((t, 0, f))
        t += 100
        events.append((t, 1, to))
        if castles:  # the rook after the king
            rf, rt = (to + 1, to - 1) if to > f else (to - 2, to + 1)
            events.append((t + 100, 0, rf))
            events.append((t + 200, 1, rt))
            t += 200
        t += DEBOUNCE
        read_at.append(t)
        pos.make(pos.parse_uci(uci))
    return events, read_at


def run(events, fen=transcript.STARTING_FEN, mode="strict", clock=None, settings=None):
    board = transcript.Board(fen, mode, settings=settings or transcript.SETTINGS, clock=clock)
    lines = []
    for t, occupied, sq in events:
        board.scan_until(t, lambda t, ev: lines.append(transcript.event_text(ev)))
        board.apply(occupied, sq)
    board.scan_until(events[-1][0] + 10000, lambda t, ev: lines.append(transcript.event_text(ev)))
    return board, lines


def clock_lines(lines):
    return [tuple(int(x) for x in line.split()[1:]) for line in lines if line.startswith("clock ")]


@pytest.mark.parametrize("control", ["3+2", "5d3", "5b3", "2/10+1,1/6d2,1b3", "4/12,3/8,2"])
def test_times_over_a_whole_game_match_the_reference(control):
    rng = random.Random(control)
    thinks = [rng.randrange(300, 6000, 20) for _ in GAME]  # on the board's 4 ms scans (and 5 ms ones)
    events, read_at = hands(GAME, thinks)
    board, lines = run(events, clock=control)
    assert [x for x in lines if x.startswith("move ")] == ["move " + m for m in GAME]
    # The board's thinking times: from one move read to the next (the first starts the clock).
    used = [0] + [read_at[i] - read_at[i - 1] for i in range(1, len(read_at))]
    expect = reference(control, used)
    got = clock_lines(lines)
    assert len(got) == len(GAME)
    for i, (w, b) in enumerate(got):
        assert (w if i % 2 == 0 else b) == expect[i], "ply %d of %s" % (i + 1, control)
    assert "end" not in " ".join(lines)


def test_multi_period_controls_cross_their_move_counts_on_the_board():
    # 0:20 for 3 moves, then 0:10 for 2, then 0:05 +1 for the rest: 2 s a move.
    control = "0:20/3,0:10/2,0:05+1"
    moves = GAME[:14]
    events, read_at = hands(moves, [2000] * len(moves))
    board, lines = run(events, clock=control)
    got = clock_lines(lines)
    # White: move 1 free; 2, 3 cost 2 s (20-4 = 16) and the 3rd brings period 2 (+10 = 26);
    # 4, 5 cost 2 s each (22) and bring period 3 (+5 = 27); 6, 7 cost 2 s and earn 1 s each (25).
    assert [got[i][0] for i in range(0, 14, 2)] == [20000, 18000, 26000, 24000, 27000, 26000, 25000]
    # Black's every move is timed: 18, 16, then 14 + 10 = 24; 22, 20 + 5 = 25; 24, 23.
    assert [got[i][1] for i in range(1, 14, 2)] == [18000, 16000, 24000, 22000, 25000, 24000, 23000]
    assert board.referee.clock.period == [2, 2]


def test_a_flag_falls_during_a_long_think_even_mid_move():
    events, read_at = hands(GAME[:3], [1000, 1000, 1000])
    # Black lifts a piece and holds it: the time runs out with the piece in the air.
    events.append((read_at[-1] + 500, 0, parse_square("b8")))
    board, lines = run(events, clock="0:05")
    assert lines[-1] == "end 1-0 flag"
    assert board.referee.clock.left(1, 10**6) == 0
    assert board.referee.clock.fallen == 1


def test_a_move_read_in_time_counts_even_if_the_flag_falls_during_its_commit_delay():
    # Black's move is read 4,940 ms into a 5 s control: the board commits it 200 ms later, after
    # the flag would have fallen, but the move was complete when the board read it.
    events, read_at = hands(GAME[:2], [1000, 4940])
    board, lines = run(events, clock="0:05")
    assert lines[:4] == ["move e2e4", "clock 5000 5000", "move e7e5", "clock 5000 60"]
    assert lines[-1] == "end 0-1 flag"  # then white's time runs out: 5 s later
    events, read_at = hands(GAME[:2], [1000, 5000])
    board, lines = run(events, clock="0:05")
    assert lines == ["move e2e4", "clock 5000 5000", "end 1-0 flag"]


def test_the_older_rule_an_illegal_move_loses_at_once_in_rapid():
    settings = config.Settings().updated({"illegal_moves": "lose"})
    events = [(1000, 0, parse_square("e2")), (1100, 1, parse_square("e5"))]
    board, lines = run(events, clock="15+10", settings=settings)
    assert lines == ["error illegal e2 e5", "end 0-1 illegal-move"]
    # ... but not in standard play, where FIDE's extra time applies.
    board, lines = run(events, clock="90/40+30,30+30", settings=settings)
    assert lines == ["error illegal e2 e5", "penalty b 120000"]


def test_a_second_illegal_move_against_a_bare_king_is_a_draw():
    # Black has only its king: white's second completed illegal move cannot lose (FIDE 7.5.5).
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    e = [(1000, 0, parse_square("e2")), (1100, 1, parse_square("e5")), (5000, 0, parse_square("e5")),
         (5100, 1, parse_square("e2")), (6000, 0, parse_square("e2")), (6100, 1, parse_square("e6"))]
    board, lines = run(e, fen=fen, clock="5+3")
    assert lines == ["error illegal e2 e5", "penalty b 60000", "error illegal e2 e6",
                     "end 1/2-1/2 illegal-move-insufficient"]


def test_rook_first_castling_presses_the_clock_once():
    # Casual mode: the rook's move commits and presses the clock; the king's arrival revises it
    # into castling, and the clock is as if castling had been pressed once.
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    sq = parse_square
    e = [(1000, 0, sq("a2")), (1100, 1, sq("a3")),  # white a3 starts the clock
         (3000, 0, sq("a7")), (3100, 1, sq("a6")),  # black: 2 s
         (5000, 0, sq("h1")), (5100, 1, sq("f1")),  # the rook first ... committed
         (7000, 0, sq("e1")), (7100, 1, sq("g1"))]  # ... then the king: castling at 7110
    board, lines = run(e, fen=fen, mode="casual", clock="1")
    # White's rook move at 5110 took 2 s from black's at 3110; castling, read at 7110, took 4 s.
    assert lines[-5:] == ["move h1f1", "clock 58000 58000", "undo h1f1", "move e1g1", "clock 56000 58000"]
    assert board.referee.clock.history == [60000, 58000, 56000]


def test_a_draw_offered_with_the_kings_is_made_on_the_offerers_time():
    sq = parse_square
    events, read_at = hands(GAME[:2], [1000, 1000])
    t = read_at[-1] + 1000
    # White, to move, puts the kings on d4 and d5 (a draw): white's clock runs while they go.
    events += [(t, 0, sq("e1")), (t + 3000, 1, sq("d4")), (t + 3500, 0, sq("e8")), (t + 4000, 1, sq("d5"))]
    board, lines = run(events, clock="1")
    assert lines[-1] == "end 1/2-1/2 agreement"
    c = board.referee.clock
    agreed_at = t + 4000 + DEBOUNCE + board.referee.result_ms
    assert c.left(0, 10**7) == 60000 - (agreed_at - read_at[-1])
    assert c.left(1, 10**7) == 60000 - 1000
    assert not c.running


def test_can_mate_by_material_agrees_with_python_chess():
    # core/dead.py's material line is python-chess's has_insufficient_material; the whole decision
    # (can_mate: the pawns and a short search too) proves more, never less (host_tests/test_dead.py).
    rng = random.Random(24)
    pieces = "PNBRQpnbrq"
    for _ in range(3000):
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + rng.randrange(0, 4))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for s in squares[2:]:
            p = rng.choice("NBNBNBp" if rng.random() < 0.8 else pieces)
            if p in "Pp" and chess.square_rank(s) in (0, 7):
                continue
            board.set_piece_at(s, chess.Piece.from_symbol(p if rng.random() < 0.5 else p.swapcase()))
        board.turn = chess.WHITE
        if not board.is_valid():
            continue
        pos = Position(board.fen())
        for colour, ours in ((chess.WHITE, WHITE), (chess.BLACK, BLACK)):
            assert by_material(pos, ours) == (not board.has_insufficient_material(colour)), board.fen()
            if board.has_insufficient_material(colour):
                assert not can_mate(pos, ours), board.fen()


# ---------------------------------------------------------------------- the USB link and the store


def test_the_clock_command_sets_reports_and_pauses():
    rig = Rig()
    assert rig.ask("clock") == ["clock off"]
    assert rig.ask("clock 5+") == ["err clock: '5+': a number is missing after '+' (write " + FORM + ")"]
    assert rig.ask("clock 5+3") == ["clock 300000 300000 5+3 waiting"]
    assert rig.ask("status")[0].endswith(" remote=- clock=300000,300000,waiting")
    rig.play("e2e4")
    assert "clock 300000 300000" in rig.lines()  # the clock line streams with the move
    rig.run(1000)
    got = rig.ask("clock")[0].split()
    assert got[1] == "300000" and 298000 < int(got[2]) < 300000 and got[4] == "running"
    assert rig.ask("clock 10") == ["err clock: the time control is set before the first move (new, or the start position)"]
    got = rig.ask("clock pause")[0].split()
    rig.run(2000)
    assert rig.ask("clock")[0].split() == got[:4] + ["paused"]
    assert rig.ask("clock resume")[0].endswith(" running")
    assert rig.ask("clock bogus") == [
        "err clock: the time control is set before the first move (new, or the start position)"
    ]


FORM = "MINUTES[/MOVES][+SECONDS|dSECONDS|bSECONDS], like 5+3, 5d3 or 90/40+30,30+30"


@pytest.mark.parametrize(
    "typed,said",
    [
        # Issue 29: `abc` was refused with "seconds of increment or delay 'c' is not a number".
        ("abc", "'abc' is not a time control: 'a' has no place in one (write %s)" % FORM),
        ("5+3d2", "'5+3d2': one increment or delay a period (+, d or b), not 2"),
        ("+3", "'+3': a period starts with its minutes (write %s)" % FORM),
        ("90/+30", "'90/+30': a number is missing after '/' (write %s)" % FORM),
        ("5+3,", "'5+3,': a period is empty (write %s)" % FORM),
        ("1:3", "'1:3': write seconds as two digits below 60 (like 1:30)"),
    ],
)
def test_a_bad_control_is_refused_saying_what_is_wrong_with_it_as_typed(typed, said):
    rig = Rig()
    assert rig.ask("clock " + typed) == ["err clock: " + said]
    assert rig.ask("clock") == ["clock off"]  # nothing changed


def _clock_in(state):
    """A board over USB whose clock is in `state`, and the time now."""
    rig = Rig()
    if state == "off":
        return rig
    if state == "app":
        from test_cpp import START_PLACEMENT as CPP_START
        from test_cpp import central

        rig, c = central()
        rig.ask("clock 5+3")
        c.begin(CPP_START + " w")
        c.send("time 31444 12510")
        rig.out.clear()
        return rig
    rig.ask("clock 0:05" if state == "flag-b" else "clock 5+3")
    if state == "setup":
        rig.ask("new 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")  # the LEDs guide the pieces there
        return rig
    if state == "waiting":
        return rig
    rig.play("e2e4")  # white's first move starts it
    if state == "paused":
        rig.ask("clock pause")
    elif state == "stopped":
        rig.play("f7f6")
        rig.play("d2d4")
        rig.play("g7g5")
        rig.play("d1h5")  # mate
    elif state == "flag-b":
        rig.run(6000)
    return rig


# The rule (docs/clock.md, "Start, pause, resume"): each button acts from one state only, and answers
# with the clock's line; anywhere else it is refused with `err` saying why, and nothing changes.
ACTS = {("start", "waiting"): "running", ("pause", "running"): "paused", ("resume", "paused"): "running"}
WHY = {
    "off": "no clock: set a time control first (e.g. clock 5+3)",
    "app": None,  # the app's clock rules the round: err clock: the app keeps the clock in this round
    "setup": "set up the position first (the LEDs show where pieces go)",
    "stopped": "the game is over",
    "flag-b": "the game is over",
    "waiting": "the clock is waiting: the first move (or clock start) starts it",
    "running": "the clock is running already",
}


@pytest.mark.parametrize("state", ["off", "app", "setup", "waiting", "running", "paused", "stopped", "flag-b"])
@pytest.mark.parametrize("word", ["start", "pause", "resume"])
def test_every_clock_button_in_every_state(word, state):
    rig = _clock_in(state)
    before = rig.ask("clock")
    assert before[0].split()[-1] == {"off": "off", "setup": "waiting"}.get(state, state if state != "app" else "app")
    got = rig.ask("clock " + word)
    if (word, state) in ACTS:
        assert got[0].startswith("clock ") and got[0].split()[-1] == ACTS[(word, state)]
        return
    if state == "app":
        want = "err clock: the app keeps the clock in this round"
    elif state == "paused":
        want = "err clock %s: the clock is %s" % (word, "paused: clock resume carries on" if word == "start" else "paused already")
    elif state == "setup" and word == "pause":
        want = "err clock pause: " + WHY["waiting"]
    else:
        want = "err clock %s: %s" % (word, WHY[state])
    assert got == [want]
    after = rig.ask("clock")
    assert after[0].split()[-1] == before[0].split()[-1]  # nothing changed


def test_the_simulators_buttons_follow_the_same_rule():
    import sys

    sys.path.insert(0, transcript._ROOT + "/tools/sim")
    from board_sim import BoardSim

    sim = BoardSim()
    assert sim.clock_action("pause") == "no clock: set a time control first (e.g. clock 5+3)"
    assert sim.set_clock("5+3") == ""
    assert sim.clock_action("pause") == WHY["waiting"]
    assert sim.clock_action("resume") == WHY["waiting"]
    assert sim.clock_action("start") == "" and sim.game_state()["clock"]["state"] == "running"
    assert sim.clock_action("start") == WHY["running"] and sim.clock_action("resume") == WHY["running"]
    assert sim.clock_action("pause") == "" and sim.clock_action("pause") == "the clock is paused already"
    assert sim.clock_action("start") == "the clock is paused: clock resume carries on"
    assert sim.clock_action("resume") == "" and sim.game_state()["clock"]["state"] == "running"


def test_the_clock_is_saved_with_the_game_and_resumes_paused():
    rig = Rig()
    rig.ask("clock 90/40+30,30+30")
    for m in GAME[:6]:
        rig.play(m)
    rig.run(1500)  # white thinks over its 4th move when the power goes
    ref = rig.app.referee
    before = ref.clock.times(rig.t)
    rig.app.save_due = True
    rig.app.save()
    assert b"\nclock 90/40+30,30+30 " in rig.flash.files["game.sav"]
    # Power up again on the same flash.
    store = GameStore("game.sav", rig.flash)
    app = App(config.Settings(), rig.app.matrix, rig.leds, store)
    said = []
    app.console = said.append
    app.start(10**6)
    c = app.referee.clock
    assert c is not None and not c.running and c.started
    assert c.times(10**6 + 50000) == before
    from core.clock import short_text

    assert said[-1] == "clock paused: white %s, black %s" % (short_text(before[0]), short_text(before[1]))
    assert app.referee.game.uci_moves() == GAME[:6]
    # The players resume it; white's time runs on from where it stood.
    c.resume(10**6)
    assert c.left(0, 10**6 + 1000) == before[0] - 1000


def test_old_saves_without_a_clock_still_load():
    flash = FakeFlash()
    store = GameStore("game.sav", flash)
    from core.game import Game

    g = Game()
    g.push_uci("e2e4")
    store.save(g, "strict")  # no clock_line: as a record from before the clock
    assert b"clock" not in flash.files["game.sav"]
    game, mode, notes = GameStore("game.sav", flash).resume()
    assert game.uci_moves() == ["e2e4"] and notes == []


def test_a_flag_fall_is_saved_as_the_result():
    rig = Rig()
    rig.ask("clock 0:03")
    rig.play("e2e4")
    rig.run(4000)
    assert rig.game.result == "1-0" and rig.game.reason == "flag"
    rig.app.save()
    store = GameStore("game.sav", rig.flash)
    game, mode, notes = store.resume()
    assert (game.result, game.reason) == ("1-0", "flag") and notes == []
    assert store.clock[0] == "0:03"


def test_a_bad_clock_line_in_a_save_loses_only_the_clock():
    from store_read import parse
    from test_store_portable import record

    for line in ("clock 5+3 1 2 3\n", "clock 5+ 1 1 0 0 0 0 0 0 0 0 0\n", "clock 5+3 1 1 7 0 0 0 0 0 0 0 0\n"):
        data = record("seq 1\nmode strict\nstart %s\nmoves e2e4\n" % transcript.STARTING_FEN + line)
        got = parse(data, "game.sav")
        assert got[6] == "game.sav: bad clock line %r" % line[6:-1]
        flash = FakeFlash()
        flash.files["game.sav"] = data
        store = GameStore("game.sav", flash)
        game, mode, notes = store.resume()  # the game loads, without a clock, and says so
        assert game.uci_moves() == ["e2e4"] and store.clock is None
        assert notes == [got[6] + ": the game goes on without a clock"]
    got = parse(record("seq 1\nmode strict\nstart %s\nclock 5+3 1 2 0 0 1 0 1 1 30 1 0\n" % transcript.STARTING_FEN))
    assert got[6] == ("5+3", (1, 2, 0, 0, 1, 0, 1, 1, 30), (1, 0))


def test_link_reports_a_clock_line_after_each_move_in_the_boards_dialect():
    rig = Rig()
    rig.ask("clock 1+1")
    rig.play("e2e4")
    rig.play("e7e5")
    lines = rig.lines()
    clocks = [x for x in lines if x.startswith("clock ")]
    assert len(clocks) == 2 and clocks[0] == "clock 60000 60000"
    w, b = (int(x) for x in clocks[1].split()[1:])
    assert w == 60000 and 60000 - 1000 < b <= 61000


def test_pgn_carries_the_clock_after_every_move():
    import io

    import chess.pgn

    events, read_at = hands(GAME[:9], [1000 + 500 * i for i in range(9)])
    board, lines = run(events, clock="3+2")
    from core.clock import pgn

    text = pgn(board.referee.game, board.referee.clock)
    assert '[TimeControl "180+2"]' in text
    game = chess.pgn.read_game(io.StringIO(text))
    got = [round(node.clock() * 1000) for node in game.mainline()]
    expect = [int(x.split()[1 + i % 2]) for i, x in enumerate(y for y in lines if y.startswith("clock "))]
    # [%clk] is whole seconds, rounded up as a clock shows time left.
    assert got == [-(-ms // 1000) * 1000 for ms in expect]
    assert [m.uci() for m in game.mainline_moves()] == GAME[:9]


def test_a_fallen_flag_lights_the_losers_king_as_resigned():
    from core import signals as S
    from core.display import Display

    events, read_at = hands(GAME[:1], [1000])
    board, lines = run(events, clock="0:03")
    assert lines[-1] == "end 1-0 flag"
    frame = Display().render(board.referee)
    assert frame[parse_square("e8")] == S.RESIGNED and frame[parse_square("e1")] != S.RESIGNED


# ---------------------------------------------------------------------- the simulators


def test_the_terminal_simulator_shows_both_clocks():
    import subprocess
    import sys

    script = "clock 0:05+1\nmove e2 e4\nwait 2000\nmove e7 e5\nclock pause\nwait 3000\nshow\nclock resume\nwait 9000\n"
    r = subprocess.run([sys.executable, "tools/sim_terminal.py", "--quiet"], input=script, capture_output=True,
                       text=True, cwd=transcript._ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout.splitlines()
    # Black's move was read 2,528 ms into its turn (the terminal's 500 ms settle and the 30 ms gap,
    # seen at the 4 ms scan after them).
    assert "clock 5000 3472" in out
    assert "clock 0:05+1: white 4.5 - black 3.4 | paused" in out
    assert out[-2:] == ["end 0-1 flag", "msg Black wins on time: the other side's flag fell"]


def test_the_browser_glue_sets_the_clock_and_the_engine():
    import sys

    sys.path.insert(0, transcript._ROOT + "/tools/sim")
    from board_sim import BoardSim

    sim = BoardSim()
    assert sim.set_clock("5+") == "clock: '5+': a number is missing after '+' (write " + FORM + ")"
    assert sim.game_state()["clock"] is None
    assert sim.set_clock("3+2") == ""
    assert sim.game_state()["clock"] == {"control": "3+2", "white": 180000, "black": 180000, "running": None,
                                         "state": "waiting"}
    assert sim.set_engine("black", 1) == ""
    sim.advance(1000, ((1000, 0, parse_square("e2")), (1100, 1, parse_square("e4"))))
    sim.advance(6000)
    c = sim.game_state()["clock"]
    assert c["running"] == "b" and c["state"] == "running" and c["black"] < 180000
    assert any(x.startswith("console: the board plays ") for x in sim.log)  # its move, for the player to make
    assert sim.set_clock("5+3").startswith("the clock is set before the first move")
    assert sim.clock_action("pause") == "" and sim.game_state()["clock"]["state"] == "paused"


def test_the_browser_status_says_the_boards_move_and_a_hint_in_words():
    # The page draws the board's engine's move blue; its status says it too, with the engine's
    # side and level for the page's controls (which the kings' gesture may have chosen).
    import sys

    sys.path.insert(0, transcript._ROOT + "/tools/sim")
    from board_sim import BoardSim

    sim = BoardSim()
    assert sim.set_mode("casual") == "" and sim.set_engine("black", 1) == ""
    sim.advance(1000, ((1000, 0, parse_square("e2")), (1100, 1, parse_square("e4"))))
    sim.advance(3000)
    g = sim.game_state()
    assert g["engine"] == ["black", 1]
    line = [x for x in sim.log if x.startswith("console: the board plays ") and len(x) == 29][-1]
    uci = line[-4:]
    after_e4 = chess.Board()  # python-chess names the move separately
    after_e4.push_uci("e2e4")
    shown = "%s (%s)" % (after_e4.san(chess.Move.from_uci(uci)), uci)
    assert g["status"] == "Black to move; the board plays %s: make its move on the board" % shown
    sim.advance(4000, ((3500, 0, parse_square(uci[:2])), (3600, 1, parse_square(uci[2:]))))
    sim.advance(6000)
    assert sim.game_state()["status"] == "White to move" and sim.game_state()["uci"][-1] == uci
    # Casual mode: both kings lifted and put back on the player's turn ask for a hint.
    e1, e8 = parse_square("e1"), parse_square("e8")
    sim.advance(8000, ((6500, 0, e1), (6600, 0, e8), (7000, 1, e1), (7100, 1, e8)))
    sim.advance(12000)
    hint = [x for x in sim.log if x.startswith("console: hint: ")][-1][-4:]
    assert sim.game_state()["status"].startswith("White to move; hint: ")
    assert sim.game_state()["status"].endswith(" (%s)" % hint)
    assert sim.set_engine("none", 1) == "" and sim.game_state()["engine"] is None


def test_in_a_cpp_round_the_board_shows_the_apps_clock():
    from test_cpp import START_PLACEMENT as CPP_START
    from test_cpp import central

    rig, c = central()
    rig.ask("clock 5+3")  # the board's own clock, replaced by the app's once it sends times
    c.begin(CPP_START + " w")
    c.send("time 31444 12510")
    rig.out.clear()
    assert rig.ask("clock") == ["clock 31444 12510 app app"]
    assert rig.ask("status")[0].endswith(" clock=31444,12510,app")
    assert rig.ask("clock pause") == ["err clock: the app keeps the clock in this round"]


def test_while_a_cpp_app_keeps_the_clock_the_boards_own_neither_runs_nor_flags():
    from test_cpp import START_PLACEMENT as CPP_START
    from test_cpp import central

    rig, c = central()
    rig.ask("clock 0:10")  # the board's own clock: 10 s, which the app's 15 minutes replace
    c.begin(CPP_START + " w")
    c.send("time 900000 900000")
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.send("time 899000 900000")
    rig.run(12000)  # black thinks 12 s: the board's 10 s would have run out
    c.run(0)
    ref = rig.app.referee
    assert ref.game.result == "*" and ref.phase == 0
    assert rig.ask("clock") == ["clock 899000 900000 app app"]
    c.end("abort")
    assert rig.ask("clock")[0].endswith(" 0:10 waiting")  # the board's own clock is back
    assert ref.clock is not None and not ref.clock.running


def test_a_cpp_round_begun_after_times_were_sent_lays_the_boards_clock_aside():
    from test_cpp import START_PLACEMENT as CPP_START
    from test_cpp import central

    rig, c = central()
    rig.ask("clock 0:10")
    c.send("time 900000 900000")  # before the round
    c.begin(CPP_START + " w")
    rig.play("e2e4")
    c.run(0)
    c.accept()
    rig.run(12000)
    c.run(0)
    assert rig.app.referee.game.result == "*"


# ---------------------------------------------------------------------- the clock display (OLED)


def _face(clock="5+3"):
    from hardware.clock_face import ClockFace
    from fake_oled import FakeSsd1306Bus
    from hardware.ssd1306 import Ssd1306

    bus = FakeSsd1306Bus()
    oled = Ssd1306(bus)
    oled.init()
    oled.flush()
    board = transcript.Board(clock=clock)
    app = [None]
    face = ClockFace(oled, board.referee, lambda: app[0])
    return bus, oled, board, face, app


def _read(bus, half, scale=3):
    from hardware.ssd1306 import FONT, FONT_CHARS

    return bus.text(32 * half, 32 * half + 32, FONT_CHARS, FONT, scale, x_from=5)


def _settle(face, oled, now):
    face.step(now)
    while oled.busy():
        face.step(now)


def _bar(bus, half):
    return all(bus.pixel(x, 32 * half + 16) for x in range(4))


def test_the_display_initialises_the_panel_and_shows_both_times():
    bus, oled, board, face, app = _face("5+3")
    assert bus.on and bus.charge_pump and bus.horizontal
    _settle(face, oled, 0)
    assert (_read(bus, 0), _read(bus, 1)) == ("5:00", "5:00") and not _bar(bus, 0) and not _bar(bus, 1)
    events, read_at = hands(GAME[:1], [1000])
    for t, occupied, sq in events:
        board.scan_until(t)
        board.apply(occupied, sq)
    board.scan_until(read_at[0] + 300)
    _settle(face, oled, board.now)
    assert _bar(bus, 0) and not _bar(bus, 1)  # black's time runs: the bar is on black's (upper) half
    _settle(face, oled, read_at[0] + 61500)  # 61.5 s into black's turn
    assert (_read(bus, 0), _read(bus, 1)) == ("3:59", "5:00")
    _settle(face, oled, read_at[0] + 291000)  # under ten seconds: tenths
    assert _read(bus, 0) == "9.0"


def test_the_display_sends_a_little_per_scan_and_nothing_when_idle():
    bus, oled, board, face, app = _face("5+3")
    _settle(face, oled, 0)
    before = bus.transfers
    sent = bus.data_bytes
    for t in range(5, 500, 5):
        face.step(t)  # the clock is waiting: nothing changes, nothing goes out
    assert bus.transfers == before
    board.referee.clock.start(1000)
    board.referee.version += 1
    face.step(2000)
    assert bus.transfers - before == 2  # one 32-column piece: its window, then its 32 bytes
    n = 1
    while oled.busy():
        face.step(2000)
        n += 1
    # One half redrawn (white's, whose time runs): its 4 pages of 4 pieces of 32 columns at most.
    assert n <= 16 and bus.data_bytes - sent == 32 * n


def test_the_display_shows_a_fallen_flag_a_pause_and_an_apps_clock():
    bus, oled, board, face, app = _face("0:05")
    c = board.referee.clock
    c.start(0)
    board.scan_until(6000)
    assert board.referee.game.reason == "flag"
    _settle(face, oled, 6000)
    assert (_read(bus, 0), _read(bus, 1)) == ("5.0", "FLAG")
    bus, oled, board, face, app = _face("3")
    board.referee.clock.start(0)
    board.referee.clock.pause(1500)
    board.referee.version += 1
    _settle(face, oled, 1500)
    assert (_read(bus, 0, scale=2), _read(bus, 1)) == ("3:00 P", "2:59")  # six characters: smaller
    app[0] = (31444, 12510)
    board.referee.version += 1
    _settle(face, oled, 1600)
    assert (_read(bus, 0), _read(bus, 1)) == ("0:13", "0:32")
    app[0] = None
    board.referee.set_clock(None)
    _settle(face, oled, 1700)
    assert bus.rows() == ["." * 128] * 64  # no clock: a blank display


def test_the_display_counts_down_across_the_tick_wrap():
    bus, oled, board, face, app = _face("5")
    top = 1 << 30  # time.ticks_ms wraps here
    board.referee.clock.start(top - 3000)
    board.referee.version += 1
    for now in list(range(top - 3000, top, 500)) + list(range(0, 5001, 500)):
        _settle(face, oled, now)
    assert _read(bus, 1) == "4:52"  # 8 s of white's time, 3 before the wrap and 5 after


def test_the_wiring_makes_the_display_or_says_why_not():
    from hardware import pico
    from fake_oled import FakeSsd1306Bus

    made = []

    class Machine:
        class Pin:
            def __init__(self, n):
                self.n = n

        @staticmethod
        def I2C(block, sda, scl, freq):
            made.append((block, sda.n, scl.n, freq))
            return FakeSsd1306Bus(address=0x3C if block == 1 else 0x3D)

    s = config.Settings().updated({"oled_sda": 26, "oled_scl": 27})
    said = []
    oled = pico.make_oled(s, Machine, said.append)
    assert oled is not None and made == [(1, 26, 27, 400000)] and said == []
    assert oled.i2c.on
    s = config.Settings().updated({"oled_i2c_id": 0, "oled_sda": 0, "oled_scl": 1})
    assert pico.make_oled(s, Machine, said.append) is None
    assert said == ["no clock display answers on I2C0 (GPIO 0, 1): [Errno 19] no device at 0x3c"]
    assert pico.make_oled(config.Settings(), Machine, said.append) is None  # none configured


def test_display_pins_are_checked():
    with pytest.raises(config.SettingsError, match="oled_scl: give both"):
        config.Settings().updated({"oled_sda": 26})
    with pytest.raises(config.SettingsError, match="oled_sda: GPIO 27 cannot be I2C1 SDA"):
        config.Settings().updated({"oled_sda": 27, "oled_scl": 26})
    with pytest.raises(config.SettingsError, match="oled_sda: GPIO 2 is already used by column_pins"):
        config.Settings().updated({"oled_sda": 2, "oled_scl": 3})


def test_low_time_lights_the_king_of_the_side_to_move():
    from core import signals as S
    from core.display import Display

    events, read_at = hands(GAME[:1], [1000])
    board = transcript.Board(clock="0:15")
    for t, occupied, sq in events:
        board.scan_until(t)
        board.apply(occupied, sq)
    e8 = parse_square("e8")
    board.scan_until(read_at[0] + 4995)  # black has 10.005 s left
    version = board.referee.version
    assert Display().render(board.referee)[e8] == 0 and not board.referee.clock.low
    board.scan_until(read_at[0] + 5005)  # under ten seconds: the referee tells the LEDs to redraw
    assert board.referee.clock.low and board.referee.version > version
    assert Display().render(board.referee)[e8] == S.LOW_TIME
    assert Display().render(board.referee)[parse_square("e1")] != S.LOW_TIME


def test_pieces_knocked_over_by_the_player_who_just_moved_are_put_back_on_its_time():
    # White moves, and within a second its hand knocks two pieces over (they fall within a few ms);
    # it puts them back 4.5 s later. That time is white's (FIDE 7.4), not black's; black's clock
    # runs again once the board is right.
    sq = parse_square
    events, read_at = hands(GAME[:1], [1000])
    t = read_at[0]
    events += [(t + 500, 0, sq("c2")), (t + 505, 0, sq("d2")), (t + 5000, 1, sq("c2")), (t + 5100, 1, sq("d2"))]
    board, lines = run(events[:], clock="0:30")
    c = board.referee.clock
    assert not c.lent and c.side == 1
    back = c.turn_at  # when the board read the last piece back (black's time runs again from then)
    assert t + 5100 < back <= t + 5100 + 3 * DEBOUNCE
    knock = board.referee.knocked_at  # when the board read the first piece fall
    assert c.lent_for == knock and t + 500 < knock <= t + 500 + 3 * DEBOUNCE
    assert c.left(0, back) == 30000 - (back - knock)  # from the knock until the pieces were back
    assert c.left(1, back) == 30000 - c.used and abs(c.used - (knock - t)) <= DEBOUNCE  # black: until the knock
    # The same knock long after the move (the side to move's own hand, reaching): its own time.
    events, read_at = hands(GAME[:1], [1000])
    t = read_at[0]
    events += [(t + 3000, 0, sq("c2")), (t + 3005, 0, sq("d2")), (t + 6000, 1, sq("c2")), (t + 6100, 1, sq("d2"))]
    board, lines = run(events, clock="0:30")
    c = board.referee.clock
    assert c.left(0, t + 7000) == 30000 and abs(c.left(1, t + 7000) - (30000 - 7000)) <= DEBOUNCE


def _referee_hands(ref, clock):
    """A referee with a clock and a player's hands on it: (step(ms), move(from, to), [now])."""
    now = [0]

    def step(ms):
        for _ in range(ms // 5):
            now[0] += 5
            ref.tick(now[0])

    def move(a, b, settle=400):
        ref.lift(parse_square(a), now[0])
        step(100)
        ref.place(parse_square(b), now[0])
        step(settle)

    ref.set_clock(clock)
    return step, move, now


def test_a_legal_move_refused_for_the_boards_own_move_is_not_an_illegal_move():
    # The board's engine shows e7e5 and accepts only it; d7d5 and d7d6 are legal, refused and
    # guided back, but neither is an illegal move under FIDE 7.5: no penalty, no loss.
    from core.referee import Referee, event_text

    ref = Referee()
    step, move, now = _referee_hands(ref, "5+3")
    move("e2", "e4")
    ref.show_remote(ref.game.position.parse_uci("e7e5"))
    ref.remote_required = True
    move("d7", "d5", 3000)
    move("d5", "d7", 500)
    move("d7", "d6", 3000)
    lines = [event_text(e) for e in ref.out]
    assert "error illegal d7 d5" in lines and "error illegal d7 d6" in lines
    assert not [x for x in lines if x.startswith(("penalty", "end"))], lines
    assert ref.illegal_count == [0, 0] and ref.game.result == "*"
    # A move the rules refuse is still one (the pawn cannot go to d4).
    move("d6", "d7", 500)
    move("d7", "d4", 3000)
    assert event_text(ref.out[-1]) == "penalty w 60000"


def test_a_penalty_stops_at_the_clocks_maximum_and_the_game_saves_and_resumes():
    # Black's illegal move gives white 2 minutes on top of a 600-minute control's 600 minutes.
    rig = Rig()
    rig.ask("clock 600")
    rig.play("e2e4")
    rig.lift("e7")
    rig.place("d5")
    rig.run(3000)
    assert "penalty w 120000" in rig.lines()
    assert rig.app.referee.clock.base[0] == 36000000  # the maximum, as a press would cap it
    rig.lift("d5")
    rig.place("e7")
    rig.run(500)
    rig.play("e7e5")
    rig.app.save_due = True
    rig.app.save()
    app = App(config.Settings(), rig.app.matrix, rig.leds, GameStore("game.sav", rig.flash))
    said = []
    app.console = said.append
    app.start(10**6)
    assert app.referee.game.uci_moves() == ["e2e4", "e7e5"], said
    assert app.referee.clock is not None and app.referee.illegal_count == [0, 1]


def test_a_game_saved_without_a_clock_resumes_without_one():
    rig = Rig()  # board.json without a clock: the game has none
    for m in GAME[:4]:
        rig.play(m)
    rig.app.save_due = True
    rig.app.save()
    assert b"clock" not in rig.flash.files["game.sav"]
    # Powered up with board.json's "clock": "0:05" now: the resumed game still has no clock.
    settings = config.Settings().updated({"clock": "0:05"})
    app = App(settings, rig.app.matrix, rig.leds, GameStore("game.sav", rig.flash))
    app.console = lambda text: None
    app.start(10**6)
    assert app.referee.game.uci_moves() == GAME[:4] and app.referee.clock is None
    for i in range(1200):  # 6 s: no flag falls on a clock the game does not have
        app.step(10**6 + 5 * i)
    assert app.referee.game.result == "*"
    # A new game has board.json's clock again.
    app.referee.take_clock_back()
    assert app.referee.clock is not None and app.referee.clock.periods == ((5000, 0, 0, 0),)


def test_the_clock_waits_while_the_board_is_set_up():
    from link.link import Link

    rig = Rig()
    rig.ask("clock 0:05")
    rig.play("e2e4")
    rig.run(1000)
    rig.play("e7e5")
    rig.app.save_due = True
    rig.app.save()
    rig.vm.lift(parse_square("a1"))  # knocked off while the power was off: the board is set up
    app = App(config.Settings(), rig.app.matrix, rig.leds, GameStore("game.sav", rig.flash))
    out = []
    link = Link(app, out.append, lambda data: None)
    app.console = link.info
    app.start(10**6)
    assert app.referee.phase == 1  # SETUP
    for word in ("resume", "start"):
        link.feed("clock %s\n" % word)
        link.poll(10**6)
        assert out[-1].startswith("err clock %s: set up the position first" % word), out
    assert not app.referee.clock.running


def test_a_move_made_after_the_time_ran_out_on_a_stopped_clock_lets_the_flag_fall():
    from core.referee import Referee, event_text

    ref = Referee()
    step, move, now = _referee_hands(ref, "0:05")
    move("e2", "e4")
    c = ref.clock
    c.pause(now[0] + 7000)  # black's 5 s ran out on a clock stopped without a scan in between
    step(8000)
    move("e7", "e5")
    assert [event_text(e) for e in ref.out][-1] == "end 1-0 flag"
    assert c.times(now[0]) == (5000, 0) and min(c.base) >= 0
