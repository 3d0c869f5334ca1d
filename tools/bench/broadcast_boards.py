# Several boards in one MicroPython process, each pushing its own game to a broadcast round: the
# unix-port half of tools/bench/broadcast_scale.py, which writes the plan this reads and starts a few
# of these side by side.
#
# Each board is the whole firmware as a Pico W runs it: App on hardware/fake.py's reed matrix with its
# clock on, and online/broadcast.py started as online/boot.py starts it, so its Pusher gets a network
# core of its own (a _thread, joining the project's stand-in Wi-Fi, tools/shims/network.py) and its
# own token (a club's boards are separate Lichess accounts: one request at a time is per token).
# The scan loop here stands for every board's core 0 at once: each board is stepped every
# plan["step_ms"] in real time (a Pico steps every 4-5 ms; with many boards on the PC's two cores
# that costs more than it shows), on ticks_ms(), the same monotonic clock the fake records on.
#
# Usage (from the repository root): .venv/bin/micropython -X heapsize=64m tools/bench/broadcast_boards.py PLAN.json
# It prints `ready` once every board's empty game is on the round, waits for the file plan["go"],
# plays each board's moves at their times (pairs of hands: each touch lifts the piece on a square or
# places one there, 60 ms apart), waits until each board's pusher has sent all, and prints one line a
# board and one for the loop:
#   board N moves UCI,... commits T,... clocks MS,... pushes P waited W
#   loop boards K step_ms S turns T gap_worst G step_us_median M step_us_worst W
import sys

sys.path.append("firmware")
sys.path.append("tools/shims")

import json  # noqa: E402
import os  # noqa: E402
import ssl  # noqa: E402
import time  # noqa: E402

import config  # noqa: E402
import network  # noqa: E402
from app import App  # noqa: E402
from core.position import parse_square  # noqa: E402
from hardware.fake import VirtualReedMatrix  # noqa: E402
from hardware.leds import TextLeds  # noqa: E402
from hardware.matrix import MatrixScanner  # noqa: E402
from online import broadcast, https  # noqa: E402

TOUCH_MS = 60  # between one touch of a move's hands and the next (as host_tests' hands)
# ... and never before the board has scanned the last touch debounce_ms after it: the debouncer
# reports a change only once a later scan finds it held that long (core/debounce.py), so a touch
# undone before that (a victim lifted and the mover set down within one late turn of a loop running
# behind) is never seen. A Pico scans every 4-5 ms, far inside the hands' 60 ms; this loop, stepping
# many boards on a loaded PC, can come round later: the hands then wait for it (`waited` counts it).
POLL_MS = 20  # loop.py polls the broadcast every ONLINE_POLL_MS
SETTLE_MS = 1000  # after the last touch: the debouncer's and the referee's time to commit it
WAIT_SENT_MS = 120000  # after the last move: how long the pushers get to send everything


def out(text):
    print(text)
    try:
        sys.stdout.flush()
    except AttributeError:
        pass


