# The USB link: one serial port, three dialects, told apart by what the PC sends first (docs/spec.md section 6).
#
# This module only frames bytes and picks the dialect; each dialect lives in its own module:
#   link/board.py      the board's own commands (status, board, fen, pgn, mode, new, promote, help)
#   link/cpp.py        the Chess Peripheral Protocol of the CPP apps: the session and the board's side,
#   link/cpp_commands.py   ... and the central's commands (begin, move, feature, ...)
#   link/chesslink.py  Millennium ChessLink (V, S, L, X, W, R, T, I) of BearChess, Lucas Chess, ...
#   link/pieces.py     what stands on each square, as far as the board can tell (CPP and ChessLink)
# CPP and ChessLink are imported when the PC first speaks them, so a board that never meets them
# keeps their bytecode out of RAM.
#
# Framing. Text lines: ASCII, at most MAX_LINE bytes; "\n", "\r\n" and a lone "\r" (a terminal's
# Enter) end one. A line too long, or with a non-ASCII or control byte, gets one `err` and changes
# nothing. ChessLink messages have no line end: a message starts with one of its upper-case command
# letters (bit 7 may carry parity) where a line would start, and its command letter says how long it
# is. Text lines start lower case, so the first byte of a message decides which framing it gets.
#
# Dialect. Until the PC has sent something the board says nothing (a CPP app opening the port must
# not take a board event for the answer to its first query); messages for a person wait, a few of
# them, for a PC that speaks the board's commands. Then:
#   - a CPP command makes CPP the dialect: outside a round the board is silent, in one it follows
#     the central (link/cpp.py);
#   - a ChessLink message makes ChessLink the dialect once it has arrived whole and well-formed
#     (its block check right): status reports, the LEDs at the host's call. A malformed message is
#     ignored and changes nothing, whatever the dialect (a CPP round goes on);
#   - a board command answers in any dialect; `new` once accepted, and any board command while no
#     dialect is chosen yet, make the board's commands the dialect: the board then streams its
#     events in the words of tools/replay.py. A refused line changes nothing.
#
# Pure: no machine, no clock. feed() takes bytes or str split anywhere; poll(now) runs after every
# App.step. The Link listens to the App's events; a dialect that must change the referee because of
# one (put a refused move back) does it in poll(), never inside the referee's own event list.
from micropython import const

from link import board

MAX_LINE = const(128)
HELP = board.HELP

BOARD = "board"
CPP = "cpp"
CHESSLINK = "chesslink"

# Messages for a person kept until the PC speaks (start-up, resuming a game, a bad board.json).
_HELD_MAX = const(4)
# A ChessLink message not finished within this long is dropped (the client went away mid-message).
_CHESSLINK_STALE_MS = const(1000)
_CHESSLINK_LETTERS = b"VSLXWRTI"
# The commands of CPP (link/cpp.py's table has their handlers): a line starting with one of them
# brings the CPP dialect in.
CPP_WORDS = (
    "begin", "move", "ok", "nok", "promote", "undo", "redo", "end", "err", "msg", "feature",
    "variant", "set_variant", "check", "side", "draw_offer", "undo_offer", "get_state", "time",
    "last_move", "score", "state", "set_state", "options_begin", "options_reset", "set_option",
)


