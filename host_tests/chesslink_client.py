"""The project's own Millennium ChessLink host, for the tests (docs/spec.md section 7).

Written from the protocol's facts (python-mchess's mchess/magic-board.md, commit 74ccfd40, and the
order the hosts read, see firmware/link/chesslink.py "Orientation"):

- A message is a command letter, its hex-digit fields and a block check: two upper-case hex digits
  of the XOR of every character before them. No line end.
- The host sends V, S, X, T, I (no fields), R + address, W + address + value, L + slot time + 81
  LED codes. The board answers v + 4 hex digits, s + 64 piece letters, l, x, r/w + address +
  value, i + identity; T gets no answer.
- Bit 7 of every byte may carry odd parity (a real board's 7O1 serial line): the board answers
  with parity exactly when the host sends it.
- E2ROM 00 bit 0: block check off (for a terminal); 01: scan time in 2.048 ms units; 02: automatic
  status reports (0 every scan, 1 off, 2 every [03] x 4.096 ms, 3-7 on every change); 03: that time.
- The status lists the squares h1 to a1, then h2 to a2, ... up to a8; LED 1 is the h1 corner, 9
  the h8 corner, 73 the a1 corner, 81 the a8 corner.

Three layers, so that another transport (Bluetooth LE) can reuse the first two:
- Codec: bytes in -> messages out (feed), messages in -> bytes out (encode). No I/O, no clock.
- Host: the requests and their answers over any transport with write(bytes) that hands what it
  receives to Host.received(bytes); automatic status reports are collected as they come.
- PtyTransport: a serial port by path (the pseudo-terminal of `tools/sim_terminal.py --serial`,
  a Pico's /dev/ttyACM0), read on a thread.
"""
import errno
import os
import queue
import select
import termios
import threading
import time
import tty

# Reply letters and their lengths with the block check (two characters fewer without it).
REPLY_LENGTHS = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7, "i": 9}
START_STATUS = "RNBKQBNR" + "P" * 8 + "." * 32 + "p" * 8 + "rnbkqbnr"  # h1 first
FILES = "abcdefgh"


def block_check(text):
    """The two hex digits a message ends with: the XOR of all its characters."""
    x = 0
    for ch in text.encode("ascii") if isinstance(text, str) else text:
        x ^= ch
    return "%02X" % x


def with_odd_parity(b):
    """b (7 bits) with bit 7 set when that makes the number of one bits odd."""
    return b if bin(b).count("1") % 2 else b | 0x80


def has_odd_parity(b):
    return bin(b).count("1") % 2 == 1


class Reply:
    """One message from the board: its letter, the characters after it (block check removed),
    whether its bytes carried parity, and whether its block check was right (feed() returns only
    replies whose check is right)."""

    def __init__(self, letter, body, parity, check_ok):
        self.letter = letter
        self.body = body
        self.parity = parity
        self.check_ok = check_ok

    def __repr__(self):
        return "Reply(%r%s)" % (self.letter + self.body, "" if self.check_ok else ", bad check")


