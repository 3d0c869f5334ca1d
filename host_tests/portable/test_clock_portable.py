# Tests of core/clock.py (the chess clock) and core/arbiter.py (what a flag fall or an illegal
# move decides), portable: pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
#
# The times are checked against reference(), a model of a chess clock written separately here from
# the rules of each kind of control (it replays a whole game's thinking times at once), not with
# the clock's own arithmetic.
from core.arbiter import can_mate, flag_result, illegal_loses, penalty_ms
from core.clock import (
    BLITZ,
    RAPID,
    STANDARD,
    Clock,
    category,
    clock_text,
    control_text,
    parse_control,
    short_text,
)
from core.position import BLACK, WHITE, Position


class _Raises:
    def __init__(self, kind):
        self.kind = kind

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        assert kind is not None, "expected %s" % self.kind.__name__
        assert issubclass(kind, self.kind), "expected %s, got %s" % (self.kind.__name__, kind.__name__)
        self.value = value
        return True


def test_controls_by_name():
    assert parse_control("5+3") == ((300000, 0, 1, 3000),)
    assert parse_control("15+10") == ((900000, 0, 1, 10000),)
    assert parse_control("90/40+30,30+30") == ((5400000, 40, 1, 30000), (1800000, 0, 1, 30000))
    assert parse_control("5d3") == ((300000, 0, 2, 3000),)
    assert parse_control("5b3") == ((300000, 0, 3, 3000),)
    assert parse_control(" 3 ") == ((180000, 0, 0, 0),)
    assert parse_control("1:30") == ((90000, 0, 0, 0),)
    assert parse_control("none") == () and parse_control("") == ()
    for text in ("5+3", "15+10", "90/40+30,30+30", "5d3", "5b3", "3", "1:30", "120/40,60", "none"):
        assert control_text(parse_control(text)) == text


def test_bad_controls_say_why():
    for text in ("x", "5+", "5,3", "5/0", "0", "1:5", "1:75", "5+3+2", "99999", "1,2,3,4,5", "5/40"):
        if text == "5/40":
            continue  # a repeating period: valid
        with _Raises(ValueError) as r:
            parse_control(text)
        assert str(r.value)
    # The reason names what is wrong with the control as typed (issue 29: `abc` was refused as a
    # Bronstein delay of 'c' seconds).
    for text, reason in (("abc", "'a' has no place in one"), ("5+3d2", "one increment or delay a period"),
                         ("b3", "a period starts with its minutes"), ("5/", "a number is missing after '/'"),
                         ("5+3,", "a period is empty"), ("5:", "a number is missing after ':'")):
        with _Raises(ValueError) as r:
            parse_control(text)
        assert reason in str(r.value), str(r.value)


def test_categories_follow_fide_appendices():
    # A.1 / B.1: time for 60 moves = the time plus 60 increments.
    assert category(parse_control("3+2")) == BLITZ  # 3 + 2 = 5 minutes
    assert category(parse_control("5+3")) == BLITZ  # 5 + 3 = 8
    assert category(parse_control("10")) == BLITZ  # exactly 10: blitz
    assert category(parse_control("10+1")) == RAPID  # 11
    assert category(parse_control("15+10")) == RAPID  # 25
    assert category(parse_control("50+10")) == STANDARD  # 60 is not less than 60
    assert category(parse_control("90/40+30,30+30")) == STANDARD
    # A last period with /MOVES repeats within the 60 moves.
    assert category(parse_control("20/20,30/30")) == STANDARD  # 20 + 30 + 30 (moves 51-80)
    assert category(parse_control("5/20")) == RAPID  # 5 + 5 + 5
    assert category(parse_control("3/30")) == BLITZ  # 3 + 3: moves 61 on are not counted
    assert category(parse_control("1/10,1/20,9")) == RAPID  # 1 + 1 + 9 (the rest of the game)


def test_clock_faces():
    assert clock_text(5400000) == "1:30:00"
    assert clock_text(61001) == "0:01:02"  # a started second still shows
    assert clock_text(-5) == "0:00:00"
    assert short_text(125000) == "2:05" and short_text(9870) == "9.8" and short_text(0) == "0.0"


