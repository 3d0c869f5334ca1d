"""Perft node counts: the standard positions and the project's suites in host_tests/data/perft/.

Which depths run where (make test's time): on CPython perftsuite.epd to depth 3 (378 counts, about
half a million nodes) and tricky.perft to depth 4 (its one depth-5 count, 1.3 million nodes, is for
a PC with time: `tools/perft.py` counts it); on the MicroPython unix port, through tools/perft.py
--suite, perftsuite.epd to depth 3 with the native code the Pico runs and to depth 2 with the plain
path of CPython and WebAssembly."""
import os
import subprocess
import sys

import pytest

from core.position import Position, move_uci

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITES = os.path.join(ROOT, "host_tests", "data", "perft")
EPD = os.path.join(SUITES, "perftsuite.epd")

# (FEN, node counts from depth 1) - chessprogramming.org "Perft Results".
STANDARD = [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [20, 400, 8902, 197281]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", [48, 2039, 97862]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", [14, 191, 2812, 43238, 674624]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", [6, 264, 9467, 422333]),
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", [6, 264, 9467, 422333]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", [44, 1486, 62379]),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", [46, 2079, 89890]),
]

# Counts in tricky.perft that assume Chess960 castling: there `q` with the king on h8 names the
# a8 rook, which standard chess cannot castle with (the right is dropped when the FEN is loaded, as
# python-chess does). Our count is checked against python-chess's standard-chess count instead.
CHESS960_COUNTS = {"asymmetrical-and-king-on-h": {3: 3660, 4: 64409, 5: 1310762}}


def standard_cases():
    for fen, counts in STANDARD:
        for depth, count in enumerate(counts, 1):
            yield pytest.param(fen, depth, count, id="%s-d%d" % (fen.split()[0][:12], depth))


@pytest.mark.parametrize("fen,depth,count", list(standard_cases()))
def test_standard_positions(fen, depth, count):
    position = Position(fen)
    assert position.perft(depth) == count
    assert position.perft_bulk(depth) == count
    assert position.fen() == Position(fen).fen(), "make/unmake left the position changed"


def read_epd_suite(path, max_depth=3):
    for line in open(path):
        parts = [p.strip() for p in line.strip().split(";")]
        if not parts[0]:
            continue
        for item in parts[1:]:
            depth, count = item.split()
            depth = int(depth[1:])
            if depth <= max_depth:
                yield parts[0], depth, int(count)


def read_tricky(path):
    name = fen = None
    for line in open(path):
        line = line.strip()
        if line.startswith("id "):
            name = line[3:]
        elif line.startswith("epd "):
            fen = line[4:]
        elif line.startswith("perft ") and not name.startswith("xfen"):
            # xfen-* are Chess960 castling positions, not standard chess (see the suite's README).
            _, depth, count = line.split()
            yield name, fen, int(depth), int(count)


def test_perftsuite_epd():
    checked = 0
    for fen, depth, count in read_epd_suite(EPD):
        assert Position(fen).perft_bulk(depth) == count, "%s depth %d" % (fen, depth)
        checked += 1
    assert checked == 378


def test_tricky_perft():
    chess = pytest.importorskip("chess")
    checked = 0
    for name, fen, depth, count in read_tricky(os.path.join(SUITES, "tricky.perft")):
        if depth > 4:
            continue  # one count, 1.3 million nodes: tools/perft.py counts it when asked
        if depth in CHESS960_COUNTS.get(name, {}):
            board = chess.Board(fen)

            def perft(b, d):
                if d == 0:
                    return 1
                n = 0
                for m in b.legal_moves:
                    b.push(m)
                    n += perft(b, d - 1)
                    b.pop()
                return n

            want = CHESS960_COUNTS[name][depth]
            if depth <= 3:
                assert perft(board, depth) == want, "python-chess disagrees with the standard count"
            count = want
        assert Position(fen).perft_bulk(depth) == count, "%s depth %d" % (name, depth)
        checked += 1
    assert checked == 46


def test_divide_matches_python_chess():
    chess = pytest.importorskip("chess")
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    position = Position(fen)
    board = chess.Board(fen)
    for m in position.legal_moves():
        position.make(m)
        board.push_uci(move_uci(m))
        assert position.perft(2) == sum(1 for m1 in board.legal_moves for _ in _children(board, m1))
        position.unmake()
        board.pop()


def _children(board, move):
    board.push(move)
    moves = list(board.legal_moves)
    board.pop()
    return moves


def run_tool(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "perft.py")] + list(args), capture_output=True, text=True)


