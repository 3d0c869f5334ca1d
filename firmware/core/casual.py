# Casual mode's readings of a board that matches no legal move (docs/spec.md section 3): the last move being taken
# back (the position before it set up again), or a rook move that was the first half of rook-first
# castling, the king now following.
#
# core/referee.py calls these only in casual mode and imports this module the first time it does,
# so a board playing strict (the default) keeps the heap this code would take.
from core.position import MOVE_CASTLING, ROOK, castling_rook, move_from, move_to, part_of


def alternatives(ref):
    """Casual mode: a takeback (the previous position set up again), or rook-first castling
    (the king follows a rook move that was the first half of castling). Returns True if the
    board is on its way to one of them."""
    game = ref.game
    if not game.ply():
        return False
    if ref.occ == ref.prev:
        ref.pending_kind = "undo"
        ref.in_progress = True
        ref.clear_error()
        return True
    last = game.last_move()
    for sq in ref.emptied + ref.filled:
        if not part_of(last, sq):
            break
    else:
        # Only squares of the last move differ: it may be on its way back (a takeback).
        ref.in_progress = True
        ref.clear_error()
        return True
    castle = rook_first_castling(ref)
    if castle:
        prev = ref.prev
        emptied = []
        filled = []
        for sq in range(64):
            if ref.occ[sq] != prev[sq]:
                (emptied if prev[sq] else filled).append(sq)
        move, progress = ref.match((castle,), prev, emptied, filled)
        if move:
            ref.pending = move
            ref.pending_kind = "castle"
        if progress:
            ref.in_progress = True
            ref.clear_error()
            return True
    return False


def rook_first_castling(ref):
    """If the last move was a rook leaving its corner for the square it takes in castling, and
    castling on that side was legal before it, return that castling move, else 0."""
    game = ref.game
    last = game.last_move()
    if not last or last >> 14:
        return 0
    f = move_from(last)
    t = move_to(last)
    pairs = ((7, 5), (0, 3), (63, 61), (56, 59))
    if (f, t) not in pairs or game.position.piece_at(t) & 7 != ROOK:
        return 0
    pos = game.position
    pos.unmake()
    castle = 0
    king = pos.king_square(pos.side)
    for m in pos.legal_moves_from(king, []):
        if m >> 14 == MOVE_CASTLING and castling_rook(m)[0] == f:
            castle = m
    pos.make(last)
    return castle
