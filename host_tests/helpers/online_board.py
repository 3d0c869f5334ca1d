# The board's online code (firmware/online/) as the Pico W runs it, on CPython or the MicroPython
# unix port: Wi-Fi joined through the project's stand-in `network` (tools/shims/network.py), the
# Board API client on a second thread (the Pico's second core), the session polled by a main
# loop that stands for the scan loop and times itself. The board is a scripted player: a test
# (host_tests/test_online_board.py) reads what it prints and types what the player does:
#   move UCI | draw | resign | abort | seek MIN INC | wifi off | wifi on | quit
# Usage: python host_tests/helpers/online_board.py HOST PORT ROOTS_PEM SECRETS_FILE [STREAM_TIMEOUT_MS RATE_LIMIT_MS [app]]
# With `app` the board is the whole firmware instead (App on hardware/fake.py's reed matrix, the
# online central, online/central.py): `move UCI` is then a pair of hands lifting and placing the
# pieces (`hands SQ SQ ...` lifts/places squares in turn, 60 ms apart, `wait MS` among them pauses
# the hands; `hands: done at MS` once they are through), and the lit opponent's move is printed as
# `lit: UCI`.
import sys

sys.path.append("firmware")
sys.path.append("tools/shims")

import _thread  # noqa: E402
import socket  # noqa: E402
import ssl  # noqa: E402
import time  # noqa: E402

import network  # noqa: E402

from online import https, secrets, wifi  # noqa: E402
from online.board_api import BoardApi  # noqa: E402
from online.play import Session  # noqa: E402

try:
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    sleep_ms = time.sleep_ms
except AttributeError:
    def ticks_ms():
        return int(time.monotonic() * 1000)

    def ticks_diff(a, b):
        return a - b

    def sleep_ms(ms):
        time.sleep(ms / 1000)


def out(text):
    print(text)
    try:
        sys.stdout.flush()
    except AttributeError:
        pass


class ScriptedBoard:
    def __init__(self):
        self.moves = []

    def say(self, text):
        out("say: " + text)

    def net(self, state):
        out("net: " + state)

    def move_waiting(self, uci):
        out("waiting: %s" % uci)

    def new_game(self, info):
        self.moves = []
        out("new: %s white=%s against=%s" % (info["id"], info["white"], info["black_name"] if info["white"] else info["white_name"]))

    def sync(self, moves):
        self.moves = list(moves)
        out("sync: " + " ".join(moves))

    def opponent_move(self, uci):
        self.moves.append(uci)
        out("opponent: " + uci)

    def put_back(self, uci, reason):
        if self.moves[-1:] == [uci]:
            self.moves.pop()
        out("put_back: %s (%s)" % (uci, reason))

    def answer_draw(self, accepted):
        out("answer: %s" % accepted)

    def draw_offered(self, on):
        out("offered: %s" % on)

    def clocks(self, w, b):
        pass

    def ended(self, result, words, reason):
        out("ended: %s %s (%s)" % (result, reason, words))


class FirmwareBoard:
    """The whole firmware as the board: App on the virtual reed matrix, and the online central."""

    def __init__(self):
        import config
        from app import App
        from core.position import parse_square
        from hardware.fake import VirtualReedMatrix
        from hardware.leds import TextLeds
        from hardware.matrix import MatrixScanner
        from online.central import OnlineCentral

        self.parse = parse_square
        self.vm = VirtualReedMatrix()
        for sq in list(range(16)) + list(range(48, 64)):
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.app = App(config.Settings(), scanner, TextLeds())
        self.app.start(0)
        from core.referee import event_text

        self.app.listeners.append(lambda ev: out("board: " + event_text(ev)))  # what the hands did, as replay.py says it
        self.central = OnlineCentral(self.app, lambda text: out("say: " + text))
        self.t = 0
        self.lit = 0

    def step(self, now):
        from core.position import move_uci

        self.t += 5
        self.vm.now_ms = self.t
        self.app.step(self.t)
        if self.t % 20 == 0:
            self.central.poll(self.t)
        remote = self.app.referee.remote
        if remote != self.lit:
            self.lit = remote
            if remote:
                out("lit: " + move_uci(remote))

    def hands(self, words):
        """The squares to touch in turn (each is lifted when a piece stands there, else placed),
        and ("wait", MS) for each `wait MS` among them."""
        out = []
        i = 0
        while i < len(words):
            if words[i] == "wait":
                out.append(("wait", int(words[i + 1])))
                i += 2
            else:
                out.append(self.parse(words[i]))
                i += 1
        return out

    def touch(self, sq):
        if self.vm.occupied(sq):
            self.vm.lift(sq)
        else:
            self.vm.place(sq)


