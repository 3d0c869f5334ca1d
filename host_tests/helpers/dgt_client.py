"""The project's own DGT host, for the tests (docs/spec.md section 12, docs/dgt.md).

Written from the protocol's facts: DGT's dgtbrd.h (rev 2962, as kept in picochess's test data) and
what picochess's dgt/board.py sends, and when. Not from the firmware.

- The host's commands are single bytes (0x40 RESET ... 0x55 LONG_SERIALNR), a clock message
  (0x2B, size, 0x03, clock command, data, 0x00) or the LED command (0x60, size, data, 0x00).
- The board's messages: id | 0x80, the total length in two 7-bit bytes (bits 13-7, 6-0), then the
  data, every byte with bit 7 clear. A byte with bit 7 set in the data means the message was cut:
  the reader starts again at that byte (picochess does the same).
- Fields: 0 = a8, 1 = b8 ... 63 = h1. Pieces: 0 empty, 1 WP, 2 WR, 3 WN, 4 WB, 5 WK, 6 WQ, 7 BP,
  8 BR, 9 BN, 10 BB, 11 BK, 12 BQ.
- BWTIME (0x8D, 7 data bytes): right hours | flags, minutes, seconds (BCD), the same for the left,
  then the status; or a clock's acknowledgement when byte 0's or byte 3's low nibble is 0x0A.
- Bus mode: the host's frames are command (0x81-0x8D), address (two 7-bit bytes), checksum (the
  sum of the bytes before it, bit 7 cleared); the board's are id, length (two 7-bit bytes, the
  whole message), address, data, checksum.

Layers, as chesslink_client.py has them: Codec (bytes <-> messages, no I/O), Host (requests over
any transport with write(bytes) that hands what it receives to Host.received), and the hosts the
tests play: Picochess (its handshake and timers, on a thread) and the bus host (LiveChess's calls).
The transport is chesslink_client's PtyTransport.
"""
import queue
import threading
import time

import chess

# Commands.
RESET = 0x40
SEND_CLK = 0x41
SEND_BRD = 0x42
SEND_UPDATE = 0x43
SEND_UPDATE_BRD = 0x44
RETURN_SERIALNR = 0x45
RETURN_BUSADRES = 0x46
SEND_TRADEMARK = 0x47
SEND_EE_MOVES = 0x49
TO_BUSMODE = 0x4A
SEND_UPDATE_NICE = 0x4B
SEND_BATTERY_STATUS = 0x4C
SEND_VERSION = 0x4D
RETURN_LONG_SERIALNR = 0x55
CLOCK_MESSAGE = 0x2B
SET_LEDS = 0x60
# Clock commands.
CLOCK_DISPLAY = 0x01
CLOCK_ICONS = 0x02
CLOCK_END = 0x03
CLOCK_BUTTON = 0x08
CLOCK_VERSION = 0x09
CLOCK_SETNRUN = 0x0A
CLOCK_BEEP = 0x0B
CLOCK_ASCII = 0x0C
# Messages.
BOARD_DUMP = 0x86
BWTIME = 0x8D
FIELD_UPDATE = 0x8E
EE_MOVES = 0x8F
BUSADRES = 0x90
SERIALNR = 0x91
TRADEMARK = 0x92
VERSION = 0x93
BATTERY_STATUS = 0xA0
LONG_SERIALNR = 0xA2
# Bus mode.
BUS_SEND_CLK = 0x81
BUS_SEND_BRD = 0x82
BUS_SEND_CHANGES = 0x83
BUS_REPEAT_CHANGES = 0x84
BUS_SET_START_GAME = 0x85
BUS_SEND_FROM_START = 0x86
BUS_PING = 0x87
BUS_END_BUSMODE = 0x88
BUS_RESET = 0x89
BUS_IGNORE_NEXT_PING = 0x8A
BUS_SEND_VERSION = 0x8B
BUS_SEND_ALL = 0x8D
LIVECHESS_0x92 = 0x92
MSG_BUS_BRD_DUMP = 0x83
MSG_BUS_BWTIME = 0x84
MSG_BUS_UPDATE = 0x85
MSG_BUS_FROM_START = 0x86
MSG_BUS_PING = 0x87
MSG_BUS_START_GAME_WRITTEN = 0x88
MSG_BUS_VERSION = 0x89
EE_START_TAG = 0x7B
EE_EOF = 0x6B

