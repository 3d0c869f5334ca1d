# The board's `clock` command on the USB link (link/commands.py lists it; docs/clock.md):
#   clock                  -> clock WHITE_MS BLACK_MS CONTROL STATE   (or `clock off`)
#   clock CONTROL          set the time control (core/clock.py's notation) before the first move
#   clock none             no clock (before the first move)
#   clock start|pause|resume
# STATE: waiting (until white's first move or `clock start`), running, paused, stopped (the game
# ended), flag-w / flag-b (that side's flag fell). When a CPP app keeps the clock (its `time W B`
# in a round) or a DGT host does (its SetNRun), the board reports the app's times instead:
# `clock W B app app`. Loaded when the command is first used.
#
# One rule for the players' three buttons (docs/clock.md, "Start, pause, resume"): each acts from one
# state, start on a waiting clock, pause on a running one, resume on a paused one, and answers with
# the clock's line; in any other state it is refused with `err` saying the state, and nothing
# changes. The simulators' buttons (tools/sim/sim_controls.py) follow the same rule through refusal().
from core.clock import control_text
from core.referee import SETUP

# The state each button acts from.
_ACTS_FROM = {"start": "waiting", "pause": "running", "resume": "paused"}


def app_time(link):
    """(white ms, black ms) of the clock a PC program keeps: a CPP app's `time` in the round on now
    (as last sent), a DGT host's SetNRun while it speaks (counting down), or None."""
    cpp = link.sessions.get("cpp")
    if cpp is not None and cpp.round and cpp.time is not None:
        return cpp.time
    if link.dialect == "dgt":
        return link.sessions["dgt"].host_times(link.now)
    return None


def state_text(ref, now, link=None):
    """`WHITE_MS BLACK_MS CONTROL STATE` of the referee's clock (or of the app's, see above), or "off"."""
    app = app_time(link) if link is not None else None
    if app is not None:
        return "%d %d app app" % app
    c = ref.clock
    if c is None:
        return "off"
    if c.fallen >= 0:
        state = "flag-" + "wb"[c.fallen]
    elif c.running:
        state = "running"
    elif ref.game.is_over():
        state = "stopped"
    elif c.started:
        state = "paused"
    else:
        state = "waiting"
    w, b = c.times(now)
    return "%d %d %s %s" % (w, b, control_text(c.periods), state)


def refusal(ref, word):
    """Why the button `word` (start, pause or resume) cannot act on the referee's clock now, or None
    when it can (the rule above)."""
    c = ref.clock
    if c is None:
        return "no clock: set a time control first (e.g. clock 5+3)"
    if ref.game.is_over():
        return "the game is over"
    if word != "pause" and ref.phase == SETUP:
        # A flag cannot fall while the board is set up: the clock waits for the position.
        return "set up the position first (the LEDs show where pieces go)"
    state = "running" if c.running else "paused" if c.started else "waiting"
    if state == _ACTS_FROM[word]:
        return None
    if state == "waiting":
        return "the clock is waiting: the first move (or clock start) starts it"
    if state == "paused" and word == "start":
        return "the clock is paused: clock resume carries on"
    return "the clock is %s already" % state


def press(ref, word, now):
    """Carry out the button `word` that refusal() let through."""
    c = ref.clock
    if word == "start":
        c.start(now)
    elif word == "pause":
        c.pause(now)
    else:
        c.resume(now)
    ref.version += 1


def run(link, rest):
    app = link.app
    ref = app.referee
    now = app.now
    word = rest.lower()
    c = ref.clock
    if app_time(link) is not None and rest:
        link.err("clock: the app keeps the clock in this round")
        return
    if word in _ACTS_FROM:
        why = refusal(ref, word)
        if why is not None:
            link.err("clock %s: %s" % (word, why))
            return
        press(ref, word, now)
        link.save()
    elif rest:
        if ref.game.ply() or (c is not None and c.started):
            link.err("clock: the time control is set before the first move (new, or the start position)")
            return
        try:
            ref.set_clock(rest)
        except ValueError as e:
            link.err("clock: %s" % e)
            return
        app.redraw()
        link.save()
    link.line("clock " + state_text(ref, now, link))
