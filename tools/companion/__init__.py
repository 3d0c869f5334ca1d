"""The PC companion (docs/spec.md section 8): the board against a UCI engine or on Lichess, every game kept as PGN.

Three small adapters talk to the outside - central.py (the board's USB link, as a CPP central),
engine.py (a UCI engine through python-chess) and lichess.py (berserk, the Board API) - and put
what they hear on one queue; match.py is the game loop, which only sees moves; view.py draws the
terminal. tools/play.py is the command line.
"""
import os
import sys

# The firmware's pure modules the companion shares with the board (firmware/online/lichess_game.py,
# core/clock.py, core/arbiter.py), and tools/shims for what MicroPython has built in (micropython.const):
# appended, not inserted, so a firmware module never shadows a library of the same name.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _path in (os.path.join(_ROOT, "firmware"), os.path.join(_ROOT, "tools", "shims")):
    if _path not in sys.path:
        sys.path.append(_path)
