"""A local stand-in for Lichess's Board API, for the companion's tests (127.0.0.1 only).

It implements the endpoints the companion uses, with the ndjson streams of the API's
documentation (github.com/lichess-org/api, doc/specs): /api/stream/event (gameStart, challenge,
a keep-alive line between), /api/board/game/stream/ID (gameFull first, then gameState,
chatLine, opponentGone), the seek, challenge accept/decline, move, resign, draw, abort, chat and
claim-victory posts. One opponent plays the other side from a script of moves. The test steers
it: stall() makes the current game streams go silent (no keep-alive either, as a hung
connection), drop() closes them mid-game, offer_draw(), chat(), gone() add what a real opponent
would. Every request must carry the test's token.
"""
import json
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import chess

KEEP_ALIVE_S = 0.5  # Lichess: 7 s; the tests use short read timeouts


class Game:
    def __init__(self, gid, me_white, opponent_moves, clock=(600000, 0), fen="startpos", moves=()):
        self.id = gid
        self.me_white = me_white
        self.board = chess.Board() if fen == "startpos" else chess.Board(fen)
        for m in moves:
            self.board.push_uci(m)
        self.fen = fen
        self.script = list(opponent_moves)
        self.wtime = self.btime = clock[0]
        self.inc = clock[1]
        self.status = "started"
        self.winner = None
        self.offer = {}  # "wdraw"/"bdraw" -> True
        self.chat = []

    def state(self):
        st = {"type": "gameState", "moves": " ".join(m.uci() for m in self.board.move_stack),
              "wtime": self.wtime, "btime": self.btime, "winc": self.inc, "binc": self.inc, "status": self.status}
        if self.winner:
            st["winner"] = self.winner
        st.update(self.offer)
        return st

    def full(self, me, them):
        white = {"id": me.lower(), "name": me, "rating": 1500} if self.me_white else {"id": them.lower(), "name": them, "rating": 1600}
        black = {"id": them.lower(), "name": them, "rating": 1600} if self.me_white else {"id": me.lower(), "name": me, "rating": 1500}
        return {"type": "gameFull", "id": self.id, "variant": {"key": "standard", "name": "Standard", "short": "Std"},
                "clock": {"initial": 600000, "increment": self.inc}, "speed": "rapid", "perf": {"name": "Rapid"},
                "rated": False, "createdAt": 1745112707998, "white": white, "black": black,
                "initialFen": self.fen, "state": self.state()}

    def over(self):
        return self.status not in ("created", "started")


