# The engine's hot paths in native code (viper): its move generator, the bookkeeping around make
# and unmake, picking the next move to try, quiescence and its fork test, and the moves of a node
# one ply above the horizon; for the RP2040 (and the unix port, where the tests compare both paths).
#
# Why native: measured on the emulated RP2040 (MicroPython 1.27 rp2), each node of the search cost
# about 3 ms in bytecode: engine/movegen.py took 2.1 ms to list a middlegame position's moves and
# 1.4 ms for its captures alone (it walks every ray either way); Search._make and _unmake (the
# evaluation sums and the piece lists) 0.39 ms a pair besides the rules core's own make and unmake.
# The engine made 330 nodes/s in the scan loop, too few to see three plies in its 2 s a move.
# These functions do the same work on the same arrays in the same order, so the search visits the
# same tree whichever runs; engine/search.py's use_native() chooses them where the native emitter
# exists (the tests check both give the same moves, scores and node counts).
#
# Viper notes, as in core/position_native.py: ptr8 and ptr16 loads are unsigned, so the step table
# holds step + 64 and the signed 16-bit tables and sums are sign-extended by hand ((v ^ 0x8000) -
# 0x8000); a viper function takes at most four arguments, so generate's start index and two flags
# travel in one int (spec); castling, rare and needing the attack test, stays movegen.py's.
# MicroPython 1.27's Thumb emitter (the Pico's) scales the index of a ptr16/ptr32 load or store in
# place: when the index is one of the first three locals (they live in registers, arguments
# first), that local is left multiplied by 2 or 4 (micropython#18800, fixed after 1.27). Measured
# on the emulated chip: `x = p[i]` with i the second argument leaves i four times as big. So those
# indexes here are copies made further down (a local past the third lives on the stack) or
# expressions; host_tests/test_pico_engine.py runs these functions on the chip against CPython.
import sys
from array import array

import micropython
from micropython import const
from uctypes import addressof

if sys.implementation.name != "micropython":
    raise ImportError("viper needs MicroPython's native emitter")  # CPython: movegen.py

from engine.movegen import castling_moves  # noqa: E402

CAPTURES_ONLY = const(1 << 16)  # spec bits: quiescence (captures and queen promotions) ...
IN_CHECK = const(1 << 17)  # ... and the side to move is in check (no castling)

_PAWN = const(1)
_KNIGHT = const(2)
_KING = const(6)
_WHITE = const(0)
_FLAG_DOUBLE = const(1 << 14)
_FLAG_PROMOTE_KNIGHT = const(4 << 14)
_FLAG_PROMOTE_BISHOP = const(5 << 14)
_FLAG_PROMOTE_ROOK = const(6 << 14)
_Q = const(7000 << 17 | 7 << 14)  # movegen.py's keys and flags, spelled out: viper reads only consts
_UNDER = const(100 << 17)
_EP_KEY = const((6000 + 8 - 1) << 17 | 2 << 14)
_KEY_CAPTURE = const(6000)
_KEY_HASH = const(8000)  # engine/search.py's keys for the hash move and the killers
_KEY_KILLER1 = const(5000)
_KEY_KILLER2 = const(4900)
_ROOK = const(4)
_EP = const(2)  # MOVE_EN_PASSANT
_CASTLE = const(3)  # MOVE_CASTLING
_PROMOTE_KNIGHT = const(4)
_NO_SQUARE = const(0x88)

