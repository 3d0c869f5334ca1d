# online/lichess_game.py: what the board and the companion do on each Lichess event. Each defect the
# companion had (issue 23) has its test here, on the shared logic, so neither side carries it.
#
# Plain asserts only: runs under pytest, MicroPython unix and WebAssembly (host_tests/helpers/run_portable.py).
from online import lichess_game as lg


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
    for bad in ("3+2", "5+0", "x", "10", "10+-1"):
        try:
            lg.parse_seek(bad)
        except ValueError as e:
            assert str(e)
        else:
            raise AssertionError("accepted " + bad)
