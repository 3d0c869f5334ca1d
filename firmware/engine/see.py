# Static exchange evaluation (SEE): what a capture wins or loses once both sides have taken on its
# square with their cheapest pieces for as long as it pays, without searching anything else.
#
# Why: the search has a few hundred positions a move on the Pico, two plies and the captures after
# them; a piece it leaves to be taken for less than it is worth, for a compensation it believes in
# beyond that, is most often simply lost, and that is the blunder a player sees at once. So at the
# root each move is asked what it leaves en prise (Exchange.loss on each of the mover's pieces).
# The exchange is played on the board itself: each piece that takes is lifted (its square
# emptied), which also uncovers the slider behind it (an x-ray: a rook behind a rook, a bishop
# behind a queen), and everything is put back before the answer is returned. The buffers are
# allocated once, so a call allocates nothing. (Measured and not kept: SEE instead of "a dearer
# piece takes a defended one" to prune quiescence captures, and to order losing captures last;
# at 570 positions a move neither hung fewer pieces, and both cost about 5 % of the speed.)
#
# The swap list: gain[d] is what the side taking at step d has won if the exchange stops after it;
# walking back, each side takes only if taking beats stopping (gain[d-1] = -max(-gain[d-1], gain[d])).
from array import array

from micropython import const

from core.position import BISHOP, KING, KNIGHT, NO_SQUARE, PAWN, QUEEN, ROOK, WHITE

# Piece values for the exchange (the king's is so high that a king never takes into a defended square).
_VALUE = (0, 100, 320, 330, 500, 950, 20000, 0)
_KNIGHT_STEPS = (33, 31, 18, 14, -14, -18, -31, -33)
_DIAGONALS = (17, 15, -15, -17)
_LINES = (16, -16, 1, -1)
_MOST = const(34)  # 32 pieces can take on one square at most, plus the first victim


class Exchange:
    """SEE over a Position's board; one per Search (its buffers are reused by every call)."""

    def __init__(self):
        self._squares = bytearray(_MOST)  # where each piece lifted stood ...
        self._pieces = bytearray(_MOST)  # ... and what it was, to put back
        self._gain = array("i", range(_MOST))

    def capture(self, pos, frm, to):
        """Material the side to move wins (centipawns, < 0: loses) by taking on `to` with the piece
        on `frm`, if both sides then recapture on `to` with their cheapest piece while it pays."""
        b = pos.board
        return self._swap(pos, b, frm, to, _VALUE[b[to] & 7], (b[frm] & 8) ^ 8)

    def loss(self, pos, sq, by):
        """What side `by` wins by taking the piece on sq with its cheapest attacker, then
        exchanging as it pays (0 if nothing attacks it or taking does not pay)."""
        b = pos.board
        frm = self._taker(pos, b, sq, by)
        if frm == NO_SQUARE:
            return 0
        v = self._swap(pos, b, frm, sq, _VALUE[b[sq] & 7], by ^ 8)
        return v if v > 0 else 0

    def _swap(self, pos, b, frm, to, victim, side):
        """The exchange on `to` opened by the piece on frm taking a piece worth victim; `side`
        replies first. The board is as it was when this returns."""
        squares = self._squares
        pieces = self._pieces
        gain = self._gain
        gain[0] = victim
        lifted = 0
        d = 0
        while True:
            p = b[frm]
            squares[lifted] = frm
            pieces[lifted] = p
            lifted += 1
            b[frm] = 0  # the piece goes to `to`: its square is empty now (x-rays see through)
            if p & 7 == KING:
                break  # nothing takes after a king (if something could, the king could not take)
            frm = self._taker(pos, b, to, side)
            if frm == NO_SQUARE:
                break
            d += 1
            gain[d] = _VALUE[p & 7] - gain[d - 1]  # it takes the piece that just took
            side ^= 8
        while d:
            d -= 1
            if -gain[d] < gain[d + 1]:
                gain[d] = -gain[d + 1]
        for i in range(lifted):
            b[squares[i]] = pieces[i]
        return gain[0]

    def _taker(self, pos, b, to, by):
        """The square of `by`'s least valuable piece that may take on `to` (NO_SQUARE if none): a
        piece pinned to its king does not defend (the rook whose recapture would be check is
        passed over for the next cheapest). A second pinned piece in one exchange ends it."""
        frm = self._cheapest(b, to, by, NO_SQUARE)
        if frm != NO_SQUARE and not self._legal(pos, b, frm, to, by):
            frm = self._cheapest(b, to, by, frm)
            if frm != NO_SQUARE and not self._legal(pos, b, frm, to, by):
                frm = NO_SQUARE
        return frm

    def _legal(self, pos, b, frm, to, by):
        """Does taking on `to` with `by`'s piece on frm leave its king safe? (The squares of the
        pieces that took before are empty, as they would be; the move is tried and taken back.)"""
        p = b[frm]
        q = b[to]
        b[frm] = 0
        b[to] = p
        safe = not pos.attacked(to if p & 7 == KING else pos.kings[by], by ^ 8)
        b[frm] = p
        b[to] = q
        return safe

    def _cheapest(self, b, to, by, skip):
        """The square of `by`'s least valuable piece attacking `to` (NO_SQUARE if none), other than
        the one on `skip`. The square `to` itself is not looked at (the piece on it is the one being
        taken)."""
        pawn = PAWN | by
        t = to - 17 if by == WHITE else to + 15  # a white pawn takes upwards: it stands below
        if not t & 0x88 and b[t] == pawn and t != skip:
            return t
        t += 2
        if not t & 0x88 and b[t] == pawn and t != skip:
            return t
        knight = KNIGHT | by
        for s in _KNIGHT_STEPS:
            t = to + s
            if not t & 0x88 and b[t] == knight and t != skip:
                return t
        queen = NO_SQUARE
        king = NO_SQUARE
        for s in _DIAGONALS:
            t = to + s
            while not t & 0x88:
                p = b[t]
                if p:
                    if p & 8 == by and t != skip:
                        kind = p & 7
                        if kind == BISHOP:
                            return t  # after pawns and knights, nothing is cheaper
                        if kind == QUEEN:
                            queen = t
                        elif kind == KING and t == to + s:
                            king = t
                    break
                t += s
        for s in _LINES:
            t = to + s
            while not t & 0x88:
                p = b[t]
                if p:
                    if p & 8 == by and t != skip:
                        kind = p & 7
                        if kind == ROOK:
                            return t
                        if kind == QUEEN:
                            queen = t
                        elif kind == KING and t == to + s:
                            king = t
                    break
                t += s
        return queen if queen != NO_SQUARE else king
