# The figures of tools/bench/bench_board.py --dgt: a DGT host on the board's USB link (link/dgt.py).
# Its own file, imported only with --dgt, so that bench_board.py's own code (compiled into the heap
# it measures) is the same size in its other runs.
import gc


def _bus_frame(cmd, address):
    """A DGT bus-mode command to address, with its checksum (the sum of its bytes, bit 7 clear)."""
    frame = bytes((cmd, address >> 7, address & 0x7F))
    return frame + bytes(((frame[0] + frame[1] + frame[2]) & 0x7F,))


def dgt_figures(board, vm, t):
    """A DGT host on the USB link: the heap its module and session take (picochess's first bytes)
    and bus mode's on top (LiveChess's frames); the idle turn in bus mode with nothing asked and in
    UPDATE_NICE with no clock (the time looked at every 100 ms)."""
    gc.collect()
    before = gc.mem_alloc()
    board.link.feed(b"\x4b\x4d\x42")
    gc.collect()
    dgt = gc.mem_alloc() - before
    board.link.feed(_bus_frame(0x8B, board.link.sessions["dgt"].address) * 2)  # the first switches
    gc.collect()
    print(
        "ram_dgt_session: %d bytes (link/dgt.py, link/pieces.py and the session), %d more in bus mode (link/dgt_bus.py)"
        % (dgt, gc.mem_alloc() - before - dgt)
    )
    for label, message in (("alloc_per_idle_tick_in_dgt_bus", b""), ("alloc_per_idle_tick_in_dgt", b"\x4b")):
        board.link.feed(message)
        for _ in range(20):
            t += 5
            vm.now_ms = t
            board.tick(t)
        gc.collect()
        before = gc.mem_alloc()
        for _ in range(100):
            t += 5
            vm.now_ms = t
            board.tick(t)
        print("%s: %d bytes" % (label, (gc.mem_alloc() - before) // 100))
    return t
