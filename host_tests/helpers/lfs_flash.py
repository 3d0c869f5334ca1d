"""The Pico's flash as littlefs-python sees it: a block device that counts its erases and programs
and can lose its power at any one of them, and the saved game's filesystem on it (store.GameStore's
fs, as hardware/fake.py's RamFiles is for a flash in RAM).

The geometry and the settings are those MicroPython's rp2 port mounts: 352 blocks of 4096 bytes
from flash offset 0xa0000, 256-byte programs (ports/rp2/modules/_boot.py; tools/emu/image.py), read
size 32, lookahead 32, and what extmod/vfs_lfsx.c adds: a cache of 4 x max(read, prog) = 1024
bytes and block_cycles 100. The firmware's files stand in the root directory as `make flash` puts
them there (its .py files as .mpy names, each as long as its source), so that the metadata a save
commits beside them is as large as on a board.
"""
import os

import littlefs

BLOCK_SIZE = 4096
BLOCK_COUNT = 352
PROG_SIZE = 256
FIRMWARE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "firmware")
_LFS_ERR_IO = -5


class Flash(littlefs.UserContext):
    """The flash chip: counts erases and programs (`erases`, `programs`, `log` of (op, block)), and
    calls `watch(op)` before each. cut_at = N: the power goes at the Nth write from now (1: the
    next): that operation does `done` of its work (0: none, 0.5: the first half of the bytes) and
    neither it nor any after it does more; `dead` says it happened."""

    def __init__(self, image=None):
        super().__init__(buffer=bytearray(image) if image is not None else bytearray(b"\xff" * BLOCK_SIZE * BLOCK_COUNT))
        self.erases = 0
        self.programs = 0
        self.log = []
        self.watch = None
        self.cut_at = None
        self.done = 0
        self.dead = False
        self.ops = 0

    def _write(self, op, block):
        """"go", "cut" (the power goes during this one) or "dead" (it went before)."""
        if self.dead:
            return "dead"
        self.ops += 1
        if self.watch is not None:
            self.watch(op)
        if self.cut_at is not None and self.ops >= self.cut_at:
            self.dead = True
            return "cut"
        self.log.append((op, block))
        return "go"

    def prog(self, cfg, block, off, data):
        state = self._write("program", block)
        if state != "go":
            if state == "cut" and self.done:
                super().prog(cfg, block, off, data[: int(len(data) * self.done)])
            return _LFS_ERR_IO
        self.programs += 1
        return super().prog(cfg, block, off, data)

    def erase(self, cfg, block):
        state = self._write("erase", block)
        if state != "go":
            if state == "cut" and self.done:
                start = block * BLOCK_SIZE
                self.buffer[start : start + int(BLOCK_SIZE * self.done)] = b"\xff" * int(BLOCK_SIZE * self.done)
            return _LFS_ERR_IO
        self.erases += 1
        return super().erase(cfg, block)

    def counts(self):
        return self.erases, self.programs

    def image(self):
        """The flash as the power left it: what the next power-up mounts."""
        return bytes(self.buffer)


def mount(flash):
    """littlefs on `flash`, as the rp2 port mounts it (formatted first if blank)."""
    return littlefs.LittleFS(
        context=flash,
        block_size=BLOCK_SIZE,
        block_count=BLOCK_COUNT,
        prog_size=PROG_SIZE,
        read_size=32,
        lookahead_size=32,
        cache_size=4 * max(32, PROG_SIZE),
        block_cycles=100,
    )


def with_firmware(flash):
    """Put the firmware's files in the root as `make flash` would (names and sizes), then zero the
    counters: what a board's flash holds before its first game."""
    fs = mount(flash)
    for folder, dirs, names in os.walk(FIRMWARE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, FIRMWARE).replace(os.sep, "/")
        if rel != ".":
            fs.makedirs(rel, exist_ok=True)
        for name in sorted(names):
            if name.endswith(".py") and name != "fake.py":
                path = (name if name == "main.py" else name[:-3] + ".mpy") if rel == "." else rel + "/" + name[:-3] + ".mpy"
                with fs.open(path, "wb") as f:
                    f.write(b"\x4d" * os.path.getsize(os.path.join(folder, name)))
    with fs.open("board.json", "wb") as f:
        f.write(b"{}\n")
    flash.erases = flash.programs = flash.ops = 0
    flash.log = []
    return fs


def _oserror(e):
    code = -e.code if isinstance(e, littlefs.LittleFSError) else 5
    return OSError(code, str(e))


class LfsFiles:
    """The saved game's filesystem on littlefs (store.GameStore's fs): open, rename, remove and
    mkdir as MicroPython's VfsLfs2 behaves, errors as OSError with littlefs's errno (ENOENT 2,
    EEXIST 17, EIO 5 for a flash that failed)."""

    def __init__(self, fs):
        self.lfs = fs
        self.written = {}  # path -> bytes written to it (what the store asked, not the flash's pages)

    def open(self, path, mode):
        try:
            if "a" in mode and not self._exists(path):
                mode = "wb"  # MicroPython's "a" creates the file; littlefs-python's does not
            return _File(self.lfs.open(path, mode, buffering=0), self.written, path)
        except FileNotFoundError:
            raise OSError(2, "ENOENT")
        except littlefs.LittleFSError as e:
            raise _oserror(e)

    def _exists(self, path):
        try:
            self.lfs.stat(path)
            return True
        except (FileNotFoundError, littlefs.LittleFSError):
            return False

    def rename(self, old, new):
        try:
            self.lfs.rename(old, new)
        except littlefs.LittleFSError as e:
            raise _oserror(e)

    def remove(self, path):
        try:
            self.lfs.remove(path)
        except FileNotFoundError:
            raise OSError(2, "ENOENT")
        except littlefs.LittleFSError as e:
            raise _oserror(e)

    def mkdir(self, path):
        try:
            self.lfs.mkdir(path)
        except FileExistsError:
            raise OSError(17, "EEXIST")
        except littlefs.LittleFSError as e:
            raise _oserror(e)


class _File:
    """A littlefs-python file (unbuffered: littlefs has its own cache) whose errors are OSErrors
    with an errno, as MicroPython raises them."""

    def __init__(self, f, written, path):
        self._f = f
        self._written = written
        self._path = path

    def read(self, n=-1):
        try:
            return self._f.read(n)
        except littlefs.LittleFSError as e:
            raise _oserror(e)

    def write(self, data):
        self._written[self._path] = self._written.get(self._path, 0) + len(data)
        try:
            return self._f.write(data)
        except littlefs.LittleFSError as e:
            raise _oserror(e)

    def close(self):
        f = self._f
        if f is None:
            return
        self._f = None
        try:
            f.close()
        except littlefs.LittleFSError as e:
            # lfs_file_close forgets the file even when its commit fails: never close it again.
            setattr(f, "__IOBase_closed", True)
            raise _oserror(e)
