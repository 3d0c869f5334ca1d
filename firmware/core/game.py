# A game of chess: the moves played from a start position and what they mean for the result.
#
# Position knows the rules of one position; Game adds history: repetitions, the 50/75-move counts,
# how the game ended (python-chess's outcome() vocabulary) and the record (PGN).
from array import array

from core.position import (
    BLACK,
    NO_SQUARE,
    Position,
    SQUARES88,
    STARTING_FEN,
    WHITE,
    ZOBRIST,
    Z_EN_PASSANT,
    move_uci,
)

_KEYS_CHUNK = bytes(4 * 64)  # the key array grows by 64 positions at a time
_ZEROS = bytes(64)

# Why a game ended (the `end RESULT REASON` words of tools/replay.py).
CHECKMATE = "checkmate"
STALEMATE = "stalemate"
INSUFFICIENT_MATERIAL = "insufficient-material"
SEVENTYFIVE_MOVES = "seventyfive-moves"
FIVEFOLD_REPETITION = "fivefold-repetition"
RESIGNATION = "resignation"
AGREEMENT = "agreement"
CLAIMED_DRAW = "claimed-draw"
# The arbiter's decisions that need a clock (core/arbiter.py, FIDE 6.9 and 7.5.5).
FLAG = "flag"
FLAG_INSUFFICIENT = "flag-insufficient"
ILLEGAL_MOVES = "illegal-move"
ILLEGAL_MOVES_INSUFFICIENT = "illegal-move-insufficient"

# Draws a player may claim (FIDE 9.2, 9.3); the board only announces them.
THREEFOLD = "threefold"
FIFTY_MOVES = "fifty-moves"