# Where bind() puts the address of each array these functions read, in search._addr: two words
# each, low then high (the Pico's addresses are 32-bit, its high words 0; the unix port's are 64),
# read back as ptr16(ad[_AT_MG] | ad[_AT_MG + 1] << 16 << 16) (two shifts of 16: a shift of a
# 32-bit word by 32 is undefined). Why: measured on the emulated chip, ptr16(self._mg) costs about
# 3 us (an attribute lookup and the buffer protocol), the table's load a tenth of that, and a
# quiescence position made about thirty such lookups. The arrays never move (MicroPython's heap
# does not compact; they are allocated once, a Position's board and kings updated in place), so
# the addresses hold for the whole search: bind() runs at each Search.start, for its position.
_AT_BOARD = const(0)  # the position's
_AT_KINGS = const(2)
_AT_MOVES = const(4)  # the search's
_AT_HISTORY = const(6)
_AT_PIECES = const(8)
_AT_COUNT = const(10)
_AT_SLOT = const(12)
_AT_VICTIMS = const(14)
_AT_MG = const(16)
_AT_EG = const(18)
_AT_PHASE = const(20)
_AT_MOVE = const(22)
_AT_FLAGS = const(24)
_AT_END = const(26)
_AT_NEXT = const(28)
_AT_LEGAL = const(30)
_AT_BEST = const(32)
_AT_ALPHA = const(34)
_AT_BETA = const(36)
_AT_STATIC = const(38)
_AT_BEST_MOVE = const(40)
_AT_MG_TABLE = const(42)  # the tables': engine/tables.py's, engine/search.py's and this module's
_AT_EG_TABLE = const(44)
_AT_PHASE_TABLE = const(46)
_AT_VALUE = const(48)
_AT_ALIGNED = const(50)
_AT_STEPS = const(52)
_AT_SPAN = const(54)
_AT_VICTIM = const(56)
ADDRESSES = const(58)  # words: engine/search.py's Search._addr has room for this many

# 0-7: knight jumps; 8-11 rook lines, 12-15 bishop lines (8-15 a queen's and king's); all + 64, in
# movegen.py's order.
_STEPS = bytes((97, 95, 82, 78, 50, 46, 33, 31, 80, 48, 65, 63, 81, 79, 49, 47))
# The part of _STEPS each piece type (knight .. king) moves along: first, last + 1.
_SPAN = bytes((0, 0, 0, 0, 0, 8, 12, 16, 8, 12, 8, 16, 8, 16))
_VICTIM = bytes((0, 8, 24, 25, 40, 72, 0, 0))  # movegen.py's MVV values


@micropython.viper
def generate(pos, buf, spec: int, search) -> int:
    # movegen.generate(pos, buf, n, in_check, captures_only, search.history, search.pieces, ...)
    # with n = spec & 0xFFFF; the side to move's pieces are search.pieces[16 * side:][:count].
    ad = ptr32(search._addr)  # (bind() below: the addresses of the arrays)
    b = ptr8(pos.board)
    out = ptr32(buf)
    hist = ptr16(ad[_AT_HISTORY] | ad[_AT_HISTORY + 1] << 16 << 16)
    pieces = ptr8(ad[_AT_PIECES] | ad[_AT_PIECES + 1] << 16 << 16)
    count = ptr8(ad[_AT_COUNT] | ad[_AT_COUNT + 1] << 16 << 16)
    steps = ptr8(ad[_AT_STEPS] | ad[_AT_STEPS + 1] << 16 << 16)
    span = ptr8(ad[_AT_SPAN] | ad[_AT_SPAN + 1] << 16 << 16)
    victim = ptr8(ad[_AT_VICTIM] | ad[_AT_VICTIM + 1] << 16 << 16)
    n = spec & 0xFFFF
    quiet = 1
    if spec & CAPTURES_ONLY:
        quiet = 0
    us = int(pos.side)
    them = us ^ 8
    ep = int(pos.ep)
    if us == _WHITE:
        fwd = 16
        last = 0x60
        home = 0x10
    else:
        fwd = -16
        last = 0x10
        home = 0x60
    i = (us >> 3) << 4
    stop = i + count[us >> 3]
    while i < stop:
        frm = pieces[i]
        i += 1
        p = b[frm]
        kind = p & 7
        if kind == _PAWN:
            rank = frm & 0x70
            t = frm + fwd
            if rank == last:
                if b[t] == 0:
                    m = frm | t << 7
                    out[n] = m | _Q
                    n += 1
                    if quiet:
                        out[n] = m | _FLAG_PROMOTE_KNIGHT | _UNDER
                        out[n + 1] = m | _FLAG_PROMOTE_ROOK | _UNDER
                        out[n + 2] = m | _FLAG_PROMOTE_BISHOP | _UNDER
                        n += 3
                d = -1
                while d <= 1:
                    t = frm + fwd + d
                    d += 2
                    if (t & 0x88) == 0 and b[t] != 0 and (b[t] & 8) == them:
                        m = frm | t << 7
                        out[n] = (m | _Q) + (victim[b[t] & 7] << 17)
                        n += 1
                        if quiet:
                            out[n] = m | _FLAG_PROMOTE_KNIGHT | _UNDER
                            out[n + 1] = m | _FLAG_PROMOTE_ROOK | _UNDER
                            out[n + 2] = m | _FLAG_PROMOTE_BISHOP | _UNDER
                            n += 3
                continue
            if quiet and b[t] == 0:
                h = p << 7
                out[n] = frm | t << 7 | hist[h | t] << 17
                n += 1
                if rank == home and b[t + fwd] == 0:
                    out[n] = frm | (t + fwd) << 7 | _FLAG_DOUBLE | hist[h | (t + fwd)] << 17
                    n += 1
            d = -1
            while d <= 1:
                t = frm + fwd + d
                d += 2
                if t & 0x88:
                    continue
                c = b[t]
                if c:
                    if (c & 8) == them:
                        out[n] = frm | t << 7 | (_KEY_CAPTURE - _PAWN + victim[c & 7]) << 17
                        n += 1
                elif t == ep:
                    out[n] = frm | t << 7 | _EP_KEY
                    n += 1
            continue
        # Knights and kings step once along their lines; bishops, rooks and queens slide.
        slide = 1
        if kind == _KNIGHT or kind == _KING:
            slide = 0
        h = p << 7
        key = _KEY_CAPTURE - kind
        j = span[kind * 2]
        end = span[kind * 2 + 1]
        while j < end:
            d = steps[j] - 64
            j += 1
            t = frm + d
            while (t & 0x88) == 0:
                c = b[t]
                if c:
                    if (c & 8) == them:
                        out[n] = frm | t << 7 | (key + victim[c & 7]) << 17
                        n += 1
                    break
                if quiet:
                    out[n] = frm | t << 7 | hist[h | t] << 17
                    n += 1
                if slide == 0:
                    break
                t += d
        if kind == _KING and quiet and (spec & IN_CHECK) == 0 and int(pos.castling):
            n = int(castling_moves(pos, pos.board, frm, us, them, buf, n))
    return n


