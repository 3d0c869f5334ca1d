# Lichess's Board API from the board itself: the event stream, one game stream, a seek, and the posts
# (moves, draw, resign, abort, claim, chat, challenges), over online/https.py.
#
# Where it runs: on the RP2040's second core (online/boot.py starts it with _thread), never in
# the scan loop. A TLS handshake is seconds of big-number arithmetic that mbedTLS cannot be
# interrupted in, and a Lichess stream may need one at any moment (a reconnect), so slicing it
# into the 4 ms scan would still block for the whole handshake, and "only while the board is
# still" cannot be promised for a reconnect the network forces. The second core has nothing else
# to do; the scan core only swaps small lists with it under a lock (take(), post(), ...), and the
# scan loop allocates nothing so the shared heap's lock never holds it up.
#
# One core, several connections: each open stream is read in turn without waiting (non-blocking
# sockets), and the core pauses IDLE_MS when none had anything; a move goes out at the next turn.
# At most two TLS connections are open at once (each holds mbedTLS's buffers, 24 KB on the Pico W,
# its 16 KB input buffer in one piece: docs/memory.md): during a game its stream, and a post's own
# connection for as long as the post takes (opened for it, closed once answered); the event stream
# is read only while no game is being played (the game stream says everything a game needs); a
# seek's stream beside it. A finished stream is closed before any other is opened, and each
# connection is opened after a collection (online/https.py), while the 16 KB block is to be had.
#
# Where a second connection does not fit (a Pico W: about 28 KB for a post's handshake beside the
# stream's 24 KB, with POST_ROOM left after), the game's or the event stream steps aside for the post:
# closed before the post's connection opens, opened again at the next turn (Lichess sends the whole
# game again, gameFull, as after any reconnect). One connection at a time: a move reaches Lichess a
# handshake later, the board never runs out of memory for it.
#
# Streams: NDJSON, one JSON object a line, a blank keep-alive line about every 7 s (10 s on a
# seek). A stream silent for stream_timeout_ms is stalled: closed and opened again; so is one the
# server cuts. Opening again backs off (RECONNECT_MS). HTTP 429 stops every request for a full
# minute (rate_limit_ms). A post is sent again until Lichess answers it, however long the network is
# away; a 4xx answer is a refusal, with Lichess's reason, told to the main loop.
#
# What it tells the main loop, through take() (a list of tuples, oldest first):
#   ("event", dict)            a line of the event stream
#   ("game", gen, dict)        a line of game stream number gen (older numbers are stale)
#   ("down", kind, reason)     a stream lost (kind: "events", "game", "seek"): it is opened again;
#                              kind "connection": an unexpected error, every connection reopened
#   ("refused", what, args, reason)   a post refused (4xx); args as given to post()
#   ("retry", what, reason)    a post or seek that failed for the network: sent again later
#   ("wait", seconds)          HTTP 429: every request waits that long
#   ("auth", reason)           the token is refused (401/403): nothing more is tried
#   ("tls", reason)            the certificate does not verify: nothing more is tried
#   ("seek-done", reason)      the seek ended (reason None: paired)
#   ("up", what)               a stream (re)opened
#   ("me", username)           signed in: the token's account (asked first, before any stream)
import json

from online import lichess_game
from online.https import Connection, HttpError, TlsRefused

IDLE_MS = 20  # the network core's pause when no stream had data and nothing was to send
RECONNECT_MS = (500, 1000, 2000, 5000, 10000)
STREAM_TIMEOUT_MS = 20000  # Lichess's keep-alive is every 7 s: three missed means stalled
LOST = -1  # turn(): the Wi-Fi has been down too long
# Bytes free (after a collection) a post needs beside an open stream: its handshake's peak on the rp2
# port (27,856 B: docs/memory.md) and 16 KB for the rest of the board. With less, the stream is closed
# for the post.
POST_ROOM = 27856 + 16384
_NOTHING = ()  # take() when nothing happened: the same empty tuple every time, nothing allocated

