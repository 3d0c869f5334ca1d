# The search: iterative deepening negamax alpha-beta (PVS), with quiescence, that can stop after any
# node and carry on later.
#
# Why resumable: on the board the engine thinks inside the scan loop, which must read the reed
# switches every few milliseconds. A recursive search cannot hand control back in the middle, so
# this one keeps its stack in arrays, one entry per ply (window, depth, best score, which move it
# is on, what the child search was for), and run(budget) visits at most `budget` positions before
# it returns. The same loop serves tools/uci.py, which simply calls run() until the clock says stop.
# Below the horizon the trees are small (a capture or two), and most positions are there: so
# quiescence is an ordinary recursive function (_qsearch), searched to the end in one step.
#
# Where it runs fast: on the Pico the move generator, make/unmake's bookkeeping, the choice of the
# next move, quiescence and the moves of a node one ply above the horizon run as native code
# (engine/native.py, use_native() below): the same work in the same order, so the tree, the
# nodes and the move are the same as the Python's (the tests compare both on the chip).
#
# What it does, in the order a node meets it:
# - a draw by repetition or the fifty-move rule scores 0 (the game's earlier positions count: they
#   are the position's own undo records);
# - a side in check searches one ply deeper (so mates and escapes are seen through);
# - at depth 0, quiescence: the side to move may "stand pat" on the static evaluation (less what a
#   fork by the last piece moved will cost it) or try captures (and queen promotions), best victim
#   by least attacker first (MVV-LVA), so the score is never taken in the middle of an exchange;
#   a side in check there tries every escape instead;
# - the transposition table (a small array) gives a cutoff or at least the best move found before;
# - near the leaves, a scout node far above beta is cut off (reverse futility);
# - null move: if passing still leaves the opponent unable to reach beta, the node is cut off;
# - moves are tried hash move / previous iteration's best first, then captures MVV-LVA, then two
#   killer moves per ply, then the other quiet moves by history; one ply from the leaves a quiet
#   move far below alpha is not tried (futility); late quiet moves are searched one ply shallower
#   and with a null window (PVS), and searched again in full only if they surprise;
# - at the root each move is charged what it leaves en prise (SEE, engine/see.py), so a safe move
#   is preferred to one whose compensation lies beyond the horizon.
#
# Memory: everything is preallocated in the constructor (footprint() counts it, the piece-square
# tables included; the figure is in docs/figures.md); a node allocates nothing on MicroPython. Scores and moves
# stay small ints. fitted() makes the arrays to the heap there is, and the native code loads only
# where it leaves room for them (NATIVE_ROOM).
import sys
from array import array

from micropython import const

from memory import free

from core.position import (
    BLACK,
    KING,
    KNIGHT,
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    MOVE_PROMOTE_KNIGHT,
    NO_SQUARE,
    PAWN,
    ROOK,
    WHITE,
    Z_SIDE,
)
from engine.movegen import MAX_MOVES_PER_POSITION, generate
from engine.see import Exchange
from engine.tables import EG, MG, PHASE, PHASE_FULL, VALUE

MATE = const(30000)  # a mate in n plies from the root scores MATE - n
MATE_BOUND = const(29000)  # scores beyond this are mates
INFINITE = const(31000)

# What run() does next at the current ply.
_ENTER = const(0)  # a new node: draw checks, leaf or quiescence, table, null move
_GEN = const(1)  # generate and order the moves
_NEXT = const(2)  # try the next move
_RETURN = const(3)  # the node's value is in self._value: hand it to the parent

# Per-ply flags.
_IN_CHECK = const(2)
_NULL_PENDING = const(4)  # the child being searched is a null move (a pass)
_AFTER_NULL = const(8)  # this node was reached by a null move: no second pass in a row

# What the child search of the current move is (PVS and late move reductions).
_FULL = const(0)  # full window, full depth
_REDUCED = const(1)  # null window, one ply shallower
_SCOUT = const(2)  # null window, full depth

# Transposition table entry kinds (in the top two bits of the depth byte).
_EXACT = const(1)
_LOWER = const(2)  # the score is at least this (a cutoff)
_UPPER = const(3)  # the score is at most this (no move reached alpha)

# Move-ordering keys, stored above the 17 move bits in the same array entry (key << 17 | move):
# all below 2**13 so that the entry stays a small int (< 2**30). Captures (6000 and up) and queen
# promotions (7000 and up) get theirs in engine/movegen.py.
_KEY_HASH = const(8000)
_KEY_KILLER1 = const(5000)
_KEY_KILLER2 = const(4900)
_HISTORY_MAX = const(4000)
_MOVE_MASK = const(0x1FFFF)

# run()'s clock wraps at 2**30 (time.ticks_us): it has passed `until` when the difference, taken
# round the wrap, is less than half the range.
_TICKS_MASK = const(0x3FFFFFFF)
_TICKS_HALF = const(0x20000000)

_NULL_REDUCTION = const(2)
_ADDRESSES = const(58)  # engine/native.py's ADDRESSES: two words for each array its bind() gives the address of
# Quiescence goes at most this many plies deep (a chain of captures seldom runs longer). It bounds
# the recursion of _qsearch, which on the Pico is native code on the C stack: measured on the
# emulated chip, a level takes about 450 bytes of the 8 KB stack, and nine levels reached 5.4 KB.
_QUIESCENCE_PLIES = const(6)
# Near the leaves a quiet move changes the score by a piece's position, seldom more: a node this far
# above beta is left (reverse futility), a quiet move this far below alpha is not tried (futility).
_RFP_MARGIN = const(120)  # a ply, up to two plies from the leaves
_FUTILITY_MARGIN = const(150)  # one ply from the leaves
_DELTA_MARGIN = const(150)  # what a capture may gain beyond the victim (position, a pawn's push)
_TEMPO = const(10)  # the side to move is a little better off: it moves first


