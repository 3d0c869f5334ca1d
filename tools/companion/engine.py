"""The engine: any UCI engine through python-chess's chess.engine, searching on a thread.

Stockfish (Debian's package, /usr/games/stockfish) by default. Strength: UCI_LimitStrength with
UCI_Elo (--elo), and a fixed time per move, or (a game with a clock and no --time or --depth)
the engine's own time management from its clock (UCI `go wtime btime winc binc movestogo`). A search runs on a thread of its own and its result
goes on the companion's queue as ("engine-move", ticket, uci) or ("engine-hint", ticket, uci);
the ticket tells the game loop whether the position is still the one asked about (a takeback
may have come in between). An engine that dies is reported ("engine-failed") and started again
for the next search: the game on the board goes on.
"""
import shlex
import shutil
import threading

import chess
import chess.engine

DEFAULT_ENGINE = "/usr/games/stockfish"
# python-chess waits this long for the engine's `uciok`/`readyok`.
START_TIMEOUT_S = 20


def default_command():
    if shutil.which("stockfish"):
        return shutil.which("stockfish")
    return DEFAULT_ENGINE


class Engine:
    def __init__(self, queue, command=None, elo=None, movetime=1.0, depth=None, hint_time=None):
        self.queue = queue
        self.command = shlex.split(command) if command else [default_command()]
        self.elo = elo
        self.depth = depth
        self.movetime = movetime  # None: the engine plays on its clock (think()'s clocks)
        self.hint_time = hint_time if hint_time is not None else (movetime or 1.0)
        self.name = None
        self._engine = None
        self._lock = threading.Lock()  # one search at a time
        self.restarts = 0

    # ------------------------------------------------------------------ the process

    def start(self):
        """Start the engine (raises chess.engine.EngineError/OSError when it cannot)."""
        engine = chess.engine.SimpleEngine.popen_uci(self.command, timeout=START_TIMEOUT_S)
        self.name = engine.id.get("name") or self.command[0]
        if self.elo is not None:
            options = engine.options
            if "UCI_Elo" not in options:
                engine.quit()
                raise chess.engine.EngineError("%s has no UCI_Elo option: use --time instead of --elo" % self.name)
            opt = options["UCI_Elo"]
            elo = max(opt.min, min(opt.max, self.elo)) if opt.min is not None else self.elo
            if elo != self.elo:
                self.queue.put(("engine-note", "%s plays from Elo %d to %d: set to %d" % (self.name, opt.min, opt.max, elo)))
                self.elo = elo
            engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo})
        self._engine = engine
        return self.name

    def stop(self):
        engine, self._engine = self._engine, None
        if engine is not None:
            try:
                engine.quit()
            except Exception:  # noqa: BLE001 - a dead engine cannot be asked to quit
                try:
                    engine.close()
                except Exception:  # noqa: BLE001
                    pass

    def _limit(self, hint=False, clocks=None):
        if self.depth:
            return chess.engine.Limit(depth=self.depth)
        if hint or self.movetime is not None or clocks is None:
            return chess.engine.Limit(time=self.hint_time if hint else (self.movetime or 1.0))
        return chess.engine.Limit(**clocks)

    # ------------------------------------------------------------------ searches

    def think(self, board, ticket, hint=False, clocks=None):
        """Search `board` (a chess.Board, copied) on a thread; the answer goes on the queue.
        clocks: chess.engine.Limit's white_clock, black_clock, white_inc, black_inc and
        remaining_moves (seconds), used when the engine has no --time or --depth."""
        board = board.copy()
        t = threading.Thread(target=self._search, args=(board, ticket, hint, clocks), name="engine", daemon=True)
        t.start()

    def analyse(self, board, seconds):
        """The running engine's view of `board` (python-chess's info dict, with "score") after
        `seconds`, waiting for a search in progress to end first; None when no engine runs."""
        with self._lock:
            if self._engine is None:
                return None
            return self._engine.analyse(board, chess.engine.Limit(time=seconds))

    def _search(self, board, ticket, hint, clocks=None):
        kind = "engine-hint" if hint else "engine-move"
        with self._lock:
            for attempt in range(2):
                try:
                    if self._engine is None:
                        self.restarts += 1
                        self.start()
                        self.queue.put(("engine-note", "%s started again" % self.name))
                    result = self._engine.play(board, self._limit(hint, clocks))
                    if result.move is None:
                        raise chess.engine.EngineError("no move (the engine resigned or found none)")
                    self.queue.put((kind, ticket, result.move.uci()))
                    return
                except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError,
                        TimeoutError, chess.engine.AnalysisComplete) as e:
                    self.queue.put(("engine-failed", ticket, "%s: %s" % (type(e).__name__, e or "it stopped")))
                    self.stop()
            self.queue.put(("engine-gave-up", ticket, "the engine failed twice in a row"))
