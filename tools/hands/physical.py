"""Physical transcripts of random legal games: how two people's hands would play them on the board.

Each move becomes lifts and places in one of the orders players use (docs/spec.md section 3), with what
real hands and reed switches add: contact bounce, a hovering hand's chatter, slides across the
squares on the way, swaps, pauses of seconds with a piece in the air, promotion taps to choose the
piece, hesitations (a piece set down on another square for under 150 ms), adjustments (any piece in
casual mode; in strict mode pieces nothing can happen to and the piece about to move), knocked
pieces put back, rook-first castling (casual) and takebacks (casual). The intended moves are known, so replaying the transcript through the firmware tells
exactly how often the board misreads a move. python-chess plays the random games (host only).

    .venv/bin/python tools/hands/physical.py [--seed N] [--games N] [--mode strict|casual] > game.txt
"""
import random
import sys

import chess

PROMOTION_TAPS = {chess.QUEEN: 0, chess.ROOK: 1, chess.BISHOP: 2, chess.KNIGHT: 3}
# The king's destination when castling -> (rook from, rook to).
CASTLING_ROOK = {
    chess.G1: (chess.H1, chess.F1),
    chess.C1: (chess.A1, chess.D1),
    chess.G8: (chess.H8, chess.F8),
    chess.C8: (chess.A8, chess.D8),
}


def name(sq):
    return chess.square_name(sq)


class Hands:
    """Writes transitions with a clock, adding bounce and chatter to each."""

    def __init__(self, rng):
        self.rng = rng
        self.t = 1000
        self.lines = []

    def wait(self, lo, hi):
        self.t += self.rng.randint(lo, hi)

    def _raw(self, t, action, sq):
        self.lines.append((t, action, sq))

    def touch(self, action, sq, bounce=True):
        """One clean transition at the current time, then bounce or chatter after it."""
        self._raw(self.t, action, sq)
        rng = self.rng
        if bounce and rng.random() < 0.5:
            # Contact bounce: the contact reopens and closes a few times within 0.5-2 ms, or a
            # hovering hand makes it chatter for longer; each gap stays under the debounce time.
            other = "place" if action == "lift" else "lift"
            t = self.t
            for _ in range(rng.randint(1, 4)):
                t += rng.randint(1, 3)
                self._raw(t, other, sq)
                t += rng.randint(1, 4)
                self._raw(t, action, sq)
            self.t = t
        self.t += 1

    def perform(self, gesture):
        """Play (action, square, pause) steps; an action ending in "!" is clean (no bounce)."""
        for action, sq, pause in gesture:
            self.touch(action.rstrip("!"), sq, bounce=not action.endswith("!"))
            if pause:
                self.wait(*pause)

    def slide(self, squares):
        """A piece slid across empty squares closes each switch briefly on the way."""
        for sq in squares:
            self.touch("place", sq, bounce=False)
            self.wait(20, 130)
            self.touch("lift", sq, bounce=False)
            self.wait(5, 30)

    def text(self):
        self.lines.sort(key=lambda x: x[0])  # bounce can overlap the next move's first touch
        return "".join("%d %s %s\n" % (t, a, name(sq)) for t, a, sq in self.lines)


def path_between(a, b):
    """Squares strictly between a and b on a line (for a slid rook, bishop or queen)."""
    fa, ra = chess.square_file(a), chess.square_rank(a)
    fb, rb = chess.square_file(b), chess.square_rank(b)
    df, dr = fb - fa, rb - ra
    if not (df == 0 or dr == 0 or abs(df) == abs(dr)):
        return []
    steps = max(abs(df), abs(dr))
    sf = (df > 0) - (df < 0)
    sr = (dr > 0) - (dr < 0)
    return [chess.square(fa + sf * i, ra + sr * i) for i in range(1, steps)]


