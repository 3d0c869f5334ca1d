# The bring-up test a builder runs from the USB console: the scan's time, every LED, every square.
#
# `selftest` (link command) runs three parts in turn, or one: `selftest scan|leds|squares`.
#   scan     times the matrix scan over SCAN_SAMPLES scans and names any square that reads closed
#            on an empty board (and the row pads' drive strength as read back at start-up);
#   leds     lights a1, b1 ... h8 one after the other in each colour (red, green, blue, white on a
#            WS2812B board; the one colour of a MAX7219), then all 64 at once: a square that stays
#            dark or lights out of turn is a wiring or `led_chain` fault only a person can see;
#   squares  lights one square at a time on an empty board; the builder puts a piece on it and
#            takes it off again; the test says whether exactly that square read closed, nothing
#            did, another one did (crossed wires) or more did (a missing diode or a short).
# `selftest skip` passes the square being waited for, `selftest stop` ends the test and reports.
#
# Pure logic: the matrix, the LEDs, the clock in microseconds and the output (say) come in from
# the caller, and App.step hands each scan period to step(now) while the test runs, so the game
# is left alone meanwhile (afterwards the board guides the pieces back to it).
from micropython import const

from core import signals
from core.position import square_name
from hardware import leds as palette

SCAN_SAMPLES = const(200)  # 0.8 s of scans at the default 4 ms period
LED_STEP_MS = const(60)  # one square after the other: 64 x 60 ms = 3.8 s per colour, slow enough to follow
LED_HOLD_MS = const(1000)  # all 64 lit: the supply's worst case, under the firmware's current cap
STABLE_MS = const(60)  # a reading must hold this long to count: reeds bounce, hands hesitate
SQUARE_TIMEOUT_MS = const(20000)  # no reading for this long: the square is reported and passed

# What the squares part found on each square.
_UNTESTED = const(0)
_RIGHT = const(1)
_NOTHING = const(2)  # nothing read: diode reversed, reed broken, bad joint, magnet too weak or too far
_ELSEWHERE = const(3)  # only another square read: crossed row or column wires
_EXTRA = const(4)  # the square and another: a missing or shorted diode (ghosting), or a short
_SKIPPED = const(5)

_RGB_COLOURS = (((255, 0, 0), "red"), ((0, 255, 0), "green"), ((0, 0, 255), "blue"), ((255, 255, 255), "white"))


def lamp_codes(rgb):
    """[(signal code, colour name)]: a steady signal per test colour, found in the palette, so the
    test goes through the real LED driver (brightness, current cap, chain order) unchanged."""
    found = []
    if rgb:
        c = palette.COLOURS
        for want, name in _RGB_COLOURS:
            for code in range(1, signals.COUNT):
                if (
                    palette.RGB_BLINK[code] == palette.STEADY
                    and not palette.RGB_PULSE[code]
                    and (c[3 * code], c[3 * code + 1], c[3 * code + 2]) == want
                ):
                    found.append((code, name))
                    break
    else:
        for code in range(1, signals.COUNT):
            if palette.MONO_BLINK[code] == palette.STEADY:
                found.append((code, "lit"))
                break
    if not found:
        raise ValueError("no steady signal to light the LEDs with")
    return found


