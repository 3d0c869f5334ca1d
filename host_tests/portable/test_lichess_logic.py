# online/lichess_game.py: what the board and the companion do on each Lichess event. Each defect the
# companion had (issue 23) has its test here, on the shared logic, so neither side carries it.
# Then the board's own client's parts that need no network (online/wifi.py, https.py, board_api.py,
# play.py), with stand-ins for the radio, the sockets and the clock, so they run on MicroPython too.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
import gc

from heap import can_count_bytes
from online import lichess_game as lg
from online import wifi
from online.board_api import BoardApi
from online.https import Connection, HttpError
from online.play import Session

TOKEN = "lip_never_told"
TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms wraps here (12.4 days on the Pico)


def full(gid="g1", me_white=True, moves="", status="started", **state):
    me = {"id": "tester", "name": "Tester", "rating": 1500}
    them = {"id": "opponent", "name": "Opponent", "rating": 1600}
    st = {"type": "gameState", "moves": moves, "wtime": 600000, "btime": 600000, "status": status}
    st.update(state)
    return {"type": "gameFull", "id": gid, "rated": False, "speed": "rapid", "perf": {"name": "Rapid"},
            "clock": {"initial": 600000, "increment": 0}, "initialFen": "startpos",
            "white": me if me_white else them, "black": them if me_white else me, "state": st}


def state(moves, status="started", **kw):
    st = {"type": "gameState", "moves": moves, "wtime": 1, "btime": 2, "status": status}
    st.update(kw)
    return st


def kinds(actions):
    return [a[0] for a in actions if a[0] not in (lg.SAY, lg.CLOCKS)]


def find(actions, kind):
    return [a for a in actions if a[0] == kind]


def started(me_white=True, moves=""):
    g = lg.LichessGame("Tester")
    out = g.game_event(full(me_white=me_white, moves=moves))
    return g, out


def test_a_new_game_then_the_opponents_move_lit():
    g, out = started(me_white=False, moves="e2e4")
    assert kinds(out) == [lg.NEW, lg.OPPONENT]
    info = find(out, lg.NEW)[0][1]
    assert info["white"] is False and info["white_name"] == "Opponent" and info["initial"] == 600000
    assert find(out, lg.OPPONENT) == [(lg.OPPONENT, "e2e4")]
    assert g.my_turn()


def test_the_players_move_is_posted_and_kept_while_the_network_is_away():
    g, _ = started()
    assert find(g.player_moved("e2e4"), lg.POST) == [(lg.POST, "make_move", ("g1", "e2e4"))]
    # The stream comes back (gameFull) before the move reached Lichess: the move is not undone.
    out = g.game_event(full(moves=""))
    assert kinds(out) == [] and g.moves == ["e2e4"] and g.sent == "e2e4"
    out = g.game_event(state("e2e4"))
    assert kinds(out) == [] and g.sent is None
    out = g.game_event(state("e2e4 e7e5"))
    assert find(out, lg.OPPONENT) == [(lg.OPPONENT, "e7e5")]


def test_a_refused_move_is_put_back_with_lichess_reason():
    g, _ = started()
    g.player_moved("e2e4")
    reason = lg.refusal(400, b'{"error":"Piece on e2 cannot move to e4"}')
    assert reason == "Piece on e2 cannot move to e4"
    out = g.refused("make_move", ("g1", "e2e4"), reason)
    assert find(out, lg.PUT_BACK) == [(lg.PUT_BACK, "e2e4", reason)]
    assert g.moves == [] and "Piece on e2" in find(out, lg.SAY)[0][1]
    assert lg.refusal(400, "") == "HTTP 400"


def test_a_draw_offered_on_the_players_turn_and_declined_is_answered():
    # The defect: the board's draw_offer was never answered, and it read no further move.
    g, _ = started(moves="e2e4 e7e5")
    out = g.player_offers_draw()
    assert find(out, lg.POST) == [(lg.POST, "offer_draw", ("g1",))] and kinds(out) == [lg.POST]
    assert kinds(g.game_event(state("e2e4 e7e5", wdraw=True))) == []  # Lichess shows the offer standing
    out = g.game_event(state("e2e4 e7e5"))  # ... then gone: declined
    assert find(out, lg.ANSWER) == [(lg.ANSWER, False)]
    assert "declines" in find(out, lg.SAY)[0][1]
    assert not g.draw_from_board


