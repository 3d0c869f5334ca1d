# The whole saved game: one small text record, written to PATH.tmp and renamed over PATH. store.py
# says when (a new game, a result, the journal grown long...); this module is loaded for each
# whole record and dropped again, so the boards keep only store.py in RAM.
#
# A power cut at any instant must lose at most the change being saved, and must never leave a file
# that loads as a different game. So write() never touches the record in place: it writes the
# whole record to PATH.tmp, closes it, then renames it over PATH.
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
# get remove + rename; a cut between the two leaves only the complete .tmp, which power-up then
# uses. More generally power-up takes whichever of PATH and PATH.tmp is complete and newer (each
# record carries a save counter), so a cut after .tmp was closed but before the rename loses
# nothing at all; the next whole record then renames that .tmp over PATH before it writes its own,
# so that a second cut cannot leave the older PATH alone. A record must also replay: its checksum
# only says the bytes are what was written, not that a well-checksummed but hostile or buggy
# record makes sense, so power-up replays the newer complete record and falls back to the other
# when its moves do not replay (store_read.py).
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
# bit error always changes its low half). Adler-32 is computed in pure Python with small ints only
# (store.adler32: each half below 2**26), so it costs no heap ints on the Pico and gives the same
# value as zlib.adler32 on a PC.
from micropython import const

from store import FORMAT, VERSION, adler32

_MOVES_PER_LINE = const(16)


def write(store, game, mode, clock, result, first=False):
    """Write `game` and `mode` whole as record number store.seq, with its `result` ((result, reason)
    the moves cannot show, or None), store.opponent and the clock line `clock` (or None). first:
    the record to keep is still in PATH.tmp (the game resumed from it): it goes over PATH first.
    Raises OSError when the flash cannot be written."""
    fs = store.fs
    for whole in (False, True) if first else (True,):
        if whole:
            lines = ["%s %d\n" % (FORMAT, VERSION), "seq %d\n" % store.seq, "mode %s\n" % mode]
            lines.append("start %s\n" % game.start_fen)
            moves = game.uci_moves()
            for i in range(0, len(moves), _MOVES_PER_LINE):
                lines.append("moves %s\n" % " ".join(moves[i : i + _MOVES_PER_LINE]))
            if result:
                lines.append("result %s %s\n" % result)
            if store.opponent:
                lines.append("opponent %s\n" % store.opponent)
            if clock:
                lines.append("clock %s\n" % clock)
            f = store.open(store.tmp, "wb")
            try:
                a = 1
                b = 0
                size = 0
                for line in lines:
                    data = line.encode()
                    f.write(data)
                    a, b = adler32(data, a, b)
                    size += len(data)
                f.write(("end %d %04x%04x\n" % (size, b, a)).encode())
            finally:
                f.close()  # littlefs commits the file's data here
        try:
            fs.rename(store.tmp, store.path)
        except OSError:
            # FAT and Windows refuse to rename over an existing file; littlefs and POSIX replace it.
            fs.remove(store.path)
            fs.rename(store.tmp, store.path)
