# One scan's way through the pure core: raw occupancy -> debouncer -> referee (docs/spec.md section 3).
#
# The Pico's main loop, tools/replay.py and the simulators all call this, so a transcript replayed
# on a PC goes through exactly the code the board runs.


def feed_scan(debouncer, referee, raw, now):
    """Debounce one scan (bytearray(64) of 0/1) taken at `now` ms and pass the changes to the
    referee, lifts before places (a lift can make the move on the board final, and a place in the
    same scan belongs to what comes after it). Returns how many squares changed."""
    if debouncer.unsettled == 0 and raw == debouncer.raw_ranks and debouncer.started:
        # A still board, the common case: the debouncer would report nothing (one C-level
        # comparison of the rank bytes here saves its call, 25-40 us on the Pico).
        referee.tick(now)
        return 0
    n = debouncer.update(raw, now)
    if n:
        state = debouncer.state
        changed = debouncer.changed
        for i in range(n):
            sq = changed[i]
            if not state[sq]:
                referee.lift(sq, now)
        for i in range(n):
            sq = changed[i]
            if state[sq]:
                referee.place(sq, now)
    referee.tick(now)
    return n