# Set by install() from engine/tables.py, which owns them.
_MG = None
_EG = None
_PHASE = None


@micropython.viper
def make(self, ply: int, m: int):
    # Search._make: make m and carry the evaluation sums (self._mg, _eg, _phase) to ply + 1 and
    # the piece lists (self.pieces, _slot, count) along, then the rules core's make.
    ad = ptr32(self._addr)
    at = ply  # (v1.27's Thumb bug: never index ptr16/ptr32 by one of the first three locals)
    b = ptr8(ad[_AT_BOARD] | ad[_AT_BOARD + 1] << 16 << 16)
    mgt = ptr16(ad[_AT_MG_TABLE] | ad[_AT_MG_TABLE + 1] << 16 << 16)
    egt = ptr16(ad[_AT_EG_TABLE] | ad[_AT_EG_TABLE + 1] << 16 << 16)
    frm = m & 127
    to = (m >> 7) & 127
    flag = m >> 14
    p = b[frm]
    cap = b[to]
    kind = p & 7
    flip = 0
    if p & 8:
        flip = 0x70
    i = kind << 7
    dmg = ((mgt[i | (to ^ flip)] ^ 0x8000) - 0x8000) - ((mgt[i | (frm ^ flip)] ^ 0x8000) - 0x8000)
    deg = ((egt[i | (to ^ flip)] ^ 0x8000) - 0x8000) - ((egt[i | (frm ^ flip)] ^ 0x8000) - 0x8000)
    phases = ptr32(ad[_AT_PHASE] | ad[_AT_PHASE + 1] << 16 << 16)
    weight = ptr8(ad[_AT_PHASE_TABLE] | ad[_AT_PHASE_TABLE + 1] << 16 << 16)
    ph = phases[at]
    rf = 0
    rt = 0
    if flag:
        if flag == _EP:
            j = _PAWN << 7 | ((to - 16 if flip == 0 else to + 16) ^ flip ^ 0x70)
            dmg += (mgt[j] ^ 0x8000) - 0x8000
            deg += (egt[j] ^ 0x8000) - 0x8000
        elif flag == _CASTLE:
            rf = to + 1 if to > frm else to - 2  # the rook's corner ...
            rt = (frm + to) >> 1  # ... and the square the king crosses, where it lands
            j = _ROOK << 7
            dmg += ((mgt[j | (rt ^ flip)] ^ 0x8000) - 0x8000) - ((mgt[j | (rf ^ flip)] ^ 0x8000) - 0x8000)
            deg += ((egt[j | (rt ^ flip)] ^ 0x8000) - 0x8000) - ((egt[j | (rf ^ flip)] ^ 0x8000) - 0x8000)
        elif flag >= _PROMOTE_KNIGHT:
            q = flag - 2
            j = q << 7 | (to ^ flip)
            dmg += ((mgt[j] ^ 0x8000) - 0x8000) - ((mgt[i | (to ^ flip)] ^ 0x8000) - 0x8000)
            deg += ((egt[j] ^ 0x8000) - 0x8000) - ((egt[i | (to ^ flip)] ^ 0x8000) - 0x8000)
            ph += weight[q]
    if cap:
        # The captured piece stood on its own side's table: mirrored for the mover.
        j = (cap & 7) << 7 | (to ^ flip ^ 0x70)
        dmg += (mgt[j] ^ 0x8000) - 0x8000
        deg += (egt[j] ^ 0x8000) - 0x8000
        ph -= weight[cap & 7]
    if flip:
        dmg = 0 - dmg
        deg = 0 - deg
    mgs = ptr16(ad[_AT_MG] | ad[_AT_MG + 1] << 16 << 16)
    egs = ptr16(ad[_AT_EG] | ad[_AT_EG + 1] << 16 << 16)
    mgs[at + 1] = ((mgs[at] ^ 0x8000) - 0x8000) + dmg
    egs[at + 1] = ((egs[at] ^ 0x8000) - 0x8000) + deg
    phases[at + 1] = ph
    # The piece lists: the mover (and a castling rook) changes square, a victim leaves.
    pieces = ptr8(ad[_AT_PIECES] | ad[_AT_PIECES + 1] << 16 << 16)
    slot = ptr8(ad[_AT_SLOT] | ad[_AT_SLOT + 1] << 16 << 16)
    count = ptr8(ad[_AT_COUNT] | ad[_AT_COUNT + 1] << 16 << 16)
    victims = ptr8(ad[_AT_VICTIMS] | ad[_AT_VICTIMS + 1] << 16 << 16)
    victim = _NO_SQUARE
    if cap:
        victim = to
    elif flag == _EP:
        victim = to - 16 if flip == 0 else to + 16
    if victim != _NO_SQUARE:
        side = (p >> 3) ^ 1
        last = side << 4 | (count[side] - 1)
        i = slot[victim]
        moved = pieces[last]
        pieces[i] = moved
        slot[moved] = i
        count[side] = count[side] - 1
    victims[ply] = victim
    i = slot[frm]
    pieces[i] = to
    slot[to] = i
    if flag == _CASTLE:
        i = slot[rf]
        pieces[i] = rt
        slot[rt] = i
    self.pos.make(m)


