"""A game on Lichess: the opponent's moves lit on the board, the player's sent, clocks, draw offers
and resignation with the board's gestures, chat, aborts, and the board brought back in step with
the Lichess game whenever a stream comes back (its first line, gameFull, is the whole game)."""
import datetime
import time

import chess

from . import lichess as api
from .match import Match

# Lichess's status -> (the words shown, the CPP end reason).
ENDINGS = {
    "mate": ("checkmate", "checkmate"),
    "resign": ("resignation", "resign"),
    "stalemate": ("stalemate", "draw"),
    "timeout": ("the opponent left", "timeout"),
    "outoftime": ("time", "timeout"),
    "draw": ("agreement or a rule", "draw"),
    "aborted": ("aborted", "abort"),
    "noStart": ("no first move", "abort"),
    "cheat": ("fair play", "undefined"),
    "insufficientMaterialClaim": ("insufficient material", "draw"),
    "variantEnd": ("the variant's end", "undefined"),
    "unknownFinish": ("unknown", "undefined"),
}


def millis(value):
    if value is None:
        return None
    if isinstance(value, datetime.timedelta):
        return value.total_seconds() * 1000
    return float(value)


class LichessMatch(Match):
    opponent = "your opponent"
    extra_help = {
        "say TEXT": "write in the game's chat",
        "abort": "abort the game (before both sides moved)",
        "claim": "claim the win when the opponent has left",
        "accept": "accept the challenge last announced",
    }

    def __init__(self, port, client, args, **kw):
        super().__init__(port, **kw)
        self.lichess = client
        self.args = args
        self.me = None
        self.game_id = None
        self.gen = None
        self.status = None
        self.challenge = None  # the last challenge announced (id)
        self.draw_from_board = False  # the player made the kings' draw sign; the board awaits our answer
        self.draw_to_board = False  # the opponent's offer shown to the player
        self.sent = None  # our move posted, not yet in a gameState
        self.synced_once = False
        self.full_seen = False  # a gameFull came: the game is known, the board can begin

    # ------------------------------------------------------------------ start and stop

    def started(self):
        try:
            self.me = self.lichess.username()
        except Exception as e:  # noqa: BLE001
            self.say("Lichess does not let this token in (%s): check it has the board:play scope" % api.why(e))
            self.done = self.failed = True
            return
        self.say("signed in to %s as %s" % (self.lichess.server, self.me))
        self.lichess.watch_events()
        a = self.args
        if a.game:
            self.open_game(a.game)
        elif a.seek:
            minutes, inc = api.parse_seek(a.seek)
            self.say("seeking a %s+%d game%s; waiting for an opponent" % (minutes, inc, " (rated)" if a.rated else ""))
            self.lichess.seek(minutes, inc, a.rated, a.color)
        elif a.accept is not None:
            self.say("waiting for a challenge%s" % (" from " + a.accept if a.accept else ""))
        else:
            self.say("looking for a game in progress (or --seek, --accept)")

    def stopped(self):
        self.lichess.stop()

    def open_game(self, game_id):
        if self.game_id == game_id:
            return
        self.game_id = game_id
        self.gen = None
        self.say("playing game %s/%s" % (self.lichess.server, game_id))
        self.gen = self.lichess.watch_game(game_id)

    # ------------------------------------------------------------------ what Lichess says

    def opponent_event(self, event):
        kind = event[0]
        if kind == "li-event":
            self.account_event(event[1])
        elif kind == "li-game":
            if event[1] == self.gen:
                self.game_event(event[2])
        elif kind == "li-stream-down":
            self.say("Lichess %s stream lost (%s): reconnecting; the game is kept" % (event[1], event[2]))
        elif kind == "li-retry":
            self.say("Lichess unreachable (%s): %s will be sent again" % (event[3], event[1]))
        elif kind == "li-refused":
            self.refused(event[1], event[2], event[3])
        elif kind == "li-auth":
            self.say("Lichess refused the token (%s)" % event[1])
        elif kind == "li-seek-done":
            if event[1] and not self.game_id:
                self.say("the seek ended (%s)" % event[1])

    def account_event(self, ev):
        t = ev.get("type")
        if t == "gameStart":
            g = ev.get("game", {})
            gid = g.get("gameId") or g.get("id")
            if gid and (self.game_id is None or (self.over and gid != self.game_id)):
                self.over = None
                self.open_game(gid)
        elif t == "challenge":
            c = ev.get("challenge", {})
            who = (c.get("challenger") or {}).get("name", "?")
            if who.lower() == (self.me or "").lower():
                return  # our own challenge
            tc = c.get("timeControl", {})
            what = "%s+%s" % (tc.get("limit", 0) // 60, tc.get("increment", 0)) if tc.get("type") == "clock" else tc.get("type", "")
            self.challenge = c.get("id")
            accept = self.args.accept
            if accept is not None and (accept == "" or accept.lower() == who.lower()) and not self.game_id:
                if (c.get("variant") or {}).get("key", "standard") != "standard":
                    self.say("challenge from %s declined: only standard chess is played on the board" % who)
                    self.lichess.post("decline", self.challenge)
                    return
                self.say("accepting the challenge of %s (%s)" % (who, what))
                self.lichess.post("accept", self.challenge)
            else:
                self.say("challenge from %s (%s): type accept to play it" % (who, what))
        elif t == "gameFinish":
            pass  # the game stream says how it ended

    def game_event(self, ev):
        t = ev.get("type")
        if t == "gameFull":
            self.full(ev)
            self.state_changed(ev.get("state", {}))
        elif t == "gameState":
            self.state_changed(ev)
        elif t == "chatLine":
            self.say("chat %s: %s" % (ev.get("username", "?"), ev.get("text", "")))
        elif t == "opponentGone":
            if ev.get("gone"):
                secs = ev.get("claimWinInSeconds")
                if secs is not None and secs <= 0:
                    self.say("your opponent has left: type claim to win")
                else:
                    self.say("your opponent has left the game%s" % (" (you can claim the win in %d s)" % secs if secs else ""))
            else:
                self.say("your opponent is back")

    def full(self, ev):
        white, black = ev.get("white", {}), ev.get("black", {})
        self.you = chess.WHITE if (white.get("id") or "").lower() == (self.me or "").lower() else chess.BLACK
        self.central.side = "w" if self.you == chess.WHITE else "b"
        fen = ev.get("initialFen", "startpos")
        start = chess.Board() if fen in ("startpos", "", None) else chess.Board(fen)
        clock = ev.get("clock") or {}
        speed = (ev.get("perf") or {}).get("name") or str(ev.get("speed", "")).capitalize()

        def name(p):
            if p.get("aiLevel"):
                return "Lichess AI level %d" % p["aiLevel"]
            return p.get("name") or p.get("id") or "?"

        self.opponent = name(black if self.you == chess.WHITE else white)
        self.tags.update({
            "Event": "%s %s game" % ("Rated" if ev.get("rated") else "Casual", speed),
            "Site": "%s/%s" % (self.lichess.server, ev.get("id", self.game_id)),
            "White": name(white),
            "Black": name(black),
        })
        for colour, p in (("White", white), ("Black", black)):
            if p.get("rating"):
                self.tags[colour + "Elo"] = p["rating"]
        if clock.get("initial") is not None:
            self.tags["TimeControl"] = "%d+%d" % (clock["initial"] // 1000, clock.get("increment", 0) // 1000)
        if start.fen() != self.game.root().fen():
            self.game = start
        if not self.synced_once:
            self.synced_once = True
            self.say("%s (%s) against %s: you play %s" % (self.tags["Event"], self.tags.get("TimeControl", "no clock"),
                                                          self.opponent, "White" if self.you == chess.WHITE else "Black"))
        else:
            self.say("back in step with Lichess")
        self.full_seen = True

    def state_changed(self, st):
        self.clocks = (millis(st.get("wtime")), millis(st.get("btime")))
        self.clock_read_at = time.monotonic()
        theirs = (st.get("moves") or "").split()
        ours = [m.uci() for m in self.game.move_stack]
        if theirs != ours:
            extra = theirs[len(ours):]
            if theirs[:len(ours)] == ours and len(extra) == 1 and self.game.turn != self.you:
                self.lichess_move(extra[0])
                self.central.clocks(*self.clocks)
            elif ours[:len(theirs)] == theirs and self.sent and len(ours) - len(theirs) == 1:
                pass  # our move is on its way
            else:
                self.resync(theirs)
        if self.sent and self.sent in theirs[-1:]:
            self.sent = None
        self.offers(st)
        status = st.get("status")
        self.status = status
        if status not in (None, "created", "started") and not self.over:
            self.ended(status, st.get("winner"))

    def lichess_move(self, uci):
        if self.draw_from_board:
            self.draw_from_board = False
            self.central.nok()  # the opponent moved instead of answering: the board plays on
        self.opponent_moves(uci)

    def resync(self, theirs):
        board = self.game.root()
        for uci in theirs:
            board.push_uci(uci)
        self.game = board
        self.sent = None
        self.say("the board is brought back in step with the Lichess game (%d moves)" % len(theirs))
        if self.board_up:
            self.central.begin(self.game.fen())

    def offers(self, st):
        theirs = "bdraw" if self.you == chess.WHITE else "wdraw"
        if st.get(theirs) and not self.draw_to_board and not self.over:
            self.draw_to_board = True
            self.say("%s offers a draw: make the kings' draw sign to accept, or just move" % self.opponent)
            self.central.offer_draw()
        elif not st.get(theirs):
            self.draw_to_board = False
        if st.get("btakeback" if self.you == chess.WHITE else "wtakeback"):
            self.say("%s asks for a takeback: declined (the board plays on)" % self.opponent)
            self.lichess.post("decline_takeback", self.game_id)

    def ended(self, status, winner):
        words, cpp = ENDINGS.get(status, (status, "undefined"))
        if status in ("aborted", "noStart"):
            result = "*"
        elif winner == "white":
            result = "1-0"
        elif winner == "black":
            result = "0-1"
        else:
            result = "1/2-1/2"
        if self.draw_from_board:
            self.draw_from_board = False
            (self.central.ok if result == "1/2-1/2" else self.central.nok)()
        self.finish_game(result, words, cpp)

    def refused(self, what, args, why):
        if what == "make_move":
            self.say("Lichess refused the move %s (%s): the board is put back to the Lichess game" % (args[1], why))
            self.sent = None
            if self.game.move_stack and self.game.peek().uci() == args[1]:
                self.game.pop()
                if self.board_up:
                    self.central.begin(self.game.fen())
        else:
            self.say("Lichess refused %s (%s)" % (what.replace("_", " "), why))

    # ------------------------------------------------------------------ the player

    def board_ready(self, board_fen):
        if not self.full_seen:
            return  # no game yet: the board waits for one
        super().board_ready(board_fen)

    def after_begin(self):
        self.central.clocks(*self.clocks)

    def player_moved(self, move):
        self.sent = move.uci()
        self.lichess.post("make_move", self.game_id, move.uci())
        if self.draw_to_board:
            self.draw_to_board = False

    def player_may_move(self, move):
        if not self.game_id or not self.full_seen:
            self.say("no Lichess game yet")
            return False
        return True

    def player_resigned(self):
        self.say("resigning on Lichess")
        self.lichess.post("resign_game", self.game_id)

    def player_offers_draw(self):
        if self.draw_to_board:
            self.central.ok()
            self.draw_to_board = False
            self.lichess.post("accept_draw", self.game_id)
            return
        self.draw_from_board = True
        self.say("draw offered to %s" % self.opponent)
        self.lichess.post("offer_draw", self.game_id)

    def player_offers_draw_from_keys(self):
        self.lichess.post("offer_draw", self.game_id)
        self.say("draw offered to %s" % self.opponent)

    def draw_answered(self, accepted):
        if not self.draw_to_board:
            return
        self.draw_to_board = False
        if accepted:
            self.say("you accept the draw")
            self.lichess.post("accept_draw", self.game_id)
        else:
            self.lichess.post("decline_draw", self.game_id)

    def takeback_wanted(self):
        return False

    def clock_running(self):
        return self.status == "started" and len(self.game.move_stack) >= 2 and not self.over

    def tick(self):
        super().tick()
        if self.full_seen and self.board_up and not self.central.round and not self.central.handshaking() \
                and not self.over:
            self.central.begin(self.game.fen())  # a game arrived after the board was ready

    def command(self, cmd, args):
        if cmd == "say" and args and self.game_id:
            self.lichess.post("post_message", self.game_id, " ".join(args))
            return True
        if cmd == "abort" and self.game_id:
            self.lichess.post("abort_game", self.game_id)
            return True
        if cmd == "claim" and self.game_id:
            self.lichess.post("claim_victory", self.game_id)
            return True
        if cmd == "accept" and self.challenge:
            self.lichess.post("accept", self.challenge)
            return True
        return False
