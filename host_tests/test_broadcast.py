# The board pushing its own game to a Lichess broadcast round (firmware/online/broadcast.py) against
# the fake push API over real TLS (helpers/fake_broadcast.py, a CA made here): the firmware's App on
# the virtual reed matrix, hands making the moves, the network core on a thread joining the
# project's stand-in Wi-Fi (tools/shims/network.py) as online/boot.py's NetworkCore does on a Pico W.
# Lichess's minute after a 429 is 1.5 s here (the board's and the fake's alike), so that a test
# waits for it without taking a minute; the default is checked to be the minute.
import json
import os
import ssl
import sys
import time

import pytest

import tls_certs
from fake_broadcast import UPSTREAM, FakeBroadcast

for _p in ("firmware", "tools/shims"):
    _p = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), _p)
    if _p not in sys.path:
        sys.path.append(_p)

import config  # noqa: E402
import network  # noqa: E402
from app import CORNERS  # noqa: E402
from core.position import parse_square  # noqa: E402
from core.signals import FAULT  # noqa: E402
from hardware.fake import VirtualReedMatrix  # noqa: E402
from hardware.leds import TextLeds  # noqa: E402
from hardware.matrix import MatrixScanner  # noqa: E402
from online import board_api, broadcast, https  # noqa: E402

TOKEN = "lip_broadcast_token_never_printed"
NO_SCOPE = "lip_board_play_only"
ROUND = "Rnd00001"
LIMIT_MS = 1500


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return tls_certs.make(tmp_path_factory.mktemp("tls") / "good")


class Board:
    """The firmware's App on fakes with the broadcast polled from its loop, as loop.py polls it."""

    def __init__(self, server, ca, token=TOKEN, round_id=ROUND, clock="3+2", white="Ada Lovelace",
                 black="Alan Turing", board=7, store=None, vm=None):
        from app import App

        self.vm = vm  # the pieces where they stand (a board powered up again mid-game), or the start
        if vm is None:
            self.vm = VirtualReedMatrix()
            for sq in list(range(16)) + list(range(48, 64)):
                self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        settings = config.Settings().updated({"clock": clock, "broadcast": round_id, "broadcast_white": white,
                                              "broadcast_black": black, "broadcast_board": board,
                                              "broadcast_round": "3", "broadcast_event": "Club night"})
        self.app = App(settings, scanner, TextLeds(), store)
        self.said = []
        self.corners_lit = 0
        self.app.console = self.said.append
        self.t = 0
        self.app.start(0)
        ctx = https.context(ssl, open(ca, "rb").read())
        keys = {"ssid": "testnet", "password": "testpass", "broadcast": token}
        self.bc = broadcast.start(self.app, self.said.append, keys, network, "localhost", server.port,
                                  retry_ms=(200,), lost_ms=1000, rate_limit_ms=LIMIT_MS,
                                  push_retry_ms=(300, 600, 1200), ssl_context=ctx)
        assert self.bc is not None

    def run(self, ms=300):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)
            if self.t % 20 == 0:
                self.bc.poll(self.t)
            if all(self.app.leds.frame[sq] == FAULT for sq in CORNERS):
                self.corners_lit += 1  # the four corners' sign the players see (app.notice)
            time.sleep(0.0005)

    def play(self, uci):
        pos = self.app.referee.game.position
        f, t = parse_square(uci[:2]), parse_square(uci[2:4])
        piece = pos.piece_at(f) & 7
        self.vm.lift(f)
        self.run(60)
        if self.vm.occupied(t):
            self.vm.lift(t)
            self.run(60)
        self.vm.place(t)
        self.run(60)
        if piece == 6 and abs((f & 7) - (t & 7)) == 2:  # castling: the rook follows
            rook_from, rook_to = (f + 3, f + 1) if t > f else (f - 4, f - 1)
            self.vm.lift(rook_from)
            self.run(60)
            self.vm.place(rook_to)
        self.run(400)
        assert self.app.referee.game.uci_moves()[-1:] == [uci], (uci, self.said[-5:], pos.fen())

    def until(self, condition, limit_s=15):
        end = time.monotonic() + limit_s
        while not condition():
            assert time.monotonic() < end, "timed out: %s" % self.said[-8:]
            self.run(20)

    def stop(self):
        self.bc.stop()
        time.sleep(0.1)


