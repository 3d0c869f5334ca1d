# The chess position: a 0x88 mailbox on a bytearray, make/unmake, legal moves, attacks, FEN.
#
# Why 0x88: one AND tells whether a step left the board, and the difference of two squares
# says whether (and along which line) they can see each other. Everything is a small int or a
# bytearray: on the RP2040 an int of 2**30 or more is a heap object, so no 64-bit bitboards.
#
# Squares inside this module are 0x88 indices (rank * 16 + file). Outside it the project uses
# 0..63 (a1 = 0, h8 = 63, as python-chess does): SQ64/SQ88 convert at the edges.
#
# A move is one small int: from88 | to88 << 7 | flag << 14, flag being one of the MOVE_* kinds
# below (promotions: the flag names the piece). What was captured is read from the board when the
# move is made and kept on the undo stack, so a move means the same thing in any position.
from array import array

from micropython import const

# Pieces: the low three bits are the type, bit 3 the colour (0 = white, 8 = black).
PAWN = const(1)
KNIGHT = const(2)
BISHOP = const(3)
ROOK = const(4)
QUEEN = const(5)
KING = const(6)
WHITE = const(0)
BLACK = const(8)

# Move kinds (flag = move >> 14).
MOVE_NORMAL = const(0)
MOVE_DOUBLE_PUSH = const(1)
MOVE_EN_PASSANT = const(2)
MOVE_CASTLING = const(3)
MOVE_PROMOTE_KNIGHT = const(4)  # flag - 2 is the piece type: 4 knight, 5 bishop, 6 rook, 7 queen
MOVE_PROMOTE_QUEEN = const(7)

# Castling rights, one bit each.
WHITE_KINGSIDE = const(1)
WHITE_QUEENSIDE = const(2)
BLACK_KINGSIDE = const(4)
BLACK_QUEENSIDE = const(8)

NO_SQUARE = const(0x88)  # off the board: also the "no en-passant square" value

_STACK_CHUNK = bytes(4 * 3 * 32)  # the undo stack grows by 32 plies at a time

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

# The move counters a FEN may give. The halfmove clock goes up by one a ply and the game ends when
# it reaches 150 (FIDE 9.6.2: 75 moves each without a capture or pawn move; checkmate on that ply
# still counts), so no position of a game has a higher one. Refusing more also keeps the clock
# well inside the 24 bits the undo record (make()) has for it. The longest game the laws allow
# (75-move rule and fivefold repetition) is under 8,850 moves, so a higher move number is a typo;
# it also keeps the counter a small int on the Pico.
MAX_HALFMOVE = const(150)
MAX_FULLMOVE = const(9999)

_A1 = const(0)
_C1 = const(2)
_D1 = const(3)
_E1 = const(4)
_F1 = const(5)
_G1 = const(6)
_H1 = const(7)
_A8 = const(0x70)
_C8 = const(0x72)
_D8 = const(0x73)
_E8 = const(0x74)
_F8 = const(0x75)
_G8 = const(0x76)
_H8 = const(0x77)

PIECE_SYMBOLS = ".PNBRQK..pnbrqk"
FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"

_KNIGHT_STEPS = (33, 31, 18, 14, -14, -18, -31, -33)
_KING_STEPS = (16, -16, 1, -1, 17, 15, -15, -17)
_ROOK_STEPS = (16, -16, 1, -1)
_BISHOP_STEPS = (17, 15, -15, -17)
_PAWN_DIAGONALS = (15, 17)
_SIDE_STEPS = (-1, 1)

# The 64 board squares in 0x88, a1 first, and the conversions both ways.
SQUARES88 = bytes(r * 16 + f for r in range(8) for f in range(8))
SQ88 = SQUARES88
SQ64 = bytearray(128)
for _i in range(64):
    SQ64[SQUARES88[_i]] = _i

# For a difference to - from (+119 so that it indexes from 0):
# _LINE: the absolute unit step if the squares share a rank, file or diagonal (1, 16, 15, 17), else 0.
# _ATTACKS: which piece types could attack along that difference on an empty board, one bit per type
# (bit PAWN is for a white pawn; black pawns are looked up with the difference negated).
_LINE = bytearray(239)
_ATTACKS = bytearray(239)


