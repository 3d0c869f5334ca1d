# A game on Lichess through the Board API: what to do on each event Lichess sends, and on each thing
# the player does at the board. The one copy of this logic: the board's own online play (Wi-Fi,
# online/play.py) and the PC companion (tools/companion/lichess_game.py) both drive it.
#
# Pure: no network, no clock of its own (time comes in as milliseconds), no chess rules (it compares
# lists of UCI moves; the caller owns the position). Each call returns a list of actions, tuples
# whose first item says what to do:
#   (NEW, info)              a game begins (or another game than the one shown): info is a dict
#                            with id, white (True when the player has White), fen ("startpos" or
#                            a FEN), names, ratings, rated, speed, initial and increment (ms)
#   (SYNC, moves)            set the game to the start position plus these moves (reconnect, or
#                            Lichess's game differs from ours): the board is guided to it
#   (OPPONENT, uci)          the opponent's move: light it until it is made on the board
#   (POST, what, args)       a request to Lichess, named as berserk names it (board_api.PATHS)
#   (ANSWER, accepted)       answer the board's own draw offer (kings' sign): True = drawn
#   (OFFERED, on)            the opponent's draw offer stands (on) or is gone: show it, or stop
#   (PUT_BACK, uci, reason)  Lichess refused the player's move: take it back on the board
#   (CLOCKS, wtime, btime)   the clocks as Lichess last sent them (ms, or whatever the stream held)
#   (END, result, words, reason)   the game is over: "1-0"/"0-1"/"1/2-1/2"/"*", words for the
#                            player, and the CPP end reason (docs/spec.md section 6)
#   (SAY, text)              words for the player (console, companion's screen)
#   (OPEN, game_id)          stream this game (the event stream announced it)
# Runs unchanged on CPython and MicroPython (no f-strings, no str methods MicroPython lacks).

NEW = "new"
SYNC = "sync"
OPPONENT = "opponent"
POST = "post"
ANSWER = "answer"
OFFERED = "offered"
PUT_BACK = "put_back"
CLOCKS = "clocks"
END = "end"
SAY = "say"
OPEN = "open"

# Lichess's status -> (the words shown, the CPP end reason). "timeout" (a player left and the other
# claimed the win) and "outoftime" get words that name who, from the winner (see ending()).
ENDINGS = {
    "mate": ("checkmate", "checkmate"),
    "resign": ("resignation", "resign"),
    "stalemate": ("stalemate", "stalemate"),
    "timeout": ("a player left", "timeout"),
    "outoftime": ("time", "timeout"),
    "draw": ("agreement or a rule", "draw"),
    "aborted": ("aborted", "abort"),
    "noStart": ("no first move", "abort"),
    "cheat": ("fair play", "undefined"),
    "insufficientMaterialClaim": ("insufficient material", "draw"),
    "variantEnd": ("the variant's end", "undefined"),
    "unknownFinish": ("unknown", "undefined"),
}
PLAYING = ("created", "started")
# The variants the board plays: standard chess, from the start or from a position. Any other
# (Crazyhouse's drops, Chess960's castling, ...) its rules cannot follow.
PLAYABLE = ("standard", "fromPosition")
_NOTHING = ()  # tick() with nothing to do: the same empty tuple, nothing allocated in the idle poll

# Lichess's Board API pairs only rapid, classical and correspondence seeks; a game's speed is its
# estimated duration, initial + 40 x increment seconds: rapid from 8 minutes (480 s) up.
RAPID_MIN_S = 480
# HTTP 429: Lichess asks a client that went too fast to wait a full minute before any request.
RATE_LIMIT_MS = 60000


# What each post does, in a player's words (a post the network has not delivered yet is named so).
_POST_WORDS = {
    "make_move": "your move",
    "resign_game": "your resignation",
    "offer_draw": "your draw offer",
    "accept_draw": "your acceptance of the draw",
    "decline_draw": "your refusal of the draw",
    "abort_game": "the abort",
    "claim_victory": "the claim of the win",
    "accept": "the challenge's acceptance",
    "decline": "the challenge's refusal",
    "decline_takeback": "the takeback's refusal",
}


