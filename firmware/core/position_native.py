# The rules core's hot paths in native code (viper): make, unmake, the attack test and legal
# move generation, for the RP2040 (and the unix port, where the tests compare both paths).
#
# Why native: measured on the emulated RP2040 (MicroPython 1.27 rp2), the bytecode of
# core/position.py spends about 130 us on make() and as much on unmake(), 200 us on one attack
# test and 8-12 ms on a full legal-move list (every bytecode op costs 1-3 us on a Cortex-M0+):
# perft ran at 2,100 nodes/s for a target of 4,000. These functions do the same work on the same
# bytearray board, the same undo stack and the same move encoding, in the same order, so every
# runtime gives the same moves; position.py chooses them once at import where the native emitter
# exists (CPython has none, and MicroPython's WebAssembly build refuses @micropython.viper with a
# SyntaxError at import) and keeps its plain Python for the others.
#
# Viper notes: ptr8 loads are unsigned, so the step tables hold step + 64; a viper function takes
# at most four arguments; attributes of the position (self.side, ...) stay Python ints, as the
# referee, the game and the engine read and write them directly.
import sys
from array import array

import micropython
from micropython import const

if sys.implementation.name != "micropython":
    raise ImportError("viper needs MicroPython's native emitter")  # CPython: position.py's Python

_WHITE = const(0)
_PAWN = const(1)
_KNIGHT = const(2)
_BISHOP = const(3)
_ROOK = const(4)
_QUEEN = const(5)
_KING = const(6)
_NO_SQUARE = const(0x88)
_EP = const(2)  # MOVE_EN_PASSANT
_DOUBLE = const(1)  # MOVE_DOUBLE_PUSH
_CASTLE = const(3)  # MOVE_CASTLING
_PROMOTE_KNIGHT = const(4)
_Z_CASTLE = const(1024)
_Z_SIDE = const(1048)

# 0-7: knight jumps; 8-15: king steps (8-11 rook lines, 12-15 bishop lines); all + 64.
_STEPS = bytes((97, 95, 82, 78, 50, 46, 33, 31, 80, 48, 65, 63, 81, 79, 49, 47))
# The part of _STEPS each piece type (knight .. king) moves along: first, last + 1.
_SPAN = bytes((0, 0, 0, 0, 0, 8, 12, 16, 8, 12, 8, 16, 8, 16))
# The candidate moves of one piece, before the pin and check filter (a queen has at most 27).
_BUF = array("i", bytes(4 * 32))

# Set by install() from core/position.py: the tables of core/position_tables.py.
_ATTACKS = None
_LINE = None
_ZOBRIST = None
_SQ64 = None
_KEEP = None
_CHUNK = None


@micropython.viper
def attacked(self, sq: int, by: int) -> bool:
    # Position.attacked's walk, to the first piece along each knight jump (one step) and each of
    # the eight lines: one of `by`'s pieces there attacks sq if _ATTACKS says its type reaches
    # that far in that direction (only a knight for a knight's jump).
    b = ptr8(self.board)
    steps = ptr8(_STEPS)
    atk = ptr8(_ATTACKS)
    i = 0
    while i < 16:
        d = steps[i] - 64
        t = sq + d
        while (t & 0x88) == 0:
            p = b[t]
            if p:
                if (p & 8) == by:
                    kind = p & 7
                    diff = sq - t
                    if kind == _PAWN and by != _WHITE:
                        diff = 0 - diff
                    if atk[diff + 119] & (1 << kind):
                        return True
                break
            if i < 8:
                break
            t += d
        i += 1
    return False


