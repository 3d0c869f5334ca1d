"""Hostile input at the board's edges, case by case (issue 11): the USB link's lines, FENs from a
PC, transcripts and the tools' arguments. Each gets a clear error and loses nothing. The seeded
fuzzers (host_tests/portable/fuzz*.py, test_fuzz*.py) try thousands more of the same kinds."""
import chess
import pytest

import fuzz
from fuzz_link import LinkRig

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
    """Mutated and random FENs (tools/hands/fuzz.py): whatever the core accepts, python-chess reads as
    the same position with the same legal moves; whatever python-chess finds valid (with the fields
    and counters a game can have), the core accepts."""
    stats = fuzz.fuzz_fens_against_python_chess(1500, seed=5)
    assert stats["accepted"] > 200, stats


def test_transcripts_mutated_and_random_are_played_or_refused_clearly():
    stats = fuzz.fuzz_transcripts(100, seed=5)
    assert stats["played"] > 40 and stats["refused"] > 15 and stats["moves"] > 0, stats


def test_the_tools_command_lines_exit_0_or_2_and_never_crash():
    stats = fuzz.fuzz_command_lines(12, seed=5)
    assert stats["exit 2"] > 2, stats


def test_adjusting_a_piece_nothing_can_happen_to_in_a_cpp_round_sends_no_unsync():
    # Issue 11: in a CPP round the false `error mismatch a8` also sent the app `unsync` and `sync`.
    rig = LinkRig()
    assert said(rig, "begin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")[-1].startswith("sync ")
    start = len(rig.out)
    e2, e4, a8, h1 = 12, 28, 56, 7
    rig.vm.lift(e2)
    rig.run(300)
    rig.vm.place(e4)
    rig.run(400)
    assert rig.out[start:] == ["move e2e4\n"]
    rig.link.feed("ok\n")
    for sq, held in ((a8, 1500), (h1, 4000)):  # black's rook has no move, white's cannot be taken
        rig.vm.lift(sq)
        rig.run(held)
        rig.vm.place(sq)
        rig.run(300)
    assert rig.out[start + 1 :] == [], rig.out[start + 1 :]


def test_a_del_byte_is_a_control_byte_not_echoed():
    # Found by the fuzzer: "\x7fset_option" was answered `err unknown command: \x7fset_option`, a
    # line that is not printable ASCII (a terminal's Backspace sends DEL).
    rig = LinkRig()
    assert said(rig, "\x7fstatus") == ["err control byte 0x7f: line ignored"]
