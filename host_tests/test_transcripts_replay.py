"""The hand-written docs/spec.md section 3 transcripts through tools/replay.py (the same files run on MicroPython
through the whole firmware in host_tests/portable/test_transcripts.py)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "host_tests", "transcripts")


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(FOLDER) if n.endswith(".txt")))
def test_replay_prints_the_expected_lines(name):
    path = os.path.join(FOLDER, name)
    with open(path) as f:
        expect = [line[len("# expect ") :].rstrip("\n") for line in f if line.startswith("# expect ")]
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "replay.py"), path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == expect
