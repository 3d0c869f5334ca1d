# Seeded fuzzing of the USB link on every runtime (issue 11): lines a PC or a person at a terminal
# could send, and raw bytes, to a whole board on fakes scanned in between, with pieces moving.
# No line may ever get an internal error. `.venv/bin/python tools/hands/fuzz.py --count N` runs a larger set.
#
# The whole board with its link, compiled from .py, needs more than a 320 kB heap to compile (the
# Pico loads .mpy files and needs no compiler memory): on the MicroPython unix port at 320 kB this
# skips, and host_tests/test_fuzz_runtimes.py runs it on that port with a 768 kB heap.
import gc
import sys

import fuzz_link

SMALL = sys.implementation.name == "micropython"


class SkipTest(Exception):
    """run_portable.py counts an exception of this name as a skip."""


def test_link_lines_and_bytes_never_get_an_internal_error():
    if SMALL and hasattr(gc, "mem_free") and gc.mem_free() + gc.mem_alloc() < 400 * 1024 and sys.platform != "webassembly":
        raise SkipTest("the link compiled from .py needs a heap over 320 kB (test_fuzz_runtimes.py runs it at 768 kB)")
    stats = fuzz_link.fuzz_link(150 if SMALL else 800, seed=11)
    assert stats["err lines"] > 20, stats
    print("  link: " + ", ".join("%s %d" % (k, stats[k]) for k in sorted(stats)))
