"""The PC companion (docs/spec.md section 8): the board against a UCI engine or on Lichess, every game kept as PGN.

Three small adapters talk to the outside - central.py (the board's USB link, as a CPP central),
engine.py (a UCI engine through python-chess) and lichess.py (berserk, the Board API) - and put
what they hear on one queue; match.py is the game loop, which only sees moves; view.py draws the
terminal. tools/play.py is the command line.
"""
import os
import sys

# The firmware's pure modules the companion shares with the board (firmware/online/lichess_game.py):
# appended, not inserted, so a firmware module never shadows a library of the same name.
_FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "firmware")
if _FIRMWARE not in sys.path:
    sys.path.append(_FIRMWARE)