# For a difference of two 0x88 squares (+119): 1 if they share a rank, file or diagonal; 2 if a
# knight's jump apart. A piece that stops a check lands on a line through the king (blocking it or
# taking a slider or pawn) or a knight's jump from it (taking the knight): nothing else can help.
_ALIGNED = bytearray(239)
for _d in (16, -16, 1, -1, 17, 15, -15, -17):
    for _n in range(1, 8):
        _ALIGNED[_d * _n + 119] = 1
for _d in (33, 31, 18, 14, -14, -18, -31, -33):
    _ALIGNED[_d + 119] = 2


# The lines a knight, bishop or rook attacks along (index = piece type), for _forked.
_FORK_STEPS = (
    None,
    None,
    (33, 31, 18, 14, -14, -18, -31, -33),
    (17, 15, -15, -17),
    (16, -16, 1, -1),
)


def _pick(moves, i, end):
    """The entry of moves[i:end] with the highest ordering key, swapped to i and returned: a
    selection, since the first moves usually cut the node off and sorting the rest would be
    wasted (engine/native.py's pick on the Pico)."""
    top = i
    w = moves[i]
    for j in range(i + 1, end):
        if moves[j] > w:
            w = moves[j]
            top = j
    moves[top] = moves[i]
    moves[i] = w
    return w


def _zeros(typecode, n):
    """An array of n zeros, allocated once: from a range (whose length is known) MicroPython sizes
    the array exactly, where bytes(4 * n) would first need a temporary buffer as big again."""
    a = array(typecode, range(n))
    for i in range(n):
        a[i] = 0
    return a


def _words(n):
    return _zeros("i", n)


# The transposition table's size (entries = 1 << bits), largest first: a board short of memory (a
# Pico W with Bluetooth and an app in a round) plays with a smaller table, each bit less halving its
# 5.5 KB, rather than not at all; the rest of the arrays (about 14 KB, the largest 4 KB) stay.
TT_BITS = b"\x09\x08\x07\x06"


def fitted():
    """A Search whose arrays fit the heap: the largest table that can be made, each try after a
    collection so that the arrays go low and in one piece. MemoryError when even the smallest
    cannot (engine/opponent.py then says so and the board plays on without it)."""
    for bits in TT_BITS:
        free()
        try:
            return Search(tt_bits=bits)
        except MemoryError:
            pass
    raise MemoryError


