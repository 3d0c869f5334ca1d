# What one square's LED has to say: the vocabulary between the display policy and the LED drivers.
#
# The display policy (core/display.py) fills a bytearray(64) with one of these codes per square
# (index 0 = a1 ... 63 = h8); each LED driver turns a code into a colour (WS2812B) or a blink
# pattern (MAX7219, monochrome). When two meanings fall on one square the policy keeps the one
# with the higher PRIORITY, so the order below is the order of importance on a square.
from micropython import const

OFF = const(0)
LAST_MOVE = const(1)  # from and to of the last move (optional, dim)
CLAIM = const(2)  # a draw can be claimed (threefold, fifty moves): shown on both kings
QUIET = const(3)  # a legal destination of the piece in the hand, empty square
CAPTURE = const(4)  # a legal destination that captures
LIFTED = const(5)  # where the piece in the hand came from
REMOTE_MOVE = const(6)  # a move sent by the PC: from and to, until the player makes it
PROMOTE_QUEEN = const(7)  # the piece a promotion currently gives, shown on its square
PROMOTE_ROOK = const(8)
PROMOTE_BISHOP = const(9)
PROMOTE_KNIGHT = const(10)
CHECK = const(11)  # the king in check
STALEMATE = const(12)  # both kings, until a new game is set up
DRAW = const(13)  # other draws: dead position, 75 moves, fivefold, agreement, claimed
MATED_KING = const(14)  # checkmate: the losing king ...
MATING_PIECE = const(15)  # ... and the piece that gives mate
RESIGNED = const(16)  # the king of the side that resigned
PLACE_HERE = const(17)  # a piece must be put on this square (board differs from the game)
REMOVE = const(18)  # a piece must be taken off this square (board differs from the game)
TOUCHED = const(19)  # touch-move: this piece must move (or be captured)
ILLEGAL = const(20)  # the squares of an illegal move
FAULT = const(21)  # hardware fault: a switch stuck closed or never changing
LOW_TIME = const(22)  # the clock: the side to move has little time left, shown on its king
UNSENT = const(23)  # the player's move the network has not delivered to Lichess yet: from and to

COUNT = const(24)

# Higher wins when two signals want one square.
PRIORITY = bytes(
    (
        0,  # OFF
        1,  # LAST_MOVE
        2,  # CLAIM
        4,  # QUIET
        5,  # CAPTURE
        6,  # LIFTED
        3,  # REMOTE_MOVE
        7,  # PROMOTE_QUEEN
        7,  # PROMOTE_ROOK
        7,  # PROMOTE_BISHOP
        7,  # PROMOTE_KNIGHT
        8,  # CHECK
        9,  # STALEMATE
        9,  # DRAW
        10,  # MATED_KING
        10,  # MATING_PIECE
        10,  # RESIGNED
        12,  # PLACE_HERE
        12,  # REMOVE
        11,  # TOUCHED
        13,  # ILLEGAL
        14,  # FAULT
        2,  # LOW_TIME: under check, a lifted king's signals and anything the hand does
        3,  # UNSENT: over the last move it is, under anything the hand does
    )
)

# Each code's name, for the simulators, the tools and the tests (the firmware never names a
# signal): one string, split only when asked, so the board holds no table of 24 names.
_NAMES = (
    "off last-move claim quiet capture lifted remote-move promote-queen promote-rook "
    "promote-bishop promote-knight check stalemate draw mated-king mating-piece resigned "
    "place-here remove touched illegal fault low-time unsent"
)


def names():
    """The signals' names in code order: names()[CHECK] == "check"."""
    return _NAMES.split()


def name(code):
    return _NAMES.split()[code]
