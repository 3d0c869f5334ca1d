"""Benchmarks of the rules core and the referee, runnable on CPython and on MicroPython.

    python3 tools/bench/bench_core.py          .venv/bin/micropython -X heapsize=320k tools/bench/bench_core.py

Prints one `key value unit  # note` line per figure; tools/bench/bench.py runs it on both runtimes and
puts the figures side by side. Timing only: nothing here asserts a speed (tests never do).
"""
import gc
import sys


def _setup_path():
    here = sys.argv[0].rsplit("/", 1)[0] if "/" in sys.argv[0] else "."
    sys.path.insert(0, here + "/../../firmware")
    if sys.implementation.name != "micropython":
        sys.path.insert(0, here + "/../shims")


_setup_path()

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from ticks import ticks_diff, ticks_us  # tools/shims/ticks.py

from core import position  # noqa: E402
from core.display import Display  # noqa: E402
from core.game import Game  # noqa: E402
from core.position import SQUARES88, WHITE, Position, move_from, parse_square  # noqa: E402
from core.referee import Referee  # noqa: E402

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
# A busy middlegame (Queen's Gambit Declined, move 9): every piece still on, many moves each.
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1QBPPP/R3KB1R w KQ - 4 9"
MIDDLEGAMES = (MIDDLEGAME, KIWIPETE, "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10")


def emit(key, value, unit, note=""):
    print("%s %s %s%s" % (key, value, unit, ("  # " + note) if note else ""))


def seconds(t0):
    return ticks_diff(ticks_us(), t0) / 1000000


_x = 0
_i = 0


def bench_loop():
    """A plain loop with a small-int add, typed at the REPL (module-level names, as the published
    figure of a real RP2040 was measured: docs/figures.md, "The emulated Pico against a real one"):
    the yardstick for the Pico estimates."""
    global _x, _i
    n = 20000
    t0 = ticks_us()
    _x = 0
    for _i in range(n):
        _x += _i
    emit("loop_iteration", "%.3f" % (seconds(t0) / n * 1e6), "us", "plain for loop at module level, small-int add")


def bench_perft(quick):
    p = Position(KIWIPETE)
    depth = 2 if quick else 3
    t0 = ticks_us()
    n = p.perft(depth)
    dt = seconds(t0)
    emit("perft_make_unmake", "%d" % (n / dt), "nodes/s", "Kiwipete depth %d, make/unmake at every leaf (%d nodes)" % (depth, n))
    t0 = ticks_us()
    n = p.perft_bulk(depth)
    dt = seconds(t0)
    emit("perft_bulk", "%d" % (n / dt), "nodes/s", "Kiwipete depth %d, leaves counted, not made" % depth)


def bench_queries(repeat):
    full_total = 0.0
    one_total = 0.0
    one_worst = 0.0
    one_count = 0
    full_count = 0
    out = []
    for fen in MIDDLEGAMES:
        p = Position(fen)
        t0 = ticks_us()
        for _ in range(repeat):
            while out:
                out.pop()
            p.generate_legal(out)
        full_total += seconds(t0) / repeat
        full_count += 1
        for sq in range(64):
            piece = p.piece_at(sq)
            if not piece or piece & 8 != p.side:
                continue
            t0 = ticks_us()
            for _ in range(repeat):
                while out:
                    out.pop()
                p.legal_moves_from(sq, out)
            dt = seconds(t0) / repeat
            one_total += dt
            one_count += 1
            if dt > one_worst:
                one_worst = dt
    full = full_total / full_count * 1e6
    one = one_total / one_count * 1e6
    emit("legal_moves_full", "%.1f" % full, "us", "full legal-move list, busy middlegames")
    emit("legal_moves_one_square", "%.1f" % one, "us", "destinations of one lifted piece, average over own pieces")
    emit("legal_moves_one_square_worst", "%.1f" % (one_worst * 1e6), "us", "the most expensive piece (a king or queen)")
    emit("one_square_cheaper_by", "%.1f" % (full / one), "x", "full list time / one-square query time")


