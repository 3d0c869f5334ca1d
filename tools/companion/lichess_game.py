"""A game on Lichess: the opponent's moves lit on the board, the player's sent, clocks, draw offers
and resignation with the board's gestures, chat, aborts, and the board brought back in step with
the Lichess game whenever a stream comes back (its first line, gameFull, is the whole game).

What to do on each Lichess event is decided by firmware/online/lichess_game.py, the same code the
board runs when it plays on Lichess over Wi-Fi; this file carries its actions out on the PC:
python-chess keeps the position, board.Central the cable, lichess.Lichess the network."""
import datetime
import time

import chess

from . import lichess as api
from .match import Match
from online import lichess_game as logic  # firmware/online: the rules of a Lichess game, shared with the board

def millis(value):
    if value is None:
        return None
    if isinstance(value, datetime.timedelta):
        return value.total_seconds() * 1000
    return float(value)


class LichessMatch(Match):
    opponent = "your opponent"
    play_command = "lichess"
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
        self.logic = None  # logic.LichessGame, once signed in
        self.game_id = None
        self.gen = None
        self.board_fen_waiting = None  # the board's own game, told before any gameFull came
        self.board_waiting = False

    @property
    def full_seen(self):
        return self.logic is not None and self.logic.full_seen

    # ------------------------------------------------------------------ start and stop

    def started(self):
        try:
            self.me = self.lichess.username()
        except Exception as e:  # noqa: BLE001
            self.say("Lichess does not let this token in (%s): check it has the board:play scope" % api.why(e))
            self.done = self.failed = True
            return
        self.logic = logic.LichessGame(self.me, accept=self.args.accept)
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
        self.say("playing game %s/%s" % (self.lichess.server, game_id))
        self.gen = self.lichess.watch_game(game_id)

    # ------------------------------------------------------------------ what Lichess says

    def opponent_event(self, event):
        kind = event[0]
        if kind == "li-event":
            self.act(self.logic.account_event(event[1]))
        elif kind == "li-game":
            if event[1] == self.gen:
                self.act(self.logic.game_event(event[2], int(time.monotonic() * 1000)))
        elif kind == "li-stream-down":
            self.say("Lichess %s stream lost (%s): reconnecting; the game is kept" % (event[1], event[2]))
        elif kind == "li-retry":
            if self.logic is not None:
                self.say(self.logic.not_sent(event[1], event[3]))
            else:
                self.say("Lichess unreachable (%s): %s is tried again" % (event[3], event[1]))
        elif kind == "li-wait":
            if self.logic is not None:
                self.say(self.logic.slowed_down(event[1]))
            else:
                self.say("Lichess asks for a pause (too many requests): nothing is sent for %d s" % event[1])
        elif kind == "li-refused":
            self.act(self.logic.refused(event[1], event[2], event[3]))
        elif kind == "li-auth":
            self.say("Lichess refused the token (%s)" % event[1])
        elif kind == "li-seek-done":
            if event[1] and not self.game_id:
                self.say("the seek ended (%s)" % event[1])

    def act(self, actions):
        """Carry out what the shared logic decided (firmware/online/lichess_game.py)."""
        fresh = False  # a new game in this batch: the board is begun once the batch is applied
        lit = False
        moved = False
        for a in actions:
            kind = a[0]
            if kind == logic.SAY:
                self.say(a[1])
            elif kind == logic.NEW:
                self.new_game(a[1])
                fresh = True
            elif kind == logic.SYNC:
                self.resync(a[1], quiet=fresh)
            elif kind == logic.OPPONENT:
                if fresh:
                    # Already in gameFull (the opponent moved first, or while the companion was
                    # away): lit once the board is begun, and said now, as any other move is.
                    move = chess.Move.from_uci(a[1])
                    san = self.game.san(move)
                    self.game.push(move)
                    self.announce_opponent(san, a[1])
                    lit = True
                else:
                    self.opponent_moves(a[1])
                    moved = True
            elif kind == logic.POST:
                self.lichess.post(a[1], *a[2])
            elif kind == logic.OPEN:
                self.open_game(a[1])
            elif kind == logic.ANSWER:
                (self.central.ok if a[1] else self.central.nok)()
            elif kind == logic.OFFERED:
                if a[1]:
                    self.central.offer_draw()
            elif kind == logic.PUT_BACK:
                if self.game.move_stack and self.game.peek().uci() == a[1]:
                    self.game.pop()
                    if self.board_up:
                        self.central.begin(self.game.fen())
            elif kind == logic.CLOCKS:
                self.clocks = (millis(a[1]), millis(a[2]))
                self.clock_read_at = time.monotonic()
            elif kind == logic.END:
                self.finish_game(a[1], a[2], a[3])
        if moved:
            self.central.clocks(*self.clocks)
        if fresh:
            self.begin_on_board(lit)

    def new_game(self, info):
        """A game begins (the first of the session, or the next one): the position, the tags, a
        fresh PGN entry."""
        self.game_id = info["id"]
        self.you = chess.WHITE if info["white"] else chess.BLACK
        self.central.side = "w" if info["white"] else "b"
        self.opponent = self.logic.opponent
        fen = info["fen"]
        self.game = chess.Board() if fen in ("startpos", "") else chess.Board(fen)
        self.over = None
        self.over_reason_cpp = None
        self.waiting_end = None
        self.saved = False
        self.tags = {
            "Event": "%s %s game" % ("Rated" if info["rated"] else "Casual", info["speed"] or "Lichess"),
            "Site": "%s/%s" % (self.lichess.server, info["id"]),
            "White": info["white_name"],
            "Black": info["black_name"],
        }
        for colour in ("white", "black"):
            if info[colour + "_rating"]:
                self.tags[colour.capitalize() + "Elo"] = info[colour + "_rating"]
        if info["initial"] is not None:
            self.tags["TimeControl"] = "%d+%d" % (info["initial"] // 1000, (info["increment"] or 0) // 1000)

    def begin_on_board(self, lit):
        """The game is known: resume it on the board (keeping a move the player made there while
        nobody listened, lighting the opponent's last move if it is not made yet)."""
        if not self.board_up or not self.board_waiting:
            if self.board_up and self.central.idle():
                self.rebegin(light_last=lit)
                self.after_begin()
            return  # else board_ready comes once the board is connected, and begins it
        self.board_waiting = False
        fen, self.board_fen_waiting = self.board_fen_waiting, None
        if fen:
            super().board_ready(fen)
        else:
            self.rebegin(light_last=lit)
            self.after_begin()

    def resync(self, theirs, quiet=False):
        board = self.game.root()
        for uci in theirs:
            board.push_uci(uci)
        self.game = board
        if quiet:
            return
        self.say("the board is brought back in step with the Lichess game (%d moves)" % len(theirs))
        if self.board_up:
            self.central.begin(self.game.fen())

    # ------------------------------------------------------------------ the player

    def board_ready(self, board_fen):
        if not self.full_seen:
            # No game yet: the board's own game is kept for when gameFull comes, so a move made on
            # it while the companion was closed is not lost.
            self.board_waiting = True
            self.board_fen_waiting = board_fen
            return
        super().board_ready(board_fen)

    def board_lost(self, reason):
        self.board_waiting = False
        super().board_lost(reason)

    def after_begin(self):
        self.central.clocks(*self.clocks)

    def player_moved(self, move):
        self.act(self.logic.player_moved(move.uci()))

    def player_may_move(self, move):
        if not self.full_seen:
            self.say("no Lichess game yet")
            return False
        return True

    def player_resigned(self):
        self.act(self.logic.player_resigned())

    def player_offers_draw(self):
        self.act(self.logic.player_offers_draw())

    def player_offers_draw_from_keys(self):
        actions = self.logic.player_offers_draw()
        self.act([a for a in actions if a[0] != logic.ANSWER])  # the board asked nothing

    def draw_answered(self, accepted):
        self.act(self.logic.draw_answered(accepted))

    def takeback_wanted(self):
        return False

    def clock_running(self):
        return self.logic is not None and self.logic.status == "started" and len(self.game.move_stack) >= 2 and not self.over

    def tick(self):
        super().tick()
        if self.logic is not None:
            self.act(self.logic.tick(int(time.monotonic() * 1000)))

    def command(self, cmd, args):
        if cmd == "say" and args and self.game_id:
            self.lichess.post("post_message", self.game_id, " ".join(args))
            return True
        if cmd == "abort" and self.game_id:
            self.act(self.logic.abort())
            return True
        if cmd == "claim" and self.game_id:
            self.act(self.logic.claim())
            return True
        if cmd == "accept" and self.logic.challenge:
            self.lichess.post("accept", self.logic.challenge)
            return True
        return False
