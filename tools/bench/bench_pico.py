"""The firmware's figures measured on the emulated Pico: `make bench`'s Pico column.

    .venv/bin/python tools/bench/bench_pico.py        (or: tools/bench/bench.py --only pico)

Boots the official MicroPython v1.27.0 rp2 build on rp2040js with the firmware of `make flash`
on its littlefs (tools/emu/), stops main.py and runs the snippet below in the raw REPL: the board
wired by wiring.build() on the chip's real pins, the emulated reed matrix and WS2812B chain behind
them. While it runs the harness lifts each white piece of a busy middlegame and puts it back (casual
mode: an adjustment), then plays Nf3-e5 and a7-a6, so lifts and commits are timed as the main
loop meets them. Then tools/bench/bench_core.py --quick
runs on the chip as it runs on the unix port, so every row of `make bench` has its Pico figure
from the same code. Time is the chip's own
(time.ticks_us at 125 MHz, flash erase/program at W25Q16JV typical times): within about 10 % of a
real Pico (docs/emulated-pico.md). Prints `key value unit  # note` lines, as tools/bench/bench_core.py.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "emu"))
import chessboard as emu_board  # noqa: E402
import chip as emu_chip  # noqa: E402

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1QBPPP/R3KB1R w KQ - 4 9"
# White's pieces of MIDDLEGAME that can move, each lifted and put back; then Nf3-e5 and a7-a6.
PIECES = ("f3", "d2", "e2", "c3", "a1", "e1", "h1", "g2", "c4", "b2", "e3")
FILES = "abcdefgh"
# Exit status when the chip's two input files are absent: tools/bench/bench.py then prints the Pico
# column as not measured (docs/figures.md keeps the last chip figures with their date).
NOT_MEASURED = 3


def square(name):
    return FILES.index(name[0]) + 8 * (int(name[1]) - 1)


def schedule():
    """(lift times in ms after GO, magnet events)."""
    lifts, events = [], []
    t = 1000
    for name in PIECES:
        lifts.append(t)
        events += [(t, 0, square(name)), (t + 300, 1, square(name))]
        t += 700
    for a, b in (("f3", "e5"), ("a7", "a6")):
        lifts.append(t)
        events += [(t, 0, square(a)), (t + 300, 1, square(b))]
        t += 900
    return lifts, events, t + 300

SNIPPET = r"""
import gc, time
from time import ticks_us, ticks_diff, ticks_ms
def emit(key, value, unit, note=""):
    print("%s %s %s%s" % (key, value, unit, ("  # " + note) if note else ""))
gc.collect()
import wiring
from core.game import Game
from core.position import Position
board = wiring.build()
wiring.forget(wiring.BOOT_ONLY)  # as wiring.boot() does
board.start()
gc.collect()
app = board.app
scanner = app.matrix
t0 = ticks_us()
for _ in range(50):
    scanner.scan()
emit("scan_real_pins", "%.0f" % (ticks_diff(ticks_us(), t0) / 50), "us", "one full scan on the real pins, settling included")
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
emit("idle_tick_real_board", "%.0f" % (total / 100), "us", "Board.tick with nothing moving, real pins and LED driver, USB link polled (worst %d us)" % worst)
# Casual mode: each piece is lifted and put back (an adjustment), then Nf3-e5 and a7-a6 are played.
app.referee.set_mode("casual")
lifts = %(lifts)s
lift_step = []
lift_latency = []
commit_step = []
nxt = 0
writes = app.leds.writes
saves = board.store.writes if board.store else 0  # whole records and journal appends (store.py)
save_step = []
plies = len(app.referee.game.moves)
period = app.settings.scan_period_ms
strip = app.leds.strip
last_bit = []
print("GO")
go = ticks_ms()
go_us = ticks_us()
due = go
while ticks_diff(ticks_ms(), go) < %(loop_ms)d:
    t0 = ticks_us()
    board.tick(due)  # main.py's scan_task times each scan at the instant it is due
    dt = ticks_diff(ticks_us(), t0)
    since = ticks_diff(ticks_ms(), go)
    if nxt < len(lifts) and since >= lifts[nxt] and app.leds.writes != writes:
        lift_step.append(dt)
        lift_latency.append(since - lifts[nxt])
        # The frame's last bit on the chain: the DMA's start, and the frame's time on the wire.
        last_bit.append(ticks_diff(strip.sent_us, go_us) + 1920 - lifts[nxt] * 1000)
        nxt += 1
    # The commit is the step where the game gains the move; the save (app.py) comes in a later,
    # still step of its own, so the two are timed apart.
    if len(app.referee.game.moves) != plies:
        plies = len(app.referee.game.moves)
        commit_step.append(dt)
    if board.store and board.store.writes != saves:
        saves = board.store.writes
        save_step.append(dt)
    writes = app.leds.writes
    # The schedule of loop.py's run(): each scan due a period after the last, whatever the step took.
    due = time.ticks_add(due, period)
    wait = ticks_diff(due, ticks_ms())
    if wait < 0:
        due = ticks_ms()
        wait = 0
    time.sleep_ms(wait)