def bench_status():
    g = Game(MIDDLEGAME)
    moves = ["a2a3", "a7a6", "h2h3", "h7h6"]
    t0 = ticks_us()
    n = 0
    for _ in range(5):
        for uci in moves:
            g.push(g.position.parse_uci(uci))
            n += 1
        while g.moves:
            g.pop()
    # push() and pop() both refresh the status; count only pushes' share as half of the time.
    dt = seconds(t0) / (2 * n) * 1e6
    emit("status_update", "%.1f" % dt, "us", "Game.push: legal moves, check, mate/stalemate, material, repetition, claims")


def bench_allocation():
    if not hasattr(gc, "mem_alloc"):
        emit("alloc_move_generation", "n/a", "bytes", "no gc.mem_alloc on this runtime")
        return
    p = Position(MIDDLEGAME)
    out = []
    p.generate_legal(out)
    while out:
        out.pop()
    gc.collect()
    a = gc.mem_alloc()
    p.generate_legal(out)
    emit("alloc_move_generation", gc.mem_alloc() - a, "bytes", "one full legal-move list (%d moves, into a reused list)" % len(out))
    while out:
        out.pop()
    gc.collect()
    a = gc.mem_alloc()
    p.legal_moves_from(parse_square("f3"), out)
    emit("alloc_one_square", gc.mem_alloc() - a, "bytes", "one-square query")
    gc.collect()
    a = gc.mem_alloc()
    for sq in SQUARES88:
        p.attacked(sq, WHITE)
    emit("alloc_attack_test", gc.mem_alloc() - a, "bytes", "64 attack tests")
    gc.collect()
    a = gc.mem_alloc()
    g = Game()
    seed = 7
    while len(g.moves) < 300:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        legal = g.legal
        if g.position.halfmove > 60:
            zeroing = [m for m in legal if g.position.piece_at(move_from(m)) & 7 == 1]
            legal = zeroing or legal
        g.push(legal[seed % len(legal)])
        if g.is_over():
            g.pop()
            seed += 1
    gc.collect()
    emit("history_300_plies", gc.mem_alloc() - a, "bytes", "a new Game and 300 plies of history (16 bytes a ply)")


def bench_referee(repeat):
    """Cost of the referee's work per event: a lift (to the new LED frame) and the last place of a
    move (to the commit and the new frame), in a busy middlegame."""
    ref = Referee(Game(MIDDLEGAME))
    display = Display()
    f3 = parse_square("f3")
    e5 = parse_square("e5")
    t_lift = 0.0
    t_commit = 0.0
    now = 1000
    for _ in range(repeat):
        now += 1000
        t0 = ticks_us()
        ref.lift(f3, now)
        display.render(ref)
        t_lift += seconds(t0)
        now += 300
        t0 = ticks_us()
        ref.place(e5, now)
        ref.tick(now + ref.commit_ms)
        display.render(ref)
        t_commit += seconds(t0)
        assert ref.out[-1][0] == "move"
        # take it back on the board (casual rules are not needed: the position is reset)
        ref.game.pop()
        ref.load_game(ref.game, now)
        ref.lift(e5, now + 1)
        ref.place(f3, now + 2)
        ref.tick(now + 500)
        while ref.out:
            ref.out.pop()
    emit("referee_lift_to_frame", "%.1f" % (t_lift / repeat * 1e6), "us", "lift -> destinations on the LED frame")
    emit("referee_place_to_commit", "%.1f" % (t_commit / repeat * 1e6), "us", "last place -> committed move, status, new frame")


