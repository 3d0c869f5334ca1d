"""A game against a UCI engine: the engine's move lit on the board until the player makes it, a
wrong move refused (the board guides it back), takebacks in casual mode, hints, the result and
the PGN at the end; with --clock, a chess clock kept by the firmware's own core/clock.py.

The clock: the player's time runs from the moment the engine's move is made on the board until the
board reads the player's move; the engine's from then until its move is made on the board (it
thinks on its own time, and the player making its move is part of its turn, as on a clock the
player presses for the computer). Each side's time goes to the board (CPP `time W B`) after each
move and once a second, so its `status` and clock display show them. A flag fall ends the game,
a loss, or a draw when the other side cannot mate (core/arbiter.py, FIDE 6.9)."""
import time

import chess

from core import arbiter
from core import clock as chess_clock
from core.position import BLACK, WHITE, Position

from .match import Match, side_name
from .view import clock_text

# After a takeback that leaves the engine to move, it waits this long before playing again: the
# player taking back a whole move (the engine's reply, then their own) needs a moment between the two.
TAKEBACK_PAUSE_S = 3.0
# A draw offered to the engine is taken when its evaluation is within this many centipawns.
DRAW_MARGIN_CP = 30
# While a clock runs, the board is sent both times this often (it does not count down by itself).
CLOCK_SEND_S = 1.0


def now_ms():
    """The companion's time for core/clock.py: ms of a clock that wraps at 2**30 like time.ticks_ms."""
    return int(time.monotonic() * 1000) & 0x3FFFFFFF