class Search:
    """One engine: start(position, ...) then run(budget) until it returns True; best_move then.

    The position passed to start() is the engine's own to use until the search ends (it makes and
    unmakes moves on it between run() calls): give it a copy, not the game the referee reads."""

    def __init__(self, max_ply=48, move_room=1024, tt_bits=9):
        self.max_ply = max_ply
        # The largest arrays first, while the heap's largest free blocks are still there.
        self.moves = _words(move_room)
        self.move_room = move_room
        self.history = _zeros("h", 16 * 128)  # piece code << 7 | destination (0x88)
        n = max_ply + 1
        # Scores stay within +-INFINITE (31,000): 16 bits, which engine/native.py reads signed.
        self._alpha = _zeros("h", n)
        self._beta = _zeros("h", n)
        self._depth = _words(n)
        self._best = _zeros("h", n)
        self._best_move = _words(n)
        self._alpha0 = _zeros("h", n)
        self._next = _words(n)  # index of the next move to try in self.moves
        self._end = _words(n)
        self._move = _words(n)  # the move being searched at this ply
        self._kind = bytearray(n)  # _FULL, _REDUCED or _SCOUT for that move's child
        self._legal = _words(n)  # legal moves tried so far
        self._flags = bytearray(n)
        # Material + piece-square sums, white minus black, per phase (16 bits: nine queens fit).
        self._mg = _zeros("h", n + 1)
        self._eg = _zeros("h", n + 1)
        self._phase = _words(n + 1)
        self._static = _zeros("h", n)  # static evaluation for the side to move
        self._saved_ep = _words(n)  # what a null move clears, to put back
        self._saved_clock = _words(n)
        # Piece lists, so that move generation visits 16 squares, not 64: white's squares in
        # pieces[0:16], black's in pieces[16:32], how many each in count[side >> 3], and where on
        # the list the piece on each square is in slot[]. Kept up to date by _make/_unmake.
        self.pieces = bytearray(32)
        self.count = bytearray(2)
        self._slot = bytearray(128)
        self._victim_sq = bytearray(n)  # where the piece taken at each ply stood (NO_SQUARE if none)
        self.killers = _words(2 * n)
        size = 1 << tt_bits
        self._tt_mask = size - 1
        self._tt_key = _words(size)
        self._tt_move = _words(size)
        self._tt_score = _zeros("h", size)
        self._tt_info = bytearray(size)  # depth | kind << 6
        self.exchange = Exchange()
        # Where engine/native.py's bind() puts the addresses of these arrays, for its code to reach
        # them without an attribute lookup each (unused by the plain path).
        self._addr = _zeros("I", _ADDRESSES)
        # The root's moves and what each leaves en prise (see _risk_of), found in the first
        # iteration and charged to the move's score in every iteration.
        self._root_move = _words(MAX_MOVES_PER_POSITION)
        self._root_risk = _zeros("h", MAX_MOVES_PER_POSITION)
        self._risk = 0  # the risk of the root move being searched
        self._q_root = 0  # the ply where the quiescence being searched began
        self.pos = None
        self.done = True
        self.nodes = 0
        self.best_move = 0
        self.score = 0
        self.depth = 0  # the deepest iteration completed
        self.root_moves = 0  # legal moves at the root (known once depth 1 is done)

    def footprint(self):
        """Bytes of preallocated state (arrays and tables, not the code)."""
        words = (
            self.moves, self._depth, self._best_move, self._next, self._end, self._move, self._legal,
            self._phase, self._saved_ep, self._saved_clock, self.killers, self._tt_key, self._tt_move,
            self._root_move, self._addr,
        )  # array("i"); fmt: skip
        halves = (
            self._alpha, self._beta, self._best, self._alpha0, self._static, self._mg, self._eg,
            self.history, self._tt_score, self._root_risk, MG, EG,
        )  # array("h"); fmt: skip
        n = len(self._kind) + len(self._flags) + len(self._tt_info) + 32 + 2 + 128 + len(self._victim_sq)
        for a in words:
            n += 4 * len(a)
        for a in halves:
            n += 2 * len(a)
        return n

    def clear(self):
        """Forget what earlier games taught the tables (a new game)."""
        for a in (self._tt_key, self._tt_move, self.killers, self.history):
            for i in range(len(a)):
                a[i] = 0
        for i in range(len(self._tt_info)):
            self._tt_info[i] = 0

    # ------------------------------------------------------------------ control

    def start(self, pos, max_depth=32, max_nodes=1 << 29):
        """Begin searching pos for the side to move. max_depth: plies of the deepest iteration;
        max_nodes: positions to visit at most (the search stops in the middle of an iteration and
        keeps the best move found so far)."""
        self.pos = pos
        self.max_depth = min(max_depth, self.max_ply - 1)
        self.max_nodes = max_nodes
        self.nodes = 0
        self.best_move = 0
        self.score = 0
        self.depth = 0
        self.root_moves = 0
        self.done = False
        if _native is not None:
            _native.bind(self)  # the arrays' addresses, the position's board and kings among them
        mg = eg = ph = 0
        b = pos.board
        pieces = self.pieces
        count = self.count
        count[0] = count[1] = 0
        for sq in range(120):
            p = b[sq] if not sq & 0x88 else 0
            if p:
                side = p >> 3
                i = side << 4 | count[side]
                pieces[i] = sq
                self._slot[sq] = i
                count[side] += 1
                kind = p & 7
                if p & 8:
                    i = kind << 7 | (sq ^ 0x70)
                    mg -= MG[i]
                    eg -= EG[i]
                else:
                    i = kind << 7 | sq
                    mg += MG[i]
                    eg += EG[i]
                ph += PHASE[kind]
        self._mg[0] = mg
        self._eg[0] = eg
        self._phase[0] = ph
        for i in range(len(self.killers)):
            self.killers[i] = 0
        h = self.history
        for i in range(len(h)):
            h[i] >>= 2  # old history still hints, but the new position matters more
        self._iterate(1)

    def _iterate(self, depth):
        self._root_depth = depth
        self._ply = 0
        self._alpha[0] = -INFINITE
        self._beta[0] = INFINITE
        self._depth[0] = depth
        self._flags[0] = 0
        self._action = _ENTER

    def stop(self):
        """End the search now (the best move so far stays in best_move); the position is restored."""
        if not self.done:
            self._abort()

    def _abort(self):
        pos = self.pos
        ply = self._ply
        if not self.best_move:
            # Stopped before the first move was searched to the end: the move on the path at the
            # root is legal (it was tested when made), else any legal move.
            if ply:
                self.best_move = self._move[0]
            else:
                first = pos.legal_moves()
                self.best_move = first[0] if first else 0
        # Take back the moves on the path. A ply whose child is a null move has made no move.
        for p in range(ply - 1, -1, -1):
            if self._flags[p] & _NULL_PENDING:
                self._unnull(p)
            else:
                self._unmake(p)
        self._ply = 0
        self.done = True

    def think(self, pos, max_depth=32, max_nodes=1 << 29, clock=None, time_ms=0, slice_nodes=256):
        """Search to the end in one call (tools, tests): clock() in ms with time_ms stops it too.
        Returns the best move (0 if the side to move has none)."""
        self.start(pos, max_depth, max_nodes)
        t0 = clock() if clock is not None else 0
        while not self.run(slice_nodes):
            if clock is not None and time_ms and clock() - t0 >= time_ms:
                self.stop()
        return self.best_move

    # ------------------------------------------------------------------ the search loop

    def run(self, budget, clock=None, until=0):
        """Visit at most `budget` positions; True when the search has finished. With clock (a
        microsecond counter that wraps at 2**30, time.ticks_us on the Pico), stop too once it has
        passed `until`: on the board one call fills a slice, where a call a position would spend
        a tenth of the slice getting in and out of this loop."""
        # The states: `action` at the node `ply`. The stack lives in the arrays, so a call can stop
        # at _ENTER or _NEXT (budget or clock spent: False) and the next call carries on there; out
        # of nodes, it ends the search (True).
        #
        #   _ENTER  draw, mate distance, table hit, reverse futility, stack full ---> _RETURN
        #      |    at the horizon: _qsearch, to the end in one go ---------------> _RETURN
        #      |    null move: pass, ply + 1 -------------------------------------> _ENTER
        #      v
        #   _GEN    generate and order the node's moves
        #      v
        #   _NEXT   no move left: the node's value (mate, stalemate, best) -------> _RETURN
        #      |    futile or illegal move: skipped ------------------------------> _NEXT
        #      |    one ply above the horizon on the Pico: native.frontier ------> _NEXT/_RETURN
        #      +--- make the move (full, reduced or scout window), ply + 1 -------> _ENTER
        #
        #   _RETURN back to the parent, ply - 1:
        #           after a null move: beta reached ---> _RETURN, else ---> _GEN
        #           unmake; a reduced or scout search that beat alpha: again ---> _ENTER
        #           beta reached (a cutoff, stored) ---> _RETURN, else ---> _NEXT
        #           at the root: the iteration is over ---> the next depth at _ENTER,
        #           or the search is done (True)
        if self.done:
            return True
        pos = self.pos
        b = pos.board
        moves = self.moves
        alphas = self._alpha
        betas = self._beta
        depths = self._depth
        bests = self._best
        best_moves = self._best_move
        nexts = self._next
        ends = self._end
        cur = self._move
        kinds = self._kind
        legal = self._legal
        flags = self._flags
        ply = self._ply
        action = self._action
        value = self._value if action == _RETURN else 0
        max_ply = self.max_ply
        room = self.move_room - MAX_MOVES_PER_POSITION
        native = _native
        pick = native.pick if native is not None else _pick
        while True:
            if action == _ENTER:
                if self.nodes >= self.max_nodes and ply:
                    self._ply = ply
                    self._abort()
                    return True
                if budget <= 0 or (clock is not None and (clock() - until) & _TICKS_MASK < _TICKS_HALF):
                    self._ply = ply
                    self._action = _ENTER
                    return False
                budget -= 1
                if depths[ply] <= 0:
                    # The horizon: quiescence, searched to the end in one call (_qsearch).
                    self._q_root = ply
                    value = self._qsearch(ply, alphas[ply], betas[ply])
                    action = _RETURN
                    continue
                self.nodes += 1
                alpha = alphas[ply]
                beta = betas[ply]
                depth = depths[ply]
                us = pos.side
                if ply:
                    if pos.halfmove >= 100 or self._repeated():
                        value = 0
                        action = _RETURN
                        continue
                    # A mate found nearer the root cannot be beaten here (mate distance pruning).
                    if alpha < -MATE + ply:
                        alpha = -MATE + ply
                    if beta > MATE - ply - 1:
                        beta = MATE - ply - 1
                    if alpha >= beta:
                        value = alpha
                        action = _RETURN
                        continue
                static = self._evaluate(ply, us)
                # This node's moves go after its parent's in the shared array.
                base = ends[ply - 1] if ply else 0
                nexts[ply] = base
                ends[ply] = base
                if ply >= max_ply - 1 or base > room:
                    value = static  # no deeper: the stack or the move array is full
                    action = _RETURN
                    continue
                f = flags[ply] & _AFTER_NULL
                in_check = pos.attacked(pos.kings[us], us ^ 8)
                if in_check:
                    f |= _IN_CHECK
                    # Check extension, kept within twice the iteration's depth so that a run of
                    # checks cannot go on for ever (at the horizon, _qsearch searches the escapes).
                    if ply < 2 * self._root_depth + 2:
                        depth += 1
                self._static[ply] = static
                depths[ply] = depth
                alphas[ply] = alpha
                betas[ply] = beta
                self._alpha0[ply] = alpha
                best_moves[ply] = 0
                legal[ply] = 0
                flags[ply] = f
                bests[ply] = -INFINITE
                if ply:
                    hit = self._probe(ply, depth, alpha, beta)
                    if hit != -INFINITE:
                        value = hit
                        action = _RETURN
                        continue
                    # Reverse futility: a scout node this far above beta so near the leaves stays
                    # above it after any reply the remaining plies could find (except a tactic,
                    # which the null move would not have seen either).
                    if depth <= 2 and not in_check and beta - alpha == 1 and beta < MATE_BOUND and static - _RFP_MARGIN * depth >= beta:
                        value = static - _RFP_MARGIN * depth
                        action = _RETURN
                        continue
                    # Null move: pass; if the opponent still cannot reach beta, this position is
                    # good enough. Not in check, not twice in a row, not without pieces (zugzwang
                    # is common in pawn endings), not near mate scores.
                    if (
                        depth >= 3
                        and not in_check
                        and not f & _AFTER_NULL
                        and static >= beta
                        and beta < MATE_BOUND
                        and self._has_pieces(us)
                    ):
                        flags[ply] = f | _NULL_PENDING
                        self._null(ply)
                        ply += 1
                        alphas[ply] = -beta
                        betas[ply] = -beta + 1
                        depths[ply] = depth - 1 - _NULL_REDUCTION
                        flags[ply] = _AFTER_NULL
                        continue
                action = _GEN
                continue

            if action == _GEN:
                start = ends[ply]
                f = flags[ply]
                if native is not None:
                    end = native.generate(pos, moves, start | (f & _IN_CHECK) << 16, self)  # (spec: IN_CHECK)
                else:
                    side = pos.side >> 3
                    end = generate(pos, moves, start, f & _IN_CHECK, 0, self.history, self.pieces, side << 4, self.count[side])
                self._order(ply, start, end)
                nexts[ply] = start
                ends[ply] = end
                action = _NEXT
                continue

            if action == _NEXT:
                if budget <= 0 or (clock is not None and (clock() - until) & _TICKS_MASK < _TICKS_HALF):
                    # Out of time in the middle of a node's moves (many of a king in check are
                    # illegal, and each costs a make and an unmake): carry on here next time.
                    self._ply = ply
                    self._action = _NEXT
                    return False
                if native is not None and ply and depths[ply] == 1:
                    # One ply above the horizon: engine/native.py's frontier tries the moves (one
                    # searched move a call, as below: the same tree, without this loop's bytecode).
                    budget -= 1
                    value = native.frontier(self, ply)
                    if value == native.MORE:
                        continue
                    if value == native.ABORT:
                        self._ply = ply + 1  # out of nodes with a move made, as at _ENTER
                        self._abort()
                        return True
                    action = _RETURN
                    continue
                i = nexts[ply]
                end = ends[ply]
                if i >= end:
                    # No move left: the node's value.
                    f = flags[ply]
                    if not legal[ply]:
                        value = -MATE + ply if f & _IN_CHECK else 0
                    else:
                        value = bests[ply]
                    self._store(ply, value)
                    if not ply:
                        self.root_moves = legal[0]
                    action = _RETURN
                    continue
                w = pick(moves, i, end)
                nexts[ply] = i + 1
                m = w & _MOVE_MASK
                us = pos.side
                frm = m & 127
                if depths[ply] == 1 and legal[ply] and not flags[ply] & _IN_CHECK and (m >> 14) < MOVE_EN_PASSANT:
                    # Futility: one ply from the leaves, a quiet move (no capture, promotion or
                    # castling) cannot lift a score this far below alpha, unless it gives check:
                    # a move onto or off a line or knight's jump from the enemy king is tried.
                    to = (m >> 7) & 127
                    bound = self._static[ply] + _FUTILITY_MARGIN
                    if not b[to] and bound <= alphas[ply]:
                        k = pos.kings[us ^ 8]
                        if not _ALIGNED[to - k + 119] and _ALIGNED[frm - k + 119] != 1:
                            if bound > bests[ply]:
                                bests[ply] = bound
                            continue
                k = pos.kings[us]
                # Only a king move, en passant, a move in check or one off a line through the king
                # (it may be pinned) can leave the king attacked: just those are tested.
                in_check = flags[ply] & _IN_CHECK
                if in_check and frm != k and not _ALIGNED[((m >> 7) & 127) - k + 119] and (m >> 14) != MOVE_EN_PASSANT:
                    continue  # in check, a move that neither blocks nor takes the checker
                risky = frm == k or in_check or _ALIGNED[frm - k + 119] == 1 or (m >> 14) == MOVE_EN_PASSANT
                cur[ply] = m
                victim_value = VALUE[b[(m >> 7) & 127] & 7] if not ply else 0
                self._make(ply, m)
                if risky and pos.attacked(pos.kings[us], us ^ 8):
                    self._unmake(ply)  # it leaves the king in check: not a legal move
                    budget -= 1
                    continue
                n = legal[ply] + 1
                legal[ply] = n
                alpha = alphas[ply]
                beta = betas[ply]
                depth = depths[ply]
                f = flags[ply]
                if not ply:
                    # The root: the move's child is searched as if the move cost its risk, so
                    # that the score it comes back with, less the risk, is compared to alpha.
                    risk = self._risk_of(m, n, victim_value)
                    if alpha + risk > MATE_BOUND:
                        risk = 0  # a mate is found already: a shifted window would read as one
                    self._risk = risk
                    alpha += risk
                    beta += risk
                ply += 1
                flags[ply] = 0
                action = _ENTER
                if n == 1:
                    alphas[ply] = -beta
                    betas[ply] = -alpha
                    depths[ply] = depth - 1
                    kinds[ply - 1] = _FULL
                else:
                    # Late quiet moves of an ordinary node: probably worse, so look less deep first
                    # (never at the root, where a quiet key move - a mate's first move - must be seen;
                    # ply is already the child's here).
                    r = 0
                    if ply > 1 and depth >= 3 and n > 3 and not f & _IN_CHECK and (w >> 17) < _KEY_KILLER2 and not (m >> 14) >= MOVE_PROMOTE_KNIGHT:
                        r = 1 if n < 10 or depth < 5 else 2
                    alphas[ply] = -alpha - 1
                    betas[ply] = -alpha
                    depths[ply] = depth - 1 - r
                    kinds[ply - 1] = _REDUCED if r else _SCOUT
                continue

            # _RETURN: the node at `ply` is worth `value` (for its side to move).
            if not ply:
                self._root_done(value)
                if self.done:
                    return True
                ply = 0
                action = _ENTER
                continue
            ply -= 1
            score = -value
            f = flags[ply]
            if f & _NULL_PENDING:
                self._unnull(ply)
                flags[ply] = f & ~_NULL_PENDING
                if score >= betas[ply]:
                    value = betas[ply] if score > MATE_BOUND else score  # a mate after a pass proves nothing
                    action = _RETURN
                else:
                    action = _GEN
                continue
            self._unmake(ply)
            m = cur[ply]
            alpha = alphas[ply]
            beta = betas[ply]
            kind = kinds[ply]
            if not ply and -MATE_BOUND < score < MATE_BOUND:
                score -= self._risk  # (a mate is a mate, whatever hangs on the way)
            if kind != _FULL and score > alpha and (kind == _REDUCED or score < beta):
                # The null-window search says this move may be better: search it properly.
                if not ply:
                    alpha += self._risk
                    beta += self._risk
                self._make(ply, m)
                ply += 1
                flags[ply] = 0
                depths[ply] = depths[ply - 1] - 1
                if kind == _REDUCED:
                    alphas[ply] = -alpha - 1
                    betas[ply] = -alpha
                    kinds[ply - 1] = _SCOUT
                else:
                    alphas[ply] = -beta
                    betas[ply] = -alpha
                    kinds[ply - 1] = _FULL
                action = _ENTER
                continue
            action = _NEXT
            if score > bests[ply]:
                bests[ply] = score
                if score > alpha:
                    alphas[ply] = score
                    best_moves[ply] = m
                    if not ply:
                        self.best_move = m
                        self.score = score
                    if score >= beta:
                        self._cutoff(ply, m, depths[ply])
                        self._store(ply, score)
                        value = score
                        action = _RETURN

    def _qsearch(self, ply, alpha, beta):
        """Quiescence at ply (the horizon, or past it): the node's value for the side to move,
        searched to the end in this one call (engine/native.py's qsearch on the Pico, the same
        work in the same order). Most positions a search visits are these, and this loop spends
        less time per position than run()'s resumable one; its trees are a few positions, so a
        slice runs that much longer at most.

        The side to move may stand pat on the static evaluation (less what a fork by the last
        piece moved costs it) or try captures and queen promotions, best victim by least attacker
        first (MVV-LVA), so the score is never taken in the middle of an exchange. A capture that
        cannot lift it to alpha even if it wins the piece for nothing (delta pruning), or a piece
        taking a cheaper, defended one, is not tried: without these the captures after the last
        ply outnumber everything else. A side in check, within the check extension's bound,
        does not stand pat: it tries every escape (and is mated if it has none)."""
        pos = self.pos
        self.nodes += 1
        if pos.halfmove >= 100 or self._repeated():
            return 0
        # A mate found nearer the root cannot be beaten here (mate distance pruning).
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
        us = pos.side
        them = us ^ 8
        static = self._evaluate(ply, us)
        base = self._end[ply - 1]
        if ply >= self.max_ply - 1 or ply - self._q_root >= _QUIESCENCE_PLIES or base > self.move_room - MAX_MOVES_PER_POSITION:
            return static  # no deeper: the stack, the move array or the recursion is at its end
        k = pos.kings[us]
        in_check = pos.attacked(k, them)
        evade = in_check and ply < 2 * self._root_depth + 2
        if evade:
            best = -INFINITE
        else:
            best = static
            if not self._flags[ply] & _AFTER_NULL:
                best -= self._forked(self._move[ply - 1])
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
        moves = self.moves
        side = us >> 3
        end = generate(pos, moves, base, in_check, not evade, self.history, self.pieces, side << 4, self.count[side])
        self._end[ply] = end
        b = pos.board
        legal = 0
        i = base
        while i < end:
            w = _pick(moves, i, end)
            i += 1
            m = w & _MOVE_MASK
            frm = m & 127
            to = (m >> 7) & 127
            flag = m >> 14
            if not evade and flag < MOVE_PROMOTE_KNIGHT:
                # A skipped capture still bounds the node's value from above: the score returned
                # must not claim less than it might have won, or a parent's search with a wider
                # window (a re-search) believes a lost queen is safe.
                victim = VALUE[b[to] & 7] if b[to] else 100
                bound = static + victim + _DELTA_MARGIN
                if bound <= alpha:
                    if bound > best:
                        best = bound
                    continue
                if VALUE[b[frm] & 7] > victim and pos.attacked(to, them):
                    if alpha > best:
                        best = alpha  # assumed no better than alpha: say just that
                    continue
            if in_check and frm != k and not _ALIGNED[to - k + 119] and flag != MOVE_EN_PASSANT:
                continue  # in check, a move that neither blocks nor takes the checker
            risky = frm == k or in_check or _ALIGNED[frm - k + 119] == 1 or flag == MOVE_EN_PASSANT
            self._move[ply] = m
            self._make(ply, m)
            if risky and pos.attacked(pos.kings[us], them):
                self._unmake(ply)  # it leaves the king in check: not a legal move
                continue
            legal += 1
            self._flags[ply + 1] = 0
            score = -self._qsearch(ply + 1, -beta, -alpha)
            self._unmake(ply)
            if score > best:
                best = score
                if score > alpha:
                    if score >= beta:
                        return score
                    alpha = score
        if evade and not legal:
            return -MATE + ply
        return best

    def _forked(self, m):
        """What the side to move stands to lose to a fork by the piece the last move m put on its
        square: with two or more of its pieces attacked by that cheaper piece (a pawn on two
        pieces, a knight on rook and queen), it saves one and loses the other, the lesser.

        Why: quiescence stands pat on the static evaluation, as if the side to move could always
        find a quiet move that keeps it; after a fork it cannot. Two plies and the captures after
        them is all the Pico sees in its time, so without this a move that allows a pawn fork
        (a piece taken, the pawn recaptures onto a square between two pieces) looks safe."""
        b = self.pos.board
        to = (m >> 7) & 127
        p = b[to]
        kind = p & 7
        if kind >= 5:  # QUEEN, KING: nothing worth more than a queen can be forked by one
            return 0
        worth = VALUE[kind]
        them = (p & 8) ^ 8
        first = 0
        second = 0
        if kind == PAWN:
            t = to + (13 if them else -19)  # a white mover's pawn attacks upwards
            for _ in range(2):
                t += 2
                if not t & 0x88:
                    q = b[t]
                    if q and q & 8 == them:
                        lost = VALUE[q & 7] - worth
                        if lost > second:
                            if lost > first:
                                second = first
                                first = lost
                            else:
                                second = lost
            return second
        slides = kind != KNIGHT
        for d in _FORK_STEPS[kind]:
            t = to + d
            while not t & 0x88:
                q = b[t]
                if q:
                    if q & 8 == them and (q & 7) != KING:
                        lost = VALUE[q & 7] - worth
                        if lost > second:
                            if lost > first:
                                second = first
                                first = lost
                            else:
                                second = lost
                    break
                if not slides:
                    break
                t += d
        return second

    def _risk_of(self, m, n, captured):
        """The risk of the root move m, the n-th legal one (just made): what it leaves en prise
        beyond what it took, by SEE on each of the mover's pieces. Found in the first iteration
        (one move at a time, so no slice runs long), looked up after that.

        Why: in the Pico's seconds a move the search sees two to four plies and the captures after
        them; a piece it leaves to be taken, for a compensation it believes in beyond that, is
        most often simply lost. So the move is charged the whole piece: it must win it back on
        the board within the search, not on the horizon. (Half the piece still lets pieces go for
        attacks that are not there: docs/figures.md compares the two against Stockfish.)"""
        if self._root_depth > 1:
            moves = self._root_move
            for i in range(self.root_moves):
                if moves[i] == m:
                    return self._root_risk[i]
            return 0
        pos = self.pos
        them = pos.side
        us = them ^ 8
        b = pos.board
        # After a check only the piece that moved can be taken at once (by a reply that answers the
        # check by taking it: a knight's check that a pawn takes, uncovering an attack on another).
        check = pos.attacked(pos.kings[them], us)
        to = (m >> 7) & 127
        pieces = self.pieces
        first = us << 1
        worst = 0
        for i in range(first, first + self.count[us >> 3]):
            sq = pieces[i]
            kind = b[sq] & 7
            if kind != PAWN and kind != KING and (sq == to or not check) and pos.attacked(sq, them):
                lost = self.exchange.loss(pos, sq, them)  # (the attack test first: it is native code)
                if lost > worst:
                    worst = lost
        flag = m >> 14
        if flag >= MOVE_PROMOTE_KNIGHT:
            captured += VALUE[flag - 2] - VALUE[PAWN]
        elif flag == MOVE_EN_PASSANT:
            captured = VALUE[PAWN]
        risk = worst - captured if worst > captured else 0
        if n <= MAX_MOVES_PER_POSITION:
            self._root_move[n - 1] = m
            self._root_risk[n - 1] = risk
        return risk

    def _root_done(self, value):
        """An iteration is complete: keep its result, then go one ply deeper or finish."""
        d = self._root_depth
        self.depth = d
        if self._best_move[0]:
            self.best_move = self._best_move[0]
            self.score = value
        if (
            d >= self.max_depth
            or self.root_moves <= 1
            or (value > MATE_BOUND and MATE - value <= d)
            or (value < -MATE_BOUND and MATE + value <= d)
        ):
            self.done = True
            return
        self._iterate(d + 1)

    # ------------------------------------------------------------------ moves

    def _make(self, ply, m):
        """Make m and carry the evaluation sums to ply + 1 (incrementally: only what moves)."""
        pos = self.pos
        b = pos.board
        frm = m & 127
        to = (m >> 7) & 127
        flag = m >> 14
        p = b[frm]
        cap = b[to]
        kind = p & 7
        flip = 0x70 if p & 8 else 0
        i = kind << 7
        dmg = MG[i | (to ^ flip)] - MG[i | (frm ^ flip)]
        deg = EG[i | (to ^ flip)] - EG[i | (frm ^ flip)]
        ph = self._phase[ply]
        if flag:
            if flag == MOVE_EN_PASSANT:
                j = PAWN << 7 | ((to - 16 if flip == 0 else to + 16) ^ flip ^ 0x70)
                dmg += MG[j]
                deg += EG[j]
            elif flag == MOVE_CASTLING:
                rf = to + 1 if to > frm else to - 2  # the rook's corner ...
                rt = (frm + to) >> 1  # ... and the square the king crosses, where it lands
                j = ROOK << 7
                dmg += MG[j | (rt ^ flip)] - MG[j | (rf ^ flip)]
                deg += EG[j | (rt ^ flip)] - EG[j | (rf ^ flip)]
            elif flag >= MOVE_PROMOTE_KNIGHT:
                q = flag - 2
                j = q << 7 | (to ^ flip)
                dmg += MG[j] - MG[i | (to ^ flip)]
                deg += EG[j] - EG[i | (to ^ flip)]
                ph += PHASE[q]
        if cap:
            # The captured piece stood on its own side's table: mirrored for the mover.
            j = (cap & 7) << 7 | (to ^ flip ^ 0x70)
            dmg += MG[j]
            deg += EG[j]
            ph -= PHASE[cap & 7]
        if flip:
            dmg = -dmg
            deg = -deg
        self._mg[ply + 1] = self._mg[ply] + dmg
        self._eg[ply + 1] = self._eg[ply] + deg
        self._phase[ply + 1] = ph
        # The piece lists: the mover (and a castling rook) changes square, a victim leaves.
        pieces = self.pieces
        slot = self._slot
        victim = NO_SQUARE
        if cap:
            victim = to
        elif flag == MOVE_EN_PASSANT:
            victim = to - 16 if flip == 0 else to + 16
        if victim != NO_SQUARE:
            side = (p >> 3) ^ 1
            last = side << 4 | (self.count[side] - 1)
            i = slot[victim]
            moved = pieces[last]
            pieces[i] = moved
            slot[moved] = i
            self.count[side] -= 1
        self._victim_sq[ply] = victim
        i = slot[frm]
        pieces[i] = to
        slot[to] = i
        if flag == MOVE_CASTLING:
            i = slot[rf]
            pieces[i] = rt
            slot[rt] = i
        pos.make(m)

    def _unmake(self, ply):
        """Take back the move made at ply (self._move[ply]), piece lists included."""
        pos = self.pos
        pos.unmake()
        m = self._move[ply]
        frm = m & 127
        to = (m >> 7) & 127
        pieces = self.pieces
        slot = self._slot
        i = slot[to]
        pieces[i] = frm
        slot[frm] = i
        if (m >> 14) == MOVE_CASTLING:
            rt = (frm + to) >> 1
            i = slot[rt]
            rf = to + 1 if to > frm else to - 2
            pieces[i] = rf
            slot[rf] = i
        victim = self._victim_sq[ply]
        if victim != NO_SQUARE:
            side = (pos.side >> 3) ^ 1  # the side that did not move
            i = side << 4 | self.count[side]
            pieces[i] = victim
            slot[victim] = i
            self.count[side] += 1

    def _null(self, ply):
        """Pass: the other side moves (no move is made on the board, only the side flips)."""
        pos = self.pos
        self._saved_ep[ply] = pos.ep
        self._saved_clock[ply] = pos.halfmove
        pos.ep = NO_SQUARE
        pos.halfmove = 0  # and positions before the pass are not repetitions of those after it
        pos.side ^= BLACK
        pos.zkey ^= Z_SIDE
        self._mg[ply + 1] = self._mg[ply]
        self._eg[ply + 1] = self._eg[ply]
        self._phase[ply + 1] = self._phase[ply]

    def _unnull(self, ply):
        pos = self.pos
        pos.side ^= BLACK
        pos.zkey ^= Z_SIDE
        pos.ep = self._saved_ep[ply]
        pos.halfmove = self._saved_clock[ply]

    def _order(self, ply, start, end):
        """Raise the hash move (the previous iteration's best at the root) and the killers above
        the keys generate() gave (captures by MVV-LVA, quiet moves by history)."""
        hash_move = self._tt_best(ply) if ply else self.best_move
        k1 = self.killers[2 * ply]
        k2 = self.killers[2 * ply + 1]
        if not (hash_move or k1 or k2):
            return
        moves = self.moves
        if _native is not None:
            _native.order(moves, start | end << 11 | ply << 22, hash_move, self.killers)
            return
        for i in range(start, end):
            w = moves[i]
            m = w & _MOVE_MASK
            if m == hash_move:
                moves[i] = m | _KEY_HASH << 17
            elif (m == k1 or m == k2) and (w >> 17) < _KEY_KILLER2:
                moves[i] = m | (_KEY_KILLER1 if m == k1 else _KEY_KILLER2) << 17

    def _cutoff(self, ply, m, depth):
        """A move refuted the opponent's last one: remember it for the sibling positions."""
        b = self.pos.board
        to = (m >> 7) & 127
        if b[to] or (m >> 14) >= MOVE_EN_PASSANT and (m >> 14) != MOVE_CASTLING:
            return  # captures and promotions are ordered first anyway
        k = self.killers
        if k[2 * ply] != m:
            k[2 * ply + 1] = k[2 * ply]
            k[2 * ply] = m
        h = self.history
        i = b[m & 127] << 7 | to
        v = h[i] + depth * depth
        if v > _HISTORY_MAX:
            for j in range(len(h)):
                h[j] >>= 1
            v >>= 1
        h[i] = v

    # ------------------------------------------------------------------ knowledge

    def _evaluate(self, ply, us):
        """Static evaluation for the side to move: the two phases' sums blended by material left."""
        ph = self._phase[ply]
        if ph > PHASE_FULL:
            ph = PHASE_FULL  # extra queens from promotions
        e = (self._mg[ply] * ph + self._eg[ply] * (PHASE_FULL - ph)) // PHASE_FULL
        return (e if us == WHITE else -e) + _TEMPO

    def _has_pieces(self, us):
        """Does the side have a piece other than king and pawns? (null move is unsafe without)"""
        b = self.pos.board
        pieces = self.pieces
        base = us << 1  # us is 0 or 8: its list starts at 0 or 16
        for i in range(base, base + self.count[us >> 3]):
            kind = b[pieces[i]] & 7
            if kind != PAWN and kind != KING:
                return True
        return False

    def _repeated(self):
        """Has this position occurred before, since the last capture or pawn move? The position's
        undo records keep the key of every position before each move, the game's included."""
        pos = self.pos
        hm = pos.halfmove
        if hm < 4:
            return False
        st = pos._stack  # three words per move made; the third is the key before the move
        sp = pos._sp
        key = pos.zkey
        k = 4
        while k <= hm and 3 * k <= sp:
            if st[sp - 3 * k + 2] == key:
                return True
            k += 2
        return False

    # ------------------------------------------------------------------ transposition table

    def _probe(self, ply, depth, alpha, beta):
        """A score from the table good enough to stop here, or -INFINITE."""
        key = self.pos.zkey
        i = key & self._tt_mask
        if self._tt_key[i] != key:
            return -INFINITE
        info = self._tt_info[i]
        if (info & 63) < depth:
            return -INFINITE
        s = self._tt_score[i]
        if s > MATE_BOUND:
            s -= ply
        elif s < -MATE_BOUND:
            s += ply
        kind = info >> 6
        if kind == _EXACT or (kind == _LOWER and s >= beta) or (kind == _UPPER and s <= alpha):
            return s
        return -INFINITE

    def _tt_best(self, ply):
        key = self.pos.zkey
        i = key & self._tt_mask
        return self._tt_move[i] if self._tt_key[i] == key else 0

    def _store(self, ply, score):
        """Remember the node's result (always replacing: the table is small and recent is best)."""
        key = self.pos.zkey
        i = key & self._tt_mask
        if score >= self._beta[ply]:
            kind = _LOWER
        elif score > self._alpha0[ply]:
            kind = _EXACT
        else:
            kind = _UPPER
        s = score
        if s > MATE_BOUND:
            s += ply
        elif s < -MATE_BOUND:
            s -= ply
        d = self._depth[ply]
        m = self._best_move[ply]
        if not m and self._tt_key[i] == key:
            m = self._tt_move[i]  # no move reached alpha this time: keep the one found before
        self._tt_key[i] = key
        self._tt_move[i] = m
        self._tt_score[i] = s
        self._tt_info[i] = (d if d < 63 else 63) | kind << 6