@micropython.viper
def make(self, m: int):
    b = ptr8(self.board)
    zob = ptr32(_ZOBRIST)
    sq64 = ptr8(_SQ64)
    frm = m & 127
    to = (m >> 7) & 127
    flag = m >> 14
    p = b[frm]
    cap = b[to]
    z = int(self.zkey)
    sp = int(self._sp)
    stack = self._stack
    if sp + 3 > int(len(stack)):
        stack.extend(_CHUNK)
    st = ptr32(stack)
    c = int(self.castling)
    half = int(self.halfmove)
    # The undo record of position.py: the move, the captured piece and old castling rights; old
    # en-passant square and clock; the key.
    st[sp] = m | cap << 17 | c << 21
    st[sp + 1] = int(self.ep) | half << 8
    st[sp + 2] = z
    self._sp = sp + 3
    us = int(self.side)
    b[frm] = 0
    b[to] = p
    z ^= zob[p << 6 | sq64[frm]] ^ zob[p << 6 | sq64[to]]
    if cap:
        z ^= zob[cap << 6 | sq64[to]]
        half = 0
    elif (p & 7) == _PAWN:
        half = 0
    else:
        half += 1
    self.halfmove = half
    ep = _NO_SQUARE
    if flag:
        if flag == _DOUBLE:
            ep = (frm + to) >> 1
        elif flag == _EP:
            v = to - 16 if us == _WHITE else to + 16
            cap = b[v]
            b[v] = 0
            z ^= zob[cap << 6 | sq64[v]]
        elif flag == _CASTLE:
            rf = to + 1 if to > frm else to - 2  # the rook: h-file or a-file
            rt = (frm + to) >> 1  # lands on the square the king crossed
            r = b[rf]
            b[rf] = 0
            b[rt] = r
            z ^= zob[r << 6 | sq64[rf]] ^ zob[r << 6 | sq64[rt]]
        else:
            q = (flag - 2) | us
            b[to] = q
            z ^= zob[p << 6 | sq64[to]] ^ zob[q << 6 | sq64[to]]
    self.ep = ep
    if (p & 7) == _KING:
        kings = ptr8(self.kings)
        kings[us] = to
    if c:
        keep = ptr8(_KEEP)
        n = c & keep[frm] & keep[to]
        if n != c:
            z ^= zob[_Z_CASTLE + c] ^ zob[_Z_CASTLE + n]
            self.castling = n
    if us != _WHITE:
        self.fullmove = int(self.fullmove) + 1
    self.side = us ^ 8
    self.zkey = z ^ zob[_Z_SIDE]


@micropython.viper
def unmake(self):
    st = ptr32(self._stack)
    sp = int(self._sp) - 3
    self._sp = sp
    self.zkey = st[sp + 2]
    w = st[sp + 1]
    self.ep = w & 255
    self.halfmove = w >> 8
    w = st[sp]
    self.castling = (w >> 21) & 15
    cap = (w >> 17) & 15
    frm = w & 127
    to = (w >> 7) & 127
    flag = (w >> 14) & 7
    b = ptr8(self.board)
    us = int(self.side) ^ 8
    self.side = us
    if us != _WHITE:
        self.fullmove = int(self.fullmove) - 1
    p = b[to]
    if flag >= _PROMOTE_KNIGHT:
        p = _PAWN | us
    b[frm] = p
    b[to] = cap
    if (p & 7) == _KING:
        kings = ptr8(self.kings)
        kings[us] = frm
        if flag == _CASTLE:
            rf = to + 1 if to > frm else to - 2
            rt = (frm + to) >> 1
            b[rf] = b[rt]
            b[rt] = 0
    elif flag == _EP:
        b[to - 16 if us == _WHITE else to + 16] = _PAWN | (us ^ 8)


