"""Hardware faults the main loop notices (issue 4): a switch stuck closed under an empty square, one
that never closes under a piece, a shorted column. Played on the virtual matrix through App."""
import config
from app import STUCK_MS, App
from core import signals as S
from core.position import parse_square
from hardware.fake import VirtualReedMatrix
from hardware.leds import TextLeds
from hardware.matrix import MatrixScanner

START = [sq for sq in range(64) if sq < 16 or sq >= 48]


def board():
    vm = VirtualReedMatrix()
    for sq in START:
        vm.place(sq)
    scanner = MatrixScanner(vm.rows, read_columns=vm.read_columns, sleep_us=vm.sleep_us)
    messages = []
    app = App(config.Settings(), scanner, TextLeds(), None, messages.append)
    app.start(0)
    return app, vm, messages


def run(app, vm, start, end):
    t = start
    while t <= end:
        vm.now_ms = t
        app.step(t)
        t += 5
    return t


def test_a_switch_stuck_closed_is_named_and_shown():
    app, vm, messages = board()
    e3 = parse_square("e3")
    vm.place(e3)  # the switch under an empty e3 closes by itself
    t = run(app, vm, 5, 1000)
    assert app.referee.error == ("mismatch", [e3])
    assert app.frame[e3] == S.REMOVE
    run(app, vm, t, STUCK_MS + 2000)
    assert [m for m in messages if "e3 reads occupied" in m] and len([m for m in messages if "e3 reads" in m]) == 1
    assert app.frame[e3] == S.FAULT
    vm.lift(e3)  # it opens again (or the stray piece is found and removed)
    run(app, vm, STUCK_MS + 2005, STUCK_MS + 4000)
    assert app.referee.error is None and app.frame[e3] == S.OFF and not app.faults


def test_a_switch_that_never_closes_under_its_piece():
    app, vm, messages = board()
    d2 = parse_square("d2")
    vm.lift(d2)  # the reed under the d2 pawn opens: a broken switch, diode or a weak magnet
    # It is white's turn and the pawn could be "in the air": no error until the board stands still
    # in a state no legal move explains, so black's move next makes it one.
    t = run(app, vm, 5, 1000)
    assert app.referee.error is None
    for sq, occupied in ((parse_square("e7"), 0),):
        vm.lift(sq)
    t = run(app, vm, t, STUCK_MS + 3000)
    assert app.referee.error is not None
    assert [m for m in messages if "d2 reads empty" in m]
    assert app.frame[d2] == S.FAULT


def test_a_shorted_column_is_reported_once_and_its_clearing_too():
    app, vm, messages = board()
    vm.stuck_low = 1 << 2  # file c shorted to ground
    t = run(app, vm, 5, 500)
    assert [m for m in messages if "column c reads closed" in m] == [m for m in messages if "matrix fault" in m]
    assert len([m for m in messages if "matrix fault" in m]) == 1
    vm.stuck_low = 0
    run(app, vm, t, t + 500)
    assert messages[-1] == "switch matrix reads normally again" or "switch matrix reads normally again" in messages
