"""Write the schematic's generated files: KiCad netlists, ERC reports and the builder's pictures.

    python tools/schematic/build.py           (make schematic) rewrite hardware/schematic/
    python tools/schematic/build.py --check   exit 1 when a generated file is not up to date

The files are committed, so a builder needs neither Python nor KiCad to read them;
host_tests/test_schematic.py fails when they no longer match the code that makes them.
"""
import logging
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "hardware", "schematic")
sys.path.insert(0, HERE)

# SKiDL opens <script>.log and <script>.erc in the current folder as it is imported, and
# stop_log_file_output() removes them again (the ERC is read here instead). Two processes importing
# it from one folder (make test-cpython's two pytest workers) would remove each other's files, so
# it is imported from a scratch folder of this process's own.
_cwd = os.getcwd()
_scratch = tempfile.mkdtemp(prefix="skidl-")
os.chdir(_scratch)
try:
    import circuit as board  # noqa: E402
    import pictures  # noqa: E402
    import skidl  # noqa: E402
    from skidl.logger import erc_logger, stop_log_file_output  # noqa: E402

    stop_log_file_output()
finally:
    os.chdir(_cwd)
    shutil.rmtree(_scratch, ignore_errors=True)


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append((record.levelname, record.getMessage().strip()))


def erc(circuit):
    """[(level, message)] of SKiDL's electrical rules check: unconnected pins, nets with one pin,
    outputs fighting, inputs or power inputs with nothing driving them."""
    handler = _Collect()
    erc_logger.addHandler(handler)
    try:
        circuit.ERC()
    finally:
        erc_logger.removeHandler(handler)
    return handler.records


def netlist(circuit):
    """The KiCad (version 8) netlist, with the generation date taken out so it is reproducible."""
    text = str(circuit.generate_netlist(tool=skidl.KICAD8))
    text = re.sub(r'\(date "[^"]*"\)', '(date "")', text)
    text = re.sub(r'\(source "[^"]*"\)', '(source "tools/schematic/circuit.py")', text)
    # Where SKiDL saw each part made: without the line number, which moves with every edit.
    return re.sub(r'\(name "SKiDL Line"\) "[^"]*"', '(name "SKiDL Line") "tools/schematic/circuit.py"', text)


def outputs(circuits=None):
    """{file name in hardware/schematic/: text}; circuits: {led_type: built circuit} to reuse."""
    out = {}
    for led_type in ("ws2812", "max7219"):
        c = circuits[led_type] if circuits else board.build(led_type)
        out["chessboard-%s.net" % led_type] = netlist(c)
        problems = erc(c)
        lines = ["ERC of chessboard-%s.net (SKiDL %s): %d problems" % (led_type, skidl.__version__, len(problems))]
        lines += ["%s: %s" % p for p in problems]
        out["erc-%s.txt" % led_type] = "\n".join(lines) + "\n"
    out.update(pictures.drawings())
    return out


def main(argv):
    check = "--check" in argv
    stale = []
    for name, text in sorted(outputs().items()):
        path = os.path.join(OUT, name)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old == text:
            continue
        stale.append(name)
        if not check:
            os.makedirs(OUT, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if check and stale:
        print("hardware/schematic/ is out of date (make schematic): " + ", ".join(stale))
        return 1
    print(("rewrote: " + ", ".join(stale)) if stale and not check else "hardware/schematic/ is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