# MicroPython's ticks_ms wraps at 2**30 ms (12.4 days on the Pico): times on this core are compared
# and added modulo 2**30, as time.ticks_diff and time.ticks_add do, so a board left on for weeks
# still reconnects. Right for any clock, wrapping or not, while intervals stay under 2**29 ms.
_TICKS_MASK = (1 << 30) - 1
_TICKS_HALF = 1 << 29


def ticks_diff(a, b):
    """a - b in ms, across the wrap (as time.ticks_diff)."""
    return ((a - b + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


def ticks_add(a, ms):
    """a + ms on the wrapping clock (as time.ticks_add)."""
    return (a + ms) & _TICKS_MASK

# berserk's names (the companion's) -> method, path; %s are the post's arguments in order.
PATHS = {
    "make_move": "/api/board/game/%s/move/%s",
    "resign_game": "/api/board/game/%s/resign",
    "abort_game": "/api/board/game/%s/abort",
    "offer_draw": "/api/board/game/%s/draw/yes",
    "accept_draw": "/api/board/game/%s/draw/yes",
    "decline_draw": "/api/board/game/%s/draw/no",
    "decline_takeback": "/api/board/game/%s/takeback/no",
    "claim_victory": "/api/board/game/%s/claim-victory",
    "post_message": "/api/board/game/%s/chat",
    "accept": "/api/challenge/%s/accept",
    "decline": "/api/challenge/%s/decline",
}


def _form(fields):
    out = []
    for k, v in fields:
        text = str(v)
        enc = ""
        for c in text:
            if c.isalpha() or c.isdigit() or c in "-_.~":
                enc += c
            else:
                for b in c.encode():
                    enc += "%%%02X" % b
        out.append(k + "=" + enc)
    return "&".join(out).encode()


class _Stream:
    def __init__(self, kind, method, path, body=b"", gen=0):
        self.kind = kind
        self.method = method
        self.path = path
        self.body = body
        self.gen = gen
        self.conn = None
        self.resp = None
        self.line = b""
        self.last_ms = 0
        self.retry_ms = None  # ms on the wrapping clock before which it is not opened again; None: now
        self.attempt = 0
        self.finished = False  # a game stream whose game ended: not opened again


class BoardApi:
    """socket, ssl_context: the modules/objects to connect with. ticks_ms(): a millisecond clock.
    sleep_ms(ms): waits (the second core's idle). wifi_up(): whether the Wi-Fi is joined."""

    def __init__(self, socket, ssl_context, token, host="lichess.org", port=443, ticks_ms=None,
                 sleep_ms=None, wifi_up=None, stream_timeout_ms=STREAM_TIMEOUT_MS,
                 rate_limit_ms=lichess_game.RATE_LIMIT_MS, lock=None, free=None):
        self.socket = socket
        self.ctx = ssl_context
        self._auth = "Bearer " + token  # the only place the token goes: Lichess's Authorization header
        self.host = host
        self.port = port
        self.ticks_ms = ticks_ms
        self.sleep_ms = sleep_ms
        self.wifi_up = wifi_up or (lambda: True)
        self.stream_timeout_ms = stream_timeout_ms
        self.rate_limit_ms = rate_limit_ms
        self.lock = lock
        self.free = free  # bytes free after a collection (memory.free on the board); None: room for two
        self.inbox = []  # to the main loop
        self.posts = []  # from the main loop: (what, args)
        self.streams = []
        self.gen = 0
        self.events_wanted = True
        self.wait_until = None  # 429: no request before this ms
        self.post_retry_ms = None  # as _Stream.retry_ms: cleared once passed, so no stale time
        self.post_attempt = 0
        self.stopped = False
        self.dead = None  # why nothing more is tried (token or certificate refused)
        self.streams.append(_Stream("events", "GET", "/api/stream/event"))
        self.me = None
        self.account_retry_ms = None
        self.account_attempt = 0
        self._errors = 0  # unexpected errors in a row (turn()): the back-off grows with them
        self._down_since = None  # ms when the Wi-Fi was first seen down (turn())

    def __repr__(self):
        return "<BoardApi %s>" % self.host  # never the token

    # ------------------------------------------------------------------ from the main loop

    def _locked(self, fn, *args):
        if self.lock is None:
            return fn(*args)
        with self.lock:
            return fn(*args)

    def take(self):
        """What happened since the last call (a list, oldest first; an empty tuple when nothing,
        without taking the lock: the idle poll allocates nothing)."""
        if not self.inbox:
            return _NOTHING  # a list that core 1 fills meanwhile is read at the next poll
        return self._locked(self._take)

    def _take(self):
        out, self.inbox = self.inbox, []
        return out

    def post(self, what, args):
        self._locked(self.posts.append, (what, tuple(args)))

    def watch_game(self, game_id):
        """Stream this game (and stop streaming any other); returns its generation number."""
        return self._locked(self._watch_game, game_id)

    def _watch_game(self, game_id):
        self.gen += 1
        for s in self.streams:
            if s.kind in ("game", "seek"):
                s.finished = True
        self.streams.append(_Stream("game", "GET", "/api/board/game/stream/" + game_id, gen=self.gen))
        return self.gen

    def seek(self, minutes, increment, rated=False, color="random"):
        body = _form((("rated", "true" if rated else "false"), ("time", minutes), ("increment", increment),
                      ("variant", "standard"), ("color", color)))
        self._locked(self.streams.append, _Stream("seek", "POST", "/api/board/seek", body))

    def stop(self):
        self.stopped = True

    # ------------------------------------------------------------------ on the second core

    def _tell(self, *item):
        self._locked(self.inbox.append, item)

    def note(self, *item):
        """Something for the main loop from elsewhere on the network core (boot.py: the Wi-Fi)."""
        self._tell(*item)

    def turn(self, lost_after_ms=None):
        """One turn of the second core's loop: the ms to pause before the next (0: at once), or
        LOST once the Wi-Fi has been down lost_after_ms (every connection closed, for
        online/boot.py to join again). An error no request expects (a bug, MemoryError from a long
        answer, a socket the stack cannot make) is told to the main loop as the connection lost,
        every connection is closed, and the next turn comes after a back-off: nothing on this core
        may end it but stop() or the Wi-Fi."""
        if lost_after_ms is not None:
            if self.wifi_up():
                self._down_since = None
            else:
                now = self.ticks_ms()
                if self._down_since is None:
                    self._down_since = now
                elif ticks_diff(now, self._down_since) >= lost_after_ms:
                    self._down_since = None
                    self.close_all()
                    return LOST
        try:
            busy = self.step()
            self._errors = 0
        except Exception as e:  # noqa: BLE001 - the network core must not die of it
            self.recover(e, self._errors)
            self._errors += 1
            return RECONNECT_MS[min(self._errors - 1, len(RECONNECT_MS) - 1)]
        return 0 if busy else IDLE_MS

    def run(self, lost_after_ms=None):
        """The second core's loop (turn() after turn()), until stop() (returns False), or, with
        lost_after_ms, until the Wi-Fi has been down that long (returns True)."""
        while not self.stopped:
            pause = self.turn(lost_after_ms)
            if pause == LOST:
                return True
            if pause:
                self.sleep_ms(pause)
        self.close_all()
        return False

    def close_all(self):
        """Close every connection; each stream is opened again at the next turn that can."""
        for s in self._locked(list, self.streams):
            try:
                self._close(s)
            except Exception:  # noqa: BLE001 - closing what is already broken
                pass

    def recover(self, e, errors=0):
        """After an unexpected error in step(): close every connection (each is opened again,
        backing off) and tell the main loop why, never with the token."""
        self.close_all()
        text = "%s: %s" % (type(e).__name__, e)
        token = self._auth[7:]
        if token and token in text:
            text = text.replace(token, "(the token)")
        self._tell("down", "connection", "%s; again in %d s" % (
            text[:120], RECONNECT_MS[min(errors, len(RECONNECT_MS) - 1)] // 1000 or 1))

    def step(self):
        """One turn: a post if one waits, then each stream once. Returns whether anything was done."""
        now = self.ticks_ms()
        if self.dead:
            return False
        if self.wait_until is not None:
            if ticks_diff(now, self.wait_until) < 0:
                return False
            self.wait_until = None
        if not self.wifi_up():
            return False
        if self.me is None:
            return self._account(now)
        streams = self._locked(list, self.streams)  # core 0 may add one meanwhile (watch_game, seek)
        busy = self._post_one(now, streams)  # a stream it closed for room opens again below
        playing = False
        for s in streams:
            if s.kind == "game" and not s.finished:
                playing = True
        for s in streams:
            if s.finished:
                # Closed before any stream is opened: the game's stream goes before the event
                # stream comes back, so no more than two connections are ever open.
                self._close(s)
                self._locked(self.streams.remove, s)
        for s in streams:
            if s.finished:
                continue
            if s.kind == "events" and playing:
                self._close(s)  # a game in progress: its stream says all; the RAM goes to it
                continue
            busy = self._service(s, self.ticks_ms()) or busy
            if self.dead or self.wait_until is not None:
                return True
        return busy

    def _close(self, s):
        if s.conn is not None:
            s.conn.close()
        s.conn = s.resp = None
        s.line = b""

    def _headers(self, form=False, keep=True):
        h = {"Authorization": self._auth, "Accept": "application/x-ndjson", "Connection": "keep-alive" if keep else "close"}
        if form:
            h["Content-Type"] = "application/x-www-form-urlencoded"
        return h

    def _refuse(self, e):
        if isinstance(e, TlsRefused):
            self.dead = str(e)
            self._tell("tls", str(e))
            return True
        return False

    def _status(self, status, body, s=None):
        """What a non-2xx status means for every request: True when handled (429, 401/403)."""
        if status == 429:
            self.wait_until = ticks_add(self.ticks_ms(), self.rate_limit_ms)
            self._tell("wait", self.rate_limit_ms // 1000)
            return True
        if status in (401, 403):
            self.dead = lichess_game.refusal(status, body)
            self._tell("auth", self.dead)
            return True
        return False

    def _service(self, s, now):
        if s.conn is None:
            if s.retry_ms is not None:
                if ticks_diff(now, s.retry_ms) < 0:
                    return False
                s.retry_ms = None  # passed: a time left standing would seem ahead again after 2**29 ms
            return self._open(s, now)
        try:
            data = s.resp.read_some()
        except HttpError as e:
            return self._lost(s, now, str(e))
        if data:
            s.last_ms = now
            s.attempt = 0
            self._lines(s, data)
        if s.resp.done:
            if s.kind == "seek":
                s.finished = True
                self._tell("seek-done", None)
            elif s.kind == "game" and s.finished:
                pass  # the game ended: the server closed its stream
            else:
                return self._lost(s, now, "the server closed it")
            self._close(s)
            return True
        if ticks_diff(now, s.last_ms) > self.stream_timeout_ms:
            return self._lost(s, now, "no data for too long (stalled)")
        return bool(data)

    def _open(self, s, now):
        conn = Connection(self.socket, self.ctx, self.host, self.port)
        try:
            resp = conn.request(s.method, s.path, self._headers(form=s.method == "POST"), s.body)
        except HttpError as e:
            if self._refuse(e):
                return True
            return self._lost(s, now, str(e))
        if resp.status != 200:
            try:
                body = resp.read_all()
            except HttpError:
                body = b""
            conn.close()
            if self._status(resp.status, body, s):
                s.retry_ms = ticks_add(self.ticks_ms(), self.rate_limit_ms) if resp.status == 429 else None
                return True
            reason = lichess_game.refusal(resp.status, body)
            if 400 <= resp.status < 500:
                s.finished = True  # refused (no such game, a seek Lichess will not pair): not again
                if s.kind == "seek":
                    self._tell("seek-done", reason)
                else:
                    self._tell("down", s.kind, reason + ": not opened again")
                return True
            return self._lost(s, now, reason)
        conn.nonblocking()
        s.conn, s.resp = conn, resp
        s.last_ms = self.ticks_ms()
        self._tell("up", s.kind)
        return True

    def _lost(self, s, now, reason):
        self._close(s)
        s.retry_ms = ticks_add(now, RECONNECT_MS[min(s.attempt, len(RECONNECT_MS) - 1)])
        s.attempt += 1
        if s.kind == "seek":
            self._tell("retry", "the seek", reason)
        else:
            self._tell("down", s.kind, reason)
        return True

    def _lines(self, s, data):
        s.line += data
        while True:
            i = s.line.find(b"\n")
            if i < 0:
                break
            raw, s.line = s.line[:i].strip(), s.line[i + 1:]
            if not raw:
                continue  # keep-alive
            try:
                ev = json.loads(raw)
            except ValueError:
                self._tell("down", s.kind, "a line that is not JSON")
                continue
            if s.kind == "game":
                st = ev.get("state", ev) if ev.get("type") == "gameFull" else ev
                if ev.get("type") in ("gameFull", "gameState") and st.get("status") not in lichess_game.PLAYING:
                    s.finished = True  # the game is over: its stream is not opened again
                self._tell("game", s.gen, ev)
            elif s.kind == "events":
                self._tell("event", ev)
        if len(s.line) > 8192:
            s.line = b""  # no Lichess line is that long: drop it rather than fill the heap

    def _account(self, now):
        """GET /api/account: who the token belongs to (the logic needs it to tell the sides)."""
        if self.account_retry_ms is not None:
            if ticks_diff(now, self.account_retry_ms) < 0:
                return False
            self.account_retry_ms = None
        conn = Connection(self.socket, self.ctx, self.host, self.port)
        try:
            resp = conn.request("GET", "/api/account", {"Authorization": self._auth, "Connection": "close"})
            body = resp.read_all()
        except HttpError as e:
            conn.close()
            if not self._refuse(e):
                self._tell("retry", "signing in", str(e))
                self.account_retry_ms = ticks_add(now, RECONNECT_MS[min(self.account_attempt, len(RECONNECT_MS) - 1)])
                self.account_attempt += 1
            return True
        conn.close()
        if self._status(resp.status, body):
            return True
        try:
            self.me = json.loads(body)["username"]
        except (ValueError, KeyError, TypeError):
            self._tell("retry", "signing in", lichess_game.refusal(resp.status, body))
            self.account_retry_ms = ticks_add(now, RECONNECT_MS[-1])
            return True
        self._tell("me", self.me)
        return True

    def _first_post(self):
        return self.posts[0] if self.posts else None

    def _make_room(self, streams):
        """Before a post: the game's or the event stream closed when a second connection would
        not leave POST_ROOM (a seek's stays: closing it would cancel the seek)."""
        if self.free is None:
            return
        open_streams = [s for s in streams if s.conn is not None and s.kind != "seek"]
        if open_streams and self.free() < POST_ROOM:
            for s in open_streams:
                self._close(s)

    def _post_one(self, now, streams=()):
        if self.post_retry_ms is not None:
            if ticks_diff(now, self.post_retry_ms) < 0:
                return False
            self.post_retry_ms = None
        first = self._locked(self._first_post)  # core 0 appends meanwhile: read it under the lock
        if first is None:
            return False
        self._make_room(streams)
        what, args = first
        path = PATHS[what] % args[:PATHS[what].count("%s")]
        body = b""
        if what == "post_message":
            body = _form((("room", "player"), ("text", args[1])))
        # Each post on a connection of its own, closed once answered: a connection kept alive for
        # the next move would hold mbedTLS's 24 KB for the whole game beside the game's stream.
        conn = Connection(self.socket, self.ctx, self.host, self.port)
        try:
            resp = conn.request("POST", path, self._headers(form=True, keep=False), body)
            answer = resp.read_all()
        except HttpError as e:
            conn.close()
            if self._refuse(e):
                return True
            self._tell("retry", what, str(e))
            self.post_retry_ms = ticks_add(now, RECONNECT_MS[min(self.post_attempt, len(RECONNECT_MS) - 1)])
            self.post_attempt += 1
            return True
        conn.close()
        self.post_attempt = 0
        if self._status(resp.status, answer):
            return True  # 429: the same post goes after the minute
        self._locked(self.posts.pop, 0)
        if 400 <= resp.status < 500:
            self._tell("refused", what, args, lichess_game.refusal(resp.status, answer))
        elif resp.status >= 500:
            self._locked(self.posts.insert, 0, (what, args))  # Lichess's trouble: again later
            self.post_retry_ms = ticks_add(now, RECONNECT_MS[2])
            self._tell("retry", what, "HTTP %d" % resp.status)
        return True
