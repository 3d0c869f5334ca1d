# The saved game: one small text record on the Pico's flash, replaced atomically after every move.
#
# A power cut at any instant must lose at most the move being saved, and must never leave a file
# that loads as a different game. So save() never touches the record in place: it writes the whole
# record to PATH.tmp, closes it, then renames it over PATH.
#
# Why that is safe on the Pico: MicroPython's rp2 port mounts its flash as littlefs v2
# (ports/rp2/modules/_boot.py: vfs.VfsLfs2), and os.rename is lfs_rename (extmod/vfs_lfsx.c),
# which replaces an existing destination ("If the destination exists, it must match the source in
# type", lfs.h) as one metadata commit: littlefs is copy-on-write and "if power is lost the
# filesystem will fall back to the last known good state" (littlefs README). After a cut PATH is
# therefore the old record or the new one, never a mix. A file's data is committed when it is
# closed, so .tmp may be missing, empty or partly written; the checksum tells.
#
# Filesystems that refuse to rename over an existing file (FAT, which a Pico can be built with)
# get remove + rename; a cut between the two leaves only the complete .tmp, which load() then
# uses. More generally load() takes whichever of PATH and PATH.tmp is complete and newer (each
# record carries a save counter), so a cut after .tmp was closed but before the rename loses
# nothing at all. A record must also replay: its checksum only says the bytes are what was written,
# not that a well-checksummed but hostile or buggy record makes sense, so resume() replays the newer
# complete record and falls back to the other when its moves do not replay.
#
# The record (ASCII, one item per line):
#   chessboard-game 1                  format name and version
#   seq 42                             save counter: the newer of two complete records wins
#   mode strict                        strict | casual
#   start <FEN>                        the position the game started from
#   moves e2e4 e7e5 ...                the moves in UCI, 16 per line, as many lines as needed
#   result 1-0 resignation             only for results the moves cannot show: resignation,
#                                      agreement, claimed draw (checkmate etc. replay by themselves)
#   opponent black 3                   only when the board's engine plays: its side and level
#   clock 5+3 W B PW PB MW MB S R U IW IB   only with a clock (core/clock.py): the control, then each
#                                      side's ms at the start of its turn, period, moves in it, the
#                                      side to move (0/1), started (0/1), ms used of this turn, and
#                                      each side's completed illegal moves. Records without it (older
#                                      ones among them) are games without a clock; a clock line
#                                      that does not read is dropped with a note (the game loads).
#   end <bytes> <adler32>              length and Adler-32 of everything before this line
# A file cut short has no end line or a wrong length; a flipped bit changes the Adler-32 (a single
# bit error always changes its low half). Adler-32 is computed here in pure Python with small ints
# only (each half below 2**26), so it costs no heap ints on the Pico and gives the same value as
# zlib.adler32 on a PC.
from micropython import const

from core.game import (
    AGREEMENT,
    CLAIMED_DRAW,
    FLAG,
    FLAG_INSUFFICIENT,
    ILLEGAL_MOVES,
    ILLEGAL_MOVES_INSUFFICIENT,
    RESIGNATION,
    Game,
)
from core.position import BLACK, WHITE

FORMAT = "chessboard-game"
VERSION = const(1)
MODES = ("strict", "casual")
_FORCED = (RESIGNATION, AGREEMENT, CLAIMED_DRAW, FLAG, FLAG_INSUFFICIENT, ILLEGAL_MOVES, ILLEGAL_MOVES_INSUFFICIENT)
_MOVES_PER_LINE = const(16)
_ADLER_MOD = const(65521)
# A 600-ply game is about 3.7 kB; anything far bigger is not a record this firmware wrote, and
# reading it whole could exhaust the Pico's heap.
MAX_BYTES = const(16384)
_ENOENT = const(2)
# The save counter goes up once a save (a move): 2**30 saves is more than a board will ever make,
# and keeps the counter a small int on the Pico.
_MAX_SEQ = const(0x3FFFFFFF)
# What each result reason may come with: a resignation has a winner, an agreement or claim is a draw.
_RESULTS = {
    RESIGNATION: ("1-0", "0-1"),
    AGREEMENT: ("1/2-1/2",),
    CLAIMED_DRAW: ("1/2-1/2",),
    FLAG: ("1-0", "0-1"),
    FLAG_INSUFFICIENT: ("1/2-1/2",),
    ILLEGAL_MOVES: ("1-0", "0-1"),
    ILLEGAL_MOVES_INSUFFICIENT: ("1/2-1/2",),
}
_CLOCK_NUMBERS = const(11)


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


