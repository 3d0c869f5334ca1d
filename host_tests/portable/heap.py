# Heap measuring for the portable tests: whether this runtime can count the bytes a piece of code
# allocates right now.
import gc


def can_count_bytes():
    """True where gc.mem_alloc() exists and gc.collect() frees at once (the MicroPython unix port).
    The WebAssembly build frees only between calls from JavaScript, so there mem_alloc() counts
    garbage too; CPython has no mem_alloc() at all. Tests measure where this is True."""
    if not hasattr(gc, "mem_alloc"):
        return False
    gc.collect()
    before = gc.mem_alloc()
    junk = [bytearray(64) for _ in range(32)]
    junk = None
    gc.collect()
    return gc.mem_alloc() - before < 1024