def spread(values, scale):
    v = sorted(values)
    return "%%.1f" %% (v[len(v) // 2] / scale), "median of %%d, worst %%.1f" %% (len(v), v[-1] / scale)
m, note = spread(lift_step, 1000)
emit("lift_to_led_frame_step", m, "ms", "the main-loop step that sees a lift, WS2812B write included: busy middlegame, %%s" %% note)
m, note = spread(last_bit, 1000)
emit("lift_to_leds_on_board", m, "ms", "lift -> the frame's last bit on the WS2812B chain (4 ms scans, 8 ms debounce, 1.92 ms on the wire): %%s" %% note)
m, note = spread(commit_step, 1000)
emit("place_to_commit_step", m, "ms", "the step that commits a move (status and frame; the save comes later): %%s" %% note)
if save_step:
    m, note = spread(save_step, 1000)
    emit("save_step", m, "ms", "the step after the commit that saves the game (a journal append, or the whole game): %%s" %% note)
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
board.shutdown()
del board, app, scanner, g
gc.collect()
"""


def snippet():
    # %-formatting twice is error-prone: fill the few parameters by name, once.
    code = SNIPPET
    lifts, events, loop_ms = schedule()
    for key, value in (("middlegame", repr(MIDDLEGAME)), ("loop_ms", str(loop_ms)), ("lifts", repr(lifts))):
        code = code.replace("%(" + key + ")r", value).replace("%(" + key + ")d", value).replace("%(" + key + ")s", value)
    return code.replace("%%", "%")


# Free RAM as main.py leaves it: the board wired and started, the boot-only modules dropped, with
# no more code of the bench's own in the heap than these few lines (the snippet above takes
# several KB of bytecode while it runs, so it cannot measure this).
FREE = """
import gc, wiring
board = wiring.build()
wiring.forget(wiring.BOOT_ONLY)
board.start()
gc.collect()
print("free_ram_after_boot %d KB  # gc.mem_free() with the board wired and started as main.py does (heap %d KB)" % (gc.mem_free() // 1024, (gc.mem_free() + gc.mem_alloc()) // 1024))
board.shutdown()
"""


# tools/bench/bench_core.py as it runs on the unix port, run on the chip: the same figures from the same
# code, so each row of `make bench` compares like with like (--quick: perft depth 2, not 3).
CORE = """
import gc, sys
gc.collect()
sys.argv[:] = ["bench_core.py", "--quick"]
import bench_core
"""


def main():
    problem = emu_chip.inputs_problem()
    if problem:
        print("bench_pico: not measured: " + problem, file=sys.stderr)
        return NOT_MEASURED
    events = schedule()[1]
    with open(os.path.join(HERE, "bench_core.py"), "rb") as f:
        extra = {"bench_core.py": f.read()}
    fs = emu_chip.firmware_image(extra=extra, out=os.path.join(emu_chip.ROOT, "build", "emu", "bench.bin"))
    chip_ms = 0
    with emu_board.EmulatedBoard(fs=fs) as board:
        board.closed = emu_board.occupancy(MIDDLEGAME)
        board.boot()
        for code, moves in ((FREE, None), (snippet(), events), (CORE, None)):
            result = board.chip.exec(code, events=moves)
            if result["err"]:
                sys.stderr.write(result["out"] + result["err"])
                return 1
            chip_ms += result["ms"]
            for line in result["out"].replace("\r\n", "\n").splitlines():
                if not line.startswith(("msg ", "move ", "GO", "runtime")):
                    print(line)
    print("runtime rp2 1.27.0  # emulated RP2040 (rp2040js), %.1f s of chip time" % (chip_ms / 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
