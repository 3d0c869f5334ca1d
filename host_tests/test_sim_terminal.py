# Tests of the terminal simulator (tools/sim_terminal.py) and the glue it shares with the browser page (sim/board_sim.py).
#
# The firmware runs unmodified behind sim/board_sim.py; these tests play it through the terminal's
# commands, the way a person without a browser would, and check the events and the LED frame.
import io
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "sim"))

import board_sim  # noqa: E402
import sim_terminal  # noqa: E402  (tools/ is on sys.path through conftest.py)
from core.position import parse_square  # noqa: E402


def terminal(**kw):
    out = io.StringIO()
    term = sim_terminal.Terminal(out=out, quiet=True, **kw)
    return term, out


def play(term, out, *lines):
    """Run lines; returns the text they printed."""
    start = out.tell()
    for line in lines:
        assert term.line(line), "command failed: %r\n%s" % (line, out.getvalue()[start:])
    return out.getvalue()[start:]


def signal(term, name):
    return term.sim.frame_chars()[parse_square(name)]


def test_a_full_game_to_mate_with_castling_captures_and_an_illegal_move():
    term, out = terminal()
    text = play(term, out, "move e2 e4", "move e7 e5", "move g1 f3", "move d7 d6", "move f1 c4", "move c8 g4")
    assert text.split() == ["move", "e2e4", "move", "e7e5", "move", "g1f3", "move", "d7d6", "move", "f1c4", "move", "c8g4"]
    # Castling king first: with the king on g1 the LEDs ask for the rook, h1 to f1.
    play(term, out, "move e1 g1")
    assert (signal(term, "h1"), signal(term, "f1")) == ("*", "o")
    assert "move e1g1" in play(term, out, "move h1 f1")
    assert "move b8c6" in play(term, out, "move b8 c6")
    # An illegal move is flagged on its squares and retracted; touch-move then binds the knight.
    text = play(term, out, "move b1 b3")
    assert "error illegal b1 b3" in text
    assert (signal(term, "b3"), signal(term, "b1")) == ("!", "v")
    play(term, out, "move b3 b1")
    assert signal(term, "b1") == "t"
    assert "move b1c3" in play(term, out, "move b1 c3")
    play(term, out, "move g7 g6")
    # Capture, victim first: with the pawn off e5 the LEDs show who can take it.
    play(term, out, "lift e5")
    assert (signal(term, "e5"), signal(term, "f3")) == ("*", "x")
    assert "move f3e5" in play(term, out, "lift f3; place e5")
    # Capture by swapping: the queen is pushed off d1 as the bishop lands.
    assert "move g4d1" in play(term, out, "lift g4; lift d1; place d1")
    # Capture, own piece first, giving check.
    assert "move c4f7" in play(term, out, "lift c4; lift f7; place f7")
    assert signal(term, "e8") == "+"
    play(term, out, "move e8 e7")
    text = play(term, out, "move c3 d5")
    assert "move c3d5" in text and "end 1-0 checkmate" in text
    assert (signal(term, "e7"), signal(term, "d5")) == ("#", "m")
    g = term.sim.game_state()
    assert g["san"] == "e4 e5 Nf3 d6 Bc4 Bg4 O-O Nc6 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#".split()
    assert g["result"] == "1-0" and g["reason"] == "checkmate"
    # The terminal drew what the player did: captured pieces beside the board.
    assert sorted(term.off) == sorted("pQp")
    assert "".join(term.pieces[parse_square(s)] for s in ("g1", "f1", "d5", "e5", "d1", "f7")) == "KRNNbB"


def test_promotion_taps_cycle_to_a_knight_that_mates():
    term, out = terminal(fen="6nb/5Ppk/7p/8/8/8/8/K7 w - - 0 1")
    assert "move f7f8q" in play(term, out, "move f7 f8")
    assert signal(term, "f8") == "Q" and term.pieces[parse_square("f8")] == "Q"
    assert "promote f7f8r" in play(term, out, "tap f8")
    assert signal(term, "f8") == "R" and term.pieces[parse_square("f8")] == "R"
    assert "promote f7f8b" in play(term, out, "tap f8")
    text = play(term, out, "tap f8")
    assert "promote f7f8n" in text and "end 1-0 checkmate" in text
    assert term.pieces[parse_square("f8")] == "N"
    assert (signal(term, "h7"), signal(term, "f8")) == ("#", "m")
    assert "1. f8=N# 1-0" in term.sim.pgn()


def test_a_knocked_piece_is_shown_and_put_back():
    term, out = terminal()
    play(term, out, "move e2 e4")
    # Black to move: a white piece falling off the board cannot be part of black's move. Nothing
    # can happen to it, so it is no error (docs/spec.md section 3: it may be a piece being straightened); after
    # 3 s off its square the LEDs show where it belongs.
    text = play(term, out, "knock a2")
    assert "error" not in text
    assert signal(term, "a2") == "*"
    play(term, out, "wait 3000")
    assert signal(term, "a2") == "v"
    assert term.off == ["P"]
    play(term, out, "place a2")
    assert signal(term, "a2") == "."
    assert term.sim.game_state()["error"] is None
    assert "move e7e5" in play(term, out, "move e7 e5")


