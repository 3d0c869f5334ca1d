"""The PC companion: play an engine or Lichess on the board (docs/spec.md section 8), or push every board's
game to a Lichess broadcast (docs/broadcast.md). `make play` runs it.

    python3 tools/play.py engine [--elo N | --time S | --depth N] [--side white|black|random]
                                 [--clock CONTROL] [--engine CMD] [--strict] [--port DEV] [--pgn FILE]
    python3 tools/play.py lichess [--seek 15+10 [--rated] | --accept [USER] | --game ID]
                                  [--token-file FILE] [--port DEV] [--pgn FILE]
    python3 tools/play.py broadcast --round ID [--port DEV ...] [--token-file FILE] [--names FILE]
                                    [--event TEXT] [--round-tag R]

The board is found on USB (a Raspberry Pi Pico) or named with --port (a simulated board:
`python3 tools/sim_terminal.py --serial /tmp/board` and --port /tmp/board). Type `help` while
playing for the commands (hint, takeback, resign, draw, promote, quit ...).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from companion.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
