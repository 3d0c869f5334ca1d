# What the board says when its switches misbehave: App's messages for a switch matrix fault and for
# a square stuck wrong (app.py). Loaded the first time there is something to say, so a working
# board keeps this code and its sentences out of the heap.
from core.position import square_name


def matrix_fault_changed(app, fault):
    """The scanner's fault() changed: say what reads wrong, or that it reads normally again."""
    if not fault:
        app.console("switch matrix reads normally again")
        return
    files = getattr(app.matrix, "stuck_files", 0)
    app.console(
        "switch matrix fault: %s (look for a short to ground or a broken wire)"
        % (
            "column " + ", ".join("abcdefgh"[f] for f in range(8) if files >> f & 1) + " reads closed with no row selected"
            if files
            else "more switches read closed than there are pieces"
        )
    )


def check_stuck(app, now, stuck_ms):
    """A square that has read wrong, unchanged, for stuck_ms while the board shows the error:
    closed where the game has no piece (a stray piece, or a reed switch stuck closed) or open
    where it has one (the piece is missing, or the switch, its diode or the magnet fails).
    Reported once on the console and shown as FAULT until the square reads right."""
    ref = app.referee
    changed_at = app._changed_at
    for squares, text in (
        (ref.filled, "%s reads occupied but should be empty: remove the piece, or its reed switch is stuck closed"),
        (ref.emptied, "%s reads empty but should hold a piece: put it back, or its reed switch, diode or magnet fails"),
    ):
        for sq in squares:
            if now - changed_at[sq] >= stuck_ms and sq not in app.faults:
                app.faults.append(sq)
                app.console(text % square_name(sq))
                app.redraw()
    # A fault clears once the square reads right again.
    for sq in list(app.faults):
        if ref.occ[sq] == ref.base[sq]:
            app.faults.remove(sq)
            app.redraw()
