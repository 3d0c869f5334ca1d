# The CPP central's commands (link/cpp.py's Cpp holds the session they act on): one function per
# command, cpp and the text after the command's name in, lines to the central out.
from core.game import Game
from core.position import BLACK, KNIGHT, STARTING_FEN, WHITE, move_uci, parse_square
from core.referee import OVER, PLAY, SETUP
from link.commands import complete_fen
from link.cpp_terms import DRAW_REASONS, FEATURES, PROMOTION_LETTERS, VARIANTS, pushed
from link import short


def begin(cpp, rest):
    fen = complete_fen(rest)
    if fen is None:
        cpp.err("begin needs a FEN")
        return
    if not cpp.variant_ok:
        cpp.err("begin: this board plays only standard chess (set_variant standard)")
        return
    ref = cpp.app.referee
    Game.judge_dead = False  # the central rules the round: its end too (core/game.py)
    try:
        game = Game(fen)
    except ValueError as e:
        Game.judge_dead = not cpp.round
        cpp.err("begin: %s" % e)
        return
    # The position of the game on the board (the app reconnected): keep that game, its moves
    # and record. Only the fields the central gave count. The start position always begins
    # a fresh record.
    given = min(len(rest.split()), 4)
    here = ref.game.fen().split()
    same = here[:given] == game.fen().split()[:given] and not ref.game.is_over()
    if same and (here[0] != STARTING_FEN.split()[0] or not ref.game.ply()):
        # (A fresh game at the start position is the fresh record begin asks for.)
        game = ref.game
    cpp.fields = len(rest.split())
    cpp.round = True
    cpp.streaming = False
    ref.new_games = False  # the central rules the round: a start position set up is no new game
    cpp.start_fen = game.start_fen
    cpp.agreed = game.uci_moves()
    cpp.redo_moves = []
    cpp.awaiting = []
    cpp.after_undo = None
    cpp.remote = None
    cpp.draw_offered = False
    cpp.undo_offered = False
    cpp.echoes = []
    cpp.todo = []
    if game is not ref.game:
        cpp.load(game)
    # The board's own game goes on as it stands: a piece in the air (the app dropped mid-move)
    # stays a move in progress, reported as a move when it comes down, and the clock runs on.
    if cpp.time is not None:
        cpp.keep_app_clock()  # times sent before the round: the app keeps the clock in it
    cpp.version = ref.version
    cpp.pieces.follow(ref)
    if ref.phase == SETUP:
        cpp.unsync()
    else:
        cpp.sync(cpp.fen())


def move(cpp, rest):
    if not cpp.round:
        cpp.err("move: no round (send begin FEN first)")
        return
    _void_offers(cpp)
    if cpp.awaiting or cpp.remote is not None:
        cpp.err("move %s: the board is still waiting for %s" % (
            short(rest), cpp.remote or "an answer to " + " ".join(cpp.awaiting[0])))
        return
    ref = cpp.app.referee
    if ref.phase == OVER or ref.game.is_over():
        cpp.err("move %s: the game is over" % short(rest))
        return
    try:
        m = _parse_move(ref.game.position, rest)
    except ValueError as e:
        cpp.err("move: %s" % e)
        return
    uci = move_uci(m)
    cpp.agreed.append(uci)
    cpp.redo_moves = []
    if cpp.synced and ref.phase == PLAY:
        cpp.remote = uci
        ref.show_remote(m)  # shown from and to until the player makes it
        cpp.app.redraw()
    else:
        # CPP lets the central move while the board is out of step: the LEDs now guide the
        # pieces to the position after its move.
        game = ref.game
        game.push(m)
        cpp.load(game)


def _void_offers(cpp):
    """The central moved or set a position without answering the board's offers: they lapse
    (CPP: "opposite side may not respond"), and a takeback on the board is put back."""
    taken_back = False
    keep = []
    for entry in cpp.awaiting:
        if entry[0] == "move":
            keep.append(entry)
        elif entry[0] == "undo_offer":
            taken_back = True
    cpp.awaiting = keep
    cpp.draw_offered = False
    cpp.undo_offered = False
    if taken_back:
        cpp.restore()


