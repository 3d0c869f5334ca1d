"""Every game appended to a PGN file, with the seven standard tags (PGN standard 8.1.1: Event,
Site, Date, Round, White, Black, Result) and the ones that say more (time control, Lichess's
game address, the engine's settings)."""
import datetime
import os

import chess
import chess.pgn


def game_pgn(board, tags, result, clocks=None):
    """clocks: the mover's ms left after each of the last len(clocks) moves (None: not known),
    written after each as `{[%clk h:mm:ss]}` the way the board's own PGN writes them
    (firmware/core/clock.py)."""
    game = chess.pgn.Game.from_board(board)
    if clocks:
        from core.clock import clock_text

        nodes = list(game.mainline())[-len(clocks):]
        for node, ms in zip(nodes, clocks[-len(nodes):] if nodes else []):
            if ms is not None:
                node.comment = "[%clk " + clock_text(ms) + "]"
    today = datetime.date.today().strftime("%Y.%m.%d")
    seven = {"Event": "Casual game", "Site": "?", "Date": today, "Round": "-", "White": "?",
             "Black": "?", "Result": result}
    for key in seven:
        game.headers[key] = str(tags.get(key, seven[key]))
    for key in tags:
        if key not in seven:
            game.headers[key] = str(tags[key])
    game.headers["Result"] = result
    return str(game)


def append(path, board, tags, result, clocks=None):
    """Append the game to `path` (created with its folder when missing); returns the text."""
    text = game_pgn(board, tags, result, clocks)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        if f.tell() > 0:
            f.write("\n")
        f.write(text + "\n")
    return text


def result_of(board):
    outcome = board.outcome(claim_draw=False)
    return outcome.result() if outcome else "*"
