# The board's online game on the board itself: a CPP central inside the firmware. It speaks the
# Chess Peripheral Protocol (docs/spec.md section 6) to a Link of its own on the same App, exactly
# as the PC companion speaks it over USB, so the board does online what it does for the companion:
# the opponent's move lit until made (remote move), a move made instead guided back, the kings'
# signs for resignation and draws, the end shown. Lichess's side comes from online/play.py's
# Session, which calls the methods below (its "board").
#
# Lines the board's Link writes come back to _from_board() while the App steps; answers to them
# are queued and fed in poll(), after the step, never inside the Link's own event handling.
# A promotion made on the board is answered once the board has been still for PROMOTION_WAIT_MS
# since the move or the last tap, with the piece on its square, so taps on the new piece choose it
# (docs/spec.md section 3) before it is sent to Lichess: taps a second apart all count.
from core import signals as S
from core.game import Game
from core.position import BLACK, STARTING_FEN, WHITE, move_uci, parse_square
from link.link import Link

PROMOTION_WAIT_MS = 2000
# The network's state on the LEDs, shown this long on the four centre squares (d4 e4 d5 e5) while
# no game is in progress (docs/lichess-wifi.md has the table): in the remote-move colour while
# joining (d4 e5 only) and once online (all four), in the illegal-move colour when it fails.
NET_SHOW_MS = 2000
_CENTRE = (27, 28, 35, 36)
_NET_SIGNS = {"connecting": ((27, 36), S.REMOTE_MOVE), "online": (_CENTRE, S.REMOTE_MOVE),
              "refused": (_CENTRE, S.ILLEGAL), "offline": (_CENTRE, S.ILLEGAL)}
FEATURES = ("msg", "resign", "draw_offer", "moved", "side", "time", "draw_reason")
# Lichess's end -> the CPP end reason the board knows (draw_reason adds stalemate).
_CPP_REASONS = ("checkmate", "draw", "timeout", "resign", "abort", "undefined", "stalemate")


