# Who can still checkmate (FIDE 6.9, 7.5.5) and dead positions (FIDE 5.2.2: "the game is drawn when
# a position has arisen in which neither player can checkmate the opponent's king with any series of
# legal moves"; docs/spec.md section 10).
#
# A side is said to be unable to mate only when that is proven; anything not proven counts as able
# to mate, so no game is ever drawn that is not dead. Three proofs, cheapest first (the approach of
# Miguel Ambrona's unwinnability analysis, "Chess unwinnability" and the D3-Chess project, in a form
# small enough for the Pico):
# 1. Material (by_material): a bare king, a lone knight against queens only, bishops of one square
#    colour against pieces that can always take or block them.
# 2. The pawn wall (pawn_wall): every pawn stands behind a pawn, so none can ever move unless a pawn
#    captures or is captured. No pawn can capture now, and no piece can ever reach a square an enemy
#    pawn attacks or holds (a flood over the squares each piece can step to, own pawns blocking),
#    and no king can reach an enemy pawn it could take: then the pawns never change, and a side
#    whose pieces can never reach a square the other king can reach can never give check.
# 3. A bounded search (search): every series of moves to a small depth, the proofs above at each
#    position. It ends early when it finds a mate (helped by the loser: a helpmate), and proves
#    "cannot" when every line ends in a draw, a mate of the other side or a position (1) or (2)
#    proves. When it runs out of positions it has proven nothing: the side can mate.
#
# Loaded on first use: a flag fall or a losing illegal move (core/arbiter.py: can_mate, with the
# search), and a position where every pawn stands behind another after a capture or a pawn move, the
# move after one, or a game's first position (core/game.py: is_dead, without the search).
from micropython import const

from core.position import BISHOP, BLACK, KING, KNIGHT, NO_SQUARE, PAWN, QUEEN, ROOK, SQUARES88, WHITE
from core.position_tables import KING_STEPS, KNIGHT_STEPS

DEAD_POSITION = "dead-position"  # the reason core/game.py gives for the end of a dead game

# What search() proves about one side.
MATE = const(0)  # a series of legal moves mates the other king
DEAD = const(1)  # no series of legal moves does
UNKNOWN = const(2)  # neither proven within the positions allowed

# How many positions search() may visit at a flag fall or a second illegal move (core/arbiter.py),
# where the answer decides the game: the scan loop waits for it once, and docs/figures.md ("dead
# positions") gives what it costs. After a move (core/game.py) only the material and the pawn wall
# are asked: the step that commits a move has no time for a search.
ARBITER_NODES = const(16)
_WALL_NODES = const(4)  # what search() charges for a pawn_wall (docs/figures.md: "dead positions")
_ROOK_STEPS = KING_STEPS[0:4]  # core/position_tables.py lists the four straight steps first
_BISHOP_STEPS = KING_STEPS[4:8]
# pawn_wall's bits of a square.
_WHITE_PAWN = const(1)
_BLACK_PAWN = const(2)
_BY_WHITE = const(4)  # a white pawn attacks it
_BY_BLACK = const(8)
_WHITE_BIT = const(1)  # pawn_wall's answer: white cannot mate
_BLACK_BIT = const(2)  # ... black cannot mate


def by_material(position, colour):
    """Could `colour` (WHITE or BLACK) mate judging by the material alone? False only when it surely
    cannot:
    - a bare king;
    - one knight, against a king whose only other pieces (if any) are queens: a mate by a lone
      knight needs a piece of the mated side next to its king that is stuck there, and a queen
      beside the king can always take the knight or step off (python-chess's
      has_insufficient_material draws the same line, host_tests/test_clock.py compares them);
    - bishops all on squares of one colour, against a king whose other pieces (if any) are rooks,
      queens or bishops on that colour: the king in check stands on the bishops' colour, two of its
      neighbours are of the other colour, one king cannot cover both, and a rook or queen put there
      can always take or block the checking bishop (a pawn, a knight or a bishop of the other
      colour cannot).
    Anything else can (a pawn may promote; two knights, or a knight and a bishop, or bishops of
    both colours can with the other side's help)."""
    board = position.board
    knights = 0
    bishop_colours = 0  # bit 0: a bishop on a dark square, bit 1: on a light one
    their_blockers = 0  # the other side's pawns and knights
    their_rooks = 0  # ... and rooks
    their_bishop_colours = 0
    for sq in SQUARES88:
        p = board[sq]
        if not p:
            continue
        kind = p & 7
        if kind == KING:
            continue
        shade = 1 << (((sq >> 4) + sq) & 1)  # a1 (0x00) is dark: bit 0
        if p & BLACK == colour:
            if kind == KNIGHT:
                knights += 1
            elif kind == BISHOP:
                bishop_colours |= shade
            else:
                return True  # a pawn, rook or queen
        elif kind == BISHOP:
            their_bishop_colours |= shade
        elif kind == PAWN or kind == KNIGHT:
            their_blockers += 1
        elif kind == ROOK:
            their_rooks += 1
    if not knights and not bishop_colours:
        return False
    if knights >= 2 or (knights and bishop_colours) or bishop_colours == 3:
        return True
    if knights:
        return their_blockers > 0 or their_rooks > 0 or their_bishop_colours != 0
    return their_blockers > 0 or (their_bishop_colours & ~bishop_colours) != 0


