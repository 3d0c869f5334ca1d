# What to light: the referee and the game in, one signal per square out (docs/spec.md section 4).
#
# Pure policy: it decides *what* each square says (core/signals.py); the LED drivers in
# firmware/hardware/ decide how that looks (a colour on a WS2812B, a blink pattern on a MAX7219).
# When two meanings fall on one square, signals.PRIORITY keeps the more important one.
from core import signals as S
from core.game import CHECKMATE, FLAG, ILLEGAL_MOVES, RESIGNATION, STALEMATE
from core.position import (
    BLACK,
    KING,
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    SQ64,
    WHITE,
    castling_rook,
    move_from,
    move_promotion,
    move_to,
    victim,
)
from core.referee import OVER, PLAY, SETUP

_PRIORITY = S.PRIORITY
_ZEROS = bytes(64)
_PROMOTION_SIGNAL = (0, 0, S.PROMOTE_KNIGHT, S.PROMOTE_BISHOP, S.PROMOTE_ROOK, S.PROMOTE_QUEEN)


class Display:
    """Fills a bytearray(64) frame (index 0 = a1) from the referee's state."""

    # Show the last move's from and to squares dimly (docs/spec.md section 4 makes it optional).
    show_last_move = True

    def __init__(self):
        self.frame = bytearray(64)
        self._moves = []  # scratch list for the legal moves of the lifted piece

    def _put(self, sq, signal):
        f = self.frame
        if _PRIORITY[signal] > _PRIORITY[f[sq]]:
            f[sq] = signal

    def render(self, referee, fault_squares=None, unsent=()):
        """Recompute the frame; returns it. fault_squares: switches the hardware layer found faulty;
        unsent: the squares of the player's move a network has not delivered yet (online play)."""
        f = self.frame
        f[:] = _ZEROS  # one C-level copy: a Python loop over 64 squares costs 0.5 ms on the Pico
        game = referee.game
        pos = game.position
        put = self._put
        last = game.last_move()
        if last and self.show_last_move:
            put(move_from(last), S.LAST_MOVE)
            put(move_to(last), S.LAST_MOVE)
        for sq in unsent:
            put(sq, S.UNSENT)
        if referee.remote:
            put(move_from(referee.remote), S.REMOTE_MOVE)
            put(move_to(referee.remote), S.REMOTE_MOVE)
        kw = pos.king_square(WHITE)
        kb = pos.king_square(BLACK)
        if referee.phase == OVER or game.is_over():
            self._game_end(referee, kw, kb)
        else:
            if game.claims or referee.draw_offer:  # a draw to take: claimed, or the offer accepted
                put(kw, S.CLAIM)
                put(kb, S.CLAIM)
            if game.check:
                put(pos.king_square(pos.side), S.CHECK)
            c = referee.clock
            if c is not None and c.running and c.low:
                put(pos.king_square(pos.side), S.LOW_TIME)  # the clock: little time left (docs/clock.md)
        if referee.promotion_square >= 0 and last:
            put(referee.promotion_square, _PROMOTION_SIGNAL[move_promotion(last)])
        if referee.phase == PLAY and not game.is_over():
            ob = referee.obligation()
            if referee.reading is not None:
                self._reading(referee)
            else:
                self._hand(referee, ob)
            if ob is not None and referee.occ[ob[1]]:
                put(ob[1], S.TOUCHED)  # shown once the touched piece is back on its square
        # Where the board differs from the game: in an error, during set-up, and while a piece the
        # game does not explain is off its square (one being adjusted: after a few seconds), guide it back.
        if referee.error is not None or referee.phase == SETUP or referee.hint:
            for sq in referee.emptied:
                put(sq, S.PLACE_HERE)
            for sq in referee.filled:
                put(sq, S.REMOVE)
            if referee.error is not None:
                kind, squares = referee.error
                if kind == "illegal" and len(squares) >= 2:
                    put(squares[1], S.ILLEGAL)
        if fault_squares:
            for sq in fault_squares:
                put(sq, S.FAULT)
        return f

    def _game_end(self, referee, kw, kb):
        game = referee.game
        put = self._put
        if game.reason == CHECKMATE:
            loser = kw if game.result == "0-1" else kb
            put(loser, S.MATED_KING)
            checkers = []
            game.position.checkers(checkers)
            for sq in checkers:
                put(sq, S.MATING_PIECE)
        elif game.reason == STALEMATE:
            put(kw, S.STALEMATE)
            put(kb, S.STALEMATE)
        elif game.reason == RESIGNATION or game.reason == FLAG or game.reason == ILLEGAL_MOVES:
            # The loser's king shows the white flag: it resigned, its flag fell, or the arbiter's
            # rule on illegal moves lost it the game (a draw by those rules lights both kings, below).
            put(kw if game.result == "0-1" else kb, S.RESIGNED)
        else:
            put(kw, S.DRAW)
            put(kb, S.DRAW)

    def _reading(self, referee):
        """At power-up, pieces one move ahead of the saved game (Referee.resume_game): the square
        the piece left, and where the moves the board can read take it: for captures by one piece,
        the squares the player chooses among by lifting the piece where it stands."""
        put = self._put
        for sq in referee.emptied:
            put(sq, S.LIFTED)
        base = referee.base
        for m in referee.reading:
            t = move_to(m)
            put(t, S.CAPTURE if base[t] else S.QUIET)

    def _hand(self, referee, ob):
        """Pieces in the air: the lifted piece's legal destinations, or what finishes a half-made
        move. ob: referee.obligation()."""
        game = referee.game
        pos = game.position
        us = pos.side
        put = self._put
        base = referee.base
        own = -1
        for sq in referee.emptied:
            put(sq, S.LIFTED)
            p = pos.piece_at(sq)
            if p & BLACK == us and (own < 0 or p & 7 == KING):
                own = sq  # with king and rook both up, the king's moves (castling) matter
        if not referee.in_progress:
            return
        moves = self._moves
        while moves:
            moves.pop()
        lo = 0
        hi = -1
        if own >= 0:
            if game.legal_ready and game.legal_grouped:
                moves = game.legal  # the game's list has them together: no generation, no copy
                lo = game.legal_first[own]
                hi = lo + game.legal_count[own]
            else:
                game.destinations(own, moves)
        elif referee.emptied:
            # Only an opponent's piece is up (victim first): the moves that take it.
            v = referee.emptied[0]
            for m in game.legal:
                if victim(m) == v:
                    moves.append(m)
        # Only touch-move or the board's own engine move can forbid one of them.
        check = ob is not None or referee.remote_required
        f = self.frame
        priority = _PRIORITY
        quiet = priority[S.QUIET]
        capture = priority[S.CAPTURE]
        if hi < 0:
            hi = len(moves)
        for i in range(lo, hi):
            m = moves[i]
            if check and not referee.allowed(m, ob):
                continue
            t = SQ64[(m >> 7) & 127]  # move_to(m), inline: once per destination
            flag = m >> 14
            if flag != MOVE_CASTLING and flag != MOVE_EN_PASSANT:
                # A plain move, a capture or a promotion: the common case, its put() inline.
                if base[t]:
                    if capture > priority[f[t]]:
                        f[t] = S.CAPTURE
                    if own < 0:
                        put(move_from(m), S.CAPTURE)  # victim first: who can take it
                elif quiet > priority[f[t]]:
                    f[t] = S.QUIET
                continue
            if flag == MOVE_CASTLING:
                rf, rt = castling_rook(m)
                put(t, S.QUIET)
                if referee.occ[t]:
                    # The king is down on its castling square: now the rook.
                    put(rf, S.LIFTED)
                    put(rt, S.QUIET)
            else:  # en passant
                put(t, S.CAPTURE)
                if referee.occ[t]:
                    put(victim(m), S.CAPTURE)  # the pawn still to take off
