# The rules core's hot paths in plain Python: make, unmake, the attack test and legal move
# generation, for the runtimes without a native emitter (CPython, MicroPython's WebAssembly build).
# core/position.py installs these on Position, or the viper ones of core/position_native.py where
# the runtime compiles them (the RP2040, the unix port); both give the same moves in the same order.
# Kept in a module of their own so that the Pico, which runs the native ones, does not hold this
# bytecode in its RAM too.
from micropython import const

from core.position_tables import (
    ATTACKS,
    CASTLE_KEEP,
    KING_STEPS,
    KNIGHT_STEPS,
    LINE,
    PAWN_DIAGONALS,
    SQ64,
    SQUARES88,
    STACK_CHUNK,
    Z_SIDE,
    ZOBRIST,
)

# position.py's piece codes, move kinds and castling bits, folded into the bytecode here.
_PAWN = const(1)
_KNIGHT = const(2)
_BISHOP = const(3)
_ROOK = const(4)
_QUEEN = const(5)
_KING = const(6)
_WHITE = const(0)
_BLACK = const(8)
_MOVE_DOUBLE_PUSH = const(1)
_MOVE_EN_PASSANT = const(2)
_MOVE_CASTLING = const(3)
_MOVE_PROMOTE_KNIGHT = const(4)
_WHITE_KINGSIDE = const(1)
_WHITE_QUEENSIDE = const(2)
_BLACK_KINGSIDE = const(4)
_BLACK_QUEENSIDE = const(8)
_NO_SQUARE = const(0x88)

_ROOK_STEPS = (16, -16, 1, -1)
_BISHOP_STEPS = (17, 15, -15, -17)
_SIDE_STEPS = (-1, 1)  # a pawn takes one file to either side
_Z_CASTLE = const(1024)  # position_tables.py's layout of ZOBRIST
_C1 = const(2)
_D1 = const(3)
_E1 = const(4)
_F1 = const(5)
_G1 = const(6)
_C8 = const(0x72)
_D8 = const(0x73)
_E8 = const(0x74)
_F8 = const(0x75)
_G8 = const(0x76)

# Scratch for legal move generation, allocated once: pin lines and check-evasion squares (0x88
# indices), the pinned pieces' squares and how many there are. Generation is not re-entered (the
# en-passant test inside it only makes and unmakes a move), so one set serves every position.
_PIN = bytearray(128)
_EVADE = bytearray(128)
_PINNED = bytearray(8)
_NPINS = bytearray(1)


def attacked(self, sq, by):
    """Is the 0x88 square attacked by the side `by` (_WHITE or _BLACK)? Allocates nothing.

    Walks the eight lines out of sq to the first piece on each: one of `by`'s pieces there
    attacks sq if ATTACKS says its type reaches that far in that direction (a slider at any
    distance, a king or pawn next to it). Knights jump, so they are looked up apart."""
    b = self.board
    n = _KNIGHT | by
    for d in KNIGHT_STEPS:
        t = sq + d
        if not t & 0x88 and b[t] == n:
            return True
    for d in KING_STEPS:
        t = sq + d
        while not t & 0x88:
            p = b[t]
            if p:
                if p & 8 == by:
                    kind = p & 7
                    diff = sq - t  # from the attacker to the square
                    if kind == _PAWN and by == _BLACK:
                        diff = -diff  # black pawns capture downwards: the table is white's
                    if ATTACKS[diff + 119] & (1 << kind):
                        return True
                break
            t += d
    return False