class FakeLichess:
    def __init__(self, token, port, me="Tester", opponent="Opponent", reply_delay=0.15, tls=None):
        """tls: (certificate chain file, key file) to serve HTTPS, as Lichess does (the board's
        client checks the chain against the CA it is given: host_tests/helpers/tls_certs.py)."""
        self.token = token
        self.me = me
        self.opponent = opponent
        self.reply_delay = reply_delay
        self.games = {}
        self.challenges = []  # challenges to announce on the event stream
        self.next_game = None  # (me_white, opponent moves) for a seek or an accepted challenge
        self.requests = []  # (method, path) of every request, for the tests
        self.lock = threading.RLock()
        self.event_streams = []  # queues of the open event streams
        self.game_streams = []  # [game id, queue, mode] of the open game streams (mode: None, "stall", "drop")
        self.draw_answer = None  # what the opponent says to our draw offer: True, False or None (nothing)
        self.too_many = 0  # answer this many coming requests with HTTP 429 (Lichess's rate limit)
        self.cut_posts = 0  # hang up on this many coming posts without an answer (the network gone)
        self.moves_seen = []  # every move posted, accepted or not (the tests check none is sent twice)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            # Lichess streams with chunked transfer encoding: requests (under berserk) hands each chunk
            # on as it comes. Every response closes its connection, to keep this server simple.
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                fake.handle(self, "GET")

            def do_POST(self):
                fake.handle(self, "POST")

        self.handler = Handler
        self.tls = tls
        self.port = port
        self._listen()

    def _listen(self):
        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def handle_error(self, request, client_address):
                pass  # a client that refused our certificate, or hung up: nothing to report

        self.server = Server(("127.0.0.1", self.port), self.handler)
        self.port = self.server.server_address[1]  # port 0: the one the system chose (kept on restart)
        self.url = "http://127.0.0.1:%d" % self.port
        if self.tls:
            import ssl

            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(self.tls[0], self.tls[1])
            # The handshake happens in each connection's own thread (on its first read), so a
            # client stuck in one never holds up the others.
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True, do_handshake_on_connect=False)
            self.url = "https://localhost:%d" % self.port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def restart(self, down_s=1.0):
        """The server goes down and comes back (a deploy): every connection cut, nothing listening
        for down_s, the games kept."""
        self.drop()
        with self.lock:
            for q in self.event_streams:
                q.put(None)
        self.server.shutdown()
        self.server.server_close()
        time.sleep(down_s)
        self._listen()
        self.start()

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ what the test does

    def game(self):
        with self.lock:
            return list(self.games.values())[-1] if self.games else None

    def add_game(self, gid, me_white, opponent_moves, **kw):
        with self.lock:
            g = Game(gid, me_white, opponent_moves, **kw)
            self.games[gid] = g
            self._event({"type": "gameStart", "game": {"gameId": gid, "fullId": gid + "xxxx", "id": gid,
                                                       "color": "white" if me_white else "black",
                                                       "compat": {"bot": False, "board": True}}})
            if not me_white and not g.board.move_stack:
                self._reply_later(g)
            return g

    def challenge(self, cid, me_white_after, opponent_moves):
        with self.lock:
            self.next_game = (me_white_after, opponent_moves)
            c = {"type": "challenge", "challenge": {
                "id": cid, "status": "created", "challenger": {"id": self.opponent.lower(), "name": self.opponent},
                "destUser": {"id": self.me.lower(), "name": self.me}, "variant": {"key": "standard"},
                "rated": False, "speed": "rapid", "timeControl": {"type": "clock", "limit": 600, "increment": 5},
                "color": "random", "finalColor": "white" if me_white_after else "black"}}
            self.challenges.append(c)
            self._event(c)

    def stall(self):
        with self.lock:
            for s in self.game_streams:
                s[2] = "stall"

    def drop(self):
        with self.lock:
            for s in self.game_streams:
                s[2] = "drop"
                s[1].put(None)

    def chat(self, text, user=None):
        self._game_event({"type": "chatLine", "room": "player", "username": user or self.opponent, "text": text})

    def gone(self, gone, seconds=None):
        ev = {"type": "opponentGone", "gone": gone}
        if seconds is not None:
            ev["claimWinInSeconds"] = seconds
        self._game_event(ev)

    def offer_draw(self):
        with self.lock:
            g = self.game()
            g.offer["bdraw" if g.me_white else "wdraw"] = True
            self._game_event(g.state())

    def opponent_resigns(self):
        self.ends("resign", "me")

    def ends(self, status, winner):
        """Lichess ends the game: status as its gameState says (resign, outoftime, timeout, ...),
        winner "me" or "them"."""
        with self.lock:
            g = self.game()
            g.status = status
            g.winner = "white" if g.me_white == (winner == "me") else "black"
            self._game_event(g.state())
            self._end_streams()

    def decline_my_draw(self):
        """The opponent declines the player's standing draw offer (Lichess then clears the flag)."""
        with self.lock:
            g = self.game()
            g.offer = {}
            self._game_event(g.state())

    def streams_open(self):
        with self.lock:
            return len(self.game_streams)

    # ------------------------------------------------------------------ streams

    def _event(self, ev):
        for q in list(self.event_streams):
            q.put(ev)

    def _game_event(self, ev):
        with self.lock:
            for s in self.game_streams:
                s[1].put(ev)

    def _end_streams(self):
        for s in self.game_streams:
            s[1].put(None)

    def _start_stream(self, h):
        h.send_response(200)
        h.send_header("Content-Type", "application/x-ndjson")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Connection", "close")
        h.end_headers()

    def _chunk(self, h, data):
        h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        h.wfile.flush()

    def _stream(self, h, q, first=(), entry=None):
        self._start_stream(h)
        try:
            for ev in first:
                self._chunk(h, (json.dumps(ev) + "\n").encode())
            while True:
                try:
                    ev = q.get(timeout=KEEP_ALIVE_S)
                except queue.Empty:
                    ev = "keep-alive"
                mode = entry[2] if entry else None
                if mode == "drop":
                    return  # cut mid-stream: no last chunk, as a connection lost
                if ev is None:
                    h.wfile.write(b"0\r\n\r\n")  # the server ends the stream (game over)
                    h.wfile.flush()
                    return
                if mode == "stall":
                    continue  # silence: no keep-alive, nothing; the client's read timeout must notice
                self._chunk(h, b"\n" if ev == "keep-alive" else (json.dumps(ev) + "\n").encode())
        except (BrokenPipeError, ConnectionResetError, OSError):
            return

    # ------------------------------------------------------------------ requests

    def _reply(self, h, code, body):
        data = json.dumps(body).encode()
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        if h.headers.get("Connection", "").lower() != "keep-alive":
            h.send_header("Connection", "close")  # else the connection serves the next request too
        h.end_headers()
        h.wfile.write(data)

    def _form(self, h):
        n = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(n).decode() if n else ""
        if h.headers.get("Content-Type", "").startswith("application/json"):
            return json.loads(raw or "{}")
        return {k: v[0] for k, v in parse_qs(raw).items()}

    def handle(self, h, method):
        path = h.path.split("?")[0]
        with self.lock:
            self.requests.append((method, path))
        if h.headers.get("Authorization") != "Bearer " + self.token:
            return self._reply(h, 401, {"error": "No such token"})
        with self.lock:
            limited = self.too_many > 0 and path != "/api/stream/event"
            if limited:
                self.too_many -= 1
        if limited:
            return self._reply(h, 429, {"error": "Too many requests. Try again later."})
        with self.lock:
            cut = method == "POST" and self.cut_posts > 0
            if cut:
                self.cut_posts -= 1
        if cut:
            h.close_connection = True  # no answer at all: the client sees the connection drop
            return
        parts = path.strip("/").split("/")
        if method == "GET" and path == "/api/account":
            return self._reply(h, 200, {"id": self.me.lower(), "username": self.me})
        if method == "GET" and path == "/api/stream/event":
            q = queue.Queue()
            with self.lock:
                first = [c for c in self.challenges]
                first += [{"type": "gameStart", "game": {"gameId": g.id, "id": g.id, "fullId": g.id + "xxxx"}}
                          for g in self.games.values() if not g.over()]
                self.event_streams.append(q)
            try:
                self._stream(h, q, first)
            finally:
                with self.lock:
                    self.event_streams.remove(q)
            return
        if method == "POST" and path == "/api/board/seek":
            form = self._form(h)
            t, inc = float(form.get("time", 0)), int(form.get("increment", 0))
            if t * 60 + 40 * inc < 480:
                return self._reply(h, 400, {"error": "Board API: rapid or slower only"})
            self._start_stream(h)
            self._chunk(h, b"\n")
            time.sleep(0.3)
            with self.lock:
                me_white, moves = self.next_game or (True, [])
                self.add_game("seek%04d" % len(self.games), me_white, moves, clock=(int(t * 60000), inc * 1000))
            h.wfile.write(b"0\r\n\r\n")  # paired: the seek's stream ends
            return
        if method == "POST" and len(parts) == 4 and parts[:2] == ["api", "challenge"]:
            cid, what = parts[2], parts[3]
            with self.lock:
                self.challenges = [c for c in self.challenges if c["challenge"]["id"] != cid]
                if what == "accept":
                    me_white, moves = self.next_game or (True, [])
                    self.add_game(cid, me_white, moves)
            return self._reply(h, 200, {"ok": True})
        if len(parts) >= 5 and parts[:3] == ["api", "board", "game"]:
            if parts[3] == "stream" and method == "GET":
                return self._game_stream(h, parts[4])
            return self._game_post(h, parts[3], parts[4:])
        return self._reply(h, 404, {"error": "Not found: %s" % path})

    def _game_stream(self, h, gid):
        with self.lock:
            g = self.games.get(gid)
            if g is None:
                return self._reply(h, 404, {"error": "No such game"})
            q = queue.Queue()
            entry = [gid, q, None]
            self.game_streams.append(entry)
            first = [g.full(self.me, self.opponent)]
        try:
            self._stream(h, q, first, entry)
        finally:
            with self.lock:
                self.game_streams.remove(entry)

    def _game_post(self, h, gid, rest):
        self._form(h)
        with self.lock:
            g = self.games.get(gid)
            if g is None:
                return self._reply(h, 404, {"error": "No such game"})
            what = rest[0]
            mine = chess.WHITE if g.me_white else chess.BLACK
            if g.over() and what != "chat":
                return self._reply(h, 400, {"error": "The game is over"})
            if what == "move":
                self.moves_seen.append(rest[1])
                move = chess.Move.from_uci(rest[1])
                if g.board.turn != mine or move not in g.board.legal_moves:
                    return self._reply(h, 400, {"error": "Not your turn, or an invalid move"})
                g.board.push(move)
                g.offer = {}
                self._after_move(g)
                if not g.over():
                    self._reply_later(g)
            elif what == "resign":
                g.status, g.winner = "resign", "black" if g.me_white else "white"
                self._game_event(g.state())
                self._end_streams()
            elif what == "abort":
                g.status = "aborted"
                self._game_event(g.state())
                self._end_streams()
            elif what == "draw":
                if rest[1] == "yes":
                    if g.offer or self.draw_answer:
                        g.status = "draw"
                        self._game_event(g.state())
                        self._end_streams()
                    else:
                        g.offer["wdraw" if g.me_white else "bdraw"] = True
                        self._game_event(g.state())
                else:
                    g.offer = {}
                    self._game_event(g.state())
            elif what == "chat":
                self._game_event({"type": "chatLine", "room": "player", "username": self.me, "text": "(sent)"})
            elif what in ("takeback", "claim-victory"):
                pass
            else:
                return self._reply(h, 404, {"error": "unknown"})
        return self._reply(h, 200, {"ok": True})

    def _after_move(self, g):
        outcome = g.board.outcome()
        if outcome:
            g.status = "mate" if outcome.winner is not None else "draw"
            g.winner = {chess.WHITE: "white", chess.BLACK: "black"}.get(outcome.winner)
        self._game_event(g.state())
        if g.over():
            self._end_streams()

    def _reply_later(self, g):
        def play():
            time.sleep(self.reply_delay)
            with self.lock:
                if g.over() or not g.script:
                    return
                g.board.push_uci(g.script.pop(0))
                g.offer = {}
                self._after_move(g)

        threading.Thread(target=play, daemon=True).start()