@pytest.fixture
def rig(certs):
    server = FakeBroadcast({TOKEN: {"study:write"}, NO_SCOPE: {"board:play"}},
                           (certs["server.pem"], certs["server.key"]), rate_limit_s=LIMIT_MS / 1000).start()
    server.add_round(ROUND)
    boards = []
    network.set_link(True)

    def make(**kw):
        b = Board(server, certs["ca.pem"], **kw)
        boards.append(b)
        return b

    yield server, make
    network.set_link(True)
    for b in boards:
        b.stop()
        print("\n".join(b.said))
        assert TOKEN not in "\n".join(b.said)
    server.stop()
    assert server.violations == [], "a request inside the minute after a 429"


GAME = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1"]


def test_a_game_pushed_move_by_move_with_its_clock_and_tags(rig):
    server, make = rig
    b = make()
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None)  # the board on the round before a move
    for i, uci in enumerate(GAME):
        b.play(uci)
        b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == i + 1)
    g = server.game(ROUND, White="Ada Lovelace")
    assert g.moves == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O"]
    assert g.tags["Black"] == "Alan Turing" and g.tags["Board"] == "7" and g.tags["Round"] == "3"
    assert g.tags["Event"] == "Club night" and g.tags["TimeControl"] == "180+2" and g.tags["Result"] == "*"
    # the board's own clock: 3 minutes, +2 s a move, the first move starting it
    assert all(c is not None for c in g.clocks)
    assert g.clocks[0] == 180 and g.clocks == [(ms + 999) // 1000 for ms in b.app.referee.clock.history]
    ua = {r[3] for r in server.requests}
    assert ua == {broadcast.USER_AGENT}
    assert len(server.games(ROUND)) == 1  # every push matched the same board


def test_the_result_by_the_kings_sign_and_a_flag_fall(rig):
    server, make = rig
    b = make(clock="0:02", white="Flag Faller", black="On Time")  # two seconds each
    b.play("e2e4")
    b.play("e7e5")
    b.until(lambda: server.game(ROUND, White="Flag Faller") is not None
            and server.game(ROUND, White="Flag Faller").result != "*", limit_s=10)
    g = server.game(ROUND, White="Flag Faller")
    assert g.result == "0-1" and g.moves == ["e4", "e5"]  # White's flag fell
    assert b.app.referee.game.result == "0-1"


def test_a_resignation_by_the_kings_sign_goes_to_the_round_and_nothing_after_it(rig):
    server, make = rig
    b = make(white="Kings Sign", black="Resigns Not")
    for uci in ("g1f3", "b8c6"):
        b.play(uci)
    # both kings on the light centre squares (d5, e4): 1-0 (core/results.py, DGT's convention)
    for sq, place in (("e1", False), ("d5", True), ("e8", False), ("e4", True)):
        (b.vm.place if place else b.vm.lift)(parse_square(sq))
        b.run(100)
    b.run(1000)
    assert b.app.referee.game.result == "1-0", b.said[-5:]
    b.until(lambda: server.game(ROUND, White="Kings Sign") is not None
            and server.game(ROUND, White="Kings Sign").result == "1-0")
    g = server.game(ROUND, White="Kings Sign")
    assert g.moves == ["Nf3", "Nc6"]  # the kings' walk to the centre is a sign, not a move
    assert g.tags["Result"] == "1-0"
    b.until(lambda: b.bc.finished)
    pushes = len(server.requests)
    b.run(1000)
    assert len(server.requests) == pushes  # the result is the last push of the game


def test_a_429_waits_the_whole_pause_and_moves_made_meanwhile_go_with_the_next_push(rig):
    server, make = rig
    b = make()
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None)
    server.too_many = 1
    b.play("e2e4")
    t429 = time.monotonic()
    b.play("e7e5")
    b.play("g1f3")
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 3)
    assert time.monotonic() - t429 >= LIMIT_MS / 1000 * 0.9
    assert any("HTTP 429" in s for s in b.said)
    statuses = [r[1] for r in server.requests]
    assert statuses.count(429) == 1
    # e5 and Nf3, made during the pause, went in one push after it
    assert statuses[statuses.index(429) + 1:] == [200]