def test_perft_tool_prints_count_last():
    r = run_tool("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "3")
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["8902"]


def test_perft_tool_divide():
    r = run_tool("--divide", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "2")
    lines = r.stdout.splitlines()
    assert r.returncode == 0
    assert len(lines) == 49 and lines[-1] == "2039"
    assert "e1g1: 43" in lines and "e1c1: 43" in lines
    assert sum(int(line.split(": ")[1]) for line in lines[:-1]) == 2039


@pytest.mark.parametrize("runtime,depth", [(["--runtime", "cpython"], 2), (["--runtime", "micropython"], 3), (["--runtime", "micropython", "--plain"], 2)])
def test_perft_tool_checks_the_suite(runtime, depth):
    if "micropython" in runtime and not os.path.exists(os.path.join(ROOT, ".venv", "bin", "micropython")):
        pytest.fail("no MicroPython in .venv: make test installs it")
    r = run_tool(*runtime, "--suite", EPD, str(depth))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == ["%d counts checked, 0 wrong" % (126 * depth)]


def test_perft_tool_says_which_counts_of_a_suite_differ(tmp_path):
    path = tmp_path / "suite.epd"
    path.write_text("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 67 ;D3 1197\n")
    r = run_tool("--suite", str(path), "3")
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["line 1, depth 2: 66, not 67: 4k3/8/8/8/8/8/8/4K2R w K - 0 1", "3 counts checked, 1 wrong"]
    path.write_text("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 many\n")
    r = run_tool("--suite", str(path), "3")
    assert r.returncode == 2 and r.stdout == "" and "'D2 many' is not `Dn COUNT`" in r.stderr
    r = run_tool("--suite", str(tmp_path / "none.epd"), "3")
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_perft_tool_on_micropython():
    micropython = os.path.join(ROOT, ".venv", "bin", "micropython")
    if not os.path.exists(micropython):
        pytest.fail("no MicroPython in .venv: make test installs it")
    r = run_tool("--runtime", "micropython", "--divide", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "2812" and len(lines) == 15


@pytest.mark.parametrize("fen,counts", STANDARD[1:], ids=[fen.split()[0][:12] for fen, _ in STANDARD[1:]])
def test_native_and_plain_paths_count_alike_on_micropython(fen, counts):
    # The unix port compiles the core's viper make/unmake and generator, as the Pico does; --plain
    # runs the Python path of CPython and WebAssembly. Each root move's count must agree.
    micropython = os.path.join(ROOT, ".venv", "bin", "micropython")
    if not os.path.exists(micropython):
        pytest.fail("no MicroPython in .venv: make test installs it")
    depth = max(d for d, n in enumerate(counts, 1) if n < 100000)
    native = run_tool("--runtime", "micropython", "--divide", fen, str(depth))
    plain = run_tool("--runtime", "micropython", "--plain", "--divide", fen, str(depth))
    assert native.returncode == 0 and plain.returncode == 0, native.stderr + plain.stderr
    assert native.stdout == plain.stdout
    assert native.stdout.splitlines()[-1] == str(counts[depth - 1])


@pytest.mark.parametrize(
    "args,message",
    [
        (["not a fen", "2"], "6 fields"),
        (["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "x"], "depth"),
        (["8/8/8/8/8/8/8/8 w - - 0 1", "1"], "white kings"),
        (["--runtime", "java", "8/8/8/8/8/8/8/8 w - - 0 1", "1"], "--runtime"),
        # Issue 11: these ended in tracebacks (RecursionError, OverflowError).
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "100000"], "at most 64"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "65"], "at most 64"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "-"], "whole number"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 1", "9" * 5000], "got '99999"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 8388608 1", "2"], "halfmove clock 8388608 is impossible"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 151 1", "2"], "75-move rule"),
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 " + "9" * 50, "1"], "fullmove number"),
        # (MicroPython's unix port dies on an argument of 256 bytes: refused before it starts.)
        (["4k3/8/8/8/8/8/8/4K2R w K - 0 " + "9" * 5000, "1"], "FEN of 5029 characters"),
    ],
)
@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_perft_tool_rejects_bad_input(args, message, runtime):
    r = run_tool("--runtime", runtime, *args)
    assert r.returncode == 2
    assert r.stdout == ""
    assert message in r.stderr
    assert len(r.stderr) < 400  # a pasted megabyte is not echoed back


def test_perft_tool_takes_the_largest_halfmove_clock_a_game_can_have():
    # 150: the 75-move rule ends the game there, so the position itself is still one of a game.
    r = run_tool("4k3/8/8/8/8/8/8/4K2R w K - 150 1", "2")
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == str(Position("4k3/8/8/8/8/8/8/4K2R w K - 0 1").perft(2))