def seek_allowed(minutes, increment):
    """Whether the Board API pairs a seek of this time control (rapid or slower)."""
    return minutes * 60 + 40 * increment >= RAPID_MIN_S


def parse_seek(text):
    """'15+10' -> (15, 10): minutes and increment seconds; ValueError with the reason otherwise."""
    parts = text.split("+")
    try:
        minutes, inc = int(parts[0]), int(parts[1])
        if len(parts) != 2 or minutes < 0 or inc < 0:
            raise ValueError
    except (ValueError, IndexError):
        # Whole numbers only: the Board API's seek takes whole minutes, and 7.5+3 sent as 7+3
        # would be a game the player did not ask for.
        raise ValueError("a seek is MINUTES+INCREMENT in whole minutes and seconds, e.g. 15+10")
    if not seek_allowed(minutes, inc):
        raise ValueError("Lichess's Board API only seeks rapid or slower games (minutes x 60 + 40 x increment"
                         " >= 480 s): %s is blitz or faster. Try 10+0 or 15+10; a direct challenge may be blitz." % text)
    return minutes, inc


def refusal(status, body):
    """Lichess's own reason for refusing a request, from its JSON error body ({"error": "..."}), else
    the HTTP status: a player told "Piece on d2 cannot move" can act, "HTTP 400" says nothing."""
    text = body.decode() if isinstance(body, (bytes, bytearray)) else (body or "")
    text = text.strip()
    i = text.find('"error"')
    if i >= 0:
        start = text.find('"', text.find(":", i) + 1)
        end = text.find('"', start + 1)
        while end > 0 and text[end - 1] == "\\":
            end = text.find('"', end + 1)
        if start >= 0 and end > start:
            return text[start + 1:end]
    if text and len(text) < 200 and text[0] not in "<{":
        return text
    return "HTTP %d" % status


def _turn_white(fen, plies):
    """Whether White is to move after `plies` moves from `fen`."""
    white = True
    if fen and fen != "startpos":
        fields = fen.split()
        white = len(fields) < 2 or fields[1] != "b"
    return white if plies % 2 == 0 else not white


def _name(p):
    if p.get("aiLevel"):
        return "Lichess AI level %d" % p["aiLevel"]
    return p.get("name") or p.get("id") or "?"