class SelfTest:
    """One run of the bring-up test; step(now) every scan period until it returns False."""

    def __init__(self, settings, matrix, leds, say, ticks_us, ticks_diff, parts=("scan", "leds", "squares"), row_drive_ma=None):
        self.settings = settings
        self.matrix = matrix
        self.leds = leds
        self.say = say
        self._ticks_us = ticks_us
        self._ticks_diff = ticks_diff
        self.parts = list(parts)
        self.row_drive_ma = row_drive_ma
        self.lamps = lamp_codes(settings.led_type == "ws2812")
        self.frame = bytearray(64)
        self.found = bytearray(64)  # _RIGHT, _NOTHING ... per square
        self.read_as = bytearray(64)  # the square an _ELSEWHERE or _EXTRA square read as
        self.scan_us = [0, 0, 0, 0]  # count, total, least, most
        self.led_us = 0  # the longest LED write
        self._full_ma = 0  # the LED driver's current estimate with all 64 lit
        self.problems = []  # one short text per problem, for the last line
        self._last = bytearray(64)
        self._since = 0
        self._part = None
        self._t0 = 0
        self._n = 0
        self._target = 0
        self._waiting_empty = False
        self.running = True

    # -- the caller's side --------------------------------------------------------------------

    def step(self, now):
        """One scan period. False once the test has ended (its report said)."""
        if not self.running:
            return False
        t0 = self._ticks_us()
        raw = self.matrix.scan()
        dt = self._ticks_diff(self._ticks_us(), t0)
        s = self.scan_us
        s[0] += 1
        s[1] += dt
        if s[0] == 1 or dt < s[2]:
            s[2] = dt
        if dt > s[3]:
            s[3] = dt
        if raw != self._last:
            self._last[:] = raw
            self._since = now
        if self._part is None:
            self._next_part(now)
        if self._part == "scan":
            self._scan_step(now, raw)
        elif self._part == "leds":
            self._leds_step(now)
        elif self._part == "squares":
            self._squares_step(now, raw)
        if self.running:
            self._show(now)
        return self.running

    def skip(self, now):
        if self._part == "squares" and not self._waiting_empty:
            self.found[self._target] = _SKIPPED
            self.say("%s skipped" % square_name(self._target))
            self._next_square(now)
        else:
            self.say("nothing to skip now")

    def stop(self, now):
        self.say("stopped")
        self._finish(now)

    # -- the parts ----------------------------------------------------------------------------

    def _next_part(self, now):
        if not self.parts:
            self._finish(now)
            return
        self._part = self.parts.pop(0)
        self._t0 = now
        self._n = 0
        for i in range(64):
            self.frame[i] = 0
        if self._part == "scan":
            self.say("scan: timing %d scans" % SCAN_SAMPLES)
        elif self._part == "leds":
            names = ", ".join(name for code, name in self.lamps)
            self.say("leds: a1, b1 ... h8 one after the other in %s, then all 64: watch for a square dark or out of turn" % names)
        else:
            self._target = 0
            self._waiting_empty = True
            self.say("squares: clear the board; then put a piece on the lit square and take it off again, a1 to h8")

    def _scan_step(self, now, raw):
        self._n += 1
        if self._n < SCAN_SAMPLES:
            return
        s = self.scan_us
        budget = self.settings.scan_period_ms * 1000
        self.say(
            "scan: %d scans, %d us least, %d mean, %d most (%d%% of the %d ms period; settle %d us x 8 rows)"
            % (s[0], s[2], s[1] // s[0], s[3], 100 * s[3] // budget, self.settings.scan_period_ms, self.settings.settle_us)
        )
        if s[3] * 2 > budget:
            self.problems.append("scan over half its period")
        closed = [square_name(sq) for sq in range(64) if raw[sq]]
        if closed:
            self.say("scan: closed now: %s (pieces, or switches stuck closed)" % " ".join(closed))
        fault = getattr(self.matrix, "fault", None)
        if fault is not None and fault():
            self.say("scan: the matrix reads what no pieces can make (a column shorted to ground, or a row stuck low)")
            self.problems.append("matrix fault")
        drive = self.row_drive_ma
        if drive is not None:
            if min(drive) == 12:
                self.say("scan: row pads read back 12 mA drive on all 8 rows")
            else:
                self.say("scan: row pads read back %s mA (want 12)" % " ".join(str(ma) for ma in drive))
                self.problems.append("row drive")
        self._next_part(now)

    def _leds_step(self, now):
        t = now - self._t0
        per_colour = 64 * LED_STEP_MS
        colour = t // per_colour
        frame = self.frame
        for i in range(64):
            frame[i] = 0
        if colour < len(self.lamps):
            frame[(t % per_colour) // LED_STEP_MS] = self.lamps[colour][0]
            return
        if t < len(self.lamps) * per_colour + LED_HOLD_MS:
            for i in range(64):
                frame[i] = self.lamps[-1][0]
            return
        text = "leds: done; the longest write took %d us" % self.led_us
        current = getattr(self.leds, "current_ma", None)
        if current is not None:
            text += "; all 64 %s came to an estimated %d mA (cap %d mA)" % (
                self.lamps[-1][1],
                self._full_ma,
                self.leds.current_cap_ma,
            )
        self.say(text)
        self._next_part(now)

    def _squares_step(self, now, raw):
        if now - self._since < STABLE_MS:
            return  # still bouncing or moving: judge only a reading that holds
        closed = [sq for sq in range(64) if raw[sq]]
        if self._waiting_empty:
            if not closed:
                self._waiting_empty = False
                self._t0 = now
                if self._target < 64:
                    self.say("put a piece on %s" % square_name(self._target))
            elif now - self._t0 >= SQUARE_TIMEOUT_MS:
                self._t0 = now
                self.say("waiting for an empty board; closed: %s" % " ".join(square_name(sq) for sq in closed))
            return
        target = self._target
        if not closed:
            if now - self._t0 >= SQUARE_TIMEOUT_MS:
                self.found[target] = _NOTHING
                self.say("%s: nothing read in %d s (diode reversed, reed broken, bad joint, or magnet too weak or too far)" % (square_name(target), SQUARE_TIMEOUT_MS // 1000))
                self._next_square(now)
            return
        others = [sq for sq in closed if sq != target]
        if not others:
            self.found[target] = _RIGHT
            self.say("%s ok" % square_name(target))
        elif len(others) == len(closed):
            self.found[target] = _ELSEWHERE
            self.read_as[target] = others[0]
            self.say("%s read as %s (crossed row or column wires?)" % (square_name(target), " ".join(square_name(sq) for sq in others)))
        else:
            self.found[target] = _EXTRA
            self.read_as[target] = others[0]
            self.say("%s read with %s (missing or shorted diode, or a short between wires?)" % (square_name(target), " ".join(square_name(sq) for sq in others)))
        self._next_square(now)

    def _next_square(self, now):
        self._target += 1
        self._t0 = now
        if self._target >= 64:
            self._report_squares()
            self._part = None
            self._next_part(now)
        else:
            self._waiting_empty = True

    def _report_squares(self):
        found = self.found
        right = sum(1 for sq in range(64) if found[sq] == _RIGHT)
        tested = sum(1 for sq in range(64) if found[sq] != _UNTESTED)
        text = "squares: %d of %d tested read right" % (right, tested)
        for kind, label in ((_NOTHING, "no reading"), (_ELSEWHERE, "read elsewhere"), (_EXTRA, "read with others"), (_SKIPPED, "skipped")):
            names = []
            for sq in range(64):
                if found[sq] == kind:
                    name = square_name(sq)
                    if kind == _ELSEWHERE or kind == _EXTRA:
                        name += ">" + square_name(self.read_as[sq])
                    names.append(name)
            if names:
                text += "; %s: %s" % (label, " ".join(names))
                if kind != _SKIPPED:
                    self.problems.append(label)
        self.say(text)

    def _finish(self, now):
        if self._part == "squares":
            self._report_squares()
        self._part = None
        self.parts = []
        self.running = False
        for i in range(64):
            self.frame[i] = 0
        self._show(now)
        self.say("done: " + (", ".join(self.problems) if self.problems else "no problems found"))

    def _show(self, now):
        if self._part == "squares" and not self._waiting_empty and self._target < 64:
            for i in range(64):
                self.frame[i] = 0
            self.frame[self._target] = self.lamps[0][0]
        t0 = self._ticks_us()
        written = self.leds.show(self.frame, now)
        dt = self._ticks_diff(self._ticks_us(), t0)
        if written and dt > self.led_us:
            self.led_us = dt
        if self._part == "leds" and self.frame[0] and self.frame[63]:
            self._full_ma = getattr(self.leds, "current_ma", 0)


def _clock():
    import time

    if hasattr(time, "ticks_us"):
        return time.ticks_us, time.ticks_diff
    # CPython (host tests, simulators): the same on a monotonic clock.
    return (lambda: time.perf_counter_ns() // 1000), (lambda a, b: a - b)


def command(link, rest):
    """The `selftest` console command: start, skip a square, or stop."""
    app = link.app
    word = rest.split()[0] if rest.split() else ""
    test = getattr(app, "selftest", None)

    def say(text):
        link.write("selftest " + text + "\n")

    if word in ("skip", "stop"):
        if test is None:
            link.err("selftest is not running")
        elif word == "skip":
            test.skip(link.now)
        else:
            test.stop(link.now)
        return
    if test is not None:
        link.err("selftest is already running ('selftest stop' ends it)")
        return
    if word and word not in ("scan", "leds", "squares"):
        link.err("selftest takes scan, leds, squares, skip or stop")
        return
    cpp = link.sessions.get("cpp")
    if cpp is not None and cpp.round:
        link.err("selftest: not during a CPP round (send end first)")
        return
    ticks_us, ticks_diff = _clock()
    parts = (word,) if word else ("scan", "leds", "squares")
    app.selftest = SelfTest(
        app.settings, app.matrix, app.leds, say, ticks_us, ticks_diff, parts, getattr(app, "row_drive_ma", None)
    )
    say("started: %s; 'selftest skip' passes a square, 'selftest stop' ends it" % ", ".join(parts))