def test_5xx_stalls_and_a_cut_connection_are_tried_again_and_catch_up(rig):
    server, make = rig
    server.stall_s = 11  # past the board's 10 s read timeout: it gives up, then tries again
    b = make()
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None)
    server.fail = 2
    b.play("e2e4")
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 1)
    server.cut = 1
    b.play("e7e5")
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 2)
    server.stall = 1
    b.play("g1f3")
    b.play("b8c6")
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 4, limit_s=25)
    # the round has the moves once the fake answers; the board says so at its next poll of the answer
    b.until(lambda: any("caught up, the round has all 4 moves" in s for s in b.said))
    assert any("stalled" in s for s in b.said), b.said
    assert any("the round is behind, 2 moves not on it yet" in s for s in b.said), b.said
    assert b.corners_lit > 0  # the corners showed it


def test_the_network_lost_mid_game_then_caught_up(rig):
    server, make = rig
    b = make()
    b.play("e2e4")
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None
            and len(server.game(ROUND, White="Ada Lovelace").moves) == 1)
    network.set_link(False)
    for uci in ("e7e5", "g1f3", "b8c6"):
        b.play(uci)
    b.until(lambda: any("wifi lost" in s for s in b.said))  # the board's lost_ms, 1 s here, in real time
    assert len(server.game(ROUND, White="Ada Lovelace").moves) == 1
    # BEHIND_MS after the first move the round lacks: the console and the corners say so
    b.until(lambda: any("the round is behind, 3 moves not on it yet" in s for s in b.said))
    b.run(100)
    assert b.corners_lit > 0  # the four corners lit the fault sign
    network.set_link(True)
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 4, limit_s=20)
    b.until(lambda: any("caught up, the round has all 4 moves" in s for s in b.said))
    assert any("wifi lost" in s for s in b.said), b.said
    assert server.game(ROUND, White="Ada Lovelace").clocks[3] is not None


def test_a_token_without_the_scope_is_refused_in_one_sentence_and_nothing_more_is_sent(rig):
    server, make = rig
    b = make(token=NO_SCOPE)
    b.until(lambda: any("stopped" in s for s in b.said))  # the board says it at its next poll
    b.play("e2e4")
    b.run(500)
    assert len(server.requests) == 1
    said = [s for s in b.said if "stopped" in s]
    assert said and "study:write" in said[0]
    assert b.bc.net_state == "refused"


def test_a_round_with_a_source_url_is_refused_with_a_clear_sentence(rig):
    server, make = rig
    server.add_round("Srcround", source="https://example.com/live.pgn")
    b = make(round_id="Srcround")
    b.until(lambda: any("stopped" in s for s in b.said))  # the board says it at its next poll
    said = [s for s in b.said if "stopped" in s][0]
    assert "source URL" in said and UPSTREAM in said and "docs/broadcast.md" in said


def test_hostile_answers_lose_nothing(rig):
    server, make = rig
    server.hostile = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nnot json!",
        b"NOT HTTP AT ALL\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n" + b"x" * 9000,
        b"HTTP/1.1 200 OK\r\nContent-Length: zz\r\n\r\n",
        b"HTTP/1.1 418 I'm a teapot\r\nContent-Length: 2\r\n\r\n[]",
    ]
    b = make()
    for uci in ("e2e4", "e7e5", "g1f3"):
        b.play(uci)
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None
            and len(server.game(ROUND, White="Ada Lovelace").moves) == 3, limit_s=20)
    assert server.hostile == []
    b.play("b8c6")
    b.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 4)


