"""Lichess: the Board API through berserk (client.board.*, client.challenges.*), streams on threads.

The event stream (/api/stream/event: gameStart, gameFinish, challenge ...) and one game stream at
a time (/api/board/game/stream/ID: gameFull first, then gameState, chatLine, opponentGone) are
read on threads and put on the companion's queue. Lichess sends a keep-alive line every 7 s, so
a stream silent for `stream_timeout` seconds has stalled: the read times out (requests' read
timeout), and the stream is opened again; a stream the server drops mid-game is opened again too,
and its first line, gameFull, brings the whole game back. Posts (moves, resign, draw, chat) go
through a worker thread that retries while the network is down, so a move is never lost: a move
is sent again until Lichess takes it or refuses it (with its reason), however long the network is
away. An HTTP 429 ("too many requests") makes every request wait a full minute, then carry on.
A seek is held open as long as Lichess holds it (its keep-alive line comes about every 10 s) and
made again if it ends without a game.

The token comes from a file or $LICHESS_TOKEN and is only ever put in the Authorization header:
it is never printed, not even in an error (requests' errors name the address, not the headers).
"""
import os
import queue
import threading
import time

import berserk
import berserk.exceptions
import requests

from online import lichess_game as logic  # firmware/online: shared with the board

RECONNECT_S = (0.5, 1, 2, 5, 10)  # back-off between attempts to open a stream again
# A seek's stream carries a blank line about every 10 s: silence for this long means it is lost.
SEEK_READ_TIMEOUT_S = 30


def read_token(path=None):
    """The API token (scope board:play): from `path`, else $LICHESS_TOKEN."""
    if path:
        try:
            with open(path) as f:
                token = f.read().strip()
        except OSError as e:
            raise ValueError("cannot read the token file %s: %s" % (path, e.strerror))
    else:
        token = os.environ.get("LICHESS_TOKEN", "").strip()
    if not token:
        raise ValueError("no Lichess token: create one with the board:play scope at "
                         "https://lichess.org/account/oauth/token/create and pass --token-file FILE or set LICHESS_TOKEN")
    return token


def parse_seek(text):
    """'15+10' -> (15, 10): minutes and increment seconds; refuses what the Board API cannot pair."""
    try:
        return logic.parse_seek(text)
    except ValueError as e:
        raise ValueError(str(e).replace("a seek is", "--seek wants"))


class TimeoutSession(berserk.TokenSession):
    """berserk's token session with a timeout on every request: (connect, read). For a stream the
    read timeout is the longest silence between two lines."""

    def __init__(self, token, timeout):
        super().__init__(token)
        self.timeout = timeout

    def request(self, method, url, **kw):
        kw.setdefault("timeout", self.timeout)
        return super().request(method, url, **kw)


def why(e):
    if isinstance(e, berserk.exceptions.ResponseError):
        return logic.refusal(e.status_code, e.response.text or e.reason or "")
    text = str(e)
    if "Read timed out" in text or isinstance(e, requests.exceptions.ReadTimeout):
        return "no data for too long (stalled)"
    return type(e).__name__


