# Power-up: which move, if any, the pieces made that the saved game does not have (docs/power-up.md).
#
# The game is saved in the scan after each move, once no piece is in the air (app.py), so a power
# cut before or during that save leaves the pieces one ply ahead of the saved game; so does a move
# made while the board was switched off. The pieces are what the players see: the
# referee (Referee.resume_game) asks this module which legal moves of the saved position leave
# exactly the squares the switches read occupied, and reads the move from the board when they
# explain it, instead of asking for it to be undone.
#
# Loaded at power-up only, and only when the board differs from the saved game: a board that
# matches it (the common case) never loads this code.
from core.position import move_from, move_promotion


def moves_to(game, occupancy, promotion):
    """The legal moves of `game`'s position after which the occupied squares are exactly those of
    `occupancy` (bytearray(64) of 0/1, index 0 = a1), in the game's order.

    The switches tell occupied from empty, never which piece: a promotion's four moves leave the
    same squares, so only the one to `promotion` (a piece type, the board's default) counts, and the
    player taps the piece afterwards as after any promotion (docs/spec.md section 3). Several moves come back only
    for captures by one piece: its square is empty and every victim's square is still occupied."""
    pos = game.position
    after = bytearray(64)
    found = []
    for m in game.legal:
        if occupancy[move_from(m)]:
            continue  # every move empties the square it starts from: most moves end here, unmade
        p = move_promotion(m)
        if p and p != promotion:
            continue
        pos.make(m)
        pos.occupancy_into(after)
        pos.unmake()
        if after == occupancy:
            found.append(m)
    return found
