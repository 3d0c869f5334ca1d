# Move notation at the edges of the core: SAN (standard algebraic) in and out, and the PGN record.
from core.position import (
    FILE_NAMES,
    KING,
    KNIGHT,
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    PAWN,
    PIECE_SYMBOLS,
    move_from,
    move_promotion,
    move_to,
    square_name,
)


def san(position, move):
    """SAN of a legal move in the position, with + or # (FIDE Appendix C)."""
    text = _san_body(position, move)
    position.make(move)
    if position.is_check():
        text += "#" if not position.has_legal_move() else "+"
    position.unmake()
    return text


def _san_body(position, move):
    frm = move_from(move)
    to = move_to(move)
    if move >> 14 == MOVE_CASTLING:
        return "O-O" if to > frm else "O-O-O"
    piece = position.piece_at(frm) & 7
    capture = position.piece_at(to) != 0 or move >> 14 == MOVE_EN_PASSANT
    if piece == PAWN:
        text = FILE_NAMES[frm & 7] + "x" if capture else ""
        text += square_name(to)
        promo = move_promotion(move)
        if promo:
            text += "=" + PIECE_SYMBOLS[promo]
        return text
    text = PIECE_SYMBOLS[piece]
    if piece != KING:
        # Disambiguate by file, else by rank, else both (FIDE C.10).
        same_file = same_rank = others = False
        for m in position.legal_moves():
            f = move_from(m)
            if f != frm and move_to(m) == to and position.piece_at(f) & 7 == piece:
                others = True
                if f & 7 == frm & 7:
                    same_file = True
                if f >> 3 == frm >> 3:
                    same_rank = True
        if others:
            if not same_file:
                text += FILE_NAMES[frm & 7]
            elif not same_rank:
                text += "12345678"[frm >> 3]
            else:
                text += square_name(frm)
    if capture:
        text += "x"
    return text + square_name(to)


def parse_san(position, text):
    """The legal move that SAN text names ('Nf3', 'exd6', 'O-O', 'e8=Q+'); ValueError if none or ambiguous."""
    clean = text.strip().rstrip("+#!?").replace("0", "O")
    found = 0
    for m in position.legal_moves():
        if _san_body(position, m) == clean or _san_body(position, m).replace("=", "") == clean:
            if found:
                raise ValueError("ambiguous move %r" % text)
            found = m
    if not found:
        raise ValueError("illegal or unreadable move %r" % text)
    return found


def pgn(start_fen, moves, result="*", headers=None, standard_fen=None, clocks=None):
    """The game record as PGN text (export format: seven tag roster, SetUp/FEN for a custom start,
    movetext wrapped below 80 columns). `moves` are the moves played from start_fen. clocks: the
    mover's time left in ms after each of the last len(clocks) moves, written as `{[%clk h:mm:ss]}`
    after each (the clock annotation of Lichess and ChessBase exports)."""
    from core.position import Position, STARTING_FEN

    tags = [
        ("Event", "Casual game"),
        ("Site", "Electronic chessboard"),
        ("Date", "????.??.??"),
        ("Round", "-"),
        ("White", "?"),
        ("Black", "?"),
        ("Result", result),
    ]
    if headers:
        for key in headers:
            for i in range(len(tags)):
                if tags[i][0] == key:
                    tags[i] = (key, headers[key])
                    break
            else:
                tags.append((key, headers[key]))
    if start_fen != (standard_fen or STARTING_FEN):
        tags.append(("SetUp", "1"))
        tags.append(("FEN", start_fen))
    lines = ['[%s "%s"]' % (k, str(v).replace("\\", "\\\\").replace('"', '\\"')) for k, v in tags]
    position = Position(start_fen)
    words = []
    first_clock = len(moves) - len(clocks) if clocks else len(moves)
    for i in range(len(moves)):
        m = moves[i]
        white = position.side == 0
        if white:
            words.append("%d." % position.fullmove)
        elif i == 0 or i - 1 >= first_clock:
            words.append("%d..." % position.fullmove)  # after a comment the number comes again
        words.append(san(position, m))
        if i >= first_clock:
            from core.clock import clock_text

            words.append("{[%clk " + clock_text(clocks[i - first_clock]) + "]}")
        position.make(m)
    words.append(result)
    text = ""
    line = ""
    for w in words:
        if line and len(line) + 1 + len(w) > 79:
            text += line + "\n"
            line = w
        else:
            line = line + " " + w if line else w
    text += line + "\n"
    return "\n".join(lines) + "\n\n" + text

