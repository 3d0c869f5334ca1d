# The board's online game: Lichess's events (from online/board_api.py, on the second core) through
# the shared logic (online/lichess_game.py) to the board, and the player's moves and gestures back.
#
# Runs in the main loop, on the scan core, a little at a time: poll() takes what the network core
# put aside (a short list), and each action is a few dictionary lookups and a call into the board.
# The board side is an object with these methods (the App's online adapter on the Pico, a scripted
# player in the tests):
#   new_game(info)              a game begins: info as lichess_game's NEW
#   sync(moves)                 set the game to its start plus these moves (UCI), guide the pieces
#   opponent_move(uci)          light the opponent's move until it is made
#   put_back(uci, reason)       Lichess refused the player's move: take it back on the board
#   answer_draw(accepted)       the answer to the board's own draw offer (kings' sign)
#   draw_offered(on)            the opponent's draw offer stands (on) or is withdrawn
#   clocks(wtime, btime)        the clocks, ms
#   ended(result, words, reason)
#   say(text)                   words for the player (the USB console)
#   net(state)                  "online", "connecting", "offline", "refused": for the LEDs
#   move_waiting(uci)           the player's move the network has not delivered to Lichess yet
#                               (the player's clock runs there): shown on its squares; None: it has
from online import lichess_game as lg

SEEK_GRACE_MS = 3000  # after the event stream opens: a game in progress is announced within this


class Session:
    def __init__(self, api, board, accept=None):
        self.api = api
        self.board = board
        self.accept = accept
        self.logic = lg.LichessGame(None, accept=accept, auto_claim=True)  # renewed once signed in
        self.gen = None
        self.game_id = None
        self.state = "connecting"
        self.pending_seek = None  # (minutes, increment): seek once Lichess has said no game is on
        self.seek_after = None  # ms: when, if no gameStart came first
        self.waiting = None  # the player's move shown as not yet delivered (UCI)

    # ------------------------------------------------------------------ the player's side

    def open(self, game_id):
        if game_id != self.game_id:
            self.game_id = game_id
            self.gen = self.api.watch_game(game_id)

    def seek_when_idle(self, minutes, increment):
        """At power-up: seek unless Lichess announces a game in progress (its event stream sends
        gameStart for it at once on connecting), so a power cut mid-game resumes that game."""
        self.pending_seek = (minutes, increment)

    def seek(self, minutes, increment, rated=False):
        if not lg.seek_allowed(minutes, increment):
            self.board.say("a seek must be rapid or slower (minutes x 60 + 40 x increment >= 480 s)")
            return
        self.board.say("seeking a %d+%d game on Lichess" % (minutes, increment))
        self.api.seek(minutes, increment, rated)

    def player_moved(self, uci):
        self.act(self.logic.player_moved(uci))

    def player_offers_draw(self):
        self.act(self.logic.player_offers_draw())

    def player_resigned(self):
        self.act(self.logic.player_resigned())

    def draw_answered(self, accepted):
        self.act(self.logic.draw_answered(accepted))

    def abort(self):
        self.act(self.logic.abort())

    # ------------------------------------------------------------------ what the network core says

    def poll(self, now):
        for item in self.api.take():
            kind = item[0]
            if kind == "wifi":
                self._net("online" if item[1] == "online" else "connecting" if item[1] == "joining" else "offline")
                self.board.say("Wi-Fi: " + item[1])
            elif kind == "me":
                self.logic.me = item[1].lower()
                self.board.say("signed in to Lichess as %s" % item[1])
            elif kind == "event":
                self.act(self.logic.account_event(item[1]))
            elif kind == "game":
                if item[1] == self.gen:
                    self.act(self.logic.game_event(item[2], now))
            elif kind == "up":
                self._net("online")
                if item[1] == "events" and self.pending_seek is not None and self.seek_after is None:
                    self.seek_after = now + SEEK_GRACE_MS
            elif kind == "down":
                self._net("connecting")
                if item[1] == "connection":  # an error on the network core: every connection is opened again
                    self.board.say("Lichess connection lost (%s): reconnecting; the game is kept" % item[2])
                else:
                    self.board.say("Lichess %s stream lost (%s): reconnecting; the game is kept" % (item[1], item[2]))
            elif kind == "retry":
                self._net("connecting")
                self.board.say(self.logic.not_sent(item[1], item[2]))
                self._move_waits()
            elif kind == "wait":
                self.board.say(self.logic.slowed_down(item[1]))
                self._move_waits()
            elif kind == "refused":
                self.act(self.logic.refused(item[1], item[2], item[3]))
            elif kind in ("auth", "tls"):
                self._net("refused")
                self.board.say(("Lichess refused the token (%s)" if kind == "auth" else "%s") % item[1])
            elif kind == "seek-done":
                if item[1]:
                    self.board.say("the seek ended (%s)" % item[1])
        if self.seek_after is not None and now - self.seek_after >= 0:
            if self.logic.game_id is None:
                self.seek(self.pending_seek[0], self.pending_seek[1])
            self.pending_seek = self.seek_after = None
        self.act(self.logic.tick(now))
        if self.waiting is not None and self.logic.sent != self.waiting:
            if self.waiting in self.logic.moves:
                self.board.say("Lichess has your move %s" % self.waiting)
            self.waiting = None
            self.board.move_waiting(None)

    def _move_waits(self):
        """A retry or a pause while the player's move is on its way: the board shows that move
        until the game stream has it (or Lichess refuses it)."""
        sent = self.logic.sent
        if sent is not None and sent != self.waiting:
            self.waiting = sent
            self.board.move_waiting(sent)

    def _net(self, state):
        if state != self.state:
            self.state = state
            self.board.net(state)

    def act(self, actions):
        b = self.board
        for a in actions:
            kind = a[0]
            if kind == lg.SAY:
                b.say(a[1])
            elif kind == lg.POST:
                self.api.post(a[1], a[2])
            elif kind == lg.OPEN:
                self.open(a[1])
            elif kind == lg.NEW:
                self.game_id = a[1]["id"]
                b.new_game(a[1])
            elif kind == lg.SYNC:
                b.sync(a[1])
            elif kind == lg.OPPONENT:
                b.opponent_move(a[1])
            elif kind == lg.ANSWER:
                b.answer_draw(a[1])
            elif kind == lg.OFFERED:
                b.draw_offered(a[1])
            elif kind == lg.PUT_BACK:
                b.put_back(a[1], a[2])
            elif kind == lg.CLOCKS:
                b.clocks(a[1], a[2])
            elif kind == lg.END:
                b.ended(a[1], a[2], a[3])
