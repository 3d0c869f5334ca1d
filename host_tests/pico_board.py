"""The emulated Pico for the test-pico modules: one booted board per test module, or a loud skip.

The chip needs MicroPython's RPI_PICO .uf2 and the RP2040 boot ROM, which the project cannot ship
(PICO_UF2 / PICO_BOOTROM name a user's downloads). Without them every chip test skips with one
reason, under CI=true too (no registry CI reaches has them), and conftest.py's summary counts them,
so a run without the chip never reads as a pass on the chip."""
import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "emu"))

import board as emu_board  # noqa: E402
import chip as emu_chip  # noqa: E402

# The start of every chip test's skip reason: conftest.py counts the skips that carry it.
SKIP_PREFIX = "chip test not run: "


def need_inputs():
    problem = emu_chip.inputs_problem()
    if problem:
        pytest.skip(SKIP_PREFIX + problem)


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