def main():
    host, port, roots_path, secrets_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    stream_timeout = int(sys.argv[5]) if len(sys.argv) > 5 else 3000
    rate_limit = int(sys.argv[6]) if len(sys.argv) > 6 else 1000
    keys = secrets.load(secrets_path)
    wlan, state = wifi.join(network, keys.get("ssid"), keys.get("password"), ticks_ms, sleep_ms, 2000)
    out("wifi: " + state)
    if state != wifi.CONNECTED:
        return
    with open(roots_path, "rb") as f:
        ctx = https.context(ssl, f.read())
    lock = _thread.allocate_lock()
    api = BoardApi(socket, ctx, keys["token"], host=host, port=port, ticks_ms=ticks_ms, sleep_ms=sleep_ms,
                   wifi_up=wlan.isconnected, stream_timeout_ms=stream_timeout, rate_limit_ms=rate_limit, lock=lock)
    out("api: %r" % api)
    firmware = FirmwareBoard() if len(sys.argv) > 7 and sys.argv[7] == "app" else None
    board = firmware.central if firmware else ScriptedBoard()
    session = Session(api, board, accept="")
    if firmware:
        firmware.central.session = session
    touches = []  # squares the hands still have to lift or place, one every 60 ms, and pauses
    hands_at = [0]  # the firmware's ms when the hands do the next
    _thread.start_new_thread(api.run, ())
    commands = []
    clock = {"worst": 0, "turns": 0}

    def read_keys():
        while True:
            line = sys.stdin.readline()
            if not line:
                commands.append("quit")
                return
            with lock:
                commands.append(line.strip())

    _thread.start_new_thread(read_keys, ())
    last = ticks_ms()
    while True:
        # The stand-in scan loop: 5 ms a turn. What one turn of the online session costs here (a
        # poll and its actions) is measured: it is what a lift's LEDs could wait for.
        start = ticks_ms()
        if firmware:
            firmware.step(start)
            if touches and firmware.t >= hands_at[0]:
                todo = touches.pop(0)
                if isinstance(todo, tuple):
                    hands_at[0] = firmware.t + todo[1]
                else:
                    firmware.touch(todo)
                    hands_at[0] = firmware.t + 60
                if not touches:
                    out("hands: done at %d" % firmware.t)
        else:
            session.poll(start)
        took = ticks_diff(ticks_ms(), start)
        clock["worst"] = max(clock["worst"], took)
        clock["turns"] += 1
        with lock:
            todo, commands[:] = list(commands), []
        for cmd in todo:
            words = cmd.split()
            if not words:
                continue
            if words[0] == "quit":
                api.stop()
                out("loop: %d turns, slowest poll %d ms, longest gap between turns %d ms" % (
                    clock["turns"], clock["worst"], clock.get("gap", 0)))
                sleep_ms(200)
                return
            if words[0] == "move" and firmware:
                uci = words[1]
                victim = firmware.parse(uci[2:4])
                touches.append(firmware.parse(uci[:2]))
                if firmware.vm.occupied(victim):
                    touches.append(victim)  # a capture: the victim off first ... then placed on
                touches.append(victim)
            elif words[0] == "hands" and firmware:
                touches.extend(firmware.hands(words[1:]))
            elif words[0] == "move":
                board.moves.append(words[1])
                session.player_moved(words[1])
            elif words[0] == "draw":
                session.player_offers_draw()
            elif words[0] == "resign":
                session.player_resigned()
            elif words[0] == "abort":
                session.abort()
            elif words[0] == "seek":
                session.seek(int(words[1]), int(words[2]))
            elif words[0] == "wifi":
                network.set_link(words[1] == "on")
                out("wifi: link " + words[1])
        sleep_ms(5)
        now = ticks_ms()
        clock["gap"] = max(clock.get("gap", 0), ticks_diff(now, last))
        last = now


main()