def ok(cpp, rest):
    _answer(cpp, True, rest)


def nok(cpp, rest):
    _answer(cpp, False, rest)


def _answer(cpp, accepted, rest):
    word = "ok" if accepted else "nok"
    if rest:
        cpp.err("%s takes nothing after it" % word)
        return
    if not cpp.awaiting:
        cpp.err("%s: no move, undo or draw offer is waiting for an answer" % word)
        return
    kind, uci = cpp.awaiting.pop(0)
    if not accepted:
        cpp.restore(True)  # refused: the LEDs guide the board back to the central's game
        return
    if kind == "move":
        cpp.agreed.append(uci)  # a promotion: the queen the board assumed
        cpp.redo_moves = []
    # ("undo_offer", uci): the central's `undo FEN` follows. ("draw", ""): the game on the
    # board already ended by agreement; the central's `end` follows.


def promote(cpp, rest):
    # The central's answer to a promotion the board sent, naming the piece.
    if len(rest) != 5 or rest[4] not in PROMOTION_LETTERS:
        cpp.err("promote needs q, r, b or n, or a UCI move such as a7a8n")
        return
    if not cpp.awaiting or cpp.awaiting[0][0] != "move" or cpp.awaiting[0][1][:4] != rest[:4]:
        cpp.err("promote %s: no such move is waiting for an answer" % short(rest))
        return
    cpp.awaiting.pop(0)
    cpp.agreed.append(rest)
    cpp.redo_moves = []
    ref = cpp.app.referee
    last = ref.game.last_move()
    if last and move_uci(last) != rest and move_uci(last)[:4] == rest[:4]:
        piece = PROMOTION_LETTERS.find(rest[4]) + KNIGHT
        if ref.choose_promotion(piece):
            cpp.echoes.append(rest)
            cpp.app.redraw()
        else:
            cpp.restore()  # the piece can no longer be tapped: set the game to the central's


def undo(cpp, rest):
    _shift(cpp, rest, True)


def redo(cpp, rest):
    _shift(cpp, rest, False)


def _shift(cpp, rest, back):
    """`undo FEN` / `redo FEN` (feature undo_redo): the central sets the round to the position
    before (or after) a move; the LEDs guide the pieces there, unsync/state/sync as ever."""
    word = "undo" if back else "redo"
    if not cpp.round:
        cpp.err("%s: no round (send begin FEN first)" % word)
        return
    fen = complete_fen(rest)
    try:
        target = Game(fen) if fen else None
    except ValueError as e:
        cpp.err("%s: %s" % (word, e))
        return
    if target is None:
        cpp.err("%s needs a FEN" % word)
        return
    given = min(len(rest.split()), 4)
    want = target.fen().split()[:given]
    _void_offers(cpp)
    cpp.awaiting = [entry for entry in cpp.awaiting if entry[0] != "move"]
    game = cpp.central_game()
    agreed = cpp.agreed
    found = False
    if back:
        for i in range(len(agreed), -1, -1):
            if game.fen().split()[:given] == want:
                cpp.redo_moves = agreed[i:] + cpp.redo_moves
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
                if cpp.redo_moves and cpp.redo_moves[0] == uci:
                    cpp.redo_moves.pop(0)
                else:
                    cpp.redo_moves = []
                found = True
                break
            game.pop()
    if not found:
        # Not a position of this round: the round goes on from it, as after a begin.
        game = target
        cpp.start_fen = target.start_fen
        cpp.agreed = []
        cpp.redo_moves = []
    cpp.remote = None
    cpp.app.referee.show_remote(0)
    after = cpp.after_undo
    cpp.after_undo = None
    # The castling whose rook move the central just took back (rook-first, casual mode), or a
    # move played after the takeback: it goes out now, and stays on the board.
    after = after if back and after is not None and pushed(game, after) else None
    cpp.load(game)
    if after is not None:
        cpp.send_move(after)