def play_move(h, board, move, mode, rng):
    """Transitions for one move; returns the expected output lines of the referee.

    A gesture is a list of (action, square, pause before the next step as (min, max) ms)."""
    a, b = move.from_square, move.to_square
    piece = board.piece_at(a)
    uci = move.uci()
    expected = []
    if board.is_castling(move):
        rook_from, rook_to = CASTLING_ROOK[b]
        styles = ["king-first", "both-up", "rook-first"] if mode == "casual" else ["king-first", "both-up"]
        style = rng.choice(styles)
        if style == "king-first":
            gesture = [("lift", a, (150, 900)), ("place", b, (100, 700)), ("lift", rook_from, (150, 700)), ("place", rook_to, None)]
        elif style == "both-up":
            first, second = (b, rook_to) if rng.random() < 0.5 else (rook_to, b)
            gesture = [("lift", a, (50, 400)), ("lift", rook_from, (150, 900)), ("place", first, (80, 500)), ("place", second, None)]
        else:
            # Rook first: the board reads the rook move, then revises it when the king follows.
            gesture = [("lift", rook_from, (150, 600)), ("place", rook_to, (100, 1500)), ("lift", a, (150, 600)), ("place", b, None)]
            rook_move = chess.Move(rook_from, rook_to).uci()
            expected += ["move " + rook_move, "undo " + rook_move]
        h.perform(gesture)
        return expected + ["move " + uci]
    if board.is_en_passant(move):
        v = chess.square(chess.square_file(b), chess.square_rank(a))
        gesture = rng.choice(
            [
                [("lift", a, (150, 800)), ("place", b, (100, 1500)), ("lift", v, None)],
                [("lift", v, (100, 900)), ("lift", a, (150, 800)), ("place", b, None)],
                [("lift", a, (100, 600)), ("lift", v, (150, 800)), ("place", b, None)],
            ]
        )
        h.perform(gesture)
        return ["move " + uci]
    if mode == "casual" and rng.random() < 0.1:
        h.perform([("lift", a, (200, 700)), ("place", a, (200, 1500))])  # j'adoube, then the move
    if board.is_capture(move):
        hold = (150, 1200) if rng.random() < 0.8 else (150, 4000)
        gesture = rng.choice(
            [
                [("lift", a, hold), ("lift", b, (100, 600)), ("place", b, None)],  # own piece first
                [("lift", b, (200, 1200)), ("lift", a, (150, 900)), ("place", b, None)],  # victim first
                # Swap: the victim is pushed off as the attacker lands, b opens only briefly.
                [("lift", a, (200, 900)), ("lift!", b, (20, 100)), ("place!", b, None)],
            ]
        )
        h.perform(gesture)
    else:
        h.touch("lift", a)
        h.wait(120, 900 if rng.random() < 0.85 else 5000)  # sometimes held in the air for seconds
        others = [m.to_square for m in board.legal_moves if m.from_square == a and m.to_square != b and not board.piece_at(m.to_square)]
        if others and rng.random() < 0.1:
            # A hesitation: set down on another legal square and taken up again within 150 ms.
            x = rng.choice(others)
            h.perform([("place", x, (40, 140)), ("lift", x, (50, 400))])
        if piece.piece_type in (chess.ROOK, chess.BISHOP, chess.QUEEN) and rng.random() < 0.4:
            h.slide(path_between(a, b))
        h.touch("place", b)
    expected.append("move " + (uci if not move.promotion else uci[:4] + "q"))
    if move.promotion:
        # Tap the new piece (lift and put back) once per step: queen -> rook -> bishop -> knight.
        h.wait(300, 900)
        for i in range(PROMOTION_TAPS[move.promotion]):
            h.perform([("lift", b, (150, 500)), ("place", b, (300, 800))])
            expected.append("promote " + uci[:4] + "qrbn"[i + 1])
    return expected


def nothing_can_happen_to(board, sq):
    """No legal move involves the piece on sq: the side to move's cannot move (nor castle), the
    opponent's cannot be captured (en passant included)."""
    for m in board.legal_moves:
        if m.from_square == sq or m.to_square == sq:
            return False
        if board.is_en_passant(m) and sq == chess.square(chess.square_file(m.to_square), chess.square_rank(m.from_square)):
            return False
        if board.is_castling(m) and sq == CASTLING_ROOK[m.to_square][0]:
            return False
    return True


def just_promoted(board, sq):
    """Lifting and replacing a piece that has just promoted is how its player chooses the promotion
    piece, which no board could tell from a knock or an adjustment."""
    last = board.move_stack[-1] if board.move_stack else None
    return last is not None and last.promotion and sq == last.to_square


