# Tests of firmware/main.py: the Pico's wiring, run on CPython with fake `machine` and `neopixel` modules.
#
# The fake machine hands main.py the pins of hardware/fake.py's VirtualReedMatrix and a FakeMem32
# at config.SIO_GPIO_IN, so the scanner main.py builds reads the virtual board exactly as it would
# read the Pico's GPIO_IN register; neopixel.NeoPixel is a FakeNeoPixel. A game is then played
# with hands on the virtual matrix, the clock stepping 5 ms per scan as on the board.
import importlib
import json
import os
import sys

import pytest

import config
import loop
from core.position import parse_square
from hardware import leds as L
from core import signals as S
from hardware import fake
from store import GameStore

START = list(range(16)) + list(range(48, 64))
MATE = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7".split()


def FakePico(settings, max7219_answers=True):
    """hardware/fake.py's FakePico with this board's pins and the start position on it."""
    return fake.FakePico(
        settings.row_pins,
        settings.column_pins,
        config.SIO_GPIO_IN,
        occupied=START,
        max7219_answers=max7219_answers,
        cs_gpio=settings.spi_cs,
    )


@pytest.fixture
def main_module(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # board.json and game.sav live in the current folder, as on the Pico
    import wiring

    return wiring


class Hands:
    """Moves on the virtual board, one hand action per 50 ms, the board ticking every 5 ms."""

    def __init__(self, board, pico):
        self.board = board
        self.vm = pico.vm
        self.t = 0
        board.start(0)

    def run(self, ms):
        period = self.board.app.settings.scan_period_ms
        for _ in range(ms // period):
            self.t += period
            self.vm.now_ms = self.t
            self.board.tick(self.t)

    def act(self, what, name, ms=50):
        getattr(self.vm, what)(parse_square(name))
        self.run(ms)

    def play(self, uci):
        self.act("lift", uci[:2])
        if self.vm.occupied(parse_square(uci[2:4])):
            self.act("lift", uci[2:4])
        self.act("place", uci[2:4])
        self.run(400)


def pixel(pico, board, name):
    chain = config.chain_squares(board.app.settings.led_chain)
    return pico.np.pixel(chain.index(parse_square(name)))


def colour(signal, brightness):
    k = brightness + 1
    c = L.COLOURS
    return tuple((c[3 * signal + i] * k) >> 8 for i in range(3))


def test_wiring_of_pins(main_module):
    settings = config.Settings()
    pico = FakePico(settings)
    out = []
    main_module.build(settings, pico.machine, pico.neopixel, out.append)
    P = fake.FakePin
    for gpio in settings.row_pins:
        assert pico.made[gpio] == (P.OPEN_DRAIN, -1, 1)  # open drain, released
    for gpio in settings.column_pins:
        assert pico.made[gpio] == (P.IN, P.PULL_UP, None)
    assert pico.made[settings.led_pin] == (P.OUT, -1, None)
    assert pico.made[settings.status_led_pin] == (P.OUT, -1, 0)
    assert len(pico.np) == 64
    assert out == []


def test_import_with_fake_modules_and_run_the_scan_loop(main_module, monkeypatch, tmp_path):
    settings = config.Settings()
    pico = FakePico(settings)
    monkeypatch.setitem(sys.modules, "machine", pico.machine)
    monkeypatch.setitem(sys.modules, "neopixel", pico.neopixel)
    main = importlib.reload(main_module)
    (tmp_path / "board.json").write_text(json.dumps({"brightnes": 30}))
    out = []
    board = main.build(write=out.append)  # board.json, machine and neopixel as on the Pico
    assert out == []  # held until the PC speaks (a CPP app must not read it as an answer) ...
    board.link.use("board")  # ... in the board's own dialect
    assert out == [
        'msg board.json: brightnes: unknown setting (did you mean "brightness"?); starting with the default settings\n'
    ]
    board.start()
    waiting = [b"sta", b"tus\n", b"fen\n"]

    def read_ready():
        return waiting.pop(0) if waiting else None

    loop.run(board, read_ready, scan_steps=12)
    assert board.app.steps == 12
    text = "".join(out)
    assert "\nstatus phase=play mode=strict turn=w moves=0" in text
    assert "\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n" in text
    assert board.link.errors == 0


def test_stdin_reader_never_blocks(main_module, monkeypatch):
    r, w = os.pipe()
    stdin = os.fdopen(r, "r")
    monkeypatch.setattr(sys, "stdin", stdin)
    read_ready = loop.stdin_reader()
    assert read_ready() is None  # nothing typed: returns at once
    os.write(w, b"ok\n")
    got = b""
    while True:
        data = read_ready()
        if not data:
            break
        got += data
    assert got == b"ok\n"
    os.close(w)
    stdin.close()


def test_a_full_game_with_leds_saves_latency_and_a_reboot(main_module, capsys):
    settings = config.Settings()
    pico = FakePico(settings)
    out = []
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    hands = Hands(board, pico)
    hands.run(50)
    bright = settings.brightness

    # Lift e2: the LEDs show where the pawn can go, within a scan or two of the debounce.
    hands.vm.lift(parse_square("e2"))
    lift_at = hands.t
    while pixel(pico, board, "e4") != colour(S.QUIET, bright):
        hands.run(5)
        assert hands.t - lift_at < 100, "no LED change after a lift"
    lift_ms = hands.t - lift_at
    assert pixel(pico, board, "e3") == colour(S.QUIET, bright)
    assert pixel(pico, board, "e2") == colour(S.LIFTED, bright)
    assert pixel(pico, board, "d2") == (0, 0, 0)
    lit = [sq for sq in range(64) if pico.np.pixel(config.chain_squares(settings.led_chain).index(sq)) != (0, 0, 0)]
    assert sorted(lit) == [parse_square(s) for s in ("e2", "e3", "e4")]
    hands.run(50)
    hands.vm.place(parse_square("e4"))
    place_at = hands.t
    while not board.app.referee.game.moves:
        hands.run(5)
        assert hands.t - place_at <= 500, "docs/spec.md section 3: a move commits within 500 ms"
    commit_ms = hands.t - place_at
    hands.run(300)
    assert GameStore("game.sav").load()[1] == ["e2e4"]

    for uci in MATE[1:4]:
        hands.play(uci)
        assert GameStore("game.sav").load()[1] == board.app.referee.game.uci_moves()
    assert board.app.referee.game.uci_moves() == MATE[:4]

    # Power off and on: a new App on the same store and the same pieces carries on.
    out.clear()
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    hands.board = board
    board.start(hands.t)
    assert board.app.referee.game.uci_moves() == MATE[:4]
    board.link.use("board")  # the PC speaks the board's commands: held messages, then events
    assert out == ["msg resuming the saved game after 4 moves\n"]
    # The queen lifted on h5 shows its capture of f7 in the capture colour.
    hands.act("lift", "d1")
    assert pixel(pico, board, "h5") == colour(S.QUIET, bright)
    hands.act("place", "h5")
    hands.run(400)
    hands.play("g8f6")
    hands.act("lift", "h5")
    assert pixel(pico, board, "f7") == colour(S.CAPTURE, bright)
    hands.act("lift", "f7")
    hands.vm.place(parse_square("f7"))
    place_at = hands.t
    while len(board.app.referee.game.moves) < 7:
        hands.run(5)
        assert hands.t - place_at <= 500
    mate_ms = hands.t - place_at
    hands.run(300)
    game = board.app.referee.game
    assert (game.result, game.reason) == ("1-0", "checkmate")
    assert GameStore("game.sav").load()[1] == MATE
    assert "move h5f7\n" in out and "end 1-0 checkmate\n" in out
    # The mated king blinks red (1 Hz): it is lit in some 128 ms slot of a 2 s cycle.
    seen = set()
    for _ in range(20):
        hands.run(100)
        seen.add(pixel(pico, board, "e8"))
    assert colour(S.MATED_KING, bright) in seen
    with capsys.disabled():
        print(
            "\nlatency (%d ms scans, debounce %d ms, commit delay %d ms): lift -> LEDs %d ms (%d scans), "
            "last place -> commit %d ms (%d scans), capture place -> commit %d ms"
            % (settings.scan_period_ms, settings.debounce_ms, settings.commit_delay_ms, lift_ms, lift_ms // settings.scan_period_ms,
               commit_ms, commit_ms // settings.scan_period_ms, mate_ms)
        )
    assert lift_ms <= settings.debounce_ms + 2 * settings.scan_period_ms
    assert commit_ms <= settings.debounce_ms + settings.commit_delay_ms + 2 * settings.scan_period_ms


def test_heartbeat_and_shutdown(main_module):
    settings = config.Settings()
    pico = FakePico(settings)
    board = main_module.build(settings, pico.machine, pico.neopixel, [].append)
    led = pico.others[settings.status_led_pin]
    hands = Hands(board, pico)
    assert led.value() == 1
    changes = led.changes
    hands.run(2000)
    assert led.changes - changes >= 3  # toggles every 500 ms while the loop runs
    board.shutdown()
    assert led.value() == 0
    assert pico.np.shown == bytearray(192)  # LEDs dark at the REPL


def test_max7219_is_built_and_checked(main_module):
    settings = config.Settings().updated({"led_type": "max7219"})
    pico = FakePico(settings)
    out = []
    board = main_module.build(settings, pico.machine, None, out.append)
    assert out == []  # the chip answered
    assert pico.spi_args[:4] == (1, 1000000, 0, 0)
    assert pico.spi_args[6] is not None  # MISO wired for the check
    Hands(board, pico)
    hands = Hands(board, pico)
    hands.act("lift", "g1")
    lit = pico.chip.lit()
    assert lit[2] & (1 << 5) and lit[2] & (1 << 7)  # f3 and h3 shown
    # No chip on the wires: the board still starts, and says why the LEDs stay dark.
    pico = FakePico(settings, max7219_answers=False)
    out = []
    board = main_module.build(settings, pico.machine, None, out.append)
    assert board.leds_fault
    # The on-board LED blinks fast instead of its heartbeat: a signal that needs no square LED.
    board.start(0)
    toggles = 0
    level = board.status_led.value()
    for t in range(5, 1005, 5):
        board.tick(t)
        if board.status_led.value() != level:
            level = board.status_led.value()
            toggles += 1
    assert toggles >= 9
    board.link.use("board")
    assert out[0] == (
        "msg MAX7219 does not answer on DOUT -> GPIO 12: check its 5 V supply, the wires to GPIO 10/11/13 "
        "and the DOUT divider\n"
    )
    # DOUT not wired back: nothing to check, and the board says so once.
    settings = settings.updated({"spi_miso": None})
    pico = FakePico(settings)
    out = []
    main_module.build(settings, pico.machine, None, out.append).link.use("board")
    assert pico.spi_args[6] is None
    assert out == ["msg MAX7219: spi_miso is null, so the driver cannot check that the chip answers\n"]


def test_a_resigned_game_stays_resigned_after_a_reboot(main_module):
    settings = config.Settings()
    pico = FakePico(settings)
    board = main_module.build(settings, pico.machine, pico.neopixel, [].append)
    hands = Hands(board, pico)
    # White resigns: both kings on the dark centre squares (d4, e5) = 0-1.
    hands.act("lift", "e1")
    hands.act("place", "d4")
    hands.act("lift", "e8")
    hands.act("place", "e5")
    hands.run(1000)
    assert board.app.referee.game.result == "0-1"
    board = main_module.build(settings, pico.machine, pico.neopixel, [].append)
    board.start(hands.t)
    game = board.app.referee.game
    assert (game.result, game.reason) == ("0-1", "resignation")


def test_an_offline_board_drops_the_online_start_up_code(main_module, monkeypatch):
    # A board never set up for Lichess (no online.secret in the current folder): start_online()
    # says so and the modules it imported to find out leave the heap again.
    settings = config.Settings()
    pico = FakePico(settings)
    monkeypatch.setitem(sys.modules, "machine", pico.machine)
    monkeypatch.setitem(sys.modules, "neopixel", pico.neopixel)
    main = importlib.reload(main_module)
    out = []
    board = main.build(write=out.append)
    board.link.use("board")
    board.start()
    main.start_online(board)
    assert board.online is None and board.app.online is None
    assert any("online: not set up" in line for line in out), out
    assert not any(name in sys.modules for name in main.ONLINE_BOOT)


def test_an_error_in_the_online_poll_is_said_and_the_board_plays_on(main_module):
    # online.poll() raising (a bug, a game the rules cannot follow) must not end the scan loop:
    # the console says what broke, as Link.poll does, and the next scans go on.
    settings = config.Settings()
    pico = FakePico(settings)
    out = []
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    board.link.use("board")
    hands = Hands(board, pico)

    class Broken:
        polls = 0

        def poll(self, now):
            Broken.polls += 1
            raise ValueError("P@e4 is not a move")

    board.online = Broken()
    hands.run(200)
    assert Broken.polls >= 5  # polled every ONLINE_POLL_MS, each failure survived
    assert any("online: internal error" in line and "P@e4" in line for line in out), out


def test_out_of_memory_following_a_move_online_stops_lichess_and_the_game_goes_on(main_module):
    # The online central hears the referee's events inside App.step: a MemoryError there must not
    # escape the step (every other listener would miss the event), so the central keeps it for its
    # next poll, where the loop's edge stops online play: the move is read, the console says so,
    # the network core is told to stop and the central no longer listens.
    from online.central import OnlineCentral
    from online.play import Session

    settings = config.Settings()
    pico = FakePico(settings)
    out = []
    board = main_module.build(settings, pico.machine, pico.neopixel, out.append)
    board.link.use("board")
    hands = Hands(board, pico)

    class Api:
        stopped = False

        def take(self):
            return ()

        def watch_game(self, gid):
            return 1

        def post(self, what, args):
            pass

        def stop(self):
            Api.stopped = True

    app = board.app
    central = OnlineCentral(app, app.console)
    central.session = Session(Api(), central)
    central.session.logic.me = "tester"
    central.session.act(central.session.logic.account_event({"type": "gameStart", "game": {"gameId": "g1"}}))
    central.session.act(central.session.logic.game_event({
        "type": "gameFull", "id": "g1", "white": {"id": "tester", "name": "Tester"}, "black": {"id": "opp", "name": "Opp"},
        "initialFen": "startpos", "clock": {"initial": 600000, "increment": 0},
        "state": {"type": "gameState", "moves": "", "wtime": 600000, "btime": 600000, "status": "started"}}))
    board.online = app.online = central
    hands.run(100)
    assert central.round  # Lichess's game is the board's

    def no_memory(ev):
        raise MemoryError("memory allocation failed")

    central._board_event = no_memory
    hands.play("e2e4")
    hands.run(200)
    assert app.referee.game.uci_moves() == ["e2e4"]
    assert board.online is None and app.online is None
    assert Api.stopped and central._listener not in app.listeners
    assert any(loop.ONLINE_STOPPED in line for line in out), out
    assert not any(loop.GAME_SHORT in line for line in out), out  # only online play stopped
    hands.play("e7e5")
    assert app.referee.game.uci_moves() == ["e2e4", "e7e5"]


def test_the_board_collects_its_heap_when_still_never_with_a_piece_in_the_air(main_module, monkeypatch):
    # A collection takes tens of ms on the chip: the board makes its own once it has been still for
    # QUIET_COLLECT_MS after enough of the referee's events, so that none is left for an allocation
    # in a lift's step to set off (app.py).
    import app as app_module

    settings = config.Settings()
    pico = FakePico(settings)
    board = main_module.build(settings, pico.machine, pico.neopixel, [].append)
    hands = Hands(board, pico)
    collected = []

    class Gc:
        @staticmethod
        def collect():
            collected.append(hands.t)

    monkeypatch.setattr(app_module, "gc", Gc)
    monkeypatch.setattr(app_module, "COLLECT_EVENTS", 2)
    hands.play("e2e4")
    hands.play("e7e5")  # two events: due, but the board has not been still long enough
    assert collected == []
    hands.act("lift", "g1")  # a piece in the air, held for two seconds: never then
    hands.run(2000)
    assert collected == []
    hands.act("place", "f3")
    hands.run(app_module.QUIET_COLLECT_MS + 500)
    assert len(collected) == 1 and collected[0] >= board.app.referee.last_change + app_module.QUIET_COLLECT_MS
    hands.run(5000)
    assert len(collected) == 1  # nothing happened since: nothing to collect
