# The Link: one serial connection (USB, or the BLE link's channels), four dialects, told apart by
# what the PC sends first (docs/spec.md sections 6 and 12). The package's map is link/__init__.py.
#
# The Link only frames bytes and picks the dialect; each dialect is a session object of its own
# module, and the Link speaks to whichever is on through one interface (below, DIALECTS), so it
# never asks which dialect that is. CPP, ChessLink and DGT are imported when the PC first speaks
# them, so a board that never meets them keeps their bytecode out of RAM.
#
# Framing. Text lines: ASCII, at most MAX_LINE bytes; "\n", "\r\n" and a lone "\r" (a terminal's
# Enter) end one. A line too long, or with a non-ASCII or control byte, gets one `err` and changes
# nothing. ChessLink messages have no line end: a message starts with one of its upper-case command
# letters (bit 7 may carry parity) where a line would start, and its command letter says how long it
# is; hex digits follow, so any other byte ends it unfinished (and is read afresh). Text lines start
# lower case, so the first byte of a message decides which framing it gets.
# DGT's messages (on a serial port only: Link(..., dgt=True)) have no line end either: a host's
# command is one byte (0x40-0x55, upper case in ASCII), a clock message (0x2B) or the LED command
# (0x60) says its length in its second byte, a bus-mode frame (0x81-0x8D, LiveChess's 0x92) is
# four bytes. 0x49 and 0x4C are also ChessLink's I and L: they are DGT's while a DGT host speaks,
# ChessLink's otherwise. While a DGT host speaks, a line the board would refuse anyway (a byte no
# line may hold) or one left unfinished for a second ends at its next command byte, silently:
# a DGT host never sends a line end, and a stray byte must not swallow its commands. Line ends
# inside a DGT message are its data (field 10 is a line feed).
#
# Ctrl-C. On the Pico, byte 0x03 raises KeyboardInterrupt before the firmware reads it (that is how
# mpremote reaches the REPL), but DGT's clock messages carry it (their start byte). So while a DGT
# host speaks, the Link turns that off (kbd_intr, MicroPython's micropython.kbd_intr, which wiring.py
# gives it) and reads 0x03 itself: inside a DGT message it is data, anywhere else it is Ctrl-C and
# raises KeyboardInterrupt as MicroPython would. When another dialect takes over it is on again.
#
# Dialect. Until the PC has sent something the board says nothing (a CPP app opening the port must
# not take a board event for the answer to its first query); messages for a person wait, a few of
# them, for a PC that speaks the board's commands. Then:
#   - a CPP command makes CPP the dialect: outside a round the board is silent, in one it follows
#     the central (link/cpp.py);
#   - a ChessLink message makes ChessLink the dialect once it has arrived whole and well-formed
#     (its block check right): status reports, the LEDs at the host's call. A malformed message is
#     ignored and changes nothing, whatever the dialect (a CPP round goes on);
#   - a DGT message, once whole and well-formed (a bus frame's checksum right), makes DGT the
#     dialect (link/dgt.py): board dumps, field updates, the clock; malformed ones are ignored;
#   - a board command answers in any dialect; `new` once accepted, and any board command while no
#     dialect is chosen yet, make the board's commands the dialect: the board then streams its
#     events in the words of tools/replay.py (link/commands.py). A refused line changes nothing.
#
# Pure: no machine, no clock. feed() takes bytes or str split anywhere; poll(now) runs after every
# App.step. The Link listens to the App's events; a dialect that must change the referee because of
# one (put a refused move back) does it in poll(), never inside the referee's own event list.
from micropython import const

from link import ascii_only, short

MAX_LINE = const(128)

BOARD = "board"
CPP = "cpp"
CHESSLINK = "chesslink"
DGT = "dgt"

