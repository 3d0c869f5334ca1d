# Runs host_tests/portable/test_*.py without pytest, so the same tests run on CPython, MicroPython and WebAssembly.
#
# Usage (from the repository root):
#   python3 host_tests/helpers/run_portable.py [--dir DIR] [MODULE | MODULE.FUNCTION ...]
#   micropython -X heapsize=384k host_tests/helpers/run_portable.py test_position
# With no MODULE every test_*.py in DIR (default host_tests/portable) runs. Every function whose
# name starts with test_ is called with no arguments; an exception is a failure, except one whose
# class is named SkipTest (e.g. unittest.SkipTest), which counts as skipped. The last line is
# `N passed, M failed` (`, K skipped` appended when K > 0); the exit status is 0 when nothing
# failed, 1 on any failure, 2 when the arguments select nothing. Run it from the repository root:
# tests open their recorded data (build/oracle/...) by paths relative to it.
#
# Only what the MicroPython unix and WebAssembly ports both have is used here: no os.path, no
# traceback module, no str.format specs; module dicts are unordered there, so tests run sorted by name.
import gc
import os
import sys
import time

try:
    import io
except ImportError:  # a MicroPython build without io: tracebacks are then printed unindented
    io = None

MICROPYTHON = sys.implementation.name == "micropython"


def _dirname(path):
    i = path.rfind("/")
    if i > 0:
        return path[:i]
    return "/" if i == 0 else ""


def _absolute(path):
    if path.startswith("/"):
        return path
    cwd = os.getcwd()
    return cwd + "/" + path if path else cwd


# This file is host_tests/helpers/run_portable.py: the repository root is two folders up, the
# portable tests are host_tests/portable/. __file__ is relative when the script was started by a
# relative path, absolute when imported from the WebAssembly FS.
HERE = _absolute(_dirname(__file__.replace("\\", "/")))
TESTS = _dirname(HERE)
ROOT = _dirname(TESTS)
PORTABLE = TESTS + "/portable"


def _add_path(path):
    if path not in sys.path:
        sys.path.insert(0, path)


def setup_paths(test_dir):
    # firmware/ is importable exactly as on the Pico (`import core.position`); on CPython the
    # shims stand in for the built-in `micropython` module. The test folder comes first so test
    # modules import their own helpers.
    if not MICROPYTHON:
        _add_path(ROOT + "/tools/shims")
    _add_path(ROOT + "/firmware")
    _add_path(test_dir)


if MICROPYTHON:
    _ticks_ms = time.ticks_ms
    _ticks_diff = time.ticks_diff
else:
    _add_path(ROOT + "/tools/shims")  # also where setup_paths() puts CPython's `micropython`
    from ticks import ticks_diff as _ticks_diff, ticks_ms as _ticks_ms  # tools/shims/ticks.py


def _elapsed_ms(start):
    return _ticks_diff(_ticks_ms(), start)


def _mem_free():
    # None on CPython, which has no fixed heap to report.
    collect = getattr(gc, "collect", None)
    if collect:
        collect()
    mem_free = getattr(gc, "mem_free", None)
    return mem_free() if mem_free else None


def _mem_alloc():
    # What stays allocated after a collection; unlike mem_free it means the same on the
    # WebAssembly build, whose heap grows on demand.
    mem_alloc = getattr(gc, "mem_alloc", None)
    return mem_alloc() if mem_alloc else None


def _exception_line(exc):
    text = str(exc)
    name = type(exc).__name__
    return name + ": " + text if text else name


def _print_traceback(exc):
    # MicroPython prints tracebacks with sys.print_exception; CPython with the traceback module.
    if hasattr(sys, "print_exception"):
        if io is None:
            sys.print_exception(exc)
            return
        buf = io.StringIO()
        sys.print_exception(exc, buf)
        text = buf.getvalue()
    else:
        import traceback

        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    for line in text.rstrip("\n").split("\n"):
        print("    " + line)


def discover(test_dir):
    names = []
    for entry in os.listdir(test_dir):
        if entry.startswith("test_") and entry.endswith(".py"):
            names.append(entry[:-3])
    names.sort()
    return names


def parse_args(argv):
    test_dir = PORTABLE
    selected = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--dir":
            i += 1
            if i == len(argv):
                raise ValueError("--dir needs a folder")
            test_dir = _absolute(argv[i].rstrip("/"))
        elif arg in ("-h", "--help"):
            raise ValueError("usage: run_portable.py [--dir DIR] [MODULE | MODULE.FUNCTION ...]")
        else:
            # Accept a path or file name too: host_tests/portable/test_x.py -> test_x.
            name = arg.replace("\\", "/").split("/")[-1]
            if name.endswith(".py"):
                name = name[:-3]
            selected.append(name)
        i += 1
    return test_dir, selected


def select(available, selected):
    # Returns [(module, None or [function names])] in run order.
    if not selected:
        return [(name, None) for name in available]
    plan = []
    wanted = {}
    for item in selected:
        dot = item.find(".")
        module = item if dot < 0 else item[:dot]
        if module not in available:
            raise ValueError("no test module " + module + " (have: " + " ".join(available) + ")")
        if module not in wanted:
            wanted[module] = []
            plan.append(module)
        if dot >= 0:
            wanted[module].append(item[dot + 1 :])
    return [(module, wanted[module] or None) for module in plan]