def reference(control, thinks, started_by_first_move=True):
    """Each side's ms left after each move of a game whose moves took thinks[i] ms (white first),
    by the rules of the control alone. A separate model: one loop per side, no shared code."""
    periods = parse_control(control)
    out = []
    for side in (0, 1):
        period = 0
        left = periods[0][0]
        made = 0
        for i in range(side, len(thinks), 2):
            t = thinks[i]
            ms, moves, kind, extra = periods[period]
            if i == 0 and started_by_first_move:
                pass  # the move that starts the clock is not timed
            elif kind == 2:  # US delay: the first `extra` ms of a move are free
                left -= max(0, t - extra)
            elif kind == 3:  # Bronstein: the move's time back, up to `extra`
                left -= t
                left += min(t, extra)
            else:
                left -= t
                if kind == 1:
                    left += extra
            made += 1
            if moves and made == moves:
                period = min(period + 1, len(periods) - 1)
                made = 0
                left += periods[period][0]
            out.append((i, side, left))
    out.sort()
    return [x[2] for x in out]


def play(control, thinks, start=1000):
    """The clock pressed after each think; the mover's time after each press."""
    c = Clock(parse_control(control))
    now = start
    got = []
    for t in thinks:
        now += t
        c.press(now)
        got.append(c.base[1 - c.side])
        assert c.history[-1] == got[-1]
    return c, got, now


def _thinks(n, seed):
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(200 + x % 9000)  # 0.2 to 9.2 s a move, around any delay
    return out


def test_times_over_many_moves_match_the_reference():
    thinks = _thinks(120, 7)
    for control in ("15", "15+10", "20d3", "20b3", "30/20+5,20/10d2,10b4", "60/30,30"):
        c, got, now = play(control, thinks)
        assert got == reference(control, thinks), control


def test_multi_period_adds_the_next_periods_time_at_the_last_move_of_a_period():
    c = Clock(parse_control("1/2,2/1,3"))
    c.press(0)  # white 1 (starts the clock)
    c.press(1000)  # black 1: 60000 - 1000
    c.press(2000)  # white 2: the 2nd move of period 1 -> + 120000
    assert c.base == [60000 - 1000 + 120000, 59000] and c.period == [1, 0]
    c.press(4000)  # black 2: period 2 for black
    assert c.base[1] == 59000 - 2000 + 120000 and c.period == [1, 1]
    c.press(5000)  # white 3: 1 move in period 2 -> period 3 (the last, for the rest of the game)
    assert c.period[0] == 2 and c.base[0] == 179000 - 1000 + 180000
    assert c.moves == [0, 0]


def test_the_last_period_with_moves_repeats():
    c = Clock(parse_control("1/2"))
    for t in range(0, 5000, 100):
        c.press(t)
    assert c.period == [0, 0]
    assert c.base[0] > 60000 * 12  # 25 moves each: twelve more minutes each


def test_flag_falls_exactly_when_time_runs_out():
    c = Clock(parse_control("0:10"))
    c.press(1000)  # white's first move starts black's time
    assert c.flagged(1000 + 9999) is False
    assert c.flagged(1000 + 10000) is True
    assert c.left(1, 1000 + 4000) == 6000 and c.left(0, 1000 + 4000) == 10000
    c.fall(1000 + 10000)
    assert c.fallen == 1 and c.left(1, 99999) == 0 and not c.running


def test_us_delay_flag_comes_after_the_delay():
    c = Clock(parse_control("0:10d3"))
    c.press(0)
    assert c.left(1, 2500) == 10000  # within the delay nothing is counted
    assert not c.flagged(12999) and c.flagged(13000)


def test_pause_and_resume_keep_the_time_and_the_delay_used():
    c = Clock(parse_control("1d5"))
    c.press(0)
    c.pause(3000)  # 3 s of black's 5 s delay used
    assert c.left(1, 50000) == 60000 and not c.flagged(900000)
    c.resume(100000)
    assert c.left(1, 104000) == 60000 - 2000  # 7 s used in all, 5 free
    c.press(104000)
    assert c.base[1] == 58000


def test_players_start_the_clock_and_the_first_move_is_then_timed():
    c = Clock(parse_control("1+2"))
    c.start(500)
    c.press(4500)
    assert c.base[0] == 60000 - 4000 + 2000


def test_ticks_that_wrap_at_2_to_30():
    c = Clock(parse_control("1"))
    top = 0x3FFFFFFF
    c.press(top - 1000)
    assert c.left(1, 3000) == 60000 - 4001  # 1000 before the wrap, 3001 after it
    assert not c.flagged(3000) and c.flagged(60000 - 1001)