class EngineMatch(Match):
    extra_help = {
        "hint": "the engine's best move for you, lit on the board",
        "hint off": "put the hint's lights out",
        "takeback": "take your last move back (casual mode: or restore the position on the board)",
        "mode strict|casual": "the board's mode: casual allows takebacks",
        "new": "a new game (the one on the board is saved as it stands)",
    }

    def __init__(self, port, engine, casual=True, takeback_pause=TAKEBACK_PAUSE_S, fen=None, control=(), **kw):
        super().__init__(port, fen=fen, **kw)
        # The game's chess clock (core/clock.py, the board's own), or None; control is
        # core.clock.parse_control's periods.
        self.clock = chess_clock.Clock(control) if control else None
        self.pressed = 0  # the game's moves the clock was pressed for (the last may await its making)
        self.move_read_at = None  # now_ms() when the board sent the player's move
        self._times_sent_at = 0.0
        self.engine = engine
        self.casual = casual
        self.takeback_pause = takeback_pause
        self.ticket = 0  # bumped whenever the position changes: an older search's answer is stale
        self.thinking = False
        self.play_after = None  # time.monotonic() when the engine may move again after a takeback
        self.hinting = None  # the position's ticket a hint was asked for
        self.engine_down = False
        # Casual: takebacks on the board; strict: touch-move. Set on the board before each round.
        self.central.mode = "casual" if casual else "strict"
        # A game in progress on the board (the companion was closed or crashed mid-game) is
        # continued, with its record: the board keeps it (`pgn`). `new` starts another.
        self.central.want_record = fen is None
        self.continued = False

    def started(self):
        try:
            name = self.engine.start()
        except Exception as e:  # noqa: BLE001 - an engine that cannot start: say so, exit
            self.say("cannot start the engine %s: %s" % (" ".join(self.engine.command), e))
            self.done = self.failed = True
            return
        self.opponent = name
        strength = "Elo %d" % self.engine.elo if self.engine.elo else (
            "depth %d" % self.engine.depth if self.engine.depth else
            "%g s a move" % self.engine.movetime if self.engine.movetime else "on its clock")
        if self.clock:
            strength += ", clock %s" % chess_clock.control_text(self.clock.periods)
            self.tags["TimeControl"] = chess_clock.pgn_time_control(self.clock.periods)
        self.tags.update({
            "Event": "Game against %s (%s)" % (name, strength),
            "Site": "Chessboard companion",
            "White": "Player" if self.you == chess.WHITE else name,
            "Black": name if self.you == chess.WHITE else "Player",
        })
        self.say("you play %s against %s (%s); waiting for the board" % (side_name(self.you), name, strength))

    def stopped(self):
        self.engine.stop()

    def board_ready(self, board_fen):
        if self.central.want_record:
            self.central.want_record = False  # the first connection only
            game = self._board_game(self.central.board_pgn)
            if game is not None and not self.game.move_stack:
                self.game = game
                self.continued = True
                self.pressed = len(game.move_stack)
                self.say("continuing the game on the board (%d moves); type new for a new game" % len(game.move_stack))
                if self.clock:
                    self.say("the clock starts again from %s each (its times are not in the board's record)"
                             % chess_clock.control_text(self.clock.periods))
        super().board_ready(board_fen)

    def _board_game(self, text):
        """The board's game record as a chess.Board, when it is a game in progress."""
        if not text:
            return None
        import io

        import chess.pgn

        try:
            record = chess.pgn.read_game(io.StringIO(text))
        except (ValueError, KeyError):
            return None
        if record is None or record.errors:
            return None
        board = record.end().board()
        if not board.move_stack or board.is_game_over(claim_draw=False) or record.headers.get("Result", "*") != "*":
            return None
        return board

    def new_game(self):
        self.save()
        self.game = chess.Board()
        self.over = None
        self.saved = False
        self.ticket += 1
        self.thinking = False
        self.central.hint = None
        if self.clock:
            self.clock.reset()
            self.pressed = 0
        self.say("a new game: set up the start position (the LEDs guide the pieces)")
        if self.board_up:
            self.central.begin(self.game.fen())
            self.after_begin()

    def after_begin(self):
        self.send_times()
        self.maybe_think()

    # ------------------------------------------------------------------ the clock

    def press(self, at=None):
        """The side to move has completed its move (at now_ms() `at`): its time stops, the other's runs."""
        if self.clock is None or self.over:
            return
        now = now_ms()
        c = self.clock
        if at is None or ((at - c.turn_at) & 0x3FFFFFFF) > ((now - c.turn_at) & 0x3FFFFFFF):
            at = now  # no reading, or one from before this turn (a move the board sent and we refused)
        c.press(at)
        self.pressed += 1
        if not self.view.screen:  # a log: the times after each move (on a screen they are always shown)
            w, b = self.clock.times(now_ms())
            self.say("clock: White %s, Black %s" % (clock_text(w), clock_text(b)))
        self.send_times()

    def send_times(self):
        """Both times to the board (CPP `time W B`): its status and clock display show them."""
        if self.clock is not None and self.central.round:
            self._times_sent_at = time.monotonic()
            self.central.clocks(*self.clock.times(now_ms()))

    def check_flag(self):
        """The running side's time is up: it loses, or draws when the other cannot mate."""
        c = self.clock
        if c is None or self.over or not c.flagged(now_ms()) or self.pending_promotion:
            return
        fallen = chess.WHITE if c.side == chess_clock.WHITE_SIDE else chess.BLACK
        if fallen != self.you and self.pressed < len(self.game.move_stack):
            # The engine's move was not made on the board in its time: it does not stand.
            unmade = self.game.pop()
            self.central.withdraw(unmade.uci(), self.game.fen())
            self.ticket += 1
        c.fall(now_ms())
        result, reason = arbiter.flag_result(Position(self.game.fen()), WHITE if fallen == chess.WHITE else BLACK)
        words = "%s's flag fell" % side_name(fallen)
        if result == "1/2-1/2":
            words += ", %s cannot mate" % side_name(not fallen)
        self.send_times()
        self.finish_game(result, words, "timeout" if result != "1/2-1/2" else "draw")

    def finish_game(self, result, reason, cpp_reason):
        if self.clock is not None and not self.over and self.clock.fallen < 0 and self.pressed < len(self.game.move_stack):
            self.press()  # the engine's last move ended the game: no need to wait for its making
        super().finish_game(result, reason, cpp_reason)

    def game_finished(self):
        if self.clock is not None and self.clock.fallen < 0:
            self.clock.stop(now_ms())
            self.send_times()

    def clock_running(self):
        return self.clock is not None and self.clock.running and not self.over

    def pgn_clocks(self):
        if self.clock is None:
            return None
        # The history covers the moves pressed for; a last move not made on the board has none.
        pressed = min(self.pressed, len(self.clock.history), len(self.game.move_stack))
        return (self.clock.history[-pressed:] if pressed else []) + [None] * (len(self.game.move_stack) - self.pressed)

    def state(self):
        state = super().state()
        if self.clock is not None:
            state["wtime"], state["btime"] = self.clock.times(now_ms())
        return state

    def engine_clocks(self):
        """The engine's search limit from both times (chess.engine.Limit's words, seconds)."""
        c = self.clock
        if c is None:
            return None
        now = now_ms()
        limits = {"white_clock": c.left(0, now) / 1000.0, "black_clock": c.left(1, now) / 1000.0}
        for side, name in ((0, "white_inc"), (1, "black_inc")):
            ms, moves, kind, extra = c.periods[c.period[side]]
            if kind != chess_clock.SUDDEN:
                limits[name] = extra / 1000.0  # a delay is near enough an increment for its planning
        engine_side = 0 if self.you == chess.BLACK else 1
        moves = c.periods[c.period[engine_side]][1]
        if moves:
            limits["remaining_moves"] = moves - c.moves[engine_side]
        return limits

    # ------------------------------------------------------------------ the engine's turn

    def maybe_think(self):
        if self.over or self.thinking or self.game.turn == self.you or not self.central.round:
            return
        if self.play_after is not None and time.monotonic() < self.play_after:
            return
        self.play_after = None
        self.thinking = True
        self.engine.think(self.game, self.ticket, clocks=self.engine_clocks())

    def tick(self):
        super().tick()
        self.check_flag()
        if self.clock_running() and time.monotonic() - self._times_sent_at >= CLOCK_SEND_S:
            self.send_times()
        self.maybe_think()
        if self.central.hint and self.game.turn == self.you and self.poll_status():
            self.central.ask_status()  # is the hint made?

    def opponent_event(self, event):
        kind = event[0]
        if kind == "engine-move":
            self.thinking = False
            if event[1] != self.ticket or self.over:
                return  # asked about a position since taken back
            if self.engine_down:
                self.engine_down = False
                self.say("%s is back and plays on" % self.opponent)
            self.opponent_moves(event[2])
            self.ticket += 1
        elif kind == "engine-hint":
            if event[1] != self.ticket or self.game.turn != self.you or self.over:
                return
            move = chess.Move.from_uci(event[2])
            self.central.show_hint(event[2])
            self.say("hint: %s (lit on the board; type 'hint off' to put it out)" % self.game.san(move))
        elif kind == "engine-failed":
            self.engine_down = True
            self.say("%s stopped (%s): starting it again, the game is kept" % (self.opponent, event[2]))
        elif kind == "engine-gave-up":
            self.thinking = False
            self.play_after = time.monotonic() + 2.0  # try again in a moment
            self.say("%s would not start: trying again (--engine names another)" % self.opponent)
        elif kind == "engine-note":
            self.say(event[1])

    # ------------------------------------------------------------------ the player

    def player_moved(self, move):
        at, self.move_read_at = self.move_read_at, None
        self.press(at)
        self.ticket += 1
        self.maybe_think()

    def board_made_shown(self):
        hint = self.central.hint
        if hint and self.game.turn == self.you:
            # The hint is made on the board (which took it as a lit move): the player's move.
            self.central.hint = None
            self.move_read_at = now_ms()
            self._take_player_move(chess.Move.from_uci(hint))
            return
        if self.central.shown and self.game.turn == self.you and self.pressed < len(self.game.move_stack):
            self.press()  # the engine's move is made on the board: the player's time runs
        super().board_made_shown()

    def board_status(self, fields):
        hint = self.central.hint
        if hint and fields.get("remote") == "-" and self.game.turn == self.you:
            if fields.get("round") == "sync":
                self.board_made_shown()
            else:
                self.central.hint = None
                # Another move was made instead: the board is putting the hint's position up;
                # take the hint back so the LEDs guide the pieces to the real one.
                self.central.withdraw(hint, self.game.fen())
                self.say("the hint is put out: make your move again")
            return
        super().board_status(fields)

    def board_move(self, uci):
        # The player's time stops when the board reads the move, not after the promotion's taps.
        self.move_read_at = now_ms()
        if self.central.hint:
            self.central.hint = None
        super().board_move(uci)

    def takeback_wanted(self):
        return self.casual and (self.clock is None or self.clock.fallen < 0)

    def taken_back(self, move):
        if self.clock is not None and self.pressed > len(self.game.move_stack):
            self.clock.take_back(now_ms())
            self.pressed -= 1
            self.send_times()
        self.ticket += 1
        self.thinking = False
        self.central.hint = None
        if self.over:
            self.over = None  # a takeback of a finished game's last move: play on
            self.saved = False
        if self.game.turn != self.you:
            self.play_after = time.monotonic() + self.takeback_pause
            self.say("%s waits %g s: take your own move back too, or it plays again" % (self.opponent, self.takeback_pause))

    def player_offers_draw(self):
        if self._engine_thinks_drawn():
            self.central.ok()
            self.finish_game("1/2-1/2", "agreement", "draw")
        else:
            self.central.nok()
            self.say("%s declines the draw" % self.opponent)

    def player_offers_draw_from_keys(self):
        if self._engine_thinks_drawn():
            self.finish_game("1/2-1/2", "agreement", "draw")
        else:
            self.say("%s declines the draw" % self.opponent)

    def _engine_thinks_drawn(self):
        try:
            info = self.engine.analyse(self.game, 0.2)
        except Exception:  # noqa: BLE001 - no answer is no
            return False
        if info is None:
            return False  # no engine running
        score = info.get("score")
        return score is not None and abs(score.white().score(mate_score=100000)) <= DRAW_MARGIN_CP

    def command(self, cmd, args):
        if cmd == "hint":
            if args and args[0] == "off":
                if self.central.hint:
                    hint = self.central.hint
                    self.central.withdraw(hint, self.game.fen())
                    self.say("hint put out")
                return True
            if self.game.turn != self.you or self.over:
                self.say("a hint is for your move")
                return True
            self.engine.think(self.game, self.ticket, hint=True)
            self.say("asking %s for a hint" % self.opponent)
            return True
        if cmd == "new":
            self.new_game()
            return True
        if cmd == "takeback":
            if not self.game.move_stack:
                self.say("nothing to take back")
                return True
            if self.clock is not None and self.clock.fallen >= 0:
                self.say("no takeback: a flag has fallen")
                return True
            last = self.game.pop()
            if self.central.takeback(self.game.fen(), last.uci()):
                self.say("taken back: %s (the LEDs show the piece's way back)" % last.uci())
                self.taken_back(last)
            else:
                self.game.push(last)
                self.say("the board does not take moves back (no undo feature)")
            return True
        if cmd == "mode" and args and args[0] in ("strict", "casual"):
            self.casual = args[0] == "casual"
            if self.central.set_mode(args[0]):
                self.rebegin(self.central.shown is not None)
            self.say("mode %s: %s" % (args[0], "takebacks allowed" if self.casual else "touch-move, no takebacks"))
            return True
        return False