def _fill_tables():
    for step in _KING_STEPS:
        a = abs(step)
        slider = (1 << ROOK) if a in (1, 16) else (1 << BISHOP)
        for n in range(1, 8):
            d = step * n + 119
            _LINE[d] = a
            _ATTACKS[d] |= slider | (1 << QUEEN)
            if n == 1:
                _ATTACKS[d] |= 1 << KING
    for step in _KNIGHT_STEPS:
        _ATTACKS[step + 119] |= 1 << KNIGHT
    _ATTACKS[15 + 119] |= 1 << PAWN
    _ATTACKS[17 + 119] |= 1 << PAWN


_fill_tables()

# Castling rights that survive a move from or to each square (a king or rook leaving or being captured).
_CASTLE_KEEP = bytearray(b"\x0f" * 128)
_CASTLE_KEEP[_E1] = 0x0F & ~(WHITE_KINGSIDE | WHITE_QUEENSIDE)
_CASTLE_KEEP[_H1] = 0x0F & ~WHITE_KINGSIDE
_CASTLE_KEEP[_A1] = 0x0F & ~WHITE_QUEENSIDE
_CASTLE_KEEP[_E8] = 0x0F & ~(BLACK_KINGSIDE | BLACK_QUEENSIDE)
_CASTLE_KEEP[_H8] = 0x0F & ~BLACK_KINGSIDE
_CASTLE_KEEP[_A8] = 0x0F & ~BLACK_QUEENSIDE

# Zobrist keys below 2**30 so that they stay small ints on a 32-bit MicroPython. A fixed
# xorshift generator makes the keys identical on every runtime (and across saved games).
# Layout of the table: 16 piece codes x 64 squares, then one key per castling-rights state (so a
# change of rights costs two xors), then one per en-passant file, then the side to move.
_Z_CASTLE = const(1024)
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
Z_SIDE = ZOBRIST[1048]


def _shown(text, n=24):
    """Text for an error message, cut short: a line pasted by mistake may be megabytes long."""
    return text if len(text) <= n else text[:n] + "..."


def _counter(text):
    """A FEN move counter as an int, or None if it is not a whole number. Plain digits only (int()
    would also take '1_0' on CPython and not on MicroPython); one of over nine digits is over every
    limit and is not converted (a long int on the Pico)."""
    neg = text[:1] == "-"
    digits = text[1:] if neg else text
    if not digits:
        return None
    for c in digits:
        if c not in "0123456789":
            return None
    digits = digits.lstrip("0") or "0"
    n = int(digits) if len(digits) < 10 else 0x20000000
    return -n if neg else n


class FenError(ValueError):
    """A FEN that cannot describe a legal chess position; the message says what is wrong."""


def square_name(sq64):
    return FILE_NAMES[sq64 & 7] + RANK_NAMES[sq64 >> 3]


def parse_square(name):
    """'e4' -> 28; raises ValueError naming the text otherwise."""
    if len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError("not a square: %r" % (_shown(name),))
    return FILE_NAMES.index(name[0]) + 8 * RANK_NAMES.index(name[1])


def move_from(move):
    """Origin square of a move, 0..63."""
    return SQ64[move & 127]


def move_to(move):
    """Destination square of a move, 0..63."""
    return SQ64[(move >> 7) & 127]


def move_promotion(move):
    """Piece type a move promotes to (KNIGHT..QUEEN), or 0."""
    f = move >> 14
    return f - 2 if f >= MOVE_PROMOTE_KNIGHT else 0


def move_uci(move):
    s = square_name(move_from(move)) + square_name(move_to(move))
    p = move_promotion(move)
    if p:
        s += "nbrq"[p - KNIGHT]
    return s


def with_promotion(move, piece_type):
    """The same pawn move promoting to another piece (KNIGHT..QUEEN)."""
    return (move & 0x3FFF) | (piece_type + 2) << 14


