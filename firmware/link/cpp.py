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
# Pure like the rest of link/: events come in through on_event() during App.step(); what they make
# the board do to the referee (put a refused move back) waits for poll().
from core.game import AGREEMENT, Game, RESIGNATION
from core.position import KNIGHT, STARTING_FEN, move_promotion, move_uci, parse_square
from core.referee import OVER, PLAY, SETUP, STRICT
from link import ascii_only, short
from link.board import complete_fen
from link.pieces import Pieces, placement

# Features this board answers `ok` to. Refused: last_move (the board shows the last move from its
# own record and cannot show one it was only told of), score, submove_state, set_state, option.
FEATURES = (
    "msg", "check", "side", "resign", "moved", "draw_offer", "undo_redo", "undo_offer", "get_state",
    "draw_reason", "variant_reason", "time",
)
VARIANTS = ("standard",)
# `end` reasons that are draws (the basic `draw` and those of feature draw_reason): the board's
# game then ends drawn, and the LEDs show it on both kings.
DRAW_REASONS = (
    "draw", "draw_offer", "stalemate", "threefold_repetition", "fifty_move", "insufficient_material",
    "dead_position",
)

_PROMOTION_LETTERS = "nbrq"  # index + KNIGHT = piece type


def _cpp_uci(uci):
    """A board move as CPP sends it: a promotion without its piece (the central chooses)."""
    return uci[:4]


