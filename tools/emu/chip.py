"""Python's handle on the emulated Pico: starts tools/emu/server.mjs and speaks its JSON lines.

    from chip import Chip, firmware_image
    with Chip() as pico:                      # node + rp2040js, the shared MicroPython build
        pico.boot(firmware_image())           # the files of `make flash`, in a littlefs image
        pico.run(ms=500)
        print(pico.exec("import gc; print(gc.mem_free())")["out"])

The chip needs two files the project cannot ship, named by PICO_UF2 and PICO_BOOTROM (or the uf2= /
bootrom= arguments): MicroPython's RPI_PICO v1.27.0 .uf2 and the RP2040 B1 boot ROM. Without them
everything that boots the chip skips, saying which is missing and where to get it (GET_THEM).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UF2 = os.environ.get("PICO_UF2", "")
BOOTROM = os.environ.get("PICO_BOOTROM", "")
# Where a user gets each file: neither may be copied into the repository (they are not the project's).
INPUTS = (
    ("PICO_UF2", "MicroPython's RPI_PICO v1.27.0 .uf2", "micropython.org/download/RPI_PICO"),
    ("PICO_BOOTROM", "the RP2040 B1 boot ROM", "Raspberry Pi's pico-bootrom repository, its b1 release"),
)
GET_THEM = "docs/emulated-pico.md says how to get them"
READY = "chessboard ready"

sys.path.insert(0, HERE)
import image  # noqa: E402

ROOT = image.ROOT  # the firmware's repository (EMU_FIRMWARE_ROOT to measure another worktree)
IMAGE = os.path.join(ROOT, "build", "emu", "fs.bin")


class ChipError(RuntimeError):
    """The emulator failed or the board did not answer as it should."""


def missing_inputs(uf2=None, bootrom=None):
    """The MicroPython build or boot ROM files that are not there (a message each)."""
    out = []
    for (var, what, where), path in zip(INPUTS, (uf2 or UF2, bootrom or BOOTROM)):
        if not path:
            out.append("%s unset (%s, from %s)" % (var, what, where))
        elif not os.path.isfile(path):
            out.append("%s=%s is not a file (%s, from %s)" % (var, path, what, where))
    return out


def inputs_problem(uf2=None, bootrom=None):
    """One line saying what the emulated chip lacks and where to get it, or None when it can boot."""
    problems = missing_inputs(uf2, bootrom)
    if not problems:
        return None
    return "the emulated Pico cannot boot: " + "; ".join(problems) + "; " + GET_THEM


def firmware_image(extra=None, out=IMAGE, prepare=True):
    """Path of a littlefs image with the firmware of `make flash` (plus `extra`: {name: bytes})."""
    if prepare:
        image.prepare_firmware()
    files = image.firmware_files()
    files.update(extra or {})
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f:
        f.write(image.build(files))
    return out


class Chip:
    def __init__(self, uf2=None, bootrom=None, node="node"):
        problem = inputs_problem(uf2, bootrom)
        if problem:
            raise ChipError(problem)
        self.proc = subprocess.Popen(
            [node, os.path.join(HERE, "server.mjs"), "--uf2", uf2 or UF2, "--bootrom", bootrom or BOOTROM],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.lines = []  # [(emulated ms, text)] of everything the console printed since boot
        self.frames = []  # [(emulated ms, bytes of the WS2812 chain, GRB per LED)]
        self.mono = []  # [(emulated ms, [8 MAX7219 digit bytes, rank 1 first], lit)]
        self.last = {}

    def request(self, op, **args):
        args["op"] = op
        self.proc.stdin.write(json.dumps(args) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise ChipError("the emulator stopped (exit status %s)" % self.proc.wait())
        answer = json.loads(line)
        if "error" in answer:
            raise ChipError(answer["error"])
        if answer.get("resets", 0) != self.last.get("resets", 0) and not answer.get("cut"):
            # The chip restarted (machine.reset()): its console starts over.
            self.lines = []
            self.frames = []
            self.mono = []
        for t, text in answer.get("lines", ()):
            self.lines.append((t, text))
        for t, hexed in answer.get("frames", ()):
            self.frames.append((t, bytes.fromhex(hexed)))
        for t, rows, on in answer.get("mono", ()):
            self.mono.append((t, rows, on))
        self.last = answer
        return answer

    @property
    def now_ms(self):
        return self.last.get("now_ms", 0)

    def boot(self, fs=None, flash=None, wait=READY, limit_ms=20000, closed=None):
        """Power on with a littlefs image (or a whole flash dump); waits for the firmware's ready line."""
        self.lines = []
        self.frames = []
        self.mono = []
        # The firmware holds its console messages until a PC speaks (the first line picks the USB
        # dialect): boot until USB is up, then wait_ready() says `status` and waits.
        args = {"wait": None, "limit_ms": limit_ms}
        if flash:
            args["flash"] = flash
        else:
            args["fs"] = fs or firmware_image()
        if closed is not None:
            args["closed"] = list(closed)
        answer = self.request("boot", **args)
        if not answer["ok"]:
            raise ChipError("the board's USB did not come up within %d ms" % limit_ms)
        if wait:
            answer = self.wait_ready(wait, limit_ms)
        return answer

    def wait_ready(self, wait=READY, limit_ms=20000):
        """After a boot or reset: speak first (`status`, the board's own dialect), as a PC does,
        and run until the board has said `wait`."""
        self.run(300)
        self.write("status\n")
        answer = self.run(limit_ms, until=wait)
        if not answer["matched"] and not any(wait in t for _, t in self.lines):
            raise ChipError("no %r from the board within %d ms; it printed: %s" % (wait, limit_ms, self.lines[-20:]))
        return answer

    def run(self, ms, until=None, events=None, cut=None, keep=None):
        """Run `ms` of emulated time (or until the console prints `until`), moving magnets:
        events = [(t_ms from now, 1 closed / 0 open, square)]. cut=K: the power fails during the
        K-th flash erase/program from now (`keep` of it done) and comes back; answer["cut"] says
        whether it happened (the console starts over then)."""
        args = {"ms": ms}
        if until:
            args["until"] = until
        if events:
            args["events"] = [list(e) for e in events]
        if cut is not None:
            args["cut"] = cut
            if keep is not None:
                args["keep"] = keep
        answer = self.request("run", **args)
        if answer.get("cut"):
            self.lines = []
            self.frames = []
        return answer

    def squares(self, closed):
        return self.request("squares", closed=list(closed))

    def write(self, text):
        return self.request("write", text=text)

    def command(self, text, until, ms=2000):
        """A line to the board's USB link; runs until the console prints `until`."""
        self.write(text + "\n")
        answer = self.run(ms, until=until)
        if not answer["matched"]:
            raise ChipError("no %r after %r; the console printed: %s" % (until, text, answer["lines"]))
        return answer

    def exec(self, code, limit_ms=600000, events=None, go="GO"):
        """Stop main.py and run `code` in the raw REPL: {"out", "err", "ms" (emulated)}.
        events: magnets moved (t_ms, closed, square) counted from when the code prints `go`."""
        args = {"code": code, "limit_ms": limit_ms}
        if events:
            args["events"] = [list(e) for e in events]
            args["go"] = go
        return self.request("exec", **args)

    def soft_reset(self):
        return self.request("soft_reset")

    def power_cycle(self):
        """Cut the power and restore it: only the flash survives."""
        answer = self.request("power_cycle")
        self.lines = []
        self.frames = []
        return answer

    def flash_ops(self):
        """Flash erases + programs since power-on."""
        return self.request("flash_ops")["ops"]

    def flash_busy(self, since_ms=0):
        """[(emulated ms, ms)] of each flash erase or program from since_ms on: the CPU waited,
        running no code, for that long (the firmware runs from the flash being written)."""
        return [tuple(b) for b in self.request("flash_busy", since_ms=since_ms)["busy"]]

    def dump_flash(self, path):
        return self.request("dump_flash", path=path)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.request("quit")
            except (ChipError, BrokenPipeError, OSError, ValueError):
                pass
            self.proc.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