def _locked(board):
    """Does every pawn stand right behind a pawn (of either colour), with at least one pawn on the
    board? Then no pawn can move until one captures or is captured (core/game.py asks the same
    before it loads this module)."""
    pawns = 0
    for sq in SQUARES88:
        p = board[sq]
        if p & 7 == PAWN:
            if board[sq - 16 if p & BLACK else sq + 16] & 7 != PAWN:
                return False
            pawns += 1
    return pawns > 0


def _flood(cells, marks, bit, start, steps, stop, fail):
    """Mark with `bit` in marks (bytearray(128), 0x88) every square a piece on `start` can ever
    stand on while the pawns do not change: `steps` are its single steps (a slider's move is a
    series of them through squares no pawn holds). cells: pawn_wall's bits of each square; a square
    with a bit of `stop` is never entered (the piece's own pawns; for a king also a square an enemy
    pawn attacks, a defended pawn's included), and one of `fail` changes the pawns if entered (an
    enemy pawn taken; for a piece also a square an enemy pawn attacks, where the pawn may take it):
    then the answer is False."""
    todo = bytearray(64)  # squares marked whose steps are still to be followed
    n = 1
    todo[0] = start
    marks[start] |= bit
    while n:
        n -= 1
        s = todo[n]
        for d in steps:
            t = s + d
            if t & 0x88 or marks[t] & bit:
                continue
            c = cells[t]
            if c & stop:
                continue
            if c & fail:
                return False
            marks[t] |= bit
            todo[n] = t
            n += 1
    return True


def pawn_wall(position):
    """Which sides the pawn structure proves cannot mate: _WHITE_BIT | _BLACK_BIT, or 0 (nothing
    proven: a pawn can move or capture, or a piece or king can reach one). See the top of the module.
    Costs a flood of the board for each king and each kind of piece: docs/figures.md ("dead positions")."""
    board = position.board
    if not _locked(board):
        return 0
    # Each square's bits: a white pawn, a black pawn, attacked by a white pawn, by a black pawn.
    cells = bytearray(128)
    for sq in SQUARES88:
        p = board[sq]
        if p & 7 != PAWN:
            continue
        if p & BLACK:
            cells[sq] |= _BLACK_PAWN
            ahead = sq - 16
            bit = _BY_BLACK
        else:
            cells[sq] |= _WHITE_PAWN
            ahead = sq + 16
            bit = _BY_WHITE
        for t in (ahead - 1, ahead + 1):
            if not t & 0x88:
                cells[t] |= bit
                q = board[t]
                if q and q & BLACK != p & BLACK:
                    return 0  # the pawn can capture now (or gives check)
    if position.ep != NO_SQUARE and position.has_legal_en_passant():
        return 0
    # Where each king can go (bits 1 and 2 of kings), and each kind of piece of each side (bits 0-7
    # of pieces: knight, bishop, rook, queen of white, then of black).
    kings = bytearray(128)
    pieces = bytearray(128)
    if not _flood(cells, kings, 1, position.kings[WHITE], KING_STEPS, _WHITE_PAWN | _BY_BLACK, _BLACK_PAWN):
        return 0
    if not _flood(cells, kings, 2, position.kings[BLACK], KING_STEPS, _BLACK_PAWN | _BY_WHITE, _WHITE_PAWN):
        return 0
    for sq in SQUARES88:
        p = board[sq]
        kind = p & 7
        if kind < KNIGHT or kind > QUEEN:
            continue
        bit = 1 << (kind - KNIGHT + (4 if p & BLACK else 0))
        if pieces[sq] & bit:
            continue  # a piece of the same kind and side reaches this square: its flood is done
        steps = KNIGHT_STEPS if kind == KNIGHT else _BISHOP_STEPS if kind == BISHOP else _ROOK_STEPS if kind == ROOK else KING_STEPS
        if p & BLACK:
            ok = _flood(cells, pieces, bit, sq, steps, _BLACK_PAWN, _WHITE_PAWN | _BY_WHITE)
        else:
            ok = _flood(cells, pieces, bit, sq, steps, _WHITE_PAWN, _BLACK_PAWN | _BY_BLACK)
        if not ok:
            return 0
    # A piece gives check from a square it can stand on to a square in its steps' reach that no pawn
    # holds: such a square is one it can stand on too (the floods are closed under its steps). So a
    # side can give check only if one of its pieces can stand where the other king can.
    proven = _WHITE_BIT | _BLACK_BIT
    for sq in SQUARES88:
        k = kings[sq]
        if k:
            q = pieces[sq]
            if k & 2 and q & 0x0F:
                proven &= ~_WHITE_BIT  # a white piece can reach the black king's squares
            if k & 1 and q & 0xF0:
                proven &= ~_BLACK_BIT
    return proven