def test_a_draw_offer_answered_by_a_move_or_accepted():
    g, _ = started(moves="e2e4")  # Black to move: the opponent's turn
    g.player_offers_draw()
    out = g.game_event(state("e2e4 e7e5"))
    assert kinds(out) == [lg.ANSWER, lg.OPPONENT] and out[1] == (lg.ANSWER, False)
    g.player_offers_draw()
    out = g.game_event(state("e2e4 e7e5", status="draw"))
    assert find(out, lg.ANSWER) == [(lg.ANSWER, True)]
    assert find(out, lg.END) == [(lg.END, "1/2-1/2", "agreement or a rule", "draw")]


def test_the_opponents_draw_offer_shown_and_accepted_with_the_kings_sign():
    g, _ = started(moves="e2e4 e7e5")
    out = g.game_event(state("e2e4 e7e5", bdraw=True))
    assert find(out, lg.OFFERED) == [(lg.OFFERED, True)]
    out = g.player_offers_draw()
    assert (lg.ANSWER, True) in out and (lg.POST, "accept_draw", ("g1",)) in out
    # An offer declined by a move: Lichess clears it, the board stops showing it.
    g, _ = started(moves="e2e4 e7e5")
    g.game_event(state("e2e4 e7e5", bdraw=True))
    assert (lg.OFFERED, False) in g.player_moved("g1f3")


def test_a_second_game_is_a_new_game_not_a_resync():
    g, _ = started()
    g.game_event(state("", status="resign", winner="black"))
    assert g.over == ("0-1", "resignation", "resign")
    assert find(g.account_event({"type": "gameStart", "game": {"gameId": "g2"}}), lg.OPEN) == [(lg.OPEN, "g2")]
    out = g.game_event(full(gid="g2"))
    assert kinds(out) == [lg.NEW] and g.over is None and g.game_id == "g2"
    # The same game's stream reopened: back in step, no new game.
    out = g.game_event(full(gid="g2"))
    assert kinds(out) == [] and find(out, lg.SAY)[0][1] == "back in step with Lichess"


def test_every_end_status_has_a_result_and_words():
    for status, winner, result in (("mate", "white", "1-0"), ("resign", "black", "0-1"), ("stalemate", None, "1/2-1/2"),
                                   ("outoftime", "black", "0-1"), ("draw", None, "1/2-1/2"), ("aborted", None, "*"),
                                   ("noStart", "white", "*"), ("insufficientMaterialClaim", None, "1/2-1/2"),
                                   ("cheat", "white", "1-0"), ("variantEnd", "black", "0-1"),
                                   ("unknownFinish", None, "1/2-1/2")):
        g, _ = started()
        out = g.game_event(state("", status=status, winner=winner) if winner else state("", status=status))
        (end,) = find(out, lg.END)
        assert end[1] == result and end[2] and end[3], (status, end)
    assert lg.LichessGame("x").game_event  # the class builds with no game


def test_timeout_says_who_left():
    g, _ = started()
    assert find(g.game_event(state("", status="timeout", winner="white")), lg.END)[0][2] == "your opponent left the game"
    g, _ = started()
    assert find(g.game_event(state("", status="timeout", winner="black")), lg.END)[0][2] == "you left the game"


def test_opponent_gone_then_the_win_claimed_by_the_board():
    g = lg.LichessGame("tester", auto_claim=True)
    g.game_event(full())
    out = g.game_event({"type": "opponentGone", "gone": True, "claimWinInSeconds": 10}, now=1000)
    assert "the win can be claimed in 10 s" in out[0][1]
    assert g.tick(5000) == ()
    assert find(g.tick(11000), lg.POST) == [(lg.POST, "claim_victory", ("g1",))]
    assert g.tick(12000) == ()  # claimed once
    g.game_event({"type": "opponentGone", "gone": False})
    assert g.claim_at is None


def test_challenges_accepted_by_policy_and_variants_declined():
    ch = {"type": "challenge", "challenge": {"id": "c1", "challenger": {"name": "Friend"}, "variant": {"key": "standard"},
                                             "timeControl": {"type": "clock", "limit": 600, "increment": 5}}}
    assert find(lg.LichessGame("me", accept="friend").account_event(ch), lg.POST) == [(lg.POST, "accept", ("c1",))]
    assert find(lg.LichessGame("me").account_event(ch), lg.POST) == []
    ch["challenge"]["variant"] = {"key": "chess960"}
    assert find(lg.LichessGame("me", accept="").account_event(ch), lg.POST) == [(lg.POST, "decline", ("c1",))]


