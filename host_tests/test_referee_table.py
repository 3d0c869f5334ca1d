"""docs/spec.md section 3, row by row: physical transcripts in, the moves (and errors) the board must read.

Every transcript runs through the firmware's debouncer and referee at its scan period (tools/
transcript.py, as tools/replay.py does), clean and again with bouncing contacts added to every
transition, in the modes the row applies to.
"""
import pytest

from core.referee import event_text
from transcript import Board, parse, run

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
CASTLE = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
EP = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"


def bouncy(text):
    """The same transcript with each transition bouncing: the contact flips back and forth twice
    within 3 ms after it (reed contacts bounce for 0.5-2 ms)."""
    out = []
    for line in text.strip().splitlines():
        words = line.split()
        if len(words) == 3 and words[0].isdigit():
            t, action, sq = int(words[0]), words[1], words[2]
            other = "place" if action == "lift" else "lift"
            out += ["%d %s %s" % (t, action, sq), "%d %s %s" % (t + 1, other, sq), "%d %s %s" % (t + 3, action, sq)]
        else:
            out.append(line)
    return "\n".join(out)


def replay(text, fen=START, mode="strict", keep_errors=True):
    f, m, events = parse(text, fen, mode)
    lines = run(f, m, events)
    assert lines[-1].startswith("fen ")
    return [line for line in lines if keep_errors or not line.startswith("error")]


def both_ways(text, **kw):
    clean = replay(text, **kw)
    assert replay(bouncy(text), **kw) == clean, "bounce changed what the board read"
    return clean


MODES = ["strict", "casual"]


@pytest.mark.parametrize("mode", MODES)
def test_quiet_move(mode):
    lines = both_ways("1000 lift e2\n1300 place e4", mode=mode)
    assert lines[:-1] == ["move e2e4"]
    assert lines[-1] == "fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


CAPTURE_FEN = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "hands",
    [
        "1000 lift e4\n1500 lift d5\n1900 place d5",  # own piece first
        "1000 lift d5\n1500 lift e4\n1900 place d5",  # victim first
        "1000 lift e4\n1600 lift d5\n1650 place d5",  # swap: the victim pushed off as the attacker lands
        "1000 lift e4\n5000 lift d5\n5400 place d5",  # attacker held in the air for seconds
    ],
    ids=["own-first", "victim-first", "swap", "long-hold"],
)
def test_capture_in_every_order(mode, hands):
    lines = both_ways(hands, fen=CAPTURE_FEN, mode=mode)
    assert lines[:-1] == ["move e4d5"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "hands",
    [
        "1000 lift d4\n1300 place e3\n1700 lift e4",  # capturing pawn, its square, then the victim
        "1000 lift e4\n1400 lift d4\n1800 place e3",  # victim first
        "1000 lift d4\n1300 lift e4\n1800 place e3",  # both up, then placed
        "1000 lift d4\n1300 place e3\n4000 lift e4",  # a long pause before taking the victim
    ],
    ids=["a-c-v", "v-a-c", "a-v-c", "a-c-pause-v"],
)
def test_en_passant_in_every_order(mode, hands):
    lines = both_ways(hands, fen=EP, mode=mode)
    assert lines == ["move d4e3", "fen rnbqkbnr/ppp1pppp/8/8/8/4p3/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "hands,move",
    [
        ("1000 lift e1\n1300 place g1\n1700 lift h1\n2000 place f1", "e1g1"),  # king first
        ("1000 lift e1\n1300 place c1\n1700 lift a1\n2000 place d1", "e1c1"),
        ("1000 lift e1\n1200 lift h1\n1600 place f1\n1800 place g1", "e1g1"),  # both up, rook down first
        ("1000 lift e1\n1200 lift h1\n1600 place g1\n1800 place f1", "e1g1"),  # both up, king down first
        ("1000 lift e1\n1200 lift a1\n1600 place d1\n1800 place c1", "e1c1"),
    ],
)
def test_castling_king_first(mode, hands, move):
    assert both_ways(hands, fen=CASTLE, mode=mode)[:-1] == ["move " + move]


@pytest.mark.parametrize(
    "hands",
    [
        "1000 lift h1\n1300 place f1\n1500 lift e1\n1800 place g1",  # rook put down, king follows at once
        "1000 lift h1\n1300 place f1\n4000 lift e1\n4300 place g1",  # ... after the rook move committed
        "1000 lift h1\n1300 lift e1\n1600 place f1\n1800 place g1",  # both up, rook first
    ],
)
def test_rook_first_castling_casual_castles(hands):
    lines = both_ways(hands, fen=CASTLE, mode="casual", keep_errors=False)
    assert lines[-1] == "fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"
    if "place f1\n1800" in hands:
        assert lines[:-1] == ["move e1g1"]
    else:
        assert lines[:-1] == ["move h1f1", "undo h1f1", "move e1g1"]


