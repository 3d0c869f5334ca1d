"""The display policy: what each square says in each situation of docs/spec.md section 4 (frames asserted
square by square, driven through the real referee)."""
from core import signals as S
from core.display import Display
from core.game import Game
from core.position import parse_square
from core.referee import Referee
from transcript import Board, parse


def sq(name):
    return parse_square(name)


def frame_after(text, fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", mode="strict", until=None):
    f, m, events = parse(text, fen, mode)
    board = Board(f, m)
    for t, occupied, square in events:
        board.scan_until(t)
        board.apply(occupied, square)
    board.scan_until(until or (events[-1][0] + 3000 if events else 3000))
    return board.frame, board


def lit(frame):
    return {S.name(frame[i]): sorted(j for j in range(64) if frame[j] == frame[i]) for i in range(64) if frame[i]}


def test_lifted_piece_shows_its_destinations_quiet_and_captures_apart():
    fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    frame, _ = frame_after("1000 lift e4", fen=fen, until=1100)
    assert frame[sq("e4")] == S.LIFTED
    assert frame[sq("e5")] == S.QUIET
    assert frame[sq("d5")] == S.CAPTURE
    assert sum(1 for v in frame if v in (S.QUIET, S.CAPTURE)) == 2


def test_victim_first_shows_who_can_take_it():
    fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    frame, _ = frame_after("1000 lift d5", fen=fen, until=1100)
    assert frame[sq("d5")] == S.LIFTED
    assert frame[sq("e4")] == S.CAPTURE


def test_castling_half_done_shows_the_rook_to_move():
    frame, _ = frame_after("1000 lift e1\n1300 place g1", fen="r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", until=1400)
    assert frame[sq("h1")] == S.LIFTED and frame[sq("f1")] == S.QUIET


def test_check_checkmate_and_stalemate():
    frame, _ = frame_after("1000 lift d8\n1300 place h4", fen="rnbqkbnr/pppp1ppp/8/4p3/5P2/8/PPPPP1PP/RNBQKBNR b KQkq - 0 2")
    assert frame[sq("e1")] == S.CHECK
    frame, board = frame_after("1000 lift d8\n1300 place h4", fen="rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2")
    assert board.referee.game.reason == "checkmate"
    assert frame[sq("e1")] == S.MATED_KING and frame[sq("h4")] == S.MATING_PIECE
    frame, _ = frame_after("1000 lift b6\n1300 place c7", fen="k7/8/1Q6/8/8/8/8/7K w - - 0 1")
    assert frame[sq("a8")] == S.STALEMATE and frame[sq("h1")] == S.STALEMATE


def test_draws_and_resignation_have_their_own_signals():
    # Kxb3 leaves a lone knight: no mating material (a game given over from the start stays over).
    frame, _ = frame_after("1000 lift a2\n1200 lift b3\n1500 place b3", fen="8/8/8/4k3/8/1n6/K7/7n w - - 0 1")
    assert frame[sq("b3")] == S.DRAW and frame[sq("e5")] == S.DRAW
    frame, board = frame_after("1000 lift e1\n1100 lift e8\n1600 place d5\n1700 place e4", fen="r3k3/8/8/8/8/8/8/4K2R w - - 0 1")
    assert board.referee.game.result == "1-0"
    assert frame[sq("e8")] == S.RESIGNED


def test_illegal_move_and_where_the_piece_must_go():
    frame, _ = frame_after("1000 lift e2\n1300 place e5", until=2000)
    assert frame[sq("e5")] == S.ILLEGAL
    assert frame[sq("e2")] == S.PLACE_HERE


def test_knocked_pieces_guided_back():
    frame, _ = frame_after("1000 lift e2\n1300 place e4\n2000 lift b1\n2200 place c3", until=3000)
    assert frame[sq("b1")] == S.PLACE_HERE and frame[sq("c3")] == S.REMOVE


def test_touch_move_marks_the_piece_that_must_move():
    frame, _ = frame_after("1000 lift g1\n1500 place g1", until=1700)
    assert frame[sq("g1")] == S.TOUCHED
    # ... and while another piece is up, that piece shows no destinations
    frame, _ = frame_after("1000 lift g1\n1500 place g1\n2000 lift e2", until=2100)
    assert frame[sq("e2")] == S.LIFTED and frame[sq("e3")] == S.OFF and frame[sq("e4")] == S.OFF
    assert frame[sq("g1")] == S.TOUCHED


def test_promotion_choice_is_shown_on_the_square():
    fen = "8/4P2p/8/8/8/k7/7P/4K3 w - - 0 1"
    frame, _ = frame_after("1000 lift e7\n1300 place e8", fen=fen)
    assert frame[sq("e8")] == S.PROMOTE_QUEEN
    frame, _ = frame_after("1000 lift e7\n1300 place e8\n2000 lift e8\n2300 place e8", fen=fen)
    assert frame[sq("e8")] == S.PROMOTE_ROOK


def test_claimable_draw_on_both_kings():
    hands = []
    t = 1000
    for _ in range(2):
        for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
            hands.append("%d lift %s\n%d place %s" % (t, uci[:2], t + 300, uci[2:]))
            t += 1000
    frame, board = frame_after("\n".join(hands))
    assert board.referee.game.claims == ("threefold",)
    assert frame[sq("e1")] == S.CLAIM and frame[sq("e8")] == S.CLAIM


def test_set_up_from_a_fen_guides_every_square():
    ref = Referee(Game())
    start = bytearray(64)
    ref.game.position.occupancy_into(start)
    ref.start(start, 0)
    ref.new_game("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 10)
    frame = Display().render(ref)
    assert frame[sq("a1")] == S.REMOVE and frame[sq("e1")] == S.OFF and frame[sq("e2")] == S.OFF
    assert sum(1 for v in frame if v == S.REMOVE) == 29
    # Clear the extra pieces: play starts when the board matches.
    t = 100
    for i in range(64):
        if start[i] and i not in (sq("e1"), sq("e2"), sq("e8")):
            ref.lift(i, t)
            t += 10
    ref.place(sq("e8"), t)
    ref.tick(t + 500)
    assert ref.phase == 0 and ref.error is None
    assert Display().render(ref).count(S.REMOVE) == 0


def test_remote_move_from_the_pc_until_played():
    ref = Referee(Game())
    occ = bytearray(64)
    ref.game.position.occupancy_into(occ)
    ref.start(occ, 0)
    ref.show_remote(ref.game.position.parse_uci("e2e4"))
    frame = Display().render(ref)
    assert frame[sq("e2")] == S.REMOTE_MOVE and frame[sq("e4")] == S.REMOTE_MOVE
    ref.lift(sq("e2"), 100)
    ref.place(sq("e4"), 400)
    ref.tick(700)
    assert ref.remote == 0
    frame = Display().render(ref)
    assert frame[sq("e4")] == S.LAST_MOVE


def test_faults_show_on_their_squares():
    ref = Referee(Game())
    frame = Display().render(ref, fault_squares=[sq("d4")])
    assert frame[sq("d4")] == S.FAULT
