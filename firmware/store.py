# The saved game on the Pico's flash: the whole game written now and then, and a journal of the
# changes since, a few bytes a ply (docs/saved-game.md says what each file holds).
#
# Why a journal. The Pico's flash is littlefs v2 (MicroPython's rp2 port), which copies on write:
# rewriting the whole game after every move allocated and erased a 4 KB sector for the file's data
# (and its directory's), and the CPU stalls while the flash erases, so a lift then went unseen for
# a tenth of a second (docs/figures.md). A file smaller than littlefs's inline limit (512 bytes
# with the Pico's geometry: a 4 KB block, 1 KB cache) lives inside its directory's metadata log,
# and writing it again is one commit: a 256-byte page programmed, no erase. The directory erases a
# block only when its log fills and littlefs compacts it into the other block of its pair; the
# journal has a directory of its own (PATH.d/) so that compaction copies nothing else. How many
# programs and erases a ply costs: docs/figures.md.
#
# The whole game (PATH: a text record, store_write.py writes it and says its format) is written
# again at a new game, a result, a change of mode, opponent or clock control, a game loaded from a
# PC, and when the journal would pass _JOURNAL_MAX bytes (a longer file needs two pages a commit).
# Between two of them, each move, takeback or promotion chosen again by taps is one record of the
# journal (note() queues it, update() appends it), and with a clock the clock's numbers follow.
#
# A power cut never leaves a file that loads as a different game:
# - the whole game goes to PATH.tmp, then is renamed over PATH (littlefs's rename replaces a file
#   in one power-safe metadata commit; store_write.py has the details), and each record carries a
#   save counter (seq) and ends with its length and Adler-32;
# - the journal starts with the counter of the record it extends: after a new record the old
#   journal is stale and ignored, and the first append writes a new one;
# - each journal record ends with 2 bytes of the Adler-32 of the whole journal up to it, so a
#   record cut short or damaged is found, with everything after it, and the records before it
#   still count. One save can take several records (a takeback of a rook-first castling and the
#   castling, a move and the clock's numbers): all but its last carry the check's complement, and
#   a save counts only with its last record, so a save is in or out whole. (littlefs commits
#   a file's new data at close, all or nothing, so on the Pico an append is in or out whole
#   anyway; the checks are for flashes and filesystems that tear.)
# - power-up (store_read.py) replays the newest complete record that replays, then the journal
#   records that extend it; a move the flash did not get is read from the pieces (docs/power-up.md).
#
# The journal (bytes; every record is its body followed by its 2 check bytes, high byte first:
# the check, or its complement when the record is not the last of its save):
#   _HEADER (0x82), 1 (its version), the record's seq in 4 bytes, high byte first
#   a move: 2 bytes, from | to << 6 | promotion << 12 (squares 0..63, the promotion's piece type
#     or 0): always below 0x8000, so its first byte tells it from the other records
#   _UNDO (0x80): the last move taken back (a takeback; a promotion chosen again is _UNDO + the move)
#   _CLOCK (0x81), n, then n bytes: the 11 numbers of the clock line (core/clock.py's saved_line
#     after its control) as unsigned LEB128
#
# This module is the part every board keeps in RAM; the rest loads when needed and goes again:
# store_read.py at power-up, store_write.py for a whole record.
import sys

from micropython import const

from core.game import (
    AGREEMENT,
    CLAIMED_DRAW,
    FLAG,
    FLAG_INSUFFICIENT,
    ILLEGAL_MOVES,
    ILLEGAL_MOVES_INSUFFICIENT,
    RESIGNATION,
)
from core.position import move_from, move_promotion, move_to

FORMAT = "chessboard-game"  # the first line of a whole record: its name and VERSION (store_write.py)
VERSION = const(1)
# Names are few on purpose here: each name a module brings is interned in MicroPython's qstr pool
# for good (dropping the module keeps it), and the pool grows by doubling, a large block of RAM at
# once (issue 28). The journal's constants are private for that reason, and store_read.py has its
# own copies of them.
_FORCED = (RESIGNATION, AGREEMENT, CLAIMED_DRAW, FLAG, FLAG_INSUFFICIENT, ILLEGAL_MOVES, ILLEGAL_MOVES_INSUFFICIENT)
_ADLER_MOD = const(65521)
_UNDO = const(0x80)  # the journal's records (see above)
_CLOCK = const(0x81)
_HEADER = const(0x82)
# Past this many bytes the next change writes the whole game instead: up to here a journal commit
# is one page of the flash (littlefs adds its tags and a checksum to the file's bytes).
_JOURNAL_MAX = const(224)
_EEXIST = const(17)


class StoreError(ValueError):
    """The saved game cannot be used: the message says why (truncated, corrupt, unknown format)."""


