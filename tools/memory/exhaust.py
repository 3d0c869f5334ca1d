# A board that runs short of memory keeps playing: one feature of docs/spec.md section 11 (the engine,
# the Bluetooth link, a USB dialect, the clock display, Lichess over Wi-Fi) on a whole game through the real wiring and
# the scan loop's edge (wiring.build, loop.Board.tick) on hardware/fake.py's pins. Used two ways:
# host_tests/test_memory_errors.py raises MemoryError at each line of the feature's code on CPython,
# and host_tests/test_heap_shrinking.py runs this file on the MicroPython unix port with a heap made
# smaller step by step:
#     .venv/bin/micropython -X heapsize=120k tools/memory/exhaust.py FEATURE
# prints `moves READ MADE`, `feature working|stopped|none`, and the console's lines (`said ...`).
# Runs on CPython and MicroPython (from the repository root; firmware/ or build/mpy/ on the path).
import sys
import time

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
    # A Lichess game, the board White, Black's replies Lichess's (tools/memory/fake_net.py: the
    # network and Lichess behind it, mbedTLS's buffers held at the chip's sizes).
    "online": (("online/",), {"status_led_pin": "LED"}, "online"),
}
REPLIES = ("e7e5", "b8c6", "g8f6", "d7d6")  # BLACK in UCI: Lichess's opponent plays the hands' moves
SECRETS = {"ssid": "modelnet", "password": "modelpass", "token": "lip_modeltoken"}
ROOTS = "firmware/online/roots.pem"  # run from the repository's root, as both tests do
STOPPED = ("not enough memory", "stopped: not enough memory")


class FakeI2C:
    def __init__(self, *args, **kw):
        pass

    def writeto(self, address, buf):
        pass


class Game:
    """The board wired as on the Pico, and a pair of hands; ticks go through loop.Board.tick."""

    def __init__(self, settings, online=False):
        if online:
            import fake_net  # noqa: F401 - compiled before the board (the unix port runs its source)
            import chips  # noqa: F401
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
        self.net = self.core = None
        if online:
            self._online()

    def _online(self):
        """Lichess over Wi-Fi started as wiring.start_online() starts it, on the fake network: its
        modules stand in for socket, ssl, network and _thread while online/boot.py takes them (then
        the runtime's own are back), and the second core's turns are taken in run()."""
        import fake_net
        from chips import CORE1_STACK, TLS

        sizes = dict(TLS)
        sizes["core1_stack"] = CORE1_STACK
        net = fake_net.Net(sizes)
        net.replies = list(REPLIES)
        secrets = _imported("online.secrets")
        secrets.load = lambda path=None: dict(SECRETS)  # the board's online.secret, not a file here
        _imported("online.boot").ROOTS_PATH = ROOTS  # the board's root folder is the repository's firmware/ here
        saved = {}
        for name in net.modules:
            saved[name] = sys.modules.get(name)
            sys.modules[name] = net.modules[name]
        try:
            wiring.start_online(self.board)
        finally:
            for name in saved:
                if saved[name] is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = saved[name]
        if net.thread.started:
            self.net = net
            self.core = net.thread.started[1][0]

    def run(self, ms):
        for _ in range(ms // self.period):
            self.t += self.period
            self.pico.vm.now_ms = self.t
            self.board.tick(self.t)  # the loop's edge: nothing may escape it
            self.ticks += 1
            if self.core is not None and self.ticks % 5 == 0:
                # The second core's turn (its own errors stay inside NetworkCore.turn), until the
                # board has stopped online play.
                if self.board.online is None:
                    # Online play stopped: the second core's last act once it sees that
                    # (NetworkCore.run), here at its next turn: its connections closed, their
                    # buffers back to the heap.
                    self.core.api.close_all()
                    self.net.turn_over()
                    self.core = None
                else:
                    self.net.turn_over()
                    self.core.turn()
                    self.net.settle()
                    if self.ticks % 500 == 0:
                        self.net.keep_alive()  # Lichess's blank line, so no stream is taken for stalled

    def move(self, a, b):
        vm = self.pico.vm
        if vm.occupied(b):
            vm.lift(b)
            self.run(40)
        vm.lift(a)
        self.run(60)
        vm.place(b)
        self.run(400)


def _imported(name):
    """A firmware module the harness sets up before the board imports it. A MemoryError raised
    in its import (test_memory_errors.py raises one at a line of the feature's code, once) is the
    harness's, not the board's: the import is made again."""
    try:
        __import__(name)
    except MemoryError:
        __import__(name)
    return sys.modules[name]


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


def pause():
    """A little of the PC's own time: the network core's back-offs count in it."""
    try:
        time.sleep_ms(10)
    except AttributeError:
        time.sleep(0.01)


def wait_online(game, ready, seconds=4):
    """Scans (and the network core's turns) until ready(), or online play has stopped, or the PC's
    clock has run `seconds`."""
    for _ in range(seconds * 50):
        if game.board.online is None or ready():
            return
        game.run(20)
        pause()


def play(feature, game=None):
    """The game of one feature (on `game`, or a board wired afresh): returns (the Game, the moves
    the hands made)."""
    _modules, settings, who = FEATURES[feature]
    game = game or Game(settings, online=who == "online")
    game.run(100)
    talk(game, who)
    if who == "online":
        # (Attributes only, never the firmware's methods: test_memory_errors.py counts the lines
        # the feature's code runs, and the harness's calls would be among them.)
        wait_online(game, lambda: game.board.online.round)  # the game announced, on the board
        if game.net is not None and (game.board.online is None or not game.board.online.round):
            game.net.announce = False  # not by now (no room to sign in): two players, Lichess has no game for them
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
        if who == "online" and game.board.online is not None and game.board.online.round:
            # Lichess's reply, lit: the hands make it. None coming while online play goes on (the
            # player's move not delivered): the board takes no other, so the hands stop here.
            wait_online(game, lambda: ref.remote)
            if not ref.remote and game.board.online is not None:
                del made[2 * i + 1:]
                break
            engine = bool(ref.remote)
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
    if feature == "online":
        return board.online is not None
    return board.link.sessions.get(feature) is not None


def main(feature):
    try:
        game = Game(FEATURES[feature][1], online=FEATURES[feature][2] == "online")
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