class Codec:
    """The framing of ChessLink, both ways, with no I/O.

    parity: add odd parity in bit 7 to what encode() makes. checked: messages carry the block
    check (E2ROM 00 bit 0 clear). feed() takes the board's bytes split anywhere and returns the
    whole replies they complete; bytes that start no reply are counted in `stray`."""

    def __init__(self, parity=True, checked=True):
        self.parity = parity
        self.checked = checked
        self._buf = bytearray()
        self.stray = 0
        self.bad_parity = 0  # bytes whose bit 7 did not make odd parity while parity was on
        self.bad_checks = 0  # would-be replies whose block check was wrong (skipped)

    # -- host to board -------------------------------------------------------------------

    def encode(self, body, check=None, parity=None):
        """The bytes of one message: body ("V", "W0203", "L20..."), its block check unless the
        board has it off (check=False forces none; a string forces that one, for corrupted
        messages), with parity in bit 7 when parity is on."""
        if check is None:
            check = self.checked
        text = body + (block_check(body) if check is True else check if check else "")
        data = text.encode("ascii")
        if self.parity if parity is None else parity:
            data = bytes(with_odd_parity(b) for b in data)
        return data

    # -- board to host -------------------------------------------------------------------

    def feed(self, data):
        out = []
        for b in data:
            self._buf.append(b)
            while self._buf:
                letter = chr(self._buf[0] & 0x7F)
                if letter not in REPLY_LENGTHS:
                    del self._buf[0]
                    self.stray += 1
                    continue
                n = REPLY_LENGTHS[letter] - (0 if self.checked else 2)
                if len(self._buf) < n:
                    break
                reply = self._reply(bytes(self._buf[:n]))
                if not reply.check_ok:
                    # Not a reply after all (a host opening the port in the middle of one reads a
                    # black rook 'r' as a reply letter): drop one byte and look again.
                    del self._buf[0]
                    self.stray += 1
                    self.bad_checks += 1
                    continue
                del self._buf[:n]
                out.append(reply)
        return out

    def pending(self):
        """Bytes of a reply not yet complete."""
        return len(self._buf)

    def _reply(self, raw):
        parity = any(b & 0x80 for b in raw)
        if parity:
            self.bad_parity += sum(1 for b in raw if not has_odd_parity(b))
        text = bytes(b & 0x7F for b in raw).decode("ascii", "replace")
        if self.checked:
            body, check = text[:-2], text[-2:]
            ok = check == block_check(body)
        else:
            body, ok = text, True
        return Reply(body[0], body[1:], parity, ok)


# ---------------------------------------------------------------------- the board's squares


