"""`make bench-broadcast`: a club's boards playing blitz into one Lichess broadcast round, measured
(issue 31, "Scale, measured"; docs/broadcast.md, the figures in docs/figures.md).

The round is the project's fake of Lichess's push API (host_tests/helpers/fake_broadcast.py) over
real TLS on this machine, on CPython, keeping lila's limits: one request at a time per token, a
full minute after a 429, 100 games a push, 32 pushes waiting on a round and 10 s each. The boards
are the firmware on the MicroPython unix port, several to a process (tools/bench/broadcast_boards.py),
each with its own token, tags and clock, playing a legal game python-chess chose here from a seed.

What it checks from the fake afterwards: every ply of every board on the round, in order, each
with the [%clk] the board's clock gave it (a push the round's queue refused comes again: the ply
arrives all the same); no request inside the minute after a 429; no push taking moves off the round.
What it measures: move -> round (the referee's commit to the fake's arrival, both on this
machine's monotonic clock: MicroPython's ticks_ms is CLOCK_MONOTONIC in ms, kept to 30 bits),
median and worst; requests a minute, the round's and a board's; the round's queue (deepest,
refused) and how long the fake held the round per push; how late each process's scan loop came
round to its boards.

    .venv/bin/python tools/bench/broadcast_scale.py [--boards 100] [--per-process 25] [--plies 30]
        [--clock 3+2] [--think 1000-3000] [--step-ms 20] [--seed 31]
"""
import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import chess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELPERS = os.path.join(ROOT, "host_tests", "helpers")
if HELPERS not in sys.path:
    sys.path.insert(0, HELPERS)

import tls_certs  # noqa: E402
from fake_broadcast import FakeBroadcast  # noqa: E402

MICROPYTHON = os.environ.get("MICROPYTHON") or os.path.join(ROOT, ".venv", "bin", "micropython")
WORKER = os.path.join("tools", "bench", "broadcast_boards.py")
ROUND = "Club0031"
EVENT = "Club blitz"
TICKS_MASK = (1 << 30) - 1  # MicroPython's ticks_ms period on the unix port


def random_game(rng, plies):
    """UCI moves of a legal game of `plies` plies that neither ends early nor promotes (the hands
    here have no promotion taps), and the squares the hands touch for each."""
    while True:
        board = chess.Board()
        moves, touches = [], []
        for _ in range(plies):
            legal = [m for m in board.legal_moves if m.promotion is None]
            if not legal:
                break
            move = rng.choice(legal)
            touches.append(hand_touches(board, move))
            moves.append(move.uci())
            board.push(move)
            if board.is_game_over(claim_draw=False):
                break
        if len(moves) == plies and not board.is_game_over():
            return moves, touches


def hand_touches(board, move):
    """The squares a player's hand touches, in order: each one lifts the piece standing there or
    places one on it (the mover first, a captured piece off before the mover lands)."""
    name = chess.square_name
    if board.is_castling(move):
        rook_from, rook_to = {chess.G1: ("h1", "f1"), chess.C1: ("a1", "d1"),
                              chess.G8: ("h8", "f8"), chess.C8: ("a8", "d8")}[move.to_square]
        return [name(move.from_square), name(move.to_square), rook_from, rook_to]
    if board.is_en_passant(move):
        victim = chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square))
        return [name(move.from_square), name(victim), name(move.to_square)]
    if board.piece_at(move.to_square):
        return [name(move.from_square), name(move.to_square), name(move.to_square)]
    return [name(move.from_square), name(move.to_square)]


def token(board):
    return "lip_club_board_%03d_token" % board


def make_plan(n_boards, plies, think_ms, seed):
    """Every board's spec: its number, players, token, game and the pause before each move."""
    rng = random.Random(seed)
    specs = []
    for board in range(1, n_boards + 1):
        moves, touches = random_game(rng, plies)
        after = [rng.randint(0, 2000)] + [rng.randint(*think_ms) for _ in moves[1:]]
        specs.append({"board": board, "white": "White Player %d" % board, "black": "Black Player %d" % board,
                      "token": token(board), "moves": moves, "touches": touches, "after_ms": after})
    return specs


