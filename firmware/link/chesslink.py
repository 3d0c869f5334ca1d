# Millennium ChessLink on the USB link (docs/spec.md section 7): what BearChess, Lucas Chess, picochess and
# python-mchess speak to Millennium boards.
#
# Protocol: domschl/python-mchess mchess/magic-board.md (commit 74ccfd40). Messages are a command
# letter and hex digits, no line end, then a block check: two upper-case hex digits of the XOR of
# every character before them. Bit 7 of each byte may carry odd parity (7 data bits + parity on a
# real board's serial line): masked off on input, added on output exactly when the client's bytes
# carry it. A malformed or mis-checked message is ignored and changes nothing, as on a Millennium.
#
#   V -> v + version (4 hex)     S -> s + 64 pieces, h1..a1, h2..a2, ..., a8 ('.' empty)
#   L + slot + 81 LED bytes -> l  X -> x (LEDs back to the board)   T: reset, no answer
#   W + addr + value -> w + addr + value     R + addr -> r + addr + value     I -> i0055mm
#
# E2ROM option bytes (kept in RAM, as a session's settings): 00 bit 0 = no block check (for a
# terminal), 01 = scan time (2.048 ms units), 02 = automatic status reports (0 every scan, 1 off,
# 2 every [03] x 4.096 ms, 3-7 on every change), 03 = report time. The board's own game goes on
# underneath: the status is what the game knows of every piece (link/pieces.py), a takeback the
# host's program makes is followed in either mode, and the LEDs show the board's own signals again
# after X.
#
# Orientation. magic-board.md names the squares "A8...H8, A7...H7" and puts LED 1 in the "A8"
# corner, but what the hosts read is that order seen from the other side of the board:
# python-mchess's default orientation takes the first letter for h1 and LED 1 for the h1 corner,
# and Chesstimation, a ChessLink emulator made for the chess.com app and BearChess, sends h1 first
# (docs/chesslink.md). A host that finds the start position either way round can tell; one that
# connects in the middle of a game cannot, so the board sends what the hosts expect: h1 to a1, h2
# to a2, ... a8; LED 1 at the h1 corner, 9 at h8, 73 at a1, 81 at a8.
#
# Promotion. The board cannot see which piece stands on the promotion square: the player chooses
# it by taps (core/referee.py). Until the choice is made the status shows the pawn there, never a
# piece the player has not chosen: a host that reads pieces from the status would take a queen
# move at once. The choice is made when the opponent lifts a piece, or once the piece has stood
# still PROMOTION_CHOICE_MS since it landed or its last tap; then the session closes the choice
# (the board's game and the host's agree on the piece from there on).
from micropython import const

from core import signals
from core.position import BLACK, PAWN, move_promotion, move_to
from core.referee import PLAY
from link.pieces import SYMBOLS, Pieces

_LETTERS = SYMBOLS.encode()  # bytes: indexing gives an int, allocating nothing

# The version a Millennium ChessLink answered in python-mchess's logs (v0103: firmware 01.03).
VERSION = b"0103"
IDENTITY = b"0055mm"  # what ChessLink emulators answer to I (docs/spec.md section 7)

_LENGTH = {  # message length with its block check, by command letter
    ord("V"): 3, ord("S"): 3, ord("X"): 3, ord("T"): 3, ord("I"): 3,
    ord("R"): 5, ord("W"): 7, ord("L"): 167,
}
_MAX = const(167)
_HEX = b"0123456789ABCDEF"
_STATUS_LEN = const(67)
_DEFAULT_SCAN = const(20)  # E2ROM 01 default: 20 x 2.048 ms = 41 ms a scan
_MIN_SCAN = const(15)
# How long a promoted piece stands untouched before its choice counts as made: taps come quicker
# (docs/spec.md section 3, a tap is a lift and a put-back of the new piece).
PROMOTION_CHOICE_MS = const(2000)


def _hex_value(b):
    """0..15 for an upper-case hex digit, else -1."""
    if 48 <= b <= 57:
        return b - 48
    if 65 <= b <= 70:
        return b - 55
    return -1


def _odd(b):
    # True when b has an odd number of one bits (odd parity over all 8 bits).
    b ^= b >> 4
    b ^= b >> 2
    b ^= b >> 1
    return b & 1


