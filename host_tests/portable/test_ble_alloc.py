# The BLE link (firmware/link/ble.py) on a scripted fake of MicroPython's `bluetooth`: it runs on
# MicroPython as on CPython, its interrupt handler only queues, and a scan with nothing from the
# radio allocates nothing: advertising with no app, an app connected but quiet, an app in a CPP
# round with the board still, a ChessLink host with reports on change. Measured on the MicroPython
# unix port (make test-micropython), where an allocation per scan would mean a garbage collection
# every few scans; the BLE traffic itself (bumble on both ends) is host_tests/test_ble.py's.
import gc
import sys

import config
from app import App
from hardware.fake import FakeBluetooth, FakeNeoPixel, VirtualReedMatrix
from hardware.matrix import MatrixScanner
from hardware.ws2812 import Ws2812Leds
from heap import can_count_bytes
from link.ble import BleLink

# Compiling the board with BLE and both dialects from .py needs about 300 kB of heap on the unix
# port (the Pico loads .mpy files and needs no compiler memory): make test-micropython's 320 kB runs
# it; on a smaller heap it skips, saying so, and host_tests/test_ble_micropython.py runs it at 768 kB.
SMALL = (
    sys.implementation.name == "micropython"
    and sys.platform != "webassembly"
    and hasattr(gc, "mem_free")
    and gc.mem_free() + gc.mem_alloc() < 300 * 1024
)


class SkipTest(Exception):
    """run_portable.py counts an exception of this name as a skip."""


_IRQ_CENTRAL_CONNECT = 1
_IRQ_CENTRAL_DISCONNECT = 2
_IRQ_MTU_EXCHANGED = 21


def _board():
    vm = VirtualReedMatrix()
    for sq in range(64):
        if sq < 16 or sq >= 48:
            vm.place(sq)
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    app = App(config.Settings(), scanner, Ws2812Leds(FakeNeoPixel()), None)
    app.start(0)
    bt = FakeBluetooth()
    ble = BleLink(bt, app, "both")
    return app, vm, ble, bt.radio


def _steps(app, vm, ble, start, end):
    t = start
    while t < end:
        vm.now_ms = t
        app.step(t)
        ble.poll(t)
        t += 5
    return t


def _idle_bytes(app, vm, ble, t, measure):
    t = _steps(app, vm, ble, t, t + 50)
    if not measure:
        return _steps(app, vm, ble, t, t + 100), 0
    gc.collect()
    before = gc.mem_alloc()
    t = _steps(app, vm, ble, t, t + 1000)  # 200 scans
    return t, gc.mem_alloc() - before


def _texts(radio, handle):
    got = [data.decode() for _c, h, data in radio.notified if h == handle]
    radio.notified.clear()
    return got


def test_the_handler_only_queues_and_idle_scans_allocate_nothing():
    if SMALL:
        raise SkipTest("the board with BLE and its dialects compiled from .py needs a heap of 300 kB")
    app, vm, ble, radio = _board()
    measure = can_count_bytes()
    assert radio.on and radio.advertising is not None
    t, advertising = _idle_bytes(app, vm, ble, 5, measure)
    # An app connects: the handler queues it; the scan loop takes it and asks for the MTU.
    radio.event(_IRQ_CENTRAL_CONNECT, (7, 0, b"\x01\x02\x03\x04\x05\x06"))
    assert ble.connection < 0 and radio.mtu_asked == []  # nothing done inside the handler
    t = _steps(app, vm, ble, t, t + 10)
    assert ble.connection == 7 and radio.mtu_asked == [7]
    assert radio.advertising is None  # one app at a time: no second phone finds the board
    radio.event(_IRQ_MTU_EXCHANGED, (7, 247))
    t, connected = _idle_bytes(app, vm, ble, t, measure)
    assert ble.mtu == 247
    # A CPP round, the board still.
    for line in ("feature msg", "begin rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"):
        radio.write(7, ble.cpp_rx, line.encode())
    t = _steps(app, vm, ble, t, t + 10)
    assert _texts(radio, ble.cpp_tx) == ["ok", "sync rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"]
    t, in_round = _idle_bytes(app, vm, ble, t, measure)
    # The app goes; a ChessLink host comes, reports on change.
    radio.event(_IRQ_CENTRAL_DISCONNECT, (7, 0, b""))
    radio.event(_IRQ_CENTRAL_CONNECT, (8, 0, b""))
    radio.write(8, ble.chesslink_write, b"W0203" + b"%02X" % (0x57 ^ 0x30 ^ 0x32 ^ 0x30 ^ 0x33))
    t = _steps(app, vm, ble, t, t + 10)
    assert ble.connection == 8 and radio.calls_in_irq == 0 and radio.advertising is None
    chesslink = b"".join(data for _c, h, data in radio.notified if h == ble.chesslink_notify)
    assert chesslink.startswith(b"w0203")
    t, reporting = _idle_bytes(app, vm, ble, t, measure)
    # A second central while one is connected: refused from the scan loop, never the handler.
    radio.event(_IRQ_CENTRAL_CONNECT, (9, 0, b""))
    assert radio.disconnected == []
    t = _steps(app, vm, ble, t, t + 10)
    assert radio.disconnected == [9] and ble.connection == 8
    if measure:
        print(
            "  200 idle scans: advertising %d bytes, connected %d, CPP round %d, ChessLink reports on change %d"
            % (advertising, connected, in_round, reporting)
        )
        assert advertising == 0 and connected == 0 and in_round == 0 and reporting == 0


def test_the_ble_command_reports_the_free_heap_where_the_runtime_counts_it():
    from link.ble_command import heap_free

    text = heap_free()
    if hasattr(gc, "mem_free"):
        assert text.startswith(" heap_free=") and 0 < int(text[len(" heap_free=") :]) <= gc.mem_free() + gc.mem_alloc()
    else:
        assert text == ""  # CPython: no fixed heap to report
