"""A PC and many boards on one Lichess broadcast round (`tools/play.py broadcast`, docs/broadcast.md).

Every board on the PC's USB ports (or the ports named) is read over its link in the board's own
words: `status` twice a second, and `pgn` when its moves or its result changed (the board's game
with its TimeControl and a `[%clk]` after each move, firmware/link/commands.py). The games are
pushed together, one request for up to 100 of them, to Lichess's broadcast push API
(POST /api/broadcast/round/{id}/push, scope study:write) whenever any of them changed, with the
rules the board keeps when it pushes alone (firmware/online/broadcast.py): one request at a time;
after HTTP 429 nothing for a full minute; a 5xx, a network failure or an answer that is not
Lichess's tried again, backing off; a refusal that sending again cannot mend (the token, the round)
ends the program with the reason. Moves made meanwhile go with the next push.

The tags are the PC's: Board is the board's place in the order of the ports (as found on USB, or as
named), the names come from --names (else "White, board N"), Event and Round from the command line.
A board unplugged keeps its game on the round; plugged back, it is read again.

The token comes from a file or $LICHESS_BROADCAST_TOKEN and goes only into the Authorization header.
"""
import http.client
import io
import json
import os
import queue
import ssl
import sys
import threading
import time
import urllib.parse

import chess
import chess.pgn

from .central import PICO_PIDS, PICO_VID, Port, list_ports

POLL_S = 0.5  # each board's `status` this often
MAX_GAMES = 100  # Lichess: at most this many games a push
RETRY_S = (1, 2, 5, 10, 30)  # a failure is tried again after these, the last repeating
TIMEOUT_S = 10  # Lichess answers a push within 10 s or drops it
USER_AGENT = "electronic-chessboard-companion/1 (broadcast; tools/play.py)"


def read_token(path=None):
    """The broadcast token (scope study:write): from `path`, else $LICHESS_BROADCAST_TOKEN."""
    if path:
        try:
            with open(path) as f:
                token = f.read().strip()
        except OSError as e:
            raise ValueError("cannot read the token file %s: %s" % (path, e.strerror))
    else:
        token = os.environ.get("LICHESS_BROADCAST_TOKEN", "").strip()
    if not token:
        raise ValueError("no broadcast token: create one with the study:write scope at "
                         "https://lichess.org/account/oauth/token/create and pass --token-file FILE "
                         "or set LICHESS_BROADCAST_TOKEN")
    return token


def read_names(path):
    """--names FILE: one line a board, `N: White name - Black name` ({N: (white, black)})."""
    names = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            number, sep, rest = line.partition(":")
            white, dash, black = rest.partition(" - ")
            if not sep or not dash or not number.strip().isdigit() or len(white.strip()) < 2 or len(black.strip()) < 2:
                raise ValueError("%s line %d: want `BOARD: White name - Black name`, got %r" % (path, i, line[:60]))
            names[int(number)] = (white.strip(), black.strip())
    return names


def all_boards():
    """Every Pico on USB, in the order of their device names."""
    if list_ports is None:
        return []
    return sorted(info.device for info in list_ports.comports()
                  if info.vid == PICO_VID and (info.pid in PICO_PIDS or info.pid is None))


class _Tagged:
    """A Port's queue that says which board each event is from."""

    def __init__(self, shared, number):
        self.shared = shared
        self.number = number

    def put(self, item):
        self.shared.put((self.number,) + tuple(item))


class Board:
    """One board: its port, its tags, and its game as it last read it."""

    def __init__(self, number, device, events, white, black):
        self.number = number
        self.device = device
        self.port = Port(_Tagged(events, number), device)
        self.white = white or "White, board %d" % number
        self.black = black or "Black, board %d" % number
        self.up = False
        self.seen = None  # (moves, result) of the last `status`
        self.asked_pgn = False
        self.pgn_lines = None  # [count, lines] of a `pgn N` answer still coming
        self.game = None  # chess.pgn.Game: the board's game, tags the PC's
        self.plies = 0
        self.result = "*"
        self.finished = False  # its result is on the round: a new game on it is not pushed over it


