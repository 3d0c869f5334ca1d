# Seeded fuzzing of the board's edges on every runtime (issue 11): FENs and saved records, from
# host_tests/portable/fuzz_core.py (the USB link is fuzzed in test_fuzz_link.py). The inputs are
# the same on CPython, MicroPython and WebAssembly. Bounded for `make test`: `.venv/bin/python tools/hands/fuzz.py
# --count N` runs as many as asked.
import sys

import fuzz_core

# Fewer on the small runtimes: the WebAssembly build runs the firmware some 30 times slower.
SMALL = sys.implementation.name == "micropython"


def _report(name, stats):
    print("  %s: %s" % (name, ", ".join("%s %d" % (k, stats[k]) for k in sorted(stats))))


def test_fens_get_a_fen_error_or_a_consistent_position():
    stats = fuzz_core.fuzz_fens(300 if SMALL else 1500, seed=11)
    assert stats["accepted"] > 20 and stats["refused"] > 100, stats  # the mutations reach both sides
    _report("FENs", stats)


def test_saved_records_resume_or_are_refused_and_a_bad_tmp_never_wins():
    stats = fuzz_core.fuzz_records(100 if SMALL else 300, seed=11)
    assert stats["resumed"] > 5 and stats["refused"] > 5, stats
    _report("records", stats)