def end(cpp, rest):
    # CPP: no answer. A draw the board's game has not reached yet is shown on the kings. The
    # board's extension `end REASON RESULT` (the companion sends it; CPP apps never do) shows a
    # decided game the board's game has not reached, lost by resigning, on time or by leaving on
    # Lichess, on the loser's king as a resignation. Outside a round there is no round to end:
    # the board's own game is not the central's to draw.
    if not cpp.round:
        return
    game = cpp.app.referee.game
    reason, _, result = rest.partition(" ")
    if not game.is_over():
        if reason in DRAW_REASONS:
            game.agree_draw()
            cpp.load(game)
        elif result in ("1-0", "0-1"):
            game.resign(WHITE if result == "0-1" else BLACK)
            cpp.load(game)
    cpp.leave()


def feature(cpp, rest):
    if rest in FEATURES:
        if rest not in cpp.features:
            cpp.features.append(rest)
        cpp.line("ok")
    else:
        cpp.line("nok")


def variant(cpp, rest):
    cpp.line("ok" if rest in VARIANTS else "nok")


def set_variant(cpp, rest):
    cpp.variant_ok = rest in VARIANTS  # no answer (CPP "Variant"; the driver waits for none)


def check(cpp, rest):
    try:
        parse_square(rest)
    except ValueError:
        cpp.err("check needs the king's square, e.g. e1")
    # The board works out check itself and shows it; nothing else to do.


def side(cpp, rest):
    if rest not in ("w", "b", "?"):
        cpp.err("side must be w, b or ?")
        return
    cpp.side = rest


def time(cpp, rest):
    words = rest.split()
    try:
        white, black = int(words[0]), int(words[1])
        if len(words) != 2 or white < 0 or black < 0:
            raise ValueError
    except (ValueError, IndexError):
        cpp.err("time needs the milliseconds left to white and to black, e.g. time 31444 12510")
        return
    cpp.time = (white, black)  # shown as the app's clock (link/clock_command.py, the OLED)
    if cpp.round:
        cpp.keep_app_clock()


def draw_offer(cpp, rest):
    if not cpp.round or cpp.app.referee.game.is_over():
        cpp.line("nok")
        return
    # The player answers on the board: the kings' draw sign (one king on d4 or e5, the other
    # on d5 or e4) accepts, a move declines.
    cpp.draw_offered = True


def undo_offer(cpp, rest):
    if not cpp.round or not cpp.app.referee.game.ply() or cpp.app.referee.game.is_over():
        cpp.line("nok")
        return
    # The player answers on the board: taking the last move back accepts, a move declines.
    cpp.undo_offered = True


def get_state(cpp, rest):
    # CPP "Get State": aborts a round; then a state line for every change until `begin`.
    cpp.leave()
    cpp.streaming = True
    ref = cpp.app.referee
    cpp.sent[:] = ref.occ
    cpp.version = ref.version
    cpp.line("state " + cpp.placement())


def quiet(cpp, rest):
    pass  # err/msg from the central: the board has no screen to show them on


def unsupported(cpp, rest):
    cpp.err("not supported by this board (feature refused)")


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


COMMANDS = {
    "begin": begin,
    "move": move,
    "ok": ok,
    "nok": nok,
    "promote": promote,
    "undo": undo,
    "redo": redo,
    "end": end,
    "err": quiet,
    "msg": quiet,
    "feature": feature,
    "variant": variant,
    "set_variant": set_variant,
    "check": check,
    "side": side,
    "time": time,
    "draw_offer": draw_offer,
    "undo_offer": undo_offer,
    "get_state": get_state,
    "last_move": unsupported,
    "score": unsupported,
    "state": unsupported,
    "set_state": unsupported,
    "options_begin": unsupported,
    "options_reset": unsupported,
    "set_option": unsupported,
}
