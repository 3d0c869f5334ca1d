# Physical transcripts replayed through the whole firmware on every runtime: the virtual reed matrix,
# the real scanner, debouncer, referee, display and LED drivers (App, wired as tools/sim/board_sim.py
# wires it). The hand-written docs/spec.md section 3 examples are in host_tests/transcripts/; random games played
# by simulated hands are recorded into build/transcripts/ on CPython (tools/hands/physical.py needs
# python-chess), with what tools/replay.py printed for them as the expected lines.
import gc
import os
import sys

if "tools/sim" not in sys.path:
    sys.path.append("tools/sim")

# On MicroPython the firmware's .py files compile at import, and the compiler's working memory for
# the two biggest (the rules and the referee, 35 kB of source each) is the peak of this module on
# a 320 kB heap: compiled first, with a collection after each, their garbage does not fragment it.
# So are the simulator's fakes and casual mode (loaded on its first use, else in the middle of a
# game, when a heap full of the game's objects may have no hole the compiler's working memory fits).
import core.position  # noqa: E402,F401
gc.collect()
import core.referee  # noqa: E402,F401
gc.collect()
import hardware.fake  # noqa: E402,F401  (the next biggest, the same way)
gc.collect()
import core.casual  # noqa: E402,F401
gc.collect()
import app  # noqa: E402,F401 - the next biggest, likewise
gc.collect()
from board_sim import BoardSim  # noqa: E402

HAND_WRITTEN = "host_tests/transcripts"
RECORDED = "build/transcripts"
TAIL_MS = 3000  # as tools/hands/transcript.py: scan on after the last transition so commits come out


def _no_state():
    return ""


def _board(fen, mode, clock=None, settings=None, new=None):
    sim = BoardSim(fen=fen, mode=mode, overrides=settings)
    if clock is not None:
        sim.app.referee.set_clock(clock)  # before the first move, as the USB clock command does
    if new is not None:
        from core.game import Game

        sim.app.referee.load_game(Game(new), sim.now)  # the PC's `new FEN`, as link/link.py loads it
        sim.app.redraw()
    sim.log = []  # start-up messages are not part of the transcript's output
    # The browser's state as JSON after every transition is the page's, not what this test reads
    # (the lines are in sim.log): building it, pixels and all, fragmented the 320 kB heap.
    sim.changes = _no_state
    return sim


def replay(path):
    """(the lines the whole firmware printed for a transcript file, the file's expected lines).
    The file is streamed: a recorded game has too many transitions to hold as a list in 320 kB."""
    from core.position import parse_square

    fen = None
    mode = "strict"
    clock = None  # @clock: host_tests/transcripts_clock/ (test_clock_transcripts.py)
    settings = {}  # @setting NAME VALUE: board.json's rule settings (tools/hands/transcript.py)
    new = None  # @new FEN: the PC's `new FEN` as the board starts
    expect = []
    sim = None
    last = 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# expect "):
                expect.append(line[len("# expect ") :])
                continue
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("@fen "):
                fen = line[5:].strip()
            elif line.startswith("@mode "):
                mode = line[6:].strip()
            elif line.startswith("@clock "):
                clock = line[7:].strip()
            elif line.startswith("@new "):
                new = line[5:].strip()
            elif line.startswith("@setting "):
                name, value = line[9:].split(None, 1)
                if name == "mode":
                    mode = value
                elif name == "clock":
                    clock = value
                else:
                    settings[name] = int(value) if name.endswith("_ms") else value
            else:
                if sim is None:  # the headers come first; the board starts at the first transition
                    sim = _board(fen, mode, clock, settings, new)
                t, action, sq = line.split()
                last = int(t)
                sim.advance(last, ((last, 1 if action == "place" else 0, parse_square(sq)),))
    if sim is None:
        sim = _board(fen, mode, clock, settings, new)
    sim.advance(last + TAIL_MS)
    # The console's messages and the plain words after events (`msg ...`) are for people, not output.
    lines = [line for line in sim.log if not line.startswith("console: ") and not line.startswith("msg ")]
    return lines + ["fen " + sim.app.referee.game.fen()], expect


def check_folder(folder):
    names = sorted(n for n in os.listdir(folder) if n.endswith(".txt"))
    assert names, "no transcripts in " + folder
    for name in names:
        gc.collect()
        got, expect = replay(folder + "/" + name)
        assert got == expect, "%s: got %s, expected %s" % (name, got, expect)
    return len(names)


def test_spec_examples_on_the_whole_firmware():
    print("  %d hand-written transcripts" % check_folder(HAND_WRITTEN))


def test_recorded_random_games_on_the_whole_firmware():
    print("  %d recorded games" % check_folder(RECORDED))