class Cpp:
    """The CPP session on one Link: what the central agreed to and what waits for its answer."""

    def __init__(self, link):
        self.link = link
        self.app = link.app
        self.features = []  # features the central asked for and the board accepted
        self.variant_ok = True  # the last set_variant named a variant this board plays
        self.side = "?"
        self.time = None  # (white ms, black ms) of the last `time`
        self.round = False  # between begin and end
        self.synced = True
        self.remote = None  # UCI of a central move shown on the LEDs, not yet made on the board
        self._streaming = False  # after get_state outside a round: a state line for every change
        self._fields = 6  # how many FEN fields the central uses
        self._start = STARTING_FEN  # the central's game: start position ...
        self._agreed = []  # ... and the moves it accepted or sent (UCI)
        self._redo = []  # moves the central's `undo` took back, newest first (for `redo`)
        self._awaiting = []  # what the central must answer: ("move", uci), ("undo_offer", uci), ("draw", "")
        self._after_undo = None  # a move to send once the central has taken the last one back
        self._draw_offered = False  # the central offered a draw: the kings' sign accepts
        self._undo_offered = False  # the central offered a takeback: taking it back accepts
        self._echoes = []  # UCI of promote events the link caused itself (not the player's)
        self._todo = []  # referee changes the events asked for, done in poll()
        self._sent = bytearray(64)  # occupancy in the last unsync/state line
        self._version = -1
        self.pieces = Pieces()

    def has(self, feature):
        return feature in self.features

    def line(self, text):
        self.link.line(text)

    def err(self, text):
        self.link.err(text)

    def command(self, name, rest):
        COMMANDS[name](self, rest)

    def info(self, text):
        if self.round and self.has("msg"):
            self.line("msg " + text)

    def leave(self):
        """The round is over (end, get_state, another dialect): back to silence."""
        self.round = False
        self._streaming = False
        self._todo = []
        self._awaiting = []
        self._after_undo = None
        self._draw_offered = False
        self._undo_offered = False
        self.app.referee.new_games = True
        if self.remote is not None:
            self.remote = None
            self.app.referee.show_remote(0)
            self.app.redraw()
        self.synced = True

    # ------------------------------------------------------------------ lines to the central

    def _fen(self, placement_text=None):
        """The game's FEN with as many fields as the central uses, optionally another placement."""
        fields = self.app.referee.game.fen().split()
        if placement_text is not None:
            fields[0] = placement_text
        return " ".join(fields[: self._fields])

    def placement(self):
        return placement(self.pieces.read(self.app.referee, False))

    def _unsync(self):
        self.synced = False
        self._sent[:] = self.app.referee.occ
        self.line("unsync " + self._fen(self.placement()))

    def _sync(self, fen=None):
        self.synced = True
        self.line("sync " + (fen or self._fen()))

    def _send_move(self, uci):
        self.line("move " + _cpp_uci(uci))
        self._awaiting.append(("move", uci))

    def _waiting_for(self, kind):
        for entry in self._awaiting:
            if entry[0] == kind:
                return True
        return False

    # ------------------------------------------------------------------ the board's events

    def on_event(self, ev):
        if not self.round:
            return  # outside a round the board speaks only when asked
        kind = ev[0]
        if self._todo and kind in ("move", "undo", "promote", "end"):
            # The board is about to be put back to the central's game (poll() does it after this
            # step): what else the player did in the meantime is moot, nothing goes out for it.
            for todo in self._todo:
                if todo[0] == "restore":
                    return
        if kind == "move":
            self._board_move(ev[1])
        elif kind == "undo":
            self._board_undo(move_uci(ev[1]))
        elif kind == "promote":
            uci = move_uci(ev[1])
            if uci in self._echoes:
                self._echoes.remove(uci)  # the link changed it (the central's choice)
            elif not self._awaiting_move(uci):
                # A tap on the promoted piece after the central chose it: the central's piece stays.
                self._todo.append(("promote", self._agreed_promotion(uci)))
            # Still waiting for the central's answer: its `promote` decides, the tap changes nothing.
        elif kind == "error":
            if self.synced:
                self._unsync()
            if self.has("msg"):
                self.line("msg " + ascii_only(_event_words(ev)))
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
                    self._todo.append(("promote", _PROMOTION_LETTERS.find(remote[4]) + KNIGHT))
                if not self.synced:
                    self._sync()
                if self.has("moved"):
                    self.line("moved")
                return
            self.err("the board played %s, the move to make was %s" % (uci, remote))
            self._todo.append(("restore", 0))
            return
        if self._waiting_for("undo_offer"):
            # Rook-first castling: the rook's move is being taken back; the castling goes out once
            # the central has done so.
            self._after_undo = uci
            return
        if not self.synced:
            # The board came back in step by finishing a move: sync first, in the position before it.
            self._sync(self._fen_before_last())
        if self._draw_offered:
            self._draw_offered = False
            self.line("nok")  # a move instead of the kings' draw sign declines the offer
        if self._undo_offered:
            self._undo_offered = False
            self.line("nok")  # ... and a move instead of the takeback declines that one
        self._send_move(uci)

    def _board_undo(self, uci):
        if self._undo_offered:
            # The central offered to take the move back, and the player did: accepted. The
            # central's `undo FEN` follows.
            self._undo_offered = False
            self.line("ok")
        elif self.has("undo_offer") and self.has("undo_redo"):
            self.line("undo_offer")
            self._awaiting.append(("undo_offer", uci))
        else:
            self._todo.append(("restore", 0))  # the central cannot take a move back

    def _board_end(self, result, reason):
        if reason == RESIGNATION:
            if self.has("resign"):
                self.line("resign")
            else:
                self._todo.append(("restore", 0))
        elif reason == AGREEMENT:
            if self._draw_offered:
                self._draw_offered = False
                self.line("ok")
            elif self.has("draw_offer"):
                self.line("draw_offer")
                self._awaiting.append(("draw", ""))
            else:
                self._todo.append(("restore", 0))
        # Checkmate, stalemate and the automatic draws: the central rules and sends `end` itself.

    def _fen_before_last(self):
        game = self.app.referee.game
        if not game.ply():
            return None
        pos = game.position
        last = pos.last_move()
        pos.unmake()
        fields = pos.fen().split()
        pos.make(last)
        return " ".join(fields[: self._fields])

    def _awaiting_move(self, uci):
        for kind, sent in self._awaiting:
            if kind == "move" and sent[:4] == uci[:4]:
                return True
        return False

    def _agreed_promotion(self, uci):
        sent = uci[:4] + "q"
        for agreed in self._agreed:
            if agreed[:4] == uci[:4] and len(agreed) == 5:
                sent = agreed
        return _PROMOTION_LETTERS.find(sent[4]) + KNIGHT

    # ------------------------------------------------------------------ every step

    def poll(self, now):
        if self._todo:
            todo = self._todo
            self._todo = []
            for kind, arg in todo:
                if kind == "restore":
                    self._restore()
                elif kind == "promote":
                    self._set_promotion(arg)
        ref = self.app.referee
        if ref.version == self._version:
            return
        self._version = ref.version
        if not self.round:
            if self._streaming and ref.occ != self._sent:
                self._sent[:] = ref.occ
                self.line("state " + self.placement())
            return
        self.pieces.follow(ref)
        if self._undo_offered and ref.mode == STRICT and ref.game.ply() and ref.occ == ref.prev:
            # Strict mode reads no takeback: the position before the last move set up accepts.
            self._undo_offered = False
            self.line("ok")
        if self.synced:
            if ref.phase == SETUP:
                self._unsync()
            return
        if ref.phase != SETUP and ref.occ == ref.base:
            self._sync()
        elif ref.occ != self._sent:
            self._sent[:] = ref.occ
            self.line("state " + self.placement())

    def _set_promotion(self, piece_type):
        ref = self.app.referee
        last = ref.game.last_move()
        if not last or not move_promotion(last) or move_promotion(last) == piece_type:
            return
        if ref.choose_promotion(piece_type):
            self._echoes.append(move_uci(ref.game.last_move()))
            self.app.redraw()
        else:
            self._restore()

    def _central_game(self):
        """The central's game: its start position and the moves it agreed to."""
        game = Game(self._start)
        for i in range(len(self._agreed)):
            if not _push(game, self._agreed[i]):
                del self._agreed[i:]  # cannot happen with a central that keeps to the rules
                break
        return game

    def _restore(self, rejected=False):
        """Back to the central's game: the LEDs then guide the pieces to it. The moves still
        waiting for an answer stay (the central has not refused them), unless one was refused
        (`rejected`): then it and everything played after it go."""
        game = self._central_game()
        moves = []
        if not rejected:
            # An undo or draw offer waiting for its answer is void once the board is put back.
            for kind, uci in self._awaiting:
                if kind != "move" or not _push(game, uci):
                    break
                moves.append((kind, uci))
        self._awaiting = moves
        self._after_undo = None
        self.remote = None
        self._load(game)

    def _load(self, game):
        self.link.load(game)
        self._version = -1

    # ------------------------------------------------------------------ commands of the central

    def _begin(self, rest):
        fen = complete_fen(rest)
        if fen is None:
            self.err("begin needs a FEN")
            return
        if not self.variant_ok:
            self.err("begin: this board plays only standard chess (set_variant standard)")
            return
        ref = self.app.referee
        try:
            game = Game(fen)
        except ValueError as e:
            self.err("begin: %s" % e)
            return
        # The position of the game on the board (the app reconnected): keep that game, its moves
        # and record. Only the fields the central gave count. The start position always begins
        # a fresh record.
        given = min(len(rest.split()), 4)
        here = ref.game.fen().split()
        if (
            here[:given] == game.fen().split()[:given]
            and here[0] != STARTING_FEN.split()[0]
            and not ref.game.is_over()
        ):
            game = ref.game
        self._fields = len(rest.split())
        self.round = True
        self._streaming = False
        ref.new_games = False  # the central rules the round: a start position set up is no new game
        self._start = game.start_fen
        self._agreed = game.uci_moves()
        self._redo = []
        self._awaiting = []
        self._after_undo = None
        self.remote = None
        self._draw_offered = False
        self._undo_offered = False
        self._echoes = []
        self._todo = []
        self._load(game)
        self._version = ref.version
        self.pieces.follow(ref)
        if ref.phase == SETUP:
            self._unsync()
        else:
            self._sync(self._fen())

    def _move(self, rest):
        if not self.round:
            self.err("move: no round (send begin FEN first)")
            return
        self._void_offers()
        if self._awaiting or self.remote is not None:
            self.err("move %s: the board is still waiting for %s" % (
                short(rest), self.remote or "an answer to " + " ".join(self._awaiting[0])))
            return
        ref = self.app.referee
        if ref.phase == OVER or ref.game.is_over():
            self.err("move %s: the game is over" % short(rest))
            return
        try:
            m = _parse_move(ref.game.position, rest)
        except ValueError as e:
            self.err("move: %s" % e)
            return
        uci = move_uci(m)
        self._agreed.append(uci)
        self._redo = []
        if self.synced and ref.phase == PLAY:
            self.remote = uci
            ref.show_remote(m)  # shown from and to until the player makes it
            self.app.redraw()
        else:
            # CPP lets the central move while the board is out of step: the LEDs now guide the
            # pieces to the position after its move.
            game = ref.game
            game.push(m)
            self._load(game)

    def _void_offers(self):
        """The central moved or set a position without answering the board's offers: they lapse
        (CPP: "opposite side may not respond"), and a takeback on the board is put back."""
        taken_back = False
        keep = []
        for entry in self._awaiting:
            if entry[0] == "move":
                keep.append(entry)
            elif entry[0] == "undo_offer":
                taken_back = True
        self._awaiting = keep
        self._draw_offered = False
        self._undo_offered = False
        if taken_back:
            self._restore()

    def _ok(self, rest):
        self._answer(True, rest)

    def _nok(self, rest):
        self._answer(False, rest)

    def _answer(self, accepted, rest):
        word = "ok" if accepted else "nok"
        if rest:
            self.err("%s takes nothing after it" % word)
            return
        if not self._awaiting:
            self.err("%s: no move, undo or draw offer is waiting for an answer" % word)
            return
        kind, uci = self._awaiting.pop(0)
        if not accepted:
            self._restore(True)  # refused: the LEDs guide the board back to the central's game
            return
        if kind == "move":
            self._agreed.append(uci)  # a promotion: the queen the board assumed
            self._redo = []
        # ("undo_offer", uci): the central's `undo FEN` follows. ("draw", ""): the game on the
        # board already ended by agreement; the central's `end` follows.

    def _promote(self, rest):
        # The central's answer to a promotion the board sent, naming the piece.
        if len(rest) != 5 or rest[4] not in _PROMOTION_LETTERS:
            self.err("promote needs q, r, b or n, or a UCI move such as a7a8n")
            return
        if not self._awaiting or self._awaiting[0][0] != "move" or self._awaiting[0][1][:4] != rest[:4]:
            self.err("promote %s: no such move is waiting for an answer" % short(rest))
            return
        self._awaiting.pop(0)
        self._agreed.append(rest)
        self._redo = []
        ref = self.app.referee
        last = ref.game.last_move()
        if last and move_uci(last) != rest and move_uci(last)[:4] == rest[:4]:
            piece = _PROMOTION_LETTERS.find(rest[4]) + KNIGHT
            if ref.choose_promotion(piece):
                self._echoes.append(rest)
                self.app.redraw()
            else:
                self._restore()  # the piece can no longer be tapped: set the game to the central's

    def _undo(self, rest):
        self._shift(rest, True)

    def _redo_cmd(self, rest):
        self._shift(rest, False)

    def _shift(self, rest, back):
        """`undo FEN` / `redo FEN` (feature undo_redo): the central sets the round to the position
        before (or after) a move; the LEDs guide the pieces there, unsync/state/sync as ever."""
        word = "undo" if back else "redo"
        if not self.round:
            self.err("%s: no round (send begin FEN first)" % word)
            return
        fen = complete_fen(rest)
        try:
            target = Game(fen) if fen else None
        except ValueError as e:
            self.err("%s: %s" % (word, e))
            return
        if target is None:
            self.err("%s needs a FEN" % word)
            return
        given = min(len(rest.split()), 4)
        want = target.fen().split()[:given]
        self._void_offers()
        self._awaiting = [entry for entry in self._awaiting if entry[0] != "move"]
        game = self._central_game()
        agreed = self._agreed
        found = False
        if back:
            for i in range(len(agreed), -1, -1):
                if game.fen().split()[:given] == want:
                    self._redo = agreed[i:] + self._redo
                    del agreed[i:]
                    found = True
                    break
                if i:
                    game.pop()
        else:
            for m in list(game.legal):
                game.push(m)
                if game.fen().split()[:given] == want:
                    uci = move_uci(m)
                    agreed.append(uci)
                    if self._redo and self._redo[0] == uci:
                        self._redo.pop(0)
                    else:
                        self._redo = []
                    found = True
                    break
                game.pop()
        if not found:
            # Not a position of this round: the round goes on from it, as after a begin.
            game = target
            self._start = target.start_fen
            self._agreed = []
            self._redo = []
        self.remote = None
        self.app.referee.show_remote(0)
        after = self._after_undo
        self._after_undo = None
        # The castling whose rook move the central just took back (rook-first, casual mode), or a
        # move played after the takeback: it goes out now, and stays on the board.
        after = after if back and after is not None and _push(game, after) else None
        self._load(game)
        if after is not None:
            self._send_move(after)

    def _end(self, rest):
        # CPP: no answer. A draw the board's game has not reached yet is shown on the kings.
        game = self.app.referee.game
        if rest in DRAW_REASONS and not game.is_over():
            game.agree_draw()
            self._load(game)
        self.leave()

    def _feature(self, rest):
        if rest in FEATURES:
            if rest not in self.features:
                self.features.append(rest)
            self.line("ok")
        else:
            self.line("nok")

    def _variant(self, rest):
        self.line("ok" if rest in VARIANTS else "nok")

    def _set_variant(self, rest):
        self.variant_ok = rest in VARIANTS  # no answer (CPP "Variant"; the driver waits for none)

    def _check(self, rest):
        try:
            parse_square(rest)
        except ValueError:
            self.err("check needs the king's square, e.g. e1")
        # The board works out check itself and shows it; nothing else to do.

    def _side(self, rest):
        if rest not in ("w", "b", "?"):
            self.err("side must be w, b or ?")
            return
        self.side = rest

    def _time(self, rest):
        words = rest.split()
        try:
            white, black = int(words[0]), int(words[1])
            if len(words) != 2 or white < 0 or black < 0:
                raise ValueError
        except (ValueError, IndexError):
            self.err("time needs the milliseconds left to white and to black, e.g. time 31444 12510")
            return
        self.time = (white, black)  # kept for the status; the LEDs have no clock to show

    def _draw_offer(self, rest):
        if not self.round or self.app.referee.game.is_over():
            self.line("nok")
            return
        # The player answers on the board: the kings' draw sign (one king on d4 or e5, the other
        # on d5 or e4) accepts, a move declines.
        self._draw_offered = True

    def _undo_offer(self, rest):
        if not self.round or not self.app.referee.game.ply() or self.app.referee.game.is_over():
            self.line("nok")
            return
        # The player answers on the board: taking the last move back accepts, a move declines.
        self._undo_offered = True

    def _get_state(self, rest):
        # CPP "Get State": aborts a round; then a state line for every change until `begin`.
        self.leave()
        self._streaming = True
        ref = self.app.referee
        self._sent[:] = ref.occ
        self._version = ref.version
        self.line("state " + self.placement())

    def _quiet(self, rest):
        pass  # err/msg from the central: the board has no screen to show them on

    def _unsupported(self, rest):
        self.err("not supported by this board (feature refused)")