@micropython.viper
def unmake(self, ply: int):
    # Search._unmake: take back the move made at ply (self._move[ply]), piece lists included.
    pos = self.pos
    at = ply  # (the Thumb bug: see make)
    pos.unmake()
    ad = ptr32(self._addr)
    moves = ptr32(ad[_AT_MOVE] | ad[_AT_MOVE + 1] << 16 << 16)
    m = moves[at]
    frm = m & 127
    to = (m >> 7) & 127
    pieces = ptr8(ad[_AT_PIECES] | ad[_AT_PIECES + 1] << 16 << 16)
    slot = ptr8(ad[_AT_SLOT] | ad[_AT_SLOT + 1] << 16 << 16)
    i = slot[to]
    pieces[i] = frm
    slot[frm] = i
    if (m >> 14) == _CASTLE:
        rt = (frm + to) >> 1
        i = slot[rt]
        rf = to + 1 if to > frm else to - 2
        pieces[i] = rf
        slot[rf] = i
    victims = ptr8(ad[_AT_VICTIMS] | ad[_AT_VICTIMS + 1] << 16 << 16)
    count = ptr8(ad[_AT_COUNT] | ad[_AT_COUNT + 1] << 16 << 16)
    victim = victims[ply]
    if victim != _NO_SQUARE:
        side = (int(pos.side) >> 3) ^ 1  # the side that did not move
        i = side << 4 | count[side]
        pieces[i] = victim
        slot[victim] = i
        count[side] = count[side] + 1


