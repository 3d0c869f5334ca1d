"""firmware/core/dead.py against python-chess: its proofs are a superset of python-chess's
insufficient material (the lower bound), and what it proves holds up under a search of every series
of moves written here with python-chess (host_tests/portable/test_dead.py has the positions from
the literature and runs on every runtime)."""
import random

import chess
from core.dead import ARBITER_NODES, can_mate, is_dead
from core.game import Game
from core.position import BLACK, WHITE, Position


def _mates(board, winner, depth):
    """Does some series of at most `depth` plies of legal moves end with `winner` mating (python-chess)?"""
    if board.is_checkmate():
        return board.turn != winner
    if depth == 0 or board.is_insufficient_material() or board.is_stalemate():
        return False
    for move in board.legal_moves:
        board.push(move)
        found = _mates(board, winner, depth - 1)
        board.pop()
        if found:
            return True
    return False


def _random_wall(rng):
    """A random position, legal for python-chess, with a chain of locked pawns across the board (each
    file's white pawn a rank above or below its neighbour's, a black pawn right in front; now and
    then a file left out), the kings and up to three pieces, mostly on their own side of it."""
    while True:
        board = chess.Board(None)
        rank = rng.randrange(1, 5)
        white_side = []  # squares behind the white pawns, and ahead of the black ones
        black_side = []
        for f in range(8):
            rank = min(5, max(1, rank + rng.choice((-1, 1))))
            if rng.random() < 0.9:
                board.set_piece_at(chess.square(f, rank), chess.Piece(chess.PAWN, chess.WHITE))
                board.set_piece_at(chess.square(f, rank + 1), chess.Piece(chess.PAWN, chess.BLACK))
            white_side += [chess.square(f, r) for r in range(rank)]
            black_side += [chess.square(f, r) for r in range(rank + 2, 8)]
        k = rng.sample(white_side, 1) + rng.sample(black_side, 1)
        board.set_piece_at(k[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(k[1], chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.randrange(0, 4)):
            colour = rng.random() < 0.5
            side = white_side if colour == (rng.random() < 0.8) else black_side
            s = rng.choice(side)
            if board.piece_at(s) is None:
                board.set_piece_at(s, chess.Piece(rng.choice((chess.KNIGHT, chess.BISHOP, chess.BISHOP, chess.ROOK)), colour))
        board.turn = rng.random() < 0.5
        if board.is_valid() and not board.is_game_over():
            return board


def test_what_it_proves_no_search_refutes():
    # Random locked structures: wherever a side is proven unable to mate, no series of 4 plies
    # mates (python-chess, every move); and at least some walls are proven, so the check bites.
    rng = random.Random(29)
    proven = 0
    for _ in range(400):
        board = _random_wall(rng)
        pos = Position(board.fen())
        for colour, ours in ((chess.WHITE, WHITE), (chess.BLACK, BLACK)):
            if not can_mate(pos, ours, ARBITER_NODES):
                proven += 1
                assert not _mates(board, colour, 4), board.fen()
    print("  %d sides of 800 proven unable to mate" % proven)
    assert proven >= 40


def test_python_chess_insufficient_material_is_a_lower_bound():
    # Every position python-chess calls insufficient material the firmware's game ends too (by
    # material, or as a dead position), and a side python-chess says cannot mate cannot here.
    rng = random.Random(5)
    for _ in range(2000):
        board = chess.Board(None)
        squares = rng.sample(range(64), 2 + rng.randrange(0, 4))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for s in squares[2:]:
            kind = rng.choice((chess.KNIGHT, chess.BISHOP, chess.BISHOP, chess.PAWN))
            if kind == chess.PAWN and chess.square_rank(s) in (0, 7):
                continue
            board.set_piece_at(s, chess.Piece(kind, rng.random() < 0.5))
        if not board.is_valid():
            continue
        game = Game(board.fen())
        if board.is_insufficient_material():
            assert game.result == "1/2-1/2", board.fen()
            assert is_dead(game.position), board.fen()
        for colour, ours in ((chess.WHITE, WHITE), (chess.BLACK, BLACK)):
            if board.has_insufficient_material(colour):
                assert not can_mate(game.position, ours), board.fen()
