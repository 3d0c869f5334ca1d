# The board's own game on a Lichess broadcast (docs/broadcast.md, docs/spec.md section 13): after
# every move it commits and at the result (a mate, the kings' signs, a flag fall) the board pushes
# the game's whole PGN, with its tags and a `[%clk]` from its own clock after each move, to
# POST /api/broadcast/round/{id}/push (OAuth scope study:write, text/plain). lila matches the game
# to the round's board by its tags (White, Black, Round, Event) and adds the moves it lacks, so each
# board of a club pushes alone into the shared round.
#
# Two halves, as the Lichess game (online/board_api.py, online/central.py):
# - Broadcast, polled from the scan loop (loop.py's feature edge): it keeps core/pgn_writer.py's
#   text up to the referee's game, and says on the console and the LEDs when the round is behind;
# - Pusher, on the second core (online/boot.py's NetworkCore joins the Wi-Fi and calls turn()):
#   one request at a time on one TLS connection (kept alive), sending the text as it stands when
#   the request goes: moves made while a push is under way, or while the network is gone, go with
#   the next one. Lichess's rules: after HTTP 429 nothing for a full minute; a 5xx or a network
#   failure is tried again, backing off; a refusal that sending again cannot mend (the token,
#   a round with a source URL, no such round) stops the pushing and says why in one sentence.
# The text is the one thing both cores touch: the scan loop changes it only when it can take its
# lock at once (else at its next poll), the network core holds it while it writes the request.
#
# A power cut: the board resumes the saved game (store.py) and the first push after it sends the
# whole game again; lila keeps what it had and adds the rest (the clocks of the moves before the
# cut too: they are already on the round).
import json

from online.https import Connection, HttpError, TlsRefused

RATE_LIMIT_MS = 60000  # Lichess: after a 429, wait a full minute before any request
RETRY_MS = (1000, 2000, 5000, 10000, 30000)  # a 5xx or the network gone: tried again after these
IDLE_MS = 20  # the network core's pause when there is nothing to push
# The round is behind when a move made this long ago is not on it yet: the console and the corner
# squares say so (app.notice), again every BEHIND_REPEAT_MS while it lasts, and once caught up.
BEHIND_MS = 10000
BEHIND_REPEAT_MS = 30000
USER_AGENT = "electronic-chessboard-firmware/1 (broadcast; MicroPython)"
PATH = "/api/broadcast/round/%s/push"
_NOTHING = ()
LOST = -1  # turn(): the Wi-Fi has been down too long (online/board_api.py's LOST)

_TICKS_MASK = (1 << 30) - 1
_TICKS_HALF = 1 << 29


