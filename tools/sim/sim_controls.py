# The browser page's and the terminal's controls for what a player sets up on the board: a time
# control, the clock's buttons, the board's own engine (tools/sim/board_sim.py's methods of the same
# names call these; loaded when first used, to keep board_sim.py small on a 320 kB test heap).


def set_clock(sim, control):
    """A time control for the game (core/clock.py's notation, e.g. "5+3"; "none": no clock), set
    before its first move as on the board. Returns "" or the reason it was refused."""
    ref = sim.app.referee
    if ref.game.ply() or (ref.clock is not None and ref.clock.started):
        return "the clock is set before the first move: set up the start position for a new game"
    try:
        ref.set_clock(control)
    except ValueError as e:
        return "clock: %s" % e
    sim.app.redraw()
    text = control.strip() or "none"
    sim.log_line("clock " + text, "no clock" if text.lower() in ("none", "off", "-") else "clock set: " + text)
    return ""


def clock_action(sim, word):
    """start, pause or resume the clock, as the players do, by the USB command's rule (each acts
    from one state: link/clock_command.py). Returns "" or the reason it could not."""
    if word not in ("start", "pause", "resume"):
        return "clock: start, pause or resume"
    from link.clock_command import press, refusal

    ref = sim.app.referee
    why = refusal(ref, word)
    if why is not None:
        return why
    press(ref, word, sim.now)
    sim.app.redraw()
    return ""


def set_engine(sim, side, level):
    """The board's own engine plays `side` ("white", "black" or "none") at `level` (1-8), as the
    kings' gesture or the USB command `engine` sets it. Returns "" or the reason it could not."""
    opponent = sim.app.engine()
    if opponent is None:
        return "not enough memory for the engine"
    from link.engine_command import run

    ok, text = run(opponent, "%s %d" % ("off" if side == "none" else side, level))
    if not ok:
        return text
    sim.app.redraw()
    # (Nothing logged here: the board's console says it in words, "the board plays black at level 2".)
    return ""


def clock_state(sim):
    """The clock for the page: control, each side's ms now, the running side, its state word."""
    from core.clock import control_text
    from link.clock_command import state_text

    ref = sim.app.referee
    c = ref.clock
    w, b = c.times(sim.now)
    return {
        "control": control_text(c.periods),
        "white": w,
        "black": b,
        "running": ("w" if c.side == 0 else "b") if c.running else None,
        "state": state_text(ref, sim.now).split()[3],
    }
