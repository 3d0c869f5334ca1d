"""Fuzz the board's edges with seeded, reproducible inputs (issue 11), as many as asked.

    .venv/bin/python tools/hands/fuzz.py [--count N] [--seed S] [--only fens,oracle,records,link,transcripts,cli]

Runs the portable fuzzers (host_tests/portable/fuzz_core.py, fuzz_link.py: FENs, saved records, USB
lines and bytes) and the host-side ones here: FENs against python-chess (whatever the core accepts,
python-chess reads as the same position with the same legal moves), transcripts (mutated and random
hands through tools/hands/transcript.py, as tools/replay.py plays them) and the command lines of
replay.py and perft.py. Prints one line of counts per fuzzer; exits 1 at the first broken promise,
naming the seed and the input. `make test` runs a few hundred of each (host_tests/test_hostile_input.py,
host_tests/portable/test_fuzz*.py); this is for the larger runs.
"""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _p in (os.path.join(ROOT, "host_tests", "portable"), os.path.join(ROOT, "tools", "hands"), os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tools", "shims")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from fuzz_base import FENS, Rng, fen_input, mutate  # noqa: E402

TRANSCRIPTS = os.path.join(ROOT, "host_tests", "transcripts")
_TRANSCRIPT_CHARS = "0123456789 liftplace abcdefgh12345678\n#@-"


def fuzz_fens_against_python_chess(n, seed=1):
    """Mutated FENs: whatever the core accepts, python-chess reads as the same position (once both
    drop castling rights and en-passant squares nothing backs) with the same legal moves, and it is
    valid but for checks no last move could give; every FEN python-chess finds valid, with its six
    fields (or four) and counters a game can have, the core accepts."""
    import chess

    from core.position import FenError, Position, move_uci

    rng = Rng(seed)
    stats = {"inputs": 0, "accepted": 0, "refused": 0, "refused, python-chess too": 0}
    for _ in range(n):
        fen = fen_input(rng)
        stats["inputs"] += 1
        try:
            p = Position(fen)
        except FenError:
            stats["refused"] += 1
            try:
                board = chess.Board(fen)
            except ValueError:
                stats["refused, python-chess too"] += 1
                continue
            # Refused on purpose where python-chess is lenient: 1-3 fields (it fills in the rest), a
            # castling letter twice or a rook's file letter (Shredder-FEN, for Chess960), counters a
            # game cannot have or that int() reads but a FEN does not have ('1_0', '+1'), a move
            # number 0 (python-chess makes it 1).
            fields = fen.split() + ["0", "1"][max(0, len(fen.split()) - 4) :]
            plain = (
                len(fields) == 6
                and len(set(fields[2])) == len(fields[2])
                and all(c in "KQkq-" for c in fields[2])
                and fields[4].isdigit()
                and fields[5].isdigit()
                and int(fields[4]) <= 150
                and 1 <= int(fields[5]) <= 9999
            )
            assert not (board.is_valid() and plain), "the core refused a valid FEN: %r" % fen
            continue
        stats["accepted"] += 1
        try:
            board = chess.Board(fen)
        except ValueError:
            # python-chess wants the castling letters in the order KQkq; the core takes any order.
            assert sorted(fen.split()[2]) != list(fen.split()[2]), fen
            board = chess.Board(p.fen())
        clean = chess.Board(p.fen())
        allowed = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK
        assert clean.status() & ~allowed == 0, (fen, clean.status())
        assert clean.piece_map() == board.piece_map() and clean.turn == board.turn, fen
        assert (clean.halfmove_clock, clean.fullmove_number) == (board.halfmove_clock, board.fullmove_number), fen
        # (python-chess generates moves for invalid positions too, e.g. an en-passant capture of a
        # pawn that is not there: the moves are compared in the position both agree on.)
        assert sorted(move_uci(m) for m in p.legal_moves()) == sorted(m.uci() for m in clean.legal_moves), fen
    return stats


def _hand_written():
    texts = []
    for name in sorted(os.listdir(TRANSCRIPTS)):
        if name.endswith(".txt"):
            with open(os.path.join(TRANSCRIPTS, name)) as f:
                texts.append("".join(line for line in f if not line.startswith("# expect")))
    return texts


def transcript_input(rng, texts):
    """A transcript: a hand-written one mutated, or random hands (lifts and places anywhere, with
    times that bounce, slide and pause), sometimes from a mutated FEN."""
    import chess

    if rng.chance(40):
        return mutate(rng, rng.pick(texts), _TRANSCRIPT_CHARS, rounds=4)
    lines = []
    if rng.chance(30):
        lines.append("@fen " + (fen_input(rng) if rng.chance(30) else rng.pick(FENS)))
    if rng.chance(50):
        lines.append("@mode " + rng.pick(("strict", "casual")))
    t = 0
    for _ in range(rng.below(60)):
        t += rng.pick((0, 1, 3, 20, 120, 160, 250, 700, 3100))
        sq = chess.square_name(rng.below(64) if rng.chance(30) else rng.pick((12, 28, 52, 36, 6, 21, 62, 45, 4, 60, 7, 5, 0, 3)))
        lines.append("%d %s %s" % (t, rng.pick(("lift", "place")), sq))
    return "\n".join(lines) + "\n"


def fuzz_transcripts(n, seed=1):
    """Transcripts through the debouncer, referee and display: a TranscriptError with a short
    message, or output lines of the replay.py vocabulary ending in a FEN of a position the game
    really reached; never another exception."""
    import transcript
    from core.game import Game

    rng = Rng(seed)
    texts = _hand_written()
    stats = {"inputs": 0, "played": 0, "refused": 0, "moves": 0, "errors": 0}
    kinds = ("move", "undo", "promote", "error", "new", "claim", "end", "fen")
    for _ in range(n):
        text = transcript_input(rng, texts)
        stats["inputs"] += 1
        try:
            fen, mode, events = transcript.parse(text, None, rng.pick((None, None, "strict", "casual")))
        except transcript.TranscriptError as e:
            stats["refused"] += 1
            assert len(str(e)) < 400, str(e)[:200]
            continue
        lines = transcript.run(fen, mode, events, leds=rng.chance(5))
        stats["played"] += 1
        assert lines[-1].startswith("fen "), (text, lines[-1:])
        game = Game(fen)
        for line in lines:
            kind = line.split(" ", 1)[0]
            assert kind in kinds or kind == "leds", (text, line)
            if kind == "move":
                stats["moves"] += 1
            elif kind == "error":
                stats["errors"] += 1
        Game(lines[-1][4:])  # the final position reads back
        del game
    return stats


def fuzz_command_lines(n, seed=1):
    """replay.py and perft.py with hostile arguments and input: exit 0 or 2, never a traceback; on
    2 a short message on stderr and nothing on stdout."""
    rng = Rng(seed)
    texts = _hand_written()
    python = sys.executable
    stats = {"inputs": 0, "exit 0": 0, "exit 2": 0}
    for i in range(n):
        stdin = None
        if rng.chance(50):
            args = [python, os.path.join(ROOT, "tools", "replay.py")]
            k = rng.below(4)
            if k == 0:
                args += ["--uci"] + [mutate(rng, rng.pick(("e2e4", "e7e8q", "g1f3")), "abcdefgh12345678qx") for _ in range(rng.below(4))]
                if rng.chance(40):
                    args[2:2] = ["--fen", fen_input(rng)]
            else:
                args += ["--fen", fen_input(rng)] if k == 1 else []
                args += ["--mode", rng.pick(("strict", "casual", "blitz", ""))] if rng.chance(30) else []
                args.append("-")
                stdin = transcript_input(rng, texts)
        else:
            args = [python, os.path.join(ROOT, "tools", "perft.py")]
            if rng.chance(30):
                args += ["--runtime", "micropython"]
            if rng.chance(20):
                args.append("--divide")
            depth = rng.pick(("0", "1", "2", "65", "-1", "x", "100000", "", "9" * rng.below(400)))
            args += [fen_input(rng), depth]
        stats["inputs"] += 1
        r = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=60, cwd=ROOT)
        where = "%s (input %d of seed %d)" % (" ".join(a[:80] for a in args[1:]), i, seed)
        assert r.returncode in (0, 2), "exit %d: %s\n%s" % (r.returncode, where, r.stderr[-800:])
        assert "Traceback" not in r.stderr and "FATAL" not in r.stderr, where + "\n" + r.stderr[-800:]
        if r.returncode == 2:
            stats["exit 2"] += 1
            assert r.stdout == "" and 10 < len(r.stderr) < 800, where + "\n" + r.stderr[:900]
        else:
            stats["exit 0"] += 1
    return stats


