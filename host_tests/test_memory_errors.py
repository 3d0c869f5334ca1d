# A MemoryError anywhere in a feature never stops the board (docs/spec.md section 11): for each
# feature beside the game (the engine, the Bluetooth link, each USB dialect, the clock display, Lichess
# over Wi-Fi on tools/memory/fake_net.py's network), the
# game of tools/memory/exhaust.py is played through the real wiring and the scan loop's edge on the
# fake Pico, and MemoryError is raised at one line of the feature's own code after another: each
# line it runs is a place an allocation can fail on the chip. Every run must keep scanning to the end,
# read every move the hands made, and leave the feature either working or stopped with the console's
# sentence. The unix port's run with a shrinking heap is host_tests/test_heap_shrinking.py.
import linecache
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "memory"))

from exhaust import FEATURES, STOPPED, play, read, working  # noqa: E402 - tools/memory/exhaust.py

FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "firmware") + os.sep


class Injector:
    """sys.settrace: counts the lines the feature's modules run, and raises MemoryError at one."""

    def __init__(self, prefixes, at=None):
        self.prefixes = tuple(FIRMWARE + p for p in prefixes)
        self.at = at
        self.count = 0
        self.raised = False

    def __enter__(self):
        sys.settrace(self.trace)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)

    def trace(self, frame, event, arg):
        if not frame.f_code.co_filename.startswith(self.prefixes):
            return None
        return self.line

    def line(self, frame, event, arg):
        if event == "line":
            self.count += 1
            # A line that allocates nothing on the chip (`try:`, `else:`, `pass`) cannot raise
            # MemoryError there: the error comes at the next line that can.
            if self.at is not None and self.count >= self.at and not self.raised and allocates(frame):
                self.raised = True
                raise MemoryError("memory allocation failed (injected)")
        return self.line


QUIET_LINES = ("try:", "else:", "finally:", "pass")


def allocates(frame):
    return linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip() not in QUIET_LINES


POINTS = 20


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_a_memory_error_at_any_line_of_a_feature_stops_only_that_feature(feature):
    prefixes = FEATURES[feature][0]
    with Injector(prefixes) as counting:
        clean, made = play(feature)
    assert read(clean) == made
    lines = counting.count
    assert lines > 50, "the feature ran too little to test: %d lines" % lines
    # Lines spread over the first nine tenths of the run: its last ones may not come at all in a run
    # whose timing differs a little (the engine's slices are timed by the PC's clock).
    for k in sorted({1 + (lines * 9 // 10) * i // (POINTS - 1) for i in range(POINTS)}):
        with Injector(prefixes, at=k) as injected:
            game, made = play(feature)
        assert injected.raised, k
        assert read(game) == made, "line %d of %d: a move lost" % (k, lines)
        # (Had anything escaped the loop's edge, play() would have raised: every scan ran.)
        game.board.link.feed("status\n")  # a PC that speaks the board's words: held messages go out
        said = " ".join(game.said) + " ".join(str(x) for x in game.out)
        stopped = any(s in said for s in STOPPED) or "internal error" in said
        # Either the feature stopped and the console said so, or it took the error in its stride
        # and is still there (the engine's arrays made smaller, a message left unsent).
        assert stopped or working(feature, game), "line %d of %d: the feature is gone unsaid: %s" % (k, lines, said[-500:])