def bench_power_up(repeat):
    """What resuming the saved game costs the referee at power-up (docs/power-up.md), in a busy
    middlegame: with the pieces as the game has them (the usual power-up), and one quiet move
    ahead of it (the board reads the move: the legal moves and the check of the moved pieces')."""
    saved = Game(MIDDLEGAME)
    same = bytearray(64)
    saved.position.occupancy_into(same)
    ahead = bytearray(same)
    ahead[parse_square("f3")] = 0
    ahead[parse_square("e5")] = 1  # Nf3-e5
    ref = Referee(Game(MIDDLEGAME))
    ref.start(ahead, 0)
    ref.resume_game(Game(MIDDLEGAME), 0)  # loads core/resume.py once: the import is not timed
    t_same = 0.0
    t_ahead = 0.0
    for _ in range(repeat):
        for occ, ahead_now in ((same, False), (ahead, True)):
            game = Game(MIDDLEGAME)  # a game fresh from the flash: its legal moves not made yet
            ref = Referee(Game(MIDDLEGAME))
            ref.start(occ, 0)
            t0 = ticks_us()
            ref.resume_game(game, 0)
            t = seconds(t0)
            if ahead_now:
                assert ref.pending and ref.reading, "the move was not read"
                t_ahead += t
            else:
                assert ref.reading is None
                t_same += t
    emit("power_up_resume", "%.1f" % (t_same / repeat * 1e6), "us", "the saved game onto a board that matches it")
    emit("power_up_read_move", "%.1f" % (t_ahead / repeat * 1e6), "us", "the same, the pieces one move ahead: the move found")


def bench_dead(repeat):
    """Who can still mate and dead positions (firmware/core/dead.py): what the game asks after a move
    that locks the pawns (material and the pawn wall), on issue 29's wall and on a fortress with
    pieces in it (the slowest of D3-Chess's test positions); and what a flag fall asks (the search's
    16 positions too), in a fortress the wall does not settle and in a busy middlegame."""
    from core.dead import can_mate, is_dead

    wall = Position("4k3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1")
    pieces = Position("4k3/8/8/1p4p1/1P1p1pP1/BP1P1P2/BP1P4/R1B2K2 w - - 0 1")
    open_wall = Position("3Bk3/8/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/4K3 w - - 0 1")  # white's bishop gets through
    middlegame = Position(MIDDLEGAME)
    note = ", median of %d" % repeat
    emit("dead_after_move", _median_us(repeat, lambda: is_dead(wall)), "us",
         "the pawn wall after the move that locks it (issue 29's position)" + note)
    emit("dead_after_move_pieces", _median_us(repeat, lambda: is_dead(pieces)), "us",
         "the same with bishops and a rook in the fortress" + note)
    emit("dead_flag_decision", _median_us(repeat, lambda: can_mate(open_wall, WHITE)), "us",
         "a flag fall: can white mate? (the wall proves nothing, 16 positions searched)" + note)
    emit("dead_flag_decision_middlegame", _median_us(repeat, lambda: can_mate(middlegame, WHITE)), "us",
         "a flag fall in a busy middlegame (16 positions searched)" + note)


