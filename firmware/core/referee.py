# The referee: turns debounced lifts and places into the moves the players mean (docs/spec.md section 3).
#
# The board only knows which squares are occupied. The referee compares that occupancy with the
# game's position: the squares emptied (E) and filled (F) since the last move. A state that a legal
# move can still come from is a move in progress, never an error; a state that equals the result of
# a legal move, still for `commit_ms`, is that move. Which squares were lifted on the way tells a
# capture (the victim's square was lifted and filled again) from a piece held in the air. The order
# of events matters only for touch-move (FIDE 4.3-4.4) and for telling a promotion tap from a move.
#
# Pure: time comes in as an argument (ms), no hardware. The caller feeds lift()/place() from the
# debouncer and calls tick() every scan; what happened is appended to self.out as tuples:
#   ("move", m) ("undo", m) ("promote", m) ("error", kind, [squares]) ("new",)
#   ("claim", reason) ("end", result, reason)
# and with a clock (core/clock.py): ("clock", white_ms, black_ms) after each committed move (the
# board's press of the clock), ("penalty", side, ms) when a completed illegal move gives the
# opponent (side "w" or "b") ms more (core/arbiter.py).
# and at power-up (resume_game, docs/power-up.md): ("choose", from, [to squares]) when the pieces
# stand as several moves the saved game lacks would leave them, ("read", m) just before the
# ("move", m) of a move read from the board.
#
# The referee's interface for its plug-ins (core/casual.py: takebacks and rook-first castling;
# core/results.py: the kings' result gestures; core/display.py: the LEDs), besides its public
# attributes (game, phase, occ, base, prev, emptied, filled, pending, pending_kind, in_progress,
# error, ...): match() reads the board as one of a list of moves, allowed() says whether a move may be
# played now (touch-move, the engine's move), clear_error() drops the error the board was showing.
# The move geometry they share (castling_rook, victim, part_of) is core/position.py's.
from micropython import const

from core.game import RESIGNATION, Game
from core.position import (
    BLACK,
    KING,
    KNIGHT,
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    QUEEN,
    ROOK,
    SQ64,
    STARTING_FEN,
    WHITE,
    castling_rook,
    move_from,
    move_promotion,
    move_to,
    move_uci,
    part_of,
    square_name,
    victim,
    with_promotion,
)

STRICT = "strict"
CASUAL = "casual"

# What the referee is doing.
PLAY = const(0)  # a game is on: moves are read
SETUP = const(1)  # a position was given (FEN): the board is guided to it before play starts
OVER = const(2)  # the game has ended: the board waits for the start position

# Error kinds (the `error KIND` words of tools/replay.py).
ILLEGAL = "illegal"
TOUCH_MOVE = "touch-move"
MISMATCH = "mismatch"

# Promotion taps cycle queen -> rook -> bishop -> knight -> queen (piece types: Q=5 R=4 B=3 N=2).
_NEXT_PROMOTION = (0, 0, QUEEN, 2, 3, 4)

_ZEROS = bytes(64)  # copied over a 64-byte array in one C-level move instead of 64 stores

START_OCCUPANCY = bytearray(64)  # the occupancy of the start position
for _i in range(16):
    START_OCCUPANCY[_i] = 1
    START_OCCUPANCY[63 - _i] = 1


def _elapsed(now, then):
    """ms from then to now on a clock that may be time.ticks_ms(), which wraps at 2**30."""
    return (now - then) & 0x3FFFFFFF


