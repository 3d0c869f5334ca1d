"""The game loop: one game between the player at the board and an opponent (an engine, Lichess).

Everything the adapters hear comes on one queue; the loop keeps the game (a chess.Board), and
only sees moves: the player's from the board (through board.Central), the opponent's from its
adapter. Subclasses say who the opponent is (engine_game.py, lichess_game.py). The board's game
is never what counts: when the PC side fails (the cable, the engine, the network) the game here
stands, and the board is brought back to it with `begin` once it is back.
"""
import queue
import threading
import time
import traceback

import chess

from . import pgn
from .central import Central, misplaced
from .view import View, clock_text

TICK_S = 0.2
# A promotion made on the board is answered once the board has been still this long, so taps on the
# new piece choose it (docs/spec.md section 3) before the companion reads it back (the board's `fen`).
# The board's CPP sends nothing for a tap, so the companion reads the position every
# PROMOTION_READ_S: each change of the piece (a tap) starts the wait again, as on the board itself.
PROMOTION_WAIT_S = 2.0
PROMOTION_READ_S = 0.4
# How long the companion looks for a board it has not seen yet before it ends (--board-wait): a
# board plugged in is found within a second; once one was seen, an unplugged board is waited for.
BOARD_WAIT_S = 30.0
# The route to the simulated board (docs/companion.md), told when no board is found.
SIMULATED_BOARD = (
    "no board? Play on the simulated one: run `python3 tools/sim_terminal.py --serial /tmp/board` in "
    "another terminal (it takes `lift e2`, `place e4`, `help`), then add `--port /tmp/board`: "
    '`make play PLAY_ARGS="%s --port /tmp/board"`'
)
# Promotion pieces by letter, for the `promote` command (the piece the next promotion becomes).
PIECE_NAMES = {"q": "queen", "r": "rook", "b": "bishop", "n": "knight"}
HELP = {
    "help": "this list",
    "show": "print the board",
    "promote q|r|b|n": "the piece your next promotion becomes (a queen unless you say)",
    "resign": "resign the game (or the kings on the light centre squares: see docs/playing.md)",
    "draw": "offer a draw (or the kings' draw sign)",
    "quit": "leave (the game is saved as it stands)",
}


def side_name(colour):
    return "White" if colour == chess.WHITE else "Black"


