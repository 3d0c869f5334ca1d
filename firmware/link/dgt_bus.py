# DGT's bus mode (dgtbrd.h "Bus communication protocol"): how DGT LiveChess talks to its boards,
# loaded by link/dgt.py with the first bus frame.
#
# The host's frames are a command (0x81-0x8D), the board's address in two 7-bit bytes and a
# checksum (link/dgt.py checks it); the board answers only frames to its own address, and to
# address 0 a ping, a reset or the end of bus mode. Its answers are an id, the total length in two
# 7-bit bytes, its address, data, and a checksum (the sum of all bytes before it, bit 7 cleared).
#   0x81 SEND_CLK -> 0x84 the seven clock bytes of BWTIME     0x82 SEND_BRD -> 0x83 the 64 fields
#   0x83 SEND_CHANGES -> 0x85 the changes since the last one  0x84 REPEAT_CHANGES -> 0x85 those again
#   0x85 SET_START_GAME -> 0x88 (and a start tag, then the position, among the changes)
#   0x86 SEND_FROM_START -> 0x86 the start tag and the position the host has been sent
#   0x87 PING -> 0x87; to address 0, after a random delay within 1,100 ms (boards on one bus answer
#        apart); 0x8A IGNORE_NEXT_BUS_PING -> 0x87 at once, and the next ping to address 0 is not
#        answered; 0x8B SEND_VERSION -> 0x89 main, sub; 0x8D SEND_ALL_D -> changes, clock, board;
#   0x88 END_BUSMODE, 0x89 RESET: no answer; 0x8C (the draughts board's half dump) and LiveChess's
#        undocumented 0x92 are taken and not answered.
# The changes are the internal storage's tags: a piece tag (0x40 | piece, 0x10 more when it came
# less than 250 ms after the one before) and its field. The board keeps the changes the host has
# not had yet and the last packet (for REPEAT_CHANGES) in a fixed buffer, not DGT's 8 kB log: so
# SEND_FROM_START gives the position as the host was last sent it, not the moves since the start
# tag. A host that stops asking for changes long enough to fill the buffer gets, at its next
# SEND_CHANGES, a start tag and the whole position in their place.
from micropython import const

from link.dgt import EE_START_TAG, IDLE, PIECE_TAG

_LOG = const(256)
_QUICK_MS = const(250)
_PING_SPREAD_MS = const(1100)

_BRD_DUMP = const(0x83)
_BWTIME = const(0x84)
_UPDATE = const(0x85)
_FROM_START = const(0x86)
_PING = const(0x87)
_START_GAME_WRITTEN = const(0x88)
_VERSION = const(0x89)