class Referee:
    # A board that matches a legal move and stays still this long commits it. Longer than the
    # 150 ms a slid piece closes a square it crosses and a swap's overlap (docs/spec.md section 3), short enough
    # that the commit feels immediate; the opponent's first lift commits at once anyway.
    commit_ms = 200
    # A lift shorter than this is not a deliberate touch (FIDE 4.2): a magnet in a passing hand or a
    # piece brushed by a sleeve opens a switch for a few tens of milliseconds.
    touch_ms = 150
    # Kings on the centre squares must stay there this long to count as a result (DGT convention).
    result_ms = 600
    # For this long after a move, lifting the piece that moved is the mover straightening it.
    adjust_ms = 2000
    # A piece nothing can happen to (no legal move, or the opponent's and not capturable) may be in
    # the air this long, being straightened, before the LEDs show where it belongs (docs/spec.md section 3). Never
    # an error: no rule is broken and no move is spoilt while it is up.
    hint_ms = 3000
    # Pieces that leave the board within this long of each other were knocked over: a hand lifts one
    # piece at a time, and even both hands take 100 ms or more between two pieces, while pieces a
    # sleeve sweeps over fall within a few ms (a few scans once debounced). A knock is an accident,
    # never a touch (FIDE 4.2: only a deliberate touch binds). One piece falling alone is, to the
    # reed switches, a lift like any other: nothing tells the two apart.
    knock_ms = 20
    # What a pawn reaching the last rank becomes until it is tapped (docs/spec.md section 3: a queen).
    promotion = QUEEN

    def __init__(self, game=None, mode=STRICT):
        self.game = game or Game()
        self.mode = mode
        self.phase = OVER if self.game.is_over() else PLAY  # as load_game() has it
        self.occ = bytearray(64)  # what the switches say (debounced)
        self.base = bytearray(64)  # what they should say for the game's position
        self.prev = bytearray(64)  # ... and for the position before the last move (takebacks)
        self.was_lifted = bytearray(64)  # squares lifted since the last move
        self.place_seq = [0] * 64  # when each square was last filled (an event counter)
        self.seq = 0
        self.emptied = []  # squares the game has occupied that are empty
        self.filled = []  # squares the game has empty that are occupied
        self.out = []
        self.last_change = 0
        self.committed_at = 0
        self.pending = 0  # the legal move the board shows now, waiting for commit_ms
        self.pending_kind = None  # "move", "undo", "castle", "new", "result", "setup"
        self.pending_result = None
        self.in_progress = True  # can the board still become a legal move?
        self.error = None  # (kind, squares) currently shown, or None
        # Only pieces nothing can happen to are off their squares (being adjusted): no error; after
        # hint_ms in the air `hint` turns on and the LEDs show where they belong.
        self.resting = False
        self.resting_since = 0
        self.hint = False
        self.touched = []  # touch-move: squares touched by the side to move, in order
        # Lifts not yet long enough to be touches: their squares and when each was lifted. Arrays,
        # not a dict, so that tick() allocates nothing while a piece is in the air.
        self._waiting = bytearray(64)
        self._n_waiting = 0
        self._lifted_at = [0] * 64
        self._last_lift = -0x10000  # when the last piece left the board ...
        self._burst_start = 0  # ... when the run of lifts knock_ms apart it belongs to began
        self._burst_n = 0  # ... and how many lifts that run has had
        self.knocked_at = -0x10000  # when the last run of pieces knocked over began (the clock's rules)
        self.promotion_square = -1  # a just-promoted piece that may be tapped to change it
        self._tap = False
        self.remote = 0  # a move sent by the PC, shown until it is played
        # The PC's (or Lichess's) opponent offers a draw: both kings show it until it is answered
        # (the kings' draw sign accepts, a move declines; link/cpp.py keeps it).
        self.draw_offer = False
        # The start position set up starts a new game (docs/spec.md section 3), unless a PC program rules the game
        # (a CPP round: docs/spec.md section 6): then it is only a board that differs from the game.
        self.new_games = True
        # A position given to load_game (a PC's `new FEN`) is the game until the pieces have stood
        # in it once: the start position on the squares before then (where the pieces were, or on
        # the hands' way) is no new game (issue 29). Power-up (resume_game) gives no such position.
        self.to_set_up = False
        # When the board's own engine shows its move, that move is the only one the board accepts
        # (any other is refused and guided back); a PC's move or a hint is only shown.
        self.remote_required = False
        # gesture(referee) -> True while the board shows a signal, not a move (engine/opponent.py).
        self.gesture = None
        self._claims = ()
        # The clock (core/clock.py) or None; pressed at each commit. An illegal move shown as an error
        # that stands illegal_ms (or until the opponent lifts a piece) is complete: core/arbiter.py.
        self.clock = None
        self._clock_aside = None  # the board's clock while another rules the game (lay_clock_aside)
        self.illegal_ms = 2000
        self.illegal_rule = "fide"  # or "lose" (core/arbiter.py)
        self.illegal_count = [0, 0]  # completed illegal moves of white and black
        self.illegal_penalised = False  # the illegal move on the board now was penalised
        # At power-up, the moves the saved game lacks that the pieces stand as (resume_game), until
        # one is played or the board is the saved game again; None otherwise.
        self.reading = None
        self.version = 0  # counts changes of what the board should show, so the LEDs redraw only then
        self._sync_base()
        self.occ[:] = self.base

    # ------------------------------------------------------------------ control

    def start(self, occupancy, now):
        """The physical board at power-up (bytearray(64) of 0/1)."""
        self.occ[:] = occupancy
        self.last_change = now
        self._recompute()

    def new_game(self, fen=STARTING_FEN, now=0):
        """Start a game from a position; the board is guided to it if it differs (SETUP)."""
        self.load_game(Game(fen), now)

    def load_game(self, game, now=0):
        """Carry on with a game (a saved one after power-up, or one set from the PC). While the board
        differs from its position the LEDs guide the pieces there (SETUP); then play resumes."""
        self.game = game
        self._reset_turn()
        self._sync_base()
        self._set_prev()
        self.remote = 0
        self._claims = game.claims
        self.promotion_square = -1
        self.phase = OVER if game.is_over() else SETUP if self.occ != self.base else PLAY
        self.to_set_up = self.occ != self.base
        self._reset_clock()
        self.last_change = now
        self._recompute()

    def resume_game(self, game, now=0):
        """Carry on with the saved game at power-up (docs/power-up.md). When the pieces stand as one
        legal move of it would leave them, the save did not reach that move (a power cut just
        after it, or a move made while the board was off): the board reads it after commit_ms of
        stillness, as any move, with a ("read", m) event before its ("move", m). When several
        moves would (captures by one piece: the victims' squares all read occupied), a ("choose",
        from, [to...]) event, and the player lifts the piece where it now stands and puts it
        back. Anything else (two plies, a move the rules refuse) is set up again as load_game()."""
        self.load_game(game, now)
        self.to_set_up = False  # the saved game: the start position set up is a new game, as always
        if self.phase != SETUP:
            return
        from core.resume import moves_to

        found = moves_to(game, self.occ, self.promotion)
        if not found:
            return
        self.reading = found
        self.phase = PLAY
        if len(found) == 1:
            t = move_to(found[0])
            if self.base[t]:
                # A capture with one victim: as though the capturing piece had been lifted off it
                # and put back, which is how the board tells a capture from a piece in the air.
                self.was_lifted[t] = 1
                self.place_seq[t] = self.seq
        else:
            self.out.append(("choose", move_from(found[0]), sorted([move_to(m) for m in found])))
        self._recompute()

    def configure(self, settings):
        """Take the game settings of config.Settings: mode, commit delay, default promotion."""
        self.set_mode(settings.mode)
        self.commit_ms = settings.commit_delay_ms
        self.promotion = "nbrq".index(settings.promotion_piece) + KNIGHT
        self.illegal_rule = getattr(settings, "illegal_moves", "fide")
        self.illegal_ms = getattr(settings, "illegal_complete_ms", self.illegal_ms)
        control = getattr(settings, "clock", "none")
        if control and control != "none":
            self.set_clock(control)

    def set_clock(self, control):
        """A time control (core/clock.py; None or "none": no clock); ValueError changes nothing."""
        from core.clock import make

        self.clock = make(control)
        self._clock_aside = None
        self._reset_clock()
        self.version += 1

    def lay_clock_aside(self):
        """Another clock rules this game (a CPP app's, or none: a resumed game saved without one):
        the board's own neither runs, flags, penalises nor is saved until take_clock_back()."""
        if self.clock is not None:
            self._clock_aside = self.clock
            self.clock = None
            self.version += 1

    def take_clock_back(self):
        """The board's own clock again (after lay_clock_aside), as at the start of a game."""
        c = self._clock_aside
        if c is not None:
            self._clock_aside = None
            self.clock = c
            self._reset_clock()
            self.version += 1

    def _reset_clock(self):
        self.illegal_count = [0, 0]
        self.illegal_penalised = False
        c = self.clock
        if c is not None:
            c.reset()
            c.side = 1 if self.game.position.side == BLACK else 0

    def set_mode(self, mode):
        if mode not in (STRICT, CASUAL):
            raise ValueError("mode must be strict or casual, not %r" % (mode,))
        self.mode = mode

    def choose_promotion(self, piece_type):
        """Change the piece the last promotion gave (from the PC); returns whether it could."""
        if self.promotion_square < 0 or piece_type not in (2, 3, 4, 5):
            return False
        self._set_promotion(piece_type)
        return True

    def end_promotion_choice(self):
        """The last promotion's piece is final (a PC program has been told of it): a tap no
        longer changes it. The LEDs stop showing the piece to tap."""
        if self.promotion_square >= 0:
            self.promotion_square = -1
            self._tap = False
            self.version += 1

    def show_remote(self, move):
        """A move sent by the PC (an engine or an online opponent): shown until the player makes it."""
        self.remote = move

    # ------------------------------------------------------------------ events

    def lift(self, sq, now):
        self._event(sq, 0, now)

    def place(self, sq, now):
        self._event(sq, 1, now)

    def _event(self, sq, occupied, now):
        if self.occ[sq] == occupied:
            return  # nothing changed (a repeated report)
        # The opponent's first lift makes the move the board shows final at once (and a promotion).
        if not occupied:
            if self.error is not None and self.clock is not None:
                self._rules(now, sq)  # the opponent's lift may complete an illegal move (core/arbiter.py)
            if self.pending and self.pending_kind == "move" and not part_of(self.pending, sq):
                self._commit(now)
            if sq != self.promotion_square:
                self.promotion_square = -1
                self._tap = False
            elif self.emptied or self.filled:
                self._tap = False
            else:
                self._tap = True
        self.occ[sq] = occupied
        self.seq += 1
        if occupied:
            self.place_seq[sq] = self.seq
            self._stop_waiting(sq)  # back before it counted as a touch
        else:
            self.was_lifted[sq] = 1
            if self.base[sq] and self.phase == PLAY and sq not in self.touched and not self._adjusting(sq, now):
                self._waiting[self._n_waiting] = sq
                self._n_waiting += 1
                self._lifted_at[sq] = now
            self._knocked_over(now)
        self.last_change = now
        if occupied and self._tap and sq == self.promotion_square and self.occ == self.base:
            # Lifted and put back on its square, nothing else touched: the next promotion piece.
            self._tap = False
            m = self.game.last_move()
            self._set_promotion(_NEXT_PROMOTION[move_promotion(m)])
            if sq in self.touched:
                self.touched.remove(sq)
            return
        self._recompute(sq)

    def _stop_waiting(self, sq):
        """Forget a lift that was waiting to become a touch (the last one takes its place)."""
        w = self._waiting
        n = self._n_waiting
        for i in range(n):
            if w[i] == sq:
                w[i] = w[n - 1]
                self._n_waiting = n - 1
                return

    def _knocked_over(self, now):
        """After a lift: when it is the second or later of lifts less than knock_ms apart, the
        pieces fell together, and none of the lifts of that run becomes a touch."""
        if _elapsed(now, self._last_lift) >= self.knock_ms:
            self._burst_start = now
            self._burst_n = 0
        self._burst_n += 1
        self._last_lift = now
        if self._burst_n < 2:
            return
        self.knocked_at = self._burst_start
        span = _elapsed(now, self._burst_start)
        i = 0
        while i < self._n_waiting:
            sq = self._waiting[i]
            if _elapsed(now, self._lifted_at[sq]) <= span:
                self._stop_waiting(sq)  # the last waiting square moves to i: look at i again
            else:
                i += 1

    def _adjusting(self, sq, now):
        """A player who has just moved often centres the piece on its square: a lift of the moved
        piece soon after the commit is that player's, not the opponent touching it (FIDE 4.2)."""
        last = self.game.last_move()
        return bool(last) and _elapsed(now, self.committed_at) < self.adjust_ms and part_of(last, sq)

    def tick(self, now):
        """Call every scan: confirms touches, commits what has been still long enough; with a clock,
        a flag falls and an illegal move that stood long enough completes (core/arbiter.py)."""
        c = self.clock
        if c is not None and (self.error is not None or self.resting or c.running and ((now - c.turn_at) & 0x3FFFFFFF) >= c.due):
            self._rules(now, -1)
        if not self._n_waiting and self.pending_kind is None and not self.resting and (self.in_progress or self.error is not None):
            return  # nothing can be due: the step of a still board (no lift waiting, no move shown)
        i = 0
        while i < self._n_waiting:
            sq = self._waiting[i]
            if _elapsed(now, self._lifted_at[sq]) >= self.touch_ms:
                self._stop_waiting(sq)
                self._touch(sq)  # still up after touch_ms: a deliberate touch
            else:
                i += 1
        if self.resting and not self.hint and _elapsed(now, self.resting_since) >= self.hint_ms:
            self.hint = True
            self.version += 1
        quiet = _elapsed(now, self.last_change)
        if self.pending_kind is not None:
            wait = self.result_ms if self.pending_kind == "result" else self.commit_ms
            if quiet >= wait:
                self._commit(now)
        elif not self.in_progress and quiet >= self.commit_ms and self.error is None:
            self._raise_error()

    def next_deadline(self):
        """The earliest time at which tick() may change something without a new event, or None.
        Lets a simulation skip the scans in between (the firmware just keeps scanning)."""
        t = None
        if self.pending_kind is not None:
            t = self.last_change + (self.result_ms if self.pending_kind == "result" else self.commit_ms)
        elif not self.in_progress and self.error is None:
            t = self.last_change + self.commit_ms
        if self.resting and not self.hint:
            d = self.resting_since + self.hint_ms
            if t is None or d < t:
                t = d
        for i in range(self._n_waiting):
            d = self._lifted_at[self._waiting[i]] + self.touch_ms
            if t is None or d < t:
                t = d
        if self.clock is not None:
            from core.arbiter import deadline

            t = deadline(self, t)
        return t

    # ------------------------------------------------------------------ reading the board

    def _sync_base(self):
        self.game.position.occupancy_into(self.base)

    def _differences(self, changed):
        """Bring emptied and filled (in square order) up to date with occ and base: after one square
        changed on the board only that square can move between them; else (-1) compare all 64."""
        base = self.base
        occ = self.occ
        emptied = self.emptied
        filled = self.filled
        if changed >= 0:
            if changed in emptied:
                emptied.remove(changed)
            elif changed in filled:
                filled.remove(changed)
            if occ[changed] != base[changed]:
                squares = emptied if base[changed] else filled
                i = len(squares)
                while i and squares[i - 1] > changed:
                    i -= 1
                squares.insert(i, changed)
            return
        while emptied:
            emptied.pop()
        while filled:
            filled.pop()
        if occ == base:
            return  # the common case after a move: one C-level comparison instead of 64 steps
        for sq in range(64):
            if occ[sq] != base[sq]:
                if base[sq]:
                    emptied.append(sq)
                else:
                    filled.append(sq)

    def _recompute(self, changed=-1):
        """Compare the board with the game and decide what it shows. changed: the one square that
        changed on the board since the last call, or -1 (the game changed, or several squares)."""
        self.version += 1
        resting = self.resting
        hint = self.hint
        self.resting = False
        self.hint = False
        base = self.base
        occ = self.occ
        emptied = self.emptied
        filled = self.filled
        self._differences(changed)
        if self.reading is not None and occ[move_from(self.reading[0])]:
            self.reading = None  # at power-up: the piece went back where the saved game has it
        self.pending = 0
        self.pending_kind = None
        if not emptied and not filled:
            # The board is the game: any half-made move has been taken back.
            self.reading = None  # at power-up: the pieces went back to the saved game
            self.to_set_up = False
            self.in_progress = True
            self.illegal_penalised = False  # a later illegal move is another one (FIDE 7.5.5)
            if self.clock is not None and self.clock.lent:
                self.clock.give_back(self.last_change)  # knocked pieces back: the turn's time runs again
            self.clear_error()
            if self.phase == SETUP:
                self.pending_kind = "setup"
            else:
                self.was_lifted[:] = _ZEROS
            return
        if self._tap and not filled and len(emptied) == 1 and emptied[0] == self.promotion_square:
            self.in_progress = True  # a promotion tap: the piece comes back to its square
            return
        if self.phase == PLAY:
            move, progress = self._match_board(base, emptied, filled)
            if move:
                if self.allowed(move):
                    self.pending = move
                    self.pending_kind = "move"
                    self.in_progress = True
                    self.clear_error()
                    return
                progress = False
            if progress:
                self.in_progress = True
                self.clear_error()
                return
            if self.mode == CASUAL and self._casual_alternatives():
                return
        elif self.phase == OVER and self.mode == CASUAL and self.game.ply() and occ == self.prev:
            self.pending_kind = "undo"  # take back the move that ended the game
            self.in_progress = True
            return
        if self.new_games and not self.to_set_up and occ == START_OCCUPANCY and (base != START_OCCUPANCY or self.phase != PLAY):
            self.pending_kind = "new"
            self.in_progress = True
            return
        if self.phase == PLAY:
            result = self._kings_result()
            if result:
                self.pending_kind = "result"
                self.pending_result = result
                self.in_progress = True
                return
            if self._kings_on_their_way():
                self.in_progress = True
                return
            if not filled and self.error is None and self._all_inert(emptied):
                # Pieces being straightened that no legal move involves: nothing to say yet (docs/spec.md section 3).
                # Once an error shows (a knocked piece), it stays until the board is right again.
                self.in_progress = True
                self.clear_error()
                self.resting = True
                if resting:
                    self.hint = hint
                else:
                    self.resting_since = self.last_change
                return
        if self.gesture is not None and self.gesture(self):
            self.in_progress = True
            return
        self.in_progress = self.phase != PLAY  # in set-up or after the game the LEDs guide, quietly
        if self.error is not None:
            self._raise_error()  # the wrong squares changed: say so again

    def _match_board(self, base, emptied, filled):
        """match() over the legal moves that can explain the board. With one of the side to move's
        pieces up and nothing else changed (a lift, the step that must light its moves at once)
        only that piece's moves can, and castling if it is a rook: the game keeps each piece's
        moves together, so those are a slice of its list instead of all 30-50 moves."""
        game = self.game
        legal = game.legal
        if len(emptied) == 1 and not filled and game.legal_grouped:
            e0 = emptied[0]
            pos = game.position
            piece = pos.piece_at(e0)
            if piece & BLACK == pos.side:
                lo = game.legal_first[e0]
                found, progress = self.match(legal, base, emptied, filled, lo, lo + game.legal_count[e0])
                if piece & 7 == ROOK and not progress:
                    k = pos.king_square(pos.side)  # castling is among the king's moves
                    lo = game.legal_first[k]
                    progress = self.match(legal, base, emptied, filled, lo, lo + game.legal_count[k])[1]
                return found, progress
        return self.match(legal, base, emptied, filled)

    def match(self, legal, base, emptied, filled, lo=0, hi=-1):
        """(the legal move the board shows or 0, whether a legal move can still come of it), from
        legal[lo:hi] (all of it by default)."""
        ne = len(emptied)
        nf = len(filled)
        if ne > 2 or nf > 2 or (nf and not ne):
            # A piece can only land after one has left: a square filled with none emptied is a
            # stray piece or a switch stuck closed, never a move on its way.
            return 0, False
        e0 = emptied[0] if ne else -1
        e1 = emptied[1] if ne > 1 else -1
        f0 = filled[0] if nf else -1
        f1 = filled[1] if nf > 1 else -1
        found = 0
        found_rank = -1
        progress = False
        promotion = self.promotion
        sq64 = SQ64
        if hi < 0:
            hi = len(legal)
        for i in range(lo, hi):
            m = legal[i]
            f = sq64[m & 127]  # move_from and move_to, inline: this loop runs over every legal move
            t = sq64[(m >> 7) & 127]
            flag = m >> 14
            if e0 != f and e0 != t and flag != MOVE_CASTLING and flag != MOVE_EN_PASSANT and e0 >= 0:
                continue  # a plain move or capture that neither moves nor takes the lifted piece
            if flag == MOVE_CASTLING:
                rf, rt = castling_rook(m)
                if (e0 in (-1, f, rf)) and (e1 in (-1, f, rf)) and (f0 in (-1, t, rt)) and (f1 in (-1, t, rt)):
                    progress = True
                    if ne == 2 and nf == 2:
                        return m, True
            elif flag == MOVE_EN_PASSANT:
                v = victim(m)
                if (e0 in (-1, f, v)) and (e1 in (-1, f, v)) and (f0 in (-1, t)) and f1 < 0:
                    progress = True
                    if ne == 2 and nf == 1:
                        return m, True
            elif base[t]:
                # A capture: the victim's square may be empty for a while, and must have been.
                if nf == 0 and (e0 in (-1, f, t)) and (e1 in (-1, f, t)):
                    progress = True
                    if ne == 1 and e0 == f and self.was_lifted[t] and self.place_seq[t] > found_rank:
                        p = move_promotion(m)
                        if not p or p == promotion:
                            found = m
                            found_rank = self.place_seq[t]
            else:
                if (e0 in (-1, f)) and e1 < 0 and (f0 in (-1, t)) and f1 < 0:
                    progress = True
                    if ne == 1 and nf == 1:
                        p = move_promotion(m)
                        if not p or p == promotion:
                            return m, True
        return found, progress

    def _all_inert(self, squares):
        """Can no legal move involve any of these squares? The side to move's pieces there cannot
        move, the opponent's cannot be captured (not even en passant), no castling uses them."""
        for m in self.game.legal:
            for sq in squares:
                if part_of(m, sq):
                    return False
        return True

    def _casual_alternatives(self):
        # Casual mode only (core/casual.py): a strict board never loads that code.
        from core.casual import alternatives

        return alternatives(self)

    def _kings_result(self):
        from core.results import kings_result  # DGT result gestures (core/results.py)

        return kings_result(self)

    def _kings_on_their_way(self):
        from core.results import kings_on_their_way

        return kings_on_their_way(self)

    # ------------------------------------------------------------------ touch-move (strict)

    def _touch(self, sq):
        """A piece of either colour deliberately lifted by the side to move (FIDE 4.2-4.3)."""
        if self.mode != STRICT or self.phase != PLAY or sq in self.touched or not self.base[sq]:
            return
        if self.remote_required:
            return  # the player only carries out the board's own move: no touch-move for it
        self.touched.append(sq)
        self.version += 1

    def obligation(self):
        """Touch-move: what the player must do, or None. ("move", sq): the piece on sq must move;
        ("capture", sq): the piece on sq must be taken; ("capture-with", own, opp): own must take
        opp; ("castle", king, rook): castle with that rook. The square that must act comes second."""
        if self.mode != STRICT or not self.touched or self.phase != PLAY:
            return None
        pos = self.game.position
        us = pos.side
        legal = self.game.legal
        own = -1
        opp = -1
        first = None
        for sq in self.touched:
            mine = pos.piece_at(sq) & BLACK == us
            if mine and own < 0 and self._has_move_from(legal, sq):
                own = sq
                if first is None:
                    first = ("move", sq)
            elif not mine and opp < 0 and self._has_move_to(legal, sq, -1):
                opp = sq
                if first is None:
                    first = ("capture", sq)
        if own >= 0 and opp >= 0 and self._has_move_to(legal, opp, own):
            return ("capture-with", own, opp)  # FIDE 4.3.3: take the touched piece with the touched one
        if own >= 0 and pos.piece_at(own) & 7 == KING:
            # FIDE 4.4.2: king touched, then a rook: castle on that side if it is legal.
            for sq in self.touched[self.touched.index(own) + 1 :]:
                if pos.piece_at(sq) == ROOK | us:
                    for m in legal:
                        if m >> 14 == MOVE_CASTLING and castling_rook(m)[0] == sq:
                            return ("castle", own, sq)
        return first

    def _has_move_from(self, legal, sq):
        for m in legal:
            if move_from(m) == sq:
                return True
        return False

    def _has_move_to(self, legal, sq, frm):
        for m in legal:
            if victim(m) == sq and (frm < 0 or move_from(m) == frm):
                return True
        return False

    def allowed(self, m, ob=False):
        """May the move be played now (touch-move, the board's own engine move)? ob: obligation(),
        when the caller asks for many moves and has it already."""
        if self.remote_required and self.remote and (m & 0x3FFF) != (self.remote & 0x3FFF):
            return False  # from and to only: an under-promotion is chosen after the move
        return self._keeps_touch_move(m, ob)

    def _keeps_touch_move(self, m, ob=False):
        if ob is False:
            ob = self.obligation()
        if ob is None:
            return True
        if ob[0] == "move":
            return move_from(m) == ob[1]
        if ob[0] == "capture":
            return victim(m) == ob[1]
        if ob[0] == "castle":
            return m >> 14 == MOVE_CASTLING and castling_rook(m)[0] == ob[2]
        return move_from(m) == ob[1] and victim(m) == ob[2]

    # ------------------------------------------------------------------ commits

    def _commit(self, now):
        self.committed_at = now
        kind = self.pending_kind
        move = self.pending
        self.pending = 0
        self.pending_kind = None
        game = self.game
        if kind == "move":
            c = self.clock
            if c is not None and not c.running and c.started and c.fallen < 0 and not c.left(c.side, self.last_change):
                # The mover's time ran out before the move (a clock stopped past it): the flag falls now.
                from core.arbiter import flag_fall

                flag_fall(self, now)
                return
            if self.reading is not None and self._read(move):
                self.out.append(("read", move))
            self._push(move, True)
        elif kind == "undo":
            m = game.pop()
            self.out.append(("undo", m))
            if self.clock is not None:
                self.clock.take_back(now)
            self.phase = PLAY
            self._after_position_change()
        elif kind == "castle":
            rook_move = game.pop()
            self.out.append(("undo", rook_move))
            if self.clock is not None:
                self.clock.take_back(now)  # the rook's move pressed it: the castling presses it now
            self._push(move)
        elif kind == "new":
            self.game = Game()
            self.phase = PLAY
            self.remote = 0
            self.take_clock_back()  # a new game has the board's clock again
            self._reset_clock()
            self._claims = ()
            self.out.append(("new",))
            self._after_position_change()
        elif kind == "result":
            result, reason = self.pending_result
            if reason == RESIGNATION:
                game.resign(WHITE if result == "0-1" else BLACK)
            else:
                game.agree_draw()
            if self.clock is not None:
                self.clock.stop(now)  # the offer was made on the offerer's time, which ran till now
            self.phase = OVER
            self.out.append(("end", game.result, game.reason))
            self._recompute()
        elif kind == "setup":
            self.phase = PLAY
            self._recompute()

    def _push(self, move, synced=False):
        """Play the move the board shows. synced: base is the occupancy of the position before it
        (not so after the pop of a rook-first castling), so the move's own squares update it."""
        game = self.game
        game.push(move)
        self.out.append(("move", move))
        c = self.clock
        if c is not None:
            # The board's own press of the clock: the move was complete when the board last changed
            # to show it (the commit delay, or the opponent's lift that made it final, is not the mover's).
            c.press(self.last_change)
            self.out.append(("clock", c.base[0], c.base[1]))
        if self.remote and (self.remote & 0x3FFF) == (move & 0x3FFF):
            self.remote = 0
        self.promotion_square = move_to(move) if move_promotion(move) else -1
        self._tap = False
        self._after_position_change(moved=move if synced else 0)

    def _read(self, move):
        """Is the move one of those resume_game() found on the board (a promotion to any piece)?"""
        for m in self.reading:
            if (m & 0x3FFF) == (move & 0x3FFF):
                return True
        return False

    def _set_promotion(self, piece_type):
        game = self.game
        m = game.pop()
        m = with_promotion(m, piece_type)
        game.push(m)
        self.out.append(("promote", m))
        self._after_position_change(keep_touches=False)

    def _after_position_change(self, keep_touches=False, moved=0):
        """moved: the move just played, when base was the occupancy before it: then prev is that
        and base changes on the move's squares (2-4 stores, where reading the position takes two
        64-square loops and an unmake/make, 2 ms on the Pico)."""
        game = self.game
        if moved:
            self.prev[:] = self.base
            self._move_base(moved)
        else:
            self._sync_base()
            self._set_prev()
        self._reset_turn()
        if game.is_over():
            if self.clock is not None:
                self.clock.stop(self.last_change)
            if self.phase != OVER:
                self.phase = OVER
                self.out.append(("end", game.result, game.reason))
        elif self.phase == OVER:
            self.phase = PLAY
        claims = game.claims
        for c in claims:
            if c not in self._claims:
                self.out.append(("claim", c))
        self._claims = claims
        self._recompute()

    def _move_base(self, m):
        base = self.base
        base[move_from(m)] = 0
        base[move_to(m)] = 1
        flag = m >> 14
        if flag == MOVE_CASTLING:
            rf, rt = castling_rook(m)
            base[rf] = 0
            base[rt] = 1
        elif flag == MOVE_EN_PASSANT:
            base[victim(m)] = 0

    def _set_prev(self):
        """prev = the occupancy before the last move (what a takeback must set up)."""
        game = self.game
        if game.ply():
            pos = game.position
            last = game.last_move()
            pos.unmake()
            pos.occupancy_into(self.prev)
            pos.make(last)
        else:
            self.prev[:] = self.base

    def _reset_turn(self):
        self.illegal_penalised = False
        self.reading = None
        self.touched = []
        self._n_waiting = 0
        self.was_lifted[:] = _ZEROS
        self.clear_error()

    # ------------------------------------------------------------------ errors

    def _raise_error(self):
        kind = MISMATCH
        squares = []
        ob = self.obligation()
        emptied = self.emptied
        filled = self.filled
        if self.phase == PLAY:
            move, _ = self.match(self.game.legal, self.base, emptied, filled)
            if move and not self._keeps_touch_move(move):
                kind = TOUCH_MOVE
                squares.append(ob[1])
            elif len(emptied) == 1 and len(filled) == 1 and self.game.position.piece_at(emptied[0]) & BLACK == self.game.position.side:
                # One piece of the side to move went where it may not go.
                kind = ILLEGAL
                squares.append(emptied[0])
                squares.append(filled[0])
        for sq in emptied + filled:
            if sq not in squares:
                squares.append(sq)
        error = (kind, squares)
        if error != self.error:
            self.error = error
            self.version += 1
            if self.phase == PLAY:
                self.out.append(("error", kind, squares))

    def clear_error(self):
        """The board no longer shows an error (a plug-in read it as a move on its way)."""
        self.error = None

    # ------------------------------------------------------------------ the clock's rules

    def end_game(self, result, reason, now):
        """An arbiter's decision ends the game (a flag fall, illegal moves): the clock stops."""
        self.game.declare(result, reason)
        if self.clock is not None:
            self.clock.stop(now)
        self.phase = OVER
        self.pending = 0
        self.pending_kind = None
        self.out.append(("end", self.game.result, self.game.reason))
        self._recompute()

    def _rules(self, now, lifted):
        from core.arbiter import check  # loaded the first time a flag may fall or an error shows

        check(self, now, lifted)


def event_text(event):
    """One output line for an event, as tools/replay.py prints it (docs/spec.md section 5)."""
    kind = event[0]
    if kind in ("move", "undo", "promote", "read"):
        return kind + " " + move_uci(event[1])
    if kind == "choose":
        return "choose " + square_name(event[1]) + "".join(" " + square_name(sq) for sq in event[2])
    if kind == "error":
        return "error " + event[1] + "".join(" " + square_name(sq) for sq in event[2])
    if kind == "clock":
        return "clock %d %d" % (event[1], event[2])
    if kind == "penalty":
        return "penalty %s %d" % (event[1], event[2])
    return " ".join(event)
