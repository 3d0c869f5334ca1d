"""A stand-in for Lichess's broadcast push API over real TLS (POST /api/broadcast/round/{id}/push),
keeping the rules the boards must keep (lichess-org/api's spec, lila's modules/relay):

- a Bearer token with the study:write scope, else 401 (unknown token) or 403 (no scope);
- a round with a source URL takes no push: 400 {"error": "The relay has an upstream URL, and cannot
  be pushed to."}; an unknown round: 404;
- one request at a time per token: a second one while the first is being answered gets 429, and
  after any 429 every request within rate_limit_s is a violation (counted: a test asserts none)
  and is answered 429 again;
- at most 100 games a push (400 beyond); a PGN python-chess cannot read: that game's error;
- a round's pushes are worked one at a time, with at most 32 waiting behind the one being worked
  and each given 10 s (lila's RelayPush workQueue: AsyncActorSequencers(maxSize = 32, timeout =
  10 s)); a push that would be the 33rd waiting is refused, and one worked longer than 10 s fails,
  both as lila's failed future reaches the client: 500 (see RoundQueue);
- each pushed game matched to the round's games by its tags (Event, Round, White, Black, Board):
  moves it lacks are added, with the `[%clk]` of each, and when each first arrived is recorded;
  a game that went another way is replaced from where it differs; nothing is deleted.
The answer: {"games": [{"tags": {...}, "moves": n} or {"tags": {...}, "error": "..."}]}.

Faults a test asks for: too_many (the next n requests answered 429), fail (n answered 5xx),
stall (the next n held unanswered for stall_s), cut (n hung up on), hostile (answers that are not
Lichess's: a list of raw HTTP responses to send as they are).
"""
import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import chess
import chess.pgn

UPSTREAM = "The relay has an upstream URL, and cannot be pushed to."
MATCH_TAGS = ("Event", "Round", "White", "Black", "Board")


class RoundGame:
    def __init__(self, tags):
        self.tags = tags
        self.moves = []  # SAN
        self.clocks = []  # seconds left after each move, or None
        self.arrived = []  # time.monotonic() when each ply first reached the round
        self.result = "*"


class RoundQueue:
    """lila's work queue for one round's pushes (modules/relay RelayPush.workQueue, an
    AsyncActorSequencers keyed by the round): one push worked at a time, WAITING_MAX more queued,
    each push's work given TIMEOUT_S. scalalib's AsyncActorBounded refuses a message when its queue
    already holds maxSize, failing the push's future (EnqueueException); the controller does not
    catch it, so the board gets lila's error page for a failed request, a 500. The timeout fails the
    future the same way while the work itself carries on (the round may then have the moves)."""

    WAITING_MAX = 32
    TIMEOUT_S = 10.0

    def __init__(self):
        self.worker = threading.Lock()  # the push being worked
        self.count = 0  # pushes being worked or waiting (under FakeBroadcast.lock)
        self.deepest = 0  # the most ever waiting behind the one being worked
        self.refused = 0  # pushes refused for a full queue
        self.timed_out = 0
        self.worked = []  # seconds each push held the round (the fake's own speed, on this machine)


