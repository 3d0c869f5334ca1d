# The board playing on Lichess by itself (firmware/online/): host_tests/helpers/online_board.py runs the
# firmware's online code on CPython and on the MicroPython unix port (real sockets and TLS, the
# project's stand-in `network`), against the fake Board API served over HTTPS with a CA made here
# (tls_certs.py). Each scenario runs on both runtimes; the token must never appear in what the
# board prints.
import os
import time

import pytest

import tls_certs
from companion_rig import PYTHON, ROOT, Process
from fake_lichess import FakeLichess

TOKEN = "lip_board_token_never_printed"
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
RUNTIMES = ["cpython", "micropython"]


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    base = tmp_path_factory.mktemp("tls")
    return tls_certs.make(base / "good"), tls_certs.make(base / "other", ca_name="Some Other CA")


def wait_for(condition, timeout=10):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(0.05)


@pytest.fixture
def rig(tmp_path, certs, request):
    good, other = certs
    server = FakeLichess(TOKEN, 0, tls=(good["server.pem"], good["server.key"])).start()
    parts = []

    def start(runtime, roots=None, ssid="testnet", password="testpass", board="scripted"):
        secret = tmp_path / "online.secret"
        secret.write_text("ssid %s\npassword %s\ntoken %s\n" % (ssid, password, TOKEN))
        exe = PYTHON if runtime == "cpython" else MICROPYTHON
        if runtime == "micropython" and not os.path.exists(MICROPYTHON):
            pytest.skip("NO MICROPYTHON: .venv/bin/micropython is missing (make setup installs it)")
        argv = [exe, "host_tests/helpers/online_board.py", "localhost", str(server.port), roots or good["ca.pem"], str(secret),
                "1500", "1000"] + (["app"] if board == "app" else [])
        p = Process(argv, "board-" + runtime)
        parts.append(p)
        return p

    yield server, start, other
    for p in parts:
        p.stop()
    server.stop()
    for p in parts:
        print("----", p.name)
        print(p.text())
        assert TOKEN not in p.text()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_whole_game_as_white_draw_offers_both_ways_and_a_resignation(rig, runtime):
    server, start, _ = rig
    server.add_game("game0001", True, ["e7e5", "b8c6", "g8f6"])
    board = start(runtime)
    board.expect(r"wifi: online")
    board.expect(r"signed in to Lichess as Tester")
    board.expect(r"new: game0001 white=True against=Opponent")
    board.send("move e2e4")
    board.expect(r"opponent: e7e5")
    server.chat("have fun")
    board.expect(r"chat Opponent: have fun")
    # The opponent offers a draw: shown; the player's move declines it.
    server.offer_draw()
    board.expect(r"offered: True")
    board.send("move g1f3")
    board.expect(r"offered: False")
    board.expect(r"opponent: b8c6")
    # The player offers a draw with the kings' sign on the own turn; the opponent declines: the
    # board gets its answer and plays on.
    board.send("draw")
    board.expect(r"draw offered to Opponent")
    wait_for(lambda: ("POST", "/api/board/game/game0001/draw/yes") in server.requests)
    server.decline_my_draw()
    board.expect(r"answer: False")
    board.send("move f1c4")
    board.expect(r"opponent: g8f6")
    board.send("resign")
    board.expect(r"ended: 0-1 resign \(resignation\)")
    assert server.moves_seen == ["e2e4", "g1f3", "f1c4"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_challenge_accepted_as_black_the_opponent_leaves_and_the_win_is_claimed(rig, runtime):
    server, start, _ = rig
    board = start(runtime)
    board.expect(r"net: online")
    server.challenge("chal0001", False, ["d2d4"])
    board.expect(r"accepting the challenge of Opponent \(10\+5\)")
    board.expect(r"new: chal0001 white=False")
    board.expect(r"opponent: d2d4")
    board.send("move d7d5")
    wait_for(lambda: server.moves_seen == ["d7d5"])
    server.gone(True, 0)
    board.expect(r"Opponent has left: claiming the win")
    wait_for(lambda: ("POST", "/api/board/game/chal0001/claim-victory") in server.requests)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_stalled_stream_a_dropped_one_and_the_wifi_lost_and_back(rig, runtime):
    server, start, _ = rig
    server.add_game("game0002", True, ["e7e5", "b8c6", "g8f6"])
    board = start(runtime)
    board.expect(r"new: game0002")
    server.stall()
    board.expect(r"Lichess game stream lost \(no data for too long \(stalled\)\)", timeout=10)
    board.expect(r"back in step with Lichess")
    board.send("move e2e4")
    board.expect(r"opponent: e7e5")
    server.drop()
    board.expect(r"Lichess game stream lost")
    board.expect(r"back in step with Lichess")
    # The Wi-Fi goes; a move made meanwhile is kept and sent once the network is back.
    board.send("wifi off")
    board.expect(r"wifi: link off")
    board.send("move g1f3")
    time.sleep(1.0)
    assert server.moves_seen == ["e2e4"]
    board.send("wifi on")
    board.expect(r"opponent: b8c6", timeout=15)
    assert server.moves_seen == ["e2e4", "g1f3"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_429_waits_and_a_400_puts_the_move_back_with_the_reason(rig, runtime):
    server, start, _ = rig
    g = server.add_game("game0003", True, ["e7e5"])
    board = start(runtime)
    board.expect(r"new: game0003")
    server.too_many = 1
    board.send("move e2e4")
    board.expect(r"Lichess asks for a pause \(too many requests\): your move e2e4 goes in 1 s; your clock runs there")
    board.expect(r"waiting: e2e4")  # the board shows the move on its squares until Lichess has it
    board.expect(r"opponent: e7e5")
    assert server.moves_seen == ["e2e4"]
    with server.lock:
        g.board.push_uci("d2d4")  # Lichess's game moved on without the board: the next move is refused
    board.send("move g1f3")
    board.expect(r"put_back: g1f3 \(Not your turn, or an invalid move\)")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_certificate_that_does_not_verify_is_refused_and_nothing_is_sent(rig, runtime):
    server, start, other = rig
    board = start(runtime, roots=other["ca.pem"])
    board.expect(r"net: refused")
    board.expect(r"the certificate of localhost does not verify against the board's roots")
    time.sleep(0.3)
    assert server.requests == []  # not even the token's request


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_wrong_wifi_password_is_said(rig, runtime):
    server, start, _ = rig
    board = start(runtime, password="not-it")
    board.expect(r"wifi: wrong Wi-Fi password")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_server_restarted_mid_game(rig, runtime):
    server, start, _ = rig
    server.add_game("game0004", False, ["e2e4", "g1f3"])
    board = start(runtime)
    board.expect(r"new: game0004 white=False")
    board.expect(r"opponent: e2e4")
    server.restart(down_s=1.0)
    board.expect(r"Lichess game stream lost")
    board.expect(r"back in step with Lichess", timeout=20)
    board.send("move e7e5")
    board.expect(r"opponent: g1f3")
    assert server.moves_seen == ["e7e5"]


def test_dns_failing_is_said_and_tried_again():
    # No name service: the client says so and tries again later (the socket module stands in).
    import sys

    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from online.board_api import BoardApi

    class NoDns:
        @staticmethod
        def getaddrinfo(host, port):
            raise OSError(-2)

    clock = [0]
    api = BoardApi(NoDns, None, TOKEN, ticks_ms=lambda: clock[0], sleep_ms=lambda ms: None)
    assert api.step()
    (told,) = api.take()
    assert told[0] == "retry" and "cannot find lichess.org (DNS" in told[2]
    assert not api.step()  # backing off
    clock[0] += 600
    assert api.step() and api.take()[0][0] == "retry"
    assert TOKEN not in repr(api)


def test_the_clock_is_set_from_the_network_for_certificate_dates():
    # A local SNTP stand-in (UDP): the first server named cannot be found, the second answers.
    import socket as socket_module
    import struct
    import sys
    import threading

    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    from online import sntp

    import calendar

    now = calendar.timegm((2026, 12, 2, 0, 0, 0))
    server = socket_module.socket(socket_module.AF_INET, socket_module.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():
        data, peer = server.recvfrom(48)
        reply = bytearray(48)
        reply[0] = 0x24  # leap 0, version 4, mode 4 (server)
        reply[40:44] = struct.pack("!I", now + sntp.NTP_TO_UNIX_S)
        server.sendto(bytes(reply), peer)

    threading.Thread(target=answer, daemon=True).start()
    set_to = []
    got = sntp.set_clock(socket_module, set_to.append, servers=("no-such-host.invalid", "127.0.0.1"), port=port,
                          timeout_s=2)
    server.close()
    assert got == now
    assert set_to == [(2026, 12, 2, 2, 0, 0, 0, 0)]  # a Wednesday: weekday 2, as machine.RTC wants


def test_power_up_joins_the_wifi_shows_online_and_resumes_the_game(certs, tmp_path, monkeypatch):
    # online/boot.py as main.py runs it: the secrets file, the Wi-Fi (the stand-in network), the
    # roots file, the Board API on a second thread; an App on fakes polls the central.
    import shutil
    import sys

    for p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tools", "shims"), os.path.join(ROOT, "host_tests", "portable")):
        if p not in sys.path:
            sys.path.append(p)
    from core import signals as S
    from online import boot
    from test_link import Rig

    good, _ = certs
    server = FakeLichess(TOKEN, 0, tls=(good["server.pem"], good["server.key"])).start()
    server.add_game("boot0001", True, ["e7e5"])
    monkeypatch.chdir(tmp_path)
    os.makedirs("online")
    shutil.copy(good["ca.pem"], boot.ROOTS_PATH)
    with open("online.secret", "w") as f:
        f.write("ssid testnet\npassword testpass\ntoken %s\n" % TOKEN)
    rig = Rig()
    said = []
    central = boot.start(rig.app, said.append, host="localhost", port=server.port)
    assert central is not None
    centre = [27, 28, 35, 36]  # d4 e4 d5 e5: the network's sign (docs/lichess-wifi.md)
    signs = []
    step = Rig.run

    def run(ms=300):
        step(rig, ms)
        central.poll(rig.t)
        if rig.app.host_frame is not None:
            signs.append(sorted((sq, rig.app.host_frame[sq]) for sq in range(64) if rig.app.host_frame[sq]))

    rig.run = run  # the hands' moves step the online central too
    try:
        def run_until(condition, limit_ms=15000):
            for _ in range(limit_ms // 20):
                run(20)
                if condition():
                    return True
                time.sleep(0.01)
            return False

        assert run_until(lambda: any("Casual" in s for s in said)), said
        assert "Wi-Fi: online" in said and "online: online" in said
        assert signs[0] == [(27, S.REMOTE_MOVE), (36, S.REMOTE_MOVE)]  # joining
        assert [(sq, S.REMOTE_MOVE) for sq in centre] in signs  # online
        rig.play("e2e4")
        assert run_until(lambda: rig.game.uci_moves() == ["e2e4"] and server.moves_seen == ["e2e4"])
        assert run_until(lambda: any(rig.app.frame[sq] == S.REMOTE_MOVE for sq in range(64)))
        assert rig.app.host_frame is None  # the game's own LEDs once it began
    finally:
        central.session.api.stop()
        server.stop()
    assert TOKEN not in "\n".join(said)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_whole_firmware_plays_online_by_hand_and_resigns_with_the_kings(rig, runtime):
    # The board is the firmware itself here (App, referee, display on the virtual reed matrix, the
    # online central): hands lift and place, the opponent's moves are lit, the kings resign.
    server, start, _ = rig
    server.add_game("hand0001", True, ["g8f6", "b8c6"])
    board = start(runtime, board="app")
    board.expect(r"you play White")
    board.send("move g1f3")
    board.expect(r"lit: g8f6")
    assert server.moves_seen == ["g1f3"]
    board.send("move g8f6")  # the opponent's lit move, made by the player's hands
    board.send("move b1c3")
    board.expect(r"lit: b8c6")
    board.send("move b8c6")
    board.send("hands e1 d4 e8 e5")  # both kings on the dark centre squares: White resigns
    board.expect(r"resigning on Lichess")
    board.expect(r"game over: 0-1 \(resignation\)")
    assert server.moves_seen == ["g1f3", "b1c3"]
    assert ("POST", "/api/board/game/hand0001/resign") in server.requests


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_slow_taps_under_promote_to_a_knight_and_only_the_knight_goes_to_lichess(rig, runtime):
    # Issue 29 item 7: taps 0.9 s apart once sent b7a8b two seconds after the move, while the
    # player was still tapping. The board alone, by hand: the move captures on a8, three taps
    # (queen -> rook -> bishop -> knight) 0.9 s apart, and Lichess gets b7a8n once the board has
    # been still 2 s after the last one, nothing before.
    server, start, _ = rig
    server.add_game("prom0002", True, ["h8g7"], fen="r6k/1P5p/8/8/8/8/8/4K3 w - - 0 1")
    board = start(runtime, board="app")
    board.expect(r"you play White")
    # The hands set the position up from the start position the board stands in.
    keep = ("e1", "b7", "a8", "h8", "h7")  # a black pawn left: a bishop or knight can still mate
    board.send("hands " + " ".join(f + r for r in "1278" for f in "abcdefgh" if f + r not in keep) + " wait 500")
    board.expect(r"hands: done at")
    board.send("move b7a8")
    # Each tap: the piece up, 60 ms, down; 780 ms still: 0.9 s from one tap to the next.
    board.send("hands wait 780 a8 a8 wait 780 a8 a8 wait 780 a8 a8")
    board.expect(r"hands: done at")
    assert server.moves_seen == []  # nothing while the player tapped, nor in the 2 s since
    wait_for(lambda: server.moves_seen == ["b7a8n"])
    board.expect(r"lit: h8g7")
    assert server.moves_seen == ["b7a8n"]


def test_the_network_core_joins_again_after_a_failed_join_and_a_lost_wifi(certs, tmp_path, monkeypatch):
    # online/boot.py's network core never ends: the network absent at power-up is tried again,
    # and the Wi-Fi lost mid-session is said, joined again and said back (the stand-in network).
    import shutil
    import sys

    for p in (os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tools", "shims"), os.path.join(ROOT, "host_tests", "portable")):
        if p not in sys.path:
            sys.path.append(p)
    import network
    from online import boot
    from test_link import Rig

    good, _ = certs
    server = FakeLichess(TOKEN, 0, tls=(good["server.pem"], good["server.key"])).start()
    monkeypatch.chdir(tmp_path)
    os.makedirs("online")
    shutil.copy(good["ca.pem"], boot.ROOTS_PATH)
    with open("online.secret", "w") as f:
        f.write("ssid testnet\npassword testpass\ntoken %s\n" % TOKEN)
    network.set_networks({})  # the router is off at power-up
    rig = Rig()
    said = []
    central = boot.start(rig.app, said.append, host="localhost", port=server.port, retry_ms=(200,), lost_ms=300)

    def run_until(condition, limit_s=15):
        end = time.monotonic() + limit_s
        while time.monotonic() < end:
            rig.t += 20
            central.poll(rig.t)
            if condition():
                return True
            time.sleep(0.02)
        return False

    try:
        assert run_until(lambda: said.count("Wi-Fi: network not found") >= 2), said
        network.set_networks({"testnet": "testpass"})  # the router is up
        assert run_until(lambda: "signed in to Lichess as Tester" in said), said
        assert "Wi-Fi: online" in said
        n = len(said)
        network.set_link(False)  # the board carried out of range
        assert run_until(lambda: "Wi-Fi: lost" in said[n:]), said[n:]
        assert central.net_state == "offline"
        assert run_until(lambda: "Wi-Fi: network not found" in said[n:]), said[n:]
        server.add_game("back0001", True, ["e7e5"])  # a game begun meanwhile (on the website, say)
        network.set_link(True)
        assert run_until(lambda: "Wi-Fi: online" in said[n:] and any("Casual" in s for s in said[n:])), said[n:]
        assert central.net_state == "online"
    finally:
        central.session.api.stop()
        network.set_link(True)
        network.set_networks({"testnet": "testpass"})
        server.stop()
    assert TOKEN not in "\n".join(said)