def test_pieces_knocked_over_together_bind_nobody():
    # Issue 13: 1.e4 e5, white knocks b2 and c2 over, puts them back, plays Bc4: no touch-move.
    term, out = terminal()
    play(term, out, "move e2 e4", "move e7 e5")
    text = play(term, out, "knock b2 c2")
    assert "error mismatch b2 c2\nmsg put the pawns back on b2 and c2" in text
    text = play(term, out, "place b2 P", "place c2 P", "move f1 c4")
    assert "touch-move" not in text and "move f1c4" in text


def test_move_onto_a_piece_captures_and_a_refused_move_changes_nothing():
    term, out = terminal()
    play(term, out, "move e2 e4", "move d7 d5")
    assert "move e4d5" in play(term, out, "move e4 d5")
    assert term.off == ["p"] and term.pieces[parse_square("d5")] == "P"
    before = (term.sim.occupancy(), list(term.pieces), term.sim.log_count)
    assert not term.line("move e4 e5")  # e4 is empty now: refused before anything is lifted
    assert not term.line("move d5 d5")
    assert (term.sim.occupancy(), list(term.pieces), term.sim.log_count) == before


def test_help_fits_80_columns_and_pgn_says_date_and_mode():
    term, out = terminal()
    text = play(term, out, "help")
    assert "knock SQ [SQ...]" in text and max(len(line) for line in text.splitlines()) <= 80
    play(term, out, "move e2 e4")
    pgn = term.sim.pgn()
    assert '[Event "Strict game (touch-move)"]' in pgn and re.search(r'\[Date "20\d\d\.\d\d\.\d\d"\]', pgn)
    play(term, out, "mode casual")
    assert '[Event "Casual game"]' in term.sim.pgn()
    assert '[Date "2026.01.31"]' in term.sim.pgn("2026.01.31")


def test_setting_a_fen_is_logged():
    term, out = terminal()
    text = play(term, out, "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert "position 4k3/8/8/8/8/8/8/4K2R w K - 0 1" in text


def test_casual_mode_takeback_and_new_game():
    term, out = terminal(mode="casual")
    play(term, out, "move e2 e4")
    assert "undo e2e4" in play(term, out, "move e4 e2")
    assert term.sim.game_state()["san"] == []
    play(term, out, "move d2 d4", "move d7 d5")
    assert "new" in play(term, out, "new").split()
    assert term.sim.game_state()["san"] == []
    play(term, out, "mode strict")
    assert term.sim.game_state()["mode"] == "strict"


def test_bad_commands_are_reported_and_change_nothing():
    term, out = terminal()
    for line in ("lift e4", "place e2", "lift z9", "fen not a fen", "mode blitz", "fly e2", "wait -5"):
        start = out.tell()
        assert not term.line(line)
        assert out.getvalue()[start:].startswith("error: ")
    assert term.sim.occupancy() == "1" * 16 + "0" * 32 + "1" * 16
    assert term.sim.game_state()["san"] == []


def test_the_command_line_reads_a_script_from_stdin():
    script = "lift f2\nplace f3\nmove e7 e5\nmove g2 g4\nmove d8 h4\nleds\nquit\n"
    run = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "sim_terminal.py")],
        input=script, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "end 0-1 checkmate" in out
    assert re.search(r"^1 R  N  B  Q  K# B  N  R$", out, re.M), out  # the mated king's LED
    assert "moves: 1. f3 e5 2. g4 Qh4#" in out
    assert re.search(r"^e1 mated-king\s+ws2812b #(ff0000|000000)  max7219 (on|off)$", out, re.M)
    bad = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "sim_terminal.py"), "-q"],
        input="lift e5\n", capture_output=True, text=True, timeout=60,
    )
    assert bad.returncode == 1 and "error: e5 is empty" in bad.stdout


def test_the_glue_gives_the_firmware_squares_only():
    # The page and the terminal know the pieces; the firmware must not. Every way the page talks to
    # the glue is one of these calls, none of which carries a piece.
    src = open(os.path.join(ROOT, "tools", "sim", "sim.js")).read()
    calls = set(re.findall(r"(?<![.\w])sim\.([a-z_]+)\(", src))
    assert calls == {
        "advance", "lay_out", "set_fen", "set_mode", "pgn", "state_json", "position_at",
        "set_clock", "clock_action", "set_engine",  # a time control, the clock's buttons, the engine's side
    }, calls
    # advance() takes (time, 0/1, square) transitions; lay_out() a string of 0/1.
    sim = board_sim.BoardSim()
    assert sim.advance(100, ((50, 0, 12),)) and sim.vm.occupied(12) == 0
    sim.lay_out("1" * 16 + "0" * 32 + "1" * 16)
    sim.wait(100)
    # Two pieces swapped by hand leave the switches as they were: the firmware cannot see it.
    before = sim.log_count
    for sq, occupied in ((1, 0), (2, 0), (1, 1), (2, 1)):
        sim.advance(sim.now + 40, ((sim.now + 5, occupied, sq),))
    sim.wait(600)
    assert sim.log_count == before