class Match:
    opponent = "the opponent"  # a name for messages, set by subclasses
    extra_help = {}

    play_command = "engine"  # the play.py command that runs this kind of game, for messages

    def __init__(self, port, you=chess.WHITE, fen=None, pgn_path=None, view=None, events=None, stdin=None,
                 board_wait=BOARD_WAIT_S):
        self.events = events or queue.Queue()
        self.board_wait = board_wait
        self.board_seen = False  # a board came up at least once
        self.port = port
        self.you = you
        self.game = chess.Board(fen) if fen else chess.Board()
        self.pgn_path = pgn_path
        self.view = view or View()
        self.central = Central(port, self, side="w" if you == chess.WHITE else "b")
        self.stdin = stdin
        self.over = None  # (result, reason words) once the game ended
        self.saved = False
        self.done = False
        self.failed = False  # ended for a reason the exit status tells (an engine that cannot start ...)
        self.promotion = "q"
        self.promotion_typed = False  # `promote X` was typed: that piece, no waiting for taps
        self.pending_promotion = None  # PendingPromotion: a promotion waiting for its taps
        self.tags = {}
        self.in_step = False
        self.board_up = False
        self.clocks = (None, None)  # (white ms, black ms) and when they were read
        self.clock_read_at = None
        self.waiting_end = None  # the CPP end reason to send once the last shown move is made
        self._status_asked = 0.0
        self._dirty = True
        self._clocks_shown = None

    # ------------------------------------------------------------------ running

    def say(self, text):
        self.view.say(text)
        self._dirty = True

    def run(self):
        if self.stdin is not None:
            threading.Thread(target=self._read_keys, name="keys", daemon=True).start()
        self.port.start()
        self.started()
        began = time.monotonic()
        try:
            while not self.done:
                if not self.board_seen and time.monotonic() - began > self.board_wait:
                    self.say("no board came within %g s: the companion ends (the simulated board: see above)"
                             % self.board_wait)
                    self.done = self.failed = True
                    break
                try:
                    event = self.events.get(timeout=TICK_S)
                except queue.Empty:
                    event = None
                try:
                    if event is not None:
                        self.dispatch(event)
                    self.central.tick()
                    self.tick()
                except Exception as e:  # noqa: BLE001 - a bug must not end the game: say it, go on
                    traceback.print_exc()
                    self.say("internal error (%s: %s): the game goes on" % (type(e).__name__, e))
                state = None
                if self.view.screen and self.clock_running():
                    state = self.state()
                    shown = (clock_text(state["wtime"]), clock_text(state["btime"]))
                    if shown != self._clocks_shown:  # redrawn when a clock's figure changes
                        self._clocks_shown = shown
                        self._dirty = True
                if self._dirty:
                    self._dirty = False
                    self.view.draw(state or self.state())
        except KeyboardInterrupt:
            self.say("interrupted")
        finally:
            self.finish_session()
        return 1 if self.failed else 0

    def _read_keys(self):
        for line in self.stdin:
            self.events.put(("key", line.strip()))
        self.events.put(("key-eof", None))

    def dispatch(self, event):
        kind = event[0]
        if kind.startswith("board-"):
            self.central.on_event(kind, event[1])
        elif kind == "key":
            self.key(event[1])
        elif kind == "key-eof":
            pass  # the keyboard is gone (a script ended): the game goes on from the board
        else:
            self.opponent_event(event)
        self._dirty = True

    def finish_session(self):
        self.save()
        if self.central.round and self.board_up:
            self.central.end("undefined")  # the board goes back to its own two-player game
        self.stopped()
        self.port.stop()

    # ------------------------------------------------------------------ for subclasses

    def started(self):
        pass

    def stopped(self):
        pass

    def tick(self):
        if self.waiting_end and self.central.shown and self.poll_status():
            self.central.ask_status()
        pending = self.pending_promotion
        if pending and pending.due(time.monotonic()):
            self.central.ask_fen(self._promotion_read)

    def _promotion_read(self, fen):
        """The board's position during a promotion's taps: once the piece on the square has stayed
        the same for PROMOTION_WAIT_S, it decides."""
        pending = self.pending_promotion
        if not pending:
            return
        letter = pending.read(fen, time.monotonic())
        if letter is None:
            return  # still tapping, or the piece in the hand
        uci = pending.uci
        self.pending_promotion = None
        move = chess.Move.from_uci(uci + letter)
        if self.over or move not in self.game.legal_moves:
            self.central.nok()
            return
        self.central.promote(move.uci())
        self.say("promotion to a %s" % PIECE_NAMES[letter])
        self._take_player_move(move)

    def poll_status(self):
        """Whether to ask the board's status now, to learn that a lit move is made: only for a
        board without feature moved, twice a second."""
        if "moved" in self.central.features or time.monotonic() - self._status_asked < 0.5:
            return False
        self._status_asked = time.monotonic()
        return True

    def opponent_event(self, event):
        pass

    def player_moved(self, move):
        """The player's move is in the game (accepted by the board loop)."""

    def takeback_wanted(self):
        """True when the player may take the last move back (casual play against an engine)."""
        return False

    def player_resigned(self):
        self.finish_game("0-1" if self.you == chess.WHITE else "1-0", "resignation", "resign")

    def player_offers_draw(self):
        self.central.nok()
        self.say("the draw offer cannot be made here")

    def draw_answered(self, accepted):
        pass

    def clock_running(self):
        return False

    def status_line(self):
        if self.over:
            return "Game over: %s (%s)" % self.over
        turn = "your move" if self.game.turn == self.you else "%s to move" % self.opponent
        check = ", check" if self.game.is_check() else ""
        return "%s to move: %s%s" % (side_name(self.game.turn), turn, check)

    # ------------------------------------------------------------------ the board

    def board_connected(self, device):
        self.board_up = True
        self.board_seen = True
        self.say("board connected on %s" % device)

    def board_missing(self, text):
        """No board on the port (once, until one comes): before any board came, how to play on the
        simulated one, and how long the companion waits."""
        self.say("board: " + text)
        if not self.board_seen:
            self.say(SIMULATED_BOARD % self.play_command)
            self.say("waiting %g s for a board (--board-wait)" % self.board_wait)

    def board_lost(self, reason):
        self.board_up = False
        self.in_step = False
        self.say("the board is unplugged (%s): the game is kept here; plug it back in to go on" % reason)

    def board_message(self, text):
        self.say("board: " + text)

    def board_status(self, fields):
        if self.waiting_end and fields.get("remote") == "-":
            self.board_made_shown()

    def board_made_shown(self):
        """The move lit on the board is made (feature moved, or the board's status says so)."""
        self.central.shown = None
        if self.waiting_end:
            reason, self.waiting_end = self.waiting_end, None
            self.central.end(reason, self.over[0] if self.over else None)

    def board_ready(self, board_fen):
        """Connected and features agreed: resume the game on the board. A board whose own game is
        ours plus one move of the player's (made while the cable was out) keeps that move."""
        extra = self._move_made_offline(board_fen)
        if extra is not None:
            self.central.begin(board_fen if len(board_fen.split()) == 6 else self.game.fen())
            self.say("the board has a move made while the PC was not listening: %s" % self.game.san(extra))
            self._take_player_move(extra)
            self.after_begin()
            return
        self.rebegin(self._shown_not_made(board_fen))
        if self.over:
            self.central.end(self.over_reason_cpp or "undefined", self.over[0])
        self.after_begin()

    over_reason_cpp = None

    def rebegin(self, light_last=False):
        """Begin the round at the game's position; with light_last, at the one before the
        opponent's last move, which is then lit again (it was not made on the board yet)."""
        if light_last:
            last = self.game.pop()
            self.central.begin(self.game.fen())
            self.game.push(last)
            self.central.move(last.uci())
        else:
            self.central.begin(self.game.fen())

    def after_begin(self):
        pass

    def _shown_not_made(self, board_fen):
        if not board_fen or not self.game.move_stack or self.game.turn != self.you:
            return False
        try:
            theirs = chess.Board(board_fen)
        except ValueError:
            return False
        last = self.game.pop()
        same = self.game.board_fen() == theirs.board_fen() and self.game.turn == theirs.turn
        self.game.push(last)
        return same

    def _move_made_offline(self, board_fen):
        if not board_fen or self.over or self.game.turn != self.you:
            return None
        try:
            theirs = chess.Board(board_fen)
        except ValueError:
            return None
        for move in self.game.legal_moves:
            self.game.push(move)
            same = self.game.board_fen() == theirs.board_fen() and self.game.turn == theirs.turn
            self.game.pop()
            if same:
                return move
        return None

    def board_in_step(self, synced, text):
        was = self.in_step
        self.in_step = synced
        if synced and not was:
            self.say("the pieces on the board match the game")
        elif not synced and was:
            self.say("the pieces differ from the game: put them where the LEDs show")

    def board_move(self, uci):
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            self.central.nok()
            self.say("the board sent %r, not a move" % uci)
            return
        if self.over:
            self.central.nok()
            self.say("the game is over (%s): %s is not played" % (self.over[0], uci))
            return
        if self.game.turn != self.you:
            self.central.nok()
            self.say("%s was played for %s, whose move it is not: the LEDs show how to put it back"
                     % (uci, side_name(not self.you)))
            return
        promotion = None
        if len(uci) == 4 and self.game.piece_type_at(move.from_square) == chess.PAWN and \
                chess.square_rank(move.to_square) in (0, 7):
            promotion = uci + self.promotion  # the board cannot see the piece: ours decides
            move = chess.Move.from_uci(promotion)
        if move not in self.game.legal_moves:
            self.central.nok()
            self.say("%s is not a legal move here: the LEDs show how to put it back" % uci)
            return
        if not self.player_may_move(move):
            self.central.nok()
            return
        if promotion and not self.promotion_typed:
            # The board's taps choose the piece: read it back once the board is still.
            self.pending_promotion = PendingPromotion(uci, time.monotonic())
            return
        if promotion:
            self.promotion_typed = False
            self.central.promote(promotion)
            self.say("promotion to a %s" % PIECE_NAMES[self.promotion])
            self.promotion = "q"
        else:
            self.central.ok()
        self._take_player_move(move)

    def player_may_move(self, move):
        return True

    def _take_player_move(self, move):
        san = self.game.san(move)
        self.game.push(move)
        self.say("you play %s (%s)" % (san, move.uci()))
        self.player_moved(move)
        self.check_over()

    def board_undo(self, uci):
        """A takeback made on the board (casual mode): `undo UCI`, or `undo_offer` (uci None)."""
        last = self.game.peek() if self.game.move_stack else None
        if last is None or (uci is not None and uci != last.uci()) or not self.takeback_wanted():
            self.central.nok()
            if last is not None and self.takeback_wanted() is not None:
                self.say("no takeback here: the LEDs show how to put the piece back")
            return
        self.central.ok()
        self.game.pop()
        if uci is None:
            self.central.takeback(self.game.fen(), last.uci())
        self.say("taken back: %s" % last.uci())
        self.taken_back(last)

    def taken_back(self, move):
        pass

    def board_resigned(self):
        if self.over:
            return
        self.say("you resign")
        self.player_resigned()

    def board_offers_draw(self):
        if self.over:
            self.central.nok()
            return
        self.player_offers_draw()

    def board_answers_draw(self, accepted):
        self.draw_answered(accepted)

    # ------------------------------------------------------------------ the opponent's moves

    def opponent_moves(self, uci):
        move = chess.Move.from_uci(uci)
        san = self.game.san(move)
        self.game.push(move)
        self.central.move(uci)
        self.announce_opponent(san, uci)  # said once the board has it to light
        self.check_over()

    def announce_opponent(self, san, uci):
        self.say("%s plays %s (%s): make it on the board, the LEDs show it" % (self.opponent, san, uci))

    def check_over(self):
        outcome = self.game.outcome(claim_draw=False)
        if outcome is None:
            return False
        reason = outcome.termination.name.lower().replace("_", " ")
        cpp = {"checkmate": "checkmate", "stalemate": "stalemate", "insufficient material": "insufficient_material",
               "fivefold repetition": "draw", "seventyfive moves": "draw"}.get(reason, "draw")
        self.finish_game(outcome.result(), reason, cpp)
        return True

    def finish_game(self, result, reason, cpp_reason):
        if self.over:
            return
        self.over = (result, reason)
        self.over_reason_cpp = cpp_reason
        if self.central.shown:
            # The last move is still lit: end the round once it is made, so the LEDs show it.
            self.waiting_end = cpp_reason
        else:
            self.central.end(cpp_reason, result)
        self.say("game over: %s (%s)" % (result, reason))
        self.save()
        self.game_finished()

    def game_finished(self):
        pass

    def pgn_clocks(self):
        """The mover's ms left after each of the game's last moves, for the PGN's [%clk], or None."""
        return None

    def save(self):
        if self.saved or not self.pgn_path or (not self.game.move_stack and not self.over):
            return
        result = self.over[0] if self.over else "*"
        try:
            pgn.append(self.pgn_path, self.game, self.tags, result, self.pgn_clocks())
        except OSError as e:
            self.say("could not write the PGN to %s: %s" % (self.pgn_path, e))
            return
        self.saved = True
        self.say("game saved to %s" % self.pgn_path)

    # ------------------------------------------------------------------ the keyboard

    def key(self, text):
        words = text.split()
        if not words:
            return
        cmd, args = words[0].lower(), words[1:]
        if cmd == "help":
            for name, what in list(HELP.items()) + list(self.extra_help.items()):
                self.say("  %-16s %s" % (name, what))
        elif cmd == "show":
            self.view.show(self.state())
        elif cmd == "promote" and args and args[0].lower() in PIECE_NAMES:
            self.promotion = args[0].lower()
            self.promotion_typed = True
            self.say("your next promotion becomes a %s" % PIECE_NAMES[self.promotion])
        elif cmd == "resign":
            if not self.over:
                self.say("you resign")
                self.player_resigned()
        elif cmd == "draw":
            if not self.over:
                self.player_offers_draw_from_keys()
        elif cmd in ("quit", "exit"):
            self.done = True
        elif not self.command(cmd, args):
            self.say("unknown command %r: type help" % cmd)

    def player_offers_draw_from_keys(self):
        self.say("a draw offer needs an opponent who can answer")

    def command(self, cmd, args):
        return False

    # ------------------------------------------------------------------ the view

    def leds(self):
        leds, words = {}, []
        c = self.central
        if not self.board_up:
            return leds, "board unplugged"
        if c.shown and len(c.shown) >= 4:
            leds[c.shown[:2]] = leds[c.shown[2:4]] = "move"
            words.append("%s to %s: %s's move, to make on the board" % (c.shown[:2], c.shown[2:4], self.opponent))
        if c.hint and len(c.hint) >= 4:
            leds[c.hint[:2]] = leds[c.hint[2:4]] = "hint"
            words.append("%s to %s: the hint" % (c.hint[:2], c.hint[2:4]))
        if not c.synced and c.round:
            empty, fill = misplaced(c.placement, self.game.fen())
            for sq in empty + fill:
                leds[sq] = "fix"
            if empty or fill:
                words.append("fix the pieces: %s" % " ".join(
                    ["take away from %s" % " ".join(empty)] * bool(empty) + ["put a piece on %s" % " ".join(fill)] * bool(fill)))
            else:
                words.append("the pieces differ from the game: the board shows where")
        return leds, "; ".join(words)

    def state(self):
        leds, text = self.leds()
        w, b = self.clocks
        if self.clock_read_at is not None and self.clock_running():
            spent = (time.monotonic() - self.clock_read_at) * 1000
            if self.game.turn == chess.WHITE and w is not None:
                w -= spent
            elif b is not None:
                b -= spent
        return {
            "board": self.game,
            "title": self.tags.get("Event", "") + (" - " + self.tags["Site"] if self.tags.get("Site", "?") != "?" else ""),
            "white": self.tags.get("White"),
            "black": self.tags.get("Black"),
            "wtime": w,
            "btime": b,
            "leds": leds,
            "leds_text": text,
            "status": self.status_line(),
        }



class PendingPromotion:
    """A promotion the board made, waiting for its taps: the piece read from the board's position,
    and since when it has stood there unchanged."""

    def __init__(self, uci, now):
        self.uci = uci
        self.seen = "q"  # the board shows a queen first
        self.since = now
        self.asking = False
        self.asked_at = now

    def due(self, now):
        """Whether to read the board's position again (one question at a time)."""
        if self.asking or now - self.asked_at < PROMOTION_READ_S:
            return False
        self.asking = True
        self.asked_at = now
        return True

    def read(self, fen, now):
        """The chosen piece's letter once it has stood still PROMOTION_WAIT_S, else None. A board
        that does not answer (fen None) gets the piece last seen, or a queen."""
        self.asking = False
        if fen is None:
            return self.seen or "q"
        try:
            piece = chess.Board(fen).piece_at(chess.parse_square(self.uci[2:4]))
        except ValueError:
            piece = None
        letter = None
        if piece is not None and piece.piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            letter = piece.symbol().lower()
        if letter != self.seen:
            self.seen = letter
            self.since = now  # a tap (or the piece in the hand): the wait starts again
            return None
        if letter is None or now - self.since < PROMOTION_WAIT_S:
            return None
        return letter
