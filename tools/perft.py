"""Count the legal move tree of a position with the firmware's own rules core (docs/spec.md section 5).

    python3 tools/perft.py [--divide] [--bulk] [--plain] [--runtime cpython|micropython] FEN DEPTH
    python3 tools/perft.py [--plain] [--runtime cpython|micropython] --suite EPD_FILE DEPTH

The last line printed is the node count; with --divide one `UCI: COUNT` line per legal root move
comes first. With --suite it checks every count of an EPD perft suite (`FEN ;D1 n ;D2 n ...` a
line, as host_tests/data/perft/perftsuite.epd) up to DEPTH: a line for each count that differs,
then `N counts checked, M wrong` (exit status 1 when M is not 0). `--runtime micropython` runs the same core under the MicroPython unix port (the
`micropython` of the repository's .venv, or MICROPYTHON=path), with the core's native (viper) make,
unmake and move generator as the Pico runs them; --plain takes its plain Python path instead, as
CPython and WebAssembly run it (the two must count the same). This file itself runs on both runtimes,
so it keeps to what MicroPython has (no argparse).
"""
import sys

USAGE = "usage: perft.py [--divide] [--bulk] [--plain] [--runtime cpython|micropython] FEN DEPTH | --suite EPD_FILE DEPTH"
# The core recurses once a ply and holds a move list at each level: MicroPython's 200 kB heap runs
# out near 300 levels and CPython stops at its recursion limit (1000). 64 is far past any count
# that can finish (the deepest ever computed from the start position is depth 15, on a cluster),
# and leaves both runtimes room to spare.
MAX_DEPTH = 64
# The longest FEN is about 90 characters. Checked before MicroPython is started: its unix port
# interns each argument and dies ("FATAL: uncaught NLR") on one of 256 bytes or more.
MAX_FEN = 200


def _here():
    path = sys.argv[0]
    i = path.rfind("/")
    return path[:i] if i >= 0 else "."


def _cut(text, n=40):
    """An argument shown in a message, cut short (a pasted line can be megabytes long)."""
    return text if len(text) <= n else text[:n] + "..."


def _fail(message):
    sys.stderr.write("perft.py: %s\n%s\n" % (message, USAGE))
    sys.exit(2)


def parse_args(argv):
    divide = bulk = plain = suite = False
    runtime = "cpython"
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--divide":
            divide = True
        elif a == "--bulk":
            bulk = True
        elif a == "--plain":
            plain = True
        elif a == "--suite":
            suite = True
        elif a == "--runtime":
            i += 1
            if i >= len(argv) or argv[i] not in ("cpython", "micropython"):
                _fail("--runtime takes cpython or micropython")
            runtime = argv[i]
        elif a.startswith("--runtime="):
            runtime = a.split("=", 1)[1]
            if runtime not in ("cpython", "micropython"):
                _fail("--runtime takes cpython or micropython")
        elif a in ("-h", "--help"):
            print(USAGE)
            sys.exit(0)
        elif a.startswith("--"):
            _fail("unknown option " + _cut(a))
        else:
            rest.append(a)
        i += 1
    if len(rest) == 7 and not suite:  # a FEN given unquoted: six fields then the depth
        rest = [" ".join(rest[:6]), rest[6]]
    if len(rest) != 2:
        _fail("expected a suite's file and a depth" if suite else "expected a FEN and a depth")
    if len(rest[0]) > MAX_FEN:
        what = "file name" if suite else "FEN"
        _fail("%s of %d characters: at most %d (%r)" % (what, len(rest[0]), MAX_FEN, _cut(rest[0])))
    if suite and divide:
        _fail("--divide is for one FEN, not a --suite")
    depth = rest[1]
    digits = depth[1:] if depth[:1] == "-" else depth
    if not digits or len(digits) > 6 or any(c not in "0123456789" for c in digits):
        _fail("depth must be a whole number from 0 to %d, got %r" % (MAX_DEPTH, _cut(depth)))
    depth = int(depth)
    if depth < 0:
        _fail("depth must not be negative")
    if depth > MAX_DEPTH:
        _fail("depth %d is beyond what the core can count: at most %d" % (depth, MAX_DEPTH))
    return divide, bulk, plain, runtime, rest[0], depth, suite


def run(fen, depth, divide, bulk, plain=False):
    from core.position import FenError, Position, move_uci, use_native

    use_native(not plain)  # the unix port compiles the Pico's viper code too (position.py)

    try:
        position = Position(fen)
    except FenError as e:
        _fail(str(e))
    count = position.perft_bulk if bulk else position.perft
    if not divide:
        print(count(depth))
        return
    total = 0
    if depth == 0:
        print(1)
        return
    for m in position.legal_moves():
        position.make(m)
        n = count(depth - 1)
        position.unmake()
        print("%s: %d" % (move_uci(m), n))
        total += n
    print(total)


def _number(text):
    """A count or depth of a suite's line as an int, or -1 when it is not a whole number."""
    if not text or len(text) > 15:
        return -1
    for c in text:
        if c not in "0123456789":
            return -1
    return int(text)


def run_suite(path, depth, plain=False):
    """Check every count of the EPD suite in `path` up to `depth` (see the top of the file)."""
    from core.position import FenError, Position, use_native

    use_native(not plain)
    try:
        f = open(path)
    except OSError as e:
        _fail("cannot read %s: %s" % (_cut(path), e))
    checked = wrong = number = 0
    with f:
        for line in f:
            number += 1
            parts = line.split(";")
            fen = parts[0].strip()
            if not fen or fen.startswith("#"):
                continue
            try:
                position = Position(fen)
            except FenError as e:
                _fail("%s line %d: %s" % (_cut(path), number, e))
            counts = []
            for item in parts[1:]:
                words = item.split()
                d = _number(words[0][1:]) if len(words) == 2 and words[0][:1] == "D" else -1
                want = _number(words[1]) if d >= 0 else -1
                if want < 0:
                    _fail("%s line %d: %r is not `Dn COUNT`" % (_cut(path), number, _cut(item.strip())))
                counts.append((d, want))
            for d, want in counts:
                if d > depth:
                    continue
                got = position.perft_bulk(d)
                checked += 1
                if got != want:
                    wrong += 1
                    print("line %d, depth %d: %d, not %d: %s" % (number, d, got, want, fen))
    print("%d counts checked, %d wrong" % (checked, wrong))
    if wrong:
        sys.exit(1)


def _run_micropython(argv):
    import os
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    exe = os.environ.get("MICROPYTHON") or os.path.join(root, ".venv", "bin", "micropython")
    if not os.path.exists(exe):
        import shutil

        exe = shutil.which("micropython")
        if not exe:
            _fail("no MicroPython found: run `make test` once (it installs one in .venv) or set MICROPYTHON")
    args = [a for a in argv if not a.startswith("--runtime")]
    if "--runtime" in argv:
        i = argv.index("--runtime")
        args = argv[:i] + argv[i + 2 :]
    code = subprocess.call([exe, "-X", "heapsize=200k", os.path.abspath(__file__)] + args)
    sys.exit(code)


def main(argv):
    divide, bulk, plain, runtime, fen, depth, suite = parse_args(argv)
    if runtime == "micropython" and sys.implementation.name != "micropython":
        _run_micropython(argv)
    here = _here()
    sys.path.insert(0, here + "/../firmware")
    if sys.implementation.name != "micropython":
        sys.path.insert(0, here + "/shims")
    if suite:
        run_suite(fen, depth, plain)
    else:
        run(fen, depth, divide, bulk, plain)


if __name__ == "__main__":
    main(sys.argv[1:])
