# host_tests/transcripts_clock/ (flags, completed illegal moves) through the whole firmware, by
# test_transcripts.py's replay, in a process of its own.
#
# On the MicroPython unix port the firmware's .py files compile at import (the Pico loads
# precompiled .mpy: no compiler memory); on a heap too small for that (less than the 320 kB of
# make test-micropython) the test is skipped, saying so. tools/replay.py runs the same files in
# host_tests/test_transcripts_replay.py.
import gc
import sys


class SkipTest(Exception):
    """run_portable.py counts an exception of this name as a skip."""


def test_clock_examples_on_the_whole_firmware():
    try:
        import test_transcripts

        # What the firmware loads when first needed, compiled now (one at a time) and not mid-game.
        for name in ("hardware.ws2812_plain", "core.results", "core.casual", "core.messages", "core.clock", "core.arbiter", "core.dead"):
            gc.collect()
            __import__(name)
    except MemoryError:
        if sys.implementation.name != "micropython":
            raise
        raise SkipTest(
            "SKIPPED: compiling the firmware and the clock from source does not fit this heap "
            "(the Pico runs .mpy); CPython and WebAssembly run these transcripts"
        )
    gc.collect()
    print("  %d transcripts with a clock" % test_transcripts.check_folder("host_tests/transcripts_clock"))