def square_of(index):
    """The square (a1 = 0 ... h8 = 63) of the index-th letter of a status."""
    return 8 * (index // 8) + 7 - index % 8


def status_squares(status):
    """A status's 64 letters -> {square name: letter} of the occupied squares."""
    out = {}
    for i, ch in enumerate(status):
        if ch != ".":
            sq = square_of(i)
            out[FILES[sq % 8] + str(sq // 8 + 1)] = ch
    return out


def status_placement(status):
    """A status's 64 letters as a FEN piece placement (rank 8 first)."""
    by_sq = ["."] * 64
    for i, ch in enumerate(status):
        by_sq[square_of(i)] = ch
    ranks = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            ch = by_sq[8 * r + f]
            if ch == ".":
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += ch
        ranks.append(row + (str(empty) if empty else ""))
    return "/".join(ranks)


def led_corners(name):
    """LED indices (0..80) of the four corners of square `name`."""
    f, r = FILES.index(name[0]), int(name[1]) - 1
    col = 7 - f
    return (9 * col + r, 9 * col + r + 1, 9 * (col + 1) + r, 9 * (col + 1) + r + 1)


def led_message(names, pattern=0xFF, slot=0x20):
    """The L message lighting `names` as hosts do: every corner of each square."""
    codes = [0] * 81
    for name in names:
        for c in led_corners(name):
            codes[c] = pattern
    return "L%02X" % slot + "".join("%02X" % c for c in codes)


# ---------------------------------------------------------------------- the host


class Timeout(AssertionError):
    pass


class Host:
    """Requests and their answers. transport.write(bytes) sends; the transport calls received()
    with what comes back. Automatic status reports may come between a request and its answer
    (magic-board.md): each answer is matched to its request by its letter."""

    def __init__(self, transport, parity=True, checked=True):
        self.codec = Codec(parity, checked)
        self.transport = transport
        self.replies = queue.Queue()  # every reply, in order
        self.statuses = queue.Queue()  # the 64 letters of every s reply, in order
        self.last_status = None
        self.log = []  # every reply, for a failing test's report
        transport.attach(self.received)

    def received(self, data):
        for reply in self.codec.feed(data):
            self.log.append(reply)
            if reply.letter == "s" and len(reply.body) == 64:
                self.last_status = reply.body
                self.statuses.put(reply.body)
            self.replies.put(reply)

    def send(self, body, **kwargs):
        self.transport.write(self.codec.encode(body, **kwargs))

    def request(self, body, letter, timeout=3.0, **kwargs):
        """Send body; return the first reply with `letter` (status reports before it are kept)."""
        self.send(body, **kwargs)
        return self.wait_reply(letter, timeout)

    def wait_reply(self, letter, timeout=3.0):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Timeout("no %r reply from the board in %gs; replies: %r" % (letter, timeout, self.log[-8:]))
            try:
                reply = self.replies.get(timeout=left)
            except queue.Empty:
                continue
            if reply.letter == letter:
                return reply

    def nothing_for(self, seconds, letters="vlxwri"):
        """Assert no reply with one of `letters` comes within `seconds`."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                reply = self.replies.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return
            assert reply.letter not in letters, "unexpected reply %r" % reply

    def drain(self):
        """Forget every reply received so far."""
        for q in (self.replies, self.statuses):
            while True:
                try:
                    q.get_nowait()
                except queue.Empty:
                    break

    # -- the commands --------------------------------------------------------------------

    def version(self):
        return self.request("V", "v").body

    def identity(self):
        return self.request("I", "i").body

    def status(self):
        return self.request("S", "s").body

    def write_e2rom(self, address, value):
        reply = self.request("W%02X%02X" % (address, value), "w")
        if address == 0:
            self.codec.checked = not value & 1  # the board applies it from the next message
        return reply.body

    def read_e2rom(self, address):
        body = self.request("R%02X" % address, "r").body
        assert body[:2] == "%02X" % address, body
        return int(body[2:], 16)

    def leds(self, names, pattern=0xFF):
        return self.request(led_message(names, pattern), "l").body

    def leds_off(self):
        return self.request("X", "x").body

    def reset(self):
        self.send("T")

    def wait_status(self, predicate, timeout=5.0):
        """The first status report (from now on, in order) that predicate(letters) accepts."""
        end = time.monotonic() + timeout
        seen = []
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Timeout("no status as wanted in %gs; saw %r" % (timeout, [status_placement(s) for s in seen[-5:]]))
            try:
                s = self.statuses.get(timeout=left)
            except queue.Empty:
                continue
            seen.append(s)
            if predicate(s):
                return s


class GameFollower:
    """What a host's chess program does with the status: keep its own game (python-chess) and
    take a move when the board shows exactly the position after one legal move."""

    def __init__(self, board):
        self.board = board
        self.moves = []

    def _targets(self):
        out = {}
        for move in self.board.legal_moves:
            self.board.push(move)
            out[self.board.board_fen()] = move
            self.board.pop()
        return out

    def see(self, status):
        """Returns the move the status completes, or None."""
        move = self._targets().get(status_placement(status))
        if move is not None:
            self.board.push(move)
            self.moves.append(move.uci())
        return move


# ---------------------------------------------------------------------- a serial port


class PtyTransport:
    """A serial port by path, raw, read on a thread: what a host program opens."""

    def __init__(self, path, flush=True):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        if flush:
            termios.tcflush(self.fd, termios.TCIFLUSH)  # what the board said before we came
        self._sink = None
        self._running = True
        self._thread = threading.Thread(target=self._read, daemon=True)

    def attach(self, sink):
        self._sink = sink
        if not self._thread.is_alive():
            self._thread.start()

    def write(self, data, gap=0.0):
        """Send data; gap > 0 sends it one byte at a time, gap seconds apart (split reads)."""
        if gap <= 0:
            os.write(self.fd, data)
            return
        for i in range(len(data)):
            os.write(self.fd, data[i : i + 1])
            time.sleep(gap)

    def _read(self):
        while self._running:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.fd, 512)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EIO, errno.EBADF):
                    continue
                raise
            if data and self._sink is not None:
                self._sink(data)

    def close(self):
        self._running = False
        if self._thread.is_alive():
            self._thread.join(1)
        os.close(self.fd)