class BusMode:
    """Bus mode of one DGT session (link/dgt.py's Dgt): the frames' commands, the change log and a
    ping answer that waits its delay."""

    def __init__(self, dgt):
        self.dgt = dgt
        self.log = bytearray(_LOG)
        self.last = 0  # log[last:sent] is the last packet of changes, log[sent:end] not sent yet
        self.sent = 0
        self.end = 0
        self.known = bytearray(64)  # the fields as the host has been sent them (at `sent`)
        for f in range(64):
            self.known[f] = dgt.shown[f]
        self._changed_at = -0x10000
        self.ping_at = -1  # when the answer to a ping to address 0 is due, or -1
        self.skip_ping = False  # IGNORE_NEXT_BUS_PING: the next ping to address 0 goes unanswered
        self._random = (dgt.serial * 40503) & 0xFFFF or 1  # a different spread on every board
        self.answered = 0  # frames answered, for tests

    # ------------------------------------------------------------------ the host's frames

    def command(self, cmd, address, now):
        dgt = self.dgt
        if address == 0:
            if cmd == 0x87:  # PING to every board
                if self.skip_ping:
                    self.skip_ping = False
                else:
                    self.ping_at = (now + self._spread()) & 0x3FFFFFFF
            elif cmd == 0x88 or cmd == 0x89:
                self._end_or_reset(cmd)
            return
        if address != dgt.address:
            return  # another board's
        if cmd == 0x81:  # SEND_CLK
            out = self._message(_BWTIME, 7)
            dgt.times_into(out, 5, now)
            self._send(out)
        elif cmd == 0x82:  # SEND_BRD
            dgt.follow(now)
            out = self._message(_BRD_DUMP, 64)
            for f in range(64):
                out[5 + f] = dgt.shown[f]
            self._send(out)
        elif cmd == 0x83:  # SEND_CHANGES
            dgt.follow(now)
            self._next_packet()
            self._send_changes()
        elif cmd == 0x84:  # REPEAT_CHANGES
            self._send_changes()
        elif cmd == 0x85:  # SET_START_GAME
            dgt.follow(now)
            self._log_position()
            self._send(self._message(_START_GAME_WRITTEN, 0))
        elif cmd == 0x86:  # SEND_FROM_START
            known = self.known
            out = self._message(_FROM_START, 1 + 2 * _count(known))
            out[5] = EE_START_TAG
            i = 6
            for f in range(64):
                if known[f]:
                    out[i] = PIECE_TAG | known[f]
                    out[i + 1] = f
                    i += 2
            self._send(out)
        elif cmd == 0x87:  # PING
            self._send(self._message(_PING, 0))
        elif cmd == 0x88 or cmd == 0x89:  # END_BUSMODE, RESET
            self._end_or_reset(cmd)
        elif cmd == 0x8A:  # IGNORE_NEXT_BUS_PING
            self.skip_ping = True
            self._send(self._message(_PING, 0))
        elif cmd == 0x8B:  # SEND_VERSION
            out = self._message(_VERSION, 2)
            out[5] = 1
            out[6] = 2
            self._send(out)
        elif cmd == 0x8D:  # SEND_ALL_D: changes, clock, board, one after the other
            self.command(0x83, address, now)
            self.command(0x81, address, now)
            self.command(0x82, address, now)
            return
        else:
            return  # 0x8C (draughts), LiveChess's 0x92
        self.answered += 1

    def _end_or_reset(self, cmd):
        dgt = self.dgt
        if cmd == 0x88:
            dgt.bus = False  # single-board mode, IDLE
            dgt.mode = IDLE
        else:
            dgt.reset()  # a power-up reset for DGT's board: its modes and LEDs; the game goes on
            self.ping_at = -1
            self.skip_ping = False

    def _spread(self):
        """A delay in 0..PING_SPREAD_MS, from a 16-bit xorshift (no module, no big int)."""
        x = self._random
        x ^= (x << 7) & 0xFFFF
        x ^= x >> 9
        x ^= (x << 8) & 0xFFFF
        self._random = x
        return x * _PING_SPREAD_MS >> 16

    def poll(self, now):
        """The answer to a ping to address 0, when its delay is up (no sleeping: the scan loop)."""
        if self.ping_at >= 0 and (now - self.ping_at) & 0x3FFFFFFF < 0x20000000:
            self.ping_at = -1
            self._send(self._message(_PING, 0))

    # ------------------------------------------------------------------ the change log

    def log_change(self, field, piece, now):
        """A field changed (link/dgt.py's follow(), in bus mode)."""
        if self.end + 2 > _LOG and not self._make_room(2):
            self._log_position()  # the host stopped asking: the whole position instead
            return
        quick = (now - self._changed_at) & 0x3FFFFFFF < _QUICK_MS
        self._changed_at = now
        self.log[self.end] = PIECE_TAG | (0x10 if quick else 0) | piece
        self.log[self.end + 1] = field
        self.end += 2

    def _log_position(self):
        """The start tag and the position, among the changes (SET_START_GAME; a full log)."""
        shown = self.dgt.shown
        need = 1 + 2 * _count(shown)
        if self.end + need > _LOG and not self._make_room(need):
            self.last = self.sent = self.end = 0  # nothing unsent is worth more than the position
        log = self.log
        log[self.end] = EE_START_TAG
        i = self.end + 1
        for f in range(64):
            if shown[f]:
                log[i] = PIECE_TAG | shown[f]
                log[i + 1] = f
                i += 2
        self.end = i

    def _make_room(self, need):
        """Drop the last packet (the host has it) to make room; returns whether there is."""
        if self.last:
            n = self.end - self.last
            self.log[0:n] = self.log[self.last : self.end]
            self.sent -= self.last
            self.end = n
            self.last = 0
        if self.sent:  # REPEAT_CHANGES loses its packet before the host loses a change
            n = self.end - self.sent
            self.log[0:n] = self.log[self.sent : self.end]
            self.end = n
            self.sent = 0
        return self.end + need <= _LOG

    def _next_packet(self):
        """What was not sent becomes the packet sent now; what the host has is folded into known."""
        log = self.log
        known = self.known
        i = self.sent
        while i < self.end:
            tag = log[i]
            if tag == EE_START_TAG:
                for f in range(64):
                    known[f] = 0
                i += 1
            else:
                known[log[i + 1]] = tag & 0x0F
                i += 2
        self.last = self.sent
        self.sent = self.end

    def _send_changes(self):
        n = self.sent - self.last
        out = self._message(_UPDATE, n)
        for i in range(n):
            out[5 + i] = self.log[self.last + i]
        self._send(out)

    # ------------------------------------------------------------------ the board's answers

    def _message(self, kind, n):
        """An answer with room for n data bytes; its header and address filled in."""
        total = n + 6
        out = bytearray(total)
        out[0] = kind
        out[1] = total >> 7
        out[2] = total & 0x7F
        out[3] = self.dgt.address >> 7
        out[4] = self.dgt.address & 0x7F
        return out

    def _send(self, out):
        s = 0
        for i in range(len(out) - 1):
            s += out[i]
        out[len(out) - 1] = s & 0x7F
        self.dgt.link.write_bytes(out)


def _count(fields):
    n = 0
    for f in range(64):
        if fields[f]:
            n += 1
    return n