def test_rook_first_castling_strict_the_rook_must_move():
    # FIDE 4.4.4: touching the rook first forfeits castling on that side; the rook must move.
    lines = both_ways("1000 lift h1\n1300 place f1\n1500 lift e1\n1800 place g1", fen=CASTLE)
    assert lines[0] == "move h1f1"
    assert lines[-2] == "error mismatch e1 g1"  # white moving on black's turn; (a lone king up may be a result)
    assert lines[-1].startswith("fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3KR2 b")
    # Both up, rook touched first: castling is refused until the rook alone has moved.
    lines = replay("1000 lift h1\n1300 lift e1\n1600 place f1\n1800 place g1\n3000 lift g1\n3300 place e1", fen=CASTLE)
    assert lines[0] == "error touch-move h1 e1 f1 g1"
    assert lines[1:] == ["move h1f1", "fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3KR2 b Qkq - 1 1"]


@pytest.mark.parametrize("mode", MODES)
def test_slide_only_the_final_square_counts(mode):
    hands = """
    1000 lift a1
    1100 place a2
    1240 lift a2
    1250 place a3
    1390 lift a3
    1400 place a4
    1480 lift a4
    1490 place a5
    """
    lines = both_ways(hands, fen="4k3/8/8/8/8/8/8/R3K3 w - - 0 1", mode=mode)
    assert lines == ["move a1a5", "fen 4k3/8/8/R7/8/8/8/4K3 b - - 1 1"]


def test_a_placement_undone_within_150_ms_never_becomes_a_move():
    # The bishop rests 149 ms on d2 on its way to f4.
    hands = "1000 lift c1\n1050 place d2\n1199 lift d2\n1250 place f4"
    assert replay(hands, fen="4k3/p7/8/8/8/8/P7/2B1K3 w - - 0 1")[:-1] == ["move c1f4"]


def test_commit_comes_within_500_ms_of_the_last_transition():
    fen, mode, events = parse("1000 lift e2\n1300 place e4\n3000 lift e7\n3400 place e5")
    board = Board(fen, mode)
    times = []
    for t, occupied, sq in events:
        board.scan_until(t, lambda now, ev: times.append(now))
        board.apply(occupied, sq)
    board.scan_until(6000, lambda now, ev: times.append(now))
    assert len(times) == 2
    assert 1300 < times[0] <= 1300 + 500 and 3400 < times[1] <= 3400 + 500
    # And the opponent's first lift makes the move final at once.
    fen, mode, events = parse("1000 lift e2\n1300 place e4\n1350 lift e7")
    board = Board(fen, mode)
    got = []
    for t, occupied, sq in events:
        board.scan_until(t, lambda now, ev: got.append(now))
        board.apply(occupied, sq)
    board.scan_until(1400, lambda now, ev: got.append(now))
    assert got and got[0] < 1400


def test_adjust_in_casual_mode_is_nothing():
    lines = both_ways("1000 lift g1\n1400 place g1\n2000 lift e2\n2300 place e4", mode="casual")
    assert lines[:-1] == ["move e2e4"]


# docs/spec.md section 3: adjusting a piece that nothing can happen to. After 1.e4 (black to move): black's a8 and
# h8 rooks and the c8 bishop have no legal move; white's a1 and h1 rooks and g2 pawn cannot be taken.
AFTER_E4 = "1000 lift e2\n1400 place e4\n"
BLOCKED = "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"  # d4 and d5 block each other


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hold", [200, 1000, 2900, 3500, 20000])
@pytest.mark.parametrize("square", ["a8", "c8", "h8", "h1", "a1", "g2"])
def test_adjusting_a_piece_nothing_can_happen_to_is_nothing(mode, hold, square):
    hands = AFTER_E4 + "3000 lift %s\n%d place %s\n%d lift e7\n%d place e5" % (square, 3000 + hold, square, 4000 + hold, 4400 + hold)
    lines = both_ways(hands, mode=mode)
    assert lines == ["move e2e4", "move e7e5", "fen rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"]


