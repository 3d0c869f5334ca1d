# A club's boards on one broadcast round (tools/bench/broadcast_scale.py, `make bench-broadcast`),
# small: the same harness with four boards in one MicroPython unix-port process, a few plies each,
# every ply checked on the fake's round in order with its clock and no limit broken. The figures
# are the bench's (docs/figures.md); here nothing is timed, so a loaded machine only makes it slower.
# And the fake's round queue, lila's 32 waiting pushes, on its own.
import http.client
import os
import ssl
import sys
import threading
import time

import pytest

import tls_certs
from fake_broadcast import FakeBroadcast, RoundQueue

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "bench"))

import broadcast_scale  # noqa: E402


def test_four_boards_in_one_process_put_every_ply_on_the_round_in_order_with_its_clock():
    if not os.path.exists(broadcast_scale.MICROPYTHON):
        pytest.skip("NO MICROPYTHON: .venv/bin/micropython is missing (make setup installs it)")
    said = []
    problems, figures = broadcast_scale.run(n_boards=4, per_process=4, plies=6, think_ms=(300, 800), heap="16m",
                                            limit_s=240, say=said.append)
    assert problems == [], "\n".join(problems)
    assert figures["plies"] == 24 and figures["violations"] == 0
    assert figures["statuses"].get(429, 0) == 0 and set(figures["statuses"]) == {200}


def test_the_round_queue_refuses_the_33rd_push_waiting_as_lila_does(tmp_path):
    certs = tls_certs.make(tmp_path / "tls")
    tokens = {"lip_queue_%02d" % i: {"study:write"} for i in range(RoundQueue.WAITING_MAX + 2)}
    server = FakeBroadcast(tokens, (certs["server.pem"], certs["server.key"])).start()
    server.add_round("Queue001")
    server.hold = threading.Event()  # the first push's work waits till every push has arrived
    queue = server.queue("Queue001")
    ctx = ssl.create_default_context(cafile=str(certs["ca.pem"]))
    statuses = []

    def push(tok, board):
        pgn = '[White "W%d"]\n[Black "B%d"]\n[Board "%d"]\n\n1. e4 *\n' % (board, board, board)
        conn = http.client.HTTPSConnection("localhost", server.port, context=ctx, timeout=120)
        conn.request("POST", "/api/broadcast/round/Queue001/push", pgn.encode(),
                     {"Authorization": "Bearer " + tok, "Content-Type": "text/plain"})
        statuses.append(conn.getresponse().status)
        conn.close()

    threads = [threading.Thread(target=push, args=(tok, i)) for i, tok in enumerate(tokens)]
    try:
        for t in threads:
            t.start()
        end = time.monotonic() + 60
        while queue.count + queue.refused < len(tokens) and time.monotonic() < end:
            time.sleep(0.05)
        server.hold.set()
        for t in threads:
            t.join(90)
    finally:
        server.stop()
    # one worked, 32 waiting behind it, the 34th refused: each token alone, so no 429
    assert sorted(statuses) == [200] * (RoundQueue.WAITING_MAX + 1) + [500]
    assert queue.refused == 1 and queue.deepest == RoundQueue.WAITING_MAX and server.violations == []