def _diff(a, b):
    return ((a - b + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF


class Pusher:
    """The network core's half. socket: the module; ssl_context: set by boot.py's NetworkCore when the
    roots are loaded (or given by a test); lock: _thread's lock guarding the PGN text."""

    def __init__(self, socket, ssl_context, token, round_id, lock, news_lock, host="lichess.org", port=443,
                 ticks_ms=None, sleep_ms=None, wifi_up=None, rate_limit_ms=RATE_LIMIT_MS, retry_ms=RETRY_MS):
        self.socket = socket
        self.ctx = ssl_context
        self._auth = "Bearer " + token  # the only place the token goes: the Authorization header
        self.path = PATH % round_id
        self.lock = lock
        self.news_lock = news_lock
        self.host = host
        self.port = port
        self.ticks_ms = ticks_ms
        self.sleep_ms = sleep_ms
        self.wifi_up = wifi_up or (lambda: True)
        self.rate_limit_ms = rate_limit_ms
        self.retry_ms = retry_ms
        self.writer = None  # core/pgn_writer.py's PgnWriter, kept by Broadcast under lock
        self.version = 0  # bumped by the scan loop, under lock, each time the text changes
        self.sent = 0  # the version the round has (0: nothing yet)
        self.sent_ply = 0
        self.sent_result = "*"
        self.inbox = []
        self.conn = None
        self.wait_until = None  # no request before this (ms on the wrapping clock)
        self.paused = False  # the wait is Lichess's minute after a 429 (else a failure's back-off)
        self.attempt = 0
        self._down_since = None  # ms when the Wi-Fi was first seen down (turn())
        self.stopped = False
        self.dead = None  # why nothing more is pushed
        self.pushes = 0  # requests answered 200 (the console's and the tests' count)

    def __repr__(self):
        return "<Pusher %s>" % self.host  # never the token

    # ------------------------------------------------------------------ from the scan loop

    def take(self):
        if not self.inbox:
            return _NOTHING
        with self.news_lock:
            out, self.inbox = self.inbox, []
        return out

    def stop(self):
        self.stopped = True

    def note(self, *item):
        with self.news_lock:
            self.inbox.append(item)

    # ------------------------------------------------------------------ on the second core

    def turn(self, lost_after_ms=None):
        """One turn of the network core (online/boot.py's NetworkCore): the ms to pause before the
        next (0: at once), or LOST once the Wi-Fi has been down lost_after_ms (the connection
        closed, for the core to join again). An error no push expects (a bug, a socket the stack
        cannot make) closes the connection and backs off: only stop() or the Wi-Fi ends this."""
        if lost_after_ms is not None:
            if self.wifi_up():
                self._down_since = None
            else:
                now = self.ticks_ms()
                if self._down_since is None:
                    self._down_since = now
                elif _diff(now, self._down_since) >= lost_after_ms:
                    self._down_since = None
                    self.close_all()
                    return LOST
        try:
            busy = self.step()
        except Exception as e:  # noqa: BLE001 - the network core must not die of it
            self.close_all()
            self._retry("%s: %s" % (type(e).__name__, str(e)[:80]))
            busy = False
        return 0 if busy else IDLE_MS

    def close_all(self):
        """The one connection closed; the next push opens another."""
        self._close()

    def step(self):
        """One push if the round lacks something and it may be sent now; whether one was made."""
        if self.dead or self.writer is None:
            return False
        if self.wait_until is not None:
            if _diff(self.ticks_ms(), self.wait_until) < 0:
                return False
            self.wait_until = None
            self.paused = False
        if self.version == self.sent or not self.wifi_up():
            return False
        self._push()
        return True

    def _push(self):
        headers = {"Authorization": self._auth, "Content-Type": "text/plain", "User-Agent": USER_AGENT,
                   "Accept": "application/json", "Connection": "keep-alive"}
        kept = self.conn is not None  # a connection kept from the last push: the server may have dropped it
        try:
            while True:
                if self.conn is None:
                    self.conn = Connection(self.socket, self.ctx, self.host, self.port)
                    self.conn.open()  # the handshake outside the lock: the scan loop may write meanwhile
                try:
                    with self.lock:
                        version = self.version
                        ply = self.writer.ply
                        result = self.writer.result
                        self.conn.send("POST", self.path, headers, self.writer.parts())
                    resp = self.conn.read_head()
                    break
                except HttpError as e:
                    # A kept connection the server closed while idle (its keep-alive ran out
                    # between two moves) fails at once, nothing answered: the same push goes again
                    # on a new connection now, not after a back-off. A stall is not tried again here.
                    if not kept or isinstance(e, TlsRefused) or "stalled" in str(e):
                        raise
                    kept = False
                    self._close()
            body = resp.read_all(8192)
        except TlsRefused as e:
            self._close()
            self._stop_pushing(str(e))
            return
        except HttpError as e:
            self._close()
            self._retry(str(e))
            return
        if self.conn is not None and self.conn.closed:
            self._close()
        self._answer(resp.status, body, version, ply, result)

    def _answer(self, status, body, version, ply, result):
        error = None
        try:
            answer = json.loads(body) if body else {}
        except ValueError:
            answer = None
        if status == 200:
            games = answer.get("games") if isinstance(answer, dict) else None
            if not isinstance(games, list):
                # Not Lichess's answer (a captive portal, a proxy): the round may not have the
                # game, so it is sent again, as after a failure.
                self._retry("an answer that is not Lichess's (HTTP 200 without the games)")
                return
            self.attempt = 0
            self.pushes += 1
            self.sent, self.sent_ply, self.sent_result = version, ply, result
            if games and isinstance(games[0], dict) and games[0].get("error"):
                # The PGN was refused (lila could not read a move): sending it again cannot mend it;
                # the next move's push tries again.
                self.note("refused", "Lichess did not take the game: %s" % str(games[0]["error"])[:120])
            return
        if isinstance(answer, dict) and isinstance(answer.get("error"), str):
            error = answer["error"][:160]
        if status == 429:
            self.wait_until = (self.ticks_ms() + self.rate_limit_ms) & _TICKS_MASK
            self.paused = True
            self.note("wait", self.rate_limit_ms // 1000)
            return
        if status >= 500:
            self._retry("Lichess answered %d" % status)
            return
        if status in (401, 403):
            self._stop_pushing("Lichess refused the broadcast token (%d%s): it needs the study:write scope and "
                               "to belong to the broadcast's owner or a contributor (online broadcast-token TOKEN)"
                               % (status, ": " + error if error else ""))
        elif status == 404:
            self._stop_pushing("Lichess has no broadcast round %s (online broadcast ROUND_ID: the 8 characters "
                               "at the end of the round's URL)" % self.path.split("/")[-2])
        elif error and "upstream" in error.lower() or error and "source" in error.lower():
            self._stop_pushing("the round takes no pushes: it has a source URL that Lichess reads itself (%s); "
                               "make a round with no source for the boards (docs/broadcast.md)" % error)
        elif status == 400 and error:
            # Lichess refused this text and said why: sending it again cannot mend it; said, and
            # not sent again until the game changes.
            self.sent, self.sent_ply, self.sent_result = version, ply, result
            self.note("refused", "Lichess refused the push (%d): %s" % (status, error))
        else:
            # Not an answer of Lichess's push API (a proxy, a portal): nothing says the round has
            # the game, so it is sent again, backing off.
            self._retry("an answer that is not Lichess's (HTTP %d)" % status)

    def _stop_pushing(self, reason):
        self.dead = reason
        self.note("dead", reason)

    def _retry(self, reason):
        wait = self.retry_ms[min(self.attempt, len(self.retry_ms) - 1)]
        self.attempt += 1
        self.wait_until = (self.ticks_ms() + wait) & _TICKS_MASK
        self.note("retry", "%s; again in %d s" % (reason, (wait + 999) // 1000))

    def _close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001 - closing what is already broken
                pass
            self.conn = None


class Broadcast:
    """The scan loop's half: polled as the online central is (loop.py), stopped by stop()."""

    net_state = "offline"
    session = None  # no Lichess game: `online seek` says so

    def __init__(self, app, console, pusher, tags_from, today=None):
        from core.pgn_writer import PgnWriter

        self.app = app
        self.console = console
        self.pusher = pusher
        self.writer = pusher.writer = PgnWriter()
        self.tags_from = tags_from  # (settings, clock, date) -> the tags (key, value) of the game
        self.today = today or (lambda: None)
        self.game = None  # what the writer last followed: the game object, its ply, last move, result
        self.ply = -1
        self.last = -1
        self.result = None
        self.unsent_since = None  # when the round last had everything the board had
        self.behind_said = None  # when the board last said the round is behind
        self.finished = False  # a result is on the round: a new game on the board is not pushed over it

    def poll(self, now):
        for item in self.pusher.take():
            self._news(item, now)
        ref = self.app.referee
        game = ref.game
        if not (game is self.game and game.ply() == self.ply and game.last_move() == self.last
                and game.result == self.result):
            self._follow(game, ref.clock, now)
        self._check_behind(now)

    def stop(self):
        self.pusher.stop()

    def _follow(self, game, clock, now):
        pusher = self.pusher
        if self.finished and (game.result == "*" or game.ply() < pusher.sent_ply):
            if game is not self.game:
                self.game = game
                self.console("broadcast: this board's game is over on the round; a new game goes to a new "
                             "round (online broadcast ROUND_ID)")
            self.ply, self.last, self.result = game.ply(), game.last_move(), game.result
            return
        if not pusher.lock.acquire(0):
            return  # a push is being written: the text changes at the next poll, and goes with the next push
        try:
            tags = self.tags_from(self.app.settings, clock, self.today())
            changed = self.writer.follow(game, clock.history if clock is not None else None, tags)
            if changed:
                pusher.version += 1
        finally:
            pusher.lock.release()
        self.game, self.ply, self.last, self.result = game, game.ply(), game.last_move(), game.result
        if changed and self.unsent_since is None:
            self.unsent_since = now

    def _check_behind(self, now):
        pusher = self.pusher
        if pusher.sent == pusher.version:
            if pusher.sent_result != "*":
                self.finished = True
            if self.behind_said is not None:
                self.console("broadcast: caught up, the round has all %d moves" % pusher.sent_ply)
                self._net("online")
            self.unsent_since = self.behind_said = None
            return
        if self.unsent_since is None or now - self.unsent_since < BEHIND_MS:
            return
        if self.behind_said is None or now - self.behind_said >= BEHIND_REPEAT_MS:
            self.behind_said = now
            self._net("behind")
            text = "broadcast: the round is behind, %d moves not on it yet" % (self.writer.ply - pusher.sent_ply)
            if pusher.dead:
                text += " (%s)" % pusher.dead
            elif pusher.paused:
                text += " (Lichess asked the board to wait)"
            self.app.notice(text, now)

    def _net(self, state):
        self.net_state = state

    def _news(self, item, now):
        kind = item[0]
        if kind == "wifi":
            self._net("online" if item[1] == "online" else "offline")
            self.console("broadcast: wifi %s" % item[1])
        elif kind == "wait":
            self.console("broadcast: Lichess asked for a pause (HTTP 429): the next push in %d s" % item[1])
        elif kind == "retry":
            self.console("broadcast: push failed (%s)" % item[1])
        elif kind == "dead":
            self._net("refused")
            self.console("broadcast: stopped: " + item[1])
            self.app.notice("broadcast: stopped", now)
        else:
            self.console("broadcast: " + str(item[-1]))


def tags(settings, clock, date):
    """The game's tags from the settings (board.json, `online broadcast-...`): the roster, Board,
    and TimeControl when the board keeps a clock."""
    board = settings.broadcast_board
    out = [("Event", settings.broadcast_event), ("Site", "Over the board"), ("Date", date or "????.??.??"),
           ("Round", settings.broadcast_round),
           ("White", settings.broadcast_white or "White, board %d" % board),
           ("Black", settings.broadcast_black or "Black, board %d" % board),
           ("Board", "%d" % board)]
    if clock is not None:
        from core.clock import pgn_time_control

        out.append(("TimeControl", pgn_time_control(clock.periods)))
    return tuple(out)


def today():
    """The date as PGN writes it, once the chip's clock is set (SNTP); None before."""
    import time

    t = time.localtime()
    if t[0] < 2024:
        return None
    return "%04d.%02d.%02d" % (t[0], t[1], t[2])


def start(app, console, keys, network, host="lichess.org", port=443, retry_ms=None, lost_ms=None, set_rtc=None,
          rate_limit_ms=RATE_LIMIT_MS, push_retry_ms=RETRY_MS, ssl_context=None):
    """The Broadcast to poll, or None (console says why) when the Wi-Fi or the token is not set.
    The network core (online/boot.py) joins the Wi-Fi and runs the pusher."""
    round_id = app.settings.broadcast
    if not keys.get("ssid") or not keys.get("broadcast"):
        console("broadcast: not set up (USB: online wifi-ssid NAME, online wifi-password PW, "
                "online broadcast-token TOKEN with the study:write scope)")
        return None
    import _thread
    import gc
    import socket
    import ssl

    from memory import forget
    from online import boot

    ticks_ms, sleep_ms = boot.clock_functions()
    pusher = Pusher(socket, ssl_context, keys["broadcast"], round_id, _thread.allocate_lock(),
                    _thread.allocate_lock(), host, port, ticks_ms, sleep_ms, rate_limit_ms=rate_limit_ms,
                    retry_ms=push_retry_ms)
    broadcast = Broadcast(app, console, pusher, tags, today)
    console("broadcast: to round %s as board %d (%s - %s)" % (
        round_id, app.settings.broadcast_board, app.settings.broadcast_white or "White",
        app.settings.broadcast_black or "Black"))
    core = boot.NetworkCore(pusher, network, socket, ssl, keys["ssid"], keys.get("password"), ticks_ms, sleep_ms,
                            retry_ms or boot.JOIN_RETRY_MS, lost_ms or boot.WIFI_LOST_MS, set_rtc)
    keys = None
    forget(("online.secrets",))  # read once; `online` over USB loads it again
    gc.collect()
    _thread.start_new_thread(boot.run, (core,))
    return broadcast
