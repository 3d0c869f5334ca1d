# What stands on each square, as far as the board can tell: it senses only whether a square is
# occupied, but it follows the game. Used for CPP's unsync/state lines, ChessLink's status and DGT's
# board dumps and field updates; and what the two hosts that read pieces (ChessLink, DGT) share:
# the promoted pawn kept a pawn until its piece is chosen, and the host's takeback followed.
#
# docs/spec.md section 7: every occupied square is reported as the piece the game has there; while a move is on
# its way the board shows the position the referee is about to commit (the piece in the hand shows
# where it is put down); a square the game has empty but a magnet closes holds a piece that was
# lifted, the one lifted last if several were. CPP lets the board say what it does not know
# (docs/spec.md section 6): `?`, or `U`/`u` when only the colour is known; ChessLink has no such letter, so there
# the board names its best guess.
from micropython import const

from core.position import BLACK, PAWN, STARTING_FEN, move_promotion, move_to
from core.referee import PLAY

UNKNOWN = const(16)  # "?"
UNKNOWN_WHITE = const(17)  # "U"
UNKNOWN_BLACK = const(18)  # "u"
# Piece codes (core/position.py: type | colour) to letters, then the three unknowns.
SYMBOLS = ".PNBRQK..pnbrqk.?Uu"


def _start_pieces():
    # The start position as piece codes, index 0 = a1: what the board shows while it is set up.
    out = bytearray(64)
    rank = 7
    for row in STARTING_FEN.split()[0].split("/"):
        f = 0
        for ch in row:
            if "1" <= ch <= "8":
                f += int(ch)
            else:
                out[8 * rank + f] = SYMBOLS.index(ch)
                f += 1
        rank -= 1
    return out


_START = _start_pieces()

# How long a promoted piece stands untouched before its choice counts as made: taps come quicker
# (docs/spec.md section 3, a tap is a lift and a put-back of the new piece).
PROMOTION_CHOICE_MS = const(2000)


class Pieces:
    """squares: bytearray(64) of piece codes (0 = empty, UNKNOWN...), filled by read()."""

    def __init__(self):
        self.squares = bytearray(64)
        self._seen = bytearray(64)  # the occupancy follow() last saw
        self._lifted = [0] * 64  # when each square was last emptied (a counter: bigger = later)
        self._count = 0

    def follow(self, ref):
        """Note which squares were emptied since the last call, in order: call after every scan
        that changed something. Allocates nothing."""
        occ = ref.occ
        seen = self._seen
        if occ == seen:
            return
        for sq in range(64):
            if seen[sq] and not occ[sq]:
                self._count += 1
                self._lifted[sq] = self._count
        seen[:] = occ

    def read(self, ref, guess):
        """Fill self.squares from the referee; guess: name a piece for every occupied square
        (ChessLink) instead of a placeholder where the board cannot be sure (CPP)."""
        self.follow(ref)
        out = self.squares
        kind = ref.pending_kind
        pos = ref.game.position
        if kind == "new":
            out[:] = _START
            return out
        if kind == "move" or kind == "castle" or kind == "undo":
            # The game's own position, moved for a moment and always put back (finally: should
            # anything fail in between, a MemoryError among them, the game is left as it was).
            last = pos.last_move()
            if kind != "move":
                pos.unmake()
            try:
                if kind != "undo":
                    pos.make(ref.pending)
                    try:
                        for sq in range(64):
                            out[sq] = pos.piece_at(sq)
                    finally:
                        pos.unmake()
                else:
                    for sq in range(64):
                        out[sq] = pos.piece_at(sq)
            finally:
                if kind != "move":
                    pos.make(last)
            return out
        occ = ref.occ
        for sq in range(64):
            out[sq] = pos.piece_at(sq) if occ[sq] else 0
        if ref.filled:
            self._fill_strays(ref, pos, guess)
        return out

    def _fill_strays(self, ref, pos, guess):
        out = self.squares
        lifted = self._lifted
        # The pieces lifted since the last move, the last lifted first; a guess may also take
        # the pieces missing since before (a board set up wrong at power-up) ...
        was_lifted = ref.was_lifted
        hand = sorted([sq for sq in ref.emptied if was_lifted[sq]], key=lambda sq: -lifted[sq])
        if guess:
            hand += [sq for sq in ref.emptied if not was_lifted[sq]]
        pieces = [pos.piece_at(sq) for sq in hand]
        # ... go to the squares filled, the last filled first.
        seq = ref.place_seq
        strays = sorted(ref.filled, key=lambda sq: -seq[sq])
        if guess:
            for i in range(len(strays)):
                sq = strays[i]
                if i < len(pieces):
                    out[sq] = pieces[i]
                else:
                    out[sq] = PAWN | (BLACK if sq >= 32 else 0)  # nothing explains it: a pawn of that half
            return
        if not pieces:
            code = UNKNOWN
        elif pieces.count(pieces[0]) == len(pieces):
            code = pieces[0]
        else:
            colour = pieces[0] & BLACK
            code = UNKNOWN
            for p in pieces:
                if p & BLACK != colour:
                    break
            else:
                code = UNKNOWN_BLACK if colour else UNKNOWN_WHITE
        for sq in strays:
            out[sq] = code


def placement(squares):
    """A FEN placement (rank 8 first) of piece codes, with CPP's ?, U and u."""
    ranks = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for f in range(8):
            p = squares[8 * rank + f]
            if not p:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += SYMBOLS[p]
        if empty:
            row += str(empty)
        ranks.append(row)
    return "/".join(ranks)


# ---------------------------------------------------------------------- hosts that read pieces
#
# Promotion. The board cannot see which piece stands on the promotion square: the player chooses
# it by taps (core/referee.py). Until the choice is made a host reading pieces sees the pawn there,
# never a piece the player has not chosen: a host that reads pieces would take a queen move at
# once. The choice is made when the opponent lifts a piece, or once the piece has stood still
# PROMOTION_CHOICE_MS since it landed or its last tap; then the session closes the choice (the
# board's game and the host's agree on the piece from there on).


def reported(pieces, ref):
    """pieces.read(ref, True) (a piece named for every occupied square) with the pawn still on a
    promotion square whose piece the player has not chosen yet."""
    squares = pieces.read(ref, True)
    m = 0
    if ref.pending_kind == "move" and move_promotion(ref.pending):
        m = ref.pending  # on its way: not even played yet
    elif ref.promotion_square >= 0:
        m = ref.game.last_move()  # played, its piece still open to taps
    if m and squares[move_to(m)]:
        squares[move_to(m)] = PAWN | (squares[move_to(m)] & BLACK)
    return squares


def close_promotion_choice(ref, now):
    """Close the promotion choice once the piece has stood still long enough (see above); returns
    whether it did."""
    if ref.promotion_square < 0 or ref.emptied or ref.filled or ref.pending:
        return False
    if now - ref.last_change < PROMOTION_CHOICE_MS:
        return False
    ref.end_promotion_choice()
    return True


def follow_takeback(link):
    """The host's program took the last move back (its takeback button, then the pieces): the
    board follows, as casual mode would, or it could read no move after it. Returns whether it did."""
    ref = link.app.referee
    if ref.error is not None and ref.phase == PLAY and ref.game.ply() and ref.occ == ref.prev:
        game = ref.game
        game.pop()
        link.load(game)
        return True
    return False
