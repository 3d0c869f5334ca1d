"""The firmware's figures measured on the emulated Pico: `make bench`'s Pico column.

    .venv/bin/python tools/bench_pico.py        (or: tools/bench.py --only pico)

Boots the official MicroPython v1.27.0 rp2 build on rp2040js with the firmware of `make flash`
on its littlefs (tools/emu/), stops main.py and runs the snippet below in the raw REPL: the board
wired by main.build() on the chip's real pins, the emulated reed matrix and WS2812B chain behind
them. While it runs the harness lifts the knight on f3 of a busy middlegame and puts it on e5, so
the lift and the commit are timed as the main loop meets them. Time is the chip's own
(time.ticks_us at 125 MHz, flash erase/program at W25Q16JV typical times): within about 10 % of a
real Pico (../shared/pico/README.md). Prints `key value unit  # note` lines, as tools/bench_core.py.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "emu"))
import board as emu_board  # noqa: E402
import chip as emu_chip  # noqa: E402

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1QBPPP/R3KB1R w KQ - 4 9"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
LIFT_MS = 1000  # after the snippet's GO: lift f3 ...
PLACE_MS = 1300  # ... and place the knight on e5
LOOP_MS = 2600

SNIPPET = r"""
import gc, time
from time import ticks_us, ticks_diff, ticks_ms
def emit(key, value, unit, note=""):
    print("%s %s %s%s" % (key, value, unit, ("  # " + note) if note else ""))
gc.collect()
import main
from core.game import Game
from core.position import Position
board = main.build()
board.start()
gc.collect()
emit("free_ram_after_boot", gc.mem_free() // 1024, "KB", "gc.mem_free() with the board wired and started (heap %d KB)" % ((gc.mem_free() + gc.mem_alloc()) // 1024))
app = board.app
scanner = app.matrix
t0 = ticks_us()
for _ in range(50):
    scanner.scan()
emit("matrix_scan", "%.0f" % (ticks_diff(ticks_us(), t0) / 50), "us", "one full scan on the real pins, settling included")
app.referee.load_game(Game(%(middlegame)r), board.now)
for _ in range(20):
    board.tick(ticks_ms())
    time.sleep_ms(5)
total = 0
worst = 0
for _ in range(100):
    t0 = ticks_us()
    board.tick(ticks_ms())
    dt = ticks_diff(ticks_us(), t0)
    total += dt
    worst = max(worst, dt)
    time.sleep_ms(5)
emit("main_loop_idle_step", "%.0f" % (total / 100), "us", "Board.tick with nothing moving (worst %d us)" % worst)
steps = 0
lift_step = None
commit_step = None
lift_at = None
writes = app.leds.writes
seq = board.store.seq if board.store else 0
print("GO")
go = ticks_ms()
while ticks_diff(ticks_ms(), go) < %(loop_ms)d:
    t0 = ticks_us()
    board.tick(ticks_ms())
    dt = ticks_diff(ticks_us(), t0)
    since = ticks_diff(ticks_ms(), go)
    if lift_step is None and since >= %(lift_ms)d and app.leds.writes != writes:
        lift_step = dt
        lift_at = since - %(lift_ms)d
    if commit_step is None and board.store and board.store.seq != seq:
        commit_step = dt
    writes = app.leds.writes
    time.sleep_ms(5 - dt // 1000 if dt < 5000 else 0)
emit("lift_to_led_frame_step", "%.1f" % (lift_step / 1000), "ms", "the main-loop step that sees a lift (Nf3 in a busy middlegame), WS2812B write included")
emit("lift_to_leds_on_board", "%d" % lift_at, "ms", "lift -> that step's end: 5 ms scans and 10 ms debounce included")
emit("place_to_commit_step", "%.1f" % (commit_step / 1000), "ms", "the step that commits the move (Nf3-e5): status, frame and the save")
g = Game()
seed = 7
while len(g.moves) < 100:
    seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
    legal = g.legal
    g.push(legal[seed %% len(legal)])
    if g.is_over():
        g.pop()
        seed += 1
times = []
for _ in range(4):
    t0 = ticks_us()
    board.store.save(g, "strict")
    times.append(ticks_diff(ticks_us(), t0))
emit("one_save_100_plies", "%.0f" % (sum(times) / len(times) / 1000), "ms", "GameStore.save of a 100-ply game to littlefs (%s ms)" % "/".join("%%d" %% (t // 1000) for t in times))
p = Position(%(kiwipete)r)
t0 = ticks_us()
n = p.perft(2)
emit("perft_make_unmake", "%%d" %% (n * 1000000 // ticks_diff(ticks_us(), t0)), "nodes/s", "Kiwipete depth 2 (%%d nodes)" %% n)
p = Position(%(middlegame)r)
out = []
t0 = ticks_us()
for _ in range(5):
    while out:
        out.pop()
    p.generate_legal(out)
emit("legal_moves_full", "%%.0f" %% (ticks_diff(ticks_us(), t0) / 5), "us", "full legal-move list, busy middlegame (%%d moves)" %% len(out))
"""


def snippet():
    # %-formatting twice is error-prone: fill the few parameters by name, once.
    code = SNIPPET
    for key, value in (("middlegame", repr(MIDDLEGAME)), ("kiwipete", repr(KIWIPETE)), ("loop_ms", str(LOOP_MS)), ("lift_ms", str(LIFT_MS))):
        code = code.replace("%(" + key + ")r", value).replace("%(" + key + ")d", value)
    return code.replace("%%", "%")


def main():
    problems = emu_chip.missing_inputs()
    if problems:
        print("bench_pico: " + "; ".join(problems), file=sys.stderr)
        return 2
    f3, e5 = 21, 36
    events = [(LIFT_MS, 0, f3), (PLACE_MS, 1, e5)]
    with emu_board.EmulatedBoard() as board:
        board.closed = emu_board.occupancy(MIDDLEGAME)
        board.boot()
        result = board.chip.exec(snippet(), events=events)
    if result["err"]:
        sys.stderr.write(result["out"] + result["err"])
        return 1
    sys.stdout.write(result["out"].replace("\r\n", "\n"))
    print("runtime rp2 1.27.0  # emulated RP2040 (rp2040js), %.1f s of chip time" % (result["ms"] / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