def make(self, m):
    """Play a move (assumed legal). Undo with unmake()."""
    b = self.board
    frm = m & 127
    to = (m >> 7) & 127
    flag = m >> 14
    p = b[frm]
    cap = b[to]
    z = self.zkey
    st = self._stack
    sp = self._sp
    if sp + 3 > len(st):
        st.extend(STACK_CHUNK)
    # Undo record: the move, the captured piece and old castling rights; old ep and clock; key.
    st[sp] = m | cap << 17 | self.castling << 21
    st[sp + 1] = self.ep | self.halfmove << 8
    st[sp + 2] = z
    self._sp = sp + 3
    us = self.side
    b[frm] = 0
    b[to] = p
    z ^= ZOBRIST[p << 6 | SQ64[frm]] ^ ZOBRIST[p << 6 | SQ64[to]]
    if cap:
        z ^= ZOBRIST[cap << 6 | SQ64[to]]
        self.halfmove = 0
    elif p & 7 == _PAWN:
        self.halfmove = 0
    else:
        self.halfmove += 1
    self.ep = _NO_SQUARE
    if flag:
        if flag == _MOVE_DOUBLE_PUSH:
            self.ep = (frm + to) >> 1
        elif flag == _MOVE_EN_PASSANT:
            v = to - 16 if us == _WHITE else to + 16
            cap = b[v]
            b[v] = 0
            z ^= ZOBRIST[cap << 6 | SQ64[v]]
        elif flag == _MOVE_CASTLING:
            if to > frm:
                rf = to + 1
                rt = to - 1
            else:
                rf = to - 2
                rt = to + 1
            r = b[rf]
            b[rf] = 0
            b[rt] = r
            z ^= ZOBRIST[r << 6 | SQ64[rf]] ^ ZOBRIST[r << 6 | SQ64[rt]]
        else:
            q = (flag - 2) | us
            b[to] = q
            z ^= ZOBRIST[p << 6 | SQ64[to]] ^ ZOBRIST[q << 6 | SQ64[to]]
    if p & 7 == _KING:
        self.kings[us] = to
    c = self.castling
    if c:
        n = c & CASTLE_KEEP[frm] & CASTLE_KEEP[to]
        if n != c:
            z ^= ZOBRIST[_Z_CASTLE + c] ^ ZOBRIST[_Z_CASTLE + n]
            self.castling = n
    if us == _BLACK:
        self.fullmove += 1
    self.side = us ^ 8
    self.zkey = z ^ Z_SIDE

def unmake(self):
    """Take back the last move made."""
    st = self._stack
    sp = self._sp - 3
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
    b = self.board
    us = self.side ^ 8
    self.side = us
    if us == _BLACK:
        self.fullmove -= 1
    p = b[to]
    if flag >= _MOVE_PROMOTE_KNIGHT:
        p = _PAWN | us
    b[frm] = p
    b[to] = cap
    if p & 7 == _KING:
        self.kings[us] = frm
        if flag == _MOVE_CASTLING:
            if to > frm:
                b[to + 1] = b[to - 1]
                b[to - 1] = 0
            else:
                b[to - 2] = b[to + 1]
                b[to + 1] = 0
    elif flag == _MOVE_EN_PASSANT:
        b[to - 16 if us == _WHITE else to + 16] = _PAWN | (us ^ 8)


def _prepare(self):
    """Find pins and checks on the side to move's king. Marks pinned pieces in self._pin with the
    line they are pinned along and, in single check, the squares that stop it in _EVADE.
    Returns the number of checkers (0, 1 or 2). Call _release() afterwards."""
    b = self.board
    us = self.side
    them = us ^ 8
    k = self.kings[us]
    pins = _PINNED
    npins = 0
    checks = 0
    evade = _EVADE
    # Pawns and knights can only check directly.
    pawn = _PAWN | them
    ahead = 1 if us == _WHITE else -1  # enemy pawns that check stand ahead of the king
    for d in PAWN_DIAGONALS:
        t = k + d * ahead
        if not t & 0x88 and b[t] == pawn:
            checks += 1
            evade[t] = 1
    n = _KNIGHT | them
    for d in KNIGHT_STEPS:
        t = k + d
        if not t & 0x88 and b[t] == n:
            checks += 1
            evade[t] = 1
    q = _QUEEN | them
    for d in KING_STEPS:
        slider = (_ROOK | them) if d == 16 or d == -16 or d == 1 or d == -1 else (_BISHOP | them)
        t = k + d
        mine = _NO_SQUARE
        while not t & 0x88:
            p = b[t]
            if p:
                if p & 8 == us:
                    if mine != _NO_SQUARE:
                        break
                    mine = t
                else:
                    if p == slider or p == q:
                        if mine == _NO_SQUARE:
                            checks += 1
                            s = k + d
                            while s != t:
                                evade[s] = 1
                                s += d
                            evade[t] = 1
                        else:
                            _PIN[mine] = d if d > 0 else -d
                            pins[npins] = mine
                            npins += 1
                    break
            t += d
    _NPINS[0] = npins
    return checks

