"""The command line of the companion (tools/play.py)."""
import argparse
import os
import queue
import random
import sys

import chess

from .central import Port
from .match import BOARD_WAIT_S
from .view import View

DEFAULT_PGN = os.path.join(os.path.expanduser("~"), "chessboard-games.pgn")


def _common(p):
    p.add_argument("--port", help="the board's serial port (default: the Pico found on USB)")
    p.add_argument("--pgn", default=DEFAULT_PGN, help="append every game to this file (default %(default)s)")
    p.add_argument("--trace", action="store_true", help="print every line to and from the board")
    p.add_argument("--no-keys", action="store_true", help="do not read commands from standard input")
    p.add_argument("--board-wait", type=float, default=BOARD_WAIT_S, metavar="S",
                   help="end when no board has come within S seconds (default %(default)g); "
                        "a board unplugged later is waited for")


def parser():
    ap = argparse.ArgumentParser(prog="play.py", description="Play an engine or Lichess on the board.")
    sub = ap.add_subparsers(dest="what", required=True)
    e = sub.add_parser("engine", help="play a UCI engine (Stockfish by default)")
    e.add_argument("--engine", help="the engine's command line (default: stockfish, /usr/games/stockfish)")
    e.add_argument("--elo", type=int, help="the engine's strength (UCI_Elo), held to the range the engine announces "
                   "(Debian 12's Stockfish 15.1: 1350-2850; Stockfish 16 and later: 1320-3190)")
    e.add_argument("--time", type=float, help="the engine's time per move in seconds (default 1; with --clock: "
                   "the engine's own time management on its clock)")
    e.add_argument("--depth", type=int, help="search this many plies instead of a time")
    e.add_argument("--clock", metavar="CONTROL",
                   help="a chess clock, in the board's notation: 5+3, 15+10, 90/40+30,30+30, 5d3, 5b3 (docs/clock.md)")
    e.add_argument("--side", choices=("white", "black", "random"), default="white", help="your side")
    e.add_argument("--fen", help="start from this position")
    e.add_argument("--strict", action="store_true", help="touch-move, no takebacks (default: casual)")
    e.add_argument("--takeback-pause", type=float, default=3.0,
                   help="seconds the engine waits after a takeback before playing (default 3)")
    _common(e)
    li = sub.add_parser("lichess", help="play on Lichess (Board API)")
    how = li.add_mutually_exclusive_group()
    how.add_argument("--seek", metavar="MIN+INC", help="seek a game, e.g. 15+10 (rapid or slower: the Board API)")
    how.add_argument("--accept", nargs="?", const="", metavar="USER",
                     help="wait for a challenge (from USER) and accept it")
    how.add_argument("--game", metavar="ID", help="play (resume) this game")
    li.add_argument("--rated", action="store_true", help="a rated seek")
    li.add_argument("--color", choices=("white", "black", "random"), default="random", help="for a seek")
    li.add_argument("--token-file", help="a file holding the API token (board:play); else $LICHESS_TOKEN")
    li.add_argument("--server", default="https://lichess.org", help=argparse.SUPPRESS)
    li.add_argument("--stream-timeout", type=float, default=20.0,
                    help="seconds of silence after which a stream counts as stalled (Lichess sends a keep-alive every 7)")
    # Tests only: how long an HTTP 429 makes every request wait (Lichess asks for a full minute).
    li.add_argument("--rate-limit-wait", type=float, default=60.0, help=argparse.SUPPRESS)
    _common(li)
    bc = sub.add_parser("broadcast", help="push every board's game to a Lichess broadcast round (docs/broadcast.md)")
    bc.add_argument("--round", required=True, metavar="ID", help="the round's id: the 8 characters at the end of its URL")
    bc.add_argument("--port", action="append", metavar="DEV",
                    help="a board's serial port, once per board, in board order (default: every Pico on USB)")
    bc.add_argument("--token-file", help="a file holding the API token (study:write); else $LICHESS_BROADCAST_TOKEN")
    bc.add_argument("--names", metavar="FILE", help="the players: one line a board, `N: White name - Black name`")
    bc.add_argument("--event", default="Club game", help="the Event tag (default %(default)s)")
    bc.add_argument("--round-tag", default="1", metavar="R", help="the Round tag (default %(default)s)")
    bc.add_argument("--trace", action="store_true", help="print every line to and from the boards")
    bc.add_argument("--no-keys", action="store_true", help="do not read commands from standard input")
    bc.add_argument("--server", default="https://lichess.org", help=argparse.SUPPRESS)
    # Tests only: how long an HTTP 429 makes the next push wait (Lichess asks for a full minute).
    bc.add_argument("--rate-limit-wait", type=float, default=60.0, help=argparse.SUPPRESS)
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    if args.what == "broadcast":  # no game to play: the boards' own games, read and pushed
        from .broadcast import main as broadcast

        return broadcast(args, None if args.no_keys else sys.stdin)
    view = View()
    events = queue.Queue()  # what the board, the engine or Lichess and the keyboard say, in order
    port = Port(events, args.port)
    if args.trace:
        port.trace = lambda text: sys.stdout.write(text + "\n")
    stdin = None if args.no_keys else sys.stdin
    if args.what == "engine":
        from .engine import Engine
        from .engine_game import EngineMatch

        from core import clock

        try:
            control = clock.parse_control(args.clock) if args.clock else ()
        except ValueError as e:
            sys.stderr.write("play.py engine: --clock %s: %s\n" % (args.clock, e))
            return 2
        side = args.side if args.side != "random" else random.choice(("white", "black"))
        movetime = args.time if args.time is not None else (None if control else 1.0)
        engine = Engine(events, args.engine, elo=args.elo, movetime=movetime, depth=args.depth)
        m = EngineMatch(port, engine, casual=not args.strict, takeback_pause=args.takeback_pause, control=control,
                        you=chess.WHITE if side == "white" else chess.BLACK, fen=args.fen,
                        pgn_path=args.pgn, view=view, events=events, stdin=stdin, board_wait=args.board_wait)
    else:
        from . import lichess
        from .lichess_game import LichessMatch

        try:
            token = lichess.read_token(args.token_file)
            if args.seek:
                lichess.parse_seek(args.seek)
        except ValueError as e:
            sys.stderr.write("play.py lichess: %s\n" % e)
            return 2
        client = lichess.Lichess(events, token, args.server, stream_timeout=args.stream_timeout,
                                 rate_limit_s=args.rate_limit_wait)
        m = LichessMatch(port, client, args, pgn_path=args.pgn, view=view, events=events, stdin=stdin,
                         board_wait=args.board_wait)
    return m.run()
