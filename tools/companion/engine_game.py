"""A game against a UCI engine: the engine's move lit on the board until the player makes it, a
wrong move refused (the board guides it back), takebacks in casual mode, hints, the result and
the PGN at the end."""
import time

import chess

from .match import Match, side_name

# After a takeback that leaves the engine to move, it waits this long before playing again: the
# player taking back a whole move (the engine's reply, then their own) needs a moment between the two.
TAKEBACK_PAUSE_S = 3.0
# A draw offered to the engine is taken when its evaluation is within this many centipawns.
DRAW_MARGIN_CP = 30


class EngineMatch(Match):
    extra_help = {
        "hint": "the engine's best move for you, lit on the board",
        "hint off": "put the hint's lights out",
        "takeback": "take your last move back (casual mode: or restore the position on the board)",
        "mode strict|casual": "the board's mode: casual allows takebacks",
        "new": "a new game (the one on the board is saved as it stands)",
    }

    def __init__(self, port, engine, casual=True, takeback_pause=TAKEBACK_PAUSE_S, fen=None, **kw):
        super().__init__(port, fen=fen, **kw)
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
            "depth %d" % self.engine.depth if self.engine.depth else "%g s a move" % self.engine.movetime)
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
                self.say("continuing the game on the board (%d moves); type new for a new game" % len(game.move_stack))
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
        self.say("a new game: set up the start position (the LEDs guide the pieces)")
        if self.board_up:
            self.central.begin(self.game.fen())
            self.after_begin()

    def after_begin(self):
        self.maybe_think()

    # ------------------------------------------------------------------ the engine's turn

    def maybe_think(self):
        if self.over or self.thinking or self.game.turn == self.you or not self.central.round:
            return
        if self.play_after is not None and time.monotonic() < self.play_after:
            return
        self.play_after = None
        self.thinking = True
        self.engine.think(self.game, self.ticket)

    def tick(self):
        super().tick()
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
        self.ticket += 1
        self.maybe_think()

    def board_made_shown(self):
        hint = self.central.hint
        if hint and self.game.turn == self.you:
            # The hint is made on the board (which took it as a lit move): the player's move.
            self.central.hint = None
            self._take_player_move(chess.Move.from_uci(hint))
            return
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
        if self.central.hint:
            self.central.hint = None
        super().board_move(uci)

    def takeback_wanted(self):
        return self.casual

    def taken_back(self, move):
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