# engine/native.py where use_native() put it (its generate and pick, and make and unmake on the
# class), else None: movegen.py's generate and the plain methods above.
_native = None
_PLAIN = (Search._make, Search._unmake, Search._qsearch)


def use_native(on):
    """Run the search's hot paths as the native code of engine/native.py (on=True, where the runtime
    compiles viper) or as plain Python. Both do the same work in the same order, so the search
    visits the same tree either way. Returns whether the native code is in use."""
    global _native
    _native = None
    Search._make, Search._unmake, Search._qsearch = _PLAIN
    if on:
        try:
            from engine import native

            native.install(Search, MG, EG, PHASE, _ALIGNED)
            _native = native
        except (ImportError, SyntaxError, ValueError):
            pass  # as in core/position.py's use_native: CPython, WebAssembly, a Pico's .mpy on a PC
    return _native is not None


# Chosen once at import, like the rules core's paths: native on the Pico, where a measurement on the
# chip asked for it, when the heap has room for it; plain elsewhere unless a test or tool asks (the
# unix port compiles viper too). The native code takes about 17 KB of the chip's heap: with less than
# NATIVE_ROOM free as the search loads (the code, the arrays and a game's own needs still to come) the
# plain path plays, about half as many positions a second (docs/figures.md), and the board keeps
# its engine where the native code would have left no room for it (a Pico W with Bluetooth on).
NATIVE_ROOM = const(80 * 1024)
NATIVE_WANTED = free() >= NATIVE_ROOM
NATIVE = use_native(sys.platform == "rp2" and NATIVE_WANTED)
