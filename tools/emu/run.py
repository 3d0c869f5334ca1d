"""Run a MicroPython snippet on the emulated Pico, with the board's firmware on its flash.

    .venv/bin/python tools/emu/run.py SNIPPET.py [--no-main] [--limit-s N]
    .venv/bin/python tools/emu/run.py -c "import gc; print(gc.mem_free())"

The project's flash path puts the firmware on an emulated RP2040 (tools/flash.py --prepare-only
assembles build/flash/, tools/emu/image.py turns it into the littlefs image at 0xa0000), the
official MicroPython v1.27.0 rp2 build boots and main.py starts; then main.py is stopped with
Ctrl-C (as mpremote does) and the snippet runs in the raw REPL. Its output is printed, then
`# emulated: N ms` on stderr. sys.path on the board is the flash root, so `import config`,
`from core.position import Position` etc. load the .mpy files `make flash` would copy. Timing
inside the snippet (time.ticks_us) is the chip's: within about 10 % of a real Pico
(docs/emulated-pico.md). --no-main boots without main.py (a bare MicroPython with the files).
Exit status: 0, 1 when the snippet raised (the traceback on stderr), 2 when the emulator failed.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chip  # noqa: E402
import image  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snippet", nargs="?", help="a .py file to run on the board")
    parser.add_argument("-c", dest="code", help="code to run instead of a file")
    parser.add_argument("--no-main", action="store_true", help="leave main.py off the flash")
    parser.add_argument("--limit-s", type=float, default=600, help="emulated seconds before giving up")
    args = parser.parse_args(argv)
    if args.code is None and not args.snippet:
        parser.error("give SNIPPET.py or -c CODE")
    code = args.code if args.code is not None else open(args.snippet).read()
    try:
        image.prepare_firmware()
        files = image.firmware_files()
        if args.no_main:
            del files["main.py"]
        path = os.path.join(chip.ROOT, "build", "emu", "run-fs.bin")
        with open(path, "wb") as f:
            f.write(image.build(files))
        with chip.Chip() as pico:
            pico.boot(fs=path, wait=None if args.no_main else chip.READY)
            result = pico.exec(code, limit_ms=int(args.limit_s * 1000))
    except chip.ChipError as e:
        print("emu: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(result["out"].replace("\r\n", "\n"))
    sys.stdout.flush()
    if result["err"]:
        sys.stderr.write(result["err"].replace("\r\n", "\n"))
    print("# emulated: %.1f ms" % result["ms"], file=sys.stderr)
    return 1 if result["err"] else 0


if __name__ == "__main__":
    sys.exit(main())