@pytest.mark.parametrize("mode", MODES)
def test_a_blocked_pawn_and_an_uncapturable_one_adjusted(mode):
    # White's d4 pawn cannot move (d5 blocks it); black's d5 pawn cannot be taken; then 2.c4.
    hands = "1000 lift d4\n2500 place d4\n3000 lift d5\n4000 place d5\n5000 lift c2\n5300 place c4"
    lines = both_ways(hands, fen=BLOCKED, mode=mode)
    assert lines[:-1] == ["move c2c4"]


def test_the_issue_transcript_in_both_modes():
    # Issue 11: this printed `error mismatch a8` in both modes.
    hands = AFTER_E4 + "3000 lift a8\n3400 place a8\n5000 lift e7\n5400 place e5"
    for mode in MODES:
        assert replay(hands, mode=mode)[:-1] == ["move e2e4", "move e7e5"]


def _frames(hands, fen=START, mode="strict"):
    f, m, events = parse(hands, fen, mode)
    return [line for line in run(f, m, events, leds=True) if line.startswith("leds ")]


def _frame_at(frames, t):
    """The LED frame shown at time t (ms), as its text."""
    shown = ""
    for line in frames:
        when, _, text = line[5:].partition(" ")
        if int(when) > t:
            break
        shown = text
    return shown


def test_a_piece_adjusted_for_long_gets_a_place_here_hint_never_an_alarm():
    frames = _frames(AFTER_E4 + "3000 lift a8\n9000 place a8")
    assert "a8:lifted" in _frame_at(frames, 5900).split()
    assert "place-here" not in _frame_at(frames, 5900)
    assert "a8:place-here" in _frame_at(frames, 6100).split()  # 3 s in the air: where it belongs
    assert "a8" not in _frame_at(frames, 9100)
    for line in frames:
        assert "illegal" not in line and "remove" not in line


def test_an_adjusted_piece_that_cannot_move_is_no_touch_move_obligation():
    # Strict: the a1 rook lifted (it has no move), then the g1 knight moves.
    lines = replay("1000 lift a1\n3000 place a1\n4000 lift g1\n4300 place f3")
    assert lines[:-1] == ["move g1f3"]
    # Strict: the opponent's a8 rook, which white cannot take: white moves freely.
    lines = replay("1000 lift a8\n2000 place a8\n4000 lift b1\n4300 place c3")
    assert lines[:-1] == ["move b1c3"]


def test_a_piece_that_could_move_still_counts_as_touched_and_a_wrong_square_still_shows():
    # The rule is about pieces nothing can happen to: a knight lifted in strict mode must move ...
    lines = replay("1000 lift g1\n1500 place g1\n2000 lift e2\n2300 place e4")
    assert lines[0].startswith("error touch-move g1")
    # ... and a piece that cannot move, set down elsewhere, is an illegal move at once; once the
    # board has said so it keeps guiding the piece back while it is in the hand.
    lines = replay(AFTER_E4 + "3000 lift a8\n3300 place a6\n5000 lift a6\n5300 place a8")
    assert lines[1:-1] == ["error illegal a8 a6", "error mismatch a8"]


def test_touch_move_strict():
    hands = "1000 lift g1\n1500 place g1\n2000 lift e2\n2300 place e4\n4000 lift e4\n4300 place e2\n5000 lift g1\n5400 place f3"
    lines = both_ways(hands)
    assert lines == ["error touch-move g1 e2 e4", "move g1f3", "fen rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"]
    # In casual mode the same hands play e2e4.
    assert both_ways(hands, mode="casual")[0] == "move e2e4"


def test_touched_piece_without_a_legal_move_frees_the_player():
    lines = both_ways("1000 lift a1\n1500 place a1\n2000 lift e2\n2300 place e4")
    assert lines[:-1] == ["move e2e4"]


def test_touched_opponent_piece_must_be_captured():
    # White touches the d5 pawn, which exd5 can take: another move is a violation.
    hands = "1000 lift d5\n1400 place d5\n2000 lift g1\n2300 place f3\n3000 lift f3\n3300 place g1\n4000 lift e4\n4200 lift d5\n4500 place d5"
    lines = replay(hands, fen=CAPTURE_FEN)
    assert lines[0].startswith("error touch-move d5")
    assert lines[1] == "move e4d5"


def test_after_a_retracted_illegal_move_the_same_piece_must_move():
    hands = "1000 lift e2\n1300 place e5\n2500 lift e5\n2800 place e2\n3500 lift d2\n3800 place d4\n5000 lift d4\n5300 place d2\n6000 lift e2\n6300 place e4"
    lines = both_ways(hands)
    assert lines[0] == "error illegal e2 e5"
    assert lines[1] == "error touch-move e2 d2 d4"
    assert lines[2:-1] == ["move e2e4"]