class Link:
    """One USB serial connection. write(str) sends text lines; write_bytes(buffer) sends raw
    bytes (ChessLink with parity); by default they go through write() as text."""

    def __init__(self, app, write, write_bytes=None):
        self.app = app
        self.write = write
        self.write_bytes = write_bytes or self._bytes_as_text
        self.now = 0
        self.errors = 0  # lines refused, for tests and status
        self.dialect = None  # BOARD, CPP or CHESSLINK once the PC has spoken
        self.polls = False  # poll() has work in this dialect (CPP, ChessLink): main.py skips it else
        self.board = board.BoardCommands(self)
        self.cpp = None  # the dialects' objects, made when first spoken
        self.chesslink = None
        self._buf = bytearray(MAX_LINE)
        self._len = 0
        self._bad = None  # why the line being received will be refused, or None
        self._cr = False  # the last byte was "\r": a "\n" right after it ends nothing
        self._in_message = False  # inside a ChessLink message
        self._message_at = 0
        self._held = []
        app.listeners.append(self.on_event)

    def _bytes_as_text(self, data):
        # A writer of text only: ChessLink's bytes go through it without their parity bit.
        self.write("".join(chr(b & 0x7F) for b in data))

    # ------------------------------------------------------------------ dialects

    def use(self, dialect):
        """Make `dialect` the one that speaks unasked; returns its object (None for BOARD)."""
        if dialect != self.dialect:
            if self.dialect == CPP:
                self.cpp.leave()
            elif self.dialect == CHESSLINK:
                self.chesslink.leave()
            self.dialect = dialect
            self.polls = dialect == CPP or dialect == CHESSLINK
            if dialect == BOARD:
                held = self._held
                self._held = []
                for text in held:
                    self.line("msg " + text)
        if dialect == CPP:
            if self.cpp is None:
                from link.cpp import Cpp

                self.cpp = Cpp(self)
            return self.cpp
        if dialect == CHESSLINK:
            if self.chesslink is None:
                from link.chesslink import ChessLink

                self.chesslink = ChessLink(self)
            return self.chesslink
        return None

    # ------------------------------------------------------------------ input

    def feed(self, data):
        """Bytes or str received, in chunks of any size split anywhere."""
        if isinstance(data, str):
            for ch in data:
                self._byte(ord(ch))
        else:
            for b in data:
                self._byte(b)

    def _byte(self, b):
        if self._in_message:
            if self.now - self._message_at < _CHESSLINK_STALE_MS and b != 10 and b != 13:
                self._in_message = self._chesslink_byte(b, False)
                return
            self.chesslink.drop()  # unfinished: ignored, as a Millennium board does
            self._in_message = False
        if b == 10 or b == 13:  # "\n" or "\r": the end of a line
            if b == 10 and self._cr:
                self._cr = False
                return  # the "\n" of "\r\n"
            self._cr = b == 13
            self._end_line()
            return
        self._cr = False
        if self._len == 0 and self._bad is None and (b & 0x7F) in _CHESSLINK_LETTERS:
            self._message_at = self.now
            self._in_message = self._chesslink_byte(b, True)
            return
        if self._bad is not None:
            return  # discarding up to the next line end
        if b >= 128:
            self._bad = "non-ASCII byte 0x%02x" % b
        elif (b < 32 and b != 9) or b == 127:  # 127: DEL, what a terminal's Backspace sends
            self._bad = "control byte 0x%02x" % b
        elif self._len >= MAX_LINE:
            self._bad = "line longer than %d bytes" % MAX_LINE
        else:
            self._buf[self._len] = b
            self._len += 1

    def _chesslink_byte(self, b, first):
        """One byte of a ChessLink message; returns whether more are to come. The session only
        becomes the dialect when a message is whole and well-formed (ChessLink.byte calls use())."""
        try:
            if first:
                if self.chesslink is None:
                    from link.chesslink import ChessLink

                    self.chesslink = ChessLink(self)
                return self.chesslink.start(b)
            return self.chesslink.byte(b)
        except Exception as e:  # noqa: BLE001 - a bug must not stop the board; say what broke
            self.err("internal error: %s" % short(repr(e)))
            return False

    def _end_line(self):
        bad = self._bad
        n = self._len
        self._len = 0
        self._bad = None
        if bad is not None:
            self.err(bad + ": line ignored")
            return
        if n == 0:
            return
        text = bytes(self._buf[:n]).decode()
        try:
            self.command(text)
        except Exception as e:  # noqa: BLE001 - a bug must not stop the board; say what broke
            self.err("internal error: %s" % short(repr(e)))

    def command(self, text):
        """Run one text line (without its terminator)."""
        words = text.replace("\t", " ").split()
        if not words:
            return
        name = words[0]
        rest = text.strip()[len(name) :].strip()
        if self.board.command(name, rest):
            return
        if name in CPP_WORDS:
            self.use(CPP).command(name, rest)
            return
        self.err("unknown command: %s (try help)" % short(name))

    # ------------------------------------------------------------------ output

    def line(self, text):
        self.write(text + "\n")

    def err(self, text):
        self.errors += 1
        self.line("err " + ascii_only(text))

    def info(self, text):
        """A message for a person (the App's console): `msg TEXT` in the board's dialect and in a
        CPP round that agreed to `feature msg`; kept until a PC speaks; never in ChessLink."""
        dialect = self.dialect
        if dialect == BOARD:
            self.line("msg " + ascii_only(text))
        elif dialect == CPP:
            self.cpp.info(ascii_only(text))
        elif dialect is None and len(self._held) < _HELD_MAX:
            self._held.append(ascii_only(text))

    # ------------------------------------------------------------------ the board's events

    def on_event(self, ev):
        """App listener: told of every referee event during App.step()."""
        dialect = self.dialect
        try:
            if dialect == BOARD:
                text = board.event_text(ev)
                self.line(text)
                # The same line in plain words for the person at the console (core/messages.py, as
                # the simulators and the companion say it). Loaded on the first event, not at boot.
                from core.messages import explain

                plain = explain(text, self.app.referee.game.position)
                if plain:
                    self.line("msg " + plain)
            elif dialect == CPP:
                self.cpp.on_event(ev)
            elif dialect == CHESSLINK:
                self.chesslink.on_event(ev)
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self.err("internal error: %s" % short(repr(e)))

    def poll(self, now):
        """Call after every App.step(now): the dialect carries out what the events asked for and
        reports what it reports unasked (CPP state lines, ChessLink status)."""
        self.now = now
        dialect = self.dialect
        if dialect is None or dialect == BOARD:
            return
        try:
            if dialect == CPP:
                self.cpp.poll(now)
            else:
                self.chesslink.poll(now)
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self.err("internal error: %s" % short(repr(e)))

    # ------------------------------------------------------------------ shared by the dialects

    def load(self, game):
        """Put the referee on `game` (the LEDs then guide the pieces to it) and save it."""
        app = self.app
        app.referee.load_game(game, self.now)
        app.redraw()
        self.save()

    def save(self):
        store = self.app.store
        if store is None:
            return
        ref = self.app.referee
        try:
            store.save(ref.game, ref.mode)
        except OSError as e:
            self.info("could not save the game: %s" % e)


def short(text):
    return text if len(text) <= 24 else text[:21] + "..."


def ascii_only(text):
    # Lines must stay ASCII (docs/spec.md section 6): an exception's text could carry anything.
    for ch in text:
        if not 32 <= ord(ch) < 127:
            break
    else:
        return text
    out = ""
    for ch in text:
        out += ch if 32 <= ord(ch) < 127 else "?"
    return out