class Position:
    """A chess position with make/unmake. Squares in the public methods are 0..63."""

    def __init__(self, fen=STARTING_FEN):
        self.board = bytearray(128)
        self.kings = bytearray(16)  # kings[WHITE], kings[BLACK]: 0x88 squares
        self.side = WHITE
        self.castling = 0
        self.ep = NO_SQUARE
        self.halfmove = 0
        self.fullmove = 1
        self.zkey = 0
        # Undo records, three 32-bit words per move made (see make()): 12 bytes a ply on any runtime.
        self._stack = array("i", _STACK_CHUNK)
        self._sp = 0
        # Scratch for legal move generation, allocated once: pin lines and check-evasion squares.
        self._pin = bytearray(128)
        self._evade = bytearray(128)
        self._pinned = bytearray(8)
        self.set_fen(fen)

    # ------------------------------------------------------------------ FEN

    def set_fen(self, fen):
        """Load a FEN. On error raise FenError and leave the position as it was."""
        fields = fen.split()
        if len(fields) == 4 or len(fields) == 5:
            fields += ["0", "1"][len(fields) - 4 :]  # as python-chess: the counters may be left out
        if len(fields) != 6:
            raise FenError("FEN needs 6 fields (placement, side, castling, en passant, halfmove, fullmove), got %d" % len(fields))
        placement, side, castling, ep, half, full = fields
        board = bytearray(128)
        ranks = placement.split("/")
        if len(ranks) != 8:
            raise FenError("FEN placement needs 8 ranks separated by '/', got %d" % len(ranks))
        counts = bytearray(16)
        for i in range(8):
            rank = 7 - i
            f = 0
            prev_digit = False
            for ch in ranks[i]:
                if ch in "12345678":
                    if prev_digit:
                        raise FenError("FEN rank %d has two digits in a row" % (rank + 1))
                    f += ord(ch) - 48
                    prev_digit = True
                    continue
                prev_digit = False
                p = PIECE_SYMBOLS.find(ch)
                if p <= 0 or ch == ".":
                    raise FenError("FEN rank %d has an unknown piece %r" % (rank + 1, ch))
                if f >= 8:
                    f = 9
                    break
                board[rank * 16 + f] = p
                counts[p] += 1
                f += 1
            if f != 8:
                raise FenError("FEN rank %d describes %s squares, not 8" % (rank + 1, f if f < 8 else "more than 8"))
        for colour, name in ((WHITE, "white"), (BLACK, "black")):
            if counts[KING | colour] != 1:
                raise FenError("FEN has %d %s kings, needs exactly 1" % (counts[KING | colour], name))
            if counts[PAWN | colour] > 8:
                raise FenError("FEN has %d %s pawns, at most 8" % (counts[PAWN | colour], name))
            pieces = 0
            for t in range(PAWN, KING + 1):
                pieces += counts[t | colour]
            if pieces > 16:
                raise FenError("FEN has %d %s pieces, at most 16" % (pieces, name))
        for f in range(8):
            for sq in (f, 0x70 + f):
                if board[sq] & 7 == PAWN:
                    raise FenError("FEN has a pawn on %s: pawns never stand on the first or last rank" % square_name(SQ64[sq]))
        if side == "w":
            stm = WHITE
        elif side == "b":
            stm = BLACK
        else:
            raise FenError("FEN side to move must be 'w' or 'b', got %r" % _shown(side))
        rights = 0
        if castling != "-":
            for ch in castling:
                bit = "KQkq".find(ch)
                if bit < 0 or rights & (1 << bit):
                    raise FenError("FEN castling field %r: each of K, Q, k, q at most once, or '-'" % _shown(castling))
                rights |= 1 << bit
        # Sanitise: a right stays only while king and rook stand on their original squares.
        if board[_E1] != KING:
            rights &= ~(WHITE_KINGSIDE | WHITE_QUEENSIDE)
        if board[_H1] != ROOK:
            rights &= ~WHITE_KINGSIDE
        if board[_A1] != ROOK:
            rights &= ~WHITE_QUEENSIDE
        if board[_E8] != KING | BLACK:
            rights &= ~(BLACK_KINGSIDE | BLACK_QUEENSIDE)
        if board[_H8] != ROOK | BLACK:
            rights &= ~BLACK_KINGSIDE
        if board[_A8] != ROOK | BLACK:
            rights &= ~BLACK_QUEENSIDE
        ep_sq = NO_SQUARE
        if ep != "-":
            try:
                e = SQUARES88[parse_square(ep)]
            except ValueError:
                raise FenError("FEN en-passant field %r is not a square" % _shown(ep))
            if (e >> 4) != (5 if stm == WHITE else 2):
                raise FenError("FEN en-passant square %s is not on the %s rank" % (ep, "6th" if stm == WHITE else "3rd"))
            # Keep it only if a double push can really have happened (python-chess does the same check
            # in is_valid); otherwise it is a harmless leftover and is dropped.
            fwd = -16 if stm == WHITE else 16
            if board[e] == 0 and board[e - fwd] == 0 and board[e + fwd] == (PAWN | (stm ^ 8)):
                ep_sq = e
        hm = _counter(half)
        fm = _counter(full)
        if hm is None or fm is None:
            raise FenError("FEN move counters must be whole numbers, got %r and %r" % (_shown(half), _shown(full)))
        if hm < 0:
            raise FenError("FEN halfmove clock must not be negative, got %d" % hm)
        if hm > MAX_HALFMOVE:
            raise FenError(
                "FEN halfmove clock %s is impossible: at %d the 75-move rule has ended the game" % (_shown(half), MAX_HALFMOVE)
            )
        if fm < 1:
            raise FenError("FEN fullmove number must be at least 1, got %d" % fm)
        if fm > MAX_FULLMOVE:
            raise FenError("FEN fullmove number %s is impossible: no game lasts over %d moves" % (_shown(full), MAX_FULLMOVE))
        # Commit, then check that the side not to move is not in check (it would be capturable).
        old = (bytes(self.board), bytes(self.kings), self.side, self.castling, self.ep, self.halfmove, self.fullmove, self.zkey, self._sp)
        self.board[:] = board
        for sq in SQUARES88:
            if board[sq] & 7 == KING:
                self.kings[board[sq] & 8] = sq
        self.side = stm
        self.castling = rights
        self.ep = ep_sq
        self.halfmove = hm
        self.fullmove = fm
        self._sp = 0
        self.zkey = self.compute_zkey()
        if self.attacked(self.kings[stm ^ 8], stm):
            b, k, self.side, self.castling, self.ep, self.halfmove, self.fullmove, self.zkey, self._sp = old
            self.board[:] = b
            self.kings[:] = k
            raise FenError("FEN: the side not to move is in check, so this position cannot arise")

    def fen(self, en_passant="legal"):
        """FEN of the position. The en-passant square is shown only when a legal en-passant capture
        exists (python-chess's default), or whenever it is set with en_passant='fen'."""
        out = []
        b = self.board
        for rank in range(7, -1, -1):
            empty = 0
            row = ""
            for f in range(8):
                p = b[rank * 16 + f]
                if p:
                    if empty:
                        row += str(empty)
                        empty = 0
                    row += PIECE_SYMBOLS[p]
                else:
                    empty += 1
            if empty:
                row += str(empty)
            out.append(row)
        c = self.castling
        rights = "".join("KQkq"[i] for i in range(4) if c & (1 << i)) or "-"
        ep = "-"
        if self.ep != NO_SQUARE and (en_passant == "fen" or self.has_legal_en_passant()):
            ep = square_name(SQ64[self.ep])
        return "%s %s %s %s %d %d" % ("/".join(out), "w" if self.side == WHITE else "b", rights, ep, self.halfmove, self.fullmove)

    def compute_zkey(self):
        """Zobrist key from scratch (make/unmake keep it incrementally). En passant is not in it:
        the game adds it only when a capture is really possible (FIDE 9.2.3)."""
        z = ZOBRIST[_Z_CASTLE + self.castling]
        b = self.board
        for sq in SQUARES88:
            if b[sq]:
                z ^= ZOBRIST[b[sq] << 6 | SQ64[sq]]
        if self.side == BLACK:
            z ^= Z_SIDE
        return z

    # ------------------------------------------------------------------ queries

    def piece_at(self, sq64):
        """Piece code on a square (0 if empty): type | colour."""
        return self.board[SQUARES88[sq64]]

    def king_square(self, colour):
        return SQ64[self.kings[colour]]

    def occupancy_into(self, buf):
        """Write 1 for each occupied square (0..63) into buf: what the reed switches should read."""
        b = self.board
        for i in range(64):
            buf[i] = 1 if b[SQUARES88[i]] else 0
        return buf

    def attacked(self, sq, by):
        """Is the 0x88 square attacked by the side `by` (WHITE or BLACK)? Allocates nothing.

        Walks the eight lines out of sq to the first piece on each: one of `by`'s pieces there
        attacks sq if _ATTACKS says its type reaches that far in that direction (a slider at any
        distance, a king or pawn next to it). Knights jump, so they are looked up apart."""
        b = self.board
        n = KNIGHT | by
        for d in _KNIGHT_STEPS:
            t = sq + d
            if not t & 0x88 and b[t] == n:
                return True
        for d in _KING_STEPS:
            t = sq + d
            while not t & 0x88:
                p = b[t]
                if p:
                    if p & 8 == by:
                        kind = p & 7
                        diff = sq - t  # from the attacker to the square
                        if kind == PAWN and by == BLACK:
                            diff = -diff  # black pawns capture downwards: the table is white's
                        if _ATTACKS[diff + 119] & (1 << kind):
                            return True
                    break
                t += d
        return False

    def is_check(self):
        return self.attacked(self.kings[self.side], self.side ^ 8)

    def checkers(self, out):
        """Append the 0..63 squares of the pieces giving check."""
        us = self.side
        them = us ^ 8
        k = self.kings[us]
        b = self.board
        for sq in SQUARES88:
            p = b[sq]
            if p and p & 8 == them and self._sees(sq, k):
                out.append(SQ64[sq])
        return out

    def _sees(self, frm, to):
        """Does the piece on frm attack the 0x88 square to (ignoring pins)?"""
        b = self.board
        p = b[frm]
        d = to - frm
        if p & 7 == PAWN:
            if p & 8:
                d = -d
            return d == 15 or d == 17
        if not _ATTACKS[d + 119] & (1 << (p & 7)):
            return False
        if p & 7 == KNIGHT or p & 7 == KING:
            return True
        step = _LINE[d + 119]
        if d < 0:
            step = -step
        t = frm + step
        while t != to:
            if b[t]:
                return False
            t += step
        return True

    # ------------------------------------------------------------------ make / unmake

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
            st.extend(_STACK_CHUNK)
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
        elif p & 7 == PAWN:
            self.halfmove = 0
        else:
            self.halfmove += 1
        self.ep = NO_SQUARE
        if flag:
            if flag == MOVE_DOUBLE_PUSH:
                self.ep = (frm + to) >> 1
            elif flag == MOVE_EN_PASSANT:
                v = to - 16 if us == WHITE else to + 16
                cap = b[v]
                b[v] = 0
                z ^= ZOBRIST[cap << 6 | SQ64[v]]
            elif flag == MOVE_CASTLING:
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
        if p & 7 == KING:
            self.kings[us] = to
        c = self.castling
        if c:
            n = c & _CASTLE_KEEP[frm] & _CASTLE_KEEP[to]
            if n != c:
                z ^= ZOBRIST[_Z_CASTLE + c] ^ ZOBRIST[_Z_CASTLE + n]
                self.castling = n
        if us == BLACK:
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
        if us == BLACK:
            self.fullmove -= 1
        p = b[to]
        if flag >= MOVE_PROMOTE_KNIGHT:
            p = PAWN | us
        b[frm] = p
        b[to] = cap
        if p & 7 == KING:
            self.kings[us] = frm
            if flag == MOVE_CASTLING:
                if to > frm:
                    b[to + 1] = b[to - 1]
                    b[to - 1] = 0
                else:
                    b[to - 2] = b[to + 1]
                    b[to + 1] = 0
        elif flag == MOVE_EN_PASSANT:
            b[to - 16 if us == WHITE else to + 16] = PAWN | (us ^ 8)

    def moves_made(self):
        """The moves made with make() and not unmade, oldest first (a new list)."""
        st = self._stack
        return [st[i] & 0x1FFFF for i in range(0, self._sp, 3)]

    def last_move(self):
        """The last move made with make(), or 0."""
        return self._stack[self._sp - 3] & 0x1FFFF if self._sp else 0

    def _prepare(self):
        """Find pins and checks on the side to move's king. Marks pinned pieces in self._pin with the
        line they are pinned along and, in single check, the squares that stop it in self._evade.
        Returns the number of checkers (0, 1 or 2). Call _release() afterwards."""
        b = self.board
        us = self.side
        them = us ^ 8
        k = self.kings[us]
        pins = self._pinned
        npins = 0
        checks = 0
        evade = self._evade
        # Pawns and knights can only check directly.
        pawn = PAWN | them
        ahead = 1 if us == WHITE else -1  # enemy pawns that check stand ahead of the king
        for d in _PAWN_DIAGONALS:
            t = k + d * ahead
            if not t & 0x88 and b[t] == pawn:
                checks += 1
                evade[t] = 1
        n = KNIGHT | them
        for d in _KNIGHT_STEPS:
            t = k + d
            if not t & 0x88 and b[t] == n:
                checks += 1
                evade[t] = 1
        q = QUEEN | them
        for d in _KING_STEPS:
            slider = (ROOK | them) if d == 16 or d == -16 or d == 1 or d == -1 else (BISHOP | them)
            t = k + d
            mine = NO_SQUARE
            while not t & 0x88:
                p = b[t]
                if p:
                    if p & 8 == us:
                        if mine != NO_SQUARE:
                            break
                        mine = t
                    else:
                        if p == slider or p == q:
                            if mine == NO_SQUARE:
                                checks += 1
                                s = k + d
                                while s != t:
                                    evade[s] = 1
                                    s += d
                                evade[t] = 1
                            else:
                                self._pin[mine] = d if d > 0 else -d
                                pins[npins] = mine
                                npins += 1
                        break
                t += d
        self._npins = npins
        return checks

    def _pin_line(self, sq):
        """The line (1, 15, 16 or 17) along which the side to move's piece on sq is pinned to its
        king, or 0."""
        k = self.kings[self.side]
        d = sq - k
        line = _LINE[d + 119]
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
                if kind == QUEEN or kind == (ROOK if line == 1 or line == 16 else BISHOP):
                    return line
                return 0
            t += step
        return 0

    def _release(self):
        """Clear the scratch marks _prepare() set."""
        pins = self._pinned
        for i in range(self._npins):
            self._pin[pins[i]] = 0
        e = self._evade
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
            pin = self._pin_line(frm)
            self._pin[frm] = pin
            self._piece_moves(out, frm, 0)
            self._pin[frm] = 0
            return out
        checks = self._prepare()
        if only < 0:
            for sq in SQUARES88:
                self._piece_moves(out, sq, checks)
        else:
            self._piece_moves(out, SQUARES88[only], checks)
        if checks:
            self._release()
        elif self._npins:
            pins = self._pinned
            for i in range(self._npins):
                self._pin[pins[i]] = 0
        return out

    def legal_moves(self):
        return self.generate_legal([])

    def legal_moves_from(self, sq64, out):
        """The legal moves of the piece on one square: what the LEDs show when it is lifted."""
        return self.generate_legal(out, sq64)

    def has_legal_move(self):
        """Is there at least one legal move? (stops at the first piece that has one)"""
        checks = self._prepare()
        out = []
        found = False
        for sq in SQUARES88:
            if self._piece_moves(out, sq, checks):
                found = True
                break
        if checks:
            self._release()
        else:
            pins = self._pinned
            for i in range(self._npins):
                self._pin[pins[i]] = 0
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
        if kind == KING:
            return self._king_moves(out, frm, checks)
        if checks > 1:
            return 0  # double check: only the king may move
        if kind == PAWN:
            if us == WHITE:
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
                        out.append(frm | (t + fwd) << 7 | MOVE_DOUBLE_PUSH << 14)
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
                    m = frm | t << 7 | MOVE_EN_PASSANT << 14
                    self.make(m)
                    if not self.attacked(self.kings[us], us ^ 8):
                        en_passant = m
                    self.unmake()
        elif kind == KNIGHT:
            if self._pin[frm]:
                return 0  # a pinned knight can never move
            for d in _KNIGHT_STEPS:
                t = frm + d
                if not t & 0x88:
                    c = b[t]
                    if not c or c & 8 != us:
                        out.append(frm | t << 7)
        else:
            if kind == BISHOP:
                steps = _BISHOP_STEPS
            elif kind == ROOK:
                steps = _ROOK_STEPS
            else:
                steps = _KING_STEPS
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
        pin = self._pin[frm]
        if pin or checks:
            # Keep only moves along the pin line and, in check, those that capture or block the checker.
            k = self.kings[us]
            evade = self._evade
            j = start
            n = len(out)
            for i in range(start, n):
                m = out[i]
                t = (m >> 7) & 127
                if pin and _LINE[t - k + 119] != pin:
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
        for d in _KING_STEPS:
            t = k + d
            if not t & 0x88:
                c = b[t]
                if (not c or c & 8 != us) and not self.attacked(t, them):
                    out.append(k | t << 7)
                    n += 1
        b[k] = KING | us
        if checks or not self.castling:
            return n
        c = self.castling
        if us == WHITE:
            if c & WHITE_KINGSIDE and not b[_F1] and not b[_G1] and not self.attacked(_F1, them) and not self.attacked(_G1, them):
                out.append(_E1 | _G1 << 7 | MOVE_CASTLING << 14)
                n += 1
            if c & WHITE_QUEENSIDE and not b[_D1] and not b[_C1] and not b[_C1 - 1] and not self.attacked(_D1, them) and not self.attacked(_C1, them):
                out.append(_E1 | _C1 << 7 | MOVE_CASTLING << 14)
                n += 1
        else:
            if c & BLACK_KINGSIDE and not b[_F8] and not b[_G8] and not self.attacked(_F8, them) and not self.attacked(_G8, them):
                out.append(_E8 | _G8 << 7 | MOVE_CASTLING << 14)
                n += 1
            if c & BLACK_QUEENSIDE and not b[_D8] and not b[_C8] and not b[_C8 - 1] and not self.attacked(_D8, them) and not self.attacked(_C8, them):
                out.append(_E8 | _C8 << 7 | MOVE_CASTLING << 14)
                n += 1
        return n

    def has_legal_en_passant(self):
        """Can the side to move capture en passant right now? (FIDE 9.2.3: only then does the
        en-passant square make a position differ)"""
        e = self.ep
        if e == NO_SQUARE:
            return False
        us = self.side
        pawn = PAWN | us
        behind = -1 if us == WHITE else 1  # the capturing pawn stands behind the en-passant square
        b = self.board
        for d in _PAWN_DIAGONALS:
            frm = e + d * behind
            if not frm & 0x88 and b[frm] == pawn:
                m = frm | e << 7 | MOVE_EN_PASSANT << 14
                self.make(m)
                ok = not self.attacked(self.kings[us], us ^ 8)
                self.unmake()
                if ok:
                    return True
        return False

    def find_move(self, from64, to64, promotion=0):
        """The legal move from -> to (promotion piece type, queen if omitted), or 0."""
        frm = SQUARES88[from64]
        to = SQUARES88[to64]
        for m in self.generate_legal([], from64):
            if (m >> 7) & 127 == to:
                p = move_promotion(m)
                if not p or p == (promotion or QUEEN):
                    return m
        return 0

    def parse_uci(self, text):
        """A legal move from UCI text ('e2e4', 'e7e8n'); raises ValueError naming the problem."""
        if len(text) not in (4, 5):
            raise ValueError("not a UCI move: %r" % (_shown(text),))
        frm = parse_square(text[0:2])
        to = parse_square(text[2:4])
        promo = 0
        if len(text) == 5:
            promo = "nbrq".find(text[4]) + KNIGHT
            if promo < KNIGHT:
                raise ValueError("not a promotion piece in %r" % (_shown(text),))
        m = self.find_move(frm, to, promo)
        if not m or (move_promotion(m) and not promo) or (promo and not move_promotion(m)):
            raise ValueError("illegal move %s in %s" % (text, self.fen()))
        return m

    def is_insufficient_material(self):
        """Dead position by material (FIDE 5.2.2 / 9.6): K v K, K+minor v K, and positions whose
        only other pieces are bishops all on squares of one colour."""
        b = self.board
        knights = 0
        bishop_colours = 0
        for sq in SQUARES88:
            p = b[sq] & 7
            if p == 0 or p == KING:
                continue
            if p == KNIGHT:
                knights += 1
            elif p == BISHOP:
                bishop_colours |= 1 << (((sq >> 4) + sq) & 1)
            else:
                return False  # a pawn, rook or queen can always lead to mate
        if knights == 0:
            return bishop_colours != 3
        return knights == 1 and bishop_colours == 0

    def perft(self, depth):
        """Count the leaf nodes of the legal move tree, making and unmaking every move."""
        moves = self.generate_legal([])
        if depth <= 1:
            if depth <= 0:
                return 1
            n = 0
            for m in moves:
                self.make(m)
                n += 1
                self.unmake()
            return n
        n = 0
        for m in moves:
            self.make(m)
            n += self.perft(depth - 1)
            self.unmake()
        return n

    def perft_bulk(self, depth):
        """Perft that counts the legal moves at the last ply without making them."""
        if depth <= 0:
            return 1
        moves = self.generate_legal([])
        if depth == 1:
            return len(moves)
        n = 0
        for m in moves:
            self.make(m)
            n += self.perft_bulk(depth - 1)
            self.unmake()
        return n