def _portable(name):
    def run(n, seed):
        if name == "link":
            import fuzz_link

            return fuzz_link.fuzz_link(n, seed)
        import fuzz_core

        return fuzz_core.fuzz_fens(n, seed) if name == "fens" else fuzz_core.fuzz_records(n, seed)

    return run


FUZZERS = (
    ("fens", _portable("fens"), 1),
    ("oracle", fuzz_fens_against_python_chess, 1),
    ("records", _portable("records"), 1),
    ("link", _portable("link"), 1),
    ("transcripts", fuzz_transcripts, 10),  # (each one scans seconds of a game: fewer)
    ("cli", fuzz_command_lines, 50),  # (each one starts a Python: far fewer)
)


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(description="seeded fuzzing of FENs, saved records, the USB link, transcripts and the tools' command lines")
    parser.add_argument("--count", type=int, default=2000, help="inputs per fuzzer (transcripts get a tenth, command lines a fiftieth)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated fuzzer names")
    args = parser.parse_args(argv)
    only = [x for x in args.only.split(",") if x]
    failed = False
    for name, fuzzer, share in FUZZERS:
        if only and name not in only:
            continue
        n = max(1, args.count // share)
        t0 = time.perf_counter()
        try:
            stats = fuzzer(n, args.seed)
        except AssertionError as e:
            print("%-12s FAILED (seed %d): %s" % (name, args.seed, str(e)[:2000]))
            failed = True
            continue
        print("%-12s %s  (%.1f s)" % (name, ", ".join("%s %d" % kv for kv in sorted(stats.items())), time.perf_counter() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
