# The board's chess clock (docs/spec.md section 10): time controls and the two players' times.
#
# Pure: time comes in as an argument (ms on a clock that may wrap at 2**30, like time.ticks_ms),
# and every figure is a whole number of milliseconds below 2**30, a small int on the Pico (five
# hours are 18,000,000 ms). The referee presses the clock when it commits a move (core/referee.py);
# nobody presses anything on this board.
#
# A time control is written as periods separated by commas, each
#     MINUTES[/MOVES][+SECONDS | dSECONDS | bSECONDS]
# MINUTES may be M or M:SS ("0:30" is thirty seconds). /MOVES: the period is for that many moves,
# then the next period's time is added; the last period with no /MOVES lasts the rest of the game
# (one with /MOVES repeats, as "120/40" on a mechanical clock). After the time: +S a Fischer
# increment of S seconds added after each move, dS a US (simple) delay of S seconds at the start of
# each move before the clock counts down, bS a Bronstein delay (the time a move took is given back,
# up to S seconds). Examples: "5+3", "15+10", "90/40+30,30+30", "5d3", "5b3", "3", "0:30".
# "none" (or "") is no clock.
from micropython import const

SUDDEN = const(0)
FISCHER = const(1)
US_DELAY = const(2)
BRONSTEIN = const(3)
_KIND_LETTERS = ("", "+", "d", "b")

# FIDE Appendices A.1 and B.1: the time for 60 moves (the first period plus 60 increments).
BLITZ = "blitz"
RAPID = "rapid"
STANDARD = "standard"

WHITE_SIDE = const(0)
BLACK_SIDE = const(1)

_MASK = const(0x3FFFFFFF)  # time.ticks_ms wraps at 2**30
_MAX_MS = const(36000000)  # ten hours: more than any control, and a small int everywhere
_MAX_MOVES = const(200)
_MAX_PERIODS = const(4)
_TAKEBACKS = const(8)  # presses take_back() can undo exactly (casual takebacks of several moves)


def _number(text, what):
    if not text or len(text) > 5 or not text.isdigit():
        raise ValueError("%s %r is not a number" % (what, text[:12]))
    return int(text)


def _minutes(text):
    """ms of "M" or "M:SS"."""
    if ":" in text:
        m, _, s = text.partition(":")
        sec = _number(s, "seconds")
        if len(s) != 2 or sec > 59:
            raise ValueError("%r: write seconds as two digits below 60 (like 1:30)" % text[:12])
        return (_number(m, "minutes") * 60 + sec) * 1000
    return _number(text, "minutes") * 60000


_FORM = "MINUTES[/MOVES][+SECONDS|dSECONDS|bSECONDS], like 5+3, 5d3 or 90/40+30,30+30"


def _check_period(text, part):
    """Raise ValueError saying what is wrong with one period of the control `text` as typed, when
    its shape is not the notation's (the numbers are checked as they are read)."""
    if not part:
        raise ValueError("%r: a period is empty (write %s)" % (text[:20], _FORM))
    kinds = 0
    last = ""  # the last character but spaces
    for c in part:
        if c == " ":
            continue
        if c in "+db/:":
            if not last:
                raise ValueError("%r: a period starts with its minutes (write %s)" % (part[:20], _FORM))
            if last in "+db/:":
                raise ValueError("%r: a number is missing after %r (write %s)" % (part[:20], last, _FORM))
            if c != "/" and c != ":":
                kinds += 1
        elif c not in "0123456789":
            raise ValueError("%r is not a time control: %r has no place in one (write %s)" % (text[:20], c, _FORM))
        last = c
    if last in "+db/:":
        raise ValueError("%r: a number is missing after %r (write %s)" % (part[:20], last, _FORM))
    if kinds > 1:
        raise ValueError("%r: one increment or delay a period (+, d or b), not %d" % (part[:20], kinds))


def make(control):
    """A Clock for a control's text, or None for no clock (None, "", "none", "off", "-")."""
    if control is None:
        return None
    periods = parse_control(control)
    return Clock(periods) if periods else None