class OnlineCentral:
    def __init__(self, app, console):
        self.app = app
        self.console = console  # words for the player (the USB console)
        self.link = Link(app, self._from_board)
        self.session = None
        self.out = []  # lines to feed the board's link at the next poll()
        self.partial = ""
        self.features_sent = False
        self.start_fen = STARTING_FEN
        self.moves = []
        self.white = True
        self.begin_due = False
        self.lit = None  # the opponent's move to light after the next begin
        self.promotion = None  # (uci, ms, last change) a promotion the board made, sent once the taps settle
        self.awaiting_draw = False  # the board's own draw sign waits for Lichess's answer
        self.net_state = "offline"
        self.now = 0
        self.net_frame = None
        self.net_frame_until = 0

    # ------------------------------------------------------------------ the main loop

    def poll(self, now):
        """After every App.step (or every few): Lichess's news in, the board's answers out."""
        self.now = now
        if self.session is not None:
            self.session.poll(now)
        self._flush_begin()
        if self.promotion is not None and self._promotion_chosen(now):
            self._send_promotion()
        while self.out:
            line = self.out.pop(0)
            self.link.feed(line + "\n")
        self.link.poll(now)

    def _send(self, line):
        self.out.append(line)

    # ------------------------------------------------------------------ the board's lines

    def _from_board(self, text):
        text = self.partial + text
        lines = text.split("\n")
        self.partial = lines.pop()
        for line in lines:
            self._board_line(line.strip())

    def _board_line(self, line):
        words = line.split()
        if not words or self.session is None:
            return
        cmd = words[0]
        if cmd == "move" and len(words) > 1:
            self._player_move(words[1])
        elif cmd == "resign":
            # The sign names who resigns (dark centre squares: White, light: Black): only the
            # player's own resignation goes to Lichess; the other is put back.
            if self.app.referee.game.result == ("0-1" if self.white else "1-0"):
                self.session.player_resigned()
            else:
                self.console("that sign resigns for your opponent: yours is the kings on the %s centre squares"
                             % ("dark (d4, e5)" if self.white else "light (d5, e4)"))
                self.begin_due = True
        elif cmd == "draw_offer":
            self.awaiting_draw = True
            self.session.player_offers_draw()
        elif cmd in ("ok", "nok") and self.draw_shown:
            # The board's answer to the opponent's offer: the kings' sign (ok) or a move (nok).
            self.draw_shown = False
            self.session.draw_answered(cmd == "ok")
        elif cmd == "sync" and self.lit_pending:
            self._show(self.lit_pending)
            self.lit_pending = None
        elif cmd == "moved":
            self.shown = None
            if self.end_due is not None:
                self._end(*self.end_due)
        elif cmd == "msg":
            self.console(line[4:])

    draw_shown = False
    lit_pending = None
    shown = None  # the opponent's move lit and not yet made
    end_due = None  # (result, reason): Lichess ended the game; sent once the lit move is made

    def _player_move(self, uci):
        logic = self.session.logic
        if not logic.playing() or not logic.my_turn():
            self._send("nok")  # not the player's move to make: the LEDs guide it back
            return
        game = self.app.referee.game
        last = game.last_move()
        full = move_uci(last) if last else uci
        if full[:4] != uci[:4]:
            full = uci
        if len(full) == 5:
            # The taps may still choose another piece: (move, since when still, the referee's
            # last change then).
            self.promotion = (full, self.now, self.app.referee.last_change)
            return
        self._send("ok")
        self.moves.append(full)
        self.session.player_moved(full)

    def _promotion_chosen(self, now):
        """Whether the board has been still PROMOTION_WAIT_MS since the promotion and its last
        tap (the referee's last lift or place), the new piece standing on its square."""
        ref = self.app.referee
        uci, since, seen = self.promotion
        if ref.last_change != seen:
            since = now  # a tap (or any hand on the board): the wait starts again
            self.promotion = (uci, since, ref.last_change)
        return now - since >= PROMOTION_WAIT_MS and ref.occ[parse_square(uci[2:4])]

    def _send_promotion(self):
        uci = self.promotion[0]
        last = self.app.referee.game.last_move()
        if last and move_uci(last)[:4] == uci[:4]:
            uci = move_uci(last)  # the piece the taps chose
        self.promotion = None
        self._send("promote " + uci)
        self.moves.append(uci)
        self.session.player_moved(uci)

    # ------------------------------------------------------------------ Lichess's side (Session)

    def say(self, text):
        self.console(text)

    def net(self, state):
        self.net_state = state
        self.console("online: " + state)
        sign = _NET_SIGNS.get(state)
        playing = self.session is not None and self.session.logic.playing()
        if sign is None or playing or self.app.host_frame not in (None, self.net_frame):
            return  # mid-game the LEDs keep to the game: the console says it
        frame = bytearray(64)
        for sq in sign[0]:
            frame[sq] = sign[1]
        self.net_frame = frame
        self.net_frame_until = self.now + NET_SHOW_MS
        self.app.host_frame = frame
        self.app.redraw()

    def move_waiting(self, uci):
        # The move's squares on the LEDs until Lichess has it: the player's clock runs there.
        self.app.unsent = () if uci is None else (parse_square(uci[0:2]), parse_square(uci[2:4]))
        self.app.redraw()

    def new_game(self, info):
        self.shown = self.end_due = self.lit_pending = None
        self.promotion = None  # a promotion of the game before is not this game's move
        self.draw_shown = self.awaiting_draw = False
        self.partial = ""
        self.start_fen = STARTING_FEN if info["fen"] in ("startpos", "") else info["fen"]
        self.moves = []
        self.white = info["white"]
        self.lit = None
        self.begin_due = True

    def sync(self, moves):
        self.moves = list(moves)
        self.lit = self.lit_pending = self.shown = None
        self.begin_due = True

    def opponent_move(self, uci):
        self.moves.append(uci)
        if self.lit_pending:
            self.begin_due = True  # another move before the first was lit: begin again
        if self.begin_due:
            self.lit = uci  # lit after the begin, at the position before it
        else:
            self._show(uci)

    def _show(self, uci):
        self.shown = uci
        self._send("move " + uci)

    def put_back(self, uci, reason):
        if self.moves[-1:] == [uci]:
            self.moves.pop()
        self.begin_due = True

    def answer_draw(self, accepted):
        if self.awaiting_draw:
            self.awaiting_draw = False
            self._send("ok" if accepted else "nok")

    def draw_offered(self, on):
        if on:
            self.draw_shown = True
            self._send("draw_offer")
        elif self.draw_shown:
            # Withdrawn (or declined by a move): the kings must no longer show it, or a later
            # kings' sign would end the board's game as drawn while Lichess plays on. CPP has no
            # line to take an offer back; a fresh begin of the same game clears it.
            self.draw_shown = False
            self.begin_due = True

    def clocks(self, wtime, btime):
        if isinstance(wtime, int) and isinstance(btime, int) and not self.begin_due:
            self._send("time %d %d" % (max(0, wtime), max(0, btime)))

    def ended(self, result, words, reason):
        self.console("game over: %s (%s)" % (result, words))
        self._flush_begin()
        if self.shown is not None or self.lit_pending is not None:
            self.end_due = (result, reason)  # the last move first, as the companion does
            return
        self._end(result, reason)

    def _end(self, result, reason):
        self.end_due = None
        game = self.app.referee.game
        if result in ("1-0", "0-1") and not game.is_over():
            # Lost on time, by leaving or by resigning on Lichess: the board's game ends too, shown
            # as a resignation (the loser's king), not left showing whose move it is.
            game.resign(WHITE if result == "0-1" else BLACK)
            self.link.load(game)
        self._send("end " + (reason if reason in _CPP_REASONS else "undefined"))

    def _flush_begin(self):
        """The network sign off once its time is up or a game begins, and a due `begin` sent."""
        if self.net_frame is not None and (self.now - self.net_frame_until >= 0 or self.begin_due):
            if self.app.host_frame is self.net_frame:
                self.app.host_frame = None
                self.app.redraw()
            self.net_frame = None
        if self.begin_due:
            self._begin()

    def _begin(self):
        self.begin_due = False
        if not self.features_sent:
            self.features_sent = True
            for f in FEATURES:
                self._send("feature " + f)
        try:
            game = Game(self.start_fen)
            for uci in self.moves[:-1]:
                game.push_uci(uci)
            if not self.lit and self.moves and (game.position.side == 0) != self.white:
                # The opponent moved last: if the board's own game (resumed after a power cut, or
                # from before the stream dropped) stands just before that move, light it to be made.
                if game.fen().split()[:2] == self.app.referee.game.fen().split()[:2]:
                    self.lit = self.moves[-1]
            if not self.lit and self.moves:
                game.push_uci(self.moves[-1])
        except ValueError as e:
            # A position or a move the board's rules refuse (a variant that slipped through): the
            # board keeps its own game and says so; the scan loop goes on.
            self.lit = self.lit_pending = None
            self.console("this Lichess game cannot be shown on the board (%s): play it on lichess.org" % e)
            return
        self._send("side " + ("w" if self.white else "b"))
        self._send("begin " + game.fen())
        # The opponent's last move is lit once the pieces stand where the game before it has them
        # (the board's `sync`): lit at once it would be pushed into a board still out of step.
        self.lit_pending, self.lit = self.lit, None