class Lichess:
    def __init__(self, events, token, server="https://lichess.org", stream_timeout=20.0,
                 rate_limit_s=logic.RATE_LIMIT_MS / 1000):
        self.events = events
        self.rate_limit_s = rate_limit_s
        self._token = token
        self.server = server.rstrip("/")
        self.stream_timeout = stream_timeout
        self.client = self._client(timeout=(5, 10))
        self._game_gen = 0
        self._game_session = None
        self._stop = threading.Event()
        self._quiet_lock = threading.Lock()
        self._quiet_until = 0.0  # time.monotonic() before which no request goes out (a 429's minute)
        self._posts = queue.Queue()
        threading.Thread(target=self._poster, name="lichess-posts", daemon=True).start()

    def _client(self, timeout):
        session = TimeoutSession(self._token, timeout)
        return berserk.Client(session=session, base_url=self.server)

    def stop(self):
        self._stop.set()
        self.stop_game()

    # ------------------------------------------------------------------ requests

    def username(self):
        return self.client.account.get()["username"]

    def post(self, what, *args):
        """Queue a post: what is a name of client.board/challenges ("make_move", "resign_game" ...)."""
        self._posts.put((what, args))

    def _rate_limited(self):
        """HTTP 429 on any request: Lichess wants a full minute of silence before the next one,
        from every thread (a move included), so the pause is shared. True when stopped."""
        with self._quiet_lock:
            now = time.monotonic()
            told = now < self._quiet_until  # another thread's 429 already started the pause
            self._quiet_until = max(self._quiet_until, now + self.rate_limit_s)
        if not told:
            self.events.put(("li-wait", self.rate_limit_s))
        return self._quiet()

    def _quiet(self):
        """Wait until a 429's pause is over, before any request. True when stopped."""
        while True:
            left = self._quiet_until - time.monotonic()
            if left <= 0:
                return self._stop.is_set()
            if self._stop.wait(left):
                return True

    def _poster(self):
        while not self._stop.is_set():
            try:
                what, args = self._posts.get(timeout=0.5)
            except queue.Empty:
                continue
            group = self.client.challenges if what in ("accept", "decline") else self.client.board
            attempt = 0
            while not self._stop.is_set():
                if self._quiet():
                    return
                try:
                    getattr(group, what)(*args)
                    self.events.put(("li-posted", what, args))
                    break
                except berserk.exceptions.ResponseError as e:
                    if e.status_code == 429:
                        if self._rate_limited():
                            return
                        continue
                    if e.status_code < 500:
                        # Lichess said no (an illegal move, a game already over): retrying will not help.
                        self.events.put(("li-refused", what, args, why(e)))
                        break
                    self.events.put(("li-retry", what, args, why(e)))  # its servers are busy: again
                except Exception as e:  # noqa: BLE001 - the network: wait and try again, never give up
                    self.events.put(("li-retry", what, args, why(e)))
                if self._stop.wait(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)]):
                    return
                attempt += 1

    def seek(self, minutes, inc, rated, color):
        def run():
            client = self._client(timeout=(5, SEEK_READ_TIMEOUT_S))
            while not self._stop.is_set():
                if self._quiet():
                    return
                try:
                    client.board.seek(minutes, inc, rated=rated, color=color)
                    self.events.put(("li-seek-done", None))
                    return  # paired: the game comes on the event stream
                except berserk.exceptions.ResponseError as e:
                    if e.status_code == 429:
                        if self._rate_limited():
                            return
                        continue
                    self.events.put(("li-seek-done", why(e)))
                    return
                except Exception as e:  # noqa: BLE001 - the network, a lost stream: seek again
                    self.events.put(("li-retry", "the seek", (), why(e)))
                if self._stop.wait(RECONNECT_S[2]):
                    return

        threading.Thread(target=run, name="lichess-seek", daemon=True).start()

    # ------------------------------------------------------------------ streams

    def watch_events(self):
        threading.Thread(target=self._guarded, args=("events", None, 0), name="lichess-events", daemon=True).start()

    def watch_game(self, game_id):
        """Stream this game (and stop streaming any other: one game stream at a time); returns
        the stream's generation number, which its ("li-game", gen, event) events carry."""
        self.stop_game()
        self._game_gen += 1
        threading.Thread(target=self._guarded, args=("game", game_id, self._game_gen),
                         name="lichess-game", daemon=True).start()
        return self._game_gen  # the events of this stream carry it; older streams' are stale

    def stop_game(self):
        self._game_gen += 1
        session, self._game_session = self._game_session, None
        if session is not None:
            session.close()

    def _guarded(self, kind, game_id, gen):
        """A stream's thread: a bug in it is reported and the stream opened again, never a
        silent end (the game would go on without its moves)."""
        while not self._stop.is_set():
            try:
                self._stream(kind, game_id, gen)
                return
            except Exception as e:  # noqa: BLE001
                self.events.put(("li-stream-down", kind, "internal error %s: %s" % (type(e).__name__, e)))
                if self._stop.wait(RECONNECT_S[-1]):
                    return

    def _stream(self, kind, game_id, gen):
        attempt = 0
        while not self._stop.is_set() and (kind == "events" or gen == self._game_gen):
            if self._quiet():
                return
            client = self._client(timeout=(5, self.stream_timeout))
            if kind == "game":
                self._game_session = client.board._r.session
            finished = False
            try:
                if kind == "events":
                    lines = client.board.stream_incoming_events()
                else:
                    lines = client.board.stream_game_state(game_id)
                for ev in lines:
                    if kind == "game" and gen != self._game_gen:
                        return
                    attempt = 0
                    if kind == "game":
                        state = ev.get("state", ev) if ev.get("type") == "gameFull" else ev
                        if ev.get("type") in ("gameFull", "gameState"):
                            finished = state.get("status") not in ("created", "started")
                        self.events.put(("li-game", gen, ev))
                    else:
                        self.events.put(("li-event", ev))
                if kind == "game" and finished:
                    return  # the server closes a finished game's stream: nothing to resume
                reason = "the server closed it"
            except berserk.exceptions.ResponseError as e:
                if e.status_code in (401, 403):
                    self.events.put(("li-auth", why(e)))
                    return
                if e.status_code == 429:
                    if self._rate_limited():
                        return
                    continue
                reason = why(e)
            except Exception as e:  # noqa: BLE001 - a stall (read timeout), a dropped connection
                reason = why(e)
            if self._stop.is_set() or (kind == "game" and gen != self._game_gen):
                return
            self.events.put(("li-stream-down", kind, reason))
            self._stop.wait(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)])
            attempt += 1
