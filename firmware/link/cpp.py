# The Chess Peripheral Protocol (CPP) on the USB link: the board as the peripheral of a CPP app.
#
# README of github.com/vovagorodok/chess_peripheral_protocol at commit a0a7d8c6, and the state
# machine of dkwach/chess_peripheral_driver (the driver the CPP apps embed), which the board keeps to:
#   - the central (the app) rules the round; the board keeps the pieces in step (sync/unsync/state)
#     and never ends a round itself: a start position set up during one is reported (unsync, state),
#     not a new game;
#   - before `begin` and after `end` the board sends nothing unasked (the driver would take any line
#     for the answer to the query it has in flight); messages go out only as `msg`, only with
#     `feature msg`, only in a round;
#   - a promotion made on the board goes out as the four-character move: the central's `promote UCI`
#     (or `ok`, for the queen the board assumed) decides the piece, so the app's dialog works;
#   - the board's takeback (casual mode) is an `undo_offer`; the central's `undo FEN`/`redo FEN` set
#     the position, and the LEDs guide the pieces there.
# This module holds the session and the board's side (its events, its lines); the central's
# commands are in link/cpp_commands.py, what both use in link/cpp_terms.py. Pure like the rest of
# link/: events come in through on_event() during App.step(); what they make the board do to the
# referee (put a refused move back) waits for poll().
from core.game import AGREEMENT, Game, RESIGNATION
from core.position import KNIGHT, STARTING_FEN, move_promotion, move_uci
from core.referee import SETUP, STRICT, event_text
from link.cpp_terms import PROMOTION_LETTERS, pushed
from link.pieces import Pieces, placement
from link import ascii_only

def _cpp_uci(uci):
    """A board move as CPP sends it: a promotion without its piece (the central chooses)."""
    return uci[:4]


