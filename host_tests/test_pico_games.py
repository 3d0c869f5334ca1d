"""The firmware as `make flash` puts it on a Pico, on the emulated RP2040 (make test-pico).

One emulated board boots the official MicroPython v1.27.0 rp2 build with the .mpy files of
tools/flash.py in its littlefs, and plays transcripts through the reed matrix on config.py's
GPIOs. Each must print what the same firmware core prints on CPython for the same transcript
(tools/transcript.py, the oracle python-chess checks in the other tests), and its own `# expect fen`.
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
    # tools/physical.py's hands: bounce, chatter, slides, hesitations, a knocked piece. Seed 58:
    # four plies in under 5 s (knock_rate 0.5).
    text, expected, fen = physical.transcript(58, "strict", max_plies=4, knock_rate=0.5)
    played = board.play(text)
    assert effective(played.lines) == effective(expected)
    assert played.lines[-1] == "fen " + fen
    assert played.lines == emu_board.expected(text)