class FakeBroadcast:
    def __init__(self, tokens, tls, port=0, rate_limit_s=60.0, stall_s=12.0, work_s=0.0):
        """tokens: {token: set of scopes}; tls: (certificate chain file, key file); work_s: how long
        the work of each push takes on top of the fake's own (lila's sync of the study chapters), to
        fill the round's queue."""
        self.tokens = tokens
        self.work_s = work_s
        self.hold = None  # a threading.Event a test sets: till then each push's work waits (the queue fills)
        self.rate_limit_s = rate_limit_s
        self.stall_s = stall_s
        self.rounds = {}  # id -> {"source": url or None, "games": [RoundGame]}
        self.lock = threading.RLock()
        self.busy = {}  # token -> requests being answered
        self.limited_until = {}  # token -> monotonic time before which every request is a violation
        self.violations = []  # (token tail, seconds early): a request inside the minute after a 429
        self.requests = []  # (monotonic time, status, games in the body, user agent)
        self.rewound = 0  # pushes that took moves off a game of the round
        self.too_many = 0
        self.fail = 0
        self.stall = 0
        self.cut = 0
        self.hostile = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                fake.handle(self)

            def do_GET(self):
                fake.reply(self, 404, {"error": "Not found"})

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request, client_address):
                pass

        import ssl

        self.server = Server(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tls[0], tls[1])
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True, do_handshake_on_connect=False)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def add_round(self, round_id, source=None):
        with self.lock:
            self.rounds[round_id] = {"source": source, "games": [], "queue": RoundQueue()}

    def games(self, round_id):
        with self.lock:
            return list(self.rounds[round_id]["games"])

    def game(self, round_id, **tags):
        for g in self.games(round_id):
            if all(g.tags.get(k) == v for k, v in tags.items()):
                return g
        return None

    # ------------------------------------------------------------------ the server

    def reply(self, h, status, obj, extra=b""):
        body = json.dumps(obj).encode() if obj is not None else extra
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def handle(self, h):
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        auth = h.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        now = time.monotonic()
        with self.lock:
            if token in self.limited_until and now < self.limited_until[token]:
                self.violations.append((token[-4:], round(self.limited_until[token] - now, 1)))
                self.requests.append((now, 429, 0, h.headers.get("User-Agent")))
                return self.reply(h, 429, {"error": "Too many requests. Try again later."})
            if token is not None and self.busy.get(token):
                self.limited_until[token] = now + self.rate_limit_s
                self.requests.append((now, 429, 0, h.headers.get("User-Agent")))
                return self.reply(h, 429, {"error": "Too many requests. Try again later."})
            self.busy[token] = self.busy.get(token, 0) + 1
            fault = None
            for name in ("too_many", "fail", "stall", "cut"):
                if getattr(self, name):
                    setattr(self, name, getattr(self, name) - 1)
                    fault = name
                    break
            hostile = self.hostile.pop(0) if self.hostile and fault is None else None
        try:
            if fault == "stall":
                with self.lock:
                    self.busy[token] -= 1  # the board gives up on it: its next request is not a second at once
                time.sleep(self.stall_s)
                with self.lock:
                    self.busy[token] += 1
                return self.reply(h, 504, {"error": "timeout"})
            if fault == "cut":
                h.close_connection = True
                return
            if hostile is not None:
                h.wfile.write(hostile)
                h.close_connection = True
                return
            if fault == "too_many":
                with self.lock:
                    self.limited_until[token] = time.monotonic() + self.rate_limit_s
                    self.requests.append((now, 429, 0, h.headers.get("User-Agent")))
                return self.reply(h, 429, {"error": "Too many requests. Try again later."})
            if fault == "fail":
                return self.reply(h, 503, None, b"<html>503 Service Unavailable</html>")
            status, answer, n = self.push(h.path, token, body)
            with self.lock:
                self.requests.append((now, status, n, h.headers.get("User-Agent")))
            self.reply(h, status, answer)
        finally:
            with self.lock:
                self.busy[token] -= 1

    def push(self, path, token, body):
        parts = path.strip("/").split("/")
        if len(parts) != 5 or parts[:3] != ["api", "broadcast", "round"] or parts[4] != "push":
            return 404, {"error": "Not found"}, 0
        if token not in self.tokens:
            return 401, {"error": "No such token"}, 0
        if "study:write" not in self.tokens[token]:
            return 403, {"error": "Missing scope: study:write"}, 0
        with self.lock:
            rnd = self.rounds.get(parts[3])
        if rnd is None:
            return 404, {"error": "Not found"}, 0
        if rnd["source"]:
            return 400, {"error": UPSTREAM}, 0
        text = body.decode("utf-8", "replace")
        games = []
        stream = io.StringIO(text)
        while True:
            g = chess.pgn.read_game(stream)
            if g is None:
                break
            games.append(g)
        if len(games) > 100:
            return 400, {"error": "Too many games: at most 100 a push"}, len(games)
        queue = rnd["queue"]
        with self.lock:
            if queue.count > queue.WAITING_MAX:  # one being worked and 32 waiting: no room
                queue.refused += 1
                return 500, {"error": "The relay.push asyncActor queue is full (%d)" % queue.WAITING_MAX}, len(games)
            queue.deepest = max(queue.deepest, queue.count)
            queue.count += 1
        try:
            with queue.worker:
                began = time.monotonic()
                if self.work_s:
                    time.sleep(self.work_s)
                if self.hold is not None:
                    self.hold.wait(60)
                out = []
                for g in games:
                    tags = dict(g.headers)
                    if g.errors:
                        out.append({"tags": tags, "error": "Cannot parse moves: %s" % g.errors[0]})
                        continue
                    out.append({"tags": tags, "moves": self._merge(rnd, g, tags)})
                took = time.monotonic() - began
                with self.lock:
                    queue.worked.append(took)
                if took > queue.TIMEOUT_S:
                    queue.timed_out += 1
                    return 500, {"error": "AsyncActorSequencer relay.push timed out"}, len(games)
        finally:
            with self.lock:
                queue.count -= 1
        return 200, {"games": out}, len(games)

    def queue(self, round_id):
        with self.lock:
            return self.rounds[round_id]["queue"]

    def _merge(self, rnd, g, tags):
        now = time.monotonic()
        with self.lock:
            found = None
            for rg in rnd["games"]:
                if all(rg.tags.get(k) == tags.get(k) for k in MATCH_TAGS):
                    found = rg
                    break
            if found is None:
                found = RoundGame(tags)
                rnd["games"].append(found)
            board = g.board()
            sans, clocks = [], []
            for node in g.mainline():
                sans.append(board.san(node.move))
                board.push(node.move)
                clocks.append(node.clock())
            keep = 0
            while keep < len(found.moves) and keep < len(sans) and found.moves[keep] == sans[keep]:
                keep += 1
            if keep < len(found.moves):
                self.rewound += 1  # moves the round had, taken back: a push out of order, or a takeback
            del found.moves[keep:], found.clocks[keep:], found.arrived[keep:]
            found.moves.extend(sans[keep:])
            found.clocks.extend(clocks[keep:])
            found.arrived.extend([now] * (len(sans) - keep))
            for i in range(keep):
                if found.clocks[i] is None and clocks[i] is not None:
                    found.clocks[i] = clocks[i]
            found.tags = tags
            found.result = tags.get("Result", "*")
            return len(found.moves)