def _pin_line(self, sq):
    """The line (1, 15, 16 or 17) along which the side to move's piece on sq is pinned to its
    king, or 0."""
    k = self.kings[self.side]
    d = sq - k
    line = LINE[d + 119]
    if not line:
        return 0
    step = line if d > 0 else -line
    b = self.board
    t = k + step
    while t != sq:
        if b[t]:
            return 0  # another piece stands between the king and this one
        t += step
    t += step
    while not t & 0x88:
        p = b[t]
        if p:
            if p & 8 == self.side:
                return 0
            kind = p & 7
            if kind == _QUEEN or kind == (_ROOK if line == 1 or line == 16 else _BISHOP):
                return line
            return 0
        t += step
    return 0

def _release(self):
    """Clear the scratch marks _prepare() set."""
    pins = _PINNED
    for i in range(_NPINS[0]):
        _PIN[pins[i]] = 0
    e = _EVADE
    for sq in SQUARES88:
        if e[sq]:
            e[sq] = 0

def generate_legal(self, out, only=-1):
    """Append the legal moves to the list `out` (of the piece on square `only` (0..63) if given).
    Returns out."""
    if only >= 0 and not self.attacked(self.kings[self.side], self.side ^ 8):
        # One piece, not in check (the LEDs on a lift): only this piece's pin matters, which
        # costs one walk along one line instead of eight.
        frm = SQUARES88[only]
        pin = _pin_line(self, frm)
        _PIN[frm] = pin
        _piece_moves(self, out, frm, 0)
        _PIN[frm] = 0
        return out
    checks = _prepare(self)
    if only < 0:
        b = self.board
        us = self.side
        for sq in SQUARES88:
            p = b[sq]
            if p and p & 8 == us:  # tested here: a call per empty square costs more than the test
                _piece_moves(self, out, sq, checks)
    else:
        _piece_moves(self, out, SQUARES88[only], checks)
    if checks:
        _release(self)
    elif _NPINS[0]:
        pins = _PINNED
        for i in range(_NPINS[0]):
            _PIN[pins[i]] = 0
    return out


def has_legal_move(self):
    """Is there at least one legal move? (stops at the first piece that has one)"""
    checks = _prepare(self)
    out = []
    found = False
    for sq in SQUARES88:
        if _piece_moves(self, out, sq, checks):
            found = True
            break
    if checks:
        _release(self)
    else:
        pins = _PINNED
        for i in range(_NPINS[0]):
            _PIN[pins[i]] = 0
    return found

