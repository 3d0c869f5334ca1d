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
# nothing at all.
#
# The record (ASCII, one item per line):
#   chessboard-game 1                  format name and version
#   seq 42                             save counter: the newer of two complete records wins
#   mode strict                        strict | casual
#   start <FEN>                        the position the game started from
#   moves e2e4 e7e5 ...                the moves in UCI, 16 per line, as many lines as needed
#   result 1-0 resignation             only for results the moves cannot show: resignation,
#                                      agreement, claimed draw (checkmate etc. replay by themselves)
#   end <bytes> <adler32>              length and Adler-32 of everything before this line
# A file cut short has no end line or a wrong length; a flipped bit changes the Adler-32 (a single
# bit error always changes its low half). Adler-32 is computed here in pure Python with small ints
# only (each half below 2**26), so it costs no heap ints on the Pico and gives the same value as
# zlib.adler32 on a PC.
from micropython import const

from core.game import AGREEMENT, CLAIMED_DRAW, RESIGNATION
from core.position import BLACK, WHITE

FORMAT = "chessboard-game"
VERSION = const(1)
MODES = ("strict", "casual")
_FORCED = (RESIGNATION, AGREEMENT, CLAIMED_DRAW)
_MOVES_PER_LINE = const(16)
_ADLER_MOD = const(65521)
# A 600-ply game is about 3.7 kB; anything far bigger is not a record this firmware wrote, and
# reading it whole could exhaust the Pico's heap.
MAX_BYTES = const(16384)
_ENOENT = const(2)


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
    """save(game, mode) after every change; load() -> (start_fen, [uci, ...], mode) or None.

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
        """The saved game as (start_fen, [uci, ...], mode), or None when nothing was saved.

        Raises StoreError with a clear message when the record is truncated or corrupt and no
        complete copy exists; the caller then starts a new game."""
        error = None
        try:
            record = self._read(self.path)
        except StoreError as e:
            record = None
            error = e
        try:
            spare = self._read(self.tmp)  # complete only if a save was cut before its rename
        except StoreError:
            spare = None
        if spare is not None and (record is None or spare[0] > record[0]):
            record = spare
        if record is None:
            self._loaded = None
            self.result = None
            if error is not None:
                raise error
            return None
        seq, mode, fen, moves, result = record
        if seq > self.seq:
            self.seq = seq
        self.result = result
        self._loaded = (fen, moves)
        return fen, moves, mode

    def apply_result(self, game):
        """Give `game` the resignation/agreement/claim the loaded record ended with (the moves
        alone cannot show it). Only when `game` is the loaded one; returns True when applied."""
        r = self.result
        if r is None or self._loaded is None or game.is_over():
            return False
        fen, moves = self._loaded
        if game.start_fen != fen or game.uci_moves() != moves:
            return False
        result, reason = r
        if reason == RESIGNATION:
            game.resign(WHITE if result == "0-1" else BLACK)
        elif reason == CLAIMED_DRAW and game.claims:
            game.claim_draw()
        else:
            game.agree_draw()  # also a claimed draw whose claim the position no longer offers
        return game.is_over()

    def _read(self, path):
        """(seq, mode, fen, moves, result) from one file, None if it does not exist."""
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


def parse(data, name="saved game"):
    """(seq, mode, fen, moves, result) from a record's bytes; raises StoreError saying what is wrong."""
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
    for line in lines[1:]:
        if not line:
            continue
        parts = line.split(" ", 1)
        key = parts[0]
        value = parts[1] if len(parts) > 1 else ""
        if key == "seq":
            try:
                seq = int(value)
            except ValueError:
                raise StoreError("%s: bad save counter %r" % (name, value))
        elif key == "mode":
            if value not in MODES:
                raise StoreError("%s: unknown mode %r" % (name, value))
            mode = value
        elif key == "start":
            fen = value
        elif key == "moves":
            moves.extend(value.split())
        elif key == "result":
            words = value.split()
            if len(words) != 2 or words[1] not in _FORCED or words[0] not in ("1-0", "0-1", "1/2-1/2"):
                raise StoreError("%s: bad result line %r" % (name, value))
            result = (words[0], words[1])
        else:
            raise StoreError("%s: unknown line %r" % (name, line[:40]))
    if seq < 0 or mode is None or fen is None:
        raise StoreError("%s: incomplete record (seq, mode or start missing)" % name)
    return seq, mode, fen, moves, result
