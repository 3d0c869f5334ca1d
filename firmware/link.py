# The USB line protocol: the Chess Peripheral Protocol (CPP) for chess apps, plus the board's own commands.
#
# CPP (github.com/vovagorodok/chess_peripheral_protocol, README at commit 54a12f1a37fe) is a text
# protocol between an app (the "central": it owns the rules of the round) and a board (the
# "peripheral": it owns the synchronisation of the pieces). One command per line. This file
# implements its basic functionality (begin/sync/unsync/state, move both ways, promote, end,
# ok/nok/err, feature, variant) and the features msg, check, side, resign, draw_offer, get_state
# and undo. The board's own commands (status, fen, pgn, mode, new, promote q|r|b|n, help) are
# extensions a CPP app never sends. Outside a CPP round (before `begin`, after `end`) every
# referee event is streamed in the vocabulary of tools/replay.py (SPEC section 5).
#
# Lines: ASCII, at most MAX_LINE bytes before the terminator; "\n", "\r\n" and a lone "\r" (what
# a terminal sends for Enter) all end a line. A longer line, one with a non-ASCII or control byte,
# and an unknown command each get exactly one `err` line and change nothing.
#
# Pure: no machine, no clock. The caller feeds bytes or str chunks split anywhere (feed) and
# calls poll(now) after every App.step; the Link registers itself as an App listener. What the
# listener learns while App is dispatching (a move the central must accept) is only written
# there; changes to the referee it implies (putting a rejected move back) wait for poll(), so the
# referee is never changed in the middle of its own event list.
from micropython import const

from core.game import AGREEMENT, Game, RESIGNATION
from core.position import KNIGHT, PIECE_SYMBOLS, STARTING_FEN, move_promotion, move_uci, parse_square, square_name
from core.referee import CASUAL, OVER, PLAY, SETUP, STRICT, event_text

MAX_LINE = const(128)

# Features this board answers `ok` to (CPP "Feature"). last_move is refused: the board draws the
# last move from its own game record and cannot show one it only heard about.
FEATURES = ("msg", "check", "side", "resign", "draw_offer", "get_state", "undo")
VARIANTS = ("standard",)

# Missing FEN fields, completed as CPP apps send "placement side" (castling "KQkq" is then cut
# down by the position to what the kings and rooks on their squares allow).
_FEN_DEFAULTS = ("", "w", "KQkq", "-", "0", "1")

_PROMOTION_LETTERS = "nbrq"  # index + KNIGHT = piece type

HELP = (
    "CPP (chess_peripheral_protocol):",
    "  begin FEN | move UCI | promote UCI | undo UCI | ok | nok | end REASON | err TEXT",
    "  feature NAME | variant NAME | set_variant NAME | msg TEXT | check SQ | side w|b|?",
    "  draw_offer | get_state",
    "board:",
    "  status          one line: phase, mode, turn, moves, result, error, round",
    "  board           the reed switches as a diagram, and where they differ from the game",
    "  fen             the position of the game",
    "  pgn             the game record: 'pgn N' then N lines",
    "  mode [strict|casual]",
    "  new [FEN]       start a new game (the LEDs guide the pieces to FEN)",
    "  promote q|r|b|n change the last promotion",
    "  selftest [scan|leds|squares|skip|stop]  bring-up test of the LEDs and switches",
    "  help            this text: 'help N' then N lines",
)


