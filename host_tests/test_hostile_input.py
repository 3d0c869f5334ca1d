"""Hostile input at the board's edges, case by case (issue 11): the USB link's lines, FENs from a
PC, transcripts and the tools' arguments. Each gets a clear error and loses nothing. The seeded
fuzzers (host_tests/portable/fuzz*.py, test_fuzz*.py) try thousands more of the same kinds."""
import os
import subprocess
import sys

import chess
import pytest

from fuzz_base import FENS, Rng, fen_input
from fuzz_link import LinkRig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUGE_CLOCK = "4k3/8/8/8/8/8/8/4K2R w K - 8388608 1"


def said(rig, line):
    start = len(rig.out)
    rig.link.feed(line + "\n")
    rig.run(20)
    return [text.rstrip("\n") for text in rig.out[start:]]


@pytest.mark.parametrize("command", ["new", "begin"])
def test_a_fen_with_more_than_six_fields_gets_a_clear_error(command):
    # Issue 11: `new FEN extra` answered `err internal error: AttributeError(...)`.
    rig = LinkRig()
    lines = said(rig, command + " rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra")
    assert lines and lines[0].startswith("err " + command), lines
    assert not [line for line in lines if "internal error" in line]
    assert rig.app.referee.game.fen() == chess.STARTING_FEN  # nothing changed


@pytest.mark.parametrize("command", ["new", "begin"])
def test_a_fen_with_an_impossible_halfmove_clock_gets_a_clear_error(command):
    # Issue 11: `err internal error: OverflowError` (and a clock that wrapped on MicroPython).
    rig = LinkRig()
    lines = said(rig, command + " " + HUGE_CLOCK)
    assert lines[0] == "err %s: FEN halfmove clock 8388608 is impossible: at 150 the 75-move rule has ended the game" % command
    # The largest clock a game can have is taken: the 75-move draw is then due at once.
    lines = said(rig, "new 4k3/8/8/8/8/8/8/4K2R w K - 150 1")
    assert lines[0] == "ok", lines
    assert rig.app.referee.game.reason == "seventyfive-moves"


def test_fens_the_core_accepts_are_positions_python_chess_reads_the_same():
    """Mutated FENs (host_tests/portable/fuzz_base.py): whatever the core accepts, python-chess
    reads as the same position, with the same legal moves (a valid one), and every FEN python-chess
    finds valid, with its fields and counters a game can have, the core accepts."""
    from core.position import FenError, Position, move_uci

    rng = Rng(5)
    accepted = 0
    for _ in range(1500):
        fen = fen_input(rng)
        try:
            p = Position(fen)
        except FenError:
            try:
                board = chess.Board(fen)
            except ValueError:
                continue
            # Refused on purpose where python-chess is lenient: 1-3 fields (it fills in the rest), a
            # castling letter twice, counters a game cannot have or int() reads but a FEN does not
            # have ('1_0', '+1'), a move number 0 (python-chess makes it 1).
            fields = fen.split() + ["0", "1"][max(0, len(fen.split()) - 4) :]
            plain = (
                len(fields) == 6
                and len(set(fields[2])) == len(fields[2])
                and fields[4].isdigit() and fields[5].isdigit()
                and int(fields[4]) <= 150 and 1 <= int(fields[5]) <= 9999
            )
            assert not (board.is_valid() and plain), fen
            continue
        accepted += 1
        try:
            board = chess.Board(fen)
        except ValueError:
            # python-chess wants the castling letters in the order KQkq; the core takes any order.
            assert sorted(fen.split()[2]) != list(fen.split()[2]), fen
            board = chess.Board(p.fen())
        # The core drops castling rights no king and rook back, and an en-passant square no double
        # push explains; what it writes back must be valid but for checks no last move could give.
        clean = chess.Board(p.fen())
        assert clean.status() & ~(chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK) == 0, (fen, clean.status())
        assert clean.piece_map() == board.piece_map() and clean.turn == board.turn, fen
        assert (clean.halfmove_clock, clean.fullmove_number) == (board.halfmove_clock, board.fullmove_number), fen
        assert sorted(move_uci(m) for m in p.legal_moves()) == sorted(m.uci() for m in board.legal_moves), fen
    assert accepted > 100