def can_knock(board, sq, mode):
    """A piece knocked and put back must not look like a deliberate touch with consequences: in
    strict mode only one that the side to move could neither move nor capture. And never a piece
    that has just promoted."""
    if just_promoted(board, sq):
        return False
    return mode == "casual" or nothing_can_happen_to(board, sq)


def adjustable(board, mode, move):
    """The pieces a player may straighten before `move` without it meaning anything, by kind:
    {"own-immovable": [sq...], "opponent-uncapturable": [...], ...}. In strict mode a lifted piece
    that can move must move (and one that can be taken must be taken), so only pieces nothing can
    happen to, and the piece about to move; in casual mode any piece."""
    kinds = {}
    for sq, piece in board.piece_map().items():
        if just_promoted(board, sq):
            continue
        own = piece.color == board.turn
        if nothing_can_happen_to(board, sq):
            kind = "own-immovable" if own else "opponent-uncapturable"
        elif sq == move.from_square:
            kind = "piece-to-move"
        elif mode == "casual":
            kind = "own-movable" if own else "opponent-capturable"
        else:
            continue
        kinds.setdefault(kind, []).append(sq)
    return kinds


def transcript(seed, mode="strict", max_plies=120, knock_rate=0.05, adjust_rate=0.0, stats=None):
    """(text of the transcript, expected output lines without errors, final FEN).

    adjust_rate: how often a player straightens a piece before a move (lifted, held 0.2-3 s, put
    back on its square), a kind of piece chosen at random among those adjustable(); `stats`, a
    dict, counts the adjustments by kind."""
    rng = random.Random(seed)
    board = chess.Board()
    h = Hands(rng)
    expected = []
    lines = ["@mode %s\n" % mode]
    while not board.is_game_over() and len(board.move_stack) < max_plies:
        moves = list(board.legal_moves)
        captures = [m for m in moves if board.is_capture(m) or m.promotion or board.is_castling(m)]
        move = rng.choice(captures) if captures and rng.random() < 0.4 else rng.choice(moves)
        if move.promotion is None and any(m.promotion for m in moves) and rng.random() < 0.8:
            move = rng.choice([m for m in moves if m.promotion])
        h.wait(300, 3000)
        if mode == "casual" and rng.random() < 0.04 and board.move_stack:
            # Take back the last move by setting up the previous position, then play on.
            last = board.pop()
            if not (board.is_castling(last) or board.is_en_passant(last) or last.promotion or board.is_capture(last)):
                h.touch("lift", last.to_square)
                h.wait(150, 600)
                h.touch("place", last.from_square)
                expected.append("undo " + last.uci())
                h.wait(400, 1500)
                moves = list(board.legal_moves)
                move = rng.choice(moves)
            else:
                board.push(last)
        if rng.random() < knock_rate:
            # A piece knocked off its square and put back.
            sq = rng.choice(list(board.piece_map()))
            if can_knock(board, sq, mode):
                h.touch("lift", sq)
                h.wait(300, 3000)
                h.touch("place", sq)
                h.wait(300, 1000)
        if adjust_rate and rng.random() < adjust_rate:
            kinds = adjustable(board, mode, move)
            kind = rng.choice(sorted(kinds))
            sq = rng.choice(kinds[kind])
            h.touch("lift", sq)
            h.wait(200, 3000)
            h.touch("place", sq)
            h.wait(300, 1000)
            if stats is not None:
                stats[kind] = stats.get(kind, 0) + 1
        expected += play_move(h, board, move, mode, rng)
        board.push(move)
    outcome = board.outcome()
    if outcome is not None:
        # python-chess's termination in the firmware's words (FIVEFOLD_REPETITION -> fivefold-repetition)
        expected.append("end %s %s" % (outcome.result(), outcome.termination.name.lower().replace("_", "-")))
    return "".join(lines) + h.text(), expected, board.fen()


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(description="print physical transcripts of random games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=("strict", "casual"), default="strict")
    args = parser.parse_args(argv)
    text, expected, fen = transcript(args.seed, args.mode)
    sys.stdout.write(text)
    sys.stdout.write("".join("# expect %s\n" % e for e in expected))
    sys.stdout.write("# expect fen %s\n" % fen)


if __name__ == "__main__":
    main(sys.argv[1:])