class Link:
    """One USB serial connection. write(text) sends text (complete lines, "\\n"-terminated)."""

    def __init__(self, app, write):
        self.app = app
        self.write = write
        self.now = 0
        self._buf = bytearray(MAX_LINE)
        self._len = 0
        self._bad = None  # why the line being received will be refused, or None
        self._cr = False  # the last byte was "\r": a "\n" right after it ends nothing
        self.features = []  # features the central asked for and the board accepted
        self.side = "?"
        self.round = False  # a CPP round is on (between begin and end)
        self.synced = True
        self._fields = 6  # how many FEN fields the central uses
        self._start = STARTING_FEN  # the central's game: start position ...
        self._agreed = []  # ... and the moves it accepted or sent (UCI)
        self._awaiting = []  # what the central must answer ok/nok to: ("move"|"undo", uci) or ("draw", "")
        self._remote = None  # UCI of a central move shown on the LEDs, not yet made on the board
        self._draw_offered = False  # the central offered a draw
        self._echoes = []  # UCI of promote events this Link caused itself (not the player's)
        self._todo = []  # referee changes the listener asked for, done in poll()
        self._sent = bytearray(64)  # occupancy in the last unsync/state line
        self._version = -1
        self.errors = 0  # lines refused, for tests and status
        self._said = None  # the last error event streamed, which App's console repeats
        app.listeners.append(self.on_event)

    # ------------------------------------------------------------------ input

    def feed(self, data):
        """Bytes or str received, in chunks of any size split anywhere."""
        if isinstance(data, str):
            for ch in data:
                self._byte(ord(ch))
        else:
            for b in data:
                self._byte(b)

    def _byte(self, b):
        if b == 10 or b == 13:  # "\n" or "\r": the end of a line
            if b == 10 and self._cr:
                self._cr = False
                return  # the "\n" of "\r\n"
            self._cr = b == 13
            self._end_line()
            return
        self._cr = False
        if self._bad is not None:
            return  # discarding up to the next line end
        if b >= 128:
            self._bad = "non-ASCII byte 0x%02x" % b
        elif (b < 32 and b != 9) or b == 127:  # 127: DEL, what a terminal's Backspace sends
            self._bad = "control byte 0x%02x" % b
        elif self._len >= MAX_LINE:
            self._bad = "line longer than %d bytes" % MAX_LINE
        else:
            self._buf[self._len] = b
            self._len += 1

    def _end_line(self):
        bad = self._bad
        n = self._len
        self._len = 0
        self._bad = None
        if bad is not None:
            self.errors += 1
            self._line("err " + bad + ": line ignored")
            return
        if n == 0:
            return
        text = bytes(self._buf[:n]).decode()
        try:
            self.command(text)
        except Exception as e:  # noqa: BLE001 - a bug must not stop the board; say what broke
            self.errors += 1
            self._line("err internal error: %s" % _short(repr(e)))

    def command(self, text):
        """Run one line (without its terminator)."""
        words = text.replace("\t", " ").split()
        if not words:
            return
        name = words[0]
        rest = text.strip()[len(name) :].strip()
        handler = _COMMANDS.get(name)
        if handler is None:
            self.errors += 1
            self._line("err unknown command: %s (try help)" % _short(name))
            return
        handler(self, rest)

    # ------------------------------------------------------------------ output

    def _line(self, text):
        self.write(text + "\n")

    def info(self, text):
        """A message for a person (the App's console): `msg TEXT`. In a CPP round only when the
        central asked for the msg feature, so an app that did not is never sent one."""
        if self.round and "msg" not in self.features:
            return
        if text == self._said:
            self._said = None
            return
        self._line("msg " + _ascii(text))

    def _fen(self, placement=None):
        """The game's FEN with as many fields as the central uses, optionally another placement."""
        fields = self.app.referee.game.fen().split()
        if placement is not None:
            fields[0] = placement
        return " ".join(fields[: self._fields])

    def placement(self):
        """The pieces as the board sees them, as a FEN placement: an occupied square shows the
        game's piece there (the board knows only occupancy, so it assumes the right piece), or
        "?" where the game has none (CPP "unsync")."""
        ref = self.app.referee
        pos = ref.game.position
        occ = ref.occ
        ranks = []
        for rank in range(7, -1, -1):
            row = ""
            empty = 0
            for f in range(8):
                sq = 8 * rank + f
                if not occ[sq]:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                p = pos.piece_at(sq)
                row += PIECE_SYMBOLS[p] if p else "?"
            if empty:
                row += str(empty)
            ranks.append(row)
        return "/".join(ranks)

    def _unsync(self):
        self.synced = False
        self._sent[:] = self.app.referee.occ
        self._line("unsync " + self._fen(self.placement()))

    def _sync(self, fen=None):
        self.synced = True
        self._line("sync " + (fen or self._fen()))

    # ------------------------------------------------------------------ the board's events

    def on_event(self, ev):
        """App listener: told of every referee event during App.step()."""
        try:
            self._on_event(ev)
        except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
            self._line("err internal error: %s" % _short(repr(e)))

    def _on_event(self, ev):
        if ev[0] == "error":
            # App also prints an error event on its console (info() below), right after telling
            # its listeners: one line per error is enough.
            self._said = event_text(ev)
        if not self.round:
            self._line(event_text(ev))
            return
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
            if "undo" in self.features:
                uci = move_uci(ev[1])
                self._line("undo " + uci)
                self._awaiting.append(("undo", uci))
            else:
                self._todo.append(("restore", 0))  # the central cannot take a move back
        elif kind == "promote":
            uci = move_uci(ev[1])
            if uci in self._echoes:
                self._echoes.remove(uci)  # this Link changed it (the central's choice)
            elif "undo" in self.features:
                # The player tapped the promoted piece: the move the central has is taken back
                # and the new one sent.
                old = self._last_sent_promotion(uci)
                if old:
                    self._line("undo " + old)
                    self._awaiting.append(("undo", old))
                self._line("move " + uci)
                self._awaiting.append(("move", uci))
            else:
                # Without undo the central keeps the piece it was sent: put that choice back.
                self._todo.append(("promote", self._agreed_promotion(uci)))
        elif kind == "error":
            if self.synced:
                self._unsync()
            if "msg" in self.features:
                self._line("msg " + event_text(ev))
        elif kind == "new":
            # The start position set up on the board: the player wants a new game. CPP has no way
            # for a board to end a round, so say so and leave it; the central sends begin again.
            self._line("err new game set up on the board: round ended, send begin to play on")
            self._leave_round()
        elif kind == "claim":
            if "msg" in self.features:
                self._line("msg draw can be claimed: " + ev[1])
        elif kind == "end":
            self._board_end(ev[1], ev[2])

    def _board_move(self, m):
        uci = move_uci(m)
        remote = self._remote
        if remote is not None:
            self._remote = None
            if uci[:4] == remote[:4]:
                # The central's move, made on the board: nothing to send (CPP "Move").
                if uci != remote:
                    self._todo.append(("promote", _PROMOTION_LETTERS.find(remote[4]) + KNIGHT))
                if not self.synced:
                    self._sync()
                return
            self._line("err the board played %s, the move to make was %s" % (uci, remote))
            self._todo.append(("restore", 0))
            return
        if not self.synced:
            # The board came back in step by finishing a move: sync first, in the position before it.
            self._sync(self._fen_before_last())
        if self._draw_offered:
            self._draw_offered = False
            self._line("nok")  # a move instead of the kings' draw sign declines the offer
        self._line("move " + uci)
        self._awaiting.append(("move", uci))

    def _board_end(self, result, reason):
        if reason == RESIGNATION:
            if "resign" in self.features:
                self._line("resign")
            else:
                self._todo.append(("restore", 0))
        elif reason == AGREEMENT:
            if self._draw_offered:
                self._draw_offered = False
                self._line("ok")
            elif "draw_offer" in self.features:
                self._line("draw_offer")
                self._awaiting.append(("draw", ""))
            else:
                self._todo.append(("restore", 0))
        # Checkmate, stalemate and the automatic draws: the central rules and sends `end` itself.

    def _fen_before_last(self):
        game = self.app.referee.game
        if not game.moves:
            return None
        pos = game.position
        last = game.moves[-1]
        pos.unmake()
        fields = pos.fen().split()
        pos.make(last)
        return " ".join(fields[: self._fields])

    def _last_sent_promotion(self, uci):
        for i in range(len(self._awaiting) - 1, -1, -1):
            kind, sent = self._awaiting[i]
            if kind == "move" and sent[:4] == uci[:4]:
                return sent
        if self._agreed and self._agreed[-1][:4] == uci[:4]:
            return self._agreed[-1]
        return None

    def _agreed_promotion(self, uci):
        sent = self._last_sent_promotion(uci) or (uci[:4] + "q")
        return _PROMOTION_LETTERS.find(sent[4]) + KNIGHT

    # ------------------------------------------------------------------ every step

    def poll(self, now):
        """Call after every App.step(now): carries out what the events asked for and streams
        the board's state while it differs from the central's (CPP "Unsync")."""
        self.now = now
        if self._todo:
            todo = self._todo
            self._todo = []
            try:
                for kind, arg in todo:
                    if kind == "restore":
                        self._restore()
                    elif kind == "promote":
                        self._set_promotion(arg)
            except Exception as e:  # noqa: BLE001 - a bug here must not stop the scan loop
                self._line("err internal error: %s" % _short(repr(e)))
        if not self.round:
            return
        ref = self.app.referee
        if ref.version == self._version:
            return
        self._version = ref.version
        if self.synced:
            if ref.phase == SETUP:
                self._unsync()
            return
        if ref.phase != SETUP and ref.occ == ref.base:
            self._sync()
        elif ref.occ != self._sent:
            self._sent[:] = ref.occ
            self._line("state " + self.placement())

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

    def _restore(self, rejected=False):
        """Back to the central's game: the LEDs then guide the pieces to it. The moves still
        waiting for an answer stay (the central has not refused them), unless one was refused
        (`rejected`): then it and everything played after it go."""
        game = Game(self._start)
        for i in range(len(self._agreed)):
            if not _push(game, self._agreed[i]):
                del self._agreed[i:]  # cannot happen with a central that keeps to the rules
                break
        moves = []
        if not rejected:
            # An undo or a draw offer waiting for its answer is void once the board is put back.
            for kind, uci in self._awaiting:
                if kind != "move" or not _push(game, uci):
                    break
                moves.append((kind, uci))
        self._awaiting = moves
        self._remote = None
        self._load(game)

    def _load(self, game):
        ref = self.app.referee
        ref.load_game(game, self.now)
        self.app.redraw()
        self._version = -1
        self._save()

    def _save(self):
        store = self.app.store
        if store is None:
            return
        ref = self.app.referee
        try:
            store.save(ref.game, ref.mode)
        except OSError as e:
            self.info("could not save the game: %s" % e)

    # ------------------------------------------------------------------ CPP commands

    def _cmd_begin(self, rest):
        fen = _complete_fen(rest)
        if fen is None:
            self._err("begin needs a FEN")
            return
        ref = self.app.referee
        try:
            game = Game(fen)
        except ValueError as e:
            self._err("begin: %s" % e)
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
        self._start = game.start_fen
        self._agreed = game.uci_moves()
        self._awaiting = []
        self._remote = None
        self._draw_offered = False
        self._echoes = []
        self._todo = []
        self._load(game)
        self._version = ref.version
        if ref.phase == SETUP:
            self._unsync()
        else:
            self._sync(self._fen())

    def _cmd_move(self, rest):
        if not self.round:
            self._err("move: no round (send begin FEN first)")
            return
        if self._awaiting or self._remote is not None:
            self._err("move %s: the board is still waiting for %s" % (
                _short(rest), self._remote or "an answer to " + " ".join(self._awaiting[0])))
            return
        ref = self.app.referee
        if ref.phase == OVER or ref.game.is_over():
            self._err("move %s: the game is over" % _short(rest))
            return
        try:
            m = ref.game.position.parse_uci(rest)
        except ValueError as e:
            self._err("move: %s" % e)
            return
        uci = move_uci(m)
        self._agreed.append(uci)
        if self.synced and ref.phase == PLAY:
            self._remote = uci
            ref.show_remote(m)  # shown from and to until the player makes it
            self.app.redraw()
        else:
            # CPP lets the central move while the board is out of step: the LEDs now guide the
            # pieces to the position after its move.
            game = ref.game
            game.push(m)
            self._load(game)

    def _cmd_ok(self, rest):
        self._answer(True, rest)

    def _cmd_nok(self, rest):
        self._answer(False, rest)

    def _answer(self, accepted, rest):
        word = "ok" if accepted else "nok"
        if rest:
            self._err("%s takes nothing after it" % word)
            return
        if not self._awaiting:
            self._err("%s: no move, undo or draw offer is waiting for an answer" % word)
            return
        kind, uci = self._awaiting.pop(0)
        if not accepted:
            self._restore(True)  # rejected: the LEDs guide the board back to the central's game
            return
        if kind == "move":
            self._agreed.append(uci)
        elif kind == "undo":
            if self._agreed and self._agreed[-1] == uci:
                self._agreed.pop()
        # ("draw", ""): the game on the board already ended by agreement.

    def _cmd_promote(self, rest):
        if len(rest) == 1:
            self._promote_piece(rest)  # board extension: promote q|r|b|n
            return
        # CPP: the central's answer to a move the board sent, naming the promotion piece.
        if len(rest) != 5 or rest[4] not in _PROMOTION_LETTERS:
            self._err("promote needs q, r, b or n, or a UCI move such as a7a8n")
            return
        if not self._awaiting or self._awaiting[0][0] != "move" or self._awaiting[0][1][:4] != rest[:4]:
            self._err("promote %s: no such move is waiting for an answer" % _short(rest))
            return
        self._awaiting.pop(0)
        self._agreed.append(rest)
        ref = self.app.referee
        last = ref.game.last_move()
        if last and move_uci(last) != rest and move_uci(last)[:4] == rest[:4]:
            piece = _PROMOTION_LETTERS.find(rest[4]) + KNIGHT
            if ref.choose_promotion(piece):
                self._echoes.append(rest)
                self.app.redraw()
            else:
                self._restore()

    def _promote_piece(self, letter):
        piece = _PROMOTION_LETTERS.find(letter.lower())
        if piece < 0:
            self._err("promote needs q, r, b or n")
            return
        if not self.app.referee.choose_promotion(piece + KNIGHT):
            self._err("promote: no promotion to change (only right after a pawn promoted)")
            return
        self.app.redraw()
        self._line("ok")

    def _cmd_undo(self, rest):
        if not self.round:
            self._err("undo: no round (send begin FEN first)")
            return
        ref = self.app.referee
        if self._remote is not None and rest == self._remote:
            # Taken back before the player made it: just stop showing it.
            self._remote = None
            self._agreed.pop()
            ref.show_remote(0)
            self.app.redraw()
            return
        last = ref.game.last_move()
        if not last or move_uci(last) != rest or not self._agreed or self._agreed[-1] != rest:
            self._err("undo %s: not the last move" % _short(rest))
            return
        self._agreed.pop()
        game = ref.game
        game.pop()
        self._load(game)  # the LEDs guide the piece back

    def _cmd_end(self, rest):
        # CPP: no answer. The round is over; the board goes back to streaming its own events.
        self._leave_round()

    def _leave_round(self):
        self.round = False
        self._todo = []
        self._awaiting = []
        self._draw_offered = False
        if self._remote is not None:
            self._remote = None
            self.app.referee.show_remote(0)
            self.app.redraw()
        self.synced = True

    def _cmd_err(self, rest):
        pass  # the central reports an error of its own: nothing for the board to do

    def _cmd_msg(self, rest):
        pass  # the board has no display for text

    def _cmd_feature(self, rest):
        if rest in FEATURES:
            if rest not in self.features:
                self.features.append(rest)
            self._line("ok")
        else:
            self._line("nok")

    def _cmd_variant(self, rest):
        self._line("ok" if rest in VARIANTS else "nok")

    def _cmd_check(self, rest):
        try:
            parse_square(rest)
        except ValueError:
            self._err("check needs the king's square, e.g. e1")
        # The board works out check itself and shows it; nothing else to do.

    def _cmd_side(self, rest):
        if rest not in ("w", "b", "?"):
            self._err("side must be w, b or ?")
            return
        self.side = rest

    def _cmd_draw_offer(self, rest):
        if not self.round or self.app.referee.game.is_over():
            self._line("nok")
            return
        # The player answers on the board: the kings' draw sign (one king on d4 or e5, the other
        # on d5 or e4) accepts, a move declines.
        self._draw_offered = True

    def _cmd_get_state(self, rest):
        self._line("state " + self.placement())

    def _unsupported(self, rest):
        self._err("not supported by this board (feature refused)")

    # ------------------------------------------------------------------ board extensions

    def _cmd_status(self, rest):
        ref = self.app.referee
        game = ref.game
        phase = "play" if ref.phase == PLAY else "setup" if ref.phase == SETUP else "over"
        error = ref.error[0] if ref.error is not None else "none"
        if self.round:
            sync = "round=" + ("sync" if self.synced else "unsync")
        else:
            sync = "round=off"
        self._line(
            "status phase=%s mode=%s turn=%s moves=%d result=%s reason=%s check=%s error=%s %s remote=%s"
            % (
                phase,
                ref.mode,
                "w" if game.position.side == 0 else "b",
                len(game.moves),
                game.result,
                game.reason or "-",
                "yes" if game.check else "no",
                error,
                sync,
                self._remote or "-",
            )
        )

    def _cmd_board(self, rest):
        """What the reed switches read now, as a diagram (rank 8 on top: X occupied, . empty), and
        where that differs from the game: the first thing to look at when building or fixing a board."""
        ref = self.app.referee
        occ = ref.occ
        lines = []
        for r in range(7, -1, -1):
            lines.append("%d %s" % (r + 1, " ".join("X" if occ[8 * r + f] else "." for f in range(8))))
        wrong = ref.emptied + ref.filled
        wrong.sort()
        lines.append("  a b c d e f g h")
        lines.append(
            "%d occupied; differs from the game at: %s"
            % (sum(occ), " ".join(square_name(sq) for sq in wrong) if wrong else "none")
        )
        self._block("board", lines)

    def _cmd_fen(self, rest):
        self._line("fen " + self.app.referee.game.fen())

    def _cmd_pgn(self, rest):
        lines = self.app.referee.game.pgn().rstrip("\n").split("\n")
        self._block("pgn", lines)

    def _cmd_selftest(self, rest):
        # Its own module (selftest.py), loaded only when a builder asks for it.
        import selftest

        selftest.command(self, rest)

    def _cmd_help(self, rest):
        self._block("help", HELP)

    def _block(self, name, lines):
        # Framing of a multi-line answer: "NAME N", then exactly N lines.
        self._line("%s %d" % (name, len(lines)))
        for line in lines:
            self._line(line)

    def _cmd_mode(self, rest):
        ref = self.app.referee
        if rest:
            if rest not in (STRICT, CASUAL):
                self._err("mode must be strict or casual")
                return
            if rest != ref.mode:
                ref.set_mode(rest)
                self.app.redraw()
                self._save()
        self._line("mode " + ref.mode)

    def _cmd_new(self, rest):
        fen = _complete_fen(rest) if rest else STARTING_FEN
        if fen is None:
            self._err("new: a FEN has at most 6 fields, got %d" % len(rest.split()))
            return
        try:
            game = Game(fen)
        except ValueError as e:
            self._err("new: %s" % e)
            return
        self._cmd_end("")  # a new game leaves any CPP round
        self._load(game)
        self._line("ok")

    def _err(self, text):
        self.errors += 1
        self._line("err " + _ascii(text))