def adler32(data, a=1, b=0):
    """Adler-32 of bytes `data` continued from the halves (a, b); returns the new (a, b).

    The modulo is taken every 256 bytes: a stays below 65521 + 256 * 255 and b below
    65521 + 256 * a, both far under 2**30 (small ints on the Pico)."""
    n = 0
    for c in data:
        a += c
        b += a
        n += 1
        if n == 256:
            a %= _ADLER_MOD
            b %= _ADLER_MOD
            n = 0
    return a % _ADLER_MOD, b % _ADLER_MOD


class GameStore:
    """The App's: note(event) for each change of the game, update(game, mode) to write what changed;
    resume() -> (game, mode, notes) or None at power-up. save(game, mode) writes the whole game now;
    load() -> (start_fen, [uci, ...], mode) or None is the saved game as plain data.

    fs: the module with rename(), remove() and mkdir() (default `os`) plus, for a fake filesystem,
    open(path, mode); with the real `os` the built-in open() is used. The journal is
    PATH + ".d/journal"."""

    def __init__(self, path, fs=None):
        self.path = path
        self.tmp = path + ".tmp"
        if fs is None:
            import os

            self.fs = os
            self.open = open
        else:
            self.fs = fs
            self.open = fs.open
        self.seq = 0  # counter of the newest record seen or written
        self.result = None  # (result, reason) of a resignation/agreement/claim in the loaded record
        self.opponent = None  # "white 3" / "black 5": the board's engine in this game (engine/opponent.py)
        # The clock: clock_line() -> the text after "clock " to save, or None (set by the App), and
        # what the loaded record had: (control, (9 clock numbers), (illegal moves of white, black)).
        self.clock_line = None
        self.clock = None
        self.writes = 0  # whole records and journal appends written (benchmarks count saves by it)
        self._loaded = None  # (start_fen, ply, position key) of the loaded game, for apply_result()
        # What the flash holds, whole record and journal together, so that update() writes only
        # what changed: the Game (None: the next update() writes the whole game), its (ply, last
        # move; -1 after a takeback, then only the ply is compared), (mode, result, opponent,
        # clock control) and the clock line last written.
        self._held = None
        self._moves = (0, 0)
        self._header = None
        self._clock = None
        self._seen = []  # the events note() kept, not yet written
        self._base = -1  # the seq of the whole record the flash's game is in
        self._next = None  # where the next append goes: (seq of the record the journal on the flash
        # extends, its length, the Adler-32 halves of its bytes); None: start a journal
        self._tmp_newer = False  # the game resumed from PATH.tmp: rename it first (store_write.py)

    # ------------------------------------------------------------------ saving

    def note(self, ev):
        """A referee event (App passes "move", "undo", "promote", "new" and "end"), kept for the
        next update(): a move, a takeback or a promotion chosen again becomes a journal record
        then (not here: the event may come in the step of a lift). A new game or a result is
        written whole (update() sees it)."""
        kind = ev[0]
        if kind == "new":
            self._held = None
        elif kind != "end":
            self._seen.append(ev)

    def update(self, game, mode):
        """Write what changed since the last write: the journal records of the events note() kept
        (and the clock's numbers), or the whole game when the journal cannot say it. Raises OSError
        when the flash cannot be written (the next update writes the whole game)."""
        records = []
        ply, last = self._moves
        for ev in self._seen:
            kind = ev[0]
            if kind != "move":  # a takeback; a promotion chosen again is a takeback and the move
                records.append(bytes((_UNDO,)))
                ply -= 1
                last = -1  # only the ply count is compared then
            if kind != "undo":
                m = ev[1]
                v = move_from(m) | move_to(m) << 6 | move_promotion(m) << 12
                records.append(bytes((v >> 8, v & 255)))
                ply += 1
                last = m
        line = self.clock_line() if self.clock_line is not None else None
        if (
            game is not self._held
            or ply != game.ply()
            or last != -1 and last != game.last_move()
            or self._header != _header(game, mode, self.opponent, line)
        ):
            self.save(game, mode)  # not what the journal can say (or the flash holds no game yet)
            return
        if line and line != self._clock:
            body = bytearray((_CLOCK, 0))
            for word in line.split()[1:]:
                n = int(word)
                while n > 127:
                    body.append(n & 127 | 128)
                    n >>= 7
                body.append(n)
            body[1] = len(body) - 2
            records.append(body)
        if not records:
            return
        s = self._base
        at = self._next
        if at is None or at[0] != s:  # no journal on the flash, or one extending an older record
            records.insert(0, bytes((_HEADER, 1, s >> 24, s >> 16 & 255, s >> 8 & 255, s & 255)))
            size, a, b = 0, 1, 0
        else:
            size, a, b = at[1], at[2], at[3]
        out = bytearray()
        end = len(records) - 1
        for i in range(end + 1):
            body = records[i]
            a, b = adler32(body, a, b)
            out.extend(body)
            c = b if i == end or body[0] == _HEADER else b ^ 0xFFFF  # more of this save follows
            out.append(c >> 8)
            out.append(c & 255)
        if size + len(out) > _JOURNAL_MAX:
            self.save(game, mode)  # a longer journal would cost two pages a commit
            return
        self._held = None  # until the append is whole: a failed one leaves the journal unusable
        if not size:
            try:
                self.fs.mkdir(self.path + ".d")
            except OSError as e:
                if not e.args or e.args[0] != _EEXIST:
                    raise
        f = self.open(self.path + ".d/journal", "ab" if size else "wb")
        try:
            f.write(out)
        finally:
            f.close()  # littlefs commits the file's new bytes here, all or nothing
        self.writes += 1
        self._held = game
        self._moves = (ply, last)
        self._next = (s, size + len(out), a, b)
        self._clock = line
        self._seen.clear()

    def save(self, game, mode):
        """Write the whole game and mode now (store_write.py); raises OSError when the flash cannot
        be written (full, worn)."""
        self.seq += 1  # before the write: a record cut short never shares its number with the next
        self._held = None  # until the record is whole: after a failed one the next is whole too
        line = self.clock_line() if self.clock_line is not None else None
        header = _header(game, mode, self.opponent, line)
        try:
            from store_write import write

            write(self, game, mode, line, header[1], self._tmp_newer)
        finally:
            sys.modules.pop("store_write", None)  # loaded again for the next whole record
        self.writes += 1
        self._tmp_newer = False
        self._base = self.seq
        self._held = game
        self._moves = (game.ply(), game.last_move())
        self._header = header
        self._clock = line
        self._seen.clear()

    # ------------------------------------------------------------------ loading

    def load(self):
        """The saved game as (start_fen, [uci, ...], mode), or None when nothing was saved: the
        game resume() would resume.

        Raises StoreError with a clear message when no complete record replays; the caller then
        starts a new game."""
        got = self.resume()
        if got is None:
            return None
        game, mode, notes = got
        return game.start_fen, game.uci_moves(), mode

    def resume(self):
        """The saved game replayed, the journal's changes included: (game, mode, notes), or None
        when nothing was saved. notes: what a person should be told (a newer record that did not
        replay, a journal cut short, moves recorded past the end of the game, a refused result).
        Raises StoreError when no complete record replays."""
        self._loaded = None
        self.result = None
        self.opponent = None
        self.clock = None
        for path in (self.path, self.tmp):
            try:
                self.open(path, "rb").close()
                break  # something to read
            except OSError as e:
                if not e.args or e.args[0] != 2:  # ENOENT
                    break  # the reader says what is wrong with it
        else:
            return None  # nothing saved: the reader need not load (a new board)
        try:
            from store_read import read

            seq, got = read(self)
        finally:
            sys.modules.pop("store_read", None)  # power-up only: its code need not stay in RAM
        if seq > self.seq:
            self.seq = seq  # the next record outnumbers every record on the flash
        if got is None:
            return None
        game, mode, notes, self.result, self.opponent, self.clock, line, self._base, journal, from_tmp = got
        self._loaded = (game.start_fen, game.ply(), game.repetition_key())
        # A journal cut short, or the record still in PATH.tmp: the next change writes the whole game.
        self._held = None if journal is None or from_tmp else game
        self._moves = (game.ply(), game.last_move())
        self._header = _header(game, mode, self.opponent, line)
        self._clock = line
        self._seen.clear()
        self._next = (self._base,) + journal if journal else None
        self._tmp_newer = from_tmp
        return game, mode, notes

    def apply_result(self, game):
        """Give `game` the resignation/agreement/claim the loaded record ended with (the moves
        alone cannot show it). Only when `game` is the loaded one; returns True when applied. A
        claimed draw is applied only where the position offers the claim (FIDE 9.2, 9.3)."""
        r = self.result
        if r is None or self._loaded is None or game.is_over():
            return False
        if (game.start_fen, game.ply(), game.repetition_key()) != self._loaded:
            return False
        try:
            from store_read import apply_result

            return apply_result(game, r)
        finally:
            sys.modules.pop("store_read", None)


def _header(game, mode, opponent, line):
    """What a whole record says besides the moves: (mode, (result, reason) of a result the moves
    cannot show or None, the engine's side and level, the clock's control or None)."""
    return (
        mode,
        (game.result, game.reason) if game.reason in _FORCED else None,
        opponent,
        line[: line.find(" ")] if line else None,
    )