def _piece_moves(self, out, frm, checks):
    """Append the legal moves of the piece on frm (if it belongs to the side to move).
    Returns how many were appended."""
    b = self.board
    p = b[frm]
    us = self.side
    if not p or p & 8 != us:
        return 0
    kind = p & 7
    start = len(out)
    en_passant = 0
    if kind == _KING:
        return _king_moves(self, out, frm, checks)
    if checks > 1:
        return 0  # double check: only the king may move
    if kind == _PAWN:
        if us == _WHITE:
            fwd = 16
            last = 0x60  # from the 7th rank a push promotes
            home = 0x10
        else:
            fwd = -16
            last = 0x10
            home = 0x60
        rank_base = frm & 0x70
        t = frm + fwd
        if not b[t]:
            if rank_base == last:
                for f in (7, 6, 5, 4):
                    out.append(frm | t << 7 | f << 14)
            else:
                out.append(frm | t << 7)
                if rank_base == home and not b[t + fwd]:
                    out.append(frm | (t + fwd) << 7 | _MOVE_DOUBLE_PUSH << 14)
        for side_step in _SIDE_STEPS:
            t = frm + fwd + side_step
            if t & 0x88:
                continue
            c = b[t]
            if c and c & 8 != us:
                if rank_base == last:
                    for f in (7, 6, 5, 4):
                        out.append(frm | t << 7 | f << 14)
                else:
                    out.append(frm | t << 7)
            elif t == self.ep:
                # En passant can uncover a check along the rank (both pawns leave it) or take a
                # checking pawn: it is rare, so it is tried on the board and added after the filter.
                m = frm | t << 7 | _MOVE_EN_PASSANT << 14
                self.make(m)
                if not self.attacked(self.kings[us], us ^ 8):
                    en_passant = m
                self.unmake()
    elif kind == _KNIGHT:
        if _PIN[frm]:
            return 0  # a pinned knight can never move
        for d in KNIGHT_STEPS:
            t = frm + d
            if not t & 0x88:
                c = b[t]
                if not c or c & 8 != us:
                    out.append(frm | t << 7)
    else:
        if kind == _BISHOP:
            steps = _BISHOP_STEPS
        elif kind == _ROOK:
            steps = _ROOK_STEPS
        else:
            steps = KING_STEPS
        for d in steps:
            t = frm + d
            while not t & 0x88:
                c = b[t]
                if c:
                    if c & 8 != us:
                        out.append(frm | t << 7)
                    break
                out.append(frm | t << 7)
                t += d
    pin = _PIN[frm]
    if pin or checks:
        # Keep only moves along the pin line and, in check, those that capture or block the checker.
        k = self.kings[us]
        evade = _EVADE
        j = start
        n = len(out)
        for i in range(start, n):
            m = out[i]
            t = (m >> 7) & 127
            if pin and LINE[t - k + 119] != pin:
                continue
            if checks and not evade[t]:
                continue
            out[j] = m
            j += 1
        while len(out) > j:
            out.pop()
    if en_passant:
        out.append(en_passant)
    return len(out) - start

def _king_moves(self, out, k, checks):
    b = self.board
    us = self.side
    them = us ^ 8
    n = 0
    b[k] = 0  # the king must not shield a square from a slider that checks it
    for d in KING_STEPS:
        t = k + d
        if not t & 0x88:
            c = b[t]
            if (not c or c & 8 != us) and not self.attacked(t, them):
                out.append(k | t << 7)
                n += 1
    b[k] = _KING | us
    if checks or not self.castling:
        return n
    c = self.castling
    if us == _WHITE:
        if c & _WHITE_KINGSIDE and not b[_F1] and not b[_G1] and not self.attacked(_F1, them) and not self.attacked(_G1, them):
            out.append(_E1 | _G1 << 7 | _MOVE_CASTLING << 14)
            n += 1
        if c & _WHITE_QUEENSIDE and not b[_D1] and not b[_C1] and not b[_C1 - 1] and not self.attacked(_D1, them) and not self.attacked(_C1, them):
            out.append(_E1 | _C1 << 7 | _MOVE_CASTLING << 14)
            n += 1
    else:
        if c & _BLACK_KINGSIDE and not b[_F8] and not b[_G8] and not self.attacked(_F8, them) and not self.attacked(_G8, them):
            out.append(_E8 | _G8 << 7 | _MOVE_CASTLING << 14)
            n += 1
        if c & _BLACK_QUEENSIDE and not b[_D8] and not b[_C8] and not b[_C8 - 1] and not self.attacked(_D8, them) and not self.attacked(_C8, them):
            out.append(_E8 | _C8 << 7 | _MOVE_CASTLING << 14)
            n += 1
    return n


def install(cls):
    """Put these on the Position class (position.use_native(False))."""
    cls.make = make
    cls.unmake = unmake
    cls.attacked = attacked
    cls.generate_legal = generate_legal
    cls.has_legal_move = has_legal_move
