# DGT's board protocol on the USB link (docs/spec.md section 12, docs/dgt.md): what picochess, DGT
# LiveChess (and through it lichess.org/dgt and broadcasts), the Rabbit plugin of ChessBase, Fritz
# and Arena, and the open DGT drivers speak to DGT's boards.
#
# Protocol: DGT's dgtbrd.h, rev 2962, as kept in picochess's test data (test/dgtbrd-ruud.h), and
# what the hosts send (picochess's dgt/board.py, the DGTCentaurMods and Universal-Chess emulators).
#   - The host's commands are single bytes (0x40-0x55), or a clock message (0x2B, its size, 0x03,
#     the clock command, its data, 0x00) or the LED command (0x60, its size, data, 0x00). The
#     board's messages are id | 0x80, the total length in two 7-bit bytes, then data with bit 7 clear.
#   - Fields: 0 = a8, 1 = b8, ... 63 = h1 (the board's squares count from a1: field = square ^ 56).
#     Pieces: 0 empty, 1-6 white pawn, rook, knight, bishop, king, queen, 7-12 the same in black.
#   - Update modes: IDLE (after 0x40, and on entering single-board mode) sends nothing unasked;
#     UPDATE_BRD (0x44) a FIELD_UPDATE for every change; UPDATE (0x43) that and a BWTIME at least
#     every second; UPDATE_NICE (0x4B) that and a BWTIME whenever the time shown changes.
#   - Bus mode (LiveChess): four-byte frames with the board's address and a checksum, answered by
#     link/dgt_bus.py, which is loaded with the first such frame. A board starts in bus mode and
#     leaves it on any single-board command; a bus command in single-board mode switches back and
#     is not carried out (dgtbrd.h: "this busmode command causing the switching is not processed").
# A malformed message (a clock message or LED command whose size, start or end byte is wrong, a
# value out of range, a bus frame whose checksum is wrong) is ignored and changes nothing.
#
# Field updates follow the hands. The board senses only whether a square is occupied; it names the
# piece from the game (link/pieces.py): a lift makes the field empty, a place puts on it the piece
# the game says the hand holds (the capturing piece on a capture, the king or rook of a castling,
# the pawn on a promotion square until its piece is chosen), and when what the board knows of a
# standing piece changes (the promotion's piece chosen, a guess the game has since put right) the
# field gets its new piece. In one scan: those changes first, then lifts, then places, so that a
# promotion's piece, chosen when the opponent lifts a piece, comes before that lift.
#
# The clock. BWTIME carries the board's own clock (core/clock.py) as a DGT clock with white on the
# left; without one, "no clock connected". A host that sets and runs the clock (its SetNRun) keeps
# the time from then on, as a CPP app's `time` does: the board's own clock is laid aside and BWTIME,
# `clock` and the clock display show the host's times, counting down on the side it runs. Clock
# commands are acknowledged inside BWTIME in the modes that acknowledge (UPDATE, UPDATE_NICE); the
# text, icons and beeps are taken and not shown (the board has no DGT clock display nor beeper).
from micropython import const

from core import signals
from link.link import DGT_FIRST
from link.pieces import Pieces, close_promotion_choice, follow_takeback, reported

# What the board says of itself. The version is the one the DGTCentaurMods emulator answers, which
# LiveChess and picochess accept; the clock's is a DGT3000's (picochess then sends its text as ASCII).
VERSION = b"\x01\x02"
CLOCK_VERSION = const(0x22)  # 2.2: the high nibble is the main version
TRADEMARK = "Open chessboard firmware (MicroPython) 1.2, serial %05d"  # the project's own words
# dgtbrd.h: the bus address is the serial number as a 14-bit number. A serial made from the chip's
# unique id, else this one.
DEFAULT_SERIAL = const(1234)

# The board's messages.
_BOARD_DUMP = const(0x86)
_BWTIME = const(0x8D)
_FIELD_UPDATE = const(0x8E)
_EE_MOVES = const(0x8F)
_BUSADRES = const(0x90)
_SERIALNR = const(0x91)
_TRADEMARK = const(0x92)
_VERSION = const(0x93)
_BATTERY = const(0xA0)
_LONG_SERIALNR = const(0xA2)