@micropython.viper
def pick(moves, i: int, end: int) -> int:
    # The entry of moves[i:end] with the highest ordering key, swapped to i and returned (as the
    # search's own loop does: a selection, since the first moves usually cut the node off).
    a = ptr32(moves)
    first = i  # (the Thumb bug: see make)
    top = first
    w = a[first]
    j = first + 1
    while j < end:
        if a[j] > w:
            w = a[j]
            top = j
        j += 1
    a[top] = a[first]
    a[first] = w
    return w


@micropython.viper
def order(moves, span: int, hash_move: int, killers):
    # Search._order's loop: raise the hash move and the ply's two killers in moves[start:end]
    # above the keys generate() gave; span = start | end << 11 | ply << 22.
    a = ptr32(moves)
    k = ptr32(killers)
    i = span & 0x7FF
    end = (span >> 11) & 0x7FF
    ply = span >> 22
    k1 = k[2 * ply]
    k2 = k[2 * ply + 1]
    while i < end:
        w = a[i]
        m = w & 0x1FFFF
        if m == hash_move:
            a[i] = m | _KEY_HASH << 17
        elif (m == k1 or m == k2) and (w >> 17) < _KEY_KILLER2:
            if m == k1:
                a[i] = m | _KEY_KILLER1 << 17
            else:
                a[i] = m | _KEY_KILLER2 << 17
        i += 1


# Search._qsearch's constants, spelled out (viper reads only this module's consts).
_MATE = const(30000)
_INFINITE = const(31000)
_TEMPO = const(10)
_DELTA_MARGIN = const(150)
_QUIESCENCE_PLIES = const(6)
_AFTER_NULL = const(8)
_MOVE_MASK = const(0x1FFFF)
_ROOM = const(256)  # MAX_MOVES_PER_POSITION
_PIECE_VALUE = array("H", (0, 100, 320, 330, 500, 950, 0, 0))  # engine/tables.py's VALUE
_ALIGNED = None  # engine/search.py's, set by install()


@micropython.viper
def forked(self, m: int) -> int:
    # Search._forked, step for step: what the side to move stands to lose to a fork by the piece
    # the last move m put on its square (the lesser of the two best pieces it attacks, each less
    # the forker's worth). Quiescence asks at nearly every position it stands pat in, and in
    # bytecode this cost 135 us of a 590 us position (measured on the emulated chip).
    ad = ptr32(self._addr)
    b = ptr8(ad[_AT_BOARD] | ad[_AT_BOARD + 1] << 16 << 16)
    value = ptr16(ad[_AT_VALUE] | ad[_AT_VALUE + 1] << 16 << 16)
    steps = ptr8(ad[_AT_STEPS] | ad[_AT_STEPS + 1] << 16 << 16)
    span = ptr8(ad[_AT_SPAN] | ad[_AT_SPAN + 1] << 16 << 16)
    to = (m >> 7) & 127
    p = b[to]
    kind = p & 7
    if kind >= 5:  # QUEEN, KING: nothing worth more than a queen can be forked by one
        return 0
    worth = value[kind]  # (kind: a later local, as the Thumb bug asks; see make)
    them = (p & 8) ^ 8
    first = 0
    second = 0
    if kind == _PAWN:
        t = to - 17  # a black mover's pawn attacks downwards (them: white) ...
        if them:
            t = to + 15  # ... a white one's upwards
        n = 0
        while n < 2:
            n += 1
            if (t & 0x88) == 0:
                q = b[t]
                if q and (q & 8) == them:
                    lost = value[q & 7] - worth
                    if lost > second:
                        if lost > first:
                            second = first
                            first = lost
                        else:
                            second = lost
            t += 2
        return second
    j = span[kind * 2]
    end = span[kind * 2 + 1]
    while j < end:
        d = steps[j] - 64
        j += 1
        t = to + d
        while (t & 0x88) == 0:
            q = b[t]
            if q:
                if (q & 8) == them and (q & 7) != _KING:
                    lost = value[q & 7] - worth
                    if lost > second:
                        if lost > first:
                            second = first
                            first = lost
                        else:
                            second = lost
                break
            if kind == _KNIGHT:
                break
            t += d
    return second


