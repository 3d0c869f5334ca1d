# Plain words for the board's event lines: what a person reads beside `error mismatch f1 b8 c4`.
#
# The machine-readable lines (docs/spec.md section 5: `move UCI`, `error KIND SQ...`, `end RESULT REASON` ...) stay
# as they are for programs; explain() adds a sentence for people, e.g. "put the bishop back on f1".
# One module for every place a person reads the board: its USB console, the simulators (browser
# and terminal) and the PC companion, so all of them say the same thing in the same words.
#
# explain() needs the game's position *as it is when the line is printed* (the piece names come
# from it): anything with piece_at(square 0..63) -> piece code (type | colour, core/position.py)
# and side (0 white, 8 black), i.e. core.position.Position; a move read from the board at power-up
# is named by its SAN (core/notation.py, which unmakes and makes it again on that position).
# Table-driven, no allocation beyond the sentence it returns; runs on MicroPython.

_PIECES = ("piece", "pawn", "knight", "bishop", "rook", "queen", "king")
_PROMOTIONS = {"q": "queen", "r": "rook", "b": "bishop", "n": "knight"}
_COLOURS = ("white", "black")

# end RESULT REASON -> the sentence; %s is the winner's colour (White/Black) where there is one.
_ENDS = {
    "checkmate": "checkmate: %s wins",
    "resignation": "%s wins: the other side resigned",
    "stalemate": "stalemate: the game is drawn",
    "insufficient-material": "draw: neither side has the pieces to mate",
    "dead-position": "draw: a dead position, neither side can ever mate",
    "seventyfive-moves": "draw: 75 moves without a capture or a pawn move",
    "fivefold-repetition": "draw: the same position for the fifth time",
    "agreement": "draw agreed",
    "claimed-draw": "draw claimed",
    "flag": "%s wins on time: the other side's flag fell",
    "flag-insufficient": "draw: a flag fell, but the other side cannot mate",
    "illegal-move": "%s wins: the other side's second completed illegal move",
    "illegal-move-insufficient": "draw: a second completed illegal move, but the other side cannot mate",
}
_CLAIMS = {
    "threefold": "a draw can be claimed: the same position for the third time",
    "fifty-moves": "a draw can be claimed: 50 moves without a capture or a pawn move",
}


def _square(name):
    """'e4' -> 28, or -1 when the word is not a square."""
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        return -1
    return "abcdefgh".index(name[0]) + 8 * (ord(name[1]) - 49)


def piece_name(position, sq, colour=False):
    """'bishop' (or 'white bishop') for the piece the game has on sq; 'piece' on an empty square."""
    p = position.piece_at(sq)
    name = _PIECES[p & 7] if p & 7 < len(_PIECES) else "piece"
    if colour and p:
        return _COLOURS[(p >> 3) & 1] + " " + name
    return name


def _put_back(position, squares, colour):
    """'put the bishop back on f1, the pawns on b2 and c2' for squares the game has pieces on."""
    names = []  # one piece name per group, in the order of the squares ...
    groups = []  # ... and the squares of each
    for sq in squares:
        name = piece_name(position, sq, colour)
        if name in names:
            groups[names.index(name)].append(sq)
        else:
            names.append(name)
            groups.append([sq])
    parts = []
    for i in range(len(names)):
        plural = "s" if len(groups[i]) > 1 else ""
        parts.append("the %s%s %son %s" % (names[i], plural, "back " if not parts else "", _and(groups[i])))
    return "put " + ", ".join(parts) if parts else ""


def _name(sq):
    return "abcdefgh"[sq & 7] + "12345678"[sq >> 3]


def _board_fix(position, squares):
    """What to do so that the board matches the game again, for the squares an error names."""
    back = []
    off = []
    colours = 0
    for sq in squares:
        p = position.piece_at(sq)
        if p:
            back.append(sq)
            colours |= 1 << ((p >> 3) & 1)
        else:
            off.append(sq)
    if len(back) == 1 and len(off) == 1:
        # One piece where it should not be and one square missing its piece: the same piece, most
        # likely (a move on its way back, a piece knocked onto the next square).
        return "move the %s from %s back to %s" % (piece_name(position, back[0]), _name(off[0]), _name(back[0]))
    words = []
    text = _put_back(position, back, colours == 3)
    if text:
        words.append(text)
    if off:
        words.append("take the piece%s off %s" % ("s" if len(off) > 1 else "", _and(off)))
    return "; ".join(words)