def _hex_sum(a, b):
    return "%04x%04x" % (b, a)


class GameStore:
    """save(game, mode) after every change; resume() -> (game, mode, notes) or None at power-up;
    load() -> (start_fen, [uci, ...], mode) or None, the same record as plain data.

    fs: the module with rename() and remove() (default `os`) plus, for a fake filesystem,
    open(path, mode); with the real `os` the built-in open() is used."""

    def __init__(self, path, fs=None):
        self.path = path
        self.tmp = path + ".tmp"
        if fs is None:
            import os

            self._fs = os
            self._open = open
        else:
            self._fs = fs
            self._open = fs.open
        self.seq = 0  # counter of the newest record seen or written
        self.result = None  # (result, reason) of a resignation/agreement/claim in the loaded record
        self.opponent = None  # "white 3" / "black 5": the board's engine in this game (engine/opponent.py)
        # The clock: clock_line() -> the text after "clock " to save, or None (set by the App), and
        # what the loaded record had: (control, (9 clock numbers), (illegal moves of white, black)).
        self.clock_line = None
        self.clock = None
        self._loaded = None  # (start_fen, moves) of the loaded record, for apply_result()

    # ------------------------------------------------------------------ saving

    def save(self, game, mode):
        """Write the game and mode; raises OSError when the flash cannot be written (full, worn)."""
        self.seq += 1
        lines = ["%s %d\n" % (FORMAT, VERSION), "seq %d\n" % self.seq, "mode %s\n" % mode]
        lines.append("start %s\n" % game.start_fen)
        moves = game.uci_moves()
        for i in range(0, len(moves), _MOVES_PER_LINE):
            lines.append("moves %s\n" % " ".join(moves[i : i + _MOVES_PER_LINE]))
        if game.reason in _FORCED:
            lines.append("result %s %s\n" % (game.result, game.reason))
        if self.opponent:
            lines.append("opponent %s\n" % self.opponent)
        clock = self.clock_line() if self.clock_line is not None else None
        if clock:
            lines.append("clock %s\n" % clock)
        f = self._open(self.tmp, "wb")
        try:
            a = 1
            b = 0
            size = 0
            for line in lines:
                data = line.encode()
                f.write(data)
                a, b = adler32(data, a, b)
                size += len(data)
            f.write(("end %d %s\n" % (size, _hex_sum(a, b))).encode())
        finally:
            f.close()  # littlefs commits the file's data here
        fs = self._fs
        try:
            fs.rename(self.tmp, self.path)
        except OSError:
            # FAT and Windows refuse to rename over an existing file; littlefs and POSIX replace it.
            fs.remove(self.path)
            fs.rename(self.tmp, self.path)

    # ------------------------------------------------------------------ loading

    def load(self):
        """The saved game as (start_fen, [uci, ...], mode), or None when nothing was saved: the
        record resume() would resume, with its moves up to the game's end.

        Raises StoreError with a clear message when no complete record replays; the caller then
        starts a new game."""
        got = self.resume()
        if got is None:
            return None
        game, mode, notes = got
        return game.start_fen, game.uci_moves(), mode

    def resume(self):
        """The saved game replayed: (game, mode, notes), or None when nothing was saved. notes: what
        a person should be told (a newer record that did not replay, moves recorded past the end
        of the game, a refused result). Raises StoreError when no complete record replays."""
        self._loaded = None
        self.result = None
        self.opponent = None
        self.clock = None
        errors = []
        records = []
        for path in (self.path, self.tmp):  # .tmp is complete only if a save was cut before its rename
            try:
                record = self._read(path)
            except StoreError as e:
                if path == self.path:
                    errors.append(str(e))
                continue  # a .tmp cut short is what a power cut during a save leaves: the record stands
            if record is not None:
                if record[0] > self.seq:
                    self.seq = record[0]  # the next save outnumbers every record on the flash
                records.append((record, path))
        # Newest first: a complete .tmp newer than the record is a save cut before its rename.
        if len(records) == 2 and records[1][0][0] > records[0][0][0]:
            records.reverse()
        notes = []
        for record, path in records:
            seq, mode, fen, moves, result, opponent, clock = record
            try:
                game, past_end = _replay(fen, moves)
            except ValueError as e:
                errors.append("%s: does not replay (%s)" % (path, e))
                continue
            if errors:
                notes.append("; ".join(errors) + ": using %s" % path)
            if past_end:
                notes.append(
                    "%s: the game ended after %d moves (%s); the %d moves recorded after that are ignored"
                    % (path, game.ply(), game.reason, past_end)
                )
            if isinstance(clock, str):  # a clock line that does not read: the game goes on without
                notes.append(clock + ": the game goes on without a clock")
                clock = None
            self.result = result
            self.opponent = opponent
            self.clock = clock
            self._loaded = (game.start_fen, game.uci_moves())
            if result is not None and not game.is_over() and not self.apply_result(game):
                notes.append("%s: refused its result %s %s: %s" % (path, result[0], result[1], "no draw can be claimed in this position"))
            return game, mode, notes
        if errors:
            raise StoreError("; ".join(errors))
        return None

    def apply_result(self, game):
        """Give `game` the resignation/agreement/claim the loaded record ended with (the moves
        alone cannot show it). Only when `game` is the loaded one; returns True when applied. A
        claimed draw is applied only where the position offers the claim (FIDE 9.2, 9.3)."""
        r = self.result
        if r is None or self._loaded is None or game.is_over():
            return False
        fen, moves = self._loaded
        if game.start_fen != fen or game.uci_moves() != moves:
            return False
        result, reason = r
        if reason == RESIGNATION:
            game.resign(WHITE if result == "0-1" else BLACK)
        elif reason == CLAIMED_DRAW:
            game.claim_draw()
        elif reason == AGREEMENT:
            game.agree_draw()
        else:
            game.declare(result, reason)  # an arbiter's decision: a flag fall, illegal moves
        return game.is_over()

    def _read(self, path):
        """(seq, mode, fen, moves, result, opponent, clock) from one file, None if it does not exist."""
        try:
            f = self._open(path, "rb")
        except OSError as e:
            if e.args and e.args[0] == _ENOENT:
                return None
            raise StoreError("%s: cannot be read (%s)" % (path, e))
        try:
            data = f.read(MAX_BYTES + 1)
        except OSError as e:
            raise StoreError("%s: cannot be read (%s)" % (path, e))
        finally:
            f.close()
        return parse(data, path)


