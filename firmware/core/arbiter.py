# The arbiter's rules that need a clock (FIDE Laws 6.9, 7.5.5, Appendices A.3 and B.2; docs/spec.md
# section 10): what a flag fall or a completed illegal move decides. core/referee.py imports this
# module the first time one happens, so a game without either never loads it.
from micropython import const

from core.clock import STANDARD
from core.game import FLAG, FLAG_INSUFFICIENT, ILLEGAL_MOVES, ILLEGAL_MOVES_INSUFFICIENT
from core.position import BLACK, WHITE

_PLAY = const(0)  # core/referee.py's PLAY (imported from there, its 40 kB of source would compile again on a test heap)
_STRICT = "strict"

# FIDE 7.5.5: the opponent of a player who completes a first illegal move gets two minutes; in
# rapid and blitz one minute (A.3, B.2 of the Laws in force since 1 January 2023).
PENALTY_STANDARD_MS = const(120000)
PENALTY_RAPID_MS = const(60000)

# Referee.illegal_rule: FIDE (extra time, then the second loses) or the older rapid and blitz rule of
# the seeds (the first completed illegal move loses, in rapid and blitz only).
FIDE = "fide"
LOSE = "lose"
ILLEGAL_RULES = (FIDE, LOSE)


def can_mate(position, colour):
    """Could `colour` (WHITE or BLACK) checkmate the other king by any series of legal moves, helped
    by the other side's worst play (FIDE 6.9, 7.5.5)? False only when proven: core/dead.py decides
    (the material, the pawns, a short search), loaded the first time a game's result hangs on it."""
    from core.dead import can_mate as proven_can_mate

    return proven_can_mate(position, colour)


def flag_result(position, fallen):
    """(result, reason) when the flag of `fallen` (WHITE or BLACK) falls (FIDE 6.9)."""
    winner = BLACK if fallen == WHITE else WHITE
    if not can_mate(position, winner):
        return "1/2-1/2", FLAG_INSUFFICIENT
    return ("1-0" if winner == WHITE else "0-1"), FLAG


def illegal_result(position, offender):
    """(result, reason) when a completed illegal move of `offender` loses (FIDE 7.5.5)."""
    winner = BLACK if offender == WHITE else WHITE
    if not can_mate(position, winner):
        return "1/2-1/2", ILLEGAL_MOVES_INSUFFICIENT
    return ("1-0" if winner == WHITE else "0-1"), ILLEGAL_MOVES


def illegal_loses(count, rule, category):
    """Does the count-th completed illegal move of a player lose the game?"""
    return count >= 2 or (rule == LOSE and category != STANDARD)


def penalty_ms(category):
    """Extra time for the opponent of a player who completed a first illegal move."""
    return PENALTY_STANDARD_MS if category == STANDARD else PENALTY_RAPID_MS


# ---------------------------------------------------------------------- the referee's side


def flag_fall(ref, now):
    """The running side's time is up at now (core/referee.py's tick saw it): the game ends, unless
    the board shows a move that was complete before that (its commit presses the clock), or the
    board is being set up (the clock waits)."""
    c = ref.clock
    if ref.pending_kind == "move" and ((ref.last_change - c.turn_at) & 0x3FFFFFFF) < c.flag_due:
        return
    if ref.phase != _PLAY:
        c.pause(now)
        return
    c.fall(now)
    result, reason = flag_result(ref.game.position, BLACK if c.fallen else WHITE)
    ref.end_game(result, reason, now)


def illegal_completed(ref, now):
    """The illegal move on the board is complete (FIDE 7.5): extra time for the opponent, or a loss.
    Strict mode only: casual games have no penalties."""
    ref.illegal_penalised = True
    if ref.mode != _STRICT or ref.phase != _PLAY:
        return
    pos = ref.game.position
    squares = ref.error[1]
    if pos.find_move(squares[0], squares[1]):
        # A move the rules allow, refused only because the board's own engine has shown its move:
        # not an illegal move under FIDE 7.5, so no penalty (the board just guides it back).
        return
    side = 1 if pos.side == BLACK else 0
    ref.illegal_count[side] += 1
    c = ref.clock
    if illegal_loses(ref.illegal_count[side], ref.illegal_rule, c.category):
        result, reason = illegal_result(pos, pos.side)
        ref.end_game(result, reason, now)
        return
    ms = penalty_ms(c.category)
    c.add(1 - side, ms)
    ref.out.append(("penalty", "b" if side == 0 else "w", ms))
    ref.version += 1


def check(ref, now, lifted):
    """Called by the referee with a clock: every scan while its time is up, an error shows or
    pieces are off the board (lifted -1), and at a lift while an error shows (lifted: the square).
    Hands the time to the player who just moved while it puts back pieces it knocked over; lets the
    flag fall; completes the illegal move on the board once it has stood ref.illegal_ms unchanged,
    or when the opponent lifts a piece of theirs (their turn has begun)."""
    c = ref.clock
    if lifted < 0 and (ref.error is not None or ref.resting) and c.running and not c.lent:
        k = ref.knocked_at
        if k != c.lent_for and ref.game.ply() and 0 <= ((k - ref.committed_at) & 0x3FFFFFFF) < ref.adjust_ms:
            # Pieces knocked over by the hand that just moved (within adjust_ms of its move): that
            # player puts them back on its own time (FIDE 7.4), from the knock on.
            c.lent_for = k
            c.lend(k)
            ref.version += 1
    if lifted < 0 and c.running and ((now - c.turn_at) & 0x3FFFFFFF) >= c.due:
        if c.low:
            flag_fall(ref, now)
        else:
            c.now_low()  # under ten seconds: the king of the side to move shows it
            ref.version += 1
            if ((now - c.turn_at) & 0x3FFFFFFF) >= c.due:
                flag_fall(ref, now)
    error = ref.error
    if error is None or ref.illegal_penalised or error[0] != "illegal":
        return
    if lifted >= 0:
        pos = ref.game.position
        piece = pos.piece_at(lifted)
        if piece and piece & BLACK != pos.side and lifted not in error[1]:
            illegal_completed(ref, now)
    elif ((now - ref.last_change) & 0x3FFFFFFF) >= ref.illegal_ms:
        illegal_completed(ref, now)


def deadline(ref, t):
    """The earlier of t (or None) and when check() may next act by itself (Referee.next_deadline)."""
    c = ref.clock
    if c.running:
        d = c.turn_at + c.due
        if t is None or d < t:
            t = d
    error = ref.error
    if error is not None and not ref.illegal_penalised and error[0] == "illegal":
        d = ref.last_change + ref.illegal_ms
        if t is None or d < t:
            t = d
    return t