PIECES = ".PRNBKQprnbkq"  # DGT's piece codes as letters
FILES = "abcdefgh"


def field_name(f):
    return FILES[f % 8] + str(8 - f // 8)


def field_of(name):
    return (8 - int(name[1])) * 8 + FILES.index(name[0])


def placement(fields):
    """64 DGT piece codes (field order) -> a FEN piece placement."""
    rows = []
    for r in range(8):
        row, empty = "", 0
        for f in range(8 * r, 8 * r + 8):
            ch = PIECES[fields[f]]
            if ch == ".":
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += ch
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def checksum(data):
    return sum(data) & 0x7F


def bus_frame(cmd, address, check=None):
    """A bus-mode command to address (14 bits); check: a wrong checksum to send instead."""
    frame = bytes((cmd, address >> 7 & 0x7F, address & 0x7F))
    return frame + bytes((checksum(frame) if check is None else check,))


def clock_message(cmd, data=b""):
    """0x2B, size, 0x03, cmd, data, 0x00."""
    return bytes((CLOCK_MESSAGE, len(data) + 3, 0x03, cmd)) + bytes(data) + b"\x00"


def set_and_run(left_ms, right_ms, run):
    """SetNRun: each side's h, m, s (binary) and 1 left runs, 2 right runs, 4 paused."""
    data = []
    for ms in (left_ms, right_ms):
        s = ms // 1000
        data += [s // 3600, s // 60 % 60, s % 60]
    return clock_message(CLOCK_SETNRUN, bytes(data + [run]))


def rev2_leds(pattern, start, end):
    """The Revelation II's LED command: 0 off, 1 on; start and end fields (0x40: all, with off)."""
    return bytes((SET_LEDS, 4, pattern, start, end, 0))


def pegasus_leds(fields, speed=1, mode=0, intensity=5):
    """The Pegasus's LED command lighting these fields (none: all off, 60 02 00 00)."""
    if not fields:
        return bytes((SET_LEDS, 2, 0, 0))
    data = bytes((5, speed, mode, intensity)) + bytes(fields) + b"\x00"
    return bytes((SET_LEDS, len(data))) + data


class Message:
    """One message from the board: its id, data, and in bus mode its address and whether its
    checksum was right."""

    def __init__(self, kind, data, address=None, check_ok=True):
        self.kind = kind
        self.data = bytes(data)
        self.address = address
        self.check_ok = check_ok
        self.at = time.monotonic()

    def __repr__(self):
        return "Message(0x%02x %s%s)" % (self.kind, self.data.hex(" "), "" if self.address is None else " @%d" % self.address)


class Codec:
    """The board's messages from its bytes, split anywhere. bus: the bus-mode framing."""

    def __init__(self, bus=False):
        self.bus = bus
        self._buf = bytearray()
        self.stray = 0  # bytes that start no message
        self.cut = 0  # messages broken by a byte with bit 7 set
        self.bad_checks = 0

    def feed(self, data):
        out = []
        self._buf += data
        while self._buf:
            if not self._buf[0] & 0x80:
                del self._buf[0]
                self.stray += 1
                continue
            if len(self._buf) < 3:
                break
            n = self._buf[1] << 7 | self._buf[2]
            low = 6 if self.bus else 3
            if self._buf[1] & 0x80 or self._buf[2] & 0x80 or n < low:
                del self._buf[0]
                self.cut += 1
                continue
            for i in range(1, min(n, len(self._buf))):
                if self._buf[i] & 0x80:
                    del self._buf[:i]
                    self.cut += 1
                    break
            else:
                if len(self._buf) < n:
                    break
                raw = bytes(self._buf[:n])
                del self._buf[:n]
                if self.bus:
                    ok = checksum(raw[:-1]) == raw[-1]
                    self.bad_checks += 0 if ok else 1
                    out.append(Message(raw[0], raw[5:-1], raw[3] << 7 | raw[4], ok))
                else:
                    out.append(Message(raw[0], raw[3:]))
        return out


def decode_clock(data):
    """BWTIME's seven bytes: ("ack", ack0, ack1, ack2, ack3) or ("times", white_s, black_s, status,
    white_flags, black_flags) with white on the left."""
    if (data[0] & 0x0F) == 0x0A or (data[3] & 0x0F) == 0x0A:
        ack0 = (data[1] & 0x7F) | ((data[3] << 3) & 0x80)
        ack1 = (data[2] & 0x7F) | ((data[3] << 2) & 0x80)
        ack2 = (data[4] & 0x7F) | ((data[0] << 3) & 0x80)
        ack3 = (data[5] & 0x7F) | ((data[0] << 2) & 0x80)
        return ("ack", ack0, ack1, ack2, ack3)

    def seconds(i):
        bcd = lambda b: (b >> 4) * 10 + (b & 15)  # noqa: E731
        return (data[i] & 0x0F) * 3600 + bcd(data[i + 1]) * 60 + bcd(data[i + 2])

    return ("times", seconds(3), seconds(0), data[6], data[3] & 0x70, data[0] & 0x70)


class Timeout(AssertionError):
    pass


class Host:
    """Requests and their answers over a transport (write(bytes); it calls received()). Every
    message is kept in order; field updates also rebuild the board as the host sees it."""

    def __init__(self, transport, bus=False):
        self.codec = Codec(bus)
        self.transport = transport
        self.messages = queue.Queue()
        self.log = []
        self.fields = bytearray(64)  # the board as its field updates and dumps say
        self.updates = []  # every field update, in order: (field, piece)
        self.listeners = []  # callables(message), on the reader's thread
        self.lock = threading.Lock()
        transport.attach(self.received)

    def received(self, data):
        for m in self.codec.feed(data):
            with self.lock:
                self.log.append(m)
                if m.kind == FIELD_UPDATE and len(m.data) == 2:
                    self.fields[m.data[0]] = m.data[1]
                    self.updates.append((m.data[0], m.data[1]))
                elif m.kind == BOARD_DUMP and len(m.data) == 64:
                    self.fields[:] = m.data
            for listener in self.listeners:
                listener(m)
            self.messages.put(m)

    def send(self, data, gap=0.0):
        self.transport.write(bytes(data), gap=gap)

    def wait(self, predicate, timeout=3.0, what="a message"):
        """The first message from now on that predicate accepts."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Timeout("no %s in %gs; last messages: %r" % (what, timeout, self.log[-8:]))
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if predicate(m):
                return m

    def request(self, data, kind, timeout=3.0):
        self.send(data)
        return self.wait(lambda m: m.kind == kind, timeout, "message 0x%02x" % kind)

    def nothing_for(self, seconds, kinds=None):
        """Assert no message (of kinds, if given) comes within seconds."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                m = self.messages.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                return
            assert kinds is not None and m.kind not in kinds, "unexpected %r" % m

    def drain(self):
        while True:
            try:
                self.messages.get_nowait()
            except queue.Empty:
                return

    # -- the commands ----------------------------------------------------------------------

    def board(self):
        return self.request(bytes((SEND_BRD,)), BOARD_DUMP).data

    def serial(self):
        return self.request(bytes((RETURN_SERIALNR,)), SERIALNR).data.decode()

    def version(self):
        return tuple(self.request(bytes((SEND_VERSION,)), VERSION).data)

    def clock(self):
        return decode_clock(self.request(bytes((SEND_CLK,)), BWTIME).data)

    def sync(self):
        """Everything the board sent before now has arrived (a serial number's round trip)."""
        self.serial()

    def updates_since(self, n):
        with self.lock:
            return list(self.updates[n:])


class BusHost(Host):
    """A bus-mode host, as DGT LiveChess drives its boards: frames to an address."""

    def __init__(self, transport):
        super().__init__(transport, bus=True)

    def frame(self, cmd, address, kind=None, timeout=3.0):
        self.send(bus_frame(cmd, address))
        if kind is None:
            return None
        return self.wait(lambda m: m.kind == kind, timeout, "bus message 0x%02x" % kind)

    def discover(self, timeout=3.0):
        """A ping to every board (address 0): the address that answers, and how long it took."""
        t0 = time.monotonic()
        m = self.frame(BUS_PING, 0, MSG_BUS_PING, timeout)
        return m.address, m.at - t0


def changes(data):
    """The piece tags of a bus update: [(field, piece, quick)] and start tags as ("start",)."""
    out = []
    i = 0
    while i < len(data):
        tag = data[i]
        if tag == EE_START_TAG:
            out.append(("start",))
            i += 1
        elif 0x40 <= tag <= 0x5F:
            out.append((data[i + 1], tag & 0x0F, bool(tag & 0x10)))
            i += 2
        else:
            raise AssertionError("unexpected tag 0x%02x in %s" % (tag, data.hex(" ")))
    return out


# ---------------------------------------------------------------------- rebuilding the moves


class Follower:
    """What a host's chess program does with the board: keep its own game (python-chess) and read
    each placement it is shown. The board shows the position after a legal move: that move; the
    position before the last move: a takeback; the position after another move from there: the
    last move was that one instead (a rook move that became castling, a slide read square by
    square); the start position: a new game."""

    def __init__(self, board):
        self.board = board
        self.events = []

    @property
    def moves(self):
        return [m.uci() for m in self.board.move_stack]

    def _after(self, board, text):
        for move in board.legal_moves:
            board.push(move)
            hit = board.board_fen() == text
            board.pop()
            if hit:
                return move
        return None

    def see(self, text):
        """Read one placement (FEN's first field); returns what was read, or None."""
        board = self.board
        if text == board.board_fen():
            return None
        move = self._after(board, text)
        if move is not None:
            board.push(move)
            self.events.append("move " + move.uci())
            return self.events[-1]
        if board.move_stack:
            last = board.pop()
            if board.board_fen() == text:
                self.events.append("undo " + last.uci())
                return self.events[-1]
            move = self._after(board, text)
            if move is not None:
                board.push(move)
                self.events.append("revise %s %s" % (last.uci(), move.uci()))
                return self.events[-1]
            board.push(last)
        if text == chess.STARTING_BOARD_FEN:
            board.reset()
            self.events.append("new")
            return "new"
        return None


def follow_updates(follower, start_fields, updates):
    """Feed a Follower the placements a host sees field update by field update."""
    fields = bytearray(start_fields)
    for f, piece in updates:
        fields[f] = piece
        follower.see(placement(fields))
    return fields


# ---------------------------------------------------------------------- picochess


class Picochess:
    """picochess's talk with a DGT board over USB, from its dgt/board.py: SEND_UPDATE_NICE then
    SEND_VERSION, again every 2 s until the VERSION comes; then SEND_BRD and the clock's version
    query (2B 03 03 09 00); RETURN_SERIALNR every second as a watchdog; and after every field update,
    once none has come for 0.25 s, SEND_BRD, whose dump it reads as a position (the Follower)."""

    FIELD_WAIT = 0.25
    VERSION_EVERY = 2.0
    WATCHDOG_EVERY = 1.0

    def __init__(self, host, board=None):
        self.host = host
        self.follower = Follower(board or chess.Board())
        self.version = None
        self.clock_version = None
        self.acks = []
        self.dumps = []
        self.serials = 0
        self.version_requests = 0
        self._field_timer = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        host.listeners.append(self._on)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(3)
        with self._lock:
            if self._field_timer is not None:
                self._field_timer.cancel()

    def _run(self):
        host = self.host
        while self.version is None and not self._stop.is_set():
            host.send(bytes((SEND_UPDATE_NICE,)))
            time.sleep(0.1)  # picochess waits after each command it writes
            host.send(bytes((SEND_VERSION,)))
            self.version_requests += 1
            self._stop.wait(self.VERSION_EVERY)
        if self._stop.is_set():
            return
        host.send(bytes((SEND_BRD,)))
        time.sleep(0.1)
        host.send(clock_message(CLOCK_VERSION))
        while not self._stop.wait(self.WATCHDOG_EVERY):
            host.send(bytes((RETURN_SERIALNR,)))

    def _on(self, m):
        if m.kind == VERSION:
            self.version = tuple(m.data)
        elif m.kind == SERIALNR:
            self.serials += 1
        elif m.kind == BWTIME:
            c = decode_clock(m.data)
            if c[0] == "ack":
                self.acks.append(c)
                if c[2] == CLOCK_VERSION:
                    self.clock_version = (c[3] >> 4, c[3] & 0x0F)
        elif m.kind == FIELD_UPDATE:
            with self._lock:
                if self._field_timer is not None:
                    self._field_timer.cancel()
                self._field_timer = threading.Timer(self.FIELD_WAIT, self._ask_board)
                self._field_timer.daemon = True
                self._field_timer.start()
        elif m.kind == BOARD_DUMP:
            self.dumps.append(m.data)
            self.follower.see(placement(m.data))

    def _ask_board(self):
        with self._lock:
            self._field_timer = None
        if not self._stop.is_set():
            self.host.send(bytes((SEND_BRD,)))