def parse_control(text):
    """The periods of a time control written as above: a tuple of (time_ms, moves or 0, kind,
    extra_ms) per period, or () for "none"/"". Raises ValueError saying what is wrong."""
    text = text.strip().lower()
    if text in ("", "none", "off", "-"):
        return ()
    periods = []
    parts = text.split(",")
    if len(parts) > _MAX_PERIODS:
        raise ValueError("at most %d periods, got %d" % (_MAX_PERIODS, len(parts)))
    for i in range(len(parts)):
        part = parts[i].strip()
        _check_period(text, part)
        kind = SUDDEN
        extra = 0
        for k in (FISCHER, US_DELAY, BRONSTEIN):
            letter = _KIND_LETTERS[k]
            if letter in part:
                part, _, tail = part.partition(letter)
                kind = k
                extra = _number(tail.strip(), "seconds of increment or delay") * 1000
                break
        part = part.strip()
        moves = 0
        if "/" in part:
            part, _, m = part.partition("/")
            moves = _number(m.strip(), "moves")
            if not 1 <= moves <= _MAX_MOVES:
                raise ValueError("moves in a period must be 1 to %d, got %d" % (_MAX_MOVES, moves))
        ms = _minutes(part.strip())
        if ms > _MAX_MS or extra > 600000:
            raise ValueError("%r: at most 600 minutes a period and 600 seconds of increment or delay" % parts[i][:20])
        if ms == 0 and (i == 0 or kind == SUDDEN):
            raise ValueError("%r: a period needs some time" % parts[i].strip()[:20])
        periods.append((ms, moves, kind, extra))
    for i in range(len(periods) - 1):
        if not periods[i][1]:
            raise ValueError("only the last period may be for the rest of the game (give the others /MOVES)")
    return tuple(periods)


