# `tools/play.py broadcast`: a PC pushing the games of two simulated boards (tools/sim_terminal.py,
# each on a pseudo-terminal) to the project's stand-in for Lichess's broadcast push API over real
# TLS (helpers/fake_broadcast.py, a CA made here and trusted through SSL_CERT_FILE), with scripted
# hands. Lichess's minute after a 429 is 1.5 s here (--rate-limit-wait); the fake counts a request
# inside it as a violation.
import os

import chess

import tls_certs
from companion_rig import Companion, SimBoard, dump
from fake_broadcast import FakeBroadcast

TOKEN = "lip_pc_broadcast_token_never_printed"
ROUND = "Club0001"
LIMIT_S = 1.5


def test_two_boards_pushed_together_through_a_429_a_5xx_and_an_unplugged_board(tmp_path):
    certs = tls_certs.make(tmp_path / "tls")
    server = FakeBroadcast({TOKEN: {"study:write"}}, (certs["server.pem"], certs["server.key"]),
                           rate_limit_s=LIMIT_S).start()
    server.add_round(ROUND)
    (tmp_path / "token").write_text(TOKEN + "\n")
    (tmp_path / "names").write_text("# board: White - Black\n1: Ada Lovelace - Alan Turing\n2: Grace Hopper - Claude Shannon\n")
    parts = []
    try:
        links = [str(tmp_path / "board1"), str(tmp_path / "board2")]
        sims = [SimBoard(link) for link in links]
        parts += sims
        for sim in sims:
            sim.send("clock 5+3")
        env = dict(os.environ, SSL_CERT_FILE=str(certs["ca.pem"]))
        comp = Companion("broadcast", "--round", ROUND, "--server", "https://localhost:%d" % server.port,
                         "--token-file", str(tmp_path / "token"), "--names", str(tmp_path / "names"),
                         "--event", "Club night", "--round-tag", "4", "--port", links[0], "--port", links[1],
                         "--rate-limit-wait", str(LIMIT_S), env=env)
        parts.append(comp)
        comp.expect(r"board 1: .*board1 \(Ada Lovelace - Alan Turing\)")
        # both boards on the round before a move, in one push
        comp.expect(r"pushed: board 1 0 moves, board 2 0 moves")
        boards = [chess.Board(), chess.Board()]

        def play(i, uci):
            move = chess.Move.from_uci(uci)
            sims[i].play(boards[i], move)
            boards[i].push(move)

        def on_round(i):
            g = server.game(ROUND, Board=str(i + 1))
            return len(g.moves) if g else -1

        def wait_for(condition, timeout=15):
            import time

            end = time.monotonic() + timeout
            while not condition():
                assert time.monotonic() < end, "timed out:\n" + comp.text()[-2000:]
                time.sleep(0.05)

        play(0, "e2e4")
        wait_for(lambda: on_round(0) == 1)
        server.too_many = 1  # the next push is answered 429: the one after waits the whole pause
        play(1, "d2d4")
        comp.expect(r"Lichess asked for a pause \(HTTP 429\)")
        play(0, "e7e5")
        play(1, "d7d5")
        comp.expect(r"pushed: board 1 2 moves, board 2 2 moves")  # both, made during the pause, together
        server.fail = 1
        play(0, "g1f3")
        comp.expect(r"push failed \(an answer that is not Lichess's \(HTTP 503\)\)")
        wait_for(lambda: on_round(0) == 3)
        # board 2 unplugged: its game stays on the round; board 1 plays on
        sims[1].stop()
        comp.expect(r"board 2: unplugged")
        play(0, "b8c6")
        wait_for(lambda: on_round(0) == 4)
        assert on_round(1) == 2

        g1, g2 = server.game(ROUND, Board="1"), server.game(ROUND, Board="2")
        assert g1.moves == ["e4", "e5", "Nf3", "Nc6"] and g2.moves == ["d4", "d5"]
        assert (g1.tags["White"], g1.tags["Black"], g1.tags["Event"], g1.tags["Round"]) == (
            "Ada Lovelace", "Alan Turing", "Club night", "4")
        assert g2.tags["White"] == "Grace Hopper" and g1.tags["TimeControl"] == "300+3"
        assert None not in g1.clocks and None not in g2.clocks and g1.clocks[0] <= 300  # the board's clock
        assert {r[3] for r in server.requests} == {"electronic-chessboard-companion/1 (broadcast; tools/play.py)"}
        assert max(r[2] for r in server.requests) == 2  # two games a push
        assert server.violations == []
        assert len(server.games(ROUND)) == 2
    finally:
        for p in reversed(parts):
            p.stop()
        server.stop()
        text = dump(*parts)
        print(text)
        assert TOKEN not in text


def test_a_round_with_a_source_or_a_token_without_the_scope_ends_it_with_the_reason(tmp_path):
    certs = tls_certs.make(tmp_path / "tls")
    server = FakeBroadcast({TOKEN: {"study:write"}, "lip_play_only": {"board:play"}},
                           (certs["server.pem"], certs["server.key"])).start()
    server.add_round("Srcround", source="https://example.com/live.pgn")
    server.add_round(ROUND)
    parts = []
    try:
        link = str(tmp_path / "board")
        parts.append(SimBoard(link))
        env = dict(os.environ, SSL_CERT_FILE=str(certs["ca.pem"]))
        for round_id, token, said in (("Srcround", TOKEN, r"it has a source URL"),
                                      (ROUND, "lip_play_only", r"refused the broadcast token \(403.*study:write")):
            (tmp_path / "token").write_text(token)
            comp = Companion("broadcast", "--round", round_id, "--server", "https://localhost:%d" % server.port,
                             "--token-file", str(tmp_path / "token"), "--port", link, env=env)
            parts.append(comp)
            comp.expect("broadcast stopped: .*" + said)
            assert comp.proc.wait(5) == 1
        bad = Companion("broadcast", "--round", "https://lichess.org/broadcast/x/y/z", "--port", link, env=env)
        parts.append(bad)
        bad.expect(r"--round wants the round's id")
        assert bad.proc.wait(5) == 2
    finally:
        for p in reversed(parts):
            p.stop()
        server.stop()
        print(dump(*parts))
