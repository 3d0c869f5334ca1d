"""The test rig of the companion: the simulated board on a pseudo-terminal, scripted hands
playing on it, and the companion (tools/play.py) as a user runs it, each a process of its own.

SimBoard runs `tools/sim_terminal.py --serial LINK` and types simulator commands into it (the
hands); Companion runs `tools/play.py ...` and reads what it prints. hand_commands turns a
chess.Move into what a person does on the board: captures victim first, castling king first,
en passant with the victim lifted last.
"""
import os
import queue
import re
import subprocess
import sys
import threading
import time

import chess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = sys.executable
STOCKFISH = "/usr/games/stockfish"
# What the companion prints when the engine's move is lit: the move's UCI is group 1.
PLAYS = r"plays \S+ \((\w+)\): make it on the board"


def needs_stockfish():
    """The mark for a module of games against Stockfish: skipped, saying why, where Debian's is
    not installed (never under CI, where .ci/run installs it)."""
    import pytest

    return pytest.mark.skipif(not os.path.exists(STOCKFISH) and not os.environ.get("CI"),
                              reason="Stockfish not installed (apt-get install stockfish; .ci/run does it)")


def engine_games(tmp_path):
    """The body of a `rig` fixture: yields start(*companion_args, sim_args=()) -> (sim, comp), a
    simulated board and `play.py engine` on it, and stops them all (printing their output) after."""
    parts = []

    def start(*companion_args, sim_args=()):
        link = str(tmp_path / "board")
        sim = SimBoard(link, *sim_args)
        parts.append(sim)
        comp = Companion("engine", "--port", link, "--pgn", str(tmp_path / "games.pgn"), "--trace", *companion_args)
        parts.append(comp)
        return sim, comp

    yield start
    for p in reversed(parts):
        p.stop()
    print(dump(*parts))


class Process:
    """A child process whose output lines are read on a thread."""

    def __init__(self, argv, name, env=None):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1, cwd=ROOT, env=env)
        self.lines = []
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self.lines.append(line)
            self.q.put(line)
        self.q.put(None)

    def send(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def expect(self, pattern, timeout=15):
        """The first new line matching pattern (a regex): its match object."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError("%s: no line matching %r in %gs; it printed:\n%s"
                                     % (self.name, pattern, timeout, "\n".join(self.lines[-40:])))
            try:
                line = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError("%s ended before %r; it printed:\n%s" % (self.name, pattern, "\n".join(self.lines[-40:])))
            m = rx.search(line)
            if m:
                return m

    def text(self):
        return "\n".join(self.lines)

    def stop(self):
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                self.proc.kill()
                self.proc.wait()


class SimBoard(Process):
    def __init__(self, link, *args):
        super().__init__([PYTHON, "tools/sim_terminal.py", "-q", "--serial", link] + list(args), "sim")
        self.expect("usb: board on")

    def play(self, board, move):
        """Make `move` (legal in python-chess `board`, not pushed) with a person's hands."""
        self.send(hand_commands(board, move))


class Companion(Process):
    def __init__(self, *args, env=None):
        super().__init__([PYTHON, "tools/play.py"] + list(args), "companion", env=env)


def hand_commands(board, move):
    a, b = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if board.is_castling(move):
        rank = b[1]
        rook = ("h" + rank, "f" + rank) if b[0] == "g" else ("a" + rank, "d" + rank)
        return "move %s %s; move %s %s" % (a, b, rook[0], rook[1])
    if board.is_en_passant(move):
        victim = chess.square_name(chess.square(chess.square_file(move.to_square), chess.square_rank(move.from_square)))
        return "move %s %s; lift %s" % (a, b, victim)
    if board.piece_at(move.to_square):
        return "lift %s; move %s %s" % (b, a, b)
    return "move %s %s" % (a, b)


def read_pgn(path):
    import chess.pgn

    games = []
    with open(path) as f:
        while True:
            g = chess.pgn.read_game(f)
            if g is None:
                return games
            games.append(g)


def dump(*procs):
    """Everything the processes printed, for a failing test's report."""
    return "\n".join("---- %s\n%s" % (p.name, p.text()) for p in procs)
