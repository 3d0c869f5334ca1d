# The engine's speed where it runs: nodes per second, the longest search slice, its RAM, and how
# long a scan step of the board takes while the engine thinks. Portable: the same file runs on
# CPython, the MicroPython unix port and, as a snippet, on the emulated Pico (tools/emu/run.py),
# where ticks_us is the chip's own clock. One figure a line, `name value unit  # note`.
#
#   python3 tools/engine_speed.py
#   .venv/bin/micropython -X heapsize=200k tools/engine_speed.py
import gc
import sys
import time

try:
    import core.position  # noqa: F401 - on the Pico the flash root holds the firmware
except ImportError:
    sys.path.insert(0, "tools/shims")
    sys.path.insert(0, "firmware")

if hasattr(time, "ticks_us"):
    _us = time.ticks_us
    _diff = time.ticks_diff
else:
    from ticks import ticks_diff as _diff, ticks_us as _us  # tools/shims/ticks.py


# Middlegames from ordinary openings (Italian, Queen's Gambit Declined, Sicilian, a quiet Ruy Lopez).
POSITIONS = (
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10",
    "r1b1kb1r/1pqp1ppp/p1n1pn2/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 4 8",
    "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9",
)


class _Histogram:
    """Durations in 100 us buckets (up to 50 ms): a median without keeping every sample."""

    def __init__(self):
        self.buckets = [0] * 501
        self.n = 0

    def add(self, us):
        self.buckets[min(us // 100, 500)] += 1
        self.n += 1

    def median(self):
        seen = 0
        for i in range(501):
            seen += self.buckets[i]
            if 2 * seen >= self.n:
                return i * 100 + 50
        return 0

    def over(self, us):
        return sum(self.buckets[us // 100 :])


def search_speed(nodes_each):
    from core.position import Position
    from engine.search import Search

    gc.collect()
    free = gc.mem_free() if hasattr(gc, "mem_free") else 0
    search = Search()
    gc.collect()
    ram = free - gc.mem_free() if free else search.footprint()
    total = 0
    spent = 0
    worst = 0
    slices = _Histogram()
    for fen in POSITIONS:
        pos = Position(fen)
        search.start(pos, max_nodes=nodes_each)
        t0 = _us()
        while True:
            t = _us()
            done = search.run(1)
            w = _diff(_us(), t)
            slices.add(w)
            if w > worst:
                worst = w
            if done:
                break
        spent += _diff(_us(), t0)
        total += search.nodes
    print("engine_nps %d nodes/s  # %d middlegame nodes in %d ms, a position a run() call" % (total * 1000000 // spent, total, spent // 1000))
    # The same searches in calls of 50 positions: what a slice costs getting in and out of run().
    batch = 0
    spent_batch = 0
    for fen in POSITIONS:
        search.start(Position(fen), max_nodes=nodes_each)
        t0 = _us()
        while not search.run(50):
            pass
        spent_batch += _diff(_us(), t0)
        batch += search.nodes
    print("engine_nps_batch %d nodes/s  # %d nodes, 50 positions a run() call" % (batch * 1000000 // spent_batch, batch))
    print("engine_slice_median %d us  # one run(1): a node and the moves tried up to the next" % slices.median())
    print("engine_slice_max %d us  # the longest of %d; %d over 5 ms" % (worst, slices.n, slices.over(5000)))
    print("engine_ram %d bytes  # the search's arrays and tables (footprint %d)" % (ram, search.footprint()))


class _Switches:
    """The reed switches as a bytearray the bench sets by hand (App only calls scan())."""

    def __init__(self):
        self.occ = bytearray(64)
        for sq in range(64):
            self.occ[sq] = 1 if sq < 16 or sq >= 48 else 0

    def scan(self):
        return self.occ


class _NoLeds:
    def show(self, frame, now):
        pass


def steps_while_thinking(steps):
    """A board (App, switches set by hand) playing the engine: scan-step times idle and thinking.
    The LED write (1.9 ms for 64 WS2812B) and the matrix's settle waits are not in these times."""
    import config
    from app import App

    settings = config.Settings().updated({"opponent": "black", "level": 8})
    switches = _Switches()
    app = App(settings, switches, _NoLeds(), None, None, _us)
    app.start(0)
    clock = [0]

    def run(n):
        times = _Histogram()
        worst = 0
        for _ in range(n):
            clock[0] += settings.scan_period_ms
            t = _us()
            app.step(clock[0])
            w = _diff(_us(), t)
            times.add(w)
            worst = max(worst, w)
        return times, worst

    idle, idle_max = run(steps)
    switches.occ[12] = 0  # e2 up ...
    run(40)
    switches.occ[28] = 1  # ... and down on e4
    run(60)  # the move commits; the engine starts
    thinking, thinking_max = run(steps)
    nodes = app.opponent.search.nodes
    if hasattr(gc, "mem_free"):
        gc.collect()
        print("ram_free_thinking %d bytes  # the whole board (App) with its engine thinking" % gc.mem_free())
    period = settings.scan_period_ms * 1000
    print("step_idle %d us median, %d us max  # %d scan steps, no engine" % (idle.median(), idle_max, steps))
    print(
        "step_thinking %d us median, %d us max  # %d steps while the engine thinks (%d nodes); %d over the %d us scan period"
        % (thinking.median(), thinking_max, steps, nodes, thinking.over(period), period)
    )
    print("thinking_nps %d nodes/s  # the engine inside the scan loop, a slice of half a scan period a step" % (nodes * 1000000 // (steps * period)))


if __name__ == "__main__" or sys.implementation.name == "micropython":
    nodes = 400 if sys.implementation.name == "micropython" and sys.platform == "rp2" else 3000
    search_speed(nodes)
    steps_while_thinking(200 if sys.platform == "rp2" else 400)
