"""Physical transcripts: read `T_MS lift SQ` / `T_MS place SQ` files and play them through the
firmware's scanner period, debouncer, referee and display, as the board would (docs/spec.md section 5).

Used by tools/replay.py, the tests and the transcript generator. Host-side (CPython) only.
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _p in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tools", "shims")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import config  # noqa: E402
from core import signals  # noqa: E402
from core.clock import parse_control  # noqa: E402
from core.debounce import DeferPerSquare  # noqa: E402
from core.display import Display  # noqa: E402
from core.game import Game  # noqa: E402
from core.pipeline import feed_scan  # noqa: E402
from core.position import STARTING_FEN, FenError, Position, parse_square, square_name  # noqa: E402
from core.referee import CASUAL, STRICT, Referee, event_text  # noqa: E402

SETTINGS = config.Settings()
# The board.json settings a transcript sets with `@setting NAME VALUE` (tools/replay.py: --setting
# NAME VALUE): every one the referee and its arbiter read (Referee.configure). `@mode` and `@clock`
# are short for the first two.
RULE_SETTINGS = ("mode", "clock", "promotion_piece", "illegal_moves", "illegal_complete_ms", "commit_delay_ms")
# After the last transition, keep scanning this long so that a pending commit or error comes out.
TAIL_MS = 3000


class TranscriptError(ValueError):
    """A transcript that cannot be read; the message names the line."""


def shown(text, n=60):
    """Input quoted in an error message, cut short: a line of a file can be megabytes long."""
    return repr(text if len(text) <= n else text[:n] + "...")


def parse(text, fen=None, mode=None):
    """(fen, mode, [(t_ms, occupied, square), ...]) from transcript text. fen/mode given here (not
    None) override the file's @fen/@mode headers."""
    file_fen = None
    file_mode = None
    events = []
    last_t = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("@"):
            key, _, value = line.partition(" ")
            value = value.strip()
            if key == "@fen":
                if not value:
                    raise TranscriptError("line %d: @fen needs a FEN (leave the line out for the start position)" % number)
                file_fen = value
            elif key == "@new":
                if not value:
                    raise TranscriptError("line %d: @new needs the FEN the PC sends" % number)
                check_fen(value)
            elif key == "@setting":
                name, _, value = value.partition(" ")
                name, value = setting(name, value.strip(), "line %d: @setting" % number)
                if name == "mode":
                    file_mode = value
            elif key == "@clock":
                check_clock(value, "line %d: @clock" % number)
            elif key == "@mode":
                if value not in (STRICT, CASUAL):
                    raise TranscriptError("line %d: @mode must be strict or casual, not %s" % (number, shown(value)))
                file_mode = value
            else:
                raise TranscriptError("line %d: unknown header %s (use @fen, @mode, @clock, @setting or @new)" % (number, shown(key)))
            continue
        words = line.split()
        if len(words) != 3:
            raise TranscriptError("line %d: expected 'T_MS lift SQ' or 'T_MS place SQ', got %s" % (number, shown(line)))
        t, action, sq = words
        try:
            if len(t) > 12:  # over 30 years of milliseconds, and int() of megabytes of digits is slow
                raise ValueError(t)
            t_ms = int(t)
        except ValueError:
            raise TranscriptError("line %d: time %s is not a whole number of milliseconds" % (number, shown(t)))
        if t_ms < last_t:
            raise TranscriptError("line %d: time %d goes back before %d" % (number, t_ms, last_t))
        if action not in ("lift", "place"):
            raise TranscriptError("line %d: %s is neither lift nor place" % (number, shown(action)))
        try:
            square = parse_square(sq.lower())
        except ValueError:
            raise TranscriptError("line %d: %s is not a square" % (number, shown(sq)))
        last_t = t_ms
        events.append((t_ms, 1 if action == "place" else 0, square))
    if fen is None:
        fen = file_fen or STARTING_FEN
    check_fen(fen)
    return fen, mode or file_mode or STRICT, events


def file_clock(text):
    """The time control of a transcript's @clock header (or `@setting clock`, the last one), or None."""
    control = None
    for name, value in file_settings(text, ("clock",)):
        control = value
    return control