class ClubBoard:
    """One board of the club: the firmware, its hands and what it committed when."""

    def __init__(self, spec, plan, ctx):
        self.number = spec["board"]
        self.vm = VirtualReedMatrix()
        for sq in list(range(16)) + list(range(48, 64)):
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        settings = config.Settings().updated({
            "clock": plan["clock"], "broadcast": plan["round"], "broadcast_white": spec["white"],
            "broadcast_black": spec["black"], "broadcast_board": spec["board"],
            "broadcast_round": "1", "broadcast_event": plan["event"]})
        self.app = App(settings, scanner, TextLeds(), None)
        self.said = []
        self.app.console = self.said.append
        now = time.ticks_ms()
        self.app.start(now)
        keys = {"ssid": "testnet", "password": "testpass", "broadcast": spec["token"]}
        self.bc = broadcast.start(self.app, self.said.append, keys, network, plan["host"], plan["port"],
                                  retry_ms=(200,), ssl_context=ctx)
        self.moves = spec["moves"]  # UCI, played in turn
        self.hands = [[parse_square(s) for s in squares] for squares in spec["touches"]]
        self.after_ms = spec["after_ms"]  # the pause before each move (the player thinking)
        self.next_move = 0
        self.touches = []  # the current move's squares still to touch
        self.due = None  # ticks_ms of the next touch
        self.last_touch = None  # when done() first saw the hands through
        self.debounce_ms = settings.debounce_ms
        self.touched_at = now
        self.seen = True  # a scan has confirmed the last touch: the hands may make the next
        self.late = False  # the hands are waiting for that scan
        self.waited = 0  # touches the hands held back for the board's scans
        self.polled = now
        self.ply = 0
        self.commits = []  # ticks_ms when the referee committed each ply

    def go(self, now):
        self.due = time.ticks_add(now, self.after_ms[0])

    def step(self, now):
        if self.due is not None and time.ticks_diff(now, self.due) >= 0:
            if self.seen:
                self.seen = False
                self.touched_at = now
                self._hands(now)
            elif not self.late:
                self.late = True
                self.waited += 1
        self.vm.now_ms = now
        self.app.step(now)
        if not self.seen and time.ticks_diff(now, self.touched_at) >= self.debounce_ms:
            self.seen = True  # this scan confirmed the last touch
            self.late = False
        ply = self.app.referee.game.ply()
        if ply != self.ply:
            if ply > self.ply:
                self.commits.append(now)
            self.ply = ply
        if time.ticks_diff(now, self.polled) >= POLL_MS:
            self.polled = now
            self.bc.poll(now)

    def _hands(self, now):
        if not self.touches:
            if self.next_move >= len(self.moves):
                self.due = None
                return
            self.touches = list(self.hands[self.next_move])
            self.next_move += 1
        sq = self.touches.pop(0)
        if self.vm.occupied(sq):
            self.vm.lift(sq)
        else:
            self.vm.place(sq)
        if self.touches:
            self.due = time.ticks_add(now, TOUCH_MS)
        elif self.next_move < len(self.moves):
            self.due = time.ticks_add(now, self.after_ms[self.next_move])
        else:
            self.due = None

    def done(self, now):
        """The hands are through and the last move committed (or the board never will: a second on)."""
        if self.next_move < len(self.moves) or self.touches:
            return False
        if self.last_touch is None:
            self.last_touch = now
        return self.ply >= len(self.moves) or time.ticks_diff(now, self.last_touch) > SETTLE_MS

    def all_sent(self):
        p = self.bc.pusher
        return p.sent == p.version and p.sent_ply == self.ply

    def report(self):
        ref = self.app.referee
        history = ref.clock.history if ref.clock is not None else []
        return "board %d moves %s commits %s clocks %s pushes %d waited %d" % (
            self.number, ",".join(ref.game.uci_moves()) or "-", ",".join(str(t) for t in self.commits) or "-",
            ",".join(str(ms) for ms in history) or "-", self.bc.pusher.pushes, self.waited)


class Loop:
    """The scan loop of all the process's boards, timing itself: how late each board's step came."""

    def __init__(self, boards, step_ms):
        self.boards = boards
        self.step_ms = step_ms
        self.turns = 0
        self.gap_worst = 0
        self.costs = []  # us one board's step took, sampled
        self.last = None

    def turn(self):
        start = time.ticks_ms()
        if self.last is not None:
            self.gap_worst = max(self.gap_worst, time.ticks_diff(start, self.last))
        self.last = start
        for b in self.boards:
            t0 = time.ticks_us()
            b.step(time.ticks_ms())
            if self.turns % 16 == 0:
                self.costs.append(time.ticks_diff(time.ticks_us(), t0))
        self.turns += 1
        left = self.step_ms - time.ticks_diff(time.ticks_ms(), start)
        if left > 0:
            time.sleep_ms(left)

    def until(self, condition, limit_ms):
        end = time.ticks_add(time.ticks_ms(), limit_ms)
        while not condition():
            if time.ticks_diff(time.ticks_ms(), end) > 0:
                return False
            self.turn()
        return True

    def report(self):
        costs = sorted(self.costs) or [0]
        return "loop boards %d step_ms %d turns %d gap_worst %d step_us_median %d step_us_worst %d" % (
            len(self.boards), self.step_ms, self.turns, self.gap_worst, costs[len(costs) // 2], costs[-1])


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    with open(plan["ca"], "rb") as f:
        roots = f.read()
    boards = []
    for spec in plan["boards"]:
        boards.append(ClubBoard(spec, plan, https.context(ssl, roots)))
    loop = Loop(boards, plan["step_ms"])
    if not loop.until(lambda: all(b.bc.pusher.pushes > 0 for b in boards), plan["ready_ms"]):
        for b in boards:
            out("said %d: %s" % (b.number, " | ".join(b.said[-4:])))
        out("not ready")
        return
    out("ready")
    loop.until(lambda: exists(plan["go"]), plan["ready_ms"] * 4)
    now = time.ticks_ms()
    for b in boards:
        b.go(now)
    loop.gap_worst = 0  # the figures are the play's, not the start-up's
    loop.costs = []
    loop.until(lambda: all(b.done(time.ticks_ms()) for b in boards), 3600000)
    loop.until(lambda: all(b.all_sent() for b in boards), WAIT_SENT_MS)
    for b in boards:
        out(b.report())
        if b.ply != len(b.moves):
            out("said %d: %s" % (b.number, " | ".join(b.said[-6:])))
    out(loop.report())
    for b in boards:
        b.bc.stop()
    time.sleep_ms(300)  # each network core sees stop() at its next turn and closes its connection
    out("end")


main()