def _replay(fen, moves):
    """(the game the record describes, how many recorded moves came after its end). Raises
    ValueError (FenError among them) when the start position or a move is refused. Moves after the
    game ended (checkmate, a fivefold repetition, the 75-move rule...) are not played: no game goes
    on past its end (FIDE 5, 9.6)."""
    game = Game(fen)
    for i in range(len(moves)):
        if game.is_over():
            return game, len(moves) - i
        try:
            game.push_uci(moves[i])
        except ValueError as e:
            raise ValueError("move %d, %s: %s" % (i + 1, moves[i][:8], e))
    return game, 0


def parse(data, name="saved game"):
    """(seq, mode, fen, moves, result, opponent, clock) from a record's bytes; raises StoreError saying
    what is wrong. clock: None, (control, 9 clock numbers, 2 illegal-move counts), or the text of
    what is wrong with the clock line (not fatal: the moves are the game, the clock only its times)."""
    if not data:
        raise StoreError("%s: empty file (the save was cut off before anything was written)" % name)
    if len(data) > MAX_BYTES:
        raise StoreError("%s: over %d bytes, not a saved game" % (name, MAX_BYTES))
    # The end line: the last line, complete with its newline.
    if data[-1:] != b"\n":
        raise StoreError("%s: truncated (the last line is incomplete)" % name)
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1  # start of the last line
    last = data[cut:-1].split()
    if len(last) != 3 or last[0] != b"end":
        raise StoreError("%s: truncated (no end line: the save was cut off)" % name)
    try:
        size = int(last[1])
        stored = last[2].decode()
        int(stored, 16)
    except (ValueError, UnicodeError):
        raise StoreError("%s: corrupt end line" % name)
    if size != cut:
        raise StoreError("%s: truncated or corrupt (end line says %d bytes, found %d)" % (name, size, cut))
    a, b = adler32(data[:cut])
    if _hex_sum(a, b) != stored:
        raise StoreError(
            "%s: corrupt (checksum %s, expected %s: the flash changed under the file)" % (name, _hex_sum(a, b), stored)
        )
    # The checksum matched, so every byte is what save() wrote: from here on an error means a
    # record from another firmware version, not damage.
    try:
        text = data[:cut].decode()
    except UnicodeError:
        raise StoreError("%s: not ASCII text" % name)
    lines = text.split("\n")
    head = lines[0].split()
    if len(head) != 2 or head[0] != FORMAT:
        raise StoreError("%s: not a saved game (starts with %r)" % (name, lines[0][:40]))
    if head[1] != str(VERSION):
        raise StoreError("%s: saved in format %s, this firmware reads format %d" % (name, head[1], VERSION))
    seq = -1
    mode = None
    fen = None
    moves = []
    result = None
    opponent = None
    clock = None
    for line in lines[1:]:
        if not line:
            continue
        parts = line.split(" ", 1)
        key = parts[0]
        value = parts[1] if len(parts) > 1 else ""
        if key == "seq":
            try:
                seq = int(value) if len(value) < 11 else -1
            except ValueError:
                seq = -1
            if not 0 <= seq <= _MAX_SEQ:
                raise StoreError("%s: bad save counter %r" % (name, value[:40]))
        elif key == "mode":
            if value not in MODES:
                raise StoreError("%s: unknown mode %r" % (name, value[:40]))
            mode = value
        elif key == "start":
            fen = value
        elif key == "moves":
            moves.extend(value.split())
        elif key == "result":
            words = value.split()
            if len(words) != 2 or words[1] not in _RESULTS or words[0] not in _RESULTS[words[1]]:
                raise StoreError("%s: bad result line %r" % (name, value[:40]))
            result = (words[0], words[1])
        elif key == "opponent":
            words = value.split()
            if len(words) != 2 or words[0] not in ("white", "black") or words[1] not in "12345678" or len(words[1]) != 1:
                raise StoreError("%s: bad opponent line %r" % (name, value[:40]))
            opponent = value
        elif key == "clock":
            clock = _parse_clock(value, name)
        else:
            raise StoreError("%s: unknown line %r" % (name, line[:40]))
    if seq < 0 or mode is None or fen is None:
        raise StoreError("%s: incomplete record (seq, mode or start missing)" % name)
    return seq, mode, fen, moves, result, opponent, clock


def _parse_clock(value, name):
    """(control, 9 clock numbers, 2 illegal-move counts), or the text saying the line is bad."""
    words = value.split()
    bad = "%s: bad clock line %r" % (name, value[:60])
    if len(words) != 1 + _CLOCK_NUMBERS:
        return bad
    from core.clock import Clock, parse_control

    try:
        numbers = tuple(int(w) if len(w) < 10 else -1 for w in words[1:])
        Clock(parse_control(words[0])).restore(numbers[:9])  # checks the numbers fit the control
    except ValueError:
        return bad
    if not (0 <= numbers[9] <= 2 and 0 <= numbers[10] <= 2):
        return bad
    return words[0], numbers[:9], numbers[9:]
