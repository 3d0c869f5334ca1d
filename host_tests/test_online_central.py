# The board's online game on the board (firmware/online/central.py + play.py): Lichess's events go
# through the shared logic to an App on fakes (the referee, the LEDs, the switch matrix), the hands
# play on the virtual reed matrix, and what would go to Lichess is checked. The network is replaced
# by a recorder with the client's interface (its own tests: test_online_board.py).
from core import signals as S
from core.position import parse_square
from online.central import PROMOTION_WAIT_MS, OnlineCentral
from online.play import Session
from test_link import Rig, frame_squares


class Api:
    """BoardApi's interface, recording: the test puts Lichess's lines in, reads the posts."""

    def __init__(self):
        self.inbox = [("me", "Tester"), ("up", "events")]
        self.posts = []
        self.watched = []

    def take(self):
        out, self.inbox = self.inbox, []
        return out

    def post(self, what, args):
        self.posts.append((what,) + tuple(args))

    def watch_game(self, gid):
        self.watched.append(gid)
        return len(self.watched)

    def seek(self, minutes, inc, rated=False):
        self.posts.append(("seek", minutes, inc))


def full(gid, white, moves="", **state):
    me, them = {"id": "tester", "name": "Tester"}, {"id": "opp", "name": "Opp"}
    st = {"type": "gameState", "moves": moves, "wtime": 600000, "btime": 600000, "status": "started"}
    st.update(state)
    return {"type": "gameFull", "id": gid, "white": me if white else them, "black": them if white else me,
            "initialFen": "startpos", "clock": {"initial": 600000, "increment": 0}, "state": st}


def state(moves, **kw):
    st = {"type": "gameState", "moves": moves, "wtime": 599000, "btime": 598000, "status": "started"}
    st.update(kw)
    return st


class Online:
    def __init__(self, **rig_kw):
        self.rig = Rig(**rig_kw)
        self.said = []
        self.central = OnlineCentral(self.rig.app, self.said.append)
        self.api = Api()
        self.central.session = Session(self.api, self.central)
        self.gen = None

    def run(self, ms=300):
        rig = self.rig
        for _ in range(ms // 5):
            rig.t += 5
            rig.vm.now_ms = rig.t
            rig.app.step(rig.t)
            rig.link.poll(rig.t)
            self.central.poll(rig.t)

    def lichess(self, ev):
        if ev.get("type") in ("gameFull", "gameState", "chatLine", "opponentGone"):
            self.api.inbox.append(("game", len(self.api.watched), ev))
        else:
            self.api.inbox.append(("event", ev))
        self.run(100)

    def play(self, uci):
        self.rig.run = self.run  # the hands' moves step the online central too
        self.rig.play(uci)


def test_a_game_as_white_the_opponents_move_lit_then_made_a_resignation_by_the_kings():
    o = Online()
    o.run(100)
    o.lichess({"type": "gameStart", "game": {"gameId": "g1"}})
    assert o.api.watched == ["g1"]
    o.lichess(full("g1", True))
    o.play("g1f3")
    assert o.api.posts == [("make_move", "g1", "g1f3")]
    o.lichess(state("g1f3"))
    o.lichess(state("g1f3 g8f6"))
    # The opponent's move is lit (from and to) until made on the board.
    assert frame_squares(o.rig, S.REMOTE_MOVE) == [parse_square("f6"), parse_square("g8")]
    o.play("g8f6")
    assert o.rig.game.uci_moves() == ["g1f3", "g8f6"]
    o.play("b1c3")
    assert o.api.posts[-1] == ("make_move", "g1", "b1c3")
    o.lichess(state("g1f3 g8f6 b1c3"))
    o.lichess(state("g1f3 g8f6 b1c3 b8c6"))
    o.play("b8c6")
    # The player offers a draw with the kings (one light, one dark centre square); Lichess shows
    # it, the opponent declines: the board is told, and the kings go home.
    o.rig.lift("e1")
    o.rig.place("d4")
    o.rig.lift("e8")
    o.rig.place("d5", ms=800)
    o.run(100)
    assert o.api.posts[-1] == ("offer_draw", "g1")
    o.lichess(state("g1f3 g8f6 b1c3 b8c6", wdraw=True))
    o.lichess(state("g1f3 g8f6 b1c3 b8c6"))
    assert o.rig.game.result == "*"
    o.rig.lift("d4")
    o.rig.place("e1")
    o.rig.lift("d5")
    o.rig.place("e8", ms=400)
    # Resignation: the kings on the dark centre squares.
    o.rig.lift("e1")
    o.rig.place("d4")
    o.rig.lift("e8")
    o.rig.place("e5", ms=800)
    o.run(100)
    assert ("resign_game", "g1") in o.api.posts, (o.api.posts, o.said)
    o.lichess(state("g1f3 g8f6 b1c3 b8c6", status="resign", winner="black"))
    assert o.rig.game.is_over()
    assert any("game over: 0-1" in s for s in o.said)


def test_a_promotion_piece_chosen_by_taps_on_the_board_goes_to_lichess():
    # Issue 23: the companion flipped a tapped piece back to a queen. On the board's own online
    # game the taps choose: the move goes out once the board has been still PROMOTION_WAIT_MS.
    fen = "7k/P7/8/8/8/8/8/4K3 w - - 0 1"
    o = Online(occupied=[parse_square(s) for s in ("e1", "a7", "h8")])
    o.run(100)
    ev = full("p1", True)
    ev["initialFen"] = fen
    o.lichess({"type": "gameStart", "game": {"gameId": "p1"}})
    o.lichess(ev)
    o.play("a7a8")
    assert o.api.posts == []  # not yet: the player may still tap
    o.rig.lift("a8", ms=40)
    o.rig.place("a8", ms=300)
    o.rig.lift("a8", ms=40)
    o.rig.place("a8", ms=300)
    chosen = o.rig.game.uci_moves()[-1]
    o.run(PROMOTION_WAIT_MS + 100)
    assert o.api.posts == [("make_move", "p1", chosen)]
    assert chosen in ("a7a8r", "a7a8b", "a7a8n") and o.rig.game.uci_moves() == [chosen]