def test_take_back_returns_to_before_the_press():
    c = Clock(parse_control("5+3"))
    c.press(0)
    c.press(10000)
    c.press(20000)  # white's 2nd move: 300000 - 10000 + 3000
    assert c.base[0] == 293000 and c.side == 1
    c.take_back(25000)  # the move is taken back: white's turn again, running since 10000
    assert c.side == 0 and c.base[0] == 300000 and c.left(0, 25000) == 285000
    assert len(c.history) == 2
    c.take_back(26000)  # an older press: the turn just goes back
    assert c.side == 1


def test_the_players_start_the_clock_of_the_side_to_move():
    c = Clock(parse_control("5+3"))
    c.side = 1  # a position with black to move (core/referee.py sets it so)
    c.start(0)
    assert c.side == 1 and c.left(1, 10000) == 290000 and c.left(0, 10000) == 300000
    c.press(10000)
    assert c.base == [300000, 293000] and c.side == 0


def test_a_takeback_while_paused_stays_paused_and_charges_only_time_run():
    c = Clock(parse_control("5"))
    c.press(0)
    c.press(10000)  # black used 10 s
    c.pause(12000)  # white's 2 s, then the players pause
    c.take_back(50000)  # black's move is taken back while paused: black used 10 + 2 s
    assert not c.running and c.side == 1 and c.left(1, 90000) == 300000 - 12000
    c.resume(60000)
    assert c.left(1, 61000) == 300000 - 13000


def test_takebacks_undo_move_counts_and_periods():
    c = Clock(parse_control("1/1,2/2"))
    states = []
    t = 0
    for i in range(12):
        states.append((c.base[:], c.period[:], c.moves[:], c.side))
        c.press(t)
        t += 1000
    for i in range(12):
        c.pause(t)
        c.take_back(t)
        c.resume(t)
        base, period, moves, side = states[11 - i]
        assert c.side == side and c.moves == moves
        if i < 8:  # the last 8 presses are undone exactly
            assert c.period == period and c.base[1 - side] == base[1 - side], i
    assert c.moves == [0, 0] and c.side == 0


def test_state_round_trip_resumes_paused():
    c, got, now = play("30/20+5,20/10d2,10b4", _thinks(33, 3))
    state = c.state(now + 1234)
    d = Clock(parse_control("30/20+5,20/10d2,10b4"))
    d.restore(state)
    assert not d.running and d.started
    assert d.times(10**6) == c.times(now + 1234)
    d.resume(5)
    assert d.times(5) == c.times(now + 1234)
    for bad in ((1,) * 8, (1, 1, 9, 0, 0, 0, 0, 1, 0), (-1, 1, 0, 0, 0, 0, 0, 1, 0)):
        with _Raises(ValueError):
            d.restore(bad)


def test_penalty_time_moves_the_flag():
    c = Clock(parse_control("0:10"))
    c.press(0)
    c.add(1, 60000)
    assert not c.flagged(10000) and c.flagged(70000)
    c = Clock(parse_control("600"))  # the longest period: a penalty stops at the maximum
    c.press(0)
    c.add(0, 120000)
    assert c.base[0] == 36000000
    d = Clock(parse_control("600"))
    d.restore(c.state(5))  # so the saved clock reads back
    assert d.base[0] == 36000000


def _mated(fen):
    p = Position(fen)
    return p.is_check() and not p.legal_moves()


