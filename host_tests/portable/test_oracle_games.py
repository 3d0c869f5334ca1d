# The firmware's rules core against python-chess, on random games recorded by host_tests/helpers/oracle.py.
# Runs on CPython and on MicroPython: the recording (build/oracle/games.txt) is made on CPython first,
# because python-chess cannot run on MicroPython.
from core.game import Game
from core.notation import san
from core.position import move_uci

FIXTURE = "build/oracle/games.txt"


def _claims(game):
    return ",".join(game.claims) or "-"


def check_recording(path):
    games = 0
    positions = 0
    game = None
    seen = []  # every game-ending reason and claim the recording reached
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("game "):
                game = Game(line.split("|", 1)[1])
                games += 1
                continue
            uci, want_san, check, reason, result, claims, fen, legal = line.split("|")
            where = "game %d, %s" % (games, fen)
            assert game.fen() == fen, "%s: FEN %s" % (where, game.fen())
            # The list the scan loop builds a few pieces at a time (app.py) is the whole list, in
            # the order of one generate_legal call.
            while not game.prepare_legal(1 + positions % 3):
                pass
            assert game.legal == game.position.generate_legal([]), where + ": legal list built piecewise"
            ours = sorted(move_uci(m) for m in game.legal)
            theirs = legal.split() if legal else []
            assert ours == theirs, "%s: legal moves differ: extra %s missing %s" % (
                where,
                [m for m in ours if m not in theirs],
                [m for m in theirs if m not in ours],
            )
            assert game.check == (check == "1"), where + ": check"
            assert (game.reason or "-") == reason, "%s: ends by %s, python-chess says %s" % (where, game.reason, reason)
            assert game.result == result, where + ": result " + game.result
            assert _claims(game) == claims, "%s: claims %s, python-chess says %s" % (where, _claims(game), claims)
            positions += 1
            for word in (reason, claims):
                for item in word.split(","):
                    if item != "-" and item not in seen:
                        seen.append(item)
            if uci != "-":
                move = game.position.parse_uci(uci)
                assert san(game.position, move) == want_san, "%s: SAN of %s is %s, not %s" % (
                    where,
                    uci,
                    san(game.position, move),
                    want_san,
                )
                game.push(move)
    assert games > 0 and positions > games, "empty recording " + path
    for wanted in ("checkmate", "stalemate", "insufficient-material", "seventyfive-moves", "fivefold-repetition", "threefold", "fifty-moves"):
        assert wanted in seen, "the recording never reaches " + wanted
    return games, positions


def test_random_games_agree_with_python_chess():
    games, positions = check_recording(FIXTURE)
    print("  %d games, %d positions agree with python-chess" % (games, positions))
