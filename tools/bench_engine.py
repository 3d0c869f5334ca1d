"""make bench, the engine's part: its speed on the Pico and its strength against Stockfish.

    python3 tools/bench_engine.py [--games N] [--elo 1350[,1500]] [--seconds 10,2] [--chip-nps N]

Speed: tools/engine_speed.py runs on the emulated Pico (tools/emu/run.py, within about 10 % of a
real one) when that harness and the MicroPython build are there; otherwise on the MicroPython unix
port, and the Pico's nodes per second are the last emulator measurement below (the output says
which).

Strength: python-chess plays tools/uci.py (the firmware's engine, unchanged, on CPython) against
Stockfish with UCI_LimitStrength at fixed UCI_Elo levels, from a set of openings with both colours.
The engine is limited to the nodes the Pico searches in its time a move (ChipNPS x 10 s and x 2 s,
ChipNPS being its speed inside the scan loop), so the result is the board's strength whatever the
PC. Stockfish 15.1 (Debian's) goes no lower than UCI_Elo 1350; Stockfish 16 and later start at 1320
(recalibrated). The Elo estimate is the level plus 400 log10(score / (1 - score)), with a 95 %
margin from the games' spread.

Hanging pieces: after each of the engine's moves, a piece of its (not a pawn) that the opponent
wins at once counts as hung when the exchange on its square (each side taking back with its
cheapest piece while it pays, legal moves only) wins 2 pawns more than the engine's move itself
took, Stockfish says the move costs 2 pawns or more (at depth 10, and again at depth 16), and still
says so once the opponent has taken it (so the loss is the piece, not something else the move
allowed). So a trade (Bxe7+ Kxe7) is not a hung piece, a knight given for a pawn is. They are
counted again without the positions Stockfish already scored as lost by 3 pawns or more before the
move, and those are printed (`hung at: FEN move`); of those, the ones the move itself hung are
told apart from a piece that stood attacked before the move (the opponent could already have won
it so) and was not saved.

ENGINE_GAMES (default 4 a level, short but real) sets the games; ENGINE_BENCH=0 skips this part.
"""
import argparse
import math
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_BIN = os.path.join(ROOT, ".venv", "bin")
STOCKFISH = os.environ.get("STOCKFISH") or "/usr/games/stockfish"
# Measured with tools/engine_speed.py on the emulated Pico (rp2040js 1.4.1, MicroPython RPI_PICO
# v1.27.0) on 2026-12-01: the engine thinking inside the board's scan loop (half of each 5 ms scan
# period), hot paths native (engine/native.py). The matches' node budget when the chip cannot boot
# here (docs/figures.md, which host_tests/test_readme.py keeps equal to this); the output then says
# the budget is this recorded figure, not a new one.
EMULATED_PICO_NPS = 1127
EMULATED_PICO_NPS_MEASURED = "2026-12-01, MicroPython RPI_PICO v1.27.0 on rp2040js 1.4.1"
# A position Stockfish already gives up as lost by this much (centipawns) before the engine's move:
# pieces still fall there whatever it plays, so the hung pieces are also counted without these.
LOST = 300

OPENINGS = (
    "e2e4 e7e5 g1f3 b8c6",
    "d2d4 d7d5 c2c4 e7e6",
    "e2e4 c7c5 g1f3 d7d6",
    "d2d4 g8f6 c2c4 g7g6",
    "e2e4 e7e6 d2d4 d7d5",
    "c2c4 e7e5 b1c3 g8f6",
    "e2e4 c7c6 d2d4 d7d5",
    "g1f3 d7d5 g2g3 g8f6",
)
CENTIPAWNS = {1: 100, 2: 320, 3: 330, 4: 500, 5: 950, 6: 20000}  # a king takes only what is not defended


def figures(text):
    out = {}
    for line in text.splitlines():
        body, _, note = line.partition("  # ")
        words = body.split()
        if len(words) >= 2 and words[1].isdigit():
            out[words[0]] = (int(words[1]), " ".join(words[2:]), note)
    return out