# Update modes.
IDLE = const(0)
UPDATE = const(1)
UPDATE_BRD = const(2)
UPDATE_NICE = const(3)

# The internal storage's tags (dgtbrd.h "EEPROM data storage"): a piece tag is 0x40 | piece then the
# field (0x10 more when the previous tag was written less than 250 ms before).
EE_EOF = const(0x6B)
EE_START_TAG = const(0x7B)
PIECE_TAG = const(0x40)

# The board's piece codes (core/position.py: type | colour) -> DGT's.
_CODES = b"\x00\x01\x03\x04\x02\x06\x05\x00\x00\x07\x09\x0a\x08\x0c\x0b\x00"

# Clock messages: 0x2B, the size (the bytes after it), 0x03, the command, its data, 0x00. The size
# each clock command has (dgtbrd.h; 0x0D is the Revelation II's text, from picochess), and the sizes.
_CLOCK_SIZES = b"\x00\x0b\x0b\x03\x00\x00\x00\x00\x03\x03\x0a\x04\x0c\x0f"
_SIZES = b"\x03\x04\x0a\x0b\x0c\x0f"
_CLOCK_START = const(0x03)
_SETNRUN = const(0x0A)
_CLOCK_MESSAGE = const(0x2B)
_SET_LEDS = const(0x60)
_LEDS_MAX = const(69)  # the Pegasus form at most: 5, speed, mode, intensity, 64 fields, 0x00
_IN_MAX = const(72)
_CLOCK_CHECK_MS = const(100)  # UPDATE_NICE looks at the time shown this often

_SUDDEN = const(0)  # core/clock.py's SUDDEN, not imported: that module loads only with a clock
_BUS_FIRST = const(0x81)
_BUS_LAST = const(0x8D)
_LIVECHESS = const(0x92)


def serial_number(board_id):
    """A serial number (1..16383) from the chip's unique id (bytes), or DEFAULT_SERIAL. Its bus
    address is chosen so that no bus frame to it, nor to address 0, holds byte 0x03: the frame that
    makes DGT the dialect arrives while Ctrl-C is still on (link/link.py)."""
    n = DEFAULT_SERIAL
    if board_id:
        n = 0
        for b in board_id:
            n = (n * 31 + b) % 16381
        n += 1
    while not _quiet_address(n):
        n = n % 16383 + 1
    return n


def _quiet_address(n):
    hi = n >> 7
    lo = n & 0x7F
    if hi == 3 or lo == 3:
        return False
    for k in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0x12):
        if (k + hi + lo) & 0x7F == 3:
            return False
    return True