class ChessLink:
    """One ChessLink session on a Link: framing of its messages and the board's answers.
    A dialect of link/link.py (its DIALECTS): enter, leave, info, on_event, poll."""

    polls = True  # status reports and a host's takeback, looked at after each step

    def __init__(self, link):
        self.link = link
        self.app = link.app
        self.e2rom = bytearray(256)
        self.e2rom[1] = _DEFAULT_SCAN
        self.parity = False  # the client sets bit 7 for odd parity: answer the same way
        self.pieces = Pieces()
        self.host_leds = bytearray(81)  # the last L message's patterns, LED 1 (a8 corner) first
        self._frame = bytearray(64)  # the squares those corners light, as the App shows them
        self._in = bytearray(_MAX)
        self._n = 0
        self._need = 0
        self._status = bytearray(_STATUS_LEN)  # the last status report, framed and checked
        self._shown = bytearray(64)  # the pieces in it
        self._version = -1
        self._sent_at = 0
        self._report = True  # a report is due (the pieces changed, or a reset)
        self.messages = 0  # messages answered, for tests
        self.ignored = 0  # messages dropped (malformed, mis-checked)

    # ------------------------------------------------------------------ framing

    def _checked(self):
        return not self.e2rom[0] & 1

    def start(self, b):
        """The first byte of a message; returns whether more bytes are to come."""
        need = _LENGTH[b & 0x7F]
        if not self._checked():
            need -= 2
        self._n = 0
        self._need = need
        return self.byte(b)

    def byte(self, b):
        """One more byte of the message; returns whether more are to come."""
        self._in[self._n] = b
        self._n += 1
        if self._n < self._need:
            return True
        self._message()
        return False

    def drop(self):
        self._n = 0
        self.ignored += 1

    def report_due(self):
        """Send the status at the next poll (in the modes that report): a host that came back
        after its connection dropped learns what changed meanwhile."""
        self._report = True

    def _message(self):
        n = self._n
        data = self._in
        parity = False
        for i in range(n):
            if data[i] & 0x80:
                parity = True
        check = 0
        for i in range(n):
            b = data[i]
            if parity and not _odd(b):
                self.ignored += 1
                return
            data[i] = b & 0x7F
            if i < n - 2:
                check ^= data[i]
        if self._checked():
            hi = _hex_value(data[n - 2])
            lo = _hex_value(data[n - 1])
            if hi < 0 or lo < 0 or hi * 16 + lo != check:
                self.ignored += 1
                return
            n -= 2
        for i in range(1, n):
            if _hex_value(data[i]) < 0:
                self.ignored += 1
                return
        self.parity = parity
        self.messages += 1
        # Whole and well-formed: now, and only now, ChessLink is the dialect (a CPP round ends).
        self.link.use("chesslink")
        self._run(data[0], n)

    def _byte_at(self, i):
        return _hex_value(self._in[i]) * 16 + _hex_value(self._in[i + 1])

    # ------------------------------------------------------------------ commands

    def _run(self, letter, n):
        if letter == 86:  # V
            self._send(b"v" + VERSION)
        elif letter == 83:  # S
            self._send_status()
        elif letter == 73:  # I
            self._send(b"i" + IDENTITY)
        elif letter == 88:  # X
            self._release_leds()
            self._send(b"x")
        elif letter == 76:  # L
            for i in range(81):
                self.host_leds[i] = self._byte_at(3 + 2 * i)
            self._show_leds()
            self._send(b"l")
        elif letter == 82:  # R
            addr = self._byte_at(1)
            self._send(b"r" + bytes(self._in[1:3]) + _hex2(self.e2rom[addr]))
        elif letter == 87:  # W
            addr = self._byte_at(1)
            value = self._byte_at(3)
            self._send(b"w" + bytes(self._in[1:5]))
            self.e2rom[addr] = value  # after the answer: a new block-check setting applies from the next message
            self._report = True
        elif letter == 84:  # T: a reset clears the LEDs and the status; no answer
            self._release_leds()
            self._report = True

    # ------------------------------------------------------------------ output

    def _send(self, body):
        out = bytearray(body)
        if self._checked():
            check = 0
            for b in out:
                check ^= b
            out += _hex2(check)
        self._write(out)

    def _write(self, out):
        if self.parity:
            for i in range(len(out)):
                b = out[i] & 0x7F
                out[i] = b if _odd(b) else b | 0x80
        self.link.write_bytes(out)

    def _read(self):
        """The pieces to report: what the game knows of every square, with the pawn still on a
        promotion square whose piece the player has not chosen yet."""
        ref = self.app.referee
        squares = self.pieces.read(ref, True)
        m = 0
        if ref.pending_kind == "move" and move_promotion(ref.pending):
            m = ref.pending  # on its way: not even played yet
        elif ref.promotion_square >= 0:
            m = ref.game.last_move()  # played, its piece still open to taps
        if m and squares[move_to(m)]:
            squares[move_to(m)] = PAWN | (squares[move_to(m)] & BLACK)
        return squares

    def _choice_made(self, now):
        """Close the promotion choice once the piece has stood still long enough (see above)."""
        ref = self.app.referee
        if ref.promotion_square < 0 or ref.emptied or ref.filled or ref.pending:
            return False
        if now - ref.last_change < PROMOTION_CHOICE_MS:
            return False
        ref.end_promotion_choice()
        return True

    def _send_status(self):
        """The pieces as the board knows them, framed into the preallocated status buffer."""
        squares = self._read()
        self._shown[:] = squares
        out = self._status
        out[0] = 115  # s
        check = 115
        for i in range(64):
            b = _LETTERS[squares[8 * (i >> 3) + 7 - (i & 7)]]  # h1 first (see Orientation)
            out[1 + i] = b
            check ^= b
        n = 65
        if self._checked():
            out[65] = _HEX[check >> 4]
            out[66] = _HEX[check & 15]
            n = 67
        self._sent_at = self.link.now
        self._report = False
        if n == _STATUS_LEN:
            self._write(out)
        else:
            self._write(out[:n])

    # ------------------------------------------------------------------ the board's events

    def enter(self, held):
        return held  # ChessLink has no words for a person: the messages stay held

    def info(self, text):
        pass  # ... nor here

    def on_event(self, ev):
        pass  # the status follows the referee's state, looked at in poll()

    def poll(self, now):
        """Automatic status reports (E2ROM 02): on every change, or at a fixed period."""
        ref = self.app.referee
        if ref.error is not None and ref.phase == PLAY and ref.game.ply() and ref.occ == ref.prev:
            # The host's program took the last move back (its takeback button, then the pieces):
            # the board follows, as casual mode would, or it could read no move after it.
            game = ref.game
            game.pop()
            self.link.load(game)
        self._choice_made(now)  # closing it changes ref.version: the piece chosen is reported below
        mode = self.e2rom[2] & 7
        if mode == 1:
            return
        if ref.version != self._version:
            self._version = ref.version
            squares = self._read()
            if squares != self._shown:
                self._report = True
        if mode >= 3:
            if self._report:
                self._send_status()
            return
        scan = self.e2rom[1]
        period = (scan if scan >= _MIN_SCAN else _DEFAULT_SCAN) * 2048 // 1000
        if mode == 2 and self.e2rom[3] * 4096 // 1000 > period:
            period = self.e2rom[3] * 4096 // 1000  # never faster than a scan
        if now - self._sent_at >= period:
            if self._report:
                self._send_status()
            else:
                self._sent_at = now
                self._write(self._status) if self._checked() else self._write(self._status[:65])

    def leave(self):
        self._release_leds()

    # ------------------------------------------------------------------ LEDs

    def _show_leds(self):
        """A square lights when its four corners do. A host lights a move's squares by their
        corners, so two squares one apart on a rank or file (e2 and e4, or a king's e1 and g1) light
        all four corners of the square between them too: the middle of such a line of exactly
        three stays dark. Longer lines light whole (O-O with its rook: e1 f1 g1 h1, each changed)."""
        leds = self.host_leds
        lit = bytearray(64)
        for sq in range(64):
            lit[sq] = 1 if _corners_lit(sq, leds) else 0
        frame = self._frame
        for sq in range(64):
            on = lit[sq] and not (_middle_of_three(lit, sq, 1) or _middle_of_three(lit, sq, 8))
            frame[sq] = signals.REMOTE_MOVE if on else signals.OFF
        self.app.host_frame = frame

    def _release_leds(self):
        if self.app.host_frame is not None:
            self.app.host_frame = None
            self.app.redraw()
        for i in range(81):
            self.host_leds[i] = 0