class Broadcast:
    def __init__(self, devices, round_id, token, server="https://lichess.org", event="Club game", round_tag="1",
                 names=None, rate_limit_s=60.0, retry_s=RETRY_S, say=print, trace=None):
        self.events = queue.Queue()
        names = names or {}
        self.boards = [Board(i + 1, d, self.events, *names.get(i + 1, (None, None))) for i, d in enumerate(devices)]
        for b in self.boards:
            b.port.trace = trace
        url = urllib.parse.urlsplit(server)
        self.host, self.tls, self.port_no = url.hostname, url.scheme == "https", url.port
        self.path = "/api/broadcast/round/%s/push" % round_id
        self._auth = "Bearer " + token
        self.event, self.round_tag = event, round_tag
        self.rate_limit_s = rate_limit_s
        self.retry_s = retry_s
        self.say = say
        self.lock = threading.Lock()  # the games, between the reading loop and the pusher
        self.version = 0  # bumped whenever a game changed
        self.sent = 0
        self.wake = threading.Event()
        self.stopped = threading.Event()
        self.dead = None  # why the pushing stopped
        self.pushes = 0
        self.conn = None

    def __repr__(self):
        return "<Broadcast %s>" % self.path  # never the token

    # ------------------------------------------------------------------ the boards

    def run(self, stdin=None):
        """Until `quit` on stdin (or end of it), or a refusal; the exit status."""
        for b in self.boards:
            self.say("board %d: %s (%s - %s)" % (b.number, b.device, b.white, b.black))
            b.port.start()
        threading.Thread(target=self._pusher, name="pusher", daemon=True).start()
        if stdin is not None:
            threading.Thread(target=self._keys, args=(stdin,), daemon=True).start()
        next_poll = 0.0
        try:
            while not self.stopped.is_set():
                now = time.monotonic()
                if now >= next_poll:
                    next_poll = now + POLL_S
                    for b in self.boards:
                        if b.up and not b.asked_pgn:
                            b.port.write("status")
                try:
                    item = self.events.get(timeout=max(0.01, next_poll - time.monotonic()))
                except queue.Empty:
                    continue
                self._board_event(*item)
        finally:
            self.stopped.set()
            self.wake.set()
            for b in self.boards:
                b.port.stop()
        if self.dead:
            self.say("broadcast stopped: " + self.dead)
            return 1
        return 0

    def _keys(self, stdin):
        for line in stdin:
            if line.strip() in ("quit", "q", "exit"):
                break
            if line.strip():
                self.say("commands: quit")
        self.stopped.set()
        self.events.put((0, "wake", None))

    def _board_event(self, number, kind, arg):
        if number == 0:
            return
        b = self.boards[number - 1]
        if kind == "board-up":
            b.up, b.seen, b.asked_pgn, b.pgn_lines = True, None, False, None
            self.say("board %d: connected (%s)" % (number, arg))
        elif kind == "board-down":
            b.up = False
            self.say("board %d: unplugged (%s); its game stays on the round" % (number, arg))
        elif kind == "board-missing":
            self.say("board %d: %s" % (number, arg))
        elif kind == "board-line":
            self._line(b, arg)

    def _line(self, b, text):
        if b.pgn_lines is not None:
            b.pgn_lines[1].append(text)
            if len(b.pgn_lines[1]) == b.pgn_lines[0]:
                lines, b.pgn_lines, b.asked_pgn = b.pgn_lines[1], None, False
                self._read_game(b, "\n".join(lines))
            return
        words = text.split()
        if not words:
            return
        if words[0] == "status":
            fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            seen = (fields.get("moves"), fields.get("result"))
            if seen != b.seen and not b.asked_pgn:
                b.seen = seen
                b.asked_pgn = True
                b.port.write("pgn")
        elif words[0] == "pgn" and len(words) == 2 and words[1].isdigit():
            b.pgn_lines = [int(words[1]), []]
            if b.pgn_lines[0] == 0:
                b.pgn_lines, b.asked_pgn = None, False

    def _read_game(self, b, text):
        game = chess.pgn.read_game(io.StringIO(text))
        if game is None or game.errors:
            self.say("board %d: its game record cannot be read (%s)" % (b.number, game.errors[0] if game else "empty"))
            return
        plies = len(list(game.mainline_moves()))
        result = game.headers.get("Result", "*")
        if b.finished and (result == "*" or plies < b.plies):
            if b.game is not None and b.plies != -1:
                self.say("board %d: its game is over on the round; a new game goes to a new round" % b.number)
                b.plies = -1
            return
        for key in list(game.headers.keys()):
            if key not in ("Result", "TimeControl", "SetUp", "FEN"):
                del game.headers[key]
        tags = (("Event", self.event), ("Site", "Over the board"), ("Date", time.strftime("%Y.%m.%d")),
                ("Round", self.round_tag), ("White", b.white), ("Black", b.black), ("Board", str(b.number)))
        for key, value in tags:
            game.headers[key] = value
        with self.lock:
            if plies != b.plies or result != b.result or b.game is None:
                b.game, b.plies, b.result = game, plies, result
                self.version += 1
                self.wake.set()

    # ------------------------------------------------------------------ Lichess

    def _pusher(self):
        wait_until = 0.0
        attempt = 0
        while not self.stopped.is_set():
            self.wake.wait(0.5)
            self.wake.clear()
            left = wait_until - time.monotonic()
            if left > 0:
                self.stopped.wait(left)
                continue
            with self.lock:
                version = self.version
                games = [(b, b.plies, b.result, str(b.game)) for b in self.boards if b.game is not None]
            if version == self.sent or not games:
                continue
            ok, pause = True, 0.0
            for i in range(0, len(games), MAX_GAMES):
                chunk = games[i:i + MAX_GAMES]
                ok, pause = self._push(chunk, attempt)
                if not ok:
                    break
            if self.dead:
                self.stopped.set()
                self.events.put((0, "wake", None))
                return
            if ok:
                attempt = 0
                self.sent = version
                with self.lock:
                    for b, plies, result, _text in games:
                        if result != "*" and b.plies == plies:
                            b.finished = True
            else:
                attempt += pause is None
                wait_until = time.monotonic() + (pause if pause is not None else
                                                 self.retry_s[min(attempt - 1, len(self.retry_s) - 1)])
                self.wake.set()
        self._close()

    def _connection(self):
        if self.conn is None:
            if self.tls:
                self.conn = http.client.HTTPSConnection(self.host, self.port_no, timeout=TIMEOUT_S,
                                                        context=ssl.create_default_context())
            else:
                self.conn = http.client.HTTPConnection(self.host, self.port_no, timeout=TIMEOUT_S)
        return self.conn

    def _close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _push(self, chunk, attempt):
        """One request: (True, None) when Lichess took it; (False, seconds) to wait Lichess's pause;
        (False, None) to try again after a back-off; self.dead set when it cannot be mended."""
        body = "\n\n".join(text for _b, _p, _r, text in chunk).encode() + b"\n"
        headers = {"Authorization": self._auth, "Content-Type": "text/plain", "User-Agent": USER_AGENT,
                   "Accept": "application/json"}
        try:
            conn = self._connection()
            conn.request("POST", self.path, body, headers)
            resp = conn.getresponse()
            status, data = resp.status, resp.read(65536)
        except (OSError, http.client.HTTPException) as e:
            self._close()
            self._failed(_words(e), attempt)
            return False, None
        try:
            answer = json.loads(data) if data else {}
        except ValueError:
            answer = None
        error = answer.get("error") if isinstance(answer, dict) and isinstance(answer.get("error"), str) else None
        if status == 200 and isinstance(answer, dict) and isinstance(answer.get("games"), list):
            self.pushes += 1
            done = ", ".join("board %d %d move%s%s" % (b.number, plies, "" if plies == 1 else "s",
                                                        "" if result == "*" else " " + result)
                             for b, plies, result, _t in chunk)
            self.say("pushed: " + done)
            for item in answer["games"]:
                if isinstance(item, dict) and item.get("error"):
                    tags = item.get("tags") if isinstance(item.get("tags"), dict) else {}
                    self.say("Lichess did not take board %s's game: %s" % (tags.get("Board", "?"), str(item["error"])[:120]))
            return True, None
        if status == 429:
            self.say("Lichess asked for a pause (HTTP 429): the next push in %g s" % self.rate_limit_s)
            return False, self.rate_limit_s
        if status in (401, 403):
            self.dead = ("Lichess refused the broadcast token (%d%s): it needs the study:write scope and to belong "
                         "to the broadcast's owner" % (status, ": " + error[:120] if error else ""))
        elif status == 404:
            self.dead = "Lichess has no broadcast round %s (--round: the 8 characters at the end of its URL)" % (
                self.path.split("/")[-2])
        elif status == 400 and error and ("upstream" in error.lower() or "source" in error.lower()):
            self.dead = ("the round takes no pushes: it has a source URL that Lichess reads itself (%s); make a "
                         "round with no source for the boards (docs/broadcast.md)" % error[:120])
        elif status == 400 and error:
            self.say("Lichess refused the push (400): %s" % error[:160])
            return True, None  # this text cannot go; the next change is sent
        else:
            self._failed("an answer that is not Lichess's (HTTP %d)" % status, attempt)
            return False, None
        return False, None

    def _failed(self, why, attempt):
        self.say("push failed (%s); again in %d s" % (why, self.retry_s[min(attempt, len(self.retry_s) - 1)]))


def _words(e):
    text = str(e) or type(e).__name__
    return text if len(text) < 100 else text[:100]


def main(args, stdin=None):
    """`play.py broadcast`: the exit status."""
    if len(args.round) != 8 or not args.round.isalnum():
        sys.stderr.write("play.py broadcast: --round wants the round's id, the 8 letters and digits at the end of "
                         "its URL (lichess.org/broadcast/.../ROUNDID), got %r\n" % args.round[:40])
        return 2
    try:
        token = read_token(args.token_file)
        names = read_names(args.names) if args.names else {}
    except (ValueError, OSError) as e:
        sys.stderr.write("play.py broadcast: %s\n" % e)
        return 2
    devices = args.port or all_boards()
    if not devices:
        sys.stderr.write("play.py broadcast: no board found on USB: plug them in, or name their ports with --port\n")
        return 2
    trace = (lambda text: sys.stdout.write(text + "\n")) if args.trace else None
    b = Broadcast(devices, args.round, token, server=args.server, event=args.event, round_tag=args.round_tag,
                  names=names, rate_limit_s=args.rate_limit_wait, trace=trace,
                  say=lambda text: (sys.stdout.write(text + "\n"), sys.stdout.flush()))
    return b.run(stdin)
