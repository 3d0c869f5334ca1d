"""tools/replay.py as docs/spec.md section 5 writes it: output lines, headers, --uci, --leds, exit codes."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAY = os.path.join(ROOT, "tools", "replay.py")


def replay(*args, stdin=None):
    return subprocess.run([sys.executable, REPLAY] + list(args), capture_output=True, text=True, input=stdin)


def test_events_file_with_headers_and_comments(tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(
        "# rook-first castling, casual\n@fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1\n@mode casual\n"
        "1000 lift h1\n1300 place f1   # the rook first\n1500 lift e1\n1800 place g1\n"
    )
    r = replay(str(path))
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.splitlines() == ["move h1f1", "undo h1f1", "move e1g1", "fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 b kq - 1 1"]
    # --mode on the command line wins over the header: strict refuses the castling.
    r = replay("--mode", "strict", str(path))
    assert r.stdout.splitlines()[0] == "move h1f1" and "undo" not in r.stdout


def test_standard_input_and_leds():
    r = replay("--leds", "-", stdin="1000 lift g1\n1300 place f3\n")
    lines = r.stdout.splitlines()
    assert r.returncode == 0
    assert lines[0] == "leds 0"
    assert "leds 1012 g1:lifted f3:quiet h3:quiet" in lines
    assert "move g1f3" in lines and lines[-1].startswith("fen ")


def test_uci_mode():
    r = replay("--uci", "e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3", "b8c6", "f3g1", "c6b8")
    lines = r.stdout.splitlines()
    assert lines[:10] == ["move e2e4", "move e7e5", "move g1f3", "move b8c6", "move f3g1", "move c6b8", "move g1f3", "move b8c6", "move f3g1", "move c6b8"]
    assert lines[10] == "claim threefold"
    r = replay("--uci", "--fen", "7k/8/6K1/8/8/8/8/R7 w - - 0 1", "a1a8", "h8g8")
    assert r.stdout.splitlines() == ["move a1a8", "end 1-0 checkmate", "error game-over h8 g8", "fen R6k/8/6K1/8/8/8/8/8 b - - 1 1"]
    r = replay("--uci", "e2e5")
    assert r.stdout.splitlines() == ["error illegal e2 e5", "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]
    r = replay("--uci", "--fen", "8/4P3/8/8/8/k7/8/4K3 w - - 0 1", "e7e8n")
    assert r.stdout.splitlines()[0] == "move e7e8n"


@pytest.mark.parametrize(
    "text,message",
    [
        ("1000 lift e2\n900 place e4\n", "goes back"),
        ("1000 hover e2\n", "neither lift nor place"),
        ("1000 lift e9\n", "not a square"),
        ("soon lift e2\n", "whole number"),
        ("@fen not/a/fen w - - 0 1\n", "bad FEN"),
        ("@mode blitz\n", "@mode"),
        ("@colour white\n", "unknown header"),
        ("1000 lift\n", "expected"),
        # Issue 11: an empty @fen was taken as the start position (exit 0).
        ("@fen\n1000 lift e2\n", "@fen needs a FEN"),
        ("@fen   \n", "@fen needs a FEN"),
        ("@fen 4k3/8/8/8/8/8/8/4K2R w K - 8388608 1\n1000 lift h1\n", "halfmove clock 8388608 is impossible"),
        # @setting takes the board.json settings of the rules, checked as board.json's are.
        ("@setting brightness 30\n", "not a setting of the rules"),
        ("@setting illegal_moves maybe\n", 'must be one of "fide", "lose"'),
        ("@setting illegal_complete_ms soon\n", "whole number of milliseconds"),
        ("@setting commit_delay_ms 100\n", "must be more than 150 ms"),
        ("@setting clock 5+x\n", "clock"),
        # @new: the FEN a PC sends with `new FEN` as the board starts.
        ("@new\n", "@new needs the FEN"),
        ("@new 8/8/8 w - - 0 1\n", "bad FEN"),
    ],
)
def test_unreadable_input_exits_2_with_a_message_and_nothing_else(tmp_path, text, message):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    r = replay(str(path))
    assert r.returncode == 2
    assert r.stdout == ""
    assert message in r.stderr


def test_every_rule_setting_from_the_file_or_the_command_line(tmp_path):
    # The seeds' older rule (a first completed illegal move loses in rapid) is a board.json setting:
    # a transcript switches it on with @setting, the command line with --setting, which wins.
    path = tmp_path / "illegal.txt"
    path.write_text("@setting illegal_moves lose\n@clock 15+10\n1000 lift e2\n1100 place e5\n")
    r = replay(str(path))
    assert r.returncode == 0 and r.stdout.splitlines()[:2] == ["error illegal e2 e5", "end 0-1 illegal-move"]
    r = replay("--setting", "illegal_moves", "fide", str(path))
    assert r.stdout.splitlines()[:2] == ["error illegal e2 e5", "penalty b 60000"]
    # ... and so every other one the referee reads.
    r = replay("--setting", "mode", "casual", "--setting", "clock", "5+3", "--setting", "promotion_piece", "r",
               "--setting", "illegal_complete_ms", "1000", "--setting", "commit_delay_ms", "300",
               "--fen", "8/4P3/8/8/8/k7/8/4K3 w - - 0 1", "-", stdin="1000 lift e7\n1100 place e8\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["move e7e8r", "clock 300000 300000"]


def test_a_position_that_has_ended_the_game_says_so_first():
    wall = "4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1"  # issue 29: a dead position
    r = replay("--uci", "--fen", wall, "e1d2")
    assert r.stdout.splitlines() == ["end 1/2-1/2 dead-position", "error game-over e1 d2", "fen " + wall]
    r = replay("--fen", wall, "--clock", "0:05", "-", stdin="1000 lift e1\n1100 place d2\n")
    assert r.stdout.splitlines()[0] == "end 1/2-1/2 dead-position" and "move e1d2" not in r.stdout


def test_unreadable_files_and_moves():
    r = replay("/nonexistent/events.txt")
    assert r.returncode == 2 and r.stdout == "" and "cannot read" in r.stderr
    r = replay("--uci", "e2e4", "castle")
    assert r.returncode == 2 and r.stdout == "" and "castle" in r.stderr
    r = replay("--uci", "--fen", "8/8/8 w - - 0 1", "e2e4")
    assert r.returncode == 2 and r.stdout == ""


def test_an_empty_fen_option_exits_2():
    # Issue 11: `--fen ''` was taken as the start position.
    for args in (["--fen", ""], ["--fen", "  "], ["--uci", "--fen", ""]):
        r = replay(*args, "-", stdin="1000 lift e2\n1300 place e4\n") if "--uci" not in args else replay(*args, "e2e4")
        assert r.returncode == 2 and r.stdout == "" and "empty FEN" in r.stderr, (args, r.stderr)


@pytest.mark.parametrize(
    "args,text",
    [
        ([], "1000 lift " + "x" * 10_000_000 + "\n"),  # issue 11: a 10 MB line was echoed whole
        ([], "1000 " + "y" * 100_000 + " e2\n"),
        ([], "9" * 100_000 + " lift e2\n"),
        ([], "@mode " + "z" * 100_000 + "\n"),
        ([], "@" + "h" * 100_000 + " x\n"),
        ([], "@fen " + "8/" * 50_000 + "\n"),
        (["--fen", "k" * 100_000], "1000 lift e2\n"),
        (["--mode", "m" * 100_000], ""),
        (["--uci", "e2e4", "u" * 100_000], None),
        ([], "@setting illegal_moves " + "q" * 100_000 + "\n"),
        (["--setting", "promotion_piece", "w" * 100_000], ""),
        (["--setting", "s" * 100_000, "1"], ""),
        (["--zz" + "o" * 100_000], ""),
    ],
)
def test_error_messages_cut_long_input(args, text):
    r = replay(*args, "-", stdin=text) if text is not None else replay(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert 20 < len(r.stderr) < 600, r.stderr[:700]


def test_board_one_ply_ahead_of_the_fen_prints_the_move_it_read(tmp_path):
    # Issue 25: as after a power cut that kept the game one move behind the pieces. The events file
    # has no transitions: the board is scanned for a few seconds after power-up all the same.
    path = tmp_path / "none.txt"
    path.write_text("# the power comes back; nobody touches the board\n")
    r = replay("--board", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", str(path))
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.splitlines() == ["read e2e4", "move e2e4", "fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]
    # Black castled queen-side while the board was off.
    r = replay("--fen", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "--board", "2kr3r/8/8/8/8/8/8/R3K2R", str(path))
    assert r.stdout.splitlines()[:2] == ["read e8c8", "move e8c8"]


def test_board_with_two_captures_waits_for_the_gesture(tmp_path):
    fen = "4k3/5p2/8/1p6/2B5/8/8/4K3 w - - 0 1"
    placement = "4k3/5p2/8/1p6/8/8/8/4K3"  # the bishop took on b5 or on f7: the squares look alike
    still = tmp_path / "still.txt"
    still.write_text("")
    r = replay("--fen", fen, "--board", placement, str(still))
    assert r.stdout.splitlines() == ["choose c4 b5 f7", "fen " + fen]
    gesture = tmp_path / "gesture.txt"
    gesture.write_text("1000 lift b5\n1400 place b5\n")  # lift the bishop where it stands, put it back
    r = replay("--fen", fen, "--board", placement, str(gesture))
    assert r.stdout.splitlines() == ["choose c4 b5 f7", "read c4b5", "move c4b5", "fen 4k3/5p2/8/1B6/8/8/8/4K3 b - - 0 1"]


def test_board_two_plies_ahead_is_guided_back(tmp_path):
    path = tmp_path / "none.txt"
    path.write_text("")
    r = replay("--leds", "--board", "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR", str(path))
    lines = r.stdout.splitlines()
    assert lines[0] == "leds 0 e2:place-here e4:remove e5:remove e7:place-here"
    assert not any(line.startswith(("read", "move", "choose")) for line in lines), lines
    assert lines[-1] == "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize(
    "placement,message",
    [
        ("8/8/8/8/8/8/8", "needs 8 ranks"),
        ("9/8/8/8/8/8/8/8", "neither a piece"),
        ("ppppppppp/8/8/8/8/8/8/8", "has 9 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN", "has 7 squares"),
    ],
)
def test_bad_board_placement_exits_2(tmp_path, placement, message):
    path = tmp_path / "none.txt"
    path.write_text("")
    r = replay("--board", placement, str(path))
    assert r.returncode == 2 and r.stdout == "" and message in r.stderr, r.stderr
    r = replay("--uci", "--board", "8/8/8/8/8/8/8/8", "e2e4")
    assert r.returncode == 2 and r.stdout == "" and "--board" in r.stderr