class Worker:
    """One unix-port process with its boards; its output read on a thread."""

    def __init__(self, plan_path, heap):
        self.proc = subprocess.Popen([MICROPYTHON, "-X", "heapsize=" + heap, WORKER, plan_path], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def said(self, word):
        return any(line == word for line in self.lines)

    def ended(self):
        return self.proc.poll() is not None


def ms_between(arrived_monotonic, committed_ticks):
    """ms from a board's commit (ticks_ms) to the fake's arrival (time.monotonic()), on the one clock."""
    d = (int(arrived_monotonic * 1000) - committed_ticks) & TICKS_MASK
    return d - (TICKS_MASK + 1) if d > TICKS_MASK // 2 else d


def parse_report(lines):
    boards, loops = {}, []
    for line in lines:
        w = line.split()
        if w[:1] == ["board"]:
            ints = lambda text: [] if text == "-" else [int(x) for x in text.split(",")]  # noqa: E731
            boards[int(w[1])] = {"moves": [] if w[3] == "-" else w[3].split(","), "commits": ints(w[5]),
                                 "clocks": ints(w[7]), "pushes": int(w[9]), "waited": int(w[11])}
        elif w[:1] == ["loop"]:
            loops.append(dict(zip(w[1::2], (int(x) for x in w[2::2]))))
    return boards, loops


def run(n_boards=100, per_process=25, plies=30, clock="3+2", think_ms=(1000, 3000), step_ms=20, seed=31,
        work_s=0.0, heap="64m", limit_s=1800, say=print):
    """Plays the round; returns (problems, figures): problems is a list of sentences, empty when every
    ply arrived in order with its clock and nothing broke a limit."""
    began = time.monotonic()
    cpu_before = cpu_seconds()
    tmp = tempfile.mkdtemp(prefix="broadcast-scale-")
    certs = tls_certs.make(__import__("pathlib").Path(tmp) / "tls")
    specs = make_plan(n_boards, plies, think_ms, seed)
    server = FakeBroadcast({s["token"]: {"study:write"} for s in specs}, (certs["server.pem"], certs["server.key"]),
                           work_s=work_s).start()
    server.add_round(ROUND)
    go = os.path.join(tmp, "go")
    workers = []
    try:
        for i in range(0, n_boards, per_process):
            plan = {"host": "localhost", "port": server.port, "ca": str(certs["ca.pem"]), "round": ROUND,
                    "event": EVENT, "clock": clock, "step_ms": step_ms, "ready_ms": 60000 + 2000 * per_process,
                    "go": go, "boards": specs[i:i + per_process]}
            path = os.path.join(tmp, "plan%d.json" % len(workers))
            with open(path, "w") as f:
                json.dump(plan, f)
            workers.append(Worker(path, heap))
        end = time.monotonic() + limit_s
        while not all(w.said("ready") or w.ended() for w in workers):
            assert time.monotonic() < end, "the boards never all came online"
            time.sleep(0.2)
        problems = ["a process stopped before its boards were online:\n" + "\n".join(w.lines[-20:])
                    for w in workers if not w.said("ready")]
        if problems:
            return problems, {}
        say("broadcast_scale: %d boards online in %d processes; playing" % (n_boards, len(workers)))
        requests_before = len(server.requests)
        started = time.monotonic()
        open(go, "w").close()
        while not all(w.ended() for w in workers):
            if time.monotonic() > end:
                return ["timed out: the boards did not finish in %d s" % limit_s], {}
            time.sleep(0.5)
        finished = time.monotonic()
        for w in workers:
            w.proc.wait()  # reaped: their CPU time counts among the children's
        cpu = [after - before for after, before in zip(cpu_seconds(), cpu_before)]
        lines = [line for w in workers for line in w.lines]
        problems = ["process %d ended with status %d:\n%s" % (i, w.proc.returncode, "\n".join(w.lines[-20:]))
                    for i, w in enumerate(workers) if w.proc.returncode != 0 or not w.said("end")]
        boards, loops = parse_report(lines)
        problems += check(server, specs, boards)
        if problems:  # what the boards that missed a move said last
            problems += [line for line in lines if line.startswith("said")]
        figs = figures(server, specs, boards, loops, requests_before, started, finished)
        # Of the PC's cores, over the whole run (start-up included): the fake with this harness, and
        # the boards' processes.
        figs["cores_fake"] = round(cpu[0] / (finished - began), 2)
        figs["cores_boards"] = round(cpu[1] / (finished - began), 2)
        return problems, figs
    finally:
        for w in workers:
            if not w.ended():
                w.proc.kill()
                w.proc.wait()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def cpu_seconds():
    """(this process's CPU seconds, its reaped children's), user and system."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def check(server, specs, boards):
    """Every ply on the round, in order, with its clock; no limit broken."""
    problems = []
    for s in specs:
        n = s["board"]
        b = boards.get(n)
        game = server.game(ROUND, White=s["white"], Board=str(n))
        if b is None or game is None:
            problems.append("board %d: %s" % (n, "no report" if b is None else "no game on the round"))
            continue
        if b["moves"] != s["moves"]:
            problems.append("board %d read %s, the hands played %s" % (n, b["moves"], s["moves"]))
            continue
        board = chess.Board()
        sans = []
        for uci in s["moves"]:
            move = chess.Move.from_uci(uci)
            sans.append(board.san(move))
            board.push(move)
        if game.moves != sans:
            problems.append("board %d: the round has %s, the board played %s" % (n, game.moves, sans))
        want = [(ms + 999) // 1000 for ms in b["clocks"]]
        if game.clocks != want:
            problems.append("board %d: clocks on the round %s, the board's %s" % (n, game.clocks, want))
        if any(a > b for a, b in zip(game.arrived, game.arrived[1:])):
            problems.append("board %d: plies arrived out of order" % n)
        if len(b["commits"]) != len(s["moves"]):
            problems.append("board %d: %d commits for %d moves" % (n, len(b["commits"]), len(s["moves"])))
    if server.violations:
        problems.append("requests inside the minute after a 429: %s" % server.violations[:5])
    if server.rewound:
        problems.append("%d pushes took moves off the round" % server.rewound)
    return problems


def figures(server, specs, boards, loops, requests_before, started, finished):
    latencies = []
    for s in specs:
        game = server.game(ROUND, White=s["white"], Board=str(s["board"]))
        b = boards.get(s["board"])
        if game is None or b is None:
            continue
        latencies.extend(ms_between(a, c) for a, c in zip(game.arrived, b["commits"]))
    played = server.requests[requests_before:]
    minutes = max(finished - started, 1e-3) / 60
    statuses = {}
    for r in played:
        statuses[r[1]] = statuses.get(r[1], 0) + 1
    latencies.sort()
    queue = server.queue(ROUND)
    plies = sum(len(s["moves"]) for s in specs)
    return {
        "boards": len(specs),
        "processes": len(loops),
        "plies": plies,
        "minutes": round(minutes, 2),
        "latency_median_ms": round(statistics.median(latencies)) if latencies else None,
        "latency_p95_ms": latencies[int(len(latencies) * 0.95)] if latencies else None,
        "latency_worst_ms": latencies[-1] if latencies else None,
        "requests": len(played),
        "requests_per_minute": round(len(played) / minutes),
        "requests_per_board_minute": round(len(played) / minutes / len(specs), 1),
        "pushes_per_ply": round(len(played) / plies, 2) if plies else None,
        "statuses": statuses,
        "violations": len(server.violations),
        "queue_deepest": queue.deepest,
        "queue_refused": queue.refused,  # answered 500 as lila does; the boards push again (figures above)
        "queue_timed_out": queue.timed_out,
        "round_work_ms_median": round(statistics.median(queue.worked) * 1000, 1) if queue.worked else None,
        "round_work_ms_worst": round(max(queue.worked) * 1000, 1) if queue.worked else None,
        "touches_held_for_the_scan": sum(b["waited"] for b in boards.values()),
        "loop_gap_worst_ms": max((l["gap_worst"] for l in loops), default=None),
        "board_step_us_median": max((l["step_us_median"] for l in loops), default=None),
        "board_step_us_worst": max((l["step_us_worst"] for l in loops), default=None),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--per-process", type=int, default=25)
    ap.add_argument("--plies", type=int, default=30)
    ap.add_argument("--clock", default="3+2")
    ap.add_argument("--think", default="1000-3000", help="ms before each move, from-to")
    ap.add_argument("--step-ms", type=int, default=20)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--work-ms", type=int, default=0, help="each push's work in the fake (lila's sync)")
    a = ap.parse_args()
    think = tuple(int(x) for x in a.think.split("-"))
    t0 = time.monotonic()
    problems, figs = run(a.boards, a.per_process, a.plies, a.clock, think, a.step_ms, a.seed, a.work_ms / 1000)
    for key, value in figs.items():
        print("%s %s" % (key, value))
    print("wall_s %d" % (time.monotonic() - t0))
    for p in problems:
        print("PROBLEM: " + p)
    if problems:
        raise SystemExit(1)
    print("broadcast_scale: every ply of every board on the round, in order, with its clock; no 429 ignored")


if __name__ == "__main__":
    main()