@micropython.viper
def qsearch(self, ply: int, alpha: int, beta: int) -> int:
    # Search._qsearch, step for step: the evaluation and the repetition test are written out
    # here (a call from viper costs as much as they do), the fork test is forked() above.
    at = ply  # (the Thumb bug: see make)
    pos = self.pos
    ad = ptr32(self._addr)
    self.nodes = int(self.nodes) + 1
    half = int(pos.halfmove)
    if half >= 100:
        return 0
    if half >= 4:
        # Search._repeated: the keys before each move since the last capture or pawn move.
        st = ptr32(pos._stack)
        sp = int(pos._sp)
        key = int(pos.zkey)
        k = 4
        while k <= half and 3 * k <= sp:
            if st[sp - 3 * k + 2] == key:
                return 0
            k += 2
    if alpha < 0 - _MATE + at:
        alpha = 0 - _MATE + at
    if beta > _MATE - at - 1:
        beta = _MATE - at - 1
    if alpha >= beta:
        return alpha
    us = int(pos.side)
    them = us ^ 8
    # Search._evaluate: the two phases' sums blended by the material left.
    mgs = ptr16(ad[_AT_MG] | ad[_AT_MG + 1] << 16 << 16)
    egs = ptr16(ad[_AT_EG] | ad[_AT_EG + 1] << 16 << 16)
    ph = ptr32(ad[_AT_PHASE] | ad[_AT_PHASE + 1] << 16 << 16)[at]
    if ph > 24:
        ph = 24  # extra queens from promotions
    e = (((mgs[at] ^ 0x8000) - 0x8000) * ph + ((egs[at] ^ 0x8000) - 0x8000) * (24 - ph)) // 24
    static = e + _TEMPO if us == _WHITE else _TEMPO - e
    ends = ptr32(ad[_AT_END] | ad[_AT_END + 1] << 16 << 16)
    base = ends[at - 1]
    root2 = 2 * int(self._root_depth)
    if at >= int(self.max_ply) - 1 or at - int(self._q_root) >= _QUIESCENCE_PLIES or base > int(self.move_room) - _ROOM:
        return static
    kings = ptr8(ad[_AT_KINGS] | ad[_AT_KINGS + 1] << 16 << 16)
    k = kings[us]
    in_check = 0
    if pos.attacked(k, them):
        in_check = 1
    evade = 0
    if in_check and at < root2 + 2:
        evade = 1
    cur = ptr32(ad[_AT_MOVE] | ad[_AT_MOVE + 1] << 16 << 16)
    flags = ptr8(ad[_AT_FLAGS] | ad[_AT_FLAGS + 1] << 16 << 16)
    if evade:
        best = 0 - _INFINITE
    else:
        best = static
        if (flags[at] & _AFTER_NULL) == 0:
            best -= int(forked(self, cur[at - 1]))
        if best >= beta:
            return best
        if best > alpha:
            alpha = best
    spec = base
    if evade:
        spec |= IN_CHECK
    else:
        spec |= CAPTURES_ONLY
        if in_check:
            spec |= IN_CHECK
    buf = self.moves
    end = int(generate(pos, buf, spec, self))
    ends[at] = end
    a = ptr32(buf)
    b = ptr8(ad[_AT_BOARD] | ad[_AT_BOARD + 1] << 16 << 16)
    value = ptr16(ad[_AT_VALUE] | ad[_AT_VALUE + 1] << 16 << 16)
    aligned = ptr8(ad[_AT_ALIGNED] | ad[_AT_ALIGNED + 1] << 16 << 16)
    legal = 0
    i = base
    while i < end:
        top = i
        w = a[i]
        j = i + 1
        while j < end:
            if a[j] > w:
                w = a[j]
                top = j
            j += 1
        a[top] = a[i]
        a[i] = w
        i += 1
        m = w & _MOVE_MASK
        frm = m & 127
        to = (m >> 7) & 127
        flag = m >> 14
        if evade == 0 and flag < _PROMOTE_KNIGHT:
            victim = 100
            if b[to]:
                victim = value[b[to] & 7]
            bound = static + victim + _DELTA_MARGIN
            if bound <= alpha:
                if bound > best:
                    best = bound
                continue
            if value[b[frm] & 7] > victim and pos.attacked(to, them):
                if alpha > best:
                    best = alpha
                continue
        if in_check and frm != k and aligned[to - k + 119] == 0 and flag != _EP:
            continue
        risky = 0
        if frm == k or in_check or aligned[frm - k + 119] == 1 or flag == _EP:
            risky = 1
        cur[at] = m
        make(self, at, m)
        if risky and pos.attacked(kings[us], them):
            unmake(self, at)
            continue
        legal += 1
        flags[at + 1] = 0
        score = 0 - int(qsearch(self, at + 1, 0 - beta, 0 - alpha))
        unmake(self, at)
        if score > best:
            best = score
            if score > alpha:
                if score >= beta:
                    return score
                alpha = score
    if evade and legal == 0:
        return at - _MATE
    return best