def test_takeback_asked_is_declined_and_said():
    g, _ = started(moves="e2e4 e7e5")
    out = g.game_event(state("e2e4 e7e5", btakeback=True))
    assert (lg.POST, "decline_takeback", ("g1",)) in out


def test_seeks_rapid_or_slower_only():
    assert lg.parse_seek("10+0") == (10, 0) and lg.parse_seek("15+10") == (15, 10)
    for bad in ("3+2", "5+0", "x", "10", "10+-1", "7.5+3", "10+2.5"):
        try:
            lg.parse_seek(bad)
        except ValueError as e:
            assert str(e)
        else:
            raise AssertionError("accepted " + bad)


def test_a_variant_game_is_refused_with_words_and_its_stream_ignored():
    g = lg.LichessGame("Tester")
    ev = full(moves="e2e4 d7d5 e4d5 d8d5 P@e4")
    ev["variant"] = {"key": "crazyhouse", "name": "Crazyhouse"}
    out = g.game_event(ev)
    assert kinds(out) == [] and "Crazyhouse: only standard chess" in find(out, lg.SAY)[0][1]
    assert not g.playing() and g.game_event(state("e2e4 d7d5 e4d5 d8d5 P@e4 d5e4")) == []
    assert find(g.account_event({"type": "gameStart", "game": {"gameId": "g2"}}), lg.OPEN) == [(lg.OPEN, "g2")]
    for key in ("standard", "fromPosition"):
        ev = full(gid="g3")
        ev["variant"] = {"key": key}
        assert kinds(lg.LichessGame("Tester").game_event(ev)) == [lg.NEW]


# ---------------------------------------------------------------------- the board's client, offline


class Radio:
    """MicroPython's `network` as the Pico W's driver answers: WLAN.status() goes 1 (joining),
    2 (joined, waiting for an address by DHCP), 3 (STAT_GOT_IP)."""
    STA_IF = 0
    STAT_IDLE = 0
    STAT_CONNECTING = 1
    STAT_GOT_IP = 3
    STAT_CONNECT_FAIL = -1
    STAT_NO_AP_FOUND = -2
    STAT_WRONG_PASSWORD = -3
    statuses = []

    class WLAN:
        def __init__(self, interface):
            pass

        def active(self, *on):
            return True

        def connect(self, ssid, key=None):
            pass

        def status(self):
            seq = Radio.statuses
            return seq.pop(0) if len(seq) > 1 else seq[0]


def test_joining_waits_through_the_dhcp_step_of_the_pico_w():
    Radio.statuses = [1, 1, 2, 2, 2, 3]
    t = [0]

    def sleep(ms):
        t[0] += ms

    wlan, st = wifi.join(Radio, "net", "pw", lambda: t[0], sleep)
    assert st == wifi.CONNECTED and Radio.statuses == [3]
    Radio.statuses = [1, 2, -3]
    assert wifi.join(Radio, "net", "pw", lambda: t[0], sleep)[1] == wifi.WRONG_PASSWORD


class Raw:
    def settimeout(self, t):
        pass

    def connect(self, addr):
        pass

    def close(self):
        pass


class Net:
    """The socket module: getaddrinfo and socket() may fail as lwIP's do."""

    def __init__(self, dns_error=None, socket_error=None):
        self.dns_error = dns_error
        self.socket_error = socket_error
        self.lookups = 0

    def getaddrinfo(self, host, port):
        self.lookups += 1
        if self.dns_error is not None:
            raise self.dns_error
        return [(0, 0, 0, "", ("127.0.0.1", port))]

    def socket(self):
        if self.socket_error is not None:
            raise self.socket_error
        return Raw()


class Tls:
    """A TLS socket that sends the head and part of a body, then only read timeouts."""

    def __init__(self, head):
        self.chunks = [head]
        self.reads = 0

    def write(self, data):
        return len(data)

    def recv(self, n):
        self.reads += 1
        if self.chunks:
            return self.chunks.pop(0)
        if self.reads > 50:
            raise RuntimeError("read on and on after the timeouts")
        raise OSError(110)  # ETIMEDOUT: the socket's timeout, nothing came

    def close(self):
        pass


class Ctx:
    def __init__(self, tls):
        self.tls = tls

    def wrap_socket(self, raw, server_hostname=None):
        return self.tls


