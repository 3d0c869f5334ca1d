"""The emulated Pico for the test-pico modules: one booted board per test module, or a clear failure.

Without the MicroPython build and boot ROM (../shared/pico/, or PICO_UF2 / PICO_BOOTROM) the tests
skip with the reason - except where CI=true, where that is a failure, as for test-browser."""
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "emu"))

import board as emu_board  # noqa: E402
import chip as emu_chip  # noqa: E402

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def need_inputs():
    problems = emu_chip.missing_inputs()
    if problems:
        reason = "the emulated Pico cannot boot: " + "; ".join(problems) + " (../shared/pico/README.md says where to get them)"
        if CI:
            pytest.fail("CI=true and " + reason)
        pytest.skip(reason)


def booted_board(name, settings=None):
    """A booted board for test module `name`, with its own copy of the firmware image (the two
    test-pico modules run side by side; `make test-pico` assembles build/flash/ once before)."""
    need_inputs()
    ready = os.environ.get("PICO_FIRMWARE_READY") == "1"
    extra = {"board.json": json.dumps(settings).encode()} if settings else None
    fs = emu_chip.firmware_image(extra=extra, out=os.path.join(ROOT, "build", "emu", name + ".bin"), prepare=not ready)
    b = emu_board.EmulatedBoard(fs=fs)
    b.boot()
    return b
