"""Replay a physical transcript, or UCI moves, through the firmware's own core (docs/spec.md section 5).

    python3 tools/replay.py [--fen FEN] [--mode strict|casual] [--clock CONTROL] [--setting NAME VALUE]...
                            [--leds] [--board PLACEMENT] EVENTS_FILE
    python3 tools/replay.py --uci [--fen FEN] MOVE...

EVENTS_FILE holds `T_MS lift SQ` / `T_MS place SQ` lines (`#` comments, optional `@fen FEN` and
`@mode strict|casual` headers, `@clock CONTROL` for a time control in core/clock.py's notation,
e.g. `5+3`, and `@setting NAME VALUE` for any board.json setting the referee and its arbiter read:
mode, clock, promotion_piece, illegal_moves, illegal_complete_ms, commit_delay_ms (e.g.
`@setting illegal_moves lose`), and `@new FEN` for a `new FEN` the PC sends as the board starts,
the pieces standing as @fen's position; `-` reads standard input). The command line's --fen, --mode, --clock
and --setting override the file's headers. The transitions are scanned at the
firmware's scan period and go through its debouncer and referee. Output, one item per line: `move`,
`undo`, `promote`, `error`, `new`, `claim`, `end`, with a clock `clock WHITE_MS BLACK_MS` after each
committed move and `penalty SIDE MS`, (`leds` with --leds), and last `fen FEN`; a game that the
position given has already ended (a dead position, say) says so first: `end RESULT REASON`.
Exit status 0, or 2 for unreadable input (a message on stderr and nothing else).

--board PLACEMENT (a FEN's first field) puts pieces on those squares at power-up while the game is
the FEN's, as after a power cut with the game saved one move behind the pieces: the firmware then
reads that move from the board (`read UCI` before its `move UCI`) or, when several captures explain
the squares, says `choose FROM TO...` and waits for the player's gesture (docs/power-up.md).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "hands"))

import transcript  # noqa: E402 - tools/hands/transcript.py

_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][nbrq]?$")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # argparse quotes a bad argument whole: cut it (a pasted line can be megabytes long).
        if len(message) > 200:
            message = message[:200] + "..."
        super().error(message)


def main(argv=None):
    parser = _Parser(description=__doc__.split("\n")[0])
    parser.add_argument("--fen", help="start position (default: the standard start)")
    parser.add_argument("--mode", choices=("strict", "casual"), help="touch-move rules (default: strict)")
    parser.add_argument("--clock", metavar="CONTROL", help="play under a time control, e.g. 5+3 (docs/clock.md)")
    parser.add_argument("--setting", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                        help="a board.json rule setting, e.g. --setting illegal_moves lose (repeatable)")
    parser.add_argument("--leds", action="store_true", help="also print the LED frame after each change")
    parser.add_argument("--board", metavar="PLACEMENT", help="squares with pieces at power-up, as a FEN's placement field (default: the FEN's)")
    parser.add_argument("--uci", action="store_true", help="the arguments are UCI moves for the rules core")
    parser.add_argument("input", nargs="*", help="EVENTS_FILE, or the moves with --uci")
    args = parser.parse_args(argv)
    try:
        if args.uci and args.board is not None:
            raise transcript.TranscriptError("--board is for an EVENTS_FILE: --uci moves have no board")
        if args.uci:
            for m in args.input:
                if not _UCI.match(m):
                    raise transcript.TranscriptError("%s is not a UCI move (like e2e4 or e7e8q)" % transcript.shown(m))
            fen = transcript.STARTING_FEN if args.fen is None else args.fen
            transcript.check_fen(fen)
            lines = transcript.run_uci(fen, args.input)
        else:
            if len(args.input) != 1:
                raise transcript.TranscriptError("give one EVENTS_FILE (or --uci MOVE...)")
            path = args.input[0]
            try:
                if path == "-":
                    text = sys.stdin.read()
                else:
                    with open(path, encoding="utf-8") as f:
                        text = f.read()
            except (OSError, UnicodeDecodeError) as e:
                raise transcript.TranscriptError("cannot read %s: %s" % (transcript.shown(path), transcript.shown(str(e), 200)))
            mode = args.mode
            clock = args.clock
            given = []
            for name, value in args.setting:
                name, value = transcript.setting(name, value)
                given.append((name, value))
                if name == "mode" and mode is None:
                    mode = value
                elif name == "clock" and clock is None:
                    clock = value
            fen, mode, events = transcript.parse(text, args.fen, mode)
            settings = transcript.file_settings(text) + given  # the command line's last: they win
            if clock is None:
                clock = transcript.file_clock(text)
            if clock is not None:
                transcript.check_clock(clock)
            board = None if args.board is None else transcript.placement_occupancy(args.board)
            new = transcript.file_new(text)
            lines = transcript.run(fen, mode, events, leds=args.leds, board=board, clock=clock, settings=settings, new=new)
    except transcript.TranscriptError as e:
        sys.stderr.write("replay.py: %s\n" % e)
        return 2
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
