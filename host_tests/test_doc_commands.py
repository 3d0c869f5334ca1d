# Every command the README, docs/ and the Makefile's header show, run as a reader would type it,
# so that an example cannot rot: the commands that can run here without hardware, network or
# minutes of time are run and must succeed (with the output the page gives, where it gives one);
# the others are checked as far as they can be (the make target and the variables it reads exist,
# the options named are options of the tool, the companion's PLAY_ARGS parse). A command the docs
# gain that none of the rules below knows fails test_every_command_is_checked: add a rule.
#
# `python3` is the interpreter that made .venv/ (what a newcomer has), never the venv's own: an
# example that needs the venv's packages must say `.venv/bin/python`.
import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
_base = os.path.join(sys.base_prefix, "bin", "python3")
SYSTEM_PYTHON = _base if os.path.exists(_base) else "python3"
# The programs a documented command starts with.
PROGRAMS = ("make", "python3", ".venv/bin/", "node", "npm", "mpremote", "printf")
# Words that stand for what the reader fills in: FEN, DEPTH, MOVE..., EVENTS_FILE, N, CMD, [--opt].
_PLACEHOLDER = re.compile(r"^\[.*\]$|^[A-Z][A-Z_]*(\.\.\.)?$|\|")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def _command(text):
    """The command in a line of a page, without a shell prompt or a trailing comment, or None."""
    text = text.strip()
    if text.startswith("$ "):
        text = text[2:]
    text = re.split(r"\s{2,}# |\s+# ", text)[0].strip()
    if not text or not re.match(r"(%s)" % "|".join(re.escape(p) for p in PROGRAMS), text):
        return None
    words = text.split()
    if words[0] not in ("make", "python3", "node", "npm", "mpremote", "printf") and not text.startswith(".venv/bin/"):
        return None
    if words[0] != "make" and len(words) < 2:
        return None  # a program named in a sentence ("`node` (20) with `npm`"), not a command
    return text


def documented():
    """{command: [where, ...]} from README.md, docs/*.md (code blocks and inline code) and the
    Makefile's header comment (its examples)."""
    found = {}
    pages = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for page in pages:
        text = read(page)
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            for line in block.splitlines():
                cmd = _command(line)
                if cmd:
                    found.setdefault(cmd, []).append(page)
        outside = re.sub(r"```.*?```", "", text, flags=re.S)
        for code in re.findall(r"`([^`\n]+)`", outside):
            cmd = _command(code)
            if cmd:
                found.setdefault(cmd, []).append(page)
    for line in read("Makefile").splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#\s+(make(?: \S+)*?(?: \w+=\"[^\"]*\")*)(?:\s{2,}.*)?$", line)
        if m:
            found.setdefault(m.group(1).strip(), []).append("Makefile")
    return found


COMMANDS = documented()


def run(argv, stdin=None, timeout=60, **kw):
    return subprocess.run(argv, cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=timeout, **kw)


# ------------------------------------------------------------------------------ make


def make_rules():
    return set(re.findall(r"^([\w.-]+)\s*:(?!=)", read("Makefile"), re.M))


def make_variables():
    text = read("Makefile")
    return set(re.findall(r"\$\((\w+)\)", text)) | set(re.findall(r"^(\w+)\s*\??=", text, re.M))


def check_make(cmd):
    words = shlex.split(cmd)[1:]
    targets = [w for w in words if "=" not in w]
    settings = dict(w.split("=", 1) for w in words if "=" in w)
    missing = [t for t in targets if t not in make_rules()]
    assert not missing, "%s: no such make target %s" % (cmd, missing)
    unknown = [v for v in settings if v not in make_variables()]
    assert not unknown, "%s: the Makefile reads no variable %s" % (cmd, unknown)
    if "TESTS" in settings:
        check_portable_selection(targets, settings["TESTS"].split())
    if "PYTEST_ARGS" in settings:
        check_pytest_selection(settings["PYTEST_ARGS"])
    if "PLAY_ARGS" in settings:
        check_play_args(settings["PLAY_ARGS"])


