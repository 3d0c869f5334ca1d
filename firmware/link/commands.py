# The board's own commands on the USB link: for a person at a terminal, the PC companion, the tools.
#
# One row of COMMANDS per command: (name, handler, takes_over, help line). handler(link, rest) gets
# the Link (link/link.py: line(), err(), info(), load(), save(), app) and the text after the
# command's name. takes_over: the command starts another game, so once its handler has accepted
# it the board's commands become the dialect that speaks unasked (a CPP round or ChessLink session
# ends); the handler switches itself, after its checks, so that a refused line changes nothing.
# The others answer in any dialect and leave it as it is (and choose the board's dialect only when
# none is chosen yet). To add a command, write its handler here or in a
# module of its own (imported inside the handler, so its bytecode is loaded only when used) and
# add its row: `help` lists it from the row.
import os

from core.game import Game
from core.position import KNIGHT, STARTING_FEN, square_name
from core.referee import CASUAL, PLAY, SETUP, STRICT, event_text

# Missing FEN fields, completed as CPP apps send "placement side" (castling "KQkq" is then cut
# down by the position to what the kings and rooks on their squares allow).
_FEN_DEFAULTS = ("", "w", "KQkq", "-", "0", "1")
# Events whose line says it all: core/messages.py words none of them, so it is not loaded for them
# (4 KB a Pico W's online game, every move an event, needs for its TLS handshakes).
_NO_PLAIN_WORDS = ("move", "undo", "clock")


def complete_fen(text):
    """A six-field FEN from one with fewer fields (or None when it has none or more than six)."""
    fields = text.split()
    if not fields or len(fields) > 6:
        return None
    for i in range(len(fields), 6):
        fields.append(_FEN_DEFAULTS[i])
    return " ".join(fields)


def block(link, name, lines):
    # Framing of a multi-line answer: "NAME N", then exactly N lines.
    link.line("%s %d" % (name, len(lines)))
    for line in lines:
        link.line(line)


def _status(link, rest):
    ref = link.app.referee
    game = ref.game
    phase = "play" if ref.phase == PLAY else "setup" if ref.phase == SETUP else "over"
    error = ref.error[0] if ref.error is not None else "none"
    cpp = link.sessions.get("cpp")
    if cpp is not None and cpp.round:
        sync = "round=" + ("sync" if cpp.synced else "unsync")
    else:
        sync = "round=off"
    link.line(
        "status phase=%s mode=%s turn=%s moves=%d result=%s reason=%s check=%s error=%s %s remote=%s%s"
        % (
            phase,
            ref.mode,
            "w" if game.position.side == 0 else "b",
            game.ply(),
            game.result,
            game.reason or "-",
            "yes" if game.check else "no",
            error,
            sync,
            (cpp.remote if cpp is not None else None) or "-",
            _online_status(link),
        )
        + _clock_status(link)
    )


def _online_status(link):
    """The end of `status` about Lichess over Wi-Fi: nothing, and no online code loaded, on a
    board that is not online and has no secrets file (every Pico without Wi-Fi)."""
    if getattr(link.app, "online", None) is None:
        from online import SECRETS_PATH  # noqa: PLC0415 - the package door alone: one constant

        try:
            os.stat(SECRETS_PATH)
        except OSError:
            return ""
    from online.usb import status_suffix  # noqa: PLC0415 - loaded when asked

    return status_suffix(link)


def _online(link, rest):
    from online.usb import command  # noqa: PLC0415 - loaded when asked

    command(link, rest)
def _clock_status(link):
    """` clock=W,B,STATE` in milliseconds, only when the game has a clock (or an app sent times)."""
    ref = link.app.referee
    cpp = link.sessions.get("cpp")
    if ref.clock is None and (cpp is None or cpp.time is None):
        return ""
    from link.clock_command import state_text

    words = state_text(ref, link.app.now, link).split()
    if len(words) < 4:
        return ""
    w, b, control, state = words
    return " clock=%s,%s,%s" % (w, b, state)


def _board(link, rest):
    """What the reed switches read now, as a diagram (rank 8 on top: X occupied, . empty), and
    where that differs from the game: the first thing to look at when building or fixing a board."""
    ref = link.app.referee
    occ = ref.occ
    lines = []
    for r in range(7, -1, -1):
        lines.append("%d %s" % (r + 1, " ".join("X" if occ[8 * r + f] else "." for f in range(8))))
    wrong = ref.emptied + ref.filled
    wrong.sort()
    lines.append("  a b c d e f g h")
    lines.append(
        "%d occupied; differs from the game at: %s"
        % (sum(occ), " ".join(square_name(sq) for sq in wrong) if wrong else "none")
    )
    block(link, "board", lines)


def _fen(link, rest):
    link.line("fen " + link.app.referee.game.fen())


def _pgn(link, rest):
    ref = link.app.referee
    if ref.clock is None:
        text = ref.game.pgn()
    else:
        from core.clock import pgn  # with TimeControl and [%clk] after each move

        text = pgn(ref.game, ref.clock)
    block(link, "pgn", text.rstrip("\n").split("\n"))


def _selftest(link, rest):
    # Its own module (selftest.py), loaded only when a builder asks for it.
    import selftest

    selftest.command(link, rest)