class Game:
    """Moves from a start position, with the game's status kept up to date after every move."""

    # Dead positions beyond material (FIDE 5.2.2) end the game here. Not while a CPP central rules
    # the round (link/cpp_commands.py's begin, link/cpp.py's leave) nor a Lichess game played on the
    # board (online/central.py): they end the game themselves, and the companion's python-chess,
    # Lichess and the apps end none but by material.
    judge_dead = True

    def __init__(self, fen=STARTING_FEN):
        self.position = Position(fen)
        self.start_fen = self.position.fen()
        # Repetition keys, one per position reached (the start included), in a 32-bit array: with
        # the position's 12-byte undo records a ply of history costs 16 bytes on any runtime.
        self._keys = array("i", _KEYS_CHUNK)
        self._keys[0] = self.repetition_key()
        self._positions = 1
        # The legal moves of the current position, built when first wanted (see legal) or ahead of
        # need a few pieces at a time (prepare_legal): the status after a move needs only whether
        # there is one, and on the Pico the whole list of a middlegame costs 15-25 ms.
        self._legal = []
        self._legal_next = 64  # the next square prepare_legal() looks at; 64: the list is complete
        self.legal_ready = True  # the list is complete: legal costs nothing now
        # Where each square's moves are in the list once it is complete: legal[first[sq]:][:count[sq]]
        # (a position has at most 218 legal moves, a piece 27: bytes hold them). Valid while
        # legal_grouped is True: the list has each piece's moves together, as generate_legal makes it.
        self.legal_first = bytearray(64)
        self.legal_count = bytearray(64)
        self.legal_grouped = False
        self.result = "*"
        self.reason = None
        self.claims = ()  # draws the side to move may claim now
        self.check = False
        self._forced = None  # (result, reason) of a resignation, agreement or claim
        self._refresh()

    # ------------------------------------------------------------------ moves

    def push(self, move):
        """Play a legal move (as found in self.legal)."""
        self.position.make(move)
        n = self._positions
        if n >= len(self._keys):
            self._keys.extend(_KEYS_CHUNK)
        self._keys[n] = self.repetition_key()
        self._positions = n + 1
        self._forced = None
        self._refresh()

    def pop(self):
        """Take back the last move; returns it."""
        move = self.position.last_move()
        self._positions -= 1
        self.position.unmake()
        self._forced = None
        self._refresh()
        return move

    def push_uci(self, text):
        move = self.position.parse_uci(text)
        self.push(move)
        return move

    # SAN and PGN (core/notation.py) are loaded the first time a record or a SAN move is asked
    # for: the scan loop never needs them, and a board no PC reads keeps their bytecode out of RAM.
    def push_san(self, text):
        from core import notation

        move = notation.parse_san(self.position, text)
        self.push(move)
        return move

    @property
    def moves(self):
        """The moves played, oldest first: read from the position's undo records (a new list)."""
        return self.position.moves_made()

    def ply(self):
        """How many moves have been played (cheaper than len(self.moves))."""
        return self._positions - 1

    def last_move(self):
        return self.position.last_move()

    @property
    def legal(self):
        """The legal moves in the current position (a list kept by the game: do not change it)."""
        if self._legal_next < 64:
            self.prepare_legal(64)
        return self._legal

    def prepare_legal(self, pieces):
        """Build the legal-move list ahead of need: at most `pieces` more of the side to move's
        pieces (all of it in check, where one piece's moves depend on all the checks). Returns
        True once the list is complete. The list is the one Position.generate_legal makes, in
        its order: square by square, a1 first, a piece's moves as legal_moves_from lists them
        (on the Pico, piece by piece costs less in all than the whole list at once: 8-10 ms
        against 15-25 ms in a middlegame)."""
        sq = self._legal_next
        if sq >= 64:
            return True
        p = self.position
        out = self._legal
        if self.check:
            while out:
                out.pop()
            p.generate_legal(out)  # few moves, not indexed: legal_grouped stays False
            self._legal_next = 64
            self.legal_ready = True
            return True
        first = self.legal_first
        count = self.legal_count
        board = p.board
        us = p.side
        while sq < 64:
            piece = board[SQUARES88[sq]]
            if piece and piece & BLACK == us:
                if not pieces:
                    break  # the next call starts here (the squares before it hold none to do)
                n = len(out)
                p.generate_legal(out, sq)
                first[sq] = n
                count[sq] = len(out) - n
                pieces -= 1
            sq += 1
        self._legal_next = sq
        self.legal_ready = sq >= 64
        return self.legal_ready

    def destinations(self, sq64, out):
        """Legal moves of the piece on one square (0..63), appended to out."""
        return self.position.legal_moves_from(sq64, out)

    # ------------------------------------------------------------------ status

    def repetition_key(self):
        """Zobrist key of the position as FIDE 9.2.3 compares them: placement, side to move,
        castling rights and en passant only when a capture is really possible."""
        p = self.position
        key = p.zkey
        if p.ep != NO_SQUARE and p.has_legal_en_passant():
            key ^= ZOBRIST[Z_EN_PASSANT + (p.ep & 7)]
        return key

    def repetitions(self):
        """How many times the current position has occurred (itself included)."""
        keys = self._keys
        n = self._positions
        key = keys[n - 1]
        # Only positions since the last capture or pawn move can be the same (the clock counts them).
        first = n - 1 - self.position.halfmove
        if first < 0:
            first = 0
        count = 0
        for i in range(n - 1, first - 1, -2):
            if keys[i] == key:
                count += 1
        return count

    def _refresh(self):
        p = self.position
        legal = self._legal
        while legal:
            legal.pop()
        self._legal_next = 0  # built later, when wanted (legal) or ahead of need (prepare_legal)
        self.legal_ready = False
        self.legal_count[:] = _ZEROS
        self.check = p.is_check()
        self.legal_grouped = not self.check  # piece by piece (prepare_legal) out of check
        result = "*"
        reason = None
        claims = ()
        dead = False
        if self.judge_dead and (p.halfmove < 2 or self._positions == 1):
            # FIDE 5.2.2: a dead position ends the game. Beyond material core/dead.py proves it from
            # the pawns, every one of them right behind a pawn, which only a pawn move or a capture
            # changes, and the move after one (which may end a pawn's check or an en-passant
            # chance); or the game's first position. Only then is it loaded and asked (its cost:
            # docs/figures.md, "dead positions"). The test is here, not there, so that a game loads
            # it only then: the 1s are core/position.py's PAWN, 8 its BLACK (a black pawn's front
            # square is 16 below, a white one's 16 above).
            b = p.board
            locked = False  # a pawn on the board, and every one behind a pawn
            for sq in SQUARES88:
                if b[sq] & 7 == 1:
                    locked = b[sq + 16 - 4 * (b[sq] & 8)] & 7 == 1
                    if not locked:
                        break
            if locked:
                from core.dead import is_dead

                dead = is_dead(p)
        # Mate and stalemate need only whether a move exists. Out of check the list is begun piece by
        # piece until it has one (usually the first piece or two: about 0.5 ms each on the Pico),
        # the rest built later; in check Position.has_legal_move stops at the first evasion.
        if self.check:
            can_move = p.has_legal_move()
        else:
            while not legal and self._legal_next < 64:
                self.prepare_legal(1)
            can_move = len(legal) > 0
        if not can_move and self.check:
            result = "0-1" if p.side == WHITE else "1-0"
            reason = CHECKMATE
        elif p.is_insufficient_material():
            result, reason = "1/2-1/2", INSUFFICIENT_MATERIAL
        elif not can_move:
            result, reason = "1/2-1/2", STALEMATE
        elif dead:
            result, reason = "1/2-1/2", "dead-position"  # core/dead.py's DEAD_POSITION
        elif p.halfmove >= 150:
            result, reason = "1/2-1/2", SEVENTYFIVE_MOVES
        else:
            reps = self.repetitions()
            if reps >= 5:
                result, reason = "1/2-1/2", FIVEFOLD_REPETITION
            else:
                if reps >= 3:
                    claims = (THREEFOLD,)
                if p.halfmove >= 100:
                    claims = claims + (FIFTY_MOVES,)
        if self._forced and result == "*":
            result, reason = self._forced
        self.result = result
        self.reason = reason
        self.claims = claims

    def is_over(self):
        return self.result != "*"

    def resign(self, colour):
        """The side `colour` (WHITE or BLACK) resigns."""
        if not self.is_over():
            self._forced = ("0-1" if colour == WHITE else "1-0", RESIGNATION)
            self._refresh()

    def agree_draw(self):
        if not self.is_over():
            self._forced = ("1/2-1/2", AGREEMENT)
            self._refresh()

    def declare(self, result, reason):
        """An arbiter's decision the moves cannot show: a flag fall, a second illegal move."""
        if not self.is_over():
            self._forced = (result, reason)
            self._refresh()

    def claim_draw(self):
        """Claim a draw that is claimable now (threefold or fifty moves); returns whether it was."""
        if self.claims and not self.is_over():
            self._forced = ("1/2-1/2", CLAIMED_DRAW)
            self._refresh()
            return True
        return False

    def fen(self):
        return self.position.fen()

    def uci_moves(self):
        return [move_uci(m) for m in self.moves]

    def pgn(self, headers=None, clocks=None):
        """clocks: the mover's ms left after each of the last moves (core/notation.py)."""
        from core import notation

        return notation.pgn(self.start_fen, self.moves, self.result, headers, clocks=clocks)

    def san_moves(self):
        from core import notation

        p = Position(self.start_fen)
        out = []
        for m in self.moves:
            out.append(notation.san(p, m))
            p.make(m)
        return out