def _hex2(v):
    return bytes((_HEX[v >> 4], _HEX[v & 15]))


def corners(sq):
    """LED indices (0..80) of a square's corners (see Orientation). LED 1 (index 0) is the h1
    corner, 9 the h8 corner, 73 the a1 corner, 81 the a8 corner: index = 9 x corner line counted
    from the h-file's outer edge + corner line counted from the 1st rank's outer edge."""
    col = 7 - (sq & 7)
    row = sq >> 3
    return (9 * col + row, 9 * col + row + 1, 9 * (col + 1) + row, 9 * (col + 1) + row + 1)


def _corners_lit(sq, leds):
    for c in corners(sq):
        if not leds[c]:
            return False
    return True


def _middle_of_three(lit, sq, step):
    """Whether sq is the middle of a line of exactly three lit squares along a rank (step 1) or a
    file (step 8)."""
    if step == 1:
        f = sq & 7
        if f == 0 or f == 7:
            return False
        before = f >= 2 and lit[sq - 2]
        after = f <= 5 and lit[sq + 2]
    else:
        r = sq >> 3
        if r == 0 or r == 7:
            return False
        before = r >= 2 and lit[sq - 16]
        after = r <= 5 and lit[sq + 16]
    return lit[sq - step] and lit[sq + step] and not before and not after