def test_can_mate_by_material():
    # Bare king, or a lone knight / same-coloured bishops against a bare king: cannot.
    assert not can_mate(Position("8/8/4k3/8/8/8/8/4K3 w - - 0 1"), WHITE)
    assert not can_mate(Position("8/8/4k3/8/8/8/8/4K1N1 w - - 0 1"), WHITE)
    assert not can_mate(Position("8/8/4k3/8/8/4B3/8/2B1K3 w - - 0 1"), WHITE)  # c1 and e3: both dark
    # Same-coloured bishops against bishops on their colour only: cannot.
    assert not can_mate(Position("8/8/4k3/8/2b5/8/8/4KB2 w - - 0 1"), WHITE)
    # A pawn, a rook, two knights, bishops of both colours: can.
    assert can_mate(Position("8/8/4k3/8/8/8/4P3/4K3 w - - 0 1"), WHITE)
    assert can_mate(Position("8/8/4k3/8/8/8/8/4KR2 w - - 0 1"), WHITE)
    assert can_mate(Position("8/8/4k3/8/8/8/8/4KNN1 w - - 0 1"), WHITE)
    assert can_mate(Position("8/8/4k3/8/8/8/8/2BBK3 w - - 0 1"), WHITE)
    # A lone minor piece against a king with a piece that can be stuck beside it: can (a helpmate).
    assert can_mate(Position("6r1/8/4k3/8/8/8/8/4K1N1 w - - 0 1"), WHITE)
    assert _mated("6rk/5N2/7K/8/8/8/8/8 b - - 0 1")  # K+N v K+R: the rook stuck on g8
    assert can_mate(Position("8/8/4k3/8/8/8/3p4/4K1N1 w - - 0 1"), WHITE)
    assert _mated("k1K5/p1N5/8/8/8/8/8/8 b - - 0 1")  # K+N v K+P: the pawn on a7
    assert can_mate(Position("8/8/4k3/8/8/8/3n4/4KB2 w - - 0 1"), WHITE)
    assert _mated("7k/5KBn/8/8/8/8/8/8 b - - 0 1")  # K+B v K+N: the knight on h7
    assert can_mate(Position("8/8/4k3/8/8/8/8/2b1KB2 w - - 0 1"), WHITE)  # f1 light, c1 dark
    # ... but not against queens only (knight), nor rooks and queens (bishop): they take or block.
    assert not can_mate(Position("8/8/4k3/8/8/3q4/8/4K1N1 w - - 0 1"), WHITE)
    assert not can_mate(Position("8/8/4k3/8/8/3q4/6r1/4KB2 w - - 0 1"), WHITE)
    # The side is the one asked about: black with a queen can, white's bare king cannot.
    pos = Position("8/8/4k3/8/8/3q4/8/4K3 w - - 0 1")
    assert can_mate(pos, BLACK) and not can_mate(pos, WHITE)


def test_flag_and_illegal_results():
    pos = Position("8/8/4k3/8/8/3q4/8/4K3 w - - 0 1")
    assert flag_result(pos, WHITE) == ("0-1", "flag")
    assert flag_result(pos, BLACK) == ("1/2-1/2", "flag-insufficient")
    assert illegal_loses(2, "fide", STANDARD) and not illegal_loses(1, "fide", BLITZ)
    assert illegal_loses(1, "lose", RAPID) and not illegal_loses(1, "lose", STANDARD)
    assert penalty_ms(STANDARD) == 120000 and penalty_ms(RAPID) == 60000 and penalty_ms(BLITZ) == 60000


def test_low_time_comes_before_the_flag():
    c = Clock(parse_control("0:30"))
    c.press(0)
    assert not c.low and c.due == 20000 and c.flag_due == 30000  # low time at 10 s left
    c.now_low()
    assert c.low and c.due == 30000
    c.press(25000)  # black moved with 5 s left: white's turn, 30 s left
    assert not c.low and c.due == 20000
    c2 = Clock(parse_control("0:08"))
    c2.press(0)
    assert c2.low and c2.due == c2.flag_due == 8000  # under ten seconds from the start of the turn


def test_lend_charges_the_player_who_knocked_pieces_over():
    c = Clock(parse_control("1d5"))  # a US delay: the lent time is charged plainly
    c.press(0)  # black's time runs from 0
    c.lend(1000)  # white knocked pieces over at 1000
    assert c.lent and c.side == 0
    assert c.left(0, 4000) == 57000 and c.left(1, 4000) == 60000  # black: 1 s of its 5 s delay
    state = c.state(4000)  # saved while lent: as though the pieces were back at 4000
    assert state[0] == 57000 and state[6] == 1 and state[8] == 1000
    c.give_back(4000)
    assert not c.lent and c.side == 1 and c.base[0] == 57000
    assert c.left(1, 10000) == 60000 - (1000 + 6000 - 5000)  # 7 s of black's turn, 5 free
    c.lend(11000)
    c.fall(11000 + 57000)  # white's flag falls while it puts the pieces back
    assert c.fallen == 0 and not c.lent and c.left(0, 0) == 0
    assert c.left(1, 0) == 60000 - (1000 + 7000 - 5000)  # black: 8 s of its turn by the second knock
