"""python-chess as the oracle: random games and what python-chess says of every position in them.

Used by the CPython tests directly, and written to build/oracle/games.txt (`python host_tests/helpers/oracle.py`)
so that the same comparisons run on the firmware's core under MicroPython, where python-chess does not
exist. python-chess is a host test dependency only: it never goes on the Pico.
"""
import os
import random
import sys

import chess

# Game styles, so that every way a game ends turns up: plain random games end mostly in
# insufficient material, the 75-move rule and mates; "shuffle" games repeat positions (threefold
# claims, fivefold ends); endgame starts with a high halfmove clock reach the 50- and 75-move rules;
# the tricky starts have castling through attacked squares, en-passant pins and promotions.
STARTS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 90 60",
    "8/8/3k4/8/8/3K4/2R5/8 w - - 95 70",
    "8/8/4k3/8/1B6/8/4K3/6b1 w - - 0 40",
    "8/3P4/8/1k6/8/8/4Kp2/8 w - - 0 50",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "8/8/8/8/8/4k3/8/4K1N1 w - - 140 90",
    "8/8/8/4k3/8/8/8/K1Q5 w - - 0 1",
    "7k/8/8/8/8/8/1R6/K1R5 b - - 0 1",
    "k7/8/2K5/8/8/8/8/1Q6 w - - 0 1",
    "7k/5K2/8/8/8/8/6P1/8 w - - 0 1",
]
STYLES = ("random", "shuffle", "capture", "mating")


def reason_of(board):
    """python-chess's termination in the firmware's words (CHECKMATE -> "checkmate", ...)."""
    outcome = board.outcome()
    if outcome is None:
        return "-"
    return outcome.termination.name.lower().replace("_", "-")


def claims_of(board):
    if board.outcome() is not None:
        return "-"  # the game is over: nothing left to claim
    claims = []
    if board.is_repetition(3):
        claims.append("threefold")
    if board.is_fifty_moves():
        claims.append("fifty-moves")
    return ",".join(claims) or "-"


def describe(board):
    """What python-chess says of a position: legal moves, check, end, claims, FEN."""
    return {
        "legal": sorted(m.uci() for m in board.legal_moves),
        "check": board.is_check(),
        "reason": reason_of(board),
        "result": board.outcome().result() if board.outcome() else "*",
        "claims": claims_of(board),
        "fen": board.fen(),
    }


def random_game(rng, start, style, max_plies=300):
    """Yield (board before the move, move) along a random game, then (final board, None)."""
    board = chess.Board(start)
    while board.outcome() is None and len(board.move_stack) < max_plies:
        moves = list(board.legal_moves)
        move = rng.choice(moves)
        if style == "shuffle" and len(board.move_stack) >= 2 and rng.random() < 0.85:
            back = board.move_stack[-2]
            undo = chess.Move(back.to_square, back.from_square)
            if undo in moves:
                move = undo
        elif style == "mating":
            # Mate when possible, else check half of the time: mates and stalemates turn up.
            for m in moves:
                board.push(m)
                mate = board.is_checkmate()
                board.pop()
                if mate:
                    move = m
                    break
            else:
                checks = [m for m in moves if board.gives_check(m)]
                if checks and rng.random() < 0.5:
                    move = rng.choice(checks)
        elif style == "capture":
            captures = [m for m in moves if board.is_capture(m) or m.promotion]
            if captures and rng.random() < 0.7:
                move = rng.choice(captures)
        yield board, move
        board.push(move)
    yield board, None


def games(seed, count):
    """count deterministic random games: (start_fen, style, [(description, san, uci), ...])."""
    rng = random.Random(seed)
    for i in range(count):
        start = STARTS[i % len(STARTS)]
        style = STYLES[(i // len(STARTS)) % len(STYLES)]
        plies = []
        for board, move in random_game(rng, start, style):
            d = describe(board)
            if move is None:
                plies.append((d, None, None))
            else:
                plies.append((d, board.san(move), move.uci()))
        yield start, style, plies


def write_fixture(path, seed=2026, count=144):
    """One line per position: played-uci|san|check|reason|result|claims|fen|legal moves."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for start, style, plies in games(seed, count):
            f.write("game %s|%s\n" % (style, start))
            for d, san, uci in plies:
                f.write(
                    "%s|%s|%d|%s|%s|%s|%s|%s\n"
                    % (uci or "-", san or "-", d["check"], d["reason"], d["result"], d["claims"], d["fen"], " ".join(d["legal"]))
                )
    os.replace(tmp, path)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "oracle", "games.txt")
    write_fixture(out)
    print("wrote", out)
