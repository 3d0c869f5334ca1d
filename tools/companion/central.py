"""The board: its USB serial port (pyserial), spoken to as a CPP central.

The board (firmware/link/) speaks the Chess Peripheral Protocol (docs/usb-link.md; the
protocol's README at commit a0a7d8c6): the central - this program - rules the round and the board
keeps the pieces in step with it. Port is the cable: it finds the board (a Pico's USB vendor id,
or --port), reads its lines on a thread and puts them on the companion's queue, and when the
cable is pulled it says so and keeps trying to open it again. Central is the protocol: it runs on
the game loop's thread, turns the board's lines into what the game loop cares about (a move, a
takeback, a resignation, a draw offer, the pieces in or out of step) and the loop's wishes into
lines.

Written to both dialects a board may speak: promotions come as the 5-character move (the board's
tap choice) or as 4 characters to be answered with `promote UCI`; takebacks come as `undo UCI`
(feature undo) or as `undo_offer`, answered `ok` and then `undo FEN` (features undo_redo and
undo_offer). Which the board has is learned from its answers to `feature`.
"""
import threading
import time

try:
    import serial
    from serial.tools import list_ports
except ImportError:  # the tests without pyserial still import the protocol half
    serial = None
    list_ports = None

import chess

# The Raspberry Pi Pico's USB vendor id (MicroPython's CDC port: product 0x0005).
PICO_VID = 0x2E8A
PICO_PIDS = (0x0005, 0x000A, 0x000F)
# How long the board may take to answer a question (`feature`, `fen`): it answers within a scan or
# two (5 ms each); seconds mean it is not running the firmware (at the REPL, another program).
ANSWER_TIMEOUT_S = 2.0
# How often a pulled cable is tried again.
REOPEN_S = 0.5
# Features asked for, in this order. undo_redo/undo_offer are the takebacks of the CPP README at
# a0a7d8c6; `undo` is the older form some boards still speak; draw_reason lets `end` say why;
# moved tells when a move lit on the board is made (without it the board's `status` is asked);
# time passes the clocks on.
FEATURES = ("msg", "resign", "draw_offer", "undo_redo", "undo_offer", "undo", "side", "draw_reason", "moved", "time")


def find_port(port=None):
    """The board's port: `port` if given, else the first Pico on USB. None when there is none."""
    if port:
        return port
    if list_ports is None:
        return None
    for info in list_ports.comports():
        if info.vid == PICO_VID and (info.pid in PICO_PIDS or info.pid is None):
            return info.device
    return None


class Port:
    """The USB cable: lines in on a thread, lines out. Events on `queue`:
    ("board-up", device), ("board-line", text), ("board-down", reason)."""

    def __init__(self, queue, port=None, opener=None):
        self.queue = queue
        self.port = port
        self.opener = opener or (lambda device: serial.Serial(device, 115200, timeout=0.2, write_timeout=1))
        self.serial = None
        self.device = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="board-port", daemon=True)
        self.said_missing = False
        self.trace = None  # a callable(text) shown every line both ways (--trace)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._close()
        if self._thread.is_alive():
            self._thread.join(2)

    def write(self, line):
        """Send one line; False when the cable is out (the loop hears "board-down" too)."""
        with self._lock:
            s = self.serial
        if s is None:
            return False
        if self.trace:
            self.trace("to board: " + line)
        try:
            s.write((line + "\n").encode("ascii", "replace"))
            return True
        except Exception as e:  # noqa: BLE001 - any failure of the port means the cable
            self._lost("write failed: %s" % e)
            return False

    def _close(self):
        with self._lock:
            s, self.serial = self.serial, None
        if s is not None:
            try:
                s.close()
            except Exception:  # noqa: BLE001
                pass

    def _lost(self, reason):
        with self._lock:
            had = self.serial is not None
        self._close()
        if had:
            self.queue.put(("board-down", reason))

    def _open(self):
        device = find_port(self.port)
        if device is None:
            if not self.said_missing:
                self.said_missing = True
                self.queue.put(("board-missing", "no board found: plug it in, or name its port with --port"))
            return False
        try:
            s = self.opener(device)
            s.reset_input_buffer()  # lines the board sent to nobody while no one listened
        except Exception as e:  # noqa: BLE001
            if not self.said_missing:
                self.said_missing = True
                why = "it is gone" if "No such file" in str(e) else str(e)
                self.queue.put(("board-missing", "cannot open %s (%s): waiting for the board" % (device, why)))
            return False
        self.said_missing = False
        with self._lock:
            self.serial = s
        self.device = device
        self.queue.put(("board-up", device))
        return True

    def _run(self):
        buf = b""
        while not self._stop.is_set():
            with self._lock:
                s = self.serial
            if s is None:
                buf = b""
                if not self._open():
                    self._stop.wait(REOPEN_S)
                continue
            try:
                # One byte (waiting up to the timeout), then whatever else has come: a line is
                # handed on as soon as it is complete, not when 256 bytes or the timeout are up.
                data = s.read(1)
                if data and s.in_waiting:
                    data += s.read(s.in_waiting)
            except Exception as e:  # noqa: BLE001 - unplugged: pyserial raises SerialException/OSError
                self._lost("the port closed" if "disconnected" in str(e) else "read failed: %s" % e)
                continue
            if not data:
                continue
            buf += data
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                # Blank lines too: a `pgn N` answer counts the one between its tags and moves.
                text = raw.decode("ascii", "replace").strip("\r").strip()
                if self.trace:
                    self.trace("from board: " + text)
                self.queue.put(("board-line", text))