def check_portable_selection(targets, names):
    """TESTS names modules and MODULE.FUNCTION of host_tests/portable/: they must exist, and for
    test-micropython they run as the target runs them (the unix port with the Makefile's heap).
    (For test-wasm the names are checked, not run: node_modules/ is test-wasm's to install, after
    this file's target, and make test-wasm runs every portable module anyway.)"""
    for name in names:
        module, _, function = name.partition(".")
        path = os.path.join(ROOT, "host_tests", "portable", module + ".py")
        assert os.path.exists(path), "TESTS=%s: no module host_tests/portable/%s.py" % (name, module)
        if function:
            assert re.search(r"^def %s\(" % re.escape(function), read(path), re.M), "TESTS=%s: no such test" % name
    heap = re.search(r"^MICROPYTHON_HEAP \?= (\S+)", read("Makefile"), re.M).group(1)
    if "test-micropython" in targets:
        for name in names:
            r = run([os.path.join(ROOT, ".venv", "bin", "micropython"), "-X", "heapsize=" + heap,
                     "host_tests/helpers/run_portable.py", name])
            assert r.returncode == 0, "make test-micropython TESTS=%s:\n%s" % (name, r.stdout[-2000:] + r.stderr)


_collected = {}


def check_pytest_selection(args):
    """PYTEST_ARGS with -k selects at least one test (pytest collects, runs nothing)."""
    words = shlex.split(args)
    if "-k" not in words:
        return
    expression = words[words.index("-k") + 1]
    if expression not in _collected:
        r = run([os.path.join(ROOT, ".venv", "bin", "pytest"), "--collect-only", "-q", "-p", "no:xdist", "-k", expression,
                 "host_tests", "--ignore=host_tests/test_browser.py"], timeout=120)
        _collected[expression] = r
    r = _collected[expression]
    assert r.returncode == 0 and re.search(r"^(\d+)/\d+ tests collected", r.stdout, re.M), (args, r.stdout[-1500:])