def test_a_power_cut_resumes_the_broadcast_where_it_was(rig, tmp_path):
    from store import GameStore

    from test_link import FakeFlash  # the saved game's flash, as the board's

    server, make = rig
    flash = FakeFlash()
    b = make(store=GameStore("game.sav", flash))
    for uci in GAME[:4]:
        b.play(uci)
    b.until(lambda: server.game(ROUND, White="Ada Lovelace") is not None
            and len(server.game(ROUND, White="Ada Lovelace").moves) == 4)
    network.set_link(False)  # the router goes first: two moves the round never had
    for uci in GAME[4:6]:
        b.play(uci)
    b.app.save()
    b.stop()  # then the power
    assert len(server.game(ROUND, White="Ada Lovelace").moves) == 4
    network.set_link(True)
    b2 = make(store=GameStore("game.sav", flash), vm=b.vm)  # the same pieces on the same squares
    assert b2.app.referee.game.ply() == 6
    # the board pushes the saved game as soon as it is online again, before anyone moves
    b2.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 6)
    b2.play(GAME[6])
    b2.until(lambda: len(server.game(ROUND, White="Ada Lovelace").moves) == 7)
    g = server.game(ROUND, White="Ada Lovelace")
    assert g.moves == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6"]
    # The clocks: the round keeps those it had; the two moves it never had before the cut go
    # without one (the saved game keeps the clock's state, not each move's time: docs/broadcast.md),
    # and every move from the power-up on has its own again.
    assert g.clocks[0] == 180 and None not in g.clocks[:4] and g.clocks[6] is not None, g.clocks
    assert g.clocks[4:6] == [None, None]
    assert len(server.games(ROUND)) == 1  # the same board, not a second game


def test_the_defaults_are_lichess_own():
    assert broadcast.RATE_LIMIT_MS == 60000
    assert broadcast.LOST == board_api.LOST
    settings = config.Settings()
    tags = dict(broadcast.tags(settings, None, None))
    assert tags["White"] == "White, board 1" and tags["Black"] == "Black, board 1"  # never one character
    with pytest.raises(ValueError) as e:
        config.from_json(json.dumps({"broadcast": "https://lichess.org/broadcast/x/y"}))
    assert "8 letters and digits" in str(e.value)


def test_the_usb_commands_set_the_round_token_and_tags_checked_and_never_read_back(tmp_path, monkeypatch):
    from test_link import Rig

    monkeypatch.chdir(tmp_path)  # board.json and online.secret live in the board's root
    rig = Rig()
    assert rig.ask("online broadcast-token " + TOKEN) == ["ok broadcast-token set"]
    assert rig.ask("online broadcast Rnd00001") == ["ok broadcast Rnd00001 (from the next power-up)"]
    assert rig.ask("online broadcast-white Ada Lovelace") == ["ok broadcast-white Ada Lovelace"]
    assert rig.ask("online broadcast-board 12") == ["ok broadcast-board 12"]
    assert rig.ask("online broadcast-round 3.1") == ["ok broadcast-round 3.1"]
    state = rig.ask("online broadcast")
    assert state == ['broadcast round=none next_power_up=Rnd00001 board=12 white="Ada Lovelace" black="Black, board 12" '
                     'round_tag="3.1" token=set']
    # wrong values: a clear sentence, and board.json as it was
    saved = (tmp_path / "board.json").read_text()
    bad = rig.ask("online broadcast https://lichess.org/broadcast/club/round-1/Rnd00001")
    assert bad[0].startswith("err online broadcast: not saved:") and "8 letters and digits" in bad[0]
    assert rig.ask("online broadcast-board twelve")[0].startswith("err online broadcast-board N")
    assert rig.ask("online broadcast-black X")[0].startswith("err online broadcast-black: not saved:")
    assert (tmp_path / "board.json").read_text() == saved
    settings = config.from_json(saved)  # what the next power-up reads
    assert (settings.broadcast, settings.broadcast_white, settings.broadcast_board) == ("Rnd00001", "Ada Lovelace", 12)
    assert rig.ask("online broadcast-white -") == ["ok broadcast-white cleared"]
    assert TOKEN not in "\n".join(str(x) for x in rig.out) + (tmp_path / "board.json").read_text()
    from online import secrets

    assert secrets.load()["broadcast"] == TOKEN