MORE = const(32000)  # frontier(): a move was searched and more remain (beyond any score)
ABORT = const(32001)  # frontier(): out of nodes, with the move at ply made (run() aborts)
_IN_CHECK_FLAG = const(2)  # engine/search.py's per-ply flag
_FUTILITY_MARGIN = const(150)


@micropython.viper
def frontier(self, ply: int) -> int:
    # Search.run()'s _NEXT and _RETURN for a node one ply above the horizon (depth 1, not the
    # root), step for step: the next move (futility, legality), its child searched by qsearch
    # with a full window first and a null window after (searched again in full if it surprises),
    # the best score and move kept. Returns MORE after each move searched, ABORT when the node
    # budget ran out before a child (the move is on the board, as run() would have it), or the
    # node's value once it is done (stored, and a cutoff's killer and history recorded).
    at = ply  # (the Thumb bug: see make)
    pos = self.pos
    ad = ptr32(self._addr)
    b = ptr8(ad[_AT_BOARD] | ad[_AT_BOARD + 1] << 16 << 16)
    a = ptr32(ad[_AT_MOVES] | ad[_AT_MOVES + 1] << 16 << 16)
    nexts = ptr32(ad[_AT_NEXT] | ad[_AT_NEXT + 1] << 16 << 16)
    ends = ptr32(ad[_AT_END] | ad[_AT_END + 1] << 16 << 16)
    legal = ptr32(ad[_AT_LEGAL] | ad[_AT_LEGAL + 1] << 16 << 16)
    bests = ptr16(ad[_AT_BEST] | ad[_AT_BEST + 1] << 16 << 16)
    alphas = ptr16(ad[_AT_ALPHA] | ad[_AT_ALPHA + 1] << 16 << 16)
    betas = ptr16(ad[_AT_BETA] | ad[_AT_BETA + 1] << 16 << 16)
    statics = ptr16(ad[_AT_STATIC] | ad[_AT_STATIC + 1] << 16 << 16)
    flags = ptr8(ad[_AT_FLAGS] | ad[_AT_FLAGS + 1] << 16 << 16)
    cur = ptr32(ad[_AT_MOVE] | ad[_AT_MOVE + 1] << 16 << 16)
    best_moves = ptr32(ad[_AT_BEST_MOVE] | ad[_AT_BEST_MOVE + 1] << 16 << 16)
    aligned = ptr8(ad[_AT_ALIGNED] | ad[_AT_ALIGNED + 1] << 16 << 16)
    kings = ptr8(ad[_AT_KINGS] | ad[_AT_KINGS + 1] << 16 << 16)
    in_check = flags[at] & _IN_CHECK_FLAG
    us = int(pos.side)
    them = us ^ 8
    k = kings[us]
    their_king = kings[them]
    end = ends[at]
    while True:
        i = nexts[at]
        if i >= end:
            value = 0
            if legal[at] == 0:
                if in_check:
                    value = at - _MATE
            else:
                value = (bests[at] ^ 0x8000) - 0x8000
            self._store(at, value)
            return value
        top = i
        w = a[i]
        j = i + 1
        while j < end:
            if a[j] > w:
                w = a[j]
                top = j
            j += 1
        a[top] = a[i]
        a[i] = w
        nexts[at] = i + 1
        m = w & _MOVE_MASK
        frm = m & 127
        to = (m >> 7) & 127
        flag = m >> 14
        if legal[at] and in_check == 0 and flag < _EP:
            bound = ((statics[at] ^ 0x8000) - 0x8000) + _FUTILITY_MARGIN
            if b[to] == 0 and bound <= ((alphas[at] ^ 0x8000) - 0x8000):
                if aligned[to - their_king + 119] == 0 and aligned[frm - their_king + 119] != 1:
                    if bound > ((bests[at] ^ 0x8000) - 0x8000):
                        bests[at] = bound
                    continue
        if in_check and frm != k and aligned[to - k + 119] == 0 and flag != _EP:
            continue
        risky = 0
        if frm == k or in_check or aligned[frm - k + 119] == 1 or flag == _EP:
            risky = 1
        cur[at] = m
        make(self, at, m)
        if risky and pos.attacked(kings[us], them):
            unmake(self, at)
            continue
        n = legal[at] + 1
        legal[at] = n
        alpha = (alphas[at] ^ 0x8000) - 0x8000
        beta = (betas[at] ^ 0x8000) - 0x8000
        if int(self.nodes) >= int(self.max_nodes):
            return ABORT
        flags[at + 1] = 0
        self._q_root = at + 1
        if n == 1:
            score = 0 - int(qsearch(self, at + 1, 0 - beta, 0 - alpha))
            unmake(self, at)
        else:
            score = 0 - int(qsearch(self, at + 1, 0 - alpha - 1, 0 - alpha))
            unmake(self, at)
            if score > alpha and score < beta:
                make(self, at, m)  # the null window says it may be better: search it in full
                if int(self.nodes) >= int(self.max_nodes):
                    return ABORT
                flags[at + 1] = 0
                score = 0 - int(qsearch(self, at + 1, 0 - beta, 0 - alpha))  # (_q_root is still at + 1)
                unmake(self, at)
        if score > ((bests[at] ^ 0x8000) - 0x8000):
            bests[at] = score
            if score > alpha:
                alphas[at] = score
                best_moves[at] = m
                if score >= beta:
                    self._cutoff(at, m, 1)
                    self._store(at, score)
                    return score
        return MORE


