# The heap, as the board keeps it (docs/spec.md section 11): modules dropped once nothing needs them,
# and how much is free before a feature takes a share of it. MicroPython never moves an object, so
# what a feature needs in one piece (the engine's arrays, a TLS connection's 16 KB buffer) is made
# right after a collection, before the small objects of play scatter through the free space.
import gc
import sys


def forget(names):
    """Let the garbage collector take modules nothing uses any more (imported again if asked)."""
    for name in names:
        sys.modules.pop(name, None)
        package, _, leaf = name.rpartition(".")
        if package in sys.modules and hasattr(sys.modules[package], leaf):
            delattr(sys.modules[package], leaf)


def free():
    """Bytes free after a collection; on a runtime without a fixed heap (CPython, MicroPython's
    WebAssembly build, whose heap grows) as good as unlimited. tools/memory/ puts the chip's figure
    here when it models one."""
    gc.collect()
    if not hasattr(gc, "mem_free"):
        return 1 << 30
    n = gc.mem_free()
    return 1 << 30 if n + gc.mem_alloc() > 1 << 24 else n
