# The rules core's own edge cases, on every runtime (CPython, MicroPython unix, WebAssembly).
import gc
import sys

from core.game import Game
from core.notation import parse_san, pgn, san
from core.position import (
    BLACK,
    KNIGHT,
    QUEEN,
    SQUARES88,
    STARTING_FEN,
    WHITE,
    ZOBRIST,
    FenError,
    Position,
    move_from,
    move_to,
    move_uci,
    parse_square,
)
from heap import can_count_bytes

try:
    from unittest import SkipTest  # pytest reports this as a skip too
except ImportError:  # MicroPython: run_portable counts any exception class named SkipTest as a skip

    class SkipTest(Exception):
        pass

MICROPYTHON = sys.implementation.name == "micropython"

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1QBPPP/R3KB1R w KQ - 4 9"


def _fen_error(fen, words):
    try:
        Position(fen)
    except FenError as e:
        for w in words:
            assert w in str(e), "%r: message %r lacks %r" % (fen, str(e), w)
        return
    raise AssertionError("accepted a bad FEN: " + fen)


def test_malformed_fens_say_what_is_wrong():
    _fen_error("", ["6 fields"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", ["8 ranks"])
    _fen_error("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["rank 7", "more than 8"])
    _fen_error("rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["rank 7", "7 squares"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", ["rank 1", "'X'"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", ["side to move"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1", ["castling"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", ["en-passant", "e9"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", ["en-passant", "6th"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", ["counters"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", ["halfmove"])
    _fen_error("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0", ["fullmove"])
    _fen_error("8/8/8/8/8/8/8/8 w - - 0 1", ["white kings"])
    _fen_error("k7/8/8/8/8/8/8/KK6 w - - 0 1", ["2 white kings"])
    _fen_error("k6P/8/8/8/8/8/8/K7 w - - 0 1", ["pawn on h8"])
    # Found by the fuzzer (issue 11): what python-chess refuses or calls invalid, the core did not.
    _fen_error("r3k2r/8/8/8/8/8/8/R3K2R w KKkq - 0 1", ["castling", "at most once"])
    _fen_error("r3k2r/p1ppqpB1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", ["17 white pieces"])
    assert Position("r3k2r/8/8/8/8/8/8/R3K2R w kqKQ - 0 1").castling == 15  # any order
    assert Position("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 7").fen() == "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 7 1"


def test_move_counters_no_game_can_have_are_refused():
    # Issue 11: a clock of 2**23 overflowed the 32-bit undo record (OverflowError on CPython, a
    # silently negative clock on MicroPython). Past 150 the 75-move rule had ended the game.
    rook = "4k3/8/8/8/8/8/8/4K2R w K - %s %s"
    for half in ("8388608", "151", "99999999999999999999", "0" * 30 + "151"):
        _fen_error(rook % (half, "1"), ["halfmove clock", "impossible", "75-move"])
    _fen_error(rook % ("0", "10000"), ["fullmove number 10000", "impossible"])
    _fen_error(rook % ("0", "9" * 40), ["fullmove number", "..."])
    _fen_error(rook % ("1_0", "1"), ["counters", "'1_0'"])  # int() takes it on CPython only
    _fen_error(rook % ("+1", "1"), ["counters"])
    for half, full in (("150", "9999"), ("0" * 20 + "7", "1")):
        p = Position(rook % (half, full))
        assert p.halfmove == int(half) and p.fullmove == int(full)
        assert p.perft(2) == Position(rook % ("0", "1")).perft(2)
    g = Game(rook % ("150", "1"))
    assert g.reason == "seventyfive-moves"  # the draw was due: the board shows it at once


def test_error_messages_cut_what_was_pasted():
    long = "x" * 3000  # (a few kB: the Pico has no room for more)
    for fen in (
        "8/8/8/8/8/8/8/K6k %s - - 0 1" % long,
        "8/8/8/8/8/8/8/K6k w %s - 0 1" % long,
        "8/8/8/8/8/8/8/K6k w - %s 0 1" % long,
        "8/8/8/8/8/8/8/K6k w - - %s 1" % long,
    ):
        try:
            Position(fen)
        except FenError as e:
            assert len(str(e)) < 200, str(e)[:300]
        else:
            raise AssertionError("accepted")
    try:
        Position().parse_uci(long)
    except ValueError as e:
        assert len(str(e)) < 200
    else:
        raise AssertionError("accepted")


def test_in_check_side_to_move_loads_but_the_other_side_in_check_does_not():
    Position("k7/8/8/8/8/8/8/K6r w - - 0 1")
    _fen_error("k6R/8/8/8/8/8/8/K7 w - - 0 1", ["not to move is in check"])


def test_a_failed_fen_leaves_the_position_as_it_was():
    p = Position(KIWIPETE)
    try:
        p.set_fen("8/8/8 w - - 0 1")
    except FenError:
        pass
    assert p.fen() == KIWIPETE
    assert p.zkey == p.compute_zkey()


def test_fen_round_trips():
    for fen in (
        STARTING_FEN,
        KIWIPETE,
        MIDDLEGAME,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    ):
        assert Position(fen).fen() == fen
    assert Position("8/8/8/8/8/8/8/K6k b - -").fen() == "8/8/8/8/8/8/8/K6k b - - 0 1"


def test_castling_rights_are_sanitised_on_load():
    assert Position("r2r3k/p7/3p4/8/8/P6P/8/R3K2R b KQq - 0 1").fen().split()[2] == "KQ"
    assert Position("4k3/8/8/8/8/8/8/R3K3 w KQkq - 0 1").fen().split()[2] == "Q"
    assert Position("4k3/8/8/8/8/8/8/4K2R w Qk - 0 1").fen().split()[2] == "-"


def test_en_passant_square_only_when_a_capture_is_legal():
    # The d5 pawn could take on e6 but is pinned against the king along the fifth rank.
    p = Position("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1")
    assert p.fen().split()[3] == "-"
    assert p.fen("fen").split()[3] == "d6"
    assert not p.has_legal_en_passant()
    p = Position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3")
    assert p.has_legal_en_passant()
    # A double push with no pawn beside it leaves no en-passant square at all.
    g = Game()
    g.push_uci("e2e4")
    assert g.fen().split()[3] == "-"


def test_make_unmake_keeps_the_zobrist_key_incremental_and_small():
    p = Position(KIWIPETE)
    seed = 12345
    made = 0
    for _ in range(200):
        moves = p.legal_moves()
        if not moves:
            break
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        p.make(moves[seed % len(moves)])
        made += 1
        assert p.zkey == p.compute_zkey()
        assert 0 <= p.zkey < 2**30
    for _ in range(made):
        p.unmake()
    assert p.fen() == KIWIPETE
    for key in ZOBRIST:
        assert 0 < key < 2**30


def test_one_square_destinations_equal_the_full_list_filtered():
    for fen in (STARTING_FEN, KIWIPETE, MIDDLEGAME, "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
                "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1", "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1"):
        p = Position(fen)
        full = p.legal_moves()
        for sq in range(64):
            one = p.legal_moves_from(sq, [])
            assert sorted(one) == sorted(m for m in full if move_from(m) == sq), "%s %d" % (fen, sq)


def test_castling_through_attacked_squares():
    # A rook on f8 covers f1: no king-side castling; the queen side stays (b1 may be attacked).
    p = Position("1r3r2/6k1/8/8/8/8/8/R3K2R w KQ - 0 1")
    ucis = [move_uci(m) for m in p.legal_moves()]
    assert "e1c1" in ucis and "e1g1" not in ucis
    assert not [u for u in ucis if u == "e1g1"]
    # In check: no castling at all.
    p = Position("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    assert not [m for m in p.legal_moves() if move_uci(m) in ("e1g1", "e1c1")]


def test_promotion_to_four_pieces():
    p = Position("8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    assert sorted(move_uci(m) for m in p.legal_moves_from(parse_square("e7"), [])) == ["e7e8b", "e7e8n", "e7e8q", "e7e8r"]
    m = p.parse_uci("e7e8n")
    p.make(m)
    assert p.piece_at(parse_square("e8")) == KNIGHT
    p.unmake()
    assert p.fen() == "8/4P3/8/8/8/k7/8/4K3 w - - 0 1"


def test_attack_test_allocates_nothing():
    p = Position(MIDDLEGAME)
    if not hasattr(gc, "mem_alloc"):
        return  # CPython has no allocation counter; the MicroPython runs check it
    gc.collect()
    before = gc.mem_alloc()
    for sq in SQUARES88:
        p.attacked(sq, WHITE)
        p.attacked(sq, BLACK)
    p.is_check()
    assert gc.mem_alloc() - before == 0


def test_move_generation_allocates_little():
    p = Position(MIDDLEGAME)
    out = []
    if not hasattr(gc, "mem_alloc"):
        return
    p.generate_legal(out)
    while out:
        out.pop()
    gc.collect()
    before = gc.mem_alloc()
    p.generate_legal(out)
    used = gc.mem_alloc() - before
    print("  full legal move list (%d moves) allocates %d bytes" % (len(out), used))
    assert used < 1024
    while out:
        out.pop()
    gc.collect()
    before = gc.mem_alloc()
    p.legal_moves_from(parse_square("f3"), out)
    used = gc.mem_alloc() - before
    print("  one-square query allocates %d bytes" % used)
    assert used < 256


def _play_on(g, plies, seed=7):
    """Extend g by deterministic pseudo-random moves to `plies` half-moves, never ending the game."""
    while len(g.moves) < plies:
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        legal = g.legal
        if g.position.halfmove > 60:
            # keep clear of the 75-move rule: prefer a pawn move or capture when there is one
            zeroing = [m for m in legal if g.position.piece_at(move_from(m)) & 7 == 1 or g.position.piece_at(move_to(m))]
            legal = zeroing or legal
        g.push(legal[seed % len(legal)])
        if g.is_over():
            g.pop()
            seed += 1
    return g



def test_history_of_300_plies_is_small():
    if not can_count_bytes():
        return  # measured on the unix port, where collection is immediate
    g = _play_on(Game(), 20)
    gc.collect()
    before = gc.mem_alloc()
    _play_on(g, 300)
    gc.collect()
    used = gc.mem_alloc() - before
    per_ply = used // 280
    print("  280 more plies of history hold %d bytes (%d per ply)" % (used, per_ply))
    # Per ply: a 12-byte undo record and a 4-byte repetition key, both in arrays of 32-bit words
    # (the same on the Pico and a 64-bit PC); the rest is the arrays growing in chunks.
    assert per_ply <= 20, per_ply
    assert len(g.moves) == 300


def test_insufficient_material_cases():
    dead = ["8/8/8/4k3/8/8/8/4K3 w - - 0 1", "8/8/8/4k3/8/8/8/3BK3 w - - 0 1", "8/8/8/4k3/8/8/8/3NK3 w - - 0 1",
            "8/8/8/4k3/2b5/8/8/3BK3 w - - 0 1",  # bishops on one colour (d1 and c4 are both light)
            "8/8/2b5/4k3/2b5/8/2B5/3BK3 w - - 0 1"]
    alive = ["8/8/8/4k3/3b4/8/8/3BK3 w - - 0 1",  # opposite colours
             "8/8/8/4k3/8/8/8/2NNK3 w - - 0 1", "8/8/8/4k3/8/2n5/8/3NK3 w - - 0 1", "8/8/8/4k3/8/2n5/8/3BK3 w - - 0 1",
             "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", "8/8/8/4k3/8/8/8/3RK3 w - - 0 1"]
    for fen in dead:
        assert Position(fen).is_insufficient_material(), fen
    for fen in alive:
        assert not Position(fen).is_insufficient_material(), fen


def test_san_in_and_out():
    p = Position("R6R/8/3k4/8/8/8/8/R3K3 w Q - 0 1")
    sans = sorted(san(p, m) for m in p.legal_moves())
    assert "R1a4" in sans and "R8a4" in sans and "Rad8+" in sans and "Rhd8+" in sans and "O-O-O+" in sans
    p = Position("8/8/8/2N1N3/8/8/8/k1N1K3 w - - 0 1")
    assert "Nc5d3" in [san(p, m) for m in p.legal_moves()]
    g = Game()
    for text in ("e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"):
        g.push_san(text)
    assert g.san_moves()[-1] == "Qxf7#" and g.result == "1-0" and g.reason == "checkmate"
    p = Position("8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    assert move_uci(parse_san(p, "e8=N")) == "e7e8n"
    assert san(p, parse_san(p, "e8=Q")) == "e8=Q"
    try:
        parse_san(Position(), "Ke2")
        raise AssertionError("an illegal SAN was accepted")
    except ValueError as e:
        assert "Ke2" in str(e)


def test_pgn_record():
    g = Game()
    for u in ("f2f3", "e7e5", "g2g4", "d8h4"):
        g.push_uci(u)
    text = g.pgn({"White": "Ann", "Black": "Bo"})
    assert '[White "Ann"]' in text and '[Result "0-1"]' in text
    assert text.rstrip().endswith("1. f3 e5 2. g4 Qh4# 0-1")
    g = Game("8/4P3/8/8/8/k7/8/4K3 w - - 0 1")
    g.push_uci("e7e8q")
    text = g.pgn()
    assert '[SetUp "1"]' in text and '[FEN "8/4P3/8/8/8/k7/8/4K3 w - - 0 1"]' in text
    g = Game("4k3/8/8/8/8/8/8/4K2R b K - 0 1")
    g.push_uci("e8d7")
    assert "1... Kd7" in g.pgn()


def test_claims_fifty_moves_and_seventyfive_ends():
    g = Game("8/8/8/4k3/8/8/8/R3K3 w - - 99 80")
    assert g.claims == ()
    g.push_uci("a1a2")
    assert g.claims == ("fifty-moves",)
    g = Game("8/8/8/4k3/8/8/8/R3K3 w - - 149 80")
    g.push_uci("a1a2")
    assert g.result == "1/2-1/2" and g.reason == "seventyfive-moves"
    g.pop()
    assert g.result == "*"


def test_a_mate_on_the_150th_half_move_is_a_mate():
    g = Game("7k/8/6K1/8/8/8/8/R7 w - - 149 100")
    g.push_uci("a1a8")
    assert g.reason == "checkmate" and g.result == "1-0"


def test_repetition_compares_real_en_passant_only():
    # After 1.e4 Nf6 2.e5 d5 the e5 pawn may take d6 e.p.; the position after knight moves back and
    # forth lacks that right, so it does not repeat the first one.
    g = Game()
    for u in ("e2e4", "g8f6", "e4e5", "d7d5"):
        g.push_uci(u)
    first = g.repetition_key()
    for u in ("b1c3", "b8c6", "c3b1", "c6b8"):
        g.push_uci(u)
    assert g.repetition_key() != first
    assert g.position.fen().split()[0] == "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR".replace("rnbqkb1r", "rnbqkb1r")
    for u in ("b1c3", "b8c6", "c3b1", "c6b8"):
        g.push_uci(u)
    assert g.repetitions() == 2
    for u in ("b1c3", "b8c6", "c3b1", "c6b8"):
        g.push_uci(u)
    assert g.claims == ("threefold",)


def test_game_status_on_resign_and_agreement():
    g = Game()
    g.resign(WHITE)
    assert g.result == "0-1" and g.reason == "resignation" and g.is_over()
    g = Game()
    g.push_uci("e2e4")
    g.agree_draw()
    assert g.result == "1/2-1/2" and g.reason == "agreement"
    assert g.position.piece_at(parse_square("e4")) == 1 and move_to(g.moves[0]) == parse_square("e4")
    assert QUEEN == 5


# Positions with every special move: castling both ways (and through attacked squares), en passant
# (also the one that uncovers a check along the rank), promotions and under-promotions, pins,
# single and double check.
_BOTH_PATHS = (
    KIWIPETE,
    MIDDLEGAME,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1",
    "4k3/8/8/1b6/8/8/8/R3K2R w KQ - 0 1",
)


def _walk(p, depth, record):
    """Record, for each position `depth` plies around p: the full legal list (in order), each
    square's list, the attack map of both sides, and the state after each make/unmake."""
    moves = p.generate_legal([])
    record.append(tuple(moves))
    for sq in range(64):
        record.append(tuple(p.legal_moves_from(sq, [])))
    record.append(bytes(1 if p.attacked(s88, by) else 0 for by in (WHITE, BLACK) for s88 in SQUARES88))
    record.append((p.is_check(), p.has_legal_move()))
    for m in moves:
        p.make(m)
        record.append((bytes(p.board), bytes(p.kings), p.side, p.castling, p.ep, p.halfmove, p.fullmove, p.zkey))
        if depth > 1:
            _walk(p, depth - 1, record)
        p.unmake()
    record.append((bytes(p.board), p.zkey, p.castling, p.ep, p.halfmove, p.fullmove, p.moves_made()))


def test_native_and_plain_paths_give_the_same_answers():
    # position.py takes make/unmake, the attack test and the generator from position_native.py
    # (viper) on the Pico; the unix port compiles it too when asked. Both paths must agree move
    # for move, in the same order (the referee and the LEDs see the list as it comes).
    import core.position as position

    if not position.use_native(True):
        position.use_native(position.NATIVE)
        raise SkipTest("no native emitter on this runtime: the plain path is the only one")
    try:
        for fen in _BOTH_PATHS:
            answers = []
            for native in (True, False):
                assert position.use_native(native) == native
                record = []
                _walk(Position(fen), 1, record)
                answers.append(record)
            assert answers[0] == answers[1], fen
        position.use_native(False)
        plain = Position(KIWIPETE).perft(3)
        position.use_native(True)
        assert Position(KIWIPETE).perft(3) == plain == 97862
    finally:
        position.use_native(position.NATIVE)  # as chosen at import