def bind(search):
    """The addresses of the arrays the functions above read into search._addr (array "I"), for
    the position search.pos: in two words each, low then high, so that the unix port's 64-bit
    addresses fit as the Pico's 32-bit ones do (their high word is 0). Search.start calls it while
    the native path is in use; a caller of these functions on a search started otherwise (a test)
    calls it first: an unbound search's addresses are 0."""
    pos = search.pos
    arrays = (
        pos.board, pos.kings, search.moves, search.history, search.pieces, search.count, search._slot,
        search._victim_sq, search._mg, search._eg, search._phase, search._move, search._flags,
        search._end, search._next, search._legal, search._best, search._alpha, search._beta,
        search._static, search._best_move, _MG, _EG, _PHASE, _PIECE_VALUE, _ALIGNED, _STEPS, _SPAN,
        _VICTIM,
    )  # in the order of the _AT_ numbers; fmt: skip
    ad = search._addr
    i = 0
    for a in arrays:
        address = addressof(a)
        ad[i] = address & 0xFFFFFFFF
        ad[i + 1] = address >> 32
        i += 2


def install(cls, mg, eg, phase, aligned):
    """Put the native make, unmake and quiescence on the Search class; the tables come from
    engine/tables.py and engine/search.py."""
    global _MG, _EG, _PHASE, _ALIGNED
    _MG, _EG, _PHASE, _ALIGNED = mg, eg, phase, aligned
    cls._make = make
    cls._unmake = unmake
    cls._qsearch = qsearch