def _event_words(ev):
    from link.board import event_text

    return event_text(ev)


def _parse_move(pos, text):
    """A legal move from the central's UCI; a promotion without its piece is a queen."""
    try:
        return pos.parse_uci(text)
    except ValueError:
        if len(text) == 4:
            try:
                return pos.parse_uci(text + "q")
            except ValueError:
                pass
        raise


def _push(game, uci):
    try:
        game.push_uci(uci)
        return True
    except ValueError:
        return False


COMMANDS = {
    "begin": Cpp._begin,
    "move": Cpp._move,
    "ok": Cpp._ok,
    "nok": Cpp._nok,
    "promote": Cpp._promote,
    "undo": Cpp._undo,
    "redo": Cpp._redo_cmd,
    "end": Cpp._end,
    "err": Cpp._quiet,
    "msg": Cpp._quiet,
    "feature": Cpp._feature,
    "variant": Cpp._variant,
    "set_variant": Cpp._set_variant,
    "check": Cpp._check,
    "side": Cpp._side,
    "time": Cpp._time,
    "draw_offer": Cpp._draw_offer,
    "undo_offer": Cpp._undo_offer,
    "get_state": Cpp._get_state,
    "last_move": Cpp._unsupported,
    "score": Cpp._unsupported,
    "state": Cpp._unsupported,
    "set_state": Cpp._unsupported,
    "options_begin": Cpp._unsupported,
    "options_reset": Cpp._unsupported,
    "set_option": Cpp._unsupported,
}