def _median_us(repeat, run):
    """The median time of run() in us, as text; the first call (an import) and collections untimed."""
    run()
    times = []
    for _ in range(repeat):
        gc.collect()  # each call allocates move lists and small arrays: no collection inside it
        t0 = ticks_us()
        run()
        times.append(seconds(t0))
    times.sort()
    return "%.1f" % (times[len(times) // 2] * 1e6)


class _Row:
    """A row pin that costs what a real Pin.value() call costs in Python (one method call); the
    electrical fake in hardware/fake.py models far more and would time itself, not the scanner."""

    def value(self, v=None):
        return 1


class _Mem32:
    def __getitem__(self, address):
        return 0x3FC  # GPIO 2-9 high except... a few columns low: pieces on some squares


def bench_scan(repeat):
    from hardware.matrix import MatrixScanner

    scanner = MatrixScanner([_Row() for _ in range(8)], mem32=_Mem32(), gpio_in_addr=0xD0000004, column_base=2, sleep_us=None, settle_us=0)
    scanner.scan()
    t0 = ticks_us()
    for _ in range(repeat):
        scanner.scan()
    emit("matrix_scan", "%.1f" % (seconds(t0) / repeat * 1e6), "us", "one full 64-square scan, the scanner's own code (add 8 x settle_us = 80 us on the Pico)")
    if hasattr(gc, "mem_alloc"):
        gc.collect()
        a = gc.mem_alloc()
        for _ in range(100):
            scanner.scan()
        emit("alloc_per_scan", gc.mem_alloc() - a, "bytes", "100 scans")


class _StillBoard:
    """The real scanner's work on the pin stand-ins, reporting the start position: the main loop's
    idle cost without the electrical fake's own (bench_board.py measures with the full fakes)."""

    def __init__(self):
        from hardware.matrix import MatrixScanner

        self.scanner = MatrixScanner([_Row() for _ in range(8)], mem32=_Mem32(), gpio_in_addr=0xD0000004, column_base=2, sleep_us=None, settle_us=0)
        self.start = bytearray(64)
        for i in range(16):
            self.start[i] = 1
            self.start[63 - i] = 1

    def scan(self):
        self.scanner.scan()
        return self.start


def bench_idle_step(repeat):
    import config
    from app import App
    from hardware.ws2812 import Ws2812Leds

    try:
        from hardware.fake import FakeNeoPixel
    except ImportError:  # on the Pico: make flash leaves the fakes out (bench_pico.py times the real board)
        emit("main_loop_idle_step", "n/a", "us", "no hardware/fake.py on the Pico: see idle_tick_real_board")
        return

    app = App(config.Settings(), _StillBoard(), Ws2812Leds(FakeNeoPixel()), None)
    app.start(0)
    now = 0
    for _ in range(50):
        now += 5
        app.step(now)
    t0 = ticks_us()
    for _ in range(repeat):
        now += 5
        app.step(now)
    emit("main_loop_idle_step", "%.1f" % (seconds(t0) / repeat * 1e6), "us", "App.step with nothing moving: scan, debounce, referee tick, LEDs (WS2812B driver)")

    # The same with the clock running (docs/clock.md): the referee's tick asks the clock whether a
    # flag fell, one comparison; and what that step allocates (nothing, on MicroPython).
    app = None
    gc.collect()  # the first board's heap back before core/clock.py compiles (MicroPython, 200 kB)
    app = App(config.Settings().updated({"clock": "5+3"}), _StillBoard(), Ws2812Leds(FakeNeoPixel()), None)
    app.start(0)
    app.referee.clock.start(0)
    now = 0
    for _ in range(50):
        now += 5
        app.step(now)
    gc.collect()
    alloc = gc.mem_alloc() if hasattr(gc, "mem_alloc") else None
    t0 = ticks_us()
    for _ in range(repeat):
        now += 5
        app.step(now)
    t = seconds(t0)
    grew = gc.mem_alloc() - alloc if alloc is not None else None
    emit("main_loop_idle_step_clock", "%.1f" % (t / repeat * 1e6), "us", "the same with the clock running (5+3)")
    if grew is not None:
        emit("main_loop_idle_step_clock_alloc", "%d" % grew, "bytes", "heap growth over %d such steps" % repeat)


def main():
    quick = "--quick" in sys.argv
    mp = sys.implementation.name == "micropython"
    emit("runtime", sys.implementation.name, "", ".".join(str(v) for v in sys.implementation.version[:3]))
    # The Pico picks the rules core's viper code at import; the unix port compiles it too when
    # asked, so its column times the same code (CPython and WebAssembly have only the plain path).
    native = position.use_native(True)
    emit("rules_core_code", "viper" if native else "python", "", "make/unmake, attack test, legal moves: core/position_%s.py" % ("native" if native else "plain"))
    bench_loop()
    bench_perft(quick)
    bench_queries(3 if mp else 30)
    bench_status()
    bench_allocation()
    bench_referee(5 if mp else 50)
    bench_scan(200 if mp else 2000)
    bench_idle_step(200 if mp else 2000)
    bench_power_up(5 if mp else 50)
    bench_dead(20 if mp else 50)


main()