def _and(squares):
    names = [_name(sq) for sq in squares]
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _error(position, kind, squares):
    if kind == "mismatch":
        return _board_fix(position, squares)
    if kind == "illegal" and len(squares) >= 2:
        frm, to = squares[0], squares[1]
        # A move the rules allow is refused only because another move is due: the one the board's
        # engine shows (touch-move has its own kind). Saying it "cannot go" there would be wrong.
        why = "may not go to %s now: the board has shown its own move;" if position.find_move(frm, to) else "cannot go to %s:"
        text = ("the %s on %s " + why + " put it back on %s") % (
            piece_name(position, frm), _name(frm), _name(to), _name(frm))
        rest = _board_fix(position, squares[2:])
        return text + ("; " + rest if rest else "")
    if kind == "touch-move" and squares:
        sq = squares[0]
        p = position.piece_at(sq)
        if p and (p & 8) != position.side:
            text = "you touched the %s on %s: it must be taken" % (piece_name(position, sq), _name(sq))
        else:
            text = "you touched the %s on %s: it must move" % (piece_name(position, sq), _name(sq))
        rest = _board_fix(position, squares[1:])
        return text + ("; " + rest if rest else "")
    return ""


def move_san(position, uci):
    """The move as a player writes it, its SAN ('Qxb1', 'e8=Q+'): position is the game's as the
    line is printed, with the move made (the board reads it, then says so) or still to make;
    'b6-b1' when it is neither there (a position that is not the game's)."""
    from core.notation import san
    from core.position import move_uci

    last = position.last_move()
    if last and move_uci(last) == uci:
        position.unmake()
        try:
            return san(position, last)  # allocates: the game's position is put back whatever happens
        finally:
            position.make(last)
    try:
        return san(position, position.parse_uci(uci))
    except ValueError:
        return uci[0:2] + "-" + uci[2:4] + ("=" + uci[4].upper() if len(uci) == 5 else "")


def _choose(position, frm, squares):
    """At power-up, several captures explain the board (`choose FROM TO...`): which one, and the
    gesture that says it. position: the saved game's, where the piece still stands on frm."""
    names = [_name(sq) for sq in squares]
    where = ", ".join(names[:-1]) + " or " + names[-1]
    return (
        "the last move was not saved: the %s from %s took on %s; lift it where it stands and put it "
        "back (or set up the saved position again)" % (piece_name(position, frm), _name(frm), where)
    )


def explain(line, position):
    """A sentence for a person about one event line (as tools/replay.py prints it), or "" when the
    line needs none (a move; an undo, which the player made or which revises a rook move into
    castling; a kind this module does not know)."""
    words = line.split()
    if not words:
        return ""
    kind = words[0]
    if kind == "error" and len(words) >= 2:
        squares = []
        for w in words[2:]:
            sq = _square(w)
            if sq < 0:
                return ""
            squares.append(sq)
        return _error(position, words[1], squares)
    if kind == "end" and len(words) >= 3:
        text = _ENDS.get(words[2])
        if text is None:
            return ""
        if "%s" in text:
            winner = "White" if words[1] == "1-0" else "Black" if words[1] == "0-1" else ""
            if not winner:
                return ""
            text = text % winner
        return text
    if kind == "claim" and len(words) >= 2:
        return _CLAIMS.get(words[1], "")
    if kind == "penalty" and len(words) == 3 and words[1] in ("w", "b") and words[2].isdigit():
        return "a completed illegal move: %s gets %d more seconds" % (
            "White" if words[1] == "w" else "Black", int(words[2]) // 1000)
    if kind == "new":
        return "new game: the start position was set up"
    if kind == "read" and len(words) >= 2 and 4 <= len(words[1]) <= 5:
        return "read the last move, %s, from the board" % move_san(position, words[1])
    if kind == "choose" and len(words) >= 3:
        squares = []
        for w in words[1:]:
            sq = _square(w)
            if sq < 0:
                return ""
            squares.append(sq)
        return _choose(position, squares[0], squares[1:])
    if kind == "promote" and len(words) >= 2 and len(words[1]) == 5:
        piece = _PROMOTIONS.get(words[1][4])
        if piece:
            return "the pawn on %s becomes a %s" % (words[1][2:4], piece)
    return ""
