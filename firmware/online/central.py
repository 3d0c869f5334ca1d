# The board's online game on the board itself: Lichess's game (online/play.py's Session calls the
# methods below: it is the Session's "board") played on the App's referee, and the player's moves
# and gestures told back to it. The board keeps to what it does for a CPP app over USB
# (docs/spec.md section 6, link/cpp.py): the opponent's move lit until made (remote move), a move
# made instead guided back, the kings' signs for resignation and draws, the end shown; the game as
# Lichess has it rules, so the board judges no dead position and starts no new game of its own
# while one is on, and Lichess's clock replaces the board's.
#
# It drives the referee itself, with no CPP text between: a Pico W playing online keeps about
# 13 KB of CPP code out of its heap (link/cpp.py, link/cpp_commands.py, link/pieces.py), room its
# TLS handshakes need (docs/memory.md).
#
# The referee's events come in through _on_event() during App.step(); what they make the board do
# to the referee (put a refused move back, set a promotion's piece) waits for poll(), after the
# step, never inside the referee's own event handling.
# A promotion made on the board is answered once the board has been still for PROMOTION_WAIT_MS
# since the move or the last tap, with the piece on its square, so taps on the new piece choose it
# (docs/spec.md section 3) before it is sent to Lichess: taps a second apart all count.
from core import signals as S
from core.game import AGREEMENT, Game, RESIGNATION
from core.position import BLACK, KNIGHT, STARTING_FEN, WHITE, move_uci, parse_square
from core.referee import PLAY, SETUP, event_text
from link import ascii_only

PROMOTION_WAIT_MS = 2000
# The network's state on the LEDs, shown this long on the four centre squares (d4 e4 d5 e5) while
# no game is in progress (docs/lichess-wifi.md has the table): in the remote-move colour while
# joining (d4 e5 only) and once online (all four), in the illegal-move colour when it fails.
NET_SHOW_MS = 2000
_CENTRE = (27, 28, 35, 36)
_NET_SIGNS = {"connecting": ((27, 36), S.REMOTE_MOVE), "online": (_CENTRE, S.REMOTE_MOVE),
              "refused": (_CENTRE, S.ILLEGAL), "offline": (_CENTRE, S.ILLEGAL)}
# Lichess's ends that are draws: the board's game then ends drawn, the kings show it.
_DRAWS = ("draw", "stalemate")
_PROMOTION_LETTERS = "nbrq"  # index + KNIGHT = piece type