def file_new(text):
    """The FEN of a transcript's `@new FEN` header, or None: the PC sends `new FEN` as the board
    starts, the pieces standing as the game of @fen has them (docs/usb-link.md)."""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("@new "):
            return line[5:].strip()
    return None


def file_settings(text, names=RULE_SETTINGS):
    """[(name, value), ...] of a transcript's `@setting` headers (and `@clock`), in the file's order,
    each checked as board.json's would be (parse() has reported the bad ones with their line)."""
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        key, _, value = line.partition(" ")
        if key == "@clock":
            name = "clock"
        elif key == "@setting":
            name, _, value = value.strip().partition(" ")
        else:
            continue
        if name in names:
            out.append(setting(name, value.strip(), key))
    return out


def setting(name, text, where="--setting"):
    """(name, value) of one rule setting given as words (`illegal_moves lose`,
    `illegal_complete_ms 1000`), checked as board.json's would be; TranscriptError says what is wrong."""
    if name not in RULE_SETTINGS:
        raise TranscriptError("%s %s: not a setting of the rules (one of %s)" % (where, shown(name), ", ".join(RULE_SETTINGS)))
    value = text
    if name.endswith("_ms"):
        if not text.isdigit() or len(text) > 9:
            raise TranscriptError("%s %s: %s is not a whole number of milliseconds" % (where, name, shown(text)))
        value = int(text)
    try:
        SETTINGS.updated({name: value})
    except config.SettingsError as e:
        text = str(e)  # it spells the value out whole: a pasted line can be megabytes long
        raise TranscriptError("%s %s" % (where, text if len(text) <= 200 else text[:200] + "..."))
    return name, value


def check_clock(control, where="--clock"):
    """Raise TranscriptError unless control is a time control core/clock.py reads."""
    try:
        parse_control(control)
    except ValueError as e:
        raise TranscriptError("%s %s: %s" % (where, shown(control), e))


def check_fen(fen):
    """Raise TranscriptError unless fen is a position the core takes (an empty one is not)."""
    if not fen.strip():
        raise TranscriptError("empty FEN (leave --fen out for the start position)")
    try:
        Position(fen)
    except FenError as e:
        raise TranscriptError("bad FEN %s: %s" % (shown(fen, 100), e))


def placement_occupancy(text):
    """bytearray(64) of 0/1 (index 0 = a1) from a FEN's piece placement field, e.g.
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR': which squares have a piece (the board's
    switches cannot tell which). Raises TranscriptError saying what is wrong."""
    ranks = text.strip().split("/")
    if len(ranks) != 8:
        raise TranscriptError("placement %s: needs 8 ranks separated by /, has %d" % (shown(text, 100), len(ranks)))
    occ = bytearray(64)
    for i, rank in enumerate(ranks):
        row = 7 - i  # the placement starts with rank 8
        file = 0
        for c in rank:
            if c in "12345678":
                file += int(c)
            elif c in "pnbrqkPNBRQK":
                if file < 8:
                    occ[row * 8 + file] = 1
                file += 1
            else:
                raise TranscriptError("placement %s: %s is neither a piece nor a count of empty squares" % (shown(text, 100), shown(c)))
        if file != 8:
            raise TranscriptError("placement %s: rank %d has %d squares, not 8" % (shown(text, 100), 8 - i, file))
    return occ


def frame_text(frame):
    """`a1:quiet e4:capture ...` for the squares that are lit."""
    return " ".join("%s:%s" % (square_name(sq), signals.name(frame[sq])) for sq in range(64) if frame[sq])