# Messages for a person kept until the PC speaks (start-up, resuming a game, a bad board.json).
_HELD_MAX = const(4)
# A ChessLink or DGT message not finished within this long is dropped (the client went away
# mid-message); while a DGT host speaks, an unfinished text line this old ends at its next command
# byte (see Framing).
_STALE_MS = const(1000)
_CHESSLINK_LETTERS = b"VSLXWRTI"
# After its letter a ChessLink message is upper-case hex digits only (its fields and its block
# check), and no command letter is one: a byte that is not one ends a message that cannot be
# whole (a stray letter in garbage), at once, so the next message's letter starts it afresh.
_CHESSLINK_DIGITS = b"0123456789ABCDEF"
# The bytes a DGT host's message starts with (dgtbrd.h): its commands 0x40-0x47, 0x49-0x4D and 0x55
# (not 0x4E, the boot loader, nor the draughts boards' 0x50-0x54), the clock message 0x2B, the LED
# command 0x60, the bus-mode commands 0x81-0x8D and LiveChess's 0x92.
DGT_FIRST = b"+@ABCDEFGIJKLMU`\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x92"
# The commands of CPP (link/cpp.py's table has their handlers): a line starting with one of them
# brings the CPP dialect in.
CPP_WORDS = (
    "begin", "move", "ok", "nok", "promote", "undo", "redo", "end", "err", "msg", "feature",
    "variant", "set_variant", "check", "side", "draw_offer", "undo_offer", "get_state", "time",
    "last_move", "score", "state", "set_state", "options_begin", "options_reset", "set_option",
)


# The dialects' interface. A dialect is a session object on one Link, made with the Link
# (`Dialect(link)`), with:
#   polls           True when poll() has work: the main loop then calls Link.poll() every scan
#   enter(held)     it has become the dialect that speaks unasked; `held` are the messages for a
#                   person kept until the PC spoke: returns those it leaves held
#   leave()         another dialect (or none) takes over: back to silence, the LEDs to the board
#   info(text)      a message for a person (ASCII), sent or not as the dialect says
#   on_event(ev)    a referee event, during App.step(): nothing may change the referee here
#   poll(now)       after every App.step(), when polls: what the events asked for, the reports sent unasked
# The board's commands are one (link/commands.py, made with the Link: they answer in any dialect).
# The others are made the first time the PC speaks them, by their row here: name -> a function
# making the session, so their module loads then. A new dialect is a module and a row; a new
# transport is a Link of its own (link/ble.py).
def _board(link):
    from link.commands import BoardCommands  # noqa: PLC0415 - loaded when the PC first sends a line

    return BoardCommands(link)


def _cpp(link):
    from link.cpp import Cpp  # noqa: PLC0415 - loaded when the PC first speaks CPP

    return Cpp(link)


def _chesslink(link):
    from link.chesslink import ChessLink  # noqa: PLC0415 - loaded when the PC first speaks ChessLink

    return ChessLink(link)


def _dgt(link):
    from link.dgt import Dgt  # noqa: PLC0415 - loaded when a DGT host first speaks

    return Dgt(link)


DIALECTS = {BOARD: _board, CPP: _cpp, CHESSLINK: _chesslink, DGT: _dgt}
# The dialects' modules, dropped when one runs out of memory (another Link using one keeps it).
DIALECT_MODULES = ("link.cpp_commands", "link.cpp", "link.cpp_terms", "link.chesslink", "link.dgt_bus", "link.dgt",
                   "link.pieces", "core.messages")


