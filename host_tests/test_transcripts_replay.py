"""The hand-written docs/spec.md section 3 transcripts through tools/replay.py (the same files run on MicroPython
through the whole firmware in host_tests/portable/test_transcripts.py)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = (os.path.join(ROOT, "host_tests", "transcripts"), os.path.join(ROOT, "host_tests", "transcripts_clock"))
NAMES = sorted(os.path.join(os.path.basename(f), n) for f in FOLDERS for n in os.listdir(f) if n.endswith(".txt"))


@pytest.mark.parametrize("name", NAMES)
def test_replay_prints_the_expected_lines(name):
    path = os.path.join(ROOT, "host_tests", name)
    with open(path) as f:
        expect = [line[len("# expect ") :].rstrip("\n") for line in f if line.startswith("# expect ")]
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "replay.py"), path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == expect