def _bit(colour):
    return _WHITE_BIT if colour == WHITE else _BLACK_BIT


class _Search:
    """A depth-first search over every series of legal moves, to a depth and within `nodes`
    positions, for a mate by the sides asked about (`sides`: _WHITE_BIT, _BLACK_BIT or both)."""

    def __init__(self, position, nodes):
        self.position = position
        self.left = nodes

    def proves(self, sides):
        """MATE (one of `sides` mates), DEAD (none of them can) or UNKNOWN, deepening one ply at a
        time while positions are left: the first mate is found at the shallowest depth it lies, and
        a short forced line is proven dead before the positions run out on longer ones."""
        pos = self.position
        if self._proven(pos) & sides == sides:
            return DEAD
        depth = 1
        while self.left > 0:
            r = self._node(sides, depth, False)  # the root's proofs are asked above, once
            if r != UNKNOWN:
                return r
            depth += 1
        return UNKNOWN

    def _proven(self, pos):
        """The sides by_material and pawn_wall prove cannot mate here (pawn_wall charged)."""
        proven = 0
        if not by_material(pos, WHITE):
            proven = _WHITE_BIT
        if not by_material(pos, BLACK):
            proven |= _BLACK_BIT
        if _locked(pos.board):
            self.left -= _WALL_NODES  # the floods cost about as much as this many positions
            proven |= pawn_wall(pos)
        return proven

    def _node(self, sides, depth, fresh):
        """fresh: the material or the pawns may have changed since the position before (a capture,
        a pawn move, the first position), or that one was in check or had an en-passant square.
        Otherwise by_material and pawn_wall say what they said there (its floods are closed under
        every move but those), which did not prove the sides cannot mate: they are not asked again.
        That keeps a position of a fortress, where the kings walk about, to the cost of its moves."""
        pos = self.position
        moves = pos.generate_legal([])
        if not moves:
            if pos.is_check() and _bit(pos.side ^ BLACK) & sides:
                return MATE
            return DEAD  # stalemate, or mated by a side not asked about: no mate of theirs here
        if fresh and self._proven(pos) & sides == sides:
            return DEAD
        if depth <= 0:
            return UNKNOWN
        again = pos.ep != NO_SQUARE or pos.is_check()
        result = DEAD
        for m in moves:
            if self.left <= 0:
                return UNKNOWN  # moves left unsearched: nothing proven
            self.left -= 1
            pos.make(m)
            try:
                r = self._node(sides, depth - 1, again or pos.halfmove == 0)
            finally:
                pos.unmake()
            if r == MATE:
                return MATE
            if r == UNKNOWN:
                result = UNKNOWN
        return result


def search(position, colour, nodes):
    """What a search of at most `nodes` positions proves for `colour`: MATE, DEAD or UNKNOWN. The
    position is the same afterwards (every move made is unmade, a MemoryError included)."""
    return _Search(position, nodes).proves(_bit(colour))


def can_mate(position, colour, nodes=ARBITER_NODES):
    """Could `colour` checkmate the other king by any series of legal moves (FIDE 6.9)? False only
    when proven: material, the pawn wall, then a search of at most `nodes` positions. A MemoryError
    proves nothing: the answer is then True."""
    if not by_material(position, colour):
        return False
    try:
        return search(position, colour, nodes) != DEAD
    except MemoryError:
        return True


def is_dead(position, nodes=0):
    """Is the position dead (FIDE 5.2.2): can neither side mate by any series of legal moves? True
    only when proven for both: material and the pawn wall, then (nodes > 0) a search of at most
    `nodes` positions for a mate by either side. A MemoryError proves nothing: the answer is False."""
    try:
        return _Search(position, nodes).proves(_WHITE_BIT | _BLACK_BIT) == DEAD
    except MemoryError:
        return False
