# The Pico W's Lichess game with real mbedTLS in the heap: the firmware as `make flash` copies it
# (.mpy), wired as a Pico W on hardware/fake.py's pins by wiring.boot, online through online/boot.py's
# start (its network core on a real thread, real sockets, real TLS) against the project's fake Lichess
# (host_tests/helpers/fake_lichess.py), on a 32-bit MicroPython unix build whose mbedTLS takes its
# memory from the GC heap as the rp2 port's does (docs/memory.md says how to build one; the project
# ships none). The model of tools/memory/ holds mbedTLS's buffers as bytearrays of measured sizes;
# this runs the real allocations, so a handshake that finds no room fails here as on the chip.
#
# host_tests/test_tls32.py runs it, from a folder holding the firmware's .mpy files, hardware/fake.mpy,
# network.mpy (tools/shims/network.py), the test server's CA as online/roots.pem and online.secret:
#   MICROPYTHON32 -X heapsize=N tools/memory/tls32_board.py MODE [ARGS]
#   pool                      prints `pool P bare B`: the GC pool and what the runtime holds at start
#   harness                   prints `harness H`: what this harness holds (its modules, the fakes)
#   game PORT RUNTIME NATIVE STACK
#                             the game: the chip's bytes this build does not hold made as
#                             bytearrays where the chip makes them (its bare runtime above this
#                             build's, the boot's native code, the second core's stack: from
#                             tools/memory/chips.py); prints `played ...`, `done BOARD | LICHESS`
# Runs on MicroPython only; never on the board.
import gc
import sys

gc.collect()
BARE = gc.mem_alloc()
MODE = sys.argv[1]
if MODE == "pool":
    print("pool %d bare %d" % (gc.mem_free() + gc.mem_alloc(), BARE))
    sys.exit(0)

sys.path.insert(0, ".")
import socket  # noqa: E402, F401 - the harness's share: the firmware imports them later
import ssl  # noqa: E402, F401
import time  # noqa: E402
import _thread  # noqa: E402, F401

import network  # noqa: E402, F401
import config  # noqa: E402
from core.position import move_uci, parse_square  # noqa: E402
from hardware.fake import FakePico, RamFiles  # noqa: E402

START = [sq for sq in range(64) if sq < 16 or sq >= 48]
MINE = ("e2e4", "g1f3", "f1c4", "d2d3", "b1c3", "c1g5")
held = []
gc.collect()
if MODE == "harness":
    print("harness %d" % (gc.mem_alloc() - BARE))
    sys.exit(0)

port, runtime, native, stack = (int(x) for x in sys.argv[2:6])


def write(text):
    print("board: " + text.rstrip())


held.append(bytearray(runtime))
settings = config.Settings().updated({"clock": "15+10", "status_led_pin": "LED"})
pico = FakePico(settings.row_pins, settings.column_pins, config.SIO_GPIO_IN, occupied=START)
config = None
import wiring  # noqa: E402

held.append(bytearray(native))
board = wiring.boot(settings, pico.machine, pico.neopixel, write, RamFiles(), None, online=False)
board.link.use("board")  # the console's lines printed as they come
from online import boot  # noqa: E402

held.append(bytearray(stack))
board.online = boot.start(board.app, board.link.info, None, host="localhost", port=port)
board.app.online = board.online
wiring = boot = None
gc.collect()
print("online started, %d free" % gc.mem_free())

vm = pico.vm
t = time.ticks_ms()


def run(ms):
    global t
    for _ in range(ms // 4):
        t += 4
        vm.now_ms = t
        board.tick(t)
        time.sleep_ms(4)


def move(uci):
    a, b = parse_square(uci[:2]), parse_square(uci[2:4])
    if vm.occupied(b):
        vm.lift(b)
        run(60)
    vm.lift(a)
    run(60)
    vm.place(b)
    run(400)


ref = board.app.referee
end = time.ticks_add(time.ticks_ms(), 90000)
played = 0
while played < len(MINE) and time.ticks_diff(end, time.ticks_ms()) > 0 and board.online is not None:
    run(100)
    logic = board.online.session.logic if board.online is not None else None
    if logic is None:
        break
    if logic.playing() and logic.my_turn() and not ref.remote and ref.game.ply() == 2 * played:
        move(MINE[played])
        played += 1
        print("played " + MINE[played - 1])
    elif ref.remote:
        move(move_uci(ref.remote))
while board.online is not None and time.ticks_diff(end, time.ticks_ms()) > 0 and \
        len(board.online.session.logic.moves) < 2 * len(MINE):
    run(100)  # the last move reaches Lichess, its answer comes back
lichess = board.online.session.logic.moves if board.online is not None else []
print("done %s | %s" % (" ".join(ref.game.uci_moves()), " ".join(lichess)))
if board.online is not None:
    board.online.stop()
time.sleep_ms(200)
