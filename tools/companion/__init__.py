"""The PC companion (docs/spec.md section 8): the board against a UCI engine or on Lichess, every game kept as PGN.

Three small adapters talk to the outside - board.py (the board's USB link, as a CPP central),
engine.py (a UCI engine through python-chess) and lichess.py (berserk, the Board API) - and put
what they hear on one queue; match.py is the game loop, which only sees moves; view.py draws the
terminal. tools/play.py is the command line.
"""