def control_text(periods):
    """The canonical text of a control (parse_control's inverse), "none" for no clock."""
    if not periods:
        return "none"
    out = []
    for ms, moves, kind, extra in periods:
        s = ms // 1000
        t = "%d" % (s // 60) if s % 60 == 0 else "%d:%02d" % (s // 60, s % 60)
        if moves:
            t += "/%d" % moves
        if kind != SUDDEN:
            t += "%s%d" % (_KIND_LETTERS[kind], extra // 1000)
        out.append(t)
    return ",".join(out)


def category(periods):
    """BLITZ, RAPID or STANDARD by FIDE A.1/B.1: the time for 60 moves (the periods that start
    within them, a last one with /MOVES repeating, plus 60 increments or delays of the first) is
    at most 10 minutes (blitz), more than 10 but less than 60 (rapid), or 60 minutes and more
    (standard)."""
    total = 0
    moves = 0
    i = 0
    while moves < 60 and i < len(periods):
        ms, n, kind, extra = periods[i]
        total += ms
        if not n:
            break
        moves += n
        if i < len(periods) - 1:
            i += 1
    if periods and periods[0][2] != SUDDEN:
        total += 60 * periods[0][3]
    if total <= 600000:
        return BLITZ
    if total < 3600000:
        return RAPID
    return STANDARD


def pgn_time_control(periods):
    """PGN's TimeControl tag (seconds): "300+3", "40/5400+30:1800+30". PGN has no delay: a delay
    control gives its base time only."""
    out = []
    for ms, moves, kind, extra in periods:
        t = "%d" % (ms // 1000)
        if moves:
            t = "%d/%s" % (moves, t)
        if kind == FISCHER:
            t += "+%d" % (extra // 1000)
        out.append(t)
    return ":".join(out) if out else "-"


def pgn(game, clock, headers=None):
    """The game's PGN with the clock: its TimeControl tag and `{[%clk h:mm:ss]}` after each move
    (the moves since a power cut when the game was resumed: the times before it are not saved)."""
    tags = {"TimeControl": pgn_time_control(clock.periods)}
    if headers:
        for key in headers:
            tags[key] = headers[key]
    n = game.ply()
    return game.pgn(tags, clock.history[-n:] if n else [])


def clock_text(ms):
    """h:mm:ss of a time (rounded up to the second, as clocks show time left), as PGN's [%clk]."""
    s = (ms + 999) // 1000 if ms > 0 else 0
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)


def short_text(ms):
    """What a clock face shows: m:ss, h:mm:ss from an hour, s.t under ten seconds."""
    if ms <= 0:
        return "0.0"
    if ms < 10000:
        return "%d.%d" % (ms // 1000, ms // 100 % 10)
    s = (ms + 999) // 1000
    if s >= 3600:
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)
    return "%d:%02d" % (s // 60, s % 60)


class Clock:
    """Two players' times under one control. Sides are 0 (white) and 1 (black).

    The side to move's time is not counted down scan by scan: the clock keeps when that turn began
    (turn_at) and how long after it the next thing happens (due): the running side's time falls
    under low_ms (the LEDs show it), or its flag falls (flag_due). So the board's idle step asks
    only `running and (now - turn_at) & MASK >= due`; left() works the time out when asked."""

    low_ms = 10000  # under this the side to move's king shows low-time (core/display.py)

    def __init__(self, periods):
        if not periods:
            raise ValueError("no time control")
        self.periods = periods
        self.category = category(periods)
        self.reset()

    def reset(self):
        """The clock as at the start of a game: the first period's time each, not started."""
        first = self.periods[0][0]
        self.base = [first, first]  # ms each side had when its current turn began (pauses aside)
        self.period = [0, 0]  # the period each side is in (index into periods)
        self.moves = [0, 0]  # moves each side has made in that period
        self.side = WHITE_SIDE  # whose time runs, or would if the clock ran
        self.started = False  # the first move (or the players) started it
        self.running = False
        self.turn_at = 0  # when the running turn (or its resumption after a pause) began
        self.used = 0  # ms of this turn counted before the last pause
        self.due = 0  # ms after turn_at at which the next thing happens: low time, or the flag
        self.flag_due = 0  # ms after turn_at at which the flag falls
        self.low = False  # the running side's time is under low_ms
        # lend(): the side not to move knocked pieces over and its time runs while it puts them back
        # (FIDE 7.4: on its own time); side is then that side, give_back() ends it.
        self.lent = False
        self.lent_for = -1  # the knock a lend was for (one lend a knock)
        self._lender_used = 0
        self.fallen = -1  # the side whose flag fell, or -1
        self.history = []  # the mover's time after each move, for PGN's [%clk]: one int a ply
        self._before = []  # the states before the last presses (at most _TAKEBACKS), for take_back()

    # ------------------------------------------------------------------ reading

    def elapsed(self, now):
        """ms the side to move has used this turn."""
        if self.running:
            return self.used + ((now - self.turn_at) & _MASK)
        return self.used

    def _charged(self, side, used):
        if self.periods[self.period[side]][2] == US_DELAY:
            d = used - self.periods[self.period[side]][3]
            return d if d > 0 else 0
        return used

    def left(self, side, now):
        """ms side has left at now (0 once its flag has fallen)."""
        ms = self.base[side]
        if side == self.side and self.started:
            ms -= self.elapsed(now) if self.lent else self._charged(side, self.elapsed(now))
        elif self.lent:
            ms -= self._charged(side, self._lender_used)  # the side to move's time up to the knock
        return ms if ms > 0 else 0

    def times(self, now):
        return self.left(WHITE_SIDE, now), self.left(BLACK_SIDE, now)

    def flagged(self, now):
        """Has the running side's time run out at now? (The board asks every scan: keep it cheap.)"""
        return self.running and ((now - self.turn_at) & _MASK) >= self.flag_due

    def _set_due(self):
        ms = self.base[self.side]
        p = self.periods[self.period[self.side]]
        if p[2] == US_DELAY and not self.lent:
            ms += p[3]
        self.flag_due = ms - self.used
        self.low = self.flag_due <= self.low_ms
        self.due = self.flag_due if self.low else self.flag_due - self.low_ms

    def now_low(self):
        """The running side's time has just fallen under low_ms (due was that moment): the next
        thing due is the flag."""
        self.low = True
        self.due = self.flag_due

    # ------------------------------------------------------------------ the players' and board's actions

    def lend(self, at):
        """From `at` the other side's time runs instead of the side to move's: it knocked pieces
        over and puts them back on its own time (FIDE 7.4), plainly (no delay) until give_back()."""
        if not self.running or self.lent:
            return
        self._lender_used = self.used + ((at - self.turn_at) & _MASK)
        self.side = 1 - self.side
        self.used = 0
        self.turn_at = at
        self.lent = True
        self._set_due()

    def give_back(self, at):
        """The knocked pieces are back: the time the other side took is charged, and the side to
        move's time runs on from where it stood."""
        if not self.lent:
            return
        s = self.side
        self.base[s] -= self.elapsed(at)
        self.side = 1 - s
        self.used = self._lender_used
        self.turn_at = at
        self.lent = False
        if self.running:
            self._set_due()

    def start(self, now):
        """The players start the clock (the side to move's time runs from now)."""
        if self.fallen >= 0:
            return
        if not self.started:
            self.started = True
            self.used = 0
        self.resume(now)

    def pause(self, now):
        if self.running:
            self.used += (now - self.turn_at) & _MASK
            self.running = False

    def resume(self, now):
        if self.started and not self.running and self.fallen < 0:
            self.turn_at = now
            self.running = True
            self._set_due()

    def press(self, at):
        """The side to move completed a move at `at`: charge its time, add its increment or
        Bronstein delay, count its moves (the next period's time comes at the last move of a
        period), and start the other side's time. The first move of white starts the clock
        without costing or earning anything; a press while paused carries on with the clock running."""
        if self.lent:
            self.give_back(at)
        s = self.side
        before = self._before
        if len(before) >= _TAKEBACKS:
            before.pop(0)
        # The time the mover had used at the press (a takeback gives it back its turn from there).
        before.append((self.base[0], self.base[1], self.period[0], self.period[1], self.moves[0], self.moves[1],
                       s, self.started, self.running, self.elapsed(at)))
        if not self.started:
            self.started = True
            ms = self.base[s]
        else:
            used = self.elapsed(at)
            p = self.periods[self.period[s]]
            ms = self.base[s] - self._charged(s, used)
            if ms < 0:
                ms = 0  # a time never goes below nothing (the referee lets the flag fall first)
            if p[2] == FISCHER:
                ms += p[3]
            elif p[2] == BRONSTEIN:
                ms += used if used < p[3] else p[3]
        self.moves[s] += 1
        p = self.periods[self.period[s]]
        if p[1] and self.moves[s] >= p[1]:
            n = self.period[s] + 1
            if n < len(self.periods):
                self.period[s] = n
            self.moves[s] = 0
            ms += self.periods[self.period[s]][0]
        if ms > _MAX_MS:
            ms = _MAX_MS
        self.base[s] = ms
        self.history.append(ms)
        self.side = 1 - s
        self.used = 0
        self.turn_at = at
        self.running = True
        self._set_due()

    def take_back(self, now):
        """A move was taken back (casual mode, or a rook move that was the start of castling): the
        clock goes back to before its press (times, periods, move counts), the taker's time having
        run all along: what it had used at the press plus the time the clock ran since. A running
        clock runs on, a paused one stays paused (a stopped one, the game having ended at that
        move, runs as it did before the press). The last _TAKEBACKS presses are undone so; an older
        one just hands the turn back, one move fewer. A fallen flag stays: the clock stays stopped."""
        if self.fallen >= 0:
            return
        if self.lent:
            self.give_back(now)
        if self.history:
            self.history.pop()
        since = self.elapsed(now)
        if self._before:
            b = self._before.pop()
            self.base[0], self.base[1], self.period[0], self.period[1], self.moves[0], self.moves[1] = b[:6]
            if not self.started:
                self.running = b[8]  # the game had ended at that move (stop()): it goes on
            self.side = b[6]
            self.started = b[7]
            self.used = b[9] + since if b[7] else 0
        else:
            s = self.side
            self.base[s] = self.left(s, now)
            self.side = 1 - s
            if self.moves[1 - s]:
                self.moves[1 - s] -= 1
            self.used = 0
        if not self.started:
            self.running = False
        if self.running:
            # The turn as though it had run unpaused until now: a press a little before now (at the
            # board's last placement, as castling presses after its rook's takeback) stays right.
            self.turn_at = (now - self.used) & _MASK
            self.used = 0
            self._set_due()
        else:
            self.turn_at = now

    def add(self, side, ms):
        """Give side ms more (an arbiter's penalty on its opponent: FIDE 7.5.5), up to the clock's
        maximum, as a press (a saved time above it would not read back)."""
        ms += self.base[side]
        self.base[side] = ms if ms < _MAX_MS else _MAX_MS
        if side == self.side and self.running:
            self._set_due()

    def fall(self, now):
        """The running side's flag falls: the clock stops with that side at 0."""
        s = self.side
        self.pause(now)
        if self.lent:  # its flag fell while it put knocked pieces back: the other's time stands
            self.base[1 - s] -= self._charged(1 - s, self._lender_used)
            self.lent = False
        self.base[s] = self._charged(s, self.used)  # left() then shows 0
        self.fallen = s

    def stop(self, now):
        """The game ended: the times stay as they are."""
        self.give_back(now)
        s = self.side
        if self.started:
            self.pause(now)
            self.base[s] -= self._charged(s, self.used)
            self.used = 0
        self.started = False  # left() reads base only

    # ------------------------------------------------------------------ saving

    def state(self, now):
        """Small ints that save the clock (restore() takes them back): each side's time at the
        start of its turn, period and moves in it, the side to move, started, ms used this turn."""
        base = [self.base[0], self.base[1]]
        side = self.side
        used = self.elapsed(now)
        if self.lent:  # as though the pieces were back now
            base[side] -= used
            side = 1 - side
            used = self._lender_used
        return (base[0], base[1], self.period[0], self.period[1], self.moves[0], self.moves[1],
                side, 1 if self.started else 0, used)

    def restore(self, state):
        """The clock of a saved game, paused (after a power cut the players resume it)."""
        if len(state) != 9:
            raise ValueError("a clock state has 9 numbers, got %d" % len(state))
        for v in state:
            if not 0 <= v <= _MAX_MS:
                raise ValueError("clock value %d out of range" % v)
        n = len(self.periods)
        if state[2] >= n or state[3] >= n or state[6] > 1 or state[7] > 1:
            raise ValueError("clock state does not fit the control %s" % control_text(self.periods))
        self.reset()
        self.base[0], self.base[1], self.period[0], self.period[1], self.moves[0], self.moves[1] = state[:6]
        self.side = state[6]
        self.started = state[7] == 1
        self.used = state[8]


# ---------------------------------------------------------------------- saved with the game


def saved_line(ref, now):
    """What firmware/store.py saves of the referee's clock: the control, Clock.state() and each
    side's completed illegal moves, as one line of words."""
    c = ref.clock
    numbers = c.state(now) + tuple(ref.illegal_count)
    return control_text(c.periods) + "".join(" %d" % n for n in numbers)


def resume_saved(ref, saved, now):
    """Give the referee the clock of a resumed game, (control, 9 clock numbers, illegal-move counts)
    as firmware/store_read.py read it, paused (docs/clock.md); returns what to tell the players."""
    control, numbers, illegal = saved
    try:
        make(control).restore(numbers)  # first: a clock that does not read leaves the board's as it was
    except (ValueError, AttributeError) as e:
        ref.lay_clock_aside()
        return "saved clock unreadable, playing on without a clock: %s" % e
    ref.set_clock(control)
    ref.clock.restore(numbers)
    ref.illegal_count = list(illegal)
    w, b = ref.clock.times(now)
    return "clock paused: white %s, black %s" % (short_text(w), short_text(b))