class Runner:
    """One run, in steps small enough for the WebAssembly build.

    That build's gc.collect() only marks a collection as due: it happens when control returns to
    JavaScript, the one point with no pointers hidden in the C stack. tools/wasm/run.mjs therefore
    calls begin(), run_test() and end() from JavaScript, one call each, so garbage is freed
    between tests there as it is here; main() below makes the same calls in a loop.
    """

    def __init__(self, argv):
        self.status = 0  # 2 when the arguments select nothing
        self.plan = []  # [(module name, None or [function names])]
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.module = None
        self.tests = []
        try:
            test_dir, selected = parse_args(argv)
            setup_paths(test_dir)
            self.plan = select(discover(test_dir), selected)
        except (ValueError, OSError) as exc:
            print("run_portable: " + _exception_line(exc))
            self.status = 2
            return
        self.mem_before = _mem_free()
        self.alloc_before = _mem_alloc()
        self.start = _ticks_ms()
        impl = sys.implementation
        print(
            "run_portable: "
            + impl.name
            + " "
            + ".".join([str(v) for v in impl.version[:3]])
            + " on "
            + sys.platform
            + ", maxsize "
            + str(sys.maxsize)
            + (", mem_free " + str(self.mem_before) if self.mem_before is not None else "")
        )

    def _fail(self, label, exc):
        self.failed += 1
        self.module_failed += 1
        self.failures.append(label)
        if exc is None:
            print("FAIL " + label + ": no such test")
            return
        print("FAIL " + label + ": " + _exception_line(exc))
        _print_traceback(exc)

    def begin(self, index):
        """Imports the plan's module number index; returns how many tests to run_test()."""
        self.name, only = self.plan[index]
        self.module_passed = self.module_failed = self.module_skipped = 0
        self.module_start = _ticks_ms()
        self.module = None
        self.tests = []
        self.modules_before = list(sys.modules)
        try:
            self.module = __import__(self.name)
        except Exception as exc:
            self._fail(self.name + " (import)", exc)
            return 0
        tests = [key for key in dir(self.module) if key.startswith("test_")]
        tests = [key for key in tests if callable(getattr(self.module, key))]
        tests.sort()
        if only:
            for key in only:
                if key not in tests:
                    self._fail(self.name + "." + key, None)
            tests = [key for key in tests if key in only]
        self.tests = tests
        return len(tests)

    def run_test(self, index):
        key = self.tests[index]
        try:
            getattr(self.module, key)()
            self.passed += 1
            self.module_passed += 1
        except Exception as exc:
            if type(exc).__name__ == "SkipTest":
                self.skipped += 1
                self.module_skipped += 1
                print("SKIP " + self.name + "." + key + ": " + str(exc))
            else:
                self._fail(self.name + "." + key, exc)
        # Each test starts on a collected heap, as the firmware's loop would.
        _mem_free()

    def end(self):
        # Drop the test module and every module it imported (the firmware's included), so each
        # test module starts on a heap as empty as a freshly booted board's, not crowded out of
        # 320 kB by the tables of the modules before it.
        self.module = None
        self.tests = []
        before = self.modules_before
        for name in list(sys.modules):
            if name not in before:
                del sys.modules[name]
        mem = _mem_free()
        line = self.name + ": " + str(self.module_passed) + " passed, " + str(self.module_failed) + " failed"
        if self.module_skipped:
            line += ", " + str(self.module_skipped) + " skipped"
        line += " (" + str(_elapsed_ms(self.module_start)) + " ms"
        if mem is not None:
            line += ", mem_free " + str(mem)
        print(line + ")")

    def finish(self):
        """Prints the summary; returns the exit status (0 ok, 1 failures, 2 nothing ran)."""
        if self.status:
            return self.status
        mem_after = _mem_free()
        alloc_after = _mem_alloc()
        line = str(_elapsed_ms(self.start)) + " ms"
        if mem_after is not None:
            line += ", mem_free %s -> %s bytes" % (self.mem_before, mem_after)
        if alloc_after is not None:
            line += ", mem_alloc %s -> %s (%s still held: modules and their tables)" % (
                self.alloc_before,
                alloc_after,
                alloc_after - self.alloc_before,
            )
        print(line)
        for failure in self.failures:
            print("failed: " + failure)
        if self.passed + self.failed + self.skipped == 0:
            print("run_portable: no tests ran")
            return 2
        summary = str(self.passed) + " passed, " + str(self.failed) + " failed"
        if self.skipped:
            summary += ", " + str(self.skipped) + " skipped"
        print(summary)
        return 1 if self.failed else 0


def main(argv):
    """Runs the selected tests and returns the exit status (0 ok, 1 failures, 2 bad arguments)."""
    run = Runner(argv)
    if run.status:
        return run.status
    for i in range(len(run.plan)):
        for j in range(run.begin(i)):
            run.run_test(j)
        run.end()
    return run.finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