def _push(game, uci):
    try:
        game.push_uci(uci)
        return True
    except ValueError:
        return False


def _complete_fen(text):
    fields = text.split()
    if not fields or len(fields) > 6:
        return None
    for i in range(len(fields), 6):
        fields.append(_FEN_DEFAULTS[i])
    return " ".join(fields)


def _short(text):
    return text if len(text) <= 24 else text[:21] + "..."


def _ascii(text):
    # Lines must stay ASCII (SPEC section 6): an exception text could carry anything.
    out = ""
    for ch in text:
        out += ch if 32 <= ord(ch) < 127 else "?"
    return out


_COMMANDS = {
    # CPP
    "begin": Link._cmd_begin,
    "move": Link._cmd_move,
    "ok": Link._cmd_ok,
    "nok": Link._cmd_nok,
    "promote": Link._cmd_promote,
    "undo": Link._cmd_undo,
    "end": Link._cmd_end,
    "err": Link._cmd_err,
    "msg": Link._cmd_msg,
    "feature": Link._cmd_feature,
    "variant": Link._cmd_variant,
    "set_variant": Link._cmd_variant,
    "check": Link._cmd_check,
    "side": Link._cmd_side,
    "draw_offer": Link._cmd_draw_offer,
    "get_state": Link._cmd_get_state,
    "last_move": Link._unsupported,
    "time": Link._unsupported,
    "score": Link._unsupported,
    "state": Link._unsupported,
    "set_state": Link._unsupported,
    "options_begin": Link._unsupported,
    "set_option": Link._unsupported,
    # Board extensions
    "status": Link._cmd_status,
    "board": Link._cmd_board,
    "fen": Link._cmd_fen,
    "pgn": Link._cmd_pgn,
    "help": Link._cmd_help,
    "selftest": Link._cmd_selftest,
    "mode": Link._cmd_mode,
    "new": Link._cmd_new,
}
