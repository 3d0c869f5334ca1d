# What the engine knows about chess: piece values and piece-square tables, middlegame and endgame.
#
# One array("h") per game phase, indexed by piece type << 7 | 0x88 square, from white's side of
# the board (a black piece looks up its square mirrored: sq ^ 0x70). Each entry is the piece's
# value on that square in centipawns, material included, so the evaluation is one lookup per
# piece. The search keeps the sums incrementally (engine/search.py) and blends the two by the
# material left (the "phase": 24 with all pieces on, 0 with only kings and pawns), which is the
# taper: a king that hides in the middlegame walks to the centre in the endgame, a pawn that is
# worth little on the fifth rank with queens on is worth a lot there once they are off.
#
# The tables are built here from a few rules a chess coach would state (knights and bishops want
# the centre, rooks the seventh rank, centre pawns want to advance, the king stays castled until
# the endgame), 2 x 7 x 128 entries = 3.5 KB, instead of pasting tuned numbers from elsewhere.
from array import array

from micropython import const

from core.position import BISHOP, KING, KNIGHT, PAWN, QUEEN, ROOK

# Material left, for the taper: minor pieces 1, rooks 2, queens 4; 24 is the opening.
PHASE_FULL = const(24)
PHASE = bytes((0, 0, 1, 1, 2, 4, 0, 0))

# Rough values, the same in both phases, for move ordering and pruning margins (MVV-LVA).
VALUE = (0, 100, 320, 330, 500, 950, 0, 0)


def _tables():
    mg = array("h", range(8 * 128))  # sized once (no temporary buffer); every entry is set below
    eg = array("h", range(8 * 128))
    for i in range(8 * 128):
        mg[i] = eg[i] = 0
    pawn_mg_advance = (0, 0, 2, 6, 14, 28, 60, 0)
    pawn_eg_advance = (0, 0, -4, 4, 18, 40, 85, 0)
    king_home = (10, 25, 20, -5, 0, -5, 30, 15)  # castled on g1/b1-c1 is best, the e-file is open soon
    for r in range(8):
        for f in range(8):
            sq = r * 16 + f
            cf = f if f < 4 else 7 - f  # 0 on the edge, 3 in the centre
            cr = r if r < 4 else 7 - r
            c = cf + cr  # 0 in a corner, 6 on d4/e4/d5/e5
            # Pawns: advance, the centre ones most; the king's shield stays home in the middlegame.
            if 1 <= r <= 6:
                m = 82 + pawn_mg_advance[r]
                if f == 3 or f == 4:
                    m += (0, -15, 10, 20, 22, 10, 0, 0)[r]
                elif f == 2 or f == 5:
                    m += (0, 0, 6, 6, 4, 0, 0, 0)[r]
                if f >= 5 and r == 1:
                    m += 8
                mg[PAWN << 7 | sq] = m
                eg[PAWN << 7 | sq] = 100 + pawn_eg_advance[r]
            # Knights: a knight on the rim is dim; a knight deep in the enemy camp is strong.
            mg[KNIGHT << 7 | sq] = 295 + 10 * c + (8 if 4 <= r <= 5 and 2 <= f <= 5 else 0) - (8 if r == 0 else 0)
            eg[KNIGHT << 7 | sq] = 280 + 8 * c
            # Bishops: the long diagonals and the centre; leaving the back rank is development.
            m = 325 + 4 * c + (10 if f == r or f + r == 7 else 0) - (10 if r == 0 else 0)
            mg[BISHOP << 7 | sq] = m
            eg[BISHOP << 7 | sq] = 315 + 5 * c
            # Rooks: the seventh rank; at home the centre files, where they soon find open lines.
            mg[ROOK << 7 | sq] = 470 + (20 if r == 6 else 0) + (8 if r == 0 and 2 <= f <= 5 else 0)
            eg[ROOK << 7 | sq] = 515 + (10 if r == 6 else 0)
            # Queen: a little centralisation; in the endgame much more.
            mg[QUEEN << 7 | sq] = 940 + 2 * c - (6 if r >= 3 else 0)
            eg[QUEEN << 7 | sq] = 925 + 6 * c
            # King: behind its pawns in the middlegame, to the centre in the endgame.
            if r == 0:
                m = king_home[f]
            elif r == 1:
                m = -10
            else:
                m = -30 - 10 * (r - 2)
                if m < -60:
                    m = -60
            mg[KING << 7 | sq] = m
            eg[KING << 7 | sq] = -40 + 12 * c
    return mg, eg


MG, EG = _tables()