PROMO = "8/4P2p/8/8/8/k7/7P/4K3 w - - 0 1"


@pytest.mark.parametrize("mode", MODES)
def test_promotion_queen_by_default_and_taps_choose(mode):
    assert both_ways("1000 lift e7\n1300 place e8", fen=PROMO, mode=mode)[0] == "move e7e8q"
    taps = "1000 lift e7\n1300 place e8\n2000 lift e8\n2300 place e8\n3000 lift e8\n3300 place e8\n4000 lift e8\n4300 place e8"
    lines = both_ways(taps + "\n5000 lift a3\n5300 place b2", fen=PROMO, mode=mode)
    moves = [line for line in lines if not line.startswith("end")]
    assert moves == ["move e7e8q", "promote e7e8r", "promote e7e8b", "promote e7e8n", "move a3b2", "fen 4N3/7p/8/8/8/8/1k5P/4K3 w - - 1 2"]
    # A fourth tap comes back to the queen.
    lines = both_ways(taps + "\n5000 lift e8\n5300 place e8", fen=PROMO, mode=mode)
    assert lines[-2:] == ["promote e7e8q", "fen 4Q3/7p/8/8/8/k7/7P/4K3 b - - 0 1"]


def test_promotion_choice_is_final_once_the_opponent_lifts():
    taps = "1000 lift e7\n1300 place e8\n2000 lift a3\n2300 place a2\n3000 lift e8\n3300 place e8"
    lines = replay(taps, fen=PROMO, mode="casual")
    assert lines[:2] == ["move e7e8q", "move a3a2"]
    assert "promote" not in " ".join(lines)


def test_takeback_casual():
    lines = both_ways("1000 lift e2\n1300 place e4\n3000 lift e4\n3300 place e2\n4000 lift d2\n4300 place d4", mode="casual")
    assert lines[:-1] == ["move e2e4", "undo e2e4", "move d2d4"]
    # A capture taken back: the capturer returns, the victim comes back on its square.
    hands = "1000 lift e4\n1300 lift d5\n1600 place d5\n3000 lift d5\n3300 place e4\n3600 place d5"
    lines = both_ways(hands, fen=CAPTURE_FEN, mode="casual", keep_errors=False)
    assert lines == ["move e4d5", "undo e4d5", "fen " + CAPTURE_FEN]


def test_no_takeback_in_strict_mode():
    # 1.e4 e5 2.Nf3, then the knight is put back on g1: strict mode keeps the move and says the
    # board is wrong. (From the start position a takeback sets the start up again: a new game.)
    fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    lines = replay("1000 lift g1\n1300 place f3\n3000 lift f3\n3300 place g1", fen=fen)
    assert lines[0] == "move g1f3"
    assert "undo" not in " ".join(lines)
    assert "error mismatch f3 g1" in lines


@pytest.mark.parametrize("mode", MODES)
def test_knocked_pieces_are_guided_back_and_the_game_goes_on(mode):
    # After 1.e4 a white knight is knocked from b1 to c3 and the c1 bishop falls off the board.
    hands = "1000 lift e2\n1300 place e4\n2000 lift b1\n2200 place c3\n2500 lift c1\n6000 lift c3\n6200 place b1\n7000 place c1\n8000 lift e7\n8300 place e5"
    lines = replay(hands, mode=mode)
    errors = [line for line in lines if line.startswith("error")]
    assert errors and all(line.startswith("error mismatch") for line in errors)
    assert "b1" in errors[0] and "c3" in errors[0]
    assert [line for line in lines if not line.startswith("error")][:-1] == ["move e2e4", "move e7e5"]


def test_new_game_when_the_start_position_is_set_up():
    hands = "1000 lift e2\n1300 place e4\n3000 lift e7\n3300 place e5\n5000 lift e4\n5300 place e2\n5600 lift e5\n5900 place e7"
    lines = replay(hands, keep_errors=False)
    assert lines == ["move e2e4", "move e7e5", "new", "fen " + START]


def test_knights_shuffled_home_are_the_same_game():
    hands = "1000 lift g1\n1300 place f3\n2000 lift g8\n2300 place f6\n3000 lift f3\n3300 place g1\n4000 lift f6\n4300 place g8"
    lines = replay(hands)
    assert lines[:-1] == ["move g1f3", "move g8f6", "move f3g1", "move f6g8"]
    assert lines[-1] == "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4 3"