def _clock(link, rest):
    from link.clock_command import run  # loaded on first use

    run(link, rest)


def _help(link, rest):
    block(link, "help", HELP)


def _mode(link, rest):
    ref = link.app.referee
    if rest:
        if rest not in (STRICT, CASUAL):
            link.err("mode must be strict or casual")
            return
        if rest != ref.mode:
            ref.set_mode(rest)
            link.app.redraw()
            link.save()
    link.line("mode " + ref.mode)


def _new(link, rest):
    fen = complete_fen(rest) if rest else STARTING_FEN
    if fen is None:
        link.err("new: a FEN has at most 6 fields, got %d" % len(rest.split()))
        return
    try:
        game = Game(fen)
    except ValueError as e:
        link.err("new: %s" % e)
        return
    link.use("board")  # accepted: a CPP round or ChessLink session ends here, not before
    link.load(game)
    link.line("ok")


def _promote(link, rest):
    piece = "nbrq".find(rest.lower())
    if len(rest) != 1 or piece < 0:
        link.err("promote needs q, r, b or n")
        return
    if not link.app.referee.choose_promotion(piece + KNIGHT):
        link.err("promote: no promotion to change (only right after a pawn promoted)")
        return
    link.app.redraw()
    link.line("ok")


def _engine(link, rest):
    why = link.app.engine_refusal() if link.app.opponent is None else None
    if why is not None:
        link.err("engine: " + why)
        return
    from link.engine_command import run  # loaded on first use

    opponent = link.app.engine()  # made on first use
    if opponent is None:
        link.err("engine: not enough memory")
        return
    ok, text = run(opponent, rest)
    link.line(text) if ok else link.err(text)


def _ble(link, rest):
    from link.ble_command import run  # loaded on first use

    run(link, rest)


COMMANDS = (
    ("status", _status, False, "  status          one line: phase, mode, turn, moves, result, error, round"),
    ("board", _board, False, "  board           the reed switches as a diagram, and where they differ from the game"),
    ("fen", _fen, False, "  fen             the position of the game"),
    ("pgn", _pgn, False, "  pgn             the game record: 'pgn N' then N lines"),
    ("mode", _mode, False, "  mode [strict|casual]"),
    ("new", _new, True, "  new [FEN]       start a new game (the LEDs guide the pieces to FEN)"),
    ("promote", _promote, False, "  promote q|r|b|n change the last promotion"),
    ("selftest", _selftest, False, "  selftest [scan|leds|squares|skip|stop]  bring-up test of the LEDs and switches"),
    ("engine", _engine, False, "  engine [white|black|off [LEVEL] | level N | hint]  the board's own engine"),
    ("ble", _ble, False, "  ble [off|cpp|chesslink|both]  Bluetooth LE: what it does, or which apps it serves"),
    ("online", _online, False, "  online [wifi-ssid S|wifi-password P|lichess-token T|seek M+I|broadcast ...]  Lichess over Wi-Fi"),
    ("clock", _clock, False, "  clock [CONTROL|none|start|pause|resume]  the chess clock (e.g. clock 5+3)"),
    ("help", _help, False, "  help            this text: 'help N' then N lines"),
)

HELP = (
    "CPP (chess_peripheral_protocol, README a0a7d8c6):",
    "  feature NAME | variant NAME | set_variant NAME | side w|b|? | begin FEN",
    "  move UCI | ok | nok | promote UCI | undo FEN | redo FEN | undo_offer | draw_offer",
    "  end REASON | get_state | check SQ | time W B | msg TEXT | err TEXT",
    "ChessLink (Millennium): V S L X W R T I, each with its block check",
    "board:",
) + tuple(row[3] for row in COMMANDS)


class BoardCommands:
    """The board's own commands, for whichever dialect is on; and, once chosen, the dialect that
    speaks unasked in the board's words (the interface of link/link.py's DIALECTS)."""

    polls = False  # its events go out as they come: nothing to do after a step

    def __init__(self, link):
        self.link = link

    def command(self, name, rest):
        """Run `name` if it is a board command; returns whether it was one."""
        if name == "promote" and len(rest) > 1:
            return False  # `promote UCI`: the CPP central's answer
        for row in COMMANDS:
            if row[0] == name:
                link = self.link
                if not row[2] and link.dialect is None:
                    link.use("board")
                row[1](link, rest)
                return True
        return False

    # ------------------------------------------------------------------ the dialect

    def enter(self, held):
        """The PC speaks the board's commands: the messages held for a person go out now."""
        for text in held:
            self.link.line("msg " + text)
        return []

    def leave(self):
        pass  # nothing of a session to end: the board's events simply stop going out

    def info(self, text):
        self.link.line("msg " + text)

    def on_event(self, ev):
        link = self.link
        text = event_text(ev)
        link.line(text)
        if ev[0] in _NO_PLAIN_WORDS:
            return
        # The same line in plain words for the person at the console (core/messages.py, as the
        # simulators and the companion say it). Loaded on the first event that has some, not at boot.
        from core.messages import explain  # noqa: PLC0415

        plain = explain(text, link.app.referee.game.position)
        if plain:
            link.line("msg " + plain)
