# DGT's board protocol (firmware/link/dgt.py, link/dgt_bus.py) on every runtime the firmware runs on
# (CPython, MicroPython unix, WebAssembly): picochess's first bytes, a board dump, a move's field
# updates, a clock's acknowledgement and times, the LEDs, a bus frame and the delayed ping, on App +
# fakes; and, where the heap can be counted (the MicroPython unix port), idle scans with a DGT host
# attached allocate nothing: UPDATE_NICE with no clock, UPDATE_BRD, a running host clock sending
# BWTIME every second, bus mode.
#
# Plain asserts only (host_tests/helpers/run_portable.py); the protocol in depth is test_dgt.py's.
import gc
import sys

# On MicroPython the firmware's .py files compile at import (the Pico loads .mpy): the two biggest,
# the rules and the referee, first and one at a time, so the compiler's working memory for them
# fits the 320 kB heap (as test_transcripts.py does).
import core.position  # noqa: E402,F401

gc.collect()
import core.referee  # noqa: E402,F401

gc.collect()
import config  # noqa: E402
from app import App
from core import signals as S
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner
from heap import can_count_bytes
from link.link import Link

START = tuple(range(16)) + tuple(range(48, 64))
START_FIELDS = bytes((8, 9, 10, 12, 11, 10, 9, 8)) + bytes((7,)) * 8 + bytes(32) + bytes((1,)) * 8 + bytes((2, 3, 4, 6, 5, 4, 3, 2))

SMALL = (
    sys.implementation.name == "micropython"
    and sys.platform != "webassembly"
    and hasattr(gc, "mem_free")
    and gc.mem_free() + gc.mem_alloc() < 300 * 1024
)


class SkipTest(Exception):
    """run_portable.py counts an exception of this name as a skip."""


class Board:
    """A board on fakes whose USB link takes DGT hosts. The board's bytes are counted, and kept
    only when keep is on (a list that grows would be an allocation of the test's own)."""

    def __init__(self):
        if SMALL:
            raise SkipTest("the board with DGT compiled from .py needs a heap of 300 kB")
        self.vm = VirtualReedMatrix()
        for sq in START:
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.app = App(config.Settings(), scanner, TextLeds())
        self.data = bytearray()
        self.keep = True
        self.count = [0]
        self.link = Link(self.app, self._text, self._bytes, dgt=True)
        self.t = 0
        self.app.start(0)
        self.link.poll(0)

    def _text(self, text):
        raise AssertionError("a text line in a DGT session: %r" % text)

    def _bytes(self, data):
        self.count[0] += len(data)
        if self.keep:
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

    def take(self):
        out = bytes(self.data)
        self.data[:] = b""
        return out


def _frame(cmd, address):
    frame = bytes((cmd, address >> 7, address & 0x7F))
    return frame + bytes(((frame[0] + frame[1] + frame[2]) & 0x7F,))


def test_a_dgt_session_on_this_runtime():
    b = Board()
    b.link.feed(b"\x4b\x4d\x42")  # picochess: UPDATE_NICE, VERSION, the board
    assert b.take() == b"\x93\x00\x05\x01\x02" + b"\x86\x00\x43" + START_FIELDS
    b.link.feed(b"\x2b\x03\x03\x09\x00")  # the clock's version: an ack inside BWTIME
    assert b.take() == b"\x8d\x00\x0a\x0a\x10\x09\x0a\x22\x00\x00"
    b.run(10)
    assert b.take() == b"\x8d\x00\x0a\x00\x00\x00\x00\x00\x00\x20"  # no clock connected
    b.move(12, 28)  # e2-e4: field 52 empty, field 36 a white pawn
    assert b.take() == b"\x8e\x00\x05\x34\x00\x8e\x00\x05\x24\x01"
    b.link.feed(b"\x2b\x0a\x03\x0a\x00\x05\x00\x00\x04\x00\x02\x00")  # SetNRun: 5:00 and 4:00, right runs
    assert b.take()[:6] == b"\x8d\x00\x0a\x0a\x10\x0a"
    b.run(1500)
    assert b.take()[-10:] == b"\x8d\x00\x0a\x00\x03\x59\x00\x05\x00\x0b"  # right 3:59, left 5:00, right's turn
    b.link.feed(b"\x60\x04\x01\x34\x24\x00")  # the Revelation II's LEDs: e2 and e4
    b.run(10)
    assert b.app.shown_frame()[12] == S.REMOTE_MOVE and b.app.shown_frame()[28] == S.REMOTE_MOVE
    b.link.feed(b"\x60\x04\x00\x40\x40\x00")
    assert b.app.host_frame is None
    dgt = b.link.sessions["dgt"]
    b.link.feed(_frame(0x8B, dgt.address))  # a bus command: back to bus mode, not carried out
    b.link.feed(_frame(0x8B, dgt.address))
    a = dgt.address
    version = bytes((0x89, 0, 8, a >> 7, a & 0x7F, 1, 2))
    assert b.take() == version + bytes((sum(version) & 0x7F,))
    b.link.feed(_frame(0x87, 0))  # a ping to every board: answered later, within 1,100 ms
    assert b.take() == b""
    waited = 0
    while not b.data:
        b.run(5)
        waited += 5
        assert waited <= 1100
    assert b.take()[:6] == bytes((0x87, 0, 6, a >> 7, a & 0x7F, (0x87 + 6 + (a >> 7) + (a & 0x7F)) & 0x7F))
    assert b.link.dialect == "dgt" and dgt.ignored == 0


def _idle_bytes(b, measure):
    b.run(50)
    if not measure:
        b.run(100)
        return 0
    gc.collect()
    before = gc.mem_alloc()
    b.run(2000)  # 400 scans
    return gc.mem_alloc() - before


def test_idle_scans_with_a_dgt_host_attached_allocate_nothing():
    b = Board()
    measure = can_count_bytes()
    b.link.feed(b"\x4b\x4d\x42")
    b.keep = False
    nice = _idle_bytes(b, measure)  # UPDATE_NICE, no clock: the time looked at every 100 ms
    b.link.feed(b"\x44")
    brd = _idle_bytes(b, measure)
    b.link.feed(b"\x4b\x2b\x0a\x03\x0a\x00\x05\x00\x00\x05\x00\x01\x00")  # the host's clock runs
    sent = b.count[0]
    clock = _idle_bytes(b, measure)
    assert b.count[0] - sent >= 10 * (2 if measure else 1)  # BWTIME every second meanwhile
    b.link.feed(b"\x4a")  # bus mode, nothing asked
    bus = _idle_bytes(b, measure)
    if measure:
        print("  400 idle scans: UPDATE_NICE %d bytes, UPDATE_BRD %d, a running clock %d, bus mode %d" % (nice, brd, clock, bus))
        assert nice == 0 and brd == 0 and clock == 0 and bus == 0
