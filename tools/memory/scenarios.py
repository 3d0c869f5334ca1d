# The configurations of docs/spec.md section 11, each driven through its worst moments, inside the
# chip model of tools/memory/ (MicroPython's 32-bit WebAssembly build with a chip's GC pool, the
# firmware's .mpy files as `make flash` copies them). tools/memory/model.mjs calls step() once per
# call from JavaScript: that build collects garbage only between such calls, so each call is one
# small piece of what the board does (an import, a few scans), and the heap is measured between
# them, as the chip's heap stands once its collector has run.
#
# What the model's build does not have, the scenario puts in the heap itself, as bytearrays of the
# size the chip spends (Standins): the native code the RP2040 compiles where this build runs the
# plain Python twin, the radio stack's allocations, mbedTLS's buffers, the second core's stack.
# Their sizes, and where each was measured, are tools/memory/chips.py's.
#
# Runs on MicroPython only (the model), never on the board: tools/memory/ is a PC tool.
import gc
import sys
import time

from hardware.fake import FakeBluetooth, FakePico, RamFiles

START = [sq for sq in range(64) if sq < 16 or sq >= 48]
SCAN_MS = 4  # config.py's scan_period_ms
FILES = "abcdefgh"


def chesslink(body):
    """A ChessLink message with its block check (the XOR of its characters, two hex digits)."""
    check = 0
    for ch in body:
        check ^= ord(ch)
    return (body + "%02X" % check).encode()


def _request_name(path):
    """A Board API request in a few words, for the step's label."""
    if "/move/" in path:
        return "move " + path.rsplit("/", 1)[1]
    if path.endswith("/stream/event"):
        return "event stream"
    if "/game/stream/" in path:
        return "game stream"
    return path.rsplit("/", 1)[1]


def square(name):
    return FILES.index(name[0]) + 8 * (int(name[1]) - 1)


class Standins:
    """Bytes the chip spends that this build does not: held as bytearrays, so the model's heap
    carries them, in one piece each, where the chip would (a stand-in made after a collection)."""

    def __init__(self, sizes):
        self.sizes = sizes
        self.held = {}

    def add(self, name, n=None):
        n = self.sizes.get(name, 0) if n is None else n
        if n > 0 and name not in self.held:
            self.held[name] = bytearray(n)

    def drop(self, name):
        self.held.pop(name, None)

    def total(self):
        return sum(len(b) for b in self.held.values())


class FakeI2C:
    """machine.I2C with an SSD1306 on it that takes every write (the picture is not read back
    here: host_tests/test_clock.py does that)."""

    def __init__(self, *args, **kw):
        self.writes = 0

    def writeto(self, address, buf):
        self.writes += 1


class Console:
    """The USB serial port's far end: counts what the board wrote, keeps the last lines."""

    def __init__(self):
        self.lines = []

    def write(self, text):
        if len(self.lines) >= 40:
            self.lines.pop(0)
        self.lines.append(text)

    def said(self, words):
        for line in self.lines:
            if words in line:
                return True
        return False


