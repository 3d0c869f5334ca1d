# The USB link's three dialects on every runtime the firmware runs on (CPython, MicroPython unix,
# WebAssembly): a CPP round, a ChessLink session with parity, the board's commands, on App + fakes.
#
# Plain asserts only (host_tests/helpers/run_portable.py); the protocol in depth is tested on CPython by
# test_link.py, test_cpp.py and test_chesslink.py. The whole board with CPP and ChessLink, compiled
# from .py, needs about 300 kB of heap to compile: make test-micropython's 320 kB runs it, a smaller
# heap skips it, and host_tests/test_fuzz_runtimes.py also runs it with 768 kB (the Pico loads .mpy files; the
# .mpy run of every dialect on the Pico's 240 kB heap is tools/bench/bench_board.py in test_pico_loop_alloc.py).
import gc
import sys

# On MicroPython the firmware's .py files compile at import (the Pico loads .mpy): the two biggest,
# the rules and the referee, first and one at a time, so the compiler's working memory for them
# fits the 320 kB heap (as test_transcripts.py does).
import core.position  # noqa: E402,F401

gc.collect()
import core.referee  # noqa: E402,F401

gc.collect()
import config
from app import App
from core import signals as S
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from link.link import Link

START = tuple(range(16)) + tuple(range(48, 64))
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


SMALL = (
    sys.implementation.name == "micropython"
    and sys.platform != "webassembly"
    and hasattr(gc, "mem_free")
    and gc.mem_free() + gc.mem_alloc() < 300 * 1024
)


class SkipTest(Exception):
    """run_portable.py counts an exception of this name as a skip."""


class Board:
    def __init__(self):
        if SMALL:
            raise SkipTest("the board with its three dialects compiled from .py needs a heap of 300 kB")
        self.vm = VirtualReedMatrix()
        for sq in START:
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.app = App(config.Settings(), scanner, TextLeds())
        self.text = []
        self.data = bytearray()
        self.link = Link(self.app, self.text.append, self._bytes)
        self.t = 0
        self.app.start(0)
        self.link.poll(0)

    def _bytes(self, data):
        self.data += data

    def run(self, ms):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)
            self.link.poll(self.t)

    def move(self, frm, to):
        self.vm.lift(frm)
        self.run(60)
        self.vm.place(to)
        self.run(400)

    def lines(self):
        out = "".join(self.text).split("\n")[:-1]
        del self.text[:]
        return out


def test_a_cpp_round_on_this_runtime():
    b = Board()
    b.link.feed(b"feature msg\nfeature undo_redo\nfeature last_move\nset_variant standard\n")
    got = b.lines()
    assert got == ["ok", "ok", "nok"], got
    b.move(12, 28)  # e2-e4 before begin: nothing unasked
    assert b.lines() == []
    b.link.feed("begin " + START_FEN + "\n")
    assert b.lines()[0].startswith("unsync rnbqkbnr/pppppppp/8/8/4?3/8/PPPP1PPP/")  # nobody seen lifting it
    b.move(28, 12)
    assert b.lines()[-1] == "sync " + START_FEN
    b.move(12, 28)
    assert b.lines() == ["move e2e4"]
    b.link.feed(b"ok\nmove e7e5\n")
    b.run(10)
    assert b.app.frame[52] == S.REMOTE_MOVE and b.app.frame[36] == S.REMOTE_MOVE
    b.move(52, 36)
    b.link.feed(b"end\n")
    assert b.lines() == [] and b.app.referee.game.uci_moves() == ["e2e4", "e7e5"]


def _message(body):
    check = 0
    for ch in body:
        check ^= ord(ch)
    text = body + "0123456789ABCDEF"[check >> 4] + "0123456789ABCDEF"[check & 15]
    out = bytearray()
    for ch in text:
        c = ord(ch)
        ones = 0
        for i in range(7):
            ones += c >> i & 1
        out.append(c if ones & 1 else c | 0x80)  # odd parity, as a host on a 7O1 line sends it
    return bytes(out)


def test_a_chesslink_session_on_this_runtime():
    b = Board()
    b.link.feed(_message("W0201") + _message("S"))
    got = bytes(c & 0x7F for c in b.data)
    assert got[:5] == b"w0201"
    # The status lists h1 to a1, h2 to a2, ... a8 (link/chesslink.py, Orientation).
    assert got[7:8] == b"s" and got[8:16] == b"RNBKQBNR" and got[64:72] == b"rnbkqbnr"
    assert len(got) == 7 + 67
    b.data[:] = b""
    b.move(6, 21)  # g1-f3
    b.link.feed(_message("S"))
    got = bytes(c & 0x7F for c in b.data)
    # f3: rank 3 (letters 16..23), from the h-file: index 16 + 2; g1: index 1.
    assert got[1 + 16 + 2 : 1 + 16 + 3] == b"N" and got[1 + 1 : 1 + 2] == b"."
    leds = "00" * 81
    b.link.feed(_message("L20" + leds) + _message("X"))
    assert b.app.host_frame is None
    assert b.link.dialect == "chesslink"
    b.link.feed(b"fen\n")
    assert b.lines()[0].startswith("fen ")
