"""The chips the README names, as tools/memory/ models them: each one's GC pool, and what the chip's
heap holds that MicroPython's WebAssembly build (the model) does not, each figure with where and
when it was measured. tools/memory/report.py reads this; docs/figures.md shows the results.

Pools: the official v1.27.0 builds' `__GcHeapStart`..`__GcHeapEnd`, less the GC's own tables
(RPI_PICO 246,016 B, RPI_PICO_W 205,312 B, RPI_PICO2_W 457,024 B). The WebAssembly build's
`heapsize` is the whole GC area, so the model asks for the pool plus those tables (HEAPSIZE), and
for the harness's own bytes on top (report.py measures them: the fakes and the scenario code, which
a chip does not hold).
"""

# name -> (MicroPython build, GC pool in bytes, the WebAssembly heapsize that gives that pool)
CHIPS = {
    "pico": ("RPI_PICO", 246016, 251828),
    "pico_w": ("RPI_PICO_W", 205312, 210152),
    "pico2_w": ("RPI_PICO2_W", 457024, 467764),
}
NAMES = {"pico": "Pico", "pico_w": "Pico W", "pico2_w": "Pico 2 W"}

# What the chip holds that the model does not, measured on the emulated RP2040 (tools/emu/, rp2040js
# 1.4.1) running MicroPython v1.27.0 RPI_PICO built from its tag (the same pool as the official
# release), on 2026-12-03 and again on 2026-12-04, against the model run of the same firmware at the same points
# (tools/memory/calibrate.py prints both).
#
# At the REPL, before anything is imported: the chip's runtime holds 4,768 B (sys, the REPL's
# objects), the WebAssembly build 752 B.
CHIP_BARE = 4768
# The firmware's own names the chip interns at run time where the model's build has more of them in
# its ROM (the WebAssembly build's ROM names more): for the same modules the chip holds about a fifth
# more run-time qstrs. At the board's start-up (2026-12-04) the chip held 960 beyond its bare REPL's 8
# where the model held 793 for the firmware.
QSTR_BARE = 8
QSTR_RATIO = 960 / 793
# The RP2040 keeps a qstr pool entry in 6 bytes (pointer, 1-byte hash, length: MICROPY_QSTR_BYTES_IN_HASH
# is 1 on rp2); the pools grow by doubling from the frozen pool's allocation of 10 (20, 40, 80, ...).
QSTR_ENTRY = 6
QSTR_FIRST_POOL = 20

# Stand-ins, bytes held as bytearrays in the model where the chip holds them (tools/memory/scenarios.py):
# - runtime: the chip's bare runtime above the model's (CHIP_BARE - 752).
# - boot_native: at start-up, what the chip's modules take beyond the model's, the model's qstr
#   pools counted as the chip's: the native code of core/position_native.py, hardware/ws2812_native.py
#   and hardware/matrix_sio.py (viper), hardware/ws2812_pio.py, against their plain twins here.
# - engine_native: the engine's native code (engine/native.py), the same way, once it loads.
# Calibrated by tools/memory/calibrate.py on 2026-12-04 (the firmware of that day's commit; on 2026-12-03
# they were 4,256 and 31,856 B).
STANDINS = {
    "runtime": CHIP_BARE - 752,
    "boot_native": 5456,
    "engine_native": 33232,
}

# mbedTLS on the rp2 port takes its memory from the GC heap (MICROPY_TRACKED_ALLOC): the model's
# build has no ssl, so tools/memory/fake_net.py holds these where the chip's mbedTLS does. Measured
# on a 32-bit MicroPython v1.27.0 unix build whose mbedTLS allocates from the GC heap as the rp2
# port's does (its mbedTLS configured as the rp2 port's), against the project's fake Lichess over
# real TLS, 2026-12-03 (../shared/FIELD-NOTES.md, "The chips' memory"): an open connection holds
# 23,920 B, 16,384 B of it the input buffer in one block and 4,096 B the output buffer; a handshake
# peaks 27,856 B above what was held before it (51,776 B with another connection open).
TLS = {
    "tls_in": 16384,
    "tls_out": 4096,
    "tls_session": 23920 - 16384 - 4096,  # the context, the session and the peer's certificate
    "tls_handshake": 27856 - 23920,  # working memory of the handshake only (ECDHE, the chain's parse)
    # Each root certificate mbedTLS parses into the context (load_verify_locations): its DER copied
    # plus the parsed structure (mbedtls_x509_crt, about 600 B on a 32-bit build).
    "tls_root_parsed": 600,
}
# The second core's stack: the rp2 port allocates it from the GC heap when _thread starts a
# thread (4 KB by default, its size in MicroPython v1.27.0's ports/rp2/mpthreadport.c), with the
# thread's small state beside it.
CORE1_STACK = 4096


def qstr_pool_bytes(n, entry=QSTR_ENTRY, first=QSTR_FIRST_POOL):
    """Heap bytes of the run-time qstr pools holding n qstrs: each pool a 16-byte header plus
    `entry` bytes an entry, rounded up to the GC's 16-byte blocks; each pool twice the last."""
    total = 0
    alloc = first
    held = 0
    while held < n:
        total += (16 + entry * alloc + 15) // 16 * 16
        held += alloc
        alloc *= 2
    return total