class Board:
    """The firmware's pure pipeline with a physical board in front of it, on a simulated clock."""

    def __init__(self, fen=STARTING_FEN, mode=STRICT, settings=SETTINGS, board=None, clock=None):
        """board: bytearray(64) of the squares with pieces at power-up, when they differ from the
        game's position (as after a power cut: the game is the saved one, resumed as the firmware
        resumes it, docs/power-up.md); None: the pieces stand as the game has them. clock: a time
        control (core/clock.py's notation) set before the first move, or None."""
        self.settings = settings
        self.period = settings.scan_period_ms
        self.debouncer = DeferPerSquare(settings.debounce_ms)
        self.referee = Referee(Game(fen))
        self.referee.configure(settings)
        self.referee.set_mode(mode)
        if clock is not None:
            self.referee.set_clock(clock)
        self.display = Display()
        self.raw = bytearray(64)
        self.referee.game.position.occupancy_into(self.raw)
        if board is not None:
            self.raw[:] = board
        self.now = 0
        self.debouncer.reset(self.raw, 0)
        self.referee.start(self.raw, 0)
        if board is not None:
            self.referee.resume_game(self.referee.game, 0)
        self.frame = bytes(self.display.render(self.referee))

    def scan_until(self, t_ms, on_output=None, on_frame=None):
        """Scan every period up to t_ms; report output events and changed LED frames."""
        ref = self.referee
        deb = self.debouncer
        while self.now + self.period <= t_ms:
            if not deb.unsettled and self.raw == deb.state and not ref.out:
                # Nothing on the board is changing: only the referee's timers can act, so skip to
                # the scan at which the next one is due (the result is the same as scanning).
                due = ref.next_deadline()
                target = t_ms if due is None or due > t_ms else due
                skip = (target - self.now) // self.period - 1
                if skip > 0:
                    self.now += skip * self.period
            self.now += self.period
            before = len(ref.out)
            n = feed_scan(self.debouncer, ref, self.raw, self.now)
            if len(ref.out) > before and on_output:
                for ev in ref.out[before:]:
                    on_output(self.now, ev)
            if n or len(ref.out) > before or on_frame:
                frame = bytes(self.display.render(ref))
                if frame != self.frame:
                    self.frame = frame
                    if on_frame:
                        on_frame(self.now, frame)

    def apply(self, occupied, square):
        self.raw[square] = occupied


def run(fen, mode, events, leds=False, board=None, clock=None, settings=None, new=None):
    """Play a parsed transcript; returns the output lines (docs/spec.md section 5). board: the
    occupied squares at power-up, when not the FEN's (Board). clock: a time control (core/clock.py),
    adding the `clock`, `penalty` and flag `end` lines (docs/spec.md section 10). settings: rule
    settings [(name, value), ...] laid over board.json's defaults (file_settings, setting). new: the
    FEN of a `new FEN` the PC sends as the board starts (file_new), or None."""
    overrides = {}
    for name, value in settings or ():
        if name != "mode" and name != "clock":  # mode and clock come as their own arguments
            overrides[name] = value
    board = Board(fen, mode, settings=SETTINGS.updated(overrides), board=board, clock=clock)
    if new is not None:
        board.referee.load_game(Game(new), 0)  # as the USB link's `new FEN` does (link/link.py: load)
    lines = []

    def output(t, ev):
        lines.append(event_text(ev))

    def frame(t, f):
        lines.append(("leds %d %s" % (t, frame_text(f))).rstrip())

    on_frame = frame if leds else None
    if leds:
        lines.append(("leds 0 %s" % frame_text(board.frame)).rstrip())
    game = board.referee.game
    if game.is_over():
        lines.append("end %s %s" % (game.result, game.reason))  # the position given has ended the game
    for ev in board.referee.out:
        output(0, ev)  # what the power-up said (Board's `board`): a `choose` line
    for t, occupied, square in events:
        board.scan_until(t, output, on_frame)
        board.apply(occupied, square)
    end = (events[-1][0] if events else 0) + TAIL_MS
    board.scan_until(end, output, on_frame)
    lines.append("fen " + board.referee.game.fen())
    return lines


def run_uci(fen, moves):
    """Moves straight to the rules core; returns the output lines."""
    game = Game(fen)
    lines = []
    if game.is_over():
        lines.append("end %s %s" % (game.result, game.reason))  # the position given has ended the game
    for text in moves:
        if game.is_over():
            lines.append("error game-over %s %s" % (text[0:2], text[2:4]))
            continue
        try:
            move = game.position.parse_uci(text if len(text) == 5 else text + "q")
        except ValueError:
            move = 0
        if not move:
            try:
                move = game.position.parse_uci(text)
            except ValueError:
                lines.append("error illegal %s %s" % (text[0:2], text[2:4]))
                continue
        claims = game.claims
        game.push(move)
        from core.position import move_uci

        lines.append("move " + move_uci(move))
        for c in game.claims:
            if c not in claims:
                lines.append("claim " + c)
        if game.is_over():
            lines.append("end %s %s" % (game.result, game.reason))
    lines.append("fen " + game.fen())
    return lines