def _bcd(v):
    return (v // 10) << 4 | v % 10


class Dgt:
    """The DGT session on one Link: framing of the host's messages and the board's answers.
    A dialect of link/link.py (its DIALECTS): enter, leave, info, on_event, poll."""

    polls = True  # field updates, BWTIME, a delayed ping answer: looked at after each step

    def __init__(self, link):
        self.link = link
        self.app = link.app
        self.serial = serial_number(link.board_id)
        self.address = self.serial
        self.mode = IDLE
        self.bus = True  # dgtbrd.h: bus mode is the power-up mode
        self.bus_mode = None  # link/dgt_bus.py's session, from the first bus frame
        self.pieces = Pieces()
        self.shown = bytearray(64)  # what the host was told stands on each field (DGT codes, field order)
        self._version = -1
        self._in = bytearray(_IN_MAX)
        self._n = 0
        self._need = 0  # bytes the message has, -1 while its size byte is awaited
        self._update = bytearray(b"\x8e\x00\x05\x00\x00")
        self._clock = bytearray(10)  # a BWTIME message, made without allocating
        self._clock[0] = _BWTIME
        self._clock[2] = 10
        self._times = bytearray(7)  # the time shown, as UPDATE_NICE last sent it
        self._clock_at = 0  # when a BWTIME last went out (UPDATE) or the time was looked at (UPDATE_NICE)
        self._clock_due = True  # UPDATE_NICE: send the time at the next look whatever it is
        # The host's clock (its SetNRun): each side's ms when set, which side runs (0 none, 1 left =
        # white, 2 right = black) and since when. None: the board's own clock.
        self.host_clock = None
        self._lit = None  # bytearray(64): the squares the host lit (SET_LEDS), made on first use
        self.messages = 0  # messages taken, for tests
        self.ignored = 0  # messages dropped (malformed, cut short, a wrong checksum)
        self._sync()

    # ------------------------------------------------------------------ framing

    def start(self, b):
        """The first byte of a message (one of link.py's DGT_FIRST); returns whether more come."""
        self._n = 0
        self._in[0] = b
        if b == _CLOCK_MESSAGE or b == _SET_LEDS:
            self._n = 1
            self._need = -1
            return True
        if _BUS_FIRST <= b <= _BUS_LAST or b == _LIVECHESS:
            self._n = 1
            self._need = 4
            return True
        self._whole()
        self._single(b)
        return False

    def byte(self, b):
        """One more byte of the message; returns whether more are to come."""
        first = self._in[0]
        if self._need < 0:  # the size of a clock message or LED command
            if first == _CLOCK_MESSAGE:
                ok = b in _SIZES
            else:
                ok = 2 <= b <= _LEDS_MAX
            if not ok:
                return self._resync(b)
            self._in[1] = b
            self._n = 2
            self._need = b + 2
            return True
        bus = first & 0x80
        if bus and b & 0x80:
            return self._resync(b)  # a bus frame's bytes after the first have bit 7 clear
        self._in[self._n] = b
        self._n += 1
        if self._n < self._need:
            return True
        if bus:
            self._frame()
        else:
            self._sized()
        return False

    def _resync(self, b):
        """The message so far is malformed: dropped; b may start the next one."""
        self.ignored += 1
        if b in DGT_FIRST:
            return self.start(b)
        return False

    def drop(self):
        """The message was left unfinished (the host went away mid-message): ignored."""
        self._n = 0
        self.ignored += 1

    def _whole(self):
        """A whole, well-formed message: DGT is the dialect from now on."""
        self.messages += 1
        self.link.use("dgt")

    def _single_board(self):
        """A single-board command: out of bus mode, into IDLE (dgtbrd.h)."""
        if self.bus:
            self.bus = False
            self.mode = IDLE

    def _frame(self):
        """A four-byte bus frame: its checksum, then link/dgt_bus.py."""
        data = self._in
        if (data[0] + data[1] + data[2]) & 0x7F != data[3]:
            self.ignored += 1
            return
        self._whole()
        if self.bus_mode is None:
            from link.dgt_bus import BusMode  # noqa: PLC0415 - loaded with the first bus frame

            self.bus_mode = BusMode(self)
        if not self.bus:
            self.bus = True  # a bus command in single-board mode switches, and is not carried out
            return
        self.bus_mode.command(data[0], data[1] << 7 | data[2], self.link.now)

    def _sized(self):
        """A clock message or LED command, size and all."""
        data = self._in
        n = self._n
        if data[n - 1] != 0:
            self.ignored += 1
            return
        for i in range(2, n - 1):
            if data[i] & 0x80:
                self.ignored += 1
                return
        if data[0] == _CLOCK_MESSAGE:
            ok = self._clock_message(data, n)
        else:
            ok = self._leds(data, n)
        if not ok:
            self.ignored += 1

    # ------------------------------------------------------------------ single-board commands

    def _single(self, b):
        self._single_board()
        if b == 0x40:  # RESET: IDLE, no answer
            self.mode = IDLE
        elif b == 0x41:  # SEND_CLK
            self._send_clock(self.link.now)
        elif b == 0x42:  # SEND_BRD
            self.follow(self.link.now)  # the changes not yet sent go first
            self._send(_BOARD_DUMP, self.shown)
        elif b == 0x43 or b == 0x44 or b == 0x4B:  # SEND_UPDATE, SEND_UPDATE_BRD, SEND_UPDATE_NICE
            self.follow(self.link.now)  # what changed before is not sent
            self.mode = UPDATE if b == 0x43 else UPDATE_BRD if b == 0x44 else UPDATE_NICE
            self._clock_due = True
            self._clock_at = self.link.now - 1000
        elif b == 0x45:  # RETURN_SERIALNR
            self._send(_SERIALNR, ("%05d" % self.serial).encode())
        elif b == 0x46:  # RETURN_BUSADRES
            self._send(_BUSADRES, bytes((self.address >> 7, self.address & 0x7F)))
        elif b == 0x47:  # SEND_TRADEMARK
            self._send(_TRADEMARK, (TRADEMARK % self.serial).encode())
        elif b == 0x49:  # SEND_EE_MOVES: the position now (the board keeps no move log)
            self.follow(self.link.now)
            self._send(_EE_MOVES, self._position_tags())
        elif b == 0x4A:  # TO_BUSMODE
            self.bus = True
        elif b == 0x4C:  # SEND_BATTERY_STATUS: powered by USB, nothing to run out
            self._send(_BATTERY, b"\x64\x7f\x7f\x00\x00\x00\x00\x00\x00")
        elif b == 0x4D:  # SEND_VERSION
            self._send(_VERSION, VERSION)
        elif b == 0x55:  # RETURN_LONG_SERIALNR
            self._send(_LONG_SERIALNR, ("%010d" % self.serial).encode())

    def _position_tags(self):
        """The start tag, a piece tag for every occupied field (as the internal storage holds a
        position), and EE_EOF, as its dump ends."""
        out = bytearray((EE_START_TAG,))
        shown = self.shown
        for f in range(64):
            if shown[f]:
                out.append(PIECE_TAG | shown[f])
                out.append(f)
        out.append(EE_EOF)
        return out

    def _send(self, kind, data):
        n = len(data) + 3
        out = bytearray(n)
        out[0] = kind
        out[1] = n >> 7
        out[2] = n & 0x7F
        for i in range(n - 3):
            out[3 + i] = data[i]
        self.link.write_bytes(out)

    # ------------------------------------------------------------------ the pieces

    def _sync(self):
        """shown := what the board knows now, telling nobody (a session starts, or starts again)."""
        ref = self.app.referee
        self._version = ref.version
        view = reported(self.pieces, ref)
        occ = ref.occ
        shown = self.shown
        for f in range(64):
            sq = f ^ 56
            shown[f] = _code(view, sq) if occ[sq] else 0

    def follow(self, now):
        """Bring shown up to date with the board, telling the host each change as its mode says."""
        ref = self.app.referee
        if ref.version == self._version:
            return
        self._version = ref.version
        view = reported(self.pieces, ref)
        occ = ref.occ
        shown = self.shown
        for f in range(64):  # a standing piece's identity
            old = shown[f]
            if old and occ[f ^ 56]:
                new = _code(view, f ^ 56)
                if new != old:
                    shown[f] = new
                    self._changed(f, new, now)
        for f in range(64):  # lifts
            if shown[f] and not occ[f ^ 56]:
                shown[f] = 0
                self._changed(f, 0, now)
        for f in range(64):  # places
            if not shown[f] and occ[f ^ 56]:
                new = _code(view, f ^ 56)
                shown[f] = new
                self._changed(f, new, now)

    def _changed(self, field, piece, now):
        if self.bus:
            if self.bus_mode is not None:
                self.bus_mode.log_change(field, piece, now)
        elif self.mode != IDLE:
            out = self._update
            out[3] = field
            out[4] = piece
            self.link.write_bytes(out)

    # ------------------------------------------------------------------ the clock

    def times_into(self, out, at, now):
        """The seven clock bytes of BWTIME into out[at:at + 7]: right (black) hours and flags,
        minutes, seconds; left (white) the same; the clock's status."""
        host = self.host_clock
        c = self.app.referee.clock
        if host is not None:
            white = self._host_left(1, now)
            black = self._host_left(2, now)
            running = host[2] != 0
            side = 1 if host[2] == 2 else 0
            fallen = -1
            extra_white = extra_black = False
        elif c is not None:
            white = c.left(0, now)
            black = c.left(1, now)
            running = c.running
            side = c.side
            fallen = c.fallen
            extra_white = c.periods[c.period[0]][2] != _SUDDEN
            extra_black = c.periods[c.period[1]][2] != _SUDDEN
        else:
            for i in range(6):
                out[at + i] = 0
            out[at + 6] = 0x20  # no clock connected
            return
        _hms_into(out, at, black, fallen == 1, extra_black)
        _hms_into(out, at + 3, white, fallen == 0, extra_white)
        status = 0x02 if side == 1 else 0  # the tumbler is up on the side whose time runs
        if running:
            status |= 0x01 | (0x08 if side == 1 else 0x10)
        out[at + 6] = status

    def _host_left(self, side, now):
        host = self.host_clock
        ms = host[side - 1]
        if host[2] == side:
            ms -= (now - host[3]) & 0x3FFFFFFF
        return ms if ms > 0 else 0

    def host_times(self, now):
        """(white ms, black ms) of the host's clock, counting down, or None."""
        if self.host_clock is None:
            return None
        return self._host_left(1, now), self._host_left(2, now)

    def _send_clock(self, now):
        self.times_into(self._clock, 3, now)
        self.link.write_bytes(self._clock)

    def _poll_clock(self, now):
        if self.mode == UPDATE:
            if now - self._clock_at >= 1000:  # at least every second (dgtbrd.h)
                self._clock_at = now
                self._send_clock(now)
            return
        if now - self._clock_at < _CLOCK_CHECK_MS:
            return
        self._clock_at = now
        out = self._clock
        self.times_into(out, 3, now)
        times = self._times
        if not self._clock_due:
            for i in range(7):
                if times[i] != out[3 + i]:
                    break
            else:
                return  # the time shown has not changed
        self._clock_due = False
        for i in range(7):
            times[i] = out[3 + i]
        self.link.write_bytes(out)

    def _clock_message(self, data, n):
        """0x2B: size, 0x03, the command, its data, 0x00. Returns whether it was well-formed."""
        cmd = data[3]
        if data[2] != _CLOCK_START or cmd >= len(_CLOCK_SIZES) or _CLOCK_SIZES[cmd] != data[1]:
            return False
        if cmd == _SETNRUN:
            # left h m s, right h m s (binary; hours | 0x10 would count up, which no DGT clock does),
            # then 1: left runs, 2: right runs, 4: paused, 8: toggle at the lever (this board has none).
            ms = [0, 0]
            for side in range(2):
                h = data[4 + 3 * side] & 0x0F
                m = data[5 + 3 * side]
                s = data[6 + 3 * side]
                if h > 9 or m > 59 or s > 59:
                    return False
                ms[side] = ((h * 60 + m) * 60 + s) * 1000
            run = data[10] & 7
            run = 0 if run & 4 or run == 3 else run
            self._single_board()
            self._whole()
            if self.host_clock is None:
                self.app.referee.lay_clock_aside()  # the host keeps the time (as a CPP app's `time`)
                self.app.redraw()
            self.host_clock = [ms[0], ms[1], run, self.link.now]
        else:
            self._single_board()
            self._whole()
        if self.mode == UPDATE or self.mode == UPDATE_NICE:
            ack2 = CLOCK_VERSION if cmd == 0x09 else 0
            self._ack(0x10, cmd, ack2, 0)
        return True

    def _ack(self, ack0, ack1, ack2, ack3):
        """A clock's acknowledgement, inside BWTIME (dgtbrd.h: bytes 3 and 6 end in 0x0A)."""
        out = bytearray(10)
        out[0] = _BWTIME
        out[2] = 10
        out[3] = 0x0A | (ack2 & 0x80) >> 3 | (ack3 & 0x80) >> 2
        out[4] = ack0 & 0x7F
        out[5] = ack1 & 0x7F
        out[6] = 0x0A | (ack0 & 0x80) >> 3 | (ack1 & 0x80) >> 2
        out[7] = ack2 & 0x7F
        out[8] = ack3 & 0x7F
        self.link.write_bytes(out)

    # ------------------------------------------------------------------ LEDs

    def _leds(self, data, n):
        """0x60: size, then the Revelation II's pattern (0 off, 1 on, 2 settings), start field, end
        field, or the Pegasus's 5, speed, mode, intensity, fields; then 0x00. Returns whether it was
        well-formed."""
        kind = data[2]
        lit = self._lit
        if kind == 0 and n == 4:  # Pegasus: 60 02 00 00, all off
            pass
        elif kind == 0 and n == 6:  # off: start, end; start 0x40 is all off
            if data[3] != 0x40 and (data[3] > 63 or data[4] > 63):
                return False
        elif kind == 1 and n == 6:  # on: start, end
            if data[3] > 63 or data[4] > 63:
                return False
        elif kind == 2 and n == 6:  # the Revelation II's own functions: nothing to change here
            self._single_board()
            self._whole()
            return True
        elif kind == 5 and n >= 7:  # Pegasus: the fields listed, lit
            for i in range(6, n - 1):
                if data[i] > 63:
                    return False
        else:
            return False
        self._single_board()
        self._whole()
        if lit is None:
            lit = self._lit = bytearray(64)
        if kind == 0 and (n == 4 or data[3] == 0x40):
            for f in range(64):
                lit[f] = 0
        elif kind == 0 or kind == 1:
            lit[data[3]] = kind
            lit[data[4]] = kind
        else:
            for f in range(64):
                lit[f] = 0
            for i in range(6, n - 1):
                lit[data[i]] = 1
        self._show_leds()
        return True

    def _show_leds(self):
        lit = self._lit
        frame = None
        for f in range(64):
            if lit[f]:
                frame = bytearray(64)
                break
        if frame is None:
            self._release_leds()  # the board's own signals again
            return
        for f in range(64):
            frame[f ^ 56] = signals.REMOTE_MOVE if lit[f] else signals.OFF
        self.app.host_frame = frame

    def _release_leds(self):
        if self.app.host_frame is not None:
            self.app.host_frame = None
            self.app.redraw()
        if self._lit is not None:
            for f in range(64):
                self._lit[f] = 0

    # ------------------------------------------------------------------ the dialect

    def reset(self):
        """The host's reset (bus mode's): IDLE, its LEDs off; the board's own game goes on."""
        self.mode = IDLE
        self._release_leds()

    def enter(self, held):
        _hold_ctrl_c(self.link, True)  # 0x03 is data in clock messages (link/link.py: Ctrl-C)
        self._sync()
        return held  # DGT has no words for a person: the messages stay held

    def info(self, text):
        pass  # ... nor here

    def on_event(self, ev):
        pass  # the fields follow the referee's state, looked at in poll()

    def poll(self, now):
        ref = self.app.referee
        follow_takeback(self.link)  # the host's takeback button, then the pieces (link/pieces.py)
        close_promotion_choice(ref, now)  # its piece goes out below, as the field's new piece
        if ref.version != self._version:
            self.follow(now)
        if self.bus:
            if self.bus_mode is not None:
                self.bus_mode.poll(now)
        elif self.mode == UPDATE or self.mode == UPDATE_NICE:
            self._poll_clock(now)

    def leave(self):
        """Another dialect takes the port: the LEDs, Ctrl-C and the clock are the board's again.
        The mode stays (as a DGT board's does): a host that speaks again finds it as it left it."""
        _hold_ctrl_c(self.link, False)
        self._release_leds()
        if self.host_clock is not None:
            self.host_clock = None
            self.app.referee.take_clock_back()  # the board's own clock again, for its next game
            self.app.redraw()


def _hold_ctrl_c(link, on):
    """on: 0x03 comes to the Link as a byte (a DGT host speaks); off: it is Ctrl-C again."""
    if link.kbd_intr is not None and on != link.ctrl_c_held:
        link.kbd_intr(-1 if on else 3)
        link.ctrl_c_held = on


def _code(view, sq):
    """The DGT piece code of square sq in a reported view (link/pieces.py names a piece for every
    occupied square; a pawn of that half of the board should it not)."""
    p = view[sq]
    if p == 0 or p > 15:
        p = 1 if sq < 32 else 9
    return _CODES[p]


def _hms_into(out, at, ms, fallen, extra):
    """Hours with the flags, minutes and seconds in BCD (rounded up to the second, as a clock shows
    time left; 9:59:59 at most, the clock's one hours digit)."""
    s = (ms + 999) // 1000
    if s > 35999:
        s = 35999
    h = s // 3600
    if fallen:
        h |= 0x50  # the flag fell, the clock blocked at zero, and the flag shown
    if extra:
        h |= 0x20  # time per move (Fischer, Bronstein, delay)
    out[at] = h
    out[at + 1] = _bcd(s // 60 % 60)
    out[at + 2] = _bcd(s % 60)
