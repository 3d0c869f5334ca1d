"""Property: the referee reads random games played by simulated hands exactly as they were meant.

tools/physical.py turns random legal games into transcripts (every order of captures, en passant and
castling, slides, bounce, swaps, pauses, promotion taps, knocked pieces, casual takebacks and
rook-first castling); replaying them must give back exactly the intended moves and final position.
`make bench` runs the same over 10,000+ moves and prints the misread figure.
"""
import pytest

import physical
import transcript


def effective(lines):
    """The game the output describes: moves, less those undone, with promotion choices applied."""
    moves = []
    for line in lines:
        kind, _, arg = line.partition(" ")
        if kind == "move":
            moves.append(arg)
        elif kind == "undo":
            assert moves and moves[-1] == arg, "undo of a move that is not the last: " + line
            moves.pop()
        elif kind == "promote":
            assert moves and moves[-1][:4] == arg[:4], "promotion of a move that is not the last: " + line
            moves[-1] = arg
    return moves


def check_game(seed, mode, knock_rate=0.05, adjust_rate=0.0, stats=None):
    text, expected, fen = physical.transcript(seed, mode, knock_rate=knock_rate, adjust_rate=adjust_rate, stats=stats)
    f, m, events = transcript.parse(text)
    out = transcript.run(f, m, events)
    got = effective(out)
    want = effective(expected)
    assert got == want, "seed %d %s: first difference at move %d" % (
        seed,
        mode,
        next(i for i in range(len(want) + 1) if i >= len(got) or i >= len(want) or got[i] != want[i]),
    )
    assert out[-1] == "fen " + fen
    # A queen promotion that mates ends the game at once; a tap that then chooses another piece
    # reopens it (the "promote" line says so), so only an end after the last promotion counts.
    last_promote = max([i for i, line in enumerate(out) if line.startswith("promote")] or [-1])
    ends = [line for line in out[last_promote + 1 :] if line.startswith("end")]
    assert ends[-1:] == [line for line in expected if line.startswith("end")][-1:]
    return out, want


@pytest.mark.parametrize("mode", ["strict", "casual"])
@pytest.mark.parametrize("seed", range(16))
def test_random_games_are_read_exactly(seed, mode):
    check_game(1000 + seed, mode)


@pytest.mark.parametrize("mode", ["strict", "casual"])
def test_without_knocks_the_board_never_flags_an_error(mode):
    for seed in range(6):
        out, _ = check_game(2000 + seed, mode, knock_rate=0)
        assert not [line for line in out if line.startswith("error")], "seed %d" % seed


@pytest.mark.parametrize("mode", ["strict", "casual"])
def test_straightening_pieces_never_flags_an_error(mode):
    """docs/spec.md section 3: hands that adjust every kind of piece now and then (held 0.2-3 s), pieces nothing
    can happen to included, get no error line and the game is read exactly (issue 11)."""
    stats = {}
    for seed in range(4):
        out, _ = check_game(3000 + seed, mode, knock_rate=0, adjust_rate=0.3, stats=stats)
        assert not [line for line in out if line.startswith("error")], "seed %d" % seed
    kinds = {"own-immovable", "opponent-uncapturable", "piece-to-move"}
    if mode == "casual":
        kinds |= {"own-movable", "opponent-capturable"}
    assert set(stats) == kinds, stats


def test_the_generator_covers_every_way_of_moving():
    """The transcripts exercise what the property is about (not just quiet moves)."""
    seen = set()
    for seed in range(16):
        for mode in ("strict", "casual"):
            _, want = check_game(1000 + seed, mode)
            for uci in want:
                if len(uci) == 5:
                    seen.add("promotion-" + uci[4])
            text, expected, _ = physical.transcript(1000 + seed, mode)
            if any(line.startswith("undo") for line in expected):
                seen.add("undo")
    assert {"promotion-q", "promotion-r", "promotion-b", "promotion-n", "undo"} <= seen, seen