@micropython.viper
def _legal(self, out, only: int) -> int:
    # Position.generate_legal: append the legal moves (of the piece on `only`, 0..63, if it is
    # not -1) to out, in core/position_plain.py's order; returns how many. Each piece's moves are
    # generated into _BUF, then kept if the king is safe with the move on the board; a piece off
    # every line through its king cannot uncover a check, so outside check its moves need no test.
    b = ptr8(self.board)
    buf = ptr32(_BUF)
    steps = ptr8(_STEPS)
    span = ptr8(_SPAN)
    line = ptr8(_LINE)
    us = int(self.side)
    them = us ^ 8
    kings = ptr8(self.kings)
    k = kings[us]
    check = int(attacked(self, k, them))
    ep = int(self.ep)
    if us == _WHITE:
        fwd = 16
        last = 0x60  # from the 7th rank a push promotes
        home = 0x10
    else:
        fwd = -16
        last = 0x10
        home = 0x60
    total = 0
    if only >= 0:
        sq = (only >> 3) << 4 | (only & 7)
        end = sq + 1
    else:
        sq = 0
        end = 0x78
    while sq < end:
        p = b[sq]
        if (sq & 8) or p == 0 or (p & 8) != us:
            sq += 1
            continue
        kind = p & 7
        n = 0
        ep_move = 0
        if kind == _PAWN:
            rank = sq & 0x70
            t = sq + fwd
            if b[t] == 0:
                buf[n] = sq | t << 7
                n += 1
                if rank == home and b[t + fwd] == 0:
                        buf[n] = sq | (t + fwd) << 7 | _DOUBLE << 14
                        n += 1
            side = -1
            while side <= 1:
                t = sq + fwd + side
                side += 2
                if t & 0x88:
                    continue
                c = b[t]
                if c and (c & 8) != us:
                    buf[n] = sq | t << 7
                    n += 1
                elif t == ep:
                    ep_move = sq | t << 7 | _EP << 14
        else:
            # Knights and kings step once along their lines, bishops, rooks and queens slide.
            i = span[kind * 2]
            stop = span[kind * 2 + 1]
            slide = 0
            if kind != _KNIGHT and kind != _KING:
                slide = 1
            while i < stop:
                d = steps[i] - 64
                t = sq + d
                while (t & 0x88) == 0:
                    c = b[t]
                    if c and (c & 8) == us:
                        break
                    buf[n] = sq | t << 7
                    n += 1
                    if c or slide == 0:
                        break
                    t += d
                i += 1
        safe = 0
        if kind != _KING and check == 0 and line[sq - k + 119] == 0:
            safe = 1
        j = 0
        while j < n:
            m = buf[j]
            j += 1
            if safe == 0:
                t = (m >> 7) & 127
                c = b[t]
                b[t] = p
                b[sq] = 0
                bad = attacked(self, t if kind == _KING else k, them)
                b[sq] = p
                b[t] = c
                if bad:
                    continue
            if kind == _PAWN and (sq & 0x70) == last:
                f = 7  # a promotion: queen, rook, bishop, knight, as position_plain.py lists them
                while f >= 4:
                    out.append(m | f << 14)
                    f -= 1
                total += 4
            else:
                out.append(m)
                total += 1
        if ep_move:
            # En passant empties two squares of the pawn's rank: always tried on the board.
            t = ep - fwd
            b[ep] = p
            b[sq] = 0
            b[t] = 0
            bad = attacked(self, k, them)
            b[sq] = p
            b[ep] = 0
            b[t] = _PAWN | them
            if not bad:
                out.append(ep_move)
                total += 1
        c = 0
        if kind == _KING:
            c = int(self.castling)
        if c and check == 0:
            e = sq  # e1 or e8: a king with a castling right has not moved
            if us != _WHITE:
                c = c >> 2
            # FIDE 3.8.2: king and rook unmoved, the squares between them empty, the king neither
            # in check nor passing or landing on an attacked square. Kingside first, as listed in
            # position_plain.py; the queenside rook also passes b1/b8, which may be attacked.
            wing = 1
            while wing >= -1:
                if (c & 1) and b[e + wing] == 0 and b[e + 2 * wing] == 0 and (wing == 1 or b[e - 3] == 0):
                    if not attacked(self, e + wing, them) and not attacked(self, e + 2 * wing, them):
                        out.append(e | (e + 2 * wing) << 7 | _CASTLE << 14)
                        total += 1
                c = c >> 1
                wing -= 2
        sq += 1
    return total


def generate_legal(self, out, only=-1):
    """Append the legal moves to the list `out` (of the piece on square `only` (0..63) if given).
    Returns out."""
    _legal(self, out, only)
    return out


def has_legal_move(self):
    """Is there at least one legal move? (SAN's mate sign asks it: a full list is cheap here)"""
    return _legal(self, [], -1) > 0


def install(cls, attacks, line, zobrist, sq64, keep, chunk):
    """Put the native make, unmake, attack test and generator on the Position class; the tables
    are core/position_tables.py's, handed over by core/position.py."""
    global _ATTACKS, _LINE, _ZOBRIST, _SQ64, _KEEP, _CHUNK
    _ATTACKS, _LINE, _ZOBRIST, _SQ64, _KEEP, _CHUNK = attacks, line, zobrist, sq64, keep, chunk
    cls.make = make
    cls.unmake = unmake
    cls.attacked = attacked
    cls.generate_legal = generate_legal
    cls.has_legal_move = has_legal_move