class Link:
    """One USB serial connection. write(str) sends text lines; write_bytes(buffer) sends raw
    bytes (ChessLink with parity, DGT); by default they go through write() as text. dgt: the
    connection is a serial port where DGT hosts may speak (the USB port; not the BLE link, whose
    services are CPP's and ChessLink's)."""

    # DGT's, as class attributes: an instance has them only where they are set, which keeps every
    # Link (the BLE link's, the online central's) as small as before DGT.
    dgt = False
    # wiring.py on the Pico: micropython.kbd_intr, and machine.unique_id() (DGT's serial
    # number is made from it). ctrl_c_held: 0x03 reaches the Link (see Ctrl-C).
    kbd_intr = None
    board_id = None
    ctrl_c_held = False
    _line_at = 0  # when the text line being received last grew (while a DGT host speaks)

    def __init__(self, app, write, write_bytes=None, dgt=False):
        self.app = app
        self.write = write
        self.write_bytes = write_bytes or self._bytes_as_text
        if dgt:
            self.dgt = True
        self.now = 0
        self.errors = 0  # lines refused, for tests and status
        self.dialect = None  # BOARD, CPP, CHESSLINK or DGT once the PC has spoken
        self.speaker = None  # ... and its session, which speaks unasked
        self.polls = False  # poll() has work in this dialect (CPP, ChessLink): loop.py skips it else
        # The dialects' sessions by name, made when first spoken: sessions.get(CPP) is the CPP
        # session or None (the `status` line reads its round). The board's own commands too: a
        # board no PC ever talks to keeps their bytecode (link/commands.py) out of RAM.
        self.sessions = {}
        self._buf = bytearray(MAX_LINE)
        self._len = 0
        self._bad = None  # why the line being received will be refused ("": silently), or None
        self._cr = False  # the last byte was "\r": a "\n" right after it ends nothing
        self._message = None  # the dialect (CHESSLINK, DGT) whose message is being received
        self._message_at = 0
        self._held = []
        self._listener = self.on_event  # one bound method, so detach() finds it in the list
        app.listeners.append(self._listener)

    def detach(self):
        """Stop listening to the App (a transport that closes: the BLE link turned off)."""
        self.use(None)
        if self._listener in self.app.listeners:
            self.app.listeners.remove(self._listener)

    def _bytes_as_text(self, data):
        # A writer of text only: ChessLink's bytes go through it without their parity bit.
        self.write("".join(chr(b & 0x7F) for b in data))

    # ------------------------------------------------------------------ dialects

    def use(self, dialect):
        """Make `dialect` the one that speaks unasked (None: none yet); returns its session."""
        if dialect != self.dialect:
            # Made first (its module loaded): should that fail, the dialect speaking goes on.
            speaker = None if dialect is None else self.session(dialect)
            if self.speaker is not None:
                self.speaker.leave()
            self.dialect = dialect
            self.speaker = speaker
            self.polls = speaker is not None and speaker.polls
            if speaker is not None:
                self._held = speaker.enter(self._held)
        return self.speaker

    def session(self, dialect):
        """The session of `dialect` on this Link, made (its module loaded) when first asked for;
        asking does not make it the dialect that speaks."""
        session = self.sessions.get(dialect)
        if session is None:
            session = DIALECTS[dialect](self)
            self.sessions[dialect] = session
        return session

    def forget(self, dialect):
        """Drop a session that is not speaking: the next use of its dialect starts afresh."""
        if dialect != BOARD and dialect != self.dialect and dialect in self.sessions:
            del self.sessions[dialect]

    # ------------------------------------------------------------------ input

    def feed(self, data):
        """Bytes or str received, in chunks of any size split anywhere."""
        if isinstance(data, str):
            for ch in data:
                self._byte(ord(ch))
        else:
            for b in data:
                self._byte(b)

    def feed_chesslink(self, data):
        """Bytes from a channel that carries ChessLink alone (the BLE service of Millennium's boards):
        its messages, split anywhere; any other byte is ignored, as a Millennium board ignores it,
        so no board command or CPP line reaches the game through it."""
        for b in data:
            if self._message is not None:
                if self._continues(CHESSLINK, b):
                    self._message_byte(CHESSLINK, b, False)
                    continue
                self.sessions[CHESSLINK].drop()
                self._message = None
            if (b & 0x7F) in _CHESSLINK_LETTERS:
                self._message_byte(CHESSLINK, b, True)
            elif CHESSLINK in self.sessions:
                self.sessions[CHESSLINK].ignored += 1

    def _continues(self, dialect, b):
        """Whether byte b can be the next of the message being received, within a second of its
        start (the client may have gone): in a ChessLink message a hex digit (bit 7 may carry
        parity); in a DGT message any byte (a line end is data there)."""
        if self.now - self._message_at >= _STALE_MS:
            return False
        return dialect == DGT or (b & 0x7F) in _CHESSLINK_DIGITS

    def _byte(self, b):
        m = self._message
        if m is not None:
            if self._continues(m, b):
                self._message_byte(m, b, False)
                return
            self.sessions[m].drop()  # unfinished: ignored, as a Millennium board does
            self._message = None
            # A ChessLink command letter starts the next message at once; any other byte within
            # the second is the broken message's rest, dropped silently up to the line end (a
            # text line starts after one).
            if m == CHESSLINK and b != 10 and b != 13 and self.now - self._message_at < _STALE_MS:
                if (b & 0x7F) not in _CHESSLINK_LETTERS:
                    self._bad = ""
                    return
        if b == 3 and self.ctrl_c_held:
            self.kbd_intr(3)
            self.ctrl_c_held = False
            raise KeyboardInterrupt  # Ctrl-C outside a DGT message: what MicroPython would raise
        if b == 10 or b == 13:  # "\n" or "\r": the end of a line
            if b == 10 and self._cr:
                self._cr = False
                return  # the "\n" of "\r\n"
            self._cr = b == 13
            self._end_line()
            return
        self._cr = False
        if self.dgt and b in DGT_FIRST and self._dgt_starts(b):
            self._message_byte(DGT, b, True)
            return
        if self._len == 0 and not self._bad and (b & 0x7F) in _CHESSLINK_LETTERS:
            self._bad = None  # (the rest of a broken message ends here)
            self._message_byte(CHESSLINK, b, True)
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
            if self.dgt:
                self._line_at = self.now

    def _dgt_starts(self, b):
        """Whether b, a byte a DGT message may start with, starts one here (see Framing)."""
        speaking = self.dialect == DGT
        if self._len or self._bad is not None:  # inside a text line
            if not speaking or (self._bad is None and self.now - self._line_at < _STALE_MS):
                return False
            self._len = 0  # a line that would be refused, or stale: it ends here, silently
            self._bad = None
            return True
        if b == 0x49 or b == 0x4C:  # also ChessLink's I and L
            return speaking
        return True

    def _message_byte(self, dialect, b, first):
        """One byte of a ChessLink or DGT message (the first starts it). The session becomes the
        dialect only when a message is whole and well-formed (its start() and byte() call use())."""
        more = False
        try:
            if first:
                self._message_at = self.now
                more = self.session(dialect).start(b)
            else:
                more = self.sessions[dialect].byte(b)
        except MemoryError:
            self.out_of_memory()
            return
        except Exception as e:  # noqa: BLE001 - a bug must not stop the board
            self.bug(e)
        self._message = dialect if more else None

    def _end_line(self):
        bad = self._bad
        n = self._len
        self._len = 0
        self._bad = None
        if bad is not None:
            if bad:
                self.err(bad + ": line ignored")
            return
        if n == 0:
            return
        text = bytes(self._buf[:n]).decode()
        try:
            self.command(text)
        except MemoryError:
            self.out_of_memory()
        except Exception as e:  # noqa: BLE001 - a bug must not stop the board; say what broke
            self.bug(e)

    def command(self, text):
        """Run one text line (without its terminator)."""
        words = text.replace("\t", " ").split()
        if not words:
            return
        name = words[0]
        self.line_text = text  # the line as typed: online/usb.py takes a password from it, spaces and all
        rest = text.strip()[len(name) :].strip()
        if self.session(BOARD).command(name, rest):
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
        """A message for a person (the App's console): as the dialect speaking says it (`msg TEXT`
        in the board's dialect and in a CPP round that agreed to `feature msg`; never in
        ChessLink); kept until a PC speaks. With no memory left to say it, it is not said: the
        console's words never stop the board."""
        try:
            speaker = self.speaker
            if speaker is not None:
                speaker.info(ascii_only(text))
            elif len(self._held) < _HELD_MAX:
                self._held.append(ascii_only(text))
        except MemoryError:
            pass

    # ------------------------------------------------------------------ the board's events

    def on_event(self, ev):
        """App listener: told of every referee event during App.step()."""
        speaker = self.speaker
        if speaker is None:
            return
        try:
            speaker.on_event(ev)
        except MemoryError:
            self.out_of_memory()
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self.bug(e)

    def poll(self, now):
        """Call after every App.step(now): the dialect carries out what the events asked for and
        reports what it reports unasked (CPP state lines, ChessLink status)."""
        self.now = now
        if not self.polls:
            return
        try:
            self.speaker.poll(now)
        except MemoryError:
            self.out_of_memory()
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self.bug(e)

    def bug(self, e):
        """A bug in a dialect: said (err), and the board goes on; so does a board without the
        memory to say it."""
        try:
            self.err("internal error: %s" % short(repr(e)))
        except MemoryError:
            pass

    def out_of_memory(self):
        """The dialect speaking (or the one a message was bringing in) ran out of memory: it stops,
        its session goes and its module with it unless another link holds it, and the board's
        own commands answer again. Nothing is allocated until that memory is back: then the
        console says it, and the corners of the board show it (App.feature_stopped)."""
        dialect = self.dialect
        self._message = None
        self._len = 0
        self._bad = None
        try:
            self.use(None)  # the session's leave(): the LEDs back to the board, Ctrl-C on again
        except Exception:  # noqa: BLE001 - a session that cannot leave is dropped all the same
            self.dialect = self.speaker = None
            self.polls = False
        for name in (CPP, CHESSLINK, DGT):
            self.sessions.pop(name, None)
        try:
            from memory import forget, free

            free()  # the sessions' memory back first: forgetting their modules needs a little
            forget(DIALECT_MODULES)
            free()
        except MemoryError:
            pass
        try:
            self.app.feature_stopped("not enough memory for %s: the link is back to the board's commands" % (
                "that dialect" if dialect in (None, BOARD) else dialect), self.now)
        except MemoryError:
            pass

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