class Model:
    """One configuration on one chip. settings: board.json's overrides; standins: {name: bytes}
    from tools/memory/chips.py; features: what the scenario turns on after boot."""

    def __init__(self, name, settings, standins, features=(), pool=0, bare=0):
        self.name = name
        self.pool = pool  # the chip's GC pool: what firmware/memory.py's free() answers from
        self.bare = bare  # the model's own bytes at its bare REPL (the chip's are a stand-in)
        self.harness_alloc = 0
        self.overrides = settings
        self.standins = Standins(standins)
        self.features = features
        self.pico = None
        self.board = None
        self.console = Console()
        self.t = 0
        self.refused = None  # the sentence a refused combination was refused with
        self._steps = self._script()

    def step(self):
        """The next piece of the scenario; returns its label ("" when it measures nothing new),
        None once the scenario is over."""
        try:
            return next(self._steps)
        except StopIteration:
            return None

    # ------------------------------------------------------------------ pieces

    def chip_free(self):
        """firmware/memory.py's free() as the chip would answer: its pool less what the model's
        heap holds beyond the harness (garbage of the current call included: never more than the
        chip would have)."""
        return self.pool - (gc.mem_alloc() - self.harness_alloc) - self.bare

    def run(self, ms, period=SCAN_MS):
        """ms of scans, one every period ms (longer periods only while nothing moves: the engine's
        seconds of thinking pass in fewer calls, each scan still one slice of its search)."""
        vm = self.pico.vm
        board = self.board
        for _ in range(ms // period):
            self.t += period
            vm.now_ms += period
            board.tick(self.t)

    def lift(self, name):
        self.pico.vm.lift(square(name))

    def place(self, name):
        self.pico.vm.place(square(name))

    def move(self, uci):
        """A hand plays uci (a capture: the victim lifted first), then the board is left still for
        the commit; yields between the pieces."""
        a, b = uci[:2], uci[2:4]
        if self.pico.vm.occupied(square(b)):
            self.lift(b)
            self.run(50)
        self.lift(a)
        yield "lift " + a
        self.run(60)
        self.place(b)
        self.run(300)  # the commit (200 ms of stillness), then the save at the next still scan
        yield "move " + uci

    def command(self, line):
        self.board.link.feed(line + "\n")
        self.run(10)

    # ------------------------------------------------------------------ the scenario

    def _boot(self):
        import config

        settings = config.Settings().updated(self.overrides)
        self.pico = FakePico(settings.row_pins, settings.column_pins, config.SIO_GPIO_IN, occupied=START)
        self.pico.machine.I2C = FakeI2C
        self.bluetooth = FakeBluetooth() if settings.ble != "off" else None
        self.files = RamFiles()
        config = None
        self.net = None
        online = self.online_wanted()
        if online:
            # The network at the socket seam (tools/memory/fake_net.py), and the secrets a board set
            # up for Lichess has (online/secrets.py's file, on the model's filesystem).
            import fake_net

            self.net = fake_net.Net(self.standins.sizes)
            for name in self.net.modules:
                sys.modules[name] = self.net.modules[name]
            with open("online.secret", "w") as f:
                f.write("ssid modelnet\npassword modelpass\ntoken lip_modeltoken\nbroadcast lip_modelbroadcast\n")
        yield "harness"  # what the harness itself holds: tools/memory/report.py subtracts it
        if "harness_only" in self.features:
            return
        self.harness_alloc = gc.mem_alloc()  # collected: this call began after the last
        self.standins.add("runtime")
        import memory

        memory.free = self.chip_free  # the firmware's own choices (the engine's native code) as on the chip  # what the chip's build holds at its REPL and this build does not
        import wiring

        yield "wiring imported"
        # The native code the chip loads at boot (rules core, LED paint, matrix reads): the chip's
        # bytes above this build's plain twins, made where the chip's imports make them.
        self.standins.add("boot_native")
        self.board = wiring.boot(settings, self.pico.machine, self.pico.neopixel, self.console.write, self.files,
                                 self.bluetooth, online=False)
        self.t = time.ticks_ms()
        if online:
            # What boot(online=True) does next, in calls of their own (this build collects only
            # between calls, the chip whenever it needs to): wiring.py still loaded, as on the chip
            # until online play has started.
            yield "ready offline"
            for label in self._start_online(wiring):
                yield label
        wiring = None
        self.board.link.use("board")  # a PC that speaks: the held messages go out
        yield "ready"
        for _ in range(4):
            self.run(50)
            yield ""

    def _start_online(self, wiring):
        """wiring.start_online(), its imports first, each in a call of its own, in the order
        online/boot.py's start() makes them (the same modules end up in the heap, in that order)."""
        names = ("online.secrets", "online.boot", "online.lichess_game", "online.https", "online.board_api",
                 "online.central", "online.play")
        if self.board.app.settings.broadcast:
            names = ("online.secrets", "online.boot", "online.https", "online.broadcast")
        for name in names:
            __import__(name)
            yield "import " + name
        wiring.start_online(self.board)
        yield "online started"

    def online_wanted(self):
        for feature in self.features:
            if feature.startswith("lichess") or feature.startswith("broadcast"):
                return True
        return False

    def _script(self):
        for label in self._boot():
            yield label
        if self.board is None:
            return
        for feature in self.features:
            for label in getattr(self, "_" + feature)():
                yield label

    # ------------------------------------------------------------------ features

    def _game(self):
        """A game of two players: 12 plies, the board still between them (saves)."""
        for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1", "f7f6", "d2d4", "e5d4"):
            for label in self.move(uci):
                yield label

    def _engine(self):
        """The board's engine at the level of the settings, playing black: 1. e4 and its answer,
        then two more moves, its arrays and code in the heap throughout."""
        for label in self._engine_game(("e2e4", "d2d4", "g1f3")):
            yield label

    def _engine_reply(self):
        """The engine at the level of the settings answers 1. e4 (its search as deep as the level
        goes), its arrays and code in the heap."""
        for label in self._engine_game(("e2e4",)):
            yield label

    def _engine_game(self, moves):
        # Online, the firmware may refuse the engine up front (app.py's engine_refusal): that
        # sentence is then this configuration's result, as the USB command would answer it.
        why = self.board.app.engine_refusal()
        if why is not None:
            self.command("engine black %d" % self.level())
            self.refused = why
            yield "engine refused"
            return
        for label in self._engine_code():
            yield label
        self.command("engine black %d" % self.level())
        yield "engine ready"
        for uci in moves:
            for label in self.move(uci):
                yield label
            for label in self._engine_replies():
                yield label

    def _engine_code(self):
        """The engine's search module, and its native code where the chip would load it with it
        (engine/search.py decides by the heap free as it loads: the model's memory.free() answers
        as the chip's would): in calls of their own, before the engine's arrays, as on the chip."""
        from memory import free

        free()
        import engine.search

        yield "engine code"
        if engine.search.NATIVE_WANTED:
            self.standins.add("engine_native")
            yield "engine native code"

    def level(self):
        return self.board.app.settings.level

    def _engine_replies(self):
        """Scans until the engine has lit its move, then the hand makes it."""
        app = self.board.app
        ref = app.referee
        for i in range(200):  # 200 s at most: level 8 thinks a minute
            # A second of the board's time a scan while it thinks: each scan still gives the search
            # one slice (half a period of real time), so the levels that think for seconds reach
            # their move in fewer scans; the heap does not depend on how many positions it saw.
            self.run(4000, period=1000)
            if ref.remote:
                break
            yield "engine thinking"
        if not ref.remote:
            yield "engine gave no move"
            return
        from core.position import move_uci

        uci = move_uci(ref.remote)
        yield "engine plays " + uci
        for label in self.move(uci):
            yield label

    def _usb_cpp(self):
        """A chess program speaks CPP over USB: a round with two moves, then its end."""
        for line in ("feature msg", "begin"):
            self.command(line)
            yield "usb cpp " + line
        for uci in ("e2e4", "e7e5"):
            for label in self.move(uci):
                yield label
        self.command("end")
        yield "usb cpp end"

    def _usb_chesslink(self):
        """A ChessLink host over USB: version, status, a move followed."""
        for body in ("V", "S"):
            self.board.link.feed(chesslink(body))
            self.run(20)
            yield "usb chesslink " + body
        for label in self.move("g1f3"):
            yield label

    def _usb_dgt(self):
        """A DGT host over USB as picochess starts (update-nice mode, version, the board, the clock's
        version, the serial-number watchdog), a move followed field by field and the board asked for
        again; then a bus-mode host (LiveChess) pings and asks for the board."""
        for cmd in (b"\x4b", b"\x4d", b"\x42", b"\x2b\x03\x03\x09\x00", b"\x45"):
            self.board.link.feed(cmd)
            self.run(20)
            yield "usb dgt %02x" % cmd[0]
        for label in self.move("d2d4"):
            yield label
        self.board.link.feed(b"\x42")
        self.run(20)
        yield "usb dgt board after a move"
        from link.dgt import serial_number

        address = serial_number(self.board.link.board_id)
        for cmd, to in ((0x87, 0), (0x82, address)):  # bus mode: a ping to every board, this board's dump
            frame = bytes((cmd, to >> 7, to & 0x7F))
            self.board.link.feed(frame + bytes((sum(frame) & 0x7F,)))
            self.run(1200)  # the ping's answer comes after a random delay within 1.1 s
            yield "usb dgt bus %02x" % cmd

    def _ble_cpp(self):
        """A phone app connects over BLE and plays a CPP round: begin, feature msg, moves."""
        radio = self.bluetooth.radio
        link = self.board.app.ble
        radio.event(1, (1, 0, b"\x00" * 6))  # _IRQ_CENTRAL_CONNECT
        self.run(20)
        for text in ("feature msg", "begin", "get_state"):
            radio.write(1, link.cpp_rx, text.encode())
            self.run(20)
            yield "cpp " + text
        for uci in ("e2e4", "e7e5"):
            for label in self.move(uci):
                yield label
        radio.event(2, (1, 0, b"\x00" * 6))  # _IRQ_CENTRAL_DISCONNECT
        self.run(50)
        yield "cpp app gone"

    def _ble_cpp_round(self):
        """A phone app connects over BLE and stays in a CPP round (the engine's game then runs
        under it)."""
        radio = self.bluetooth.radio
        link = self.board.app.ble
        radio.event(1, (1, 0, b"\x00" * 6))  # _IRQ_CENTRAL_CONNECT
        self.run(20)
        for text in ("feature msg", "begin"):
            radio.write(1, link.cpp_rx, text.encode())
            self.run(20)
            yield "cpp " + text

    def _ble_chesslink(self):
        """A Millennium app connects and asks for the status, then follows a move."""
        radio = self.bluetooth.radio
        link = self.board.app.ble
        radio.event(1, (1, 0, b"\x00" * 6))
        self.run(20)
        for body in ("V", "S"):
            radio.write(1, link.chesslink_write, chesslink(body))
            self.run(40)
            yield "chesslink " + body
        for label in self.move("g1f3"):
            yield label
        radio.event(2, (1, 0, b"\x00" * 6))
        self.run(50)
        yield "chesslink app gone"

    def _engine_loaded(self):
        """The engine asked for over USB (`engine black LEVEL`), nothing played yet: the point
        tools/memory/chips.py's calibration compares with the chip."""
        for label in self._engine_code():
            yield label
        self.board.link.feed("engine black %d\n" % self.level())
        yield "engine loaded"

    # ------------------------------------------------------------------ Lichess over Wi-Fi

    def online(self, ms):
        """ms of the board's life online: the second core's turns (online/boot.py's NetworkCore,
        stepped here: the model has no thread) between the scans, and Lichess's keep-alives. Yields
        a label after each turn that opened a TLS connection (its handshake's moment, measured with
        the handshake's memory held), then the rest."""
        net = self.net
        core = net.thread.started[1][0]
        for _ in range(ms // 20):
            # Each turn in a call of its own: the chip collects before each handshake
            # (online/https.py), this build only between calls.
            net.turn_over()
            yield ""
            seen = net.opened
            core.turn()
            if net.opened != seen:
                yield "handshake: " + _request_name(net.requests[-1][1])
                net.settle()
            self.run(20)
        net.keep_alive()

    def online_until(self, done, limit_ms=20000):
        """online() until done() (a real second of the wrapping clock may have to pass: the network
        core's back-off counts on it), at most limit_ms of the board's time."""
        waited = 0
        while not done() and waited < limit_ms:
            for label in self.online(100):
                yield label
            if not done():
                time.sleep_ms(20)
            waited += 100
        if not done():
            raise AssertionError("the online scenario waited in vain (console: %s)" % self.console.lines[-5:])

    def online_move(self, uci):
        """The player's move on the board, then the network's turns until Lichess has it."""
        net = self.net
        n = len(net.game)
        for label in self.move(uci):
            yield label
        for label in self.online_until(lambda: len(net.game) > n):
            yield label

    def opponent_move(self, uci):
        """The opponent's move, lit by the board, made by the hands."""
        ref = self.board.app.referee
        for label in self.online_until(lambda: ref.remote):
            yield label
        for label in self.move(uci):
            yield label

    def _broadcast_game(self):
        """The board's own game pushed to a Lichess broadcast round, with the clock: the first push
        (the tags, no move), then a move and its push at a time over the one kept connection, the
        connection dropped by the server between two moves (opened again: a handshake), and the
        kings' sign of a draw, the game's last push."""
        net = self.net
        pusher = self.board.online.pusher

        def caught_up():
            return pusher.version and pusher.sent == pusher.version

        for label in self.online_until(caught_up):
            yield label
        yield "broadcast: the round has the game"
        plies = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "d2d3", "f8c5", "b1c3", "d7d6", "c1g5", "h7h6")
        for i, uci in enumerate(plies):
            for label in self.move(uci):
                yield label
            if i == 6:
                for c in net.open:
                    c.cut = True  # the server closed the kept connection while the board was still
            for label in self.online_until(caught_up):
                yield label
        yield "broadcast: 12 moves pushed"
        if pusher.sent_ply != len(plies) or net.pushes < len(plies):
            raise AssertionError("the round has %d plies in %d pushes (console: %s)" % (
                pusher.sent_ply, net.pushes, self.console.lines[-5:]))

    def _lichess_idle(self):
        """Signed in, the event stream open (no game on Lichess): what stays loaded online."""
        net = self.net
        net.announce = False
        for label in self.online_until(lambda: net.streams("events")):
            yield label
        yield "online, waiting for a game"

    def _lichess_game(self):
        """A Lichess game with the clock, the board playing White: signed in, the game announced on
        the event stream and streamed, moves posted (each on its own connection, beside the game's
        stream: the worst moment), the stream cut and opened again (a reconnect's handshake), then
        the game's end and the event stream back."""
        net = self.net
        net.replies = ["e7e5", "b8c6", "g8f6", "f8c5"]
        ref = self.board.app.referee
        for label in self.online_until(lambda: net.streams("game") and self.console.said("Casual")):
            yield label
        yield "Lichess game streaming"
        for mine, theirs in (("e2e4", "e7e5"), ("g1f3", "b8c6")):
            for label in self.online_move(mine):
                yield label
            for label in self.opponent_move(theirs):
                yield label
        # The server cuts the game's stream: it is opened again (a handshake) and the game goes on.
        net.drop("game")
        for label in self.online_until(lambda: net.streams("game")):
            yield label
        yield "game stream back"
        for mine, theirs in (("f1c4", "g8f6"), ("d2d3", "f8c5")):
            for label in self.online_move(mine):
                yield label
            for label in self.opponent_move(theirs):
                yield label
        # The opponent resigns: the game's stream ends, the event stream comes back.
        net.end("resign", "white")
        for label in self.online_until(lambda: net.streams("events") and not net.streams("game")):
            yield label
        yield "game over, events again"
        if ref.remote:
            raise AssertionError("a move still lit after the game")