def check_play_args(args):
    """The companion's command line as make play passes it: every option and value parses."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        from companion import cli
        from core import clock
    finally:
        sys.path.remove(os.path.join(ROOT, "tools"))
    parsed = cli.parser().parse_args(shlex.split(args))
    if getattr(parsed, "clock", None):
        clock.parse_control(parsed.clock)


# ------------------------------------------------------------------------------ the tools

# Tools named in the docs that cannot run here: what they need. Their synopses are still checked
# against their --help (or, without one, their source).
NEEDS = {
    "tools/sim/sim_server.py": "a server that runs until stopped (test_sim_server.py runs it)",
    "tools/flash.py": "a Pico on USB (test_flash* and make flash-files run its preparation)",
    "tools/emu/run.py": "the MicroPython .uf2 and boot ROM of docs/emulated-pico.md",
    "tools/sim/sim_screenshot.py": "Chromium (make test-browser)",
    "tools/bench/bench_ble.py": "build/mpy/ and a minute (make bench runs it)",
    "tools/wasm/ble_heap.mjs": "a minute (make bench runs it)",
    "tools/wasm/run.mjs": "the module names: make test-wasm runs it",
    "tools/sim_terminal.py --serial": "a pseudo-terminal at a fixed path (test_sim_terminal.py runs it on its own)",
}
# What an interactive tool is given on standard input when it runs.
STDIN = {"tools/uci.py": "uci\nisready\nquit\n", "tools/sim_terminal.py": "help\nquit\n"}


def interpreter(word):
    if word == "python3":
        return [SYSTEM_PYTHON]
    if word == "node":
        return ["node"]
    return [os.path.join(ROOT, word)]  # .venv/bin/python, .venv/bin/micropython


def check_tool(cmd):
    words = shlex.split(cmd)
    runner, rest = words[0], words[1:]
    while rest and rest[0].startswith("-") and runner.endswith("micropython"):
        rest = rest[2:] if rest[0] == "-X" else rest[1:]  # the unix port's own options
    script, args = rest[0], rest[1:]
    assert os.path.exists(os.path.join(ROOT, script)), "%s: no file %s" % (cmd, script)
    placeholders = [a for a in args if _PLACEHOLDER.search(a)]
    need = NEEDS.get(script) or NEEDS.get("%s %s" % (script, args[0] if args else ""))
    if need or (placeholders and placeholders != ["N"]):
        check_options(cmd, [runner, script], args)
        return
    args = ["1" if a == "N" else a for a in args]
    r = run(interpreter(runner) + [script] + args, stdin=STDIN.get(script, ""), timeout=120)
    assert r.returncode == 0, "%s exits %d:\n%s" % (cmd, r.returncode, (r.stdout + r.stderr)[-2000:])
    return r


def check_options(cmd, argv, args):
    """Every --option a synopsis names is an option of the tool: in its --help, or its source when
    it has no --help (the MicroPython and node scripts)."""
    options = set(re.findall(r"(--[\w-]+)", " ".join(args)))
    script = argv[1]
    if script.endswith(".py") and argv[0] != ".venv/bin/micropython" and script not in ("tools/sim/sim_screenshot.py",):
        r = run([VENV_PYTHON, script, "--help"])
        assert r.returncode == 0, "%s --help exits %d: %s" % (script, r.returncode, r.stderr[-500:])
        text = r.stdout
    else:
        text = read(script)
    unknown = sorted(o for o in options if o not in text)
    assert not unknown, "%s: %s names options the tool does not have: %s" % (cmd, script, unknown)


# ------------------------------------------------------------------------------ the tests


def check(cmd):
    words = cmd.split()
    if words[0] == "make":
        check_make(cmd)
    elif words[0] == "printf":
        # A pipe into a tool: run as a shell runs it, with the newcomer's python3.
        r = run(cmd.replace("python3 ", shlex.quote(SYSTEM_PYTHON) + " "), shell=True)
        assert r.returncode == 0, (cmd, r.stderr)
    elif words[0] == "npm":
        assert words[1] == "ci" and os.path.exists(os.path.join(ROOT, "package-lock.json")), cmd
    elif words[0] == "mpremote":
        # Needs a Pico on USB: the pinned mpremote is there to run it.
        assert os.path.exists(os.path.join(ROOT, ".venv", "bin", "mpremote")), cmd
    else:
        r = check_tool(cmd)
        comment = re.search(r"\s#\s*(\d+)\b", COMMENTS.get(cmd, ""))
        if r is not None and comment:
            assert r.stdout.split()[-1] == comment.group(1), "%s prints %r, the page says %s" % (cmd, r.stdout[-200:], comment.group(1))


def comments():
    """{command: the line it came from}, for commands whose page gives the output in a comment."""
    out = {}
    for page in ["README.md"] + glob.glob(os.path.join(ROOT, "docs", "*.md")):
        for line in read(os.path.relpath(page, ROOT) if os.path.isabs(page) else page).splitlines():
            cmd = _command(line)
            if cmd:
                out[cmd] = line
    return out


COMMENTS = comments()


def test_the_pages_show_commands():
    # The extraction itself: a change of the pages' form must not leave this test checking nothing.
    assert len(COMMANDS) >= 40
    for sure in ("make test", "make sim", 'make test-micropython TESTS="test_position"',
                 ".venv/bin/python tools/hands/physical.py --seed N --mode casual"):
        assert sure in COMMANDS, sure


@pytest.mark.parametrize("cmd", sorted(COMMANDS))
def test_every_command_is_checked(cmd):
    check(cmd)


def test_the_makefiles_header_lists_every_target():
    # The header is the one list of what `make X` does: each target a reader may run is in it.
    header = set()
    for line in read("Makefile").splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"#   make ([\w-]+)\s{2,}", line)
        if m:
            header.add(m.group(1))
    phony = set()
    for line in re.findall(r"^\.PHONY:(.*)$", read("Makefile"), re.M):
        phony.update(line.split())
    internal = {"setup", "clean", "distclean"}  # set-up steps of the others, and clean-ups
    assert phony - internal - header == set(), "make targets missing from the Makefile's header"
    assert header - make_rules() == set(), "the Makefile's header lists targets it does not have"


def test_a_rotten_example_fails():
    # The checks catch the kinds of rot issue 29 found.
    rotten = [
        'make test-micropython TESTS="test_debounce.test_bounce"',
        ".venv/bin/micropython -X heapsize=320k host_tests/helpers/run_portable.py test_position.test_castling",
        'make play PLAY_ARGS="engine --clock 5+3x"',
        "make flashy",
        "python3 tools/perft.py [--dividing] FEN DEPTH",
    ]
    if run([SYSTEM_PYTHON, "-c", "import chess"]).returncode != 0:
        rotten.append("python3 tools/hands/physical.py --seed N --mode casual")  # python-chess is the venv's
    for cmd in rotten:
        with pytest.raises((AssertionError, SystemExit, ValueError)):
            check(cmd)


def test_the_elo_the_help_promises_is_the_engines():
    # `play.py engine --help` names Stockfish's UCI_Elo range; Debian's Stockfish says its own.
    r = run([VENV_PYTHON, "tools/play.py", "engine", "--help"])
    assert r.returncode == 0
    helptext = " ".join(r.stdout.split())
    assert "1350-2850" in helptext and "Stockfish 15.1" in helptext
    stockfish = "/usr/games/stockfish"
    if not os.path.exists(stockfish):
        pytest.skip("Debian's Stockfish is not installed (apt-get install stockfish): its range is not asked")
    out = run([stockfish], stdin="uci\nquit\n").stdout
    m = re.search(r"option name UCI_Elo type spin default \d+ min (\d+) max (\d+)", out)
    version = re.search(r"id name Stockfish (\S+)", out).group(1)
    assert m and "Stockfish %s" % version in helptext and "%s-%s" % m.groups() in helptext