def test_an_answer_that_stalls_mid_body_is_an_error_not_a_wait_for_ever():
    tls = Tls(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"ok\":")
    resp = Connection(Net(), Ctx(tls), "lichess.org").request("POST", "/api/board/game/g1/move/e2e4", {})
    try:
        resp.read_all()
    except HttpError as e:
        assert "stalled" in str(e), str(e)
    else:
        raise AssertionError("read_all returned")
    assert tls.reads == 2  # given up at the first read that timed out


def test_answers_that_are_not_http_are_http_errors():
    for head in (b"HTTP/1.1 abc OK\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n"):
        try:
            Connection(Net(), Ctx(Tls(head)), "lichess.org").request("GET", "/api/account", {})
        except HttpError:
            pass
        else:
            raise AssertionError("taken for an answer: %r" % head)


def test_no_socket_left_is_a_retry_not_an_error_out_of_the_network_core():
    api = BoardApi(Net(socket_error=OSError(12)), Ctx(None), TOKEN, ticks_ms=lambda: 0, sleep_ms=lambda ms: None)
    assert api.step()
    told = api.take()
    assert told[0][0] == "retry" and "error 12" in told[0][2], told


def test_an_unexpected_error_is_told_and_the_network_core_carries_on():
    slept = []
    api = BoardApi(Net(dns_error=MemoryError("a long answer " + TOKEN)), None, TOKEN, ticks_ms=lambda: 0,
                   sleep_ms=slept.append)

    def sleep(ms):
        slept.append(ms)
        if len(slept) >= 6:
            api.stop()

    api.sleep_ms = sleep
    assert api.run() is False  # ended by stop() only
    told = api.take()
    assert len(told) >= 2 and told[0][:2] == ("down", "connection"), told
    assert "MemoryError" in told[0][2] and TOKEN not in str(told)
    assert 500 in slept and 1000 in slept  # backing off


def test_reconnecting_and_posts_go_on_across_the_ticks_wrap():
    # ticks_ms wraps at 2**30 ms: a stream lost 100 ms before the wrap is opened again 500 ms
    # later, a post sent again after its back-off, a 429's minute ends: not in 12 days.
    t = [TICKS_PERIOD - 100]
    net = Net(dns_error=OSError(-2))
    api = BoardApi(net, None, TOKEN, ticks_ms=lambda: t[0] % TICKS_PERIOD, sleep_ms=lambda ms: None)
    api.me = "tester"
    api.post("make_move", ("g1", "e2e4"))
    assert api.step()
    tries = net.lookups
    assert tries == 2  # the post and the event stream, both failed
    for _ in range(2000):  # two seconds, 1 ms a turn, across the wrap
        t[0] += 1
        api.step()
    assert net.lookups >= tries + 2, net.lookups
    assert api.posts == [("make_move", ("g1", "e2e4"))]  # kept until Lichess answers


def test_a_post_is_read_under_the_lock():
    class Lock:
        held = False

        def __enter__(self):
            Lock.held = True

        def __exit__(self, *exc):
            Lock.held = False

    class Posts:
        def __init__(self):
            self.items = []

        def __len__(self):
            return len(self.items)

        def __bool__(self):
            return bool(self.items)

        def __getitem__(self, i):
            assert Lock.held, "a post read without the lock while core 0 appends"
            return self.items[i]

        def append(self, item):
            self.items.append(item)

        def pop(self, i):
            return self.items.pop(i)

        def insert(self, i, item):
            self.items.insert(i, item)

    net = Net(dns_error=OSError(-2))
    api = BoardApi(net, None, TOKEN, ticks_ms=lambda: 0, sleep_ms=lambda ms: None, lock=Lock())
    api.me = "tester"
    api.posts = Posts()
    api.post("resign_game", ("g1",))
    api.step()
    assert net.lookups >= 1 and len(api.posts) == 1


class Quiet:
    def say(self, text):
        pass

    def net(self, state):
        pass


def test_the_idle_online_poll_allocates_nothing():
    api = BoardApi(None, None, TOKEN, ticks_ms=lambda: 0, sleep_ms=lambda ms: None)
    session = Session(api, Quiet())
    for i in range(10):
        session.poll(i)
    assert api.take() == () and session.logic.tick(0) == ()
    if not can_count_bytes():
        return  # only the MicroPython unix port counts the bytes (heap.py)
    gc.collect()
    before = gc.mem_alloc()
    for i in range(100):
        session.poll(1000 + i)
    assert gc.mem_alloc() - before == 0, gc.mem_alloc() - before
