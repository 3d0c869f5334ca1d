"""The board's engine (firmware/engine/) as a UCI engine on CPython, for chess GUIs and matches.

    python3 tools/uci.py

It speaks UCI on standard input and output: uci, isready, ucinewgame, position startpos|fen ...
[moves ...], go [movetime|wtime btime winc binc movestogo|depth|nodes|infinite], stop, quit,
setoption. The search is the firmware's own code, unchanged; it runs in slices on a thread so that
`stop` is heard at once.

Options:
  Nodes     (0 = no limit) at most this many positions a move, whatever the clock says.
  ChipNPS   (0 = off) play as the board does: every time limit becomes a node limit of
            ChipNPS x seconds, the positions the Pico searches in that time (make bench measures
            its nodes per second), so a match on a PC gives the strength of the board.
"""
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _path in (os.path.join(ROOT, "tools", "shims"), os.path.join(ROOT, "firmware")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from core.position import FenError, Position, STARTING_FEN, move_uci  # noqa: E402
from engine.search import MATE, MATE_BOUND, Search  # noqa: E402

NAME = "chessboard-engine"


def _ms():
    return int(time.monotonic() * 1000)


def score_text(score):
    """UCI score: centipawns, or mate in moves (negative when the engine is being mated)."""
    if score > MATE_BOUND:
        return "mate %d" % ((MATE - score + 1) // 2)
    if score < -MATE_BOUND:
        return "mate -%d" % ((MATE + score) // 2)
    return "cp %d" % score


def time_for_move(params, white):
    """Milliseconds to spend, from go's parameters (0: no time limit)."""
    if "movetime" in params:
        return max(1, params["movetime"])
    left = params.get("wtime" if white else "btime")
    if left is None:
        return 0
    inc = params.get("winc" if white else "binc", 0)
    togo = params.get("movestogo", 30)
    budget = left // max(1, min(togo, 40)) + inc * 3 // 4
    return max(1, min(budget, left // 2))


class Engine:
    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.search = Search()
        self.position = Position()
        self.options = {"nodes": 0, "chipnps": 0}
        self._thread = None
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def send(self, line):
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ commands

    def handle(self, line):
        """One line from the GUI; returns False on quit."""
        words = line.split()
        if not words:
            return True
        cmd = words[0]
        if cmd == "uci":
            self.send("id name %s" % NAME)
            self.send("id author the chessboard project")
            self.send("option name Nodes type spin default 0 min 0 max 1000000000")
            self.send("option name ChipNPS type spin default 0 min 0 max 1000000")
            self.send("uciok")
        elif cmd == "isready":
            self.send("readyok")  # at once, even while searching (the UCI protocol asks so)
        elif cmd == "ucinewgame":
            self.wait(stop=True)
            self.search.clear()
            self.position = Position()
        elif cmd == "setoption":
            self._setoption(words[1:])
        elif cmd == "position":
            self.wait(stop=True)
            self._position(words[1:])
        elif cmd == "go":
            self.wait(stop=True)
            self._go(words[1:])
        elif cmd == "stop":
            self.wait(stop=True)
        elif cmd == "quit":
            self.wait(stop=True)
            return False
        else:
            self.send("info string unknown command: %s" % line.strip()[:80])
        return True

    def _setoption(self, words):
        # setoption name <id> [value <x>]
        try:
            name = " ".join(words[1 : words.index("value")]) if "value" in words else " ".join(words[1:])
            value = words[words.index("value") + 1] if "value" in words else ""
            key = name.lower()
            if key in self.options:
                self.options[key] = max(0, int(value))
            else:
                self.send("info string unknown option: %s" % name)
        except (ValueError, IndexError):
            self.send("info string bad setoption: %s" % " ".join(words))

    def _position(self, words):
        if not words:
            self.send("info string position needs startpos or fen")
            return
        if words[0] == "startpos":
            fen = STARTING_FEN
            rest = words[1:]
        elif words[0] == "fen":
            end = words.index("moves") if "moves" in words else len(words)
            fen = " ".join(words[1:end])
            rest = words[end:]
        else:
            self.send("info string position needs startpos or fen, got %s" % words[0])
            return
        try:
            pos = Position(fen)
        except FenError as e:
            self.send("info string bad FEN: %s" % e)
            return
        if rest and rest[0] == "moves":
            for text in rest[1:]:
                try:
                    pos.make(pos.parse_uci(text))
                except ValueError as e:
                    self.send("info string %s" % e)
                    break
        self.position = pos

    def _go(self, words):
        params = {}
        infinite = False
        i = 0
        while i < len(words):
            w = words[i]
            if w == "infinite":
                infinite = True
            elif w in ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes"):
                try:
                    params[w] = int(words[i + 1])
                except (ValueError, IndexError):
                    self.send("info string go %s needs a number" % w)
                    return
                i += 1
            i += 1
        white = self.position.side == 0
        time_ms = 0 if infinite else time_for_move(params, white)
        nodes = params.get("nodes", 0) or self.options["nodes"]
        chip = self.options["chipnps"]
        if chip and time_ms:
            # The board's own budget: what the Pico searches in that time, however fast this PC is.
            chip_nodes = max(1, chip * time_ms // 1000)
            nodes = min(nodes, chip_nodes) if nodes else chip_nodes
            time_ms = 0
        depth = params.get("depth", 32)
        self._stop.clear()
        self._thread = threading.Thread(target=self._think, args=(depth, nodes, time_ms), daemon=True)
        self._thread.start()

    def _think(self, depth, nodes, time_ms):
        s = self.search
        s.start(self.position, max_depth=depth, max_nodes=nodes or (1 << 29))
        t0 = _ms()
        reported = 0
        while not s.run(256):
            if self._stop.is_set() or (time_ms and _ms() - t0 >= time_ms):
                s.stop()
            if s.depth != reported:
                reported = s.depth
                self._info(s, t0)
        if s.depth != reported:
            self._info(s, t0)
        self.send("bestmove %s" % (move_uci(s.best_move) if s.best_move else "0000"))

    def _info(self, s, t0):
        dt = max(1, _ms() - t0)
        pv = " pv %s" % move_uci(s.best_move) if s.best_move else ""
        self.send(
            "info depth %d score %s nodes %d time %d nps %d%s" % (s.depth, score_text(s.score), s.nodes, dt, s.nodes * 1000 // dt, pv)
        )

    def wait(self, stop=False):
        """Let a running search finish (or stop it first)."""
        if self._thread is not None:
            if stop:
                self._stop.set()
            self._thread.join()
            self._thread = None


def main():
    engine = Engine()
    for line in sys.stdin:
        if not engine.handle(line):
            break
    engine.wait(stop=True)


if __name__ == "__main__":
    main()