class Cpp:
    """The CPP session on one Link: what the central agreed to and what waits for its answer.
    A dialect of link/link.py (its DIALECTS): enter, leave, info, on_event, poll."""

    polls = True  # the referee changes the events asked for, and the state lines, after each step

    def __init__(self, link):
        self.link = link
        self.app = link.app
        self.features = []  # features the central asked for and the board accepted
        self.variant_ok = True  # the last set_variant named a variant this board plays
        self.side = "?"
        self.time = None  # (white ms, black ms) of the last `time`
        self.round = False  # between begin and end
        self.app_clock = False  # the app keeps the clock in this round: the board's is laid aside
        self.synced = True
        self.remote = None  # UCI of a central move shown on the LEDs, not yet made on the board
        self.streaming = False  # after get_state outside a round: a state line for every change
        self.fields = 6  # how many FEN fields the central uses
        self.start_fen = STARTING_FEN  # the central's game: start position ...
        self.agreed = []  # ... and the moves it accepted or sent (UCI)
        self.redo_moves = []  # moves the central's `undo` took back, newest first (for `redo`)
        self.awaiting = []  # what the central must answer: ("move", uci), ("undo_offer", uci), ("draw", "")
        self.after_undo = None  # a move to send once the central has taken the last one back
        self.draw_offered = False  # the central offered a draw (on the referee, for the LEDs)
        self.undo_offered = False  # the central offered a takeback: taking it back accepts
        self.echoes = []  # UCI of promote events the link caused itself (not the player's)
        self.todo = []  # referee changes the events asked for, done in poll()
        self.sent = bytearray(64)  # occupancy in the last unsync/state line
        self.version = -1
        self.pieces = Pieces()
        from link.cpp_commands import COMMANDS  # noqa: PLC0415 - its own module: a second, smaller compile

        self._commands = COMMANDS

    @property
    def draw_offered(self):
        """The central offered a draw: the kings' sign accepts (the kings show it, core/display.py)."""
        return self.app.referee.draw_offer

    @draw_offered.setter
    def draw_offered(self, on):
        ref = self.app.referee
        if ref.draw_offer != on:
            ref.draw_offer = on
            self.app.redraw()

    def keep_app_clock(self):
        """The app's clock rules this round (its `time W B`): the board's own neither runs, flags
        nor penalises until the round ends (docs/clock.md); the board shows the app's times."""
        if not self.app_clock:
            self.app_clock = True
            self.app.referee.lay_clock_aside()
            self.app.redraw()

    def has(self, feature):
        return feature in self.features

    def line(self, text):
        self.link.line(text)

    def err(self, text):
        self.link.err(text)

    def command(self, name, rest):
        self._commands[name](self, rest)

    def info(self, text):
        if self.round and self.has("msg"):
            self.line("msg " + text)

    def enter(self, held):
        return held  # outside a round the board is silent: a person's messages stay held

    def leave(self):
        """The round is over (end, get_state, another dialect): back to silence."""
        self.round = False
        self.streaming = False
        self.todo = []
        self.awaiting = []
        self.after_undo = None
        self.draw_offered = False
        self.undo_offered = False
        self.app.referee.new_games = True
        Game.judge_dead = True  # the board judges dead positions again (core/game.py)
        if self.app_clock:
            self.app_clock = False
            self.app.referee.take_clock_back()  # the board's clock again, for the board's next move
        if self.remote is not None:
            self.remote = None
            self.app.referee.show_remote(0)
            self.app.redraw()
        self.synced = True

    # ------------------------------------------------------------------ lines to the central

    def fen(self, placement_text=None):
        """The game's FEN with as many fields as the central uses, optionally another placement."""
        fields = self.app.referee.game.fen().split()
        if placement_text is not None:
            fields[0] = placement_text
        return " ".join(fields[: self.fields])

    def placement(self):
        return placement(self.pieces.read(self.app.referee, False))

    def unsync(self):
        self.synced = False
        self.sent[:] = self.app.referee.occ
        self.line("unsync " + self.fen(self.placement()))

    def sync(self, fen=None):
        self.synced = True
        self.line("sync " + (fen or self.fen()))

    def send_move(self, uci):
        self.line("move " + _cpp_uci(uci))
        self.awaiting.append(("move", uci))

    def _waiting_for(self, kind):
        for entry in self.awaiting:
            if entry[0] == kind:
                return True
        return False

    # ------------------------------------------------------------------ the board's events

    def on_event(self, ev):
        if not self.round:
            return  # outside a round the board speaks only when asked
        kind = ev[0]
        if self.todo and kind in ("move", "undo", "promote", "end"):
            # The board is about to be put back to the central's game (poll() does it after this
            # step): what else the player did in the meantime is moot, nothing goes out for it.
            for todo in self.todo:
                if todo[0] == "restore":
                    return
        if kind == "move":
            self._board_move(ev[1])
        elif kind == "undo":
            self._board_undo(move_uci(ev[1]))
        elif kind == "promote":
            uci = move_uci(ev[1])
            if uci in self.echoes:
                self.echoes.remove(uci)  # the link changed it (the central's choice)
            elif not self._awaiting_move(uci):
                # A tap on the promoted piece after the central chose it: the central's piece stays.
                self.todo.append(("promote", self._agreed_promotion(uci)))
            # Still waiting for the central's answer: its `promote` decides, the tap changes nothing.
        elif kind == "error":
            if self.synced:
                self.unsync()
            if self.has("msg"):
                self.line("msg " + ascii_only(event_text(ev)))
        elif kind == "claim":
            if self.has("msg"):
                self.line("msg draw can be claimed: " + ev[1])
        elif kind == "end":
            self._board_end(ev[1], ev[2])
        # ("new",) cannot come in a round: the referee starts no game while a central rules.

    def _board_move(self, m):
        uci = move_uci(m)
        remote = self.remote
        if remote is not None:
            self.remote = None
            if uci[:4] == remote[:4]:
                # The central's move, made on the board: nothing to answer (CPP "Move").
                if uci != remote:
                    self.todo.append(("promote", PROMOTION_LETTERS.find(remote[4]) + KNIGHT))
                if not self.synced:
                    self.sync()
                if self.has("moved"):
                    self.line("moved")
                return
            self.err("the board played %s, the move to make was %s" % (uci, remote))
            self.todo.append(("restore", 0))
            return
        if self._waiting_for("undo_offer"):
            # Rook-first castling: the rook's move is being taken back; the castling goes out once
            # the central has done so.
            self.after_undo = uci
            return
        if not self.synced:
            # The board came back in step by finishing a move: sync first, in the position before it.
            self.sync(self._fen_before_last())
        if self.draw_offered:
            self.draw_offered = False
            self.line("nok")  # a move instead of the kings' draw sign declines the offer
        if self.undo_offered:
            self.undo_offered = False
            self.line("nok")  # ... and a move instead of the takeback declines that one
        self.send_move(uci)

    def _board_undo(self, uci):
        if self.undo_offered:
            # The central offered to take the move back, and the player did: accepted. The
            # central's `undo FEN` follows.
            self.undo_offered = False
            self.line("ok")
        elif self.has("undo_offer") and self.has("undo_redo"):
            self.line("undo_offer")
            self.awaiting.append(("undo_offer", uci))
        else:
            self.todo.append(("restore", 0))  # the central cannot take a move back

    def _board_end(self, result, reason):
        if reason == RESIGNATION:
            if self.has("resign"):
                self.line("resign")
            else:
                self.todo.append(("restore", 0))
        elif reason == AGREEMENT:
            if self.draw_offered:
                self.draw_offered = False
                self.line("ok")
            elif self.has("draw_offer"):
                self.line("draw_offer")
                self.awaiting.append(("draw", ""))
            else:
                self.todo.append(("restore", 0))
        # Checkmate, stalemate and the automatic draws: the central rules and sends `end` itself.

    def _fen_before_last(self):
        game = self.app.referee.game
        if not game.ply():
            return None
        pos = game.position
        last = pos.last_move()
        pos.unmake()
        try:
            fields = pos.fen().split()  # allocates: a MemoryError here must not leave the game a move short
        finally:
            pos.make(last)
        return " ".join(fields[: self.fields])

    def _awaiting_move(self, uci):
        for kind, sent in self.awaiting:
            if kind == "move" and sent[:4] == uci[:4]:
                return True
        return False

    def _agreed_promotion(self, uci):
        sent = uci[:4] + "q"
        for agreed in self.agreed:
            if agreed[:4] == uci[:4] and len(agreed) == 5:
                sent = agreed
        return PROMOTION_LETTERS.find(sent[4]) + KNIGHT

    # ------------------------------------------------------------------ every step

    def poll(self, now):
        if self.todo:
            todo = self.todo
            self.todo = []
            for kind, arg in todo:
                if kind == "restore":
                    self.restore()
                elif kind == "promote":
                    self._set_promotion(arg)
        ref = self.app.referee
        if ref.version == self.version:
            return
        self.version = ref.version
        if not self.round:
            if self.streaming and ref.occ != self.sent:
                self.sent[:] = ref.occ
                self.line("state " + self.placement())
            return
        self.pieces.follow(ref)
        if self.undo_offered and ref.mode == STRICT and ref.game.ply() and ref.occ == ref.prev:
            # Strict mode reads no takeback: the position before the last move set up accepts.
            self.undo_offered = False
            self.line("ok")
        if self.synced:
            if ref.phase == SETUP:
                self.unsync()
            return
        if ref.phase != SETUP and ref.occ == ref.base:
            self.sync()
        elif ref.occ != self.sent:
            self.sent[:] = ref.occ
            self.line("state " + self.placement())

    def _set_promotion(self, piece_type):
        ref = self.app.referee
        last = ref.game.last_move()
        if not last or not move_promotion(last) or move_promotion(last) == piece_type:
            return
        if ref.choose_promotion(piece_type):
            self.echoes.append(move_uci(ref.game.last_move()))
            self.app.redraw()
        else:
            self.restore()

    def central_game(self):
        """The central's game: its start position and the moves it agreed to."""
        game = Game(self.start_fen)
        for i in range(len(self.agreed)):
            if not pushed(game, self.agreed[i]):
                del self.agreed[i:]  # cannot happen with a central that keeps to the rules
                break
        return game

    def restore(self, rejected=False):
        """Back to the central's game: the LEDs then guide the pieces to it. The moves still
        waiting for an answer stay (the central has not refused them), unless one was refused
        (`rejected`): then it and everything played after it go."""
        game = self.central_game()
        moves = []
        if not rejected:
            # An undo or draw offer waiting for its answer is void once the board is put back.
            for kind, uci in self.awaiting:
                if kind != "move" or not pushed(game, uci):
                    break
                moves.append((kind, uci))
        self.awaiting = moves
        self.after_undo = None
        self.remote = None
        self.load(game)

    def load(self, game):
        self.link.load(game)
        self.version = -1

