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
import sys
from array import array

from micropython import const

# The 0x88 tables, shared with the move generators (core/position_plain.py, core/position_native.py):
# square conversions, the line and attack tables, castling rights kept, Zobrist keys. SQ88,
# SQUARES88, SQ64, ZOBRIST, Z_EN_PASSANT and Z_SIDE are part of this module's interface too.
from core.position_tables import (  # noqa: F401
    ATTACKS,
    CASTLE_KEEP,
    LINE,
    PAWN_DIAGONALS,
    SQ64,
    SQ88,
    SQUARES88,
    STACK_CHUNK,
    Z_CASTLE,
    Z_EN_PASSANT,
    Z_SIDE,
    ZOBRIST,
)

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


def castling_rook(move):
    """(rook from, rook to) of a castling move, 0..63."""
    t = move_to(move)
    if t > move_from(move):
        return t + 1, t - 1
    return t - 2, t + 1


def victim(move):
    """Square of the piece a move takes (the pawn beside it for en passant), or -1 for a castling."""
    flag = move >> 14
    if flag == MOVE_CASTLING:
        return -1
    t = move_to(move)
    if flag == MOVE_EN_PASSANT:
        return t - 8 if t > move_from(move) else t + 8
    return t


def part_of(move, sq):
    """Is sq (0..63) one of the squares the move empties or fills?"""
    if sq == move_from(move) or sq == move_to(move):
        return True
    flag = move >> 14
    if flag == MOVE_CASTLING:
        rf, rt = castling_rook(move)
        return sq == rf or sq == rt
    if flag == MOVE_EN_PASSANT:
        return sq == victim(move)
    return False


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
        self._stack = array("i", STACK_CHUNK)
        self._sp = 0
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
        rights = ""
        for i in range(4):
            if c & (1 << i):
                rights += "KQkq"[i]
        rights = rights or "-"
        ep = "-"
        if self.ep != NO_SQUARE and (en_passant == "fen" or self.has_legal_en_passant()):
            ep = square_name(SQ64[self.ep])
        return "%s %s %s %s %d %d" % ("/".join(out), "w" if self.side == WHITE else "b", rights, ep, self.halfmove, self.fullmove)

    def compute_zkey(self):
        """Zobrist key from scratch (make/unmake keep it incrementally). En passant is not in it:
        the game adds it only when a capture is really possible (FIDE 9.2.3)."""
        z = ZOBRIST[Z_CASTLE + self.castling]
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
        if not ATTACKS[d + 119] & (1 << (p & 7)):
            return False
        if p & 7 == KNIGHT or p & 7 == KING:
            return True
        step = LINE[d + 119]
        if d < 0:
            step = -step
        t = frm + step
        while t != to:
            if b[t]:
                return False
            t += step
        return True

    # ------------------------------------------------------------------ make / unmake, legal moves
    # make(m), unmake(), attacked(sq88, by), generate_legal(out, only=-1) and has_legal_move() are
    # the hot paths: use_native() below puts them on the class, from core/position_native.py
    # (viper) where the runtime compiles it, else from core/position_plain.py.

    def moves_made(self):
        """The moves made with make() and not unmade, oldest first (a new list)."""
        st = self._stack
        return [st[i] & 0x1FFFF for i in range(0, self._sp, 3)]

    def last_move(self):
        """The last move made with make(), or 0."""
        return self._stack[self._sp - 3] & 0x1FFFF if self._sp else 0

    def legal_moves(self):
        return self.generate_legal([])

    def legal_moves_from(self, sq64, out):
        """The legal moves of the piece on one square: what the LEDs show when it is lifted."""
        return self.generate_legal(out, sq64)

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
        for d in PAWN_DIAGONALS:
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
        make = self.make  # bound once: an attribute lookup less per node
        unmake = self.unmake
        if depth <= 1:
            if depth <= 0:
                return 1
            n = 0
            for m in moves:
                make(m)
                n += 1
                unmake()
            return n
        n = 0
        for m in moves:
            make(m)
            n += self.perft(depth - 1)
            unmake()
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


def use_native(on):
    """Give Position its make, unmake, attack test and legal-move generator: the native ones of
    core/position_native.py (on=True, where the runtime compiles viper) or the plain Python ones of
    core/position_plain.py. Returns whether the native ones are in use."""
    global _native
    if on:
        if _native is None:
            try:
                from core import position_native

                _native = position_native
            except (ImportError, SyntaxError, ValueError):
                # CPython has no native emitter (ImportError), MicroPython's WebAssembly build
                # refuses the decorator as the module compiles (SyntaxError), and an .mpy compiled
                # for the Pico's armv6m does not load on a PC's port (ValueError).
                _native = False
        if _native:
            _native.install(Position, ATTACKS, LINE, ZOBRIST, SQ64, CASTLE_KEEP, STACK_CHUNK)
            return True
    from core import position_plain

    position_plain.install(Position)
    return False


# Chosen once at import: the Pico (rp2 port) runs the native paths, which a measurement on the chip
# asked for; every other runtime the plain ones, unless a test or tool asks for native code with
# use_native(True) (the unix port compiles viper too: compiling it from .py costs a PC's port heap
# that the firmware's .py tests, capped like the Pico's, do not have to spare).
_native = None
NATIVE = use_native(sys.platform == "rp2")
