# Pseudo-legal move generation into a preallocated array, for the search.
#
# core/position.py generates *legal* moves into a Python list: right for the referee and the LEDs,
# but a list grows and shrinks on the heap, and the search visits thousands of positions. Here the
# moves go into one array("i") shared by all plies (each ply owns the slice after its parent's),
# so a node allocates nothing. They are pseudo-legal: a move may still leave the mover's king in
# check; the search makes it, asks position.attacked() and takes it back, which is cheaper than
# finding pins for the many nodes that are cut off after their first move or two. Castling is the
# exception: it is checked in full here (no check, no attacked square crossed), because making it
# does not show that the king passed through check.
#
# The move encoding is the rules core's (from88 | to88 << 7 | flag << 14), so a move found here is
# the same int the referee, the LEDs and python-chess-checked tests see. Each array entry also
# carries the move's ordering key above bit 17 (key << 17 | move), written here where the victim and
# the mover are at hand: captures by most valuable victim, then least valuable attacker (MVV-LVA),
# queen promotions above them, quiet moves by their history score. The search then only raises the
# hash move and the killers. Keys stay below 2**13, so an entry stays a small int.
from micropython import const

from core.position import (
    KING,
    MOVE_CASTLING,
    MOVE_DOUBLE_PUSH,
    MOVE_EN_PASSANT,
    PAWN,
    WHITE,
)

_FLAG_PROMOTE_QUEEN = const(7 << 14)
_FLAG_PROMOTE_KNIGHT = const(4 << 14)
_FLAG_PROMOTE_ROOK = const(6 << 14)
_FLAG_PROMOTE_BISHOP = const(5 << 14)
_FLAG_DOUBLE = const(1 << 14)  # MOVE_DOUBLE_PUSH
_FLAG_EP = const(2 << 14)  # MOVE_EN_PASSANT
_FLAG_CASTLE = const(3 << 14)  # MOVE_CASTLING

_KNIGHT_STEPS = (33, 31, 18, 14, -14, -18, -31, -33)
_KING_STEPS = (16, -16, 1, -1, 17, 15, -15, -17)
_ROOK_STEPS = (16, -16, 1, -1)
_PAWN_SIDES = (-1, 1)  # a pawn takes one file to either side (a constant tuple: no allocation)
_BISHOP_STEPS = (17, 15, -15, -17)
# Steps per piece type (index = type); pawns are handled apart.
_STEPS = (None, None, _KNIGHT_STEPS, _BISHOP_STEPS, _ROOK_STEPS, _KING_STEPS, _KING_STEPS)
_SLIDES = (False, False, False, True, True, True, False)

# Room a single position's moves may need (the most known is 218).
MAX_MOVES_PER_POSITION = const(256)

KEY_PROMOTE = const(7000)
KEY_CAPTURE = const(6000)
# Victim values for MVV-LVA (x8, so that the attacker's type 1-6 only breaks ties).
_VICTIM = bytes((0, 8, 24, 25, 40, 72, 0, 0))
_Q = const(7000 << 17 | 7 << 14)  # key and flag of a queen promotion
_UNDER = const(100 << 17)  # under-promotions last: they are almost never the best move
_EP_KEY = const((6000 + 8 - 1) << 17 | 2 << 14)
_CASTLE_KEY = const(3000 << 17)  # before most quiet moves: the king's safety usually comes first


def generate(pos, buf, n, in_check, captures_only, history, pieces, first, count):
    """Write the side to move's pseudo-legal moves into buf from index n; return the new end.
    captures_only (quiescence): captures, en passant and promotions to a queen only.
    history: array of quiet-move scores by piece << 7 | destination (0x88).
    pieces[first:first + count]: the 0x88 squares of the side to move's pieces."""
    b = pos.board
    us = pos.side
    them = us ^ 8
    ep = pos.ep
    if us == WHITE:
        fwd = 16
        last = 0x60
        home = 0x10
    else:
        fwd = -16
        last = 0x10
        home = 0x60
    for i in range(first, first + count):
        frm = pieces[i]
        p = b[frm]
        kind = p & 7
        if kind == PAWN:
            rank = frm & 0x70
            t = frm + fwd
            if rank == last:
                if not b[t]:
                    m = frm | t << 7
                    buf[n] = m | _Q
                    n += 1
                    if not captures_only:
                        n = _under_promotions(buf, n, m)
                for d in _PAWN_SIDES:
                    t = frm + fwd + d
                    if not t & 0x88 and b[t] and b[t] & 8 == them:
                        m = frm | t << 7
                        buf[n] = (m | _Q) + (_VICTIM[b[t] & 7] << 17)
                        n += 1
                        if not captures_only:
                            n = _under_promotions(buf, n, m)
                continue
            if not captures_only and not b[t]:
                h = p << 7
                buf[n] = frm | t << 7 | history[h | t] << 17
                n += 1
                if rank == home and not b[t + fwd]:
                    buf[n] = frm | (t + fwd) << 7 | _FLAG_DOUBLE | history[h | (t + fwd)] << 17
                    n += 1
            for d in _PAWN_SIDES:
                t = frm + fwd + d
                if t & 0x88:
                    continue
                c = b[t]
                if c:
                    if c & 8 == them:
                        buf[n] = frm | t << 7 | (KEY_CAPTURE - PAWN + _VICTIM[c & 7]) << 17
                        n += 1
                elif t == ep:
                    buf[n] = frm | t << 7 | _EP_KEY
                    n += 1
            continue
        slides = _SLIDES[kind]
        h = p << 7
        attacker = KEY_CAPTURE - kind
        for d in _STEPS[kind]:
            t = frm + d
            while not t & 0x88:
                c = b[t]
                if c:
                    if c & 8 == them:
                        buf[n] = frm | t << 7 | (attacker + _VICTIM[c & 7]) << 17
                        n += 1
                    break
                if not captures_only:
                    buf[n] = frm | t << 7 | history[h | t] << 17
                    n += 1
                if not slides:
                    break
                t += d
        if kind == KING and not in_check and not captures_only and pos.castling:
            n = castling_moves(pos, b, frm, us, them, buf, n)
    return n


def _under_promotions(buf, n, m):
    """The pawn move m promoting to knight, rook and bishop (ordered last), written at n."""
    buf[n] = m | _FLAG_PROMOTE_KNIGHT | _UNDER
    buf[n + 1] = m | _FLAG_PROMOTE_ROOK | _UNDER
    buf[n + 2] = m | _FLAG_PROMOTE_BISHOP | _UNDER
    return n + 3


def castling_moves(pos, b, k, us, them, buf, n):
    """Castling moves of the king on k (not in check), checked in full (FIDE 3.8.2)."""
    rights = pos.castling >> (0 if us == WHITE else 2)
    base = k & 0x70  # the king's rank: castling rights imply the king stands on e1/e8
    if rights & 1 and not b[base + 5] and not b[base + 6]:
        if not pos.attacked(base + 5, them) and not pos.attacked(base + 6, them):
            buf[n] = k | (base + 6) << 7 | _FLAG_CASTLE | _CASTLE_KEY
            n += 1
    if rights & 2 and not b[base + 3] and not b[base + 2] and not b[base + 1]:
        if not pos.attacked(base + 3, them) and not pos.attacked(base + 2, them):
            buf[n] = k | (base + 2) << 7 | _FLAG_CASTLE | _CASTLE_KEY
            n += 1
    return n


def is_capture(pos, m):
    """Does m take a piece (en passant included)? Ask before making it."""
    return bool(pos.board[(m >> 7) & 127]) or (m >> 14) == MOVE_EN_PASSANT