def test_state_json_reports_leds_in_square_order():
    import json

    sim = board_sim.BoardSim()
    sim.wait(50)
    sim.lift(parse_square("g1"))
    sim.wait(100)
    st = json.loads(sim.state_json())
    px = st["pixels"]
    colour = {name: px[6 * parse_square(name):6 * parse_square(name) + 6] for name in ("g1", "f3", "h3", "e4")}
    # The strip is chained serpentine (config default); the glue maps LEDs back to squares.
    assert colour == {"g1": "00ffff", "f3": "00ff00", "h3": "00ff00", "e4": "000000"}
    assert st["frame"][parse_square("g1")] == "*"
    assert st["mono"][parse_square("f3")] == "1" and st["mono"][parse_square("e4")] == "0"
    table = json.loads(board_sim.signal_table_json())
    assert table[3] == {"char": "o", "name": "quiet", "rgb": "00ff00", "rgb_blink": 0xFFFF, "pulse": 0, "mono": 0xFFFF}


@pytest.mark.parametrize("fen", ["8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"])
def test_set_fen_refuses_a_bad_position(fen):
    sim = board_sim.BoardSim()
    assert sim.set_fen(fen).startswith("bad FEN")


def test_leds_name_what_a_pc_program_lights():
    """A ChessLink host drives the LEDs (its L message): `leds`, `show` and the page's frame name
    what they show, not the board's own signals underneath."""
    from chesslink_client import Codec, led_message
    from link.link import Link

    term, out = terminal()
    play(term, out, "move e2 e4")  # the board's own last-move signal on e2 and e4
    sent = []
    link = Link(term.sim.app, sent.append, sent.append)
    link.feed(Codec().encode(led_message(["g1", "f3"])))
    text = play(term, out, "wait 20", "leds", "show")
    lit = dict(line.split()[:2] for line in text.splitlines() if re.match(r"^[a-h][1-8] ", line))
    assert lit == {"g1": "remote-move", "f3": "remote-move"}
    assert "leds: g1:remote-move f3:remote-move" in text
    assert signal(term, "g1") == signal(term, "f3") != signal(term, "e4")


def test_power_cycles_keep_the_game_and_read_a_move_the_save_did_not_reach():
    # docs/power-up.md: the simulators' flash keeps the saved game across `power`, as the Pico's.
    term, out = terminal()
    text = play(term, out, "move e2 e4", "power")
    assert "console: resuming the saved game after 1 moves" in text, text
    # Black moves and the power goes 30 ms later, before the move is committed, let alone saved.
    text = play(term, out, "move e7 e5; power")
    assert text.splitlines()[-2:] == ["console: read the last move, e5, from the board", "move e7e5"], text
    # Two captures by the bishop look alike on the switches: the board asks, the player lifts it
    # where it stands (f7) and puts it back.
    play(term, out, "fen 4k3/5p2/8/1p6/2B5/8/8/4K3 w - - 0 1", "wait 600", "move c4 f7; power")
    text = out.getvalue()
    assert "console: the last move was not saved: the bishop from c4 took on b5 or f7" in text, text
    assert (signal(term, "c4"), signal(term, "b5"), signal(term, "f7")) == ("*", "x", "x")
    text = play(term, out, "tap f7")
    assert "console: read the last move, Bxf7+, from the board" in text and "move c4f7" in text, text
    assert term.sim.game_state()["uci"] == ["c4f7"]


def test_the_pages_event_log_says_each_event_in_a_players_words():
    # tools/sim/sim.js shows state()["said"], one entry per log line: the page's Events log. The
    # terminal keeps the event lines of tools/replay.py; the page says them as a player would.
    from board_sim import BoardSim
    from core.position import parse_square

    sim = BoardSim()
    sim.set_mode("casual")
    assert sim.set_clock("5+3") == "" and sim.set_engine("black", 2) == ""
    for name, up in (("e2", 0), ("e4", 1)):
        (sim.place if up else sim.lift)(parse_square(name))
        sim.wait(600)
    sim.wait(3000)  # the board's engine finds its move and lights it
    assert sim.set_engine("none", 2) == ""
    for name, up in (("e4", 0), ("e2", 1)):  # casual mode: the move taken back
        (sim.place if up else sim.lift)(parse_square(name))
        sim.wait(600)
    state = sim.state()
    assert len(state["said"]) == len(state["log"])
    said = [s for s in state["said"] if s]
    assert said[:4] == [
        "casual mode: takebacks, no touch-move",
        "clock set: 5+3",
        "the board plays black at level 2",
        "White plays e4",
    ], said
    assert "clocks: White 5:00, Black 5:00" in said
    assert any(re.match(r"the board plays [NBRQK]?[a-h]?x?[a-h][1-8] \([a-h][1-8][a-h][1-8]\)$", s) for s in said), said
    assert said[-2:] == ["two players, no engine", "White's e4 taken back"], said
    assert not [s for s in said if re.search(r"plays=|state=|^engine |^move |^undo |^clock \d", s)], said
    assert "engine engine plays=black level=2 state=waiting" not in state["log"]
