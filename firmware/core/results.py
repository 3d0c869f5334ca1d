# Results set on the board by the kings (DGT convention): both kings on the light centre squares
# (d5, e4) = 1-0, on the dark ones (d4, e5) = 0-1, one on each colour = draw. Two kings side by
# side can never be a legal position, so this can never be confused with a move.
#
# core/referee.py asks only when the board matches no move in progress, and imports this module
# the first time it does (the board's first stray piece or gesture), not at start-up.
from micropython import const

from core.game import AGREEMENT, RESIGNATION
from core.position import BLACK, WHITE

_D4 = const(27)
_E4 = const(28)
_D5 = const(35)
_E5 = const(36)
_CENTRE = (_D4, _E4, _D5, _E5)


def kings_result(ref):
    """The result the kings on the centre squares give (DGT convention), or None."""
    pos = ref.game.position
    kw = pos.king_square(WHITE)
    kb = pos.king_square(BLACK)
    # Where the kings are now: squares they left and centre squares newly filled.
    targets = []
    for sq in ref.filled:
        if sq not in _CENTRE:
            return None
        targets.append(sq)
    for sq in ref.emptied:
        if sq != kw and sq != kb:
            return None
    kings = list(targets)
    for k in (kw, kb):
        if ref.occ[k]:
            kings.append(k)  # this king stayed where it was
    if len(kings) != 2 or len(targets) == 0:
        return None
    if kings[0] not in _CENTRE or kings[1] not in _CENTRE:
        return None
    light = 0
    for sq in kings:
        if sq == _D5 or sq == _E4:
            light += 1
    if light == 2:
        return ("1-0", RESIGNATION)
    if light == 0:
        return ("0-1", RESIGNATION)
    return ("1/2-1/2", AGREEMENT)


def only_kings_up(ref):
    """Are the kings (one, both or none) the only pieces off their squares? The gestures made
    with the kings start so: a result here, the board's engine (engine/opponent.py) at the start."""
    pos = ref.game.position
    kw = pos.king_square(WHITE)
    kb = pos.king_square(BLACK)
    for sq in ref.emptied:
        if sq != kw and sq != kb:
            return False
    return True


def kings_on_their_way(ref):
    """Only kings are up and only centre squares filled: a result is being set up."""
    if not only_kings_up(ref):
        return False
    for sq in ref.filled:
        if sq not in _CENTRE:
            return False
    return len(ref.emptied) > 0
