# What both halves of the CPP dialect share (link/cpp.py: the session and the board's side;
# link/cpp_commands.py: the central's commands): the features, variants and draw reasons the board
# knows, the promotion letters, and pushing the central's moves. A leaf, so that neither half
# imports the other to reach them.

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

PROMOTION_LETTERS = "nbrq"  # index + KNIGHT = piece type


def pushed(game, uci):
    """Play a UCI move on the game: True, or False (and the game as it was) for one it refuses."""
    try:
        game.push_uci(uci)
        return True
    except ValueError:
        return False
