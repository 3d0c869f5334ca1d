# The 0x88 board's tables, shared by core/position.py and the two versions of its hot paths
# (core/position_plain.py in Python, core/position_native.py in viper): a leaf module, importing
# nothing of the project, so that none of the three imports another to reach them.
#
# Squares are 0x88 indices (rank * 16 + file) unless a name says 64; see core/position.py.
from array import array

from micropython import const

# core/position.py's piece types and castling bits, folded into the bytecode here.
_PAWN = const(1)
_KNIGHT = const(2)
_BISHOP = const(3)
_ROOK = const(4)
_QUEEN = const(5)
_KING = const(6)
_WHITE_KINGSIDE = const(1)
_WHITE_QUEENSIDE = const(2)
_BLACK_KINGSIDE = const(4)
_BLACK_QUEENSIDE = const(8)
_A1 = const(0)
_E1 = const(4)
_H1 = const(7)
_A8 = const(0x70)
_E8 = const(0x74)
_H8 = const(0x77)

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
    for step in KING_STEPS:
        a = abs(step)
        slider = (1 << _ROOK) if a in (1, 16) else (1 << _BISHOP)
        for n in range(1, 8):
            d = step * n + 119
            LINE[d] = a
            ATTACKS[d] |= slider | (1 << _QUEEN)
            if n == 1:
                ATTACKS[d] |= 1 << _KING
    for step in KNIGHT_STEPS:
        ATTACKS[step + 119] |= 1 << _KNIGHT
    ATTACKS[15 + 119] |= 1 << _PAWN
    ATTACKS[17 + 119] |= 1 << _PAWN


_fill_tables()
del _fill_tables  # run once: its bytecode need not stay in the Pico's RAM

# Castling rights that survive a move from or to each square (a king or rook leaving or being captured).
CASTLE_KEEP = bytearray(b"\x0f" * 128)
CASTLE_KEEP[_E1] = 0x0F & ~(_WHITE_KINGSIDE | _WHITE_QUEENSIDE)
CASTLE_KEEP[_H1] = 0x0F & ~_WHITE_KINGSIDE
CASTLE_KEEP[_A1] = 0x0F & ~_WHITE_QUEENSIDE
CASTLE_KEEP[_E8] = 0x0F & ~(_BLACK_KINGSIDE | _BLACK_QUEENSIDE)
CASTLE_KEEP[_H8] = 0x0F & ~_BLACK_KINGSIDE
CASTLE_KEEP[_A8] = 0x0F & ~_BLACK_QUEENSIDE

# Zobrist keys below 2**30 so that they stay small ints on a 32-bit MicroPython. A fixed
# xorshift generator makes the keys identical on every runtime (and across saved games).
# Layout of the table: 16 piece codes x 64 squares, then one key per castling-rights state (so a
# change of rights costs two xors), then one per en-passant file, then the side to move.
Z_CASTLE = const(1024)
Z_EN_PASSANT = const(1040)


def _zobrist_table():
    table = array("i", bytes(4 * 1049))
    x = 0x2545F491
    for i in range(1049):
        # xorshift32 kept within 30 bits
        x ^= (x << 13) & 0x3FFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0x3FFFFFFF
        table[i] = x
    return table


ZOBRIST = _zobrist_table()
del _zobrist_table
Z_SIDE = ZOBRIST[1048]
