"""The firmware as `make flash` puts it on a Pico, on the emulated RP2040 (make test-pico).

One emulated board boots the official MicroPython v1.27.0 rp2 build with the .mpy files of
tools/flash.py in its littlefs, and plays transcripts through the reed matrix on config.py's
GPIOs. Each must print what the same firmware core prints on CPython for the same transcript
(tools/hands/transcript.py, the oracle python-chess checks in the other tests), and its own `# expect fen`.
The LEDs are read back from the WS2812B data pin. Costly in wall time (the emulator runs about
8x slower than a Pico while the core is busy): keep the list short and the transcripts brief."""
import os
import sys

import pytest

from pico_board import booted_board, emu_board

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import physical  # noqa: E402
from test_physical_games import effective  # noqa: E402
from test_engine_portable import FORKS  # noqa: E402 - the forks the unix port checks natively too

FOLDER = os.path.join(ROOT, "host_tests", "transcripts")
# Both modes, captures in two orders (a swap, en passant with the victim last), castling both ways
# round, promotion taps, a knocked piece.
TRANSCRIPTS = (
    "capture-swap.txt",
    "en-passant-victim-last.txt",
    "castling-both-up.txt",
    "castling-rook-first-casual.txt",
    "promotion-taps.txt",
    "knocked-pieces.txt",
)


@pytest.fixture(scope="module")
def board():
    b = booted_board("games")
    yield b
    b.close()


def read(name):
    with open(os.path.join(FOLDER, name)) as f:
        return f.read()


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_transcript_on_the_chip(board, name):
    text = read(name)
    played = board.play(text)
    assert played.lines == emu_board.expected(text), played.console
    fens = [line[len("# expect ") :].strip() for line in text.splitlines() if line.startswith("# expect fen ")]
    if fens:
        assert played.lines[-1] == fens[-1]


def test_a_generated_game_on_the_chip(board):
    # tools/hands/physical.py's hands: bounce, chatter, slides, hesitations, a knocked piece. Seed 58:
    # four plies in under 5 s (knock_rate 0.5).
    text, expected, fen = physical.transcript(58, "strict", max_plies=4, knock_rate=0.5)
    played = board.play(text)
    assert effective(played.lines) == effective(expected)
    assert played.lines[-1] == "fen " + fen
    assert played.lines == emu_board.expected(text)




# The native code on the chip against CPython's plain Python. MicroPython 1.27's Thumb emitter has
# bugs the unix port's x64 one has not (engine/native.py's notes), so the viper paths are proved
# where they run: the same legal moves and perft counts from the rules core, the same move lists
# from the engine's generator (native and plain, on the chip), and the same searches (best move,
# score, nodes, depth) as CPython's plain Python finds. Last in the module: it stops main.py, and
# the board is reset after.
ENGINE_FENS = (
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # Kiwipete: castling, pins
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",  # promotions, captures into them
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",  # en passant and checks along the rank
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 b - - 0 10",  # a middlegame, black
)
ENGINE_NODES = 150  # two plies: the frontier and quiescence of engine/native.py both run
# A fork by each kind of piece, for quiescence's fork test (native.forked on the chip).
FORK_FENS = tuple(fen for fen, _ in FORKS)

NATIVE_SNIPPET = """
import gc
from core.position import Position, move_uci
import core.position as position
import engine.search as es
from engine.search import Search
from engine import movegen, native
assert position.NATIVE and es.NATIVE  # the Pico chooses the native paths by itself
gc.collect()
s = Search()  # one, cleared before each search (as good as new): the games above left the heap in pieces


def forks(p):
    out = []
    for m in p.legal_moves():
        p.make(m)
        out.append(str(native.forked(s, m)))
        p.unmake()
    return "forks " + " ".join(out)


for fen in FORK_FENS:
    p = Position(fen)
    s.start(p, max_nodes=1)
    print(forks(p))
    s.stop()
for fen in FENS:
    p = Position(fen)
    print("legal", " ".join(move_uci(m) for m in p.legal_moves()))
    print("perft", p.perft(2))
    s.start(p, max_nodes=1)
    side = p.side >> 3
    for spec in (0, 1 << 16):
        a = movegen.generate(p, s.moves, 0, 0, spec, s.history, s.pieces, side << 4, s.count[side])
        plain = list(s.moves[:a])
        b = native.generate(p, s.moves, spec, s)
        print("generate", a == b and plain == list(s.moves[:b]), b)
    print(forks(p))
    s.stop()
    s.clear()
    m = s.think(Position(fen), max_nodes=NODES)
    print("search", move_uci(m), s.score, s.nodes, s.depth)
"""


def test_native_code_on_the_chip_agrees_with_cpython(board):
    from core.position import Position, move_uci
    from engine import movegen
    from engine.search import Search

    def forks(s, p):
        # Quiescence's fork test after each legal move, by CPython's Search._forked.
        out = []
        for m in p.legal_moves():
            p.make(m)
            out.append(str(s._forked(m)))
            p.unmake()
        return "forks " + " ".join(out)

    expected = []
    for fen in FORK_FENS:
        p = Position(fen)
        s = Search()
        s.start(p, max_nodes=1)
        expected.append(forks(s, p))
        s.stop()
    for fen in ENGINE_FENS:
        p = Position(fen)
        expected.append("legal " + " ".join(move_uci(m) for m in p.legal_moves()))
        expected.append("perft %d" % p.perft(2))
        s = Search()
        s.start(p, max_nodes=1)
        side = p.side >> 3
        for captures in (0, 1):
            n = movegen.generate(p, s.moves, 0, 0, captures, s.history, s.pieces, side << 4, s.count[side])
            expected.append("generate True %d" % n)
        expected.append(forks(s, p))
        s.stop()
        s = Search()
        m = s.think(Position(fen), max_nodes=ENGINE_NODES)
        expected.append("search %s %d %d %d" % (move_uci(m), s.score, s.nodes, s.depth))
    code = "FENS = %r\nFORK_FENS = %r\nNODES = %d\n" % (ENGINE_FENS, FORK_FENS, ENGINE_NODES) + NATIVE_SNIPPET
    try:
        answer = board.chip.exec(code, limit_ms=60000)
        assert not answer["err"], answer["err"]
        assert answer["out"].replace("\r\n", "\n").splitlines() == expected
    finally:
        board.chip.soft_reset()


def test_the_board_plays_its_own_engine_on_the_chip():
    # board.json asks for the engine (black, level 2: two plies): after 1. e4 the firmware of
    # `make flash`, main.py and all, loads it, thinks in the scan loop and lights its reply; the
    # reply made on the board is accepted. The engine's code and 20 KB of arrays come on top of
    # what the board uses, on the chip's own heap and C stack.
    import chess

    b = booted_board("engine", {"opponent": "black", "level": 2})
    try:
        played = b.play("1000 lift e2\n1400 place e4\n", tail_ms=3000)
        said = [s for _, s in played.console]
        assert "move e2e4" in played.lines, said
        replies = [s.split()[-1] for s in said if s.startswith("msg the board plays ")]
        assert len(replies) == 1, said
        board = chess.Board()
        board.push_uci("e2e4")
        reply = chess.Move.from_uci(replies[0])
        assert reply in board.legal_moves, said
        frm, to = chess.square_name(reply.from_square), chess.square_name(reply.to_square)
        answered = b.play("1000 lift %s\n1400 place %s\n" % (frm, to), new_game=False)
        assert answered.lines[0] == "move " + replies[0], answered.console
        board.push(reply)
        assert answered.lines[-1] == "fen " + board.fen()
    finally:
        b.close()