class Central:
    """The CPP central's side of the conversation, run on the game loop's thread.

    `game` is told what the board did through methods named for it (board_move, board_undo,
    board_resigned, board_offers_draw, board_answers_draw, board_in_step, board_message,
    board_connected, board_lost); the loop calls begin/move/answer/end/... to act."""

    def __init__(self, port, game, side=None, clock=time.monotonic):
        self.port = port
        self.game = game
        self.side = side  # "w", "b" or "?" (both): told to the board before begin
        self.clock = clock
        self.features = set()
        self.connected = False
        self.round = False
        self.synced = False
        self._asked = []  # what we wait an ok/nok for, oldest first: ("feature", name), ("draw",), ("fen",)
        self._asked_at = 0.0
        self._plan = []  # the handshake still to do after (re)connection
        self._board_fen = None  # the board's own game on connection (`fen`)
        self.want_record = False  # ask for the board's game record too (`pgn`), to continue it
        self.board_pgn = None  # ... its text
        self._pgn_lines = None  # lines of a `pgn N` answer still to come: [count, lines]
        self._begun_fen = None
        self.shown = None  # the opponent's move shown on the LEDs, not yet made
        self.hint = None  # a hint shown on the LEDs
        self.placement = None  # the pieces as the board last reported them while out of step
        self.mode = None  # "strict" or "casual": set on the board (its own `mode` command) first
        self._fen_wanted = None  # a callable(fen or None) waiting for the answer to ask_fen()

    # ------------------------------------------------------------------ the cable

    def on_event(self, kind, arg):
        if kind == "board-up":
            self.connected = True
            self.round = False
            self.synced = False
            self.features = set()
            self._asked = []
            # The mode first: on a board whose `mode` command ends a CPP round (it changes the game),
            # it must come before the round's features and begin.
            self._plan = [("mode", self.mode)] if self.mode else []
            self._plan += [("feature", f) for f in FEATURES] + [("fen",)]
            if self.want_record:
                self._plan.append(("pgn",))
            self.game.board_connected(arg)
            self._next()
        elif kind == "board-down":
            self.connected = False
            self.round = False
            self.synced = False
            self._asked = []
            self._plan = []
            self.game.board_lost(arg)
        elif kind == "board-missing":
            self.game.board_missing(arg)
        elif kind == "board-line":
            self.line(arg)

    def tick(self):
        if self._asked and self.clock() - self._asked_at > ANSWER_TIMEOUT_S:
            what = self._asked.pop(0)
            if what[0] == "fen":
                self._board_fen = None
                if self._fen_wanted is not None:
                    then, self._fen_wanted = self._fen_wanted, None
                    then(None)
            self._pgn_lines = None
            self.game.board_message(
                "the board did not answer %s (is it running the firmware? Ctrl-D at its REPL restarts it)"
                % " ".join(what))
            self._next()

    def _send(self, line):
        return self.port.write(line)

    def _ask(self, what, line):
        self._asked.append(what)
        self._asked_at = self.clock()
        self._send(line)

    def _next(self):
        """The next step of the handshake: the features one at a time (a board sends nothing else
        between a question and its answer), the board's own game, then the game's round."""
        while self._plan and not self._asked:
            step = self._plan.pop(0)
            if step[0] == "feature":
                name = step[1]
                if name == "undo" and "undo_redo" in self.features:
                    continue  # the newer takebacks won: no need for the old ones
                self._ask(step, "feature " + name)
                return
            if step[0] in ("fen", "pgn"):
                self._ask(step, step[0])
                return
            if step[0] == "mode":
                self._ask(step, "mode " + step[1])
                return
        if not self._plan and not self._asked and self.connected and not self.round:
            self.game.board_ready(self._board_fen)

    def handshaking(self):
        """Is the handshake after a (re)connection still going on: steps to do or an answer awaited?"""
        return bool(self._plan or self._asked)
    def idle(self):
        """Connected, the handshake done and no answer awaited: ready for a round."""
        return self.connected and not self._plan and not self._asked

    # ------------------------------------------------------------------ what the loop wants

    def begin(self, fen):
        """Start (or resume) the round at `fen` (a full FEN): the board answers sync or unsync
        and its LEDs guide the pieces to it."""
        if not self.connected:
            return False
        if "side" in self.features and self.side:
            self._send("side " + self.side)
        self.round = True
        self.synced = False
        self.shown = None
        self.hint = None
        self._begun_fen = fen
        return self._send("begin " + fen)

    def move(self, uci):
        """The opponent's move: lit on the board until the player makes it."""
        self.shown = uci
        self.hint = None
        return self._send("move " + uci)

    def ok(self):
        return self._send("ok")

    def nok(self):
        return self._send("nok")

    def promote(self, uci):
        return self._send("promote " + uci)

    def takeback(self, fen_after, uci):
        """Take the last move back on the board (the LEDs guide the piece home)."""
        if "undo_redo" in self.features:
            return self._send("undo " + fen_after)
        if "undo" in self.features:
            return self._send("undo " + uci)
        return False

    def withdraw(self, uci, fen_before):
        """Stop showing a move not yet made (a hint the player does not want)."""
        if uci is None:
            return False
        self.shown = None
        self.hint = None
        return self.takeback(fen_before, uci)

    def offer_draw(self):
        """The opponent offers a draw: the player accepts with the kings' draw sign, or moves."""
        if "draw_offer" not in self.features:
            return False
        self._asked.append(("draw",))
        self._asked_at = float("inf")  # the player may think it over: no time-out
        return self._send("draw_offer")

    def end(self, reason, result=None):
        """End the round. With a decided result (1-0, 0-1) the board's extension `end REASON
        RESULT` shows a game lost by resigning, on time or by leaving, which the board's own game
        has not reached, on the loser's king."""
        self.round = False
        self.shown = None
        self.hint = None
        if reason not in ("checkmate", "draw", "timeout", "resign", "abort", "undefined"):
            if "draw_reason" not in self.features:
                reason = "draw"
        if result in ("1-0", "0-1"):
            reason += " " + result
        return self._send("end " + reason)

    def show_hint(self, uci):
        """Light a hint: sent as a move the board shows; made or withdrawn, the loop decides."""
        self.hint = uci
        return self._send("move " + uci)

    def ask_fen(self, then):
        """Ask the board's position (its `fen` command) and call then(fen), or then(None) when it
        does not answer: how a piece the board chose (a promotion tapped) is learnt mid-round."""
        self._fen_wanted = then
        self._ask(("fen",), "fen")

    def ask_status(self):
        return self._send("status")

    def set_mode(self, mode):
        """strict or casual on the board. The board may end the round for it: the loop begins again."""
        self.mode = mode
        if self.connected:
            self.round = False
            return self._send("mode " + mode)
        return False

    def clocks(self, white_ms, black_ms):
        """The time left to each side (feature time), after begin or a move."""
        if "time" in self.features and self.round and white_ms is not None and black_ms is not None:
            self._send("time %d %d" % (max(0, white_ms), max(0, black_ms)))

    # ------------------------------------------------------------------ what the board says

    def line(self, text):
        if self._pgn_lines is not None:
            # Inside the board's `pgn N` answer: N lines of its game record, blank ones included.
            self._pgn_lines[1].append(text)
            if len(self._pgn_lines[1]) >= self._pgn_lines[0]:
                self.board_pgn = "\n".join(self._pgn_lines[1])
                self._pgn_lines = None
                self._asked.pop(0)
                self._next()
            return
        words = text.split()
        if not words:
            return
        cmd = words[0]
        rest = text[len(cmd):].strip()
        if cmd in ("ok", "nok"):
            if self._asked:
                what = self._asked.pop(0)
                if what[0] == "feature" and cmd == "ok":
                    self.features.add(what[1])
                elif what[0] == "draw":
                    self.game.board_answers_draw(cmd == "ok")
                self._next()
            return
        if cmd == "fen" and self._asked and self._asked[0][0] == "fen":
            self._asked.pop(0)
            if self._fen_wanted is not None:
                then, self._fen_wanted = self._fen_wanted, None
                then(rest)
                self._next()
                return
            self._board_fen = rest
            self._next()
            return
        if cmd == "pgn" and self._asked and self._asked[0][0] == "pgn":
            try:
                count = int(rest)
            except ValueError:
                count = 0
            if count <= 0:
                self._asked.pop(0)
                self._next()
            else:
                self._pgn_lines = [count, []]
            return
        if cmd == "mode" and self._asked and self._asked[0][0] == "mode":
            self._asked.pop(0)
            self._next()
            return
        if cmd == "err":
            if self._asked and self._asked[0][0] in ("fen", "mode", "pgn"):
                self._asked.pop(0)
                self._board_fen = None
                self._next()
            self.game.board_message("the board says: " + rest)
            return
        if cmd == "msg":
            self.game.board_message(rest)
            return
        if cmd == "status":
            fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            self.game.board_status(fields)
            return
        if not self.round:
            return  # the board's own event stream outside a round: the round is what counts
        if cmd == "sync":
            self.synced = True
            self.placement = None
            self.game.board_in_step(True, rest)
        elif cmd in ("unsync", "state"):
            self.synced = False
            self.placement = rest.split()[0] if rest else None
            self.game.board_in_step(False, rest)
        elif cmd == "move" and rest:
            self.shown = None
            if self._asked and self._asked[0][0] == "draw":
                self._asked.pop(0)  # a move instead of the kings' sign declines the offer
                self.game.board_answers_draw(False)
            self.game.board_move(rest)
        elif cmd == "moved":
            self.game.board_made_shown()
        elif cmd == "undo":
            self.game.board_undo(rest)
        elif cmd == "undo_offer":
            self.game.board_undo(None)
        elif cmd == "resign":
            self.game.board_resigned()
        elif cmd == "draw_offer":
            self.game.board_offers_draw()


def misplaced(placement, fen):
    """Squares where the board's pieces (a CPP placement, '?' for a piece the game does not
    have there) differ from `fen`: (squares to empty, squares to fill)."""
    if not placement:
        return [], []
    try:
        want = chess.Board(fen)
    except ValueError:
        return [], []
    have = {}
    rows = placement.split("/")
    for r, row in enumerate(rows[:8]):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                if f < 8:
                    have[chess.square(f, 7 - r)] = c
                f += 1
    empty, fill = [], []
    for sq in chess.SQUARES:
        there = sq in have
        should = want.piece_at(sq) is not None
        if there and not should:
            empty.append(chess.square_name(sq))
        elif should and not there:
            fill.append(chess.square_name(sq))
    return empty, fill
