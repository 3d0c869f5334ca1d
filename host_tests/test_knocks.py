"""Knocked pieces (docs/spec.md section 3, "knocked or misplaced pieces"): what the reed switches can tell of an accident.

A sleeve that sweeps over the board knocks several pieces over within a few milliseconds; a hand
lifts one piece at a time, 100 ms or more apart even with both hands. The referee reads lifts less
than Referee.knock_ms apart as pieces knocked over: they never become a touch (FIDE 4.2), the LEDs
guide them back and the game goes on. One piece falling alone opens one switch, exactly as a lift
does: the board cannot tell the two apart, so in strict mode it is a touch like any lift over 150 ms.

Time tables through the firmware's debouncer and referee (tools/transcript.py), clean and bouncing.
"""
import pytest

from core.referee import Referee
from test_referee_table import bouncy, replay
from transcript import Board, parse

AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
BC4 = "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2"


def both_ways(text, **kw):
    clean = replay(text, **kw)
    assert replay(bouncy(text), **kw) == clean, "bounce changed what the board read"
    return clean


def test_the_window_is_a_few_scans_and_far_below_a_touch():
    assert 2 * 5 <= Referee.knock_ms < 30 < Referee.touch_ms  # 30 ms: the simulators' gap between gestures


def test_pieces_knocked_over_together_bind_nobody_strict():
    # The case: 1.e4 e5, white's sleeve knocks c2 and b2 over (3 ms apart); they are put back
    # one by one and white plays Bc4. Nothing was touched: no touch-move error, the move stands.
    hands = "1000 lift c2\n1003 lift b2\n3000 place c2\n3600 place b2\n5000 lift f1\n5400 place c4"
    lines = both_ways(hands, fen=AFTER_E4_E5)
    errors = [line for line in lines if line.startswith("error")]
    assert errors and all(line.startswith("error mismatch") for line in errors)  # guided back
    assert "touch-move" not in " ".join(lines)
    assert [line for line in lines if not line.startswith("error")] == ["move f1c4", "fen " + BC4]


def test_a_run_of_pieces_falling_a_scan_apart_is_one_accident():
    # Three pawns fall one after another, each 8 ms after the last (20 ms for the run): still a knock.
    hands = "1000 lift b2\n1008 lift c2\n1016 lift d2\n2000 place d2\n2300 place c2\n2600 place b2\n4000 lift f1\n4400 place c4"
    lines = both_ways(hands, fen=AFTER_E4_E5)
    assert "error mismatch b2 c2 d2" in lines
    assert "touch-move" not in " ".join(lines) and lines[-2:] == ["move f1c4", "fen " + BC4]


def test_the_opponents_pieces_knocked_over_need_not_be_captured():
    # White's sleeve knocks black's f7 and e5 over; the bishop on c4 could take f7, so a touch of f7
    # would oblige Bxf7 (FIDE 4.3.2). A knock obliges nothing: white plays Nf3.
    fen = "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 2 3"
    hands = "1000 lift f7\n1004 lift e5\n2500 place e5\n2800 place f7\n4000 lift g1\n4300 place f3"
    lines = both_ways(hands, fen=fen)
    assert "touch-move" not in " ".join(lines)
    assert "move g1f3" in lines


def test_deliberate_lifts_are_not_knocks():
    # Two pieces lifted by hand, 200 ms apart: the first is touched and must move (FIDE 4.3).
    hands = "1000 lift c2\n1200 lift b2\n2500 place c2\n2600 place b2\n4000 lift f1\n4400 place c4"
    lines = replay(hands, fen=AFTER_E4_E5)
    assert "error touch-move c2 f1 c4" in lines
    assert lines[-1] == "fen " + AFTER_E4_E5


def test_one_piece_falling_alone_is_a_lift():
    # A single falling piece opens one switch, as a lift does: in strict mode it is a touch.
    hands = "1000 lift c2\n2000 place c2\n4000 lift f1\n4400 place c4"
    lines = replay(hands, fen=AFTER_E4_E5)
    assert "error touch-move c2 f1 c4" in lines
    # In casual mode there is no touch-move: the game goes on.
    assert replay(hands, fen=AFTER_E4_E5, mode="casual")[-2:] == ["move f1c4", "fen " + BC4]


def test_leds_guide_knocked_pieces_back():
    # The LED frames of a knock: the two squares ask for their pieces (place-here) once the board has
    # been still for the commit delay, and go dark as the pieces come back.
    fen, mode, events = parse("1000 lift c2\n1003 lift b2\n3000 place c2\n3600 place b2", AFTER_E4_E5, "strict")
    board = Board(fen, mode)
    for t, occupied, sq in events[:2]:
        board.scan_until(t)
        board.apply(occupied, sq)
    board.scan_until(1500)
    frame = board.frame
    assert frame[9] == frame[10] == 17  # b2, c2: signals.PLACE_HERE
    assert board.referee.touched == []
    for t, occupied, sq in events[2:]:
        board.scan_until(t)
        board.apply(occupied, sq)
    board.scan_until(4000)
    assert board.frame[9] == board.frame[10] == 0  # back: dark again