def test_threefold_is_announced_and_fivefold_ends_the_game():
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    hands = []
    t = 1000
    for i in range(4):
        for uci in shuffle:
            hands.append("%d lift %s" % (t, uci[:2]))
            hands.append("%d place %s" % (t + 300, uci[2:]))
            t += 1000
    lines = replay("\n".join(hands))
    assert "claim threefold" in lines
    assert lines.index("claim threefold") == 8  # after the position occurred a third time
    assert lines[-2] == "end 1/2-1/2 fivefold-repetition"


@pytest.mark.parametrize(
    "squares,result",
    [(("d5", "e4"), "end 1-0 resignation"), (("d4", "e5"), "end 0-1 resignation"), (("d5", "e5"), "end 1/2-1/2 agreement")],
)
def test_results_with_the_kings_dgt_convention(squares, result):
    fen = "r3k3/8/8/8/8/8/8/4K2R w - - 0 1"
    hands = "1000 lift e1\n1100 lift e8\n1600 place %s\n1700 place %s" % squares
    lines = replay(hands, fen=fen)
    assert lines == [result, "fen " + fen]


def test_checkmate_ends_the_game():
    hands = "1000 lift f2\n1300 place f3\n2000 lift e7\n2300 place e5\n3000 lift g2\n3300 place g4\n4000 lift d8\n4300 place h4"
    lines = replay(hands)
    assert lines[-2] == "end 0-1 checkmate"


def test_stalemate_and_dead_position():
    assert replay("1000 lift b6\n1300 place c7", fen="k7/8/1Q6/8/8/8/8/7K w - - 0 1")[-2] == "end 1/2-1/2 stalemate"
    lines = replay("1000 lift a2\n1200 lift b3\n1500 place b3", fen="8/8/8/4k3/8/1n6/K7/8 w - - 0 1")
    assert lines[-2] == "end 1/2-1/2 insufficient-material"


def test_straightening_the_piece_just_moved_is_not_the_opponent_touching_it():
    # White plays e4 and centres the pawn at once; d5xe4 was possible, yet black may play Nf6.
    fen = "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2"
    hands = "1000 lift e2\n1300 place e4\n1800 lift e4\n2100 place e4\n3000 lift g8\n3300 place f6"
    assert replay(hands, fen=fen)[:-1] == ["move e2e4", "move g8f6"]
    # Much later, a lift of that pawn is black touching it: black must then take it.
    hands = "1000 lift e2\n1300 place e4\n5000 lift e4\n5300 place e4\n6000 lift g8\n6300 place f6"
    assert replay(hands, fen=fen)[1].startswith("error touch-move e4")


def test_king_then_rook_touched_must_castle():
    # FIDE 4.4.2: the king was touched, then the h1 rook: castling king side is now compulsory.
    hands = "1000 lift e1\n1400 place e1\n2000 lift h1\n2400 place h1\n3000 lift e1\n3300 place f1\n5000 lift f1\n5300 place g1\n5600 lift h1\n5900 place f1"
    lines = replay(hands, fen=CASTLE)
    assert lines[0] == "error touch-move e1 f1"
    assert lines[1:] == ["move e1g1", "fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"]
    # King touched then a rook that cannot castle (the queen-side path is blocked): the king moves freely.
    lines = replay("1000 lift e1\n1400 place e1\n2000 lift a1\n2400 place a1\n3000 lift e1\n3300 place f1",
                   fen="r3k2r/pppppppp/8/8/8/8/PPPPPPPP/RN2K2R w KQkq - 0 1")
    assert lines[:-1] == ["move e1f1"]


def test_the_default_promotion_piece_is_a_setting():
    import config

    settings = config.Settings().updated({"promotion_piece": "n"})

    def play(text):
        f, m, events = parse(text, PROMO, "strict")
        board = Board(f, m, settings)
        out = []
        for t, occupied, sq in events:
            board.scan_until(t, lambda now, ev: out.append(event_text(ev)))
            board.apply(occupied, sq)
        board.scan_until(events[-1][0] + 3000, lambda now, ev: out.append(event_text(ev)))
        return out

    assert play("1000 lift e7\n1300 place e8") == ["move e7e8n"]
    # A tap goes on round the cycle from there: knight -> queen.
    assert play("1000 lift e7\n1300 place e8\n2000 lift e8\n2300 place e8") == ["move e7e8n", "promote e7e8q"]