def chip_speed():
    """(figures, where): the engine's speed on the emulated Pico, else the unix port's."""
    emu = os.path.join(ROOT, "tools", "emu", "run.py")
    sys.path.insert(0, os.path.dirname(emu))
    import chip  # tools/emu/chip.py: are the chip's two input files there?

    problem = chip.inputs_problem()
    if problem:
        sys.stderr.write("bench_engine: engine speed on the Pico not measured: %s\n" % problem)
    else:
        r = subprocess.run(
            [sys.executable, emu, os.path.join(ROOT, "tools", "engine_speed.py"), "--no-main", "--limit-s", "120"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        f = figures(r.stdout)
        if r.returncode == 0 and "engine_nps" in f:
            return f, "emulated Pico"
        sys.stderr.write("bench_engine: the emulated Pico did not run engine_speed.py: %s\n" % (r.stderr.strip()[-300:]))
    mp = os.environ.get("MICROPYTHON") or os.path.join(VENV_BIN, "micropython")
    r = subprocess.run([mp, "-X", "heapsize=260k", "tools/engine_speed.py"], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit("bench_engine: tools/engine_speed.py failed on MicroPython:\n" + r.stdout + r.stderr)
    return figures(r.stdout), "MicroPython unix port"


def cheapest_capture(board, square):
    """The side to move's legal capture on `square` by its least valuable piece (a promotion to
    the queen first), or None."""
    captures = [m for m in board.legal_moves if m.to_square == square and not board.is_en_passant(m)]
    if not captures:
        return None
    return min(captures, key=lambda c: (CENTIPAWNS[board.piece_type_at(c.from_square)], -(c.promotion or 0)))


def exchange_gain(board, square):
    """What the side to move wins by taking on `square` with its cheapest piece, both sides then
    taking back there with their cheapest piece while it pays (a static exchange, played out
    with legal moves, so pins and pieces behind pieces count). 0 if taking does not pay."""
    import chess

    m = cheapest_capture(board, square)
    if m is None:
        return 0
    victim = CENTIPAWNS[board.piece_type_at(square)]
    if m.promotion:
        victim += CENTIPAWNS[m.promotion] - CENTIPAWNS[chess.PAWN]
    board.push(m)
    gain = victim - exchange_gain(board, square)
    board.pop()
    return max(0, gain)


def hung_piece(board, before, move, analyst, us):
    """Did `move` (just made from `before`) leave a piece of `us` (not a pawn) that the opponent
    wins at once, by an exchange on its square worth 2 pawns more than the move itself took, and
    does Stockfish say the move costs 2 pawns, and still once the piece is taken? None if not,
    else (Stockfish's score, centipawns, for the engine, before the move; whether the move hung
    it: False when the piece stood where it was and the opponent could already have won it so
    before the move, a threat the move did not answer). (A trade is not a hung piece: Bxe7+ Kxe7
    takes back what the move took.)"""
    import chess
    import chess.engine

    took = 0
    if before.is_en_passant(move):
        took = CENTIPAWNS[chess.PAWN]
    elif before.piece_at(move.to_square):
        took = CENTIPAWNS[before.piece_type_at(move.to_square)]
    if move.promotion:
        took += CENTIPAWNS[move.promotion] - CENTIPAWNS[chess.PAWN]
    lost = 0
    where = None
    for square, piece in board.piece_map().items():
        if piece.color == us and piece.piece_type not in (chess.PAWN, chess.KING):
            gain = exchange_gain(board, square)
            if gain > lost:
                lost, where = gain, square
    if lost - took < 200:
        return None
    fresh = True
    if where != move.to_square:
        threat = before.copy(stack=False)
        threat.turn = not us  # what the opponent could have taken there had it been its move
        threat.ep_square = None
        fresh = exchange_gain(threat, where) < lost
    # Depth 10 first (cheap); what it flags is looked at again at depth 16, where the scores of
    # sharp positions settle: at 10 a forced Qxb4 (the queen was pinned) read as a 117-point loss.
    was = None
    for depth in (10, 16):
        limit = chess.engine.Limit(depth=depth)
        was = analyst.analyse(before, limit)["score"].pov(us).score(mate_score=10000)
        now = analyst.analyse(board, limit)["score"].pov(us).score(mate_score=10000)
        if was - now < 200:
            return None
    # And taking it must be what wins: after the opponent's capture (its cheapest piece, as in the
    # exchange) the engine is still 2 pawns worse off than before the move. A knight given for a
    # pawn and the attack it opens (22... Nxb2 23. Rxb2 Qxc3+, +136 for the engine), where the move
    # costs 2 pawns for another reason (23. h5 and the king's side falls), is a blunder, not a
    # piece hung: the count is of pieces lost by being taken.
    board.push(cheapest_capture(board, where))
    taken = analyst.analyse(board, chess.engine.Limit(depth=16))["score"].pov(us).score(mate_score=10000)
    board.pop()
    if was - taken < 200:
        return None
    return was, fresh


def play_match(games, elo, seconds, chip_nps, stockfish_s=0.1):
    """Games of the engine (as the Pico plays with `seconds` a move) against Stockfish at `elo`."""
    import chess
    import chess.engine

    ours = chess.engine.SimpleEngine.popen_uci([sys.executable, os.path.join(ROOT, "tools", "uci.py")])
    ours.configure({"ChipNPS": chip_nps})
    sf = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    sf.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
    analyst = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    analyst.configure({"Threads": 1, "Hash": 16})
    points = 0.0
    results = []
    hung = []
    hung_playable = []  # ... in positions Stockfish did not already count as lost
    hung_fresh = []  # ... of those, pieces the move itself put or left en prise (not a threat it did not answer)
    our_moves = 0
    depths = []
    t0 = time.time()
    try:
        for g in range(games):
            board = chess.Board()
            for uci in OPENINGS[(g // 2) % len(OPENINGS)].split():
                board.push_uci(uci)
            white = g % 2 == 0  # the engine's colour: each opening once with each
            while not board.is_game_over(claim_draw=True) and board.ply() < 300:
                if board.turn == (chess.WHITE if white else chess.BLACK):
                    before = board.copy()
                    r = ours.play(board, chess.engine.Limit(time=seconds), info=chess.engine.INFO_BASIC)
                    if "depth" in r.info:
                        depths.append(r.info["depth"])
                    board.push(r.move)
                    our_moves += 1
                    found = hung_piece(board, before, r.move, analyst, not board.turn)
                    if found is not None:
                        was, fresh = found
                        hung.append("%s %s%s" % (before.fen(), r.move.uci(), "" if fresh else " (attacked before: not saved)"))
                        if was > -LOST:
                            hung_playable.append(hung[-1])
                            if fresh:
                                hung_fresh.append(hung[-1])
                else:
                    board.push(sf.play(board, chess.engine.Limit(time=stockfish_s)).move)
            result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "1/2-1/2"
            score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            if not white:
                score = 1.0 - score
            points += score
            results.append(score)
    finally:
        ours.quit()
        sf.quit()
        analyst.quit()
    return {
        "games": games,
        "points": points,
        "results": results,
        "hung": hung,
        "hung_playable": hung_playable,
        "hung_fresh": hung_fresh,
        "moves": our_moves,
        "depth": sum(depths) / len(depths) if depths else 0,
        "seconds": time.time() - t0,
    }


def elo_estimate(level, results):
    """(Elo, 95 % margin) from the per-game scores against a player of `level`."""
    n = len(results)
    score = sum(results) / n
    clamp = min(max(score, 0.5 / n), 1 - 0.5 / n)  # a clean sweep still gives a finite figure
    elo = level + 400 * math.log10(clamp / (1 - clamp))
    sd = math.sqrt(sum((r - score) ** 2 for r in results) / n) / math.sqrt(n) if n > 1 else 0.5
    lo = min(max(clamp - 1.96 * sd, 0.5 / n), 1 - 0.5 / n)
    margin = elo - (level + 400 * math.log10(lo / (1 - lo)))
    return elo, margin


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=int(os.environ.get("ENGINE_GAMES", "4")))
    parser.add_argument("--elo", default="1350", help="Stockfish UCI_Elo levels, comma-separated")
    parser.add_argument("--seconds", default="10,2", help="the Pico's time a move, comma-separated")
    parser.add_argument("--chip-nps", type=int, default=0, help="skip the speed run: use these nodes/s")
    args = parser.parse_args(argv)
    if os.environ.get("ENGINE_BENCH") == "0":
        print("engine: skipped (ENGINE_BENCH=0)")
        return
    if args.chip_nps:
        nps, where = args.chip_nps, "given"
    else:
        speed, where = chip_speed()
        for name, (value, unit, note) in speed.items():
            print("%s %d %s  # %s, %s" % (name, value, unit, note, where))
        # What the board searches while it also scans: the budget of a move on the board.
        nps = speed["thinking_nps"][0] if where == "emulated Pico" else EMULATED_PICO_NPS
        where = where if where == "emulated Pico" else "NOT measured now: the emulated Pico's figure of %s" % EMULATED_PICO_NPS_MEASURED
    print("pico_nps %d nodes/s  # %s: the node budgets below" % (nps, where))
    if not os.path.exists(STOCKFISH):
        print("engine_match: skipped (no Stockfish at %s; apt install stockfish)" % STOCKFISH)
        return
    for seconds in [float(s) for s in args.seconds.split(",")]:
        for elo in [int(e) for e in args.elo.split(",")]:
            m = play_match(args.games, elo, seconds, nps)
            est, margin = elo_estimate(elo, m["results"])
            tag = "%gs" % seconds
            print(
                "match_%s_vs_%d %.1f/%d points  # %.0f %% at %d nodes a move (%g s on the Pico), mean depth %.1f, %.0f s"
                % (tag, elo, m["points"], m["games"], 100 * m["points"] / m["games"], int(nps * seconds), seconds, m["depth"], m["seconds"])
            )
            print("elo_%s %d Elo  # +-%d (95 %%) against Stockfish UCI_Elo %d, %d games" % (tag, est, margin, elo, m["games"]))
            print(
                "hung_%s %d pieces  # in %d moves of the engine (lost to an exchange at once, net of what the move took, and Stockfish says it costs 2 pawns, the capture made); %d where it was not already lost by %d, %d of them hung by the move itself (the others: attacked before, not saved)"
                % (tag, len(m["hung"]), m["moves"], len(m["hung_playable"]), LOST, len(m["hung_fresh"]))
            )
            for example in m["hung_playable"]:
                print("    hung at: %s" % example)


if __name__ == "__main__":
    main()
