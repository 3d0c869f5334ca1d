# A board that runs short of memory keeps playing: one feature of docs/spec.md section 11 (the engine,
# the Bluetooth link, a USB dialect, the clock display) on a whole game through the real wiring and
# the scan loop's edge (wiring.build, loop.Board.tick) on hardware/fake.py's pins. Used two ways:
# host_tests/test_memory_errors.py raises MemoryError at each line of the feature's code on CPython,
# and host_tests/test_heap_shrinking.py runs this file on the MicroPython unix port with a heap made
# smaller step by step:
#     .venv/bin/micropython -X heapsize=120k tools/memory/exhaust.py FEATURE
# prints `moves READ MADE`, `feature working|stopped|none`, and the console's lines (`said ...`).
# Runs on CPython and MicroPython (from the repository root; firmware/ or build/mpy/ on the path).
import sys

import config
import wiring
from core.position import move_from, move_to, parse_square
from hardware.fake import FakeBluetooth, FakePico, RamFiles

START = list(range(16)) + list(range(48, 64))
# The hands' moves as (from, to) squares, made before the board starts: the harness itself must
# allocate as little as it can while the board plays, or its own MemoryError would be taken for one
# that escaped the board.
WHITE = tuple((parse_square(u[:2]), parse_square(u[2:4])) for u in ("e2e4", "g1f3", "f1c4", "d2d3"))
BLACK = tuple((parse_square(u[:2]), parse_square(u[2:4])) for u in ("e7e5", "b8c6", "g8f6", "d7d6"))  # no engine
CONNECT = (1, 0, b"\x00" * 6)
# Each feature: its modules (paths under firmware/), its settings, what a PC or phone says to it.
FEATURES = {
    "engine": (("engine/",), {"opponent": "black", "level": 1}, None),
    "ble": (("link/ble", "link/cpp", "link/pieces", "core/messages"), {"ble": "both", "status_led_pin": "LED"}, "ble"),
    "cpp": (("link/cpp", "link/pieces", "core/messages"), {}, "cpp"),
    "chesslink": (("link/chesslink", "link/pieces"), {}, "chesslink"),
    "dgt": (("link/dgt", "link/pieces"), {}, "dgt"),
    "clock display": (("hardware/clock_face", "hardware/ssd1306"), {"clock": "5+3", "oled_sda": 26, "oled_scl": 27}, None),
}
STOPPED = ("not enough memory", "stopped: not enough memory")


class FakeI2C:
    def __init__(self, *args, **kw):
        pass

    def writeto(self, address, buf):
        pass


class Game:
    """The board wired as on the Pico, and a pair of hands; ticks go through loop.Board.tick."""

    def __init__(self, settings):
        s = config.Settings().updated(settings)
        self.pico = FakePico(s.row_pins, s.column_pins, config.SIO_GPIO_IN, occupied=START)
        self.pico.machine.I2C = FakeI2C
        self.out = []
        self.bluetooth = FakeBluetooth() if s.ble != "off" else None
        self.board = wiring.build(s, self.pico.machine, self.pico.neopixel, self.out.append, fs=RamFiles(),
                                  bluetooth=self.bluetooth)
        self.said = []  # what the console was told
        app, link = self.board.app, self.board.link
        console, info = app.console, link.info
        app.console = lambda text: (self.said.append(text), console(text))
        link.info = lambda text: (self.said.append(text), info(text))
        self.t = 0
        self.board.start(0)
        self.period = s.scan_period_ms
        self.ticks = 0

    def run(self, ms):
        for _ in range(ms // self.period):
            self.t += self.period
            self.pico.vm.now_ms = self.t
            self.board.tick(self.t)  # the loop's edge: nothing may escape it
            self.ticks += 1

    def move(self, a, b):
        vm = self.pico.vm
        if vm.occupied(b):
            vm.lift(b)
            self.run(40)
        vm.lift(a)
        self.run(60)
        vm.place(b)
        self.run(400)


def talk(game, who):
    """A PC or a phone speaking the feature's dialect, before the game and between its moves."""
    link = game.board.link
    if who == "cpp":
        for line in ("feature msg", "begin"):
            link.feed(line + "\n")
            game.run(20)
    elif who == "chesslink":
        link.feed(b"V56S53")  # version, status
        game.run(40)
    elif who == "dgt":
        link.feed(b"\x44\x42")  # UPDATE_BRD, then the board
        game.run(40)
    elif who == "ble":
        radio = game.bluetooth.radio
        ble = game.board.app.ble
        if ble is None:
            return
        radio.event(1, CONNECT)
        game.run(20)
        for text in (b"feature msg", b"begin"):
            radio.write(1, ble.cpp_rx, text)
            game.run(20)


def play(feature, game=None):
    """The game of one feature (on `game`, or a board wired afresh): returns (the Game, the moves
    the hands made)."""
    _modules, settings, who = FEATURES[feature]
    game = game or Game(settings)
    game.run(100)
    talk(game, who)
    made = [0] * (2 * len(WHITE))  # (from, to) pairs, filled in place
    for i in range(len(WHITE)):
        a, b = WHITE[i]
        game.move(a, b)
        made[2 * i] = WHITE[i]
        if who:
            talk(game, who)
        ref = game.board.app.referee
        engine = game.board.app.opponent is not None and game.board.app.opponent.colour is not None
        if engine:
            for _ in range(400):  # the engine's reply, lit: the hands make it
                if ref.remote:
                    break
                game.run(20)
        if engine and ref.remote:
            m = ref.remote
        elif feature == "engine":
            m = ref.game.legal[0]  # the engine stopped: black's hands play on
        else:
            m = 0
        a, b = (move_from(m), move_to(m)) if m else BLACK[i]
        game.move(a, b)
        made[2 * i + 1] = (a, b)
    game.run(500)
    return game, made


def read(game):
    """The moves the board read, as (from, to) squares."""
    return [(move_from(m), move_to(m)) for m in game.board.app.referee.game.moves]


def working(feature, game):
    board = game.board
    app = board.app
    if feature == "engine":
        return app.opponent is not None and app.opponent.colour is not None
    if feature == "ble":
        return app.ble is not None
    if feature == "clock display":
        return board.face is not None
    return board.link.sessions.get(feature) is not None


def main(feature):
    try:
        game = Game(FEATURES[feature][1])
    except MemoryError:
        print("no room to boot")  # the heap is below what the board itself needs: no feature's doing
        return
    game, made = play(feature, game)  # from here on nothing may escape the loop's edge
    game.board.link.feed("status\n")
    got = read(game)
    print("moves %d %d %s" % (len(got), len(made), "same" if got == made else "DIFFERENT"))
    print("feature %s" % ("working" if working(feature, game) else "stopped"))
    for text in game.said:
        print("said " + text)


if __name__ == "__main__":
    main(" ".join(sys.argv[1:]))