class LichessGame:
    """The state of the player's Lichess game as this side knows it, and what to do next.

    me: the account's username (lower or any case). accept: whose challenges are accepted at once
    (None: nobody, "": anybody, else that username). auto_claim: claim the win as soon as Lichess
    allows when the opponent left (the board, which has no keyboard); else the player is told."""

    def __init__(self, me, accept=None, auto_claim=False):
        self.me = (me or "").lower()
        self.accept = accept
        self.auto_claim = auto_claim
        self.game_id = None
        self.challenge = None  # the last challenge announced to the player (its id)
        self._new_game()

    def _new_game(self):
        self.white = True  # the player's side
        self.fen = "startpos"
        self.opponent = "your opponent"
        self.moves = []  # the game as this side holds it (UCI)
        self.sent = None  # the player's move posted and not yet seen in a gameState
        self.status = None
        self.over = None  # (result, words, reason) once ended
        self.full_seen = False
        self.draw_from_board = False  # the board made the kings' draw sign and awaits the answer
        self.my_offer_seen = False  # ... and Lichess has shown that offer standing
        self.draw_to_board = False  # the opponent's offer is shown
        self.claim_at = None  # ms when the win may be claimed (opponent gone)
        self.unplayable = False  # a variant the board cannot play: its stream is ignored

    def my_turn(self):
        return _turn_white(self.fen, len(self.moves)) == self.white

    def playing(self):
        return self.full_seen and self.over is None

    # ------------------------------------------------------------------ the event stream

    def account_event(self, ev):
        """/api/stream/event: gameStart, gameFinish, challenge, challengeCanceled ..."""
        t = ev.get("type")
        out = []
        if t == "gameStart":
            g = ev.get("game") or {}
            gid = g.get("gameId") or g.get("id")
            if gid and gid != self.game_id and (self.game_id is None or self.over is not None):
                out.append((OPEN, gid))
        elif t == "challenge":
            c = ev.get("challenge") or {}
            who = (c.get("challenger") or {}).get("name", "?")
            if who.lower() == self.me:
                return out  # our own challenge
            tc = c.get("timeControl") or {}
            if tc.get("type") == "clock":
                what = "%d+%d" % (tc.get("limit", 0) // 60, tc.get("increment", 0))
            else:
                what = tc.get("type", "")
            cid = c.get("id")
            self.challenge = cid
            busy = self.game_id is not None and self.over is None
            if self.accept is not None and (self.accept == "" or self.accept.lower() == who.lower()) and not busy:
                if (c.get("variant") or {}).get("key", "standard") != "standard":
                    out.append((SAY, "challenge from %s declined: only standard chess is played on the board" % who))
                    out.append((POST, "decline", (cid,)))
                else:
                    out.append((SAY, "accepting the challenge of %s (%s)" % (who, what)))
                    out.append((POST, "accept", (cid,)))
            else:
                out.append((SAY, "challenge from %s (%s): type accept to play it" % (who, what)))
        return out

    # ------------------------------------------------------------------ the game stream

    def game_event(self, ev, now=0):
        """/api/board/game/stream/ID: gameFull (first, and the whole game), gameState, chatLine,
        opponentGone. now: ms, for the claim-victory timer."""
        t = ev.get("type")
        if t == "gameFull":
            out = self._full(ev)
            if self.unplayable:
                return out
            return out + self._state(ev.get("state") or {})
        if self.unplayable:
            return []
        if t == "gameState":
            return self._state(ev)
        if t == "chatLine":
            return [(SAY, "chat %s: %s" % (ev.get("username", "?"), ev.get("text", "")))]
        if t == "opponentGone":
            if not ev.get("gone"):
                self.claim_at = None
                return [(SAY, "%s is back" % self.opponent)]
            secs = ev.get("claimWinInSeconds")
            self.claim_at = now + 1000 * secs if secs is not None else None
            if secs is not None and secs <= 0:
                return self.tick(now) or [(SAY, "%s has left: type claim to win" % self.opponent)]
            return [(SAY, "%s has left the game%s" % (self.opponent, " (the win can be claimed in %d s)" % secs if secs else ""))]
        return []

    def _full(self, ev):
        gid = ev.get("id") or self.game_id
        renewed = self.full_seen and gid == self.game_id and self.over is None
        if not renewed:
            self._new_game()
        self.game_id = gid
        white, black = ev.get("white") or {}, ev.get("black") or {}
        variant = ev.get("variant") or {}
        key = variant.get("key") or "standard"
        if key not in PLAYABLE:
            # Lichess gave a game the board cannot play (accepted on the website, say): said, and
            # left alone; over, so the next game Lichess announces is taken up.
            self._new_game()
            self.unplayable = True
            self.over = ("*", "not played on the board", "undefined")
            return [(SAY, "game %s is %s: only standard chess is played on the board; play it on lichess.org"
                     % (gid, variant.get("name") or key))]
        self.white = (white.get("id") or "").lower() == self.me or (white.get("name") or "").lower() == self.me
        self.fen = ev.get("initialFen") or "startpos"
        self.opponent = _name(black if self.white else white)
        self.full_seen = True
        if renewed:
            return [(SAY, "back in step with Lichess")]
        clock = ev.get("clock") or {}
        info = {"id": gid, "white": self.white, "fen": self.fen, "white_name": _name(white),
                "black_name": _name(black), "white_rating": white.get("rating"),
                "black_rating": black.get("rating"), "rated": bool(ev.get("rated")),
                "speed": (ev.get("perf") or {}).get("name") or ev.get("speed") or "",
                "initial": clock.get("initial"), "increment": clock.get("increment")}
        tc = "no clock"
        if clock.get("initial") is not None:
            tc = "%d+%d" % (clock["initial"] // 1000, (clock.get("increment") or 0) // 1000)
        return [(NEW, info),
                (SAY, "%s %s game (%s) against %s: you play %s" % ("Rated" if info["rated"] else "Casual", info["speed"],
                                                                 tc, self.opponent, "White" if self.white else "Black"))]

    def _state(self, st):
        out = [(CLOCKS, st.get("wtime"), st.get("btime"))]
        theirs = (st.get("moves") or "").split()
        ours = self.moves
        if theirs != ours:
            n = len(ours)
            if theirs[:n] == ours and len(theirs) == n + 1 and not self.my_turn():
                out.extend(self._opponent_moved(theirs[n]))
            elif ours[:len(theirs)] == theirs and self.sent and len(ours) == len(theirs) + 1:
                pass  # the player's move is on its way (or waits for the network): never undone
            else:
                self.moves = list(theirs)
                self.sent = None
                out.append((SYNC, list(theirs)))
        if self.sent and theirs[-1:] == [self.sent]:
            self.sent = None
        status = st.get("status")
        self.status = status
        if status in PLAYING or status is None:
            out.extend(self._offers(st))
        elif self.over is None:
            out.extend(self._ended(status, st.get("winner")))
        return out

    def _opponent_moved(self, uci):
        self.moves.append(uci)
        out = []
        if self.draw_from_board:
            out.extend(self._answer(False, None))  # the opponent moved instead of answering
        if self.draw_to_board:
            self.draw_to_board = False
            out.append((OFFERED, False))
        out.append((OPPONENT, uci))
        return out

    def _answer(self, accepted, words):
        self.draw_from_board = self.my_offer_seen = False
        out = [(ANSWER, accepted)]
        if words:
            out.append((SAY, words))
        return out

    def _offers(self, st):
        out = []
        theirs, mine = ("bdraw", "wdraw") if self.white else ("wdraw", "bdraw")
        if st.get(theirs) and not self.draw_to_board:
            self.draw_to_board = True
            out.append((SAY, "%s offers a draw: make the kings' draw sign to accept, or just move" % self.opponent))
            out.append((OFFERED, True))
        elif not st.get(theirs) and self.draw_to_board:
            self.draw_to_board = False
            out.append((OFFERED, False))
        if self.draw_from_board:
            if st.get(mine):
                self.my_offer_seen = True
            elif self.my_offer_seen:
                # Lichess showed the offer, now it is gone and the game goes on: declined. The board
                # waits for this answer and reads no move until it comes.
                out.extend(self._answer(False, "%s declines the draw: play on" % self.opponent))
        if st.get("btakeback" if self.white else "wtakeback"):
            out.append((SAY, "%s asks for a takeback: declined (the board plays on)" % self.opponent))
            out.append((POST, "decline_takeback", (self.game_id,)))
        return out

    def _ended(self, status, winner):
        words, reason = ENDINGS.get(status, (status, "undefined"))
        mine = "white" if self.white else "black"
        if status in ("aborted", "noStart"):
            result = "*"
        elif winner == "white":
            result = "1-0"
        elif winner == "black":
            result = "0-1"
        else:
            result = "1/2-1/2"
        if status == "timeout":
            words = "%s left the game" % ("your opponent" if winner == mine else "you")
        elif status == "outoftime" and winner:
            words = "%s ran out of time" % ("your opponent" if winner == mine else "you")
        self.over = (result, words, reason)
        self.sent = None
        self.claim_at = None
        out = []
        if self.draw_from_board:
            out.extend(self._answer(result == "1/2-1/2", None))
        if self.draw_to_board:
            self.draw_to_board = False
            out.append((OFFERED, False))
        out.append((END, result, words, reason))
        return out

    def not_sent(self, what, reason):
        """Words for the player when the network has not delivered a post (it is sent again until
        Lichess has it): a move says so, and that the player's clock runs on Lichess meanwhile."""
        if what == "make_move" and self.sent:
            return "Lichess has not got your move %s yet (%s): your clock runs there; it is sent again until Lichess has it" % (
                self.sent, reason)
        return "Lichess has not got %s yet (%s): it is sent again until Lichess has it" % (
            _POST_WORDS.get(what, what), reason)

    def slowed_down(self, seconds):
        """Words for a 429: every request waits a full minute, a move waiting included."""
        if self.sent:
            return "Lichess asks for a pause (too many requests): your move %s goes in %d s; your clock runs there" % (
                self.sent, seconds)
        return "Lichess asks for a pause (too many requests): nothing is sent for %d s" % seconds

    def tick(self, now):
        """Call now and then (ms): claims the win once the opponent has been gone long enough."""
        if self.claim_at is not None and self.auto_claim and self.playing() and now >= self.claim_at:
            self.claim_at = None
            return [(SAY, "%s has left: claiming the win" % self.opponent), (POST, "claim_victory", (self.game_id,))]
        return _NOTHING

    # ------------------------------------------------------------------ the player

    def player_moved(self, uci):
        """The player's move, accepted on the board."""
        if not self.playing():
            return [(PUT_BACK, uci, "no Lichess game in progress")]
        self.moves.append(uci)
        self.sent = uci
        out = [(POST, "make_move", (self.game_id, uci))]
        if self.draw_to_board:
            self.draw_to_board = False  # a move declines the opponent's offer (Lichess does so too)
            out.append((OFFERED, False))
        if self.draw_from_board:
            # An offer made on the player's own turn goes with the move: the board plays on and a
            # later acceptance ends the game through its status.
            out.extend(self._answer(False, None))
        return out

    def player_resigned(self):
        if not self.playing():
            return []
        return [(SAY, "resigning on Lichess"), (POST, "resign_game", (self.game_id,))]

    def player_offers_draw(self):
        """The kings' draw sign: accepts the opponent's offer when one stands, else offers a draw
        (the board then awaits an ANSWER: acceptance, a refusal, or the opponent's move)."""
        if not self.playing():
            return [(ANSWER, False)]
        if self.draw_to_board:
            self.draw_to_board = False
            return [(ANSWER, True), (SAY, "you accept the draw"), (POST, "accept_draw", (self.game_id,))]
        self.draw_from_board = True
        self.my_offer_seen = False
        return [(SAY, "draw offered to %s" % self.opponent), (POST, "offer_draw", (self.game_id,))]

    def draw_answered(self, accepted):
        """The player answered the opponent's offer on the board."""
        if not self.draw_to_board:
            return []
        self.draw_to_board = False
        if accepted:
            return [(SAY, "you accept the draw"), (POST, "accept_draw", (self.game_id,))]
        return [(POST, "decline_draw", (self.game_id,)), (OFFERED, False)]

    def abort(self):
        return [(POST, "abort_game", (self.game_id,))] if self.playing() else []

    def claim(self):
        return [(POST, "claim_victory", (self.game_id,))] if self.playing() else []

    # ------------------------------------------------------------------ what Lichess answered

    def refused(self, what, args, reason):
        """Lichess refused a request with a 4xx (not 429: that one waits and goes again)."""
        if what == "make_move" and self.sent == args[1] and self.moves[-1:] == [args[1]]:
            self.moves.pop()
            self.sent = None
            return [(SAY, "Lichess refused the move %s (%s): it is put back" % (args[1], reason)),
                    (PUT_BACK, args[1], reason)]
        out = [(SAY, "Lichess refused %s (%s)" % (what.replace("_", " "), reason))]
        if what == "offer_draw" and self.draw_from_board:
            out.extend(self._answer(False, None))
        return out
