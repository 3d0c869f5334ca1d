"""Record random games played by simulated hands (tools/hands/physical.py, which needs python-chess) into
build/transcripts/, each with the lines tools/replay.py prints for it as `# expect` lines, so that
host_tests/portable/test_transcripts.py can check MicroPython reads them the same way."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "hands"))

import physical  # noqa: E402
import transcript  # noqa: E402

# Short games keep the MicroPython and WebAssembly runs quick (they scan every 5 ms of the game).
GAMES = ((71, "strict"), (72, "casual"), (73, "strict"), (74, "casual"))
PLIES = 30


def record(folder):
    os.makedirs(folder, exist_ok=True)
    for seed, mode in GAMES:
        text, expected, fen = physical.transcript(seed, mode, max_plies=PLIES)
        f, m, events = transcript.parse(text)
        out = transcript.run(f, m, events)
        got = [line for line in out if line.split()[0] in ("move", "undo", "promote")]
        want = [line for line in expected if line.split()[0] in ("move", "undo", "promote")]
        assert got == want, "seed %d: the board misread this game on CPython" % seed
        path = os.path.join(folder, "game-%d-%s.txt" % (seed, mode))
        with open(path + ".tmp", "w") as out_file:
            out_file.write("# random game %d (%s), played by tools/hands/physical.py's simulated hands\n" % (seed, mode))
            out_file.write(text)
            out_file.write("".join("# expect %s\n" % line for line in out))
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "transcripts"))