class OnlineCentral:
    def __init__(self, app, console):
        self.app = app
        self.console = console  # words for the player (the USB console)
        self.session = None
        self.start_fen = STARTING_FEN
        self.moves = []  # the game as Lichess has it (UCI), the lit opponent's move included
        self.agreed = []  # the moves of the board's game in this round: where a put-back goes to
        self.white = True
        self.round = False  # a Lichess game rules the board (from its first begin to its end)
        self.in_step = True  # the pieces stand as the board's game has them
        self.begin_due = False
        self.lit = None  # the opponent's move to light after the next begin
        self.lit_pending = None  # ... lit once the pieces stand where the game before it has them
        self.shown = None  # the opponent's move lit and not yet made
        self.remote = None  # the same, as the referee shows it (UCI)
        self.end_due = None  # (result, reason): Lichess ended the game; shown once the lit move is made
        self.promotion = None  # (uci, ms, last change) a promotion the board made, sent once the taps settle
        self.echoes = []  # UCI of promote events the central caused itself (not the player's taps)
        self.awaiting_draw = False  # the board's own draw sign waits for Lichess's answer
        self.draw_shown = False  # the opponent's draw offer is on the kings
        self.app_clock = False  # Lichess's clock rules: the board's is laid aside
        self.todo = []  # what the referee's events asked for, done in poll()
        self.out_of_memory = False  # an event could not be followed: online play stops at the next poll()
        self.net_state = "offline"
        self.now = 0
        self.net_frame = None
        self.net_frame_until = 0
        self._listener = self._on_event  # one bound method, so stop() finds it in the list
        app.listeners.append(self._listener)

    # ------------------------------------------------------------------ the main loop

    def poll(self, now):
        """After every App.step (or every few): Lichess's news in, the board's answers out."""
        self.now = now
        if self.out_of_memory:
            raise MemoryError("online: no memory left to follow the board's moves")
        if self.session is not None:
            self.session.poll(now)
        self._flush_begin()
        if self.promotion is not None and self._promotion_chosen(now):
            self._send_promotion()
        if self.todo:
            todo, self.todo = self.todo, []
            for kind, arg in todo:
                if kind == "restore":
                    self._restore()
                else:
                    self._set_promotion(arg)
        if self.round:
            self._follow_pieces()

    def stop(self):
        """Online play stops (out of memory, `online off`): the network core ends, and the board's
        game goes on under the board's own rules."""
        api = getattr(self.session, "api", None)
        if api is not None:
            api.stop()
        if self._listener in self.app.listeners:
            self.app.listeners.remove(self._listener)
        self._leave()

    def _follow_pieces(self):
        """Whether the pieces stand as the board's game has them: an opponent's move waiting to
        be lit is lit once they do (lit on a board out of step, it would be read into it)."""
        ref = self.app.referee
        if self.in_step:
            if ref.phase == SETUP:
                self.in_step = False
        elif ref.phase != SETUP and ref.occ == ref.base:
            self._back_in_step()

    def _back_in_step(self):
        self.in_step = True
        if self.lit_pending:
            uci, self.lit_pending = self.lit_pending, None
            self._show(uci)

    # ------------------------------------------------------------------ the referee's events

    def _on_event(self, ev):
        """App listener (during App.step): the player's moves and signs, told to Lichess."""
        if not self.round or self.session is None:
            return
        try:
            self._board_event(ev)
        except MemoryError:
            # Raised here it would stop the App's step for every listener: poll() raises it
            # instead, where the main loop stops online play and the game goes on (loop.py).
            self.out_of_memory = True
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self.console("online: internal error: %r" % e)

    def _board_event(self, ev):
        kind = ev[0]
        if kind in ("move", "undo", "promote", "end") and ("restore", 0) in self.todo:
            return  # the board is about to be put back to Lichess's game: what else happened is moot
        if kind == "move":
            self._board_move(move_uci(ev[1]))
        elif kind == "undo":
            self.todo.append(("restore", 0))  # Lichess's Board API takes no takeback from the board
        elif kind == "promote":
            uci = move_uci(ev[1])
            if uci in self.echoes:
                self.echoes.remove(uci)  # the central set it (the opponent's piece, or the one sent)
            elif self.promotion is None:
                # A tap on the promoted piece after it went to Lichess: Lichess's piece stays.
                self.todo.append(("promote", _piece(self._agreed_promotion(uci))))
            # While the taps still choose (self.promotion), the piece sent is the last one tapped.
        elif kind == "error":
            self.in_step = False
            self.console(ascii_only(event_text(ev)))
        elif kind == "claim":
            self.console("draw can be claimed: " + ev[1])
        elif kind == "end":
            self._board_end(ev[1], ev[2])
        # ("new",) cannot come in a round: the referee starts no game while Lichess's is on.

    def _board_move(self, uci):
        remote = self.remote
        if remote is not None:
            self.remote = None
            if uci[:4] == remote[:4]:
                # The opponent's move, made on the board (its piece if the hand promoted to another).
                if uci != remote:
                    self.todo.append(("promote", _piece(remote)))
                self.shown = None
                if not self.in_step:
                    self._back_in_step()
                if self.end_due is not None:
                    self._end(*self.end_due)
                return
            self.todo.append(("restore", 0))  # another move than the opponent's: guided back
            return
        if not self.in_step:
            self._back_in_step()
        if self.draw_shown:
            # A move instead of the kings' sign declines the opponent's offer.
            self._show_draw_offer(False)
            self.session.draw_answered(False)
        self._player_move(uci)

    def _board_end(self, result, reason):
        if reason == RESIGNATION:
            # The sign names who resigns (dark centre squares: White, light: Black): only the
            # player's own resignation goes to Lichess; the other is put back.
            if result == ("0-1" if self.white else "1-0"):
                self.session.player_resigned()
            else:
                self.console("that sign resigns for your opponent: yours is the kings on the %s centre squares"
                             % ("dark (d4, e5)" if self.white else "light (d5, e4)"))
                self.todo.append(("restore", 0))
        elif reason == AGREEMENT:
            if self.draw_shown:
                self._show_draw_offer(False)
                self.session.draw_answered(True)  # the opponent's offer, accepted on the board
            else:
                self.awaiting_draw = True  # the game stays drawn on the board until Lichess answers
                self.session.player_offers_draw()
        # Checkmate, stalemate and the automatic draws: Lichess ends the game and says so.

    def _player_move(self, uci):
        logic = self.session.logic
        if not logic.playing() or not logic.my_turn():
            self.todo.append(("restore", 0))  # not the player's move to make: the LEDs guide it back
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
        self.agreed.append(full)
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
        self.agreed.append(uci)
        self.moves.append(uci)
        self.session.player_moved(uci)

    # ------------------------------------------------------------------ what the board is made to do

    def _load(self, game):
        """Put the referee on `game` (the LEDs then guide the pieces to it) and save it."""
        app = self.app
        app.referee.load_game(game, self.now)
        app.redraw()
        if app.store is not None:
            try:
                app.store.save(game, app.referee.mode)
            except OSError as e:
                self.console("could not save the game: %s" % e)

    def _agreed_promotion(self, uci):
        """The promotion of the board's game Lichess has (a queen unless it has another)."""
        sent = uci[:4] + "q"
        for agreed in self.agreed:
            if agreed[:4] == uci[:4] and len(agreed) == 5:
                sent = agreed
        return sent

    def _agreed_game(self):
        game = Game(self.start_fen)
        for i in range(len(self.agreed)):
            try:
                game.push_uci(self.agreed[i])
            except ValueError:
                del self.agreed[i:]  # cannot happen with Lichess's own moves
                break
        return game

    def _restore(self):
        """Back to the game as Lichess has it: the LEDs guide the pieces there."""
        self.remote = None
        self.shown = None
        self.app.referee.show_remote(0)
        self.in_step = False
        self._load(self._agreed_game())

    def _set_promotion(self, piece_type):
        ref = self.app.referee
        last = ref.game.last_move()
        if not last or len(move_uci(last)) != 5 or _piece(move_uci(last)) == piece_type:
            return
        if ref.choose_promotion(piece_type):
            self.echoes.append(move_uci(ref.game.last_move()))
            self.app.redraw()
        else:
            self._restore()

    def _show(self, uci):
        """The opponent's move lit, from and to, until the player makes it."""
        ref = self.app.referee
        self._show_draw_offer(False)
        if ref.game.is_over():
            return
        try:
            m = ref.game.position.parse_uci(uci)
        except ValueError as e:
            self.console("Lichess's move %s cannot be played on the board (%s)" % (uci, e))
            return
        self.agreed.append(uci)
        self.shown = uci
        if self.in_step and ref.phase == PLAY:
            self.remote = uci
            ref.show_remote(m)
            self.app.redraw()
        else:
            # The board is out of step: the LEDs guide the pieces to the position after the move.
            game = ref.game
            game.push(m)
            self._load(game)
            self.shown = None

    def _show_draw_offer(self, on):
        ref = self.app.referee
        self.draw_shown = on
        if ref.draw_offer != on:
            ref.draw_offer = on  # the kings show it: their draw sign accepts (core/display.py)
            self.app.redraw()

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
        self.awaiting_draw = False
        if self.draw_shown:
            self._show_draw_offer(False)
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

    def put_back(self, uci, reason):
        if self.moves[-1:] == [uci]:
            self.moves.pop()
        self.begin_due = True

    def answer_draw(self, accepted):
        if self.awaiting_draw:
            self.awaiting_draw = False
            if not accepted:
                self.todo.append(("restore", 0))  # declined: the board's game goes on, undrawn

    def draw_offered(self, on):
        if on:
            if not self.round or self.app.referee.game.is_over():
                self.session.draw_answered(False)
            else:
                self._show_draw_offer(True)
        elif self.draw_shown:
            # Withdrawn (or declined by a move): the kings must no longer show it, or a later
            # kings' sign would end the board's game as drawn while Lichess plays on.
            self._show_draw_offer(False)

    def clocks(self, wtime, btime):
        if isinstance(wtime, int) and isinstance(btime, int) and self.round and not self.app_clock:
            # Lichess keeps the clock: the board's own neither runs, flags nor penalises until
            # the game ends (docs/clock.md).
            self.app_clock = True
            self.app.referee.lay_clock_aside()
            self.app.redraw()

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
        if self.round and not game.is_over():
            if result in ("1-0", "0-1"):
                # Lost on time, by leaving or by resigning on Lichess: the board's game ends too,
                # shown as a resignation (the loser's king), not left showing whose move it is.
                game.resign(WHITE if result == "0-1" else BLACK)
                self._load(game)
            elif reason in _DRAWS or result == "1/2-1/2":
                game.agree_draw()
                self._load(game)
        self._leave()

    def _leave(self):
        """The Lichess game is over: the board's own rules again."""
        ref = self.app.referee
        self.round = False
        self.todo = []
        self.awaiting_draw = False
        self._show_draw_offer(False)
        ref.new_games = True
        Game.judge_dead = True  # the board judges dead positions again (core/game.py)
        if self.app_clock:
            self.app_clock = False
            ref.take_clock_back()  # the board's clock again, for the board's next game
        if self.remote is not None:
            self.remote = None
            ref.show_remote(0)
            self.app.redraw()
        self.in_step = True

    def _flush_begin(self):
        """The network sign off once its time is up or a game begins, and a due begin made."""
        if self.net_frame is not None and (self.now - self.net_frame_until >= 0 or self.begin_due):
            if self.app.host_frame is self.net_frame:
                self.app.host_frame = None
                self.app.redraw()
            self.net_frame = None
        if self.begin_due:
            self._begin()

    def _begin(self):
        """The board's game set to Lichess's: kept as it stands when it already is that game (a
        power cut, a stream opened again), else loaded, the LEDs guiding the pieces to it."""
        self.begin_due = False
        Game.judge_dead = False  # Lichess rules the game: its end too (core/game.py)
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
            Game.judge_dead = not self.round
            self.console("this Lichess game cannot be shown on the board (%s): play it on lichess.org" % e)
            return
        ref = self.app.referee
        here = ref.game.fen().split()[:4]
        if here == game.fen().split()[:4] and not ref.game.is_over() and (
                here[0] != STARTING_FEN.split()[0] or not ref.game.ply()):
            game = ref.game  # the board's game is Lichess's: its record and a piece in the air stay
        self.round = True
        ref.new_games = False  # a start position set up is no new game while Lichess's is on
        self.start_fen = game.start_fen
        self.agreed = game.uci_moves()
        self.remote = None
        ref.show_remote(0)
        self.echoes = []
        self.todo = []
        self._show_draw_offer(False)
        if game is not ref.game:
            self._load(game)
        self.in_step = ref.phase != SETUP
        # The opponent's last move is lit once the pieces stand where the game before it has them.
        self.lit_pending, self.lit = self.lit, None
        if self.in_step:
            self._back_in_step()


def _piece(uci):
    """The piece type a promotion's UCI names."""
    return _PROMOTION_LETTERS.find(uci[4]) + KNIGHT
