# The 0x88 board's tables, shared by core/position.py and the two versions of its hot paths
# (core/position_plain.py in Python, core/position_native.py in viper): a leaf module, importing
# nothing of the project, so that none of the three imports another to reach them.
#
# Squares are 0x88 indices (rank * 16 + file) unless a name says 64; see core/position.py.
from array import array

from micropython import const

# The undo stack grows by 32 plies (3 words each) at a time. The zeros stay allocated: making them
# anew at each growth would leave 384-byte holes in the heap.
STACK_CHUNK = bytes(4 * 3 * 32)

KNIGHT_STEPS = (33, 31, 18, 14, -14, -18, -31, -33)
KING_STEPS = (16, -16, 1, -1, 17, 15, -15, -17)
PAWN_DIAGONALS = (15, 17)

# The 64 board squares in 0x88, a1 first, and the conversions both ways.
SQUARES88 = bytes(r * 16 + f for r in range(8) for f in range(8))
SQ88 = SQUARES88
SQ64 = bytearray(128)
for _i in range(64):
    SQ64[SQUARES88[_i]] = _i
del _i

# For a difference to - from (+119 so that it indexes from 0):
# LINE: the absolute unit step if the squares share a rank, file or diagonal (1, 16, 15, 17), else 0.
# ATTACKS: which piece types could attack along that difference on an empty board, one bit per type
# (bit PAWN is for a white pawn; black pawns are looked up with the difference negated).
LINE = bytearray(239)
ATTACKS = bytearray(239)


def _fill_tables():
    pawn, knight, bishop, rook, queen, king = 1, 2, 3, 4, 5, 6  # core/position.py's piece types
    for step in KING_STEPS:
        a = abs(step)
        slider = (1 << rook) if a in (1, 16) else (1 << bishop)
        for n in range(1, 8):
            d = step * n + 119
            LINE[d] = a
            ATTACKS[d] |= slider | (1 << queen)
            if n == 1:
                ATTACKS[d] |= 1 << king
    for step in KNIGHT_STEPS:
        ATTACKS[step + 119] |= 1 << knight
    ATTACKS[15 + 119] |= 1 << pawn
    ATTACKS[17 + 119] |= 1 << pawn


_fill_tables()
del _fill_tables  # run once: its bytecode need not stay in the Pico's RAM


def _castle_keep():
    """The castling rights that survive a move from or to each square (a king or rook leaving or
    being captured)."""
    white_kingside, white_queenside, black_kingside, black_queenside = 1, 2, 4, 8  # core/position.py's bits
    keep = bytearray(b"\x0f" * 128)
    keep[0x04] = 0x0F & ~(white_kingside | white_queenside)  # e1
    keep[0x07] = 0x0F & ~white_kingside  # h1
    keep[0x00] = 0x0F & ~white_queenside  # a1
    keep[0x74] = 0x0F & ~(black_kingside | black_queenside)  # e8
    keep[0x77] = 0x0F & ~black_kingside  # h8
    keep[0x70] = 0x0F & ~black_queenside  # a8
    return keep


CASTLE_KEEP = _castle_keep()
del _castle_keep

# Zobrist keys below 2**30 so that they stay small ints on a 32-bit MicroPython. A fixed
# xorshift generator makes the keys identical on every runtime (and across saved games).
# Layout of the table: 16 piece codes x 64 squares, then one key per castling-rights state (so a
# change of rights costs two xors), then one per en-passant file, then the side to move.
Z_CASTLE = const(1024)
Z_EN_PASSANT = const(1040)


def _zobrist_table():
    table = array("i", range(1049))
    x = 0x2545F491 & 0x3FFFFFFF
    for i in range(1049):
        # xorshift32 kept within 30 bits: each shift masked before it is made, so x and every
        # step stay small ints (x << 13 of a 30-bit x would be a heap int on a 32-bit MicroPython,
        # and the 1049 keys left kilobytes of them as garbage at every boot).
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        table[i] = x
    return table


ZOBRIST = _zobrist_table()
del _zobrist_table
Z_SIDE = ZOBRIST[1048]
