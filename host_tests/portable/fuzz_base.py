# Seeded fuzzing of the board's edges (issue 11): what every fuzzer shares. fuzz_core.py fuzzes FENs
# and saved records, fuzz_link.py the USB link (kept apart: on a 320 kB heap each loads only what it needs).
#
# Each fuzz_* function makes `n` inputs from a seed, feeds them to the firmware's real code and
# checks that bad input only ever gets the clear error the edge promises (FenError, StoreError, an
# `err` line that is not an internal error) and that what is accepted is consistent. It returns a
# dict of counts (inputs tried, accepted, refused); a broken promise raises AssertionError naming
# the input. Portable: the same inputs run on CPython, MicroPython unix and WebAssembly (a small
# LCG, not `random`, so every runtime makes the same inputs). host_tests/portable/test_fuzz*.py run
# a few hundred of each in `make test`; `.venv/bin/python tools/hands/fuzz.py` runs as many as asked.

# Positions to mutate: the start, castling and en passant, promotions, an endgame, checks.
FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 149 80",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
)
# Characters FENs are made of, and some they are not.
_FEN_CHARS = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789 .x?9\t"
_NUMBERS = ("0", "1", "-1", "150", "151", "8388608", "2147483648", "9999", "10000", "1_0", "+3", "99999999999999999999", "")


class Rng:
    """A linear congruential generator (the constants of Numerical Recipes): small ints only."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 12345) & 0x3FFFFFFF

    def below(self, n):
        """0 <= k < n."""
        self.state = (self.state * 1664525 + 1013904223) & 0x3FFFFFFF
        return (self.state >> 8) % n

    def chance(self, percent):
        return self.below(100) < percent

    def pick(self, items):
        return items[self.below(len(items))]


def mutate(rng, text, alphabet, rounds=3):
    """text with a few characters replaced, inserted, deleted or a stretch doubled."""
    for _ in range(1 + rng.below(rounds)):
        i = rng.below(len(text) + 1)
        kind = rng.below(5)
        if kind == 0 and text:
            i = min(i, len(text) - 1)
            text = text[:i] + rng.pick(alphabet) + text[i + 1 :]
        elif kind == 1:
            text = text[:i] + rng.pick(alphabet) + text[i:]
        elif kind == 2 and text:
            text = text[:i] + text[i + 1 :]
        elif kind == 3:
            j = i + rng.below(12)
            text = text[:j] + text[i:j] + text[j:]
        else:
            j = min(len(text), i + rng.below(6))
            text = text[:i] + text[j:]
    return text


def random_position(rng):
    """A FEN of pieces scattered at random (two kings, up to 20 others): mostly valid positions
    no game led to, with castling rights and en-passant squares that may or may not fit."""
    board = ["."] * 64
    board[rng.below(64)] = "K"
    while True:
        sq = rng.below(64)
        if board[sq] == ".":
            board[sq] = "k"
            break
    for _ in range(rng.below(21)):
        sq = rng.below(64)
        piece = rng.pick("PNBRQpnbrq")
        if board[sq] == "." and (piece not in "Pp" or 8 <= sq < 56 or rng.chance(5)):
            board[sq] = piece
    ranks = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for f in range(8):
            c = board[rank * 8 + f]
            if c == ".":
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += c
        ranks.append(row + (str(empty) if empty else ""))
    castling = rng.pick(("-", "-", "KQkq", "K", "q", "Kk"))
    side = rng.pick("wb")
    ep = "-" if rng.chance(60) else rng.pick("abcdefgh") + ("6" if side == "w" else "3")
    return "%s %s %s %s %d %d" % ("/".join(ranks), side, castling, ep, rng.below(152), 1 + rng.below(120))


def fen_input(rng):
    """One FEN-like string: a known FEN mutated by characters or by fields, or a random position."""
    fen = rng.pick(FENS)
    how = rng.below(8)
    if how >= 6:
        return random_position(rng)
    if how <= 2:
        return mutate(rng, fen, _FEN_CHARS)
    fields = fen.split()
    if how == 3:  # a counter or a field replaced by something extreme
        i = rng.below(6)
        fields[i] = rng.pick(_NUMBERS) if i >= 4 else mutate(rng, fields[i], _FEN_CHARS)
    elif how == 4:  # fields missing, doubled or extra
        k = rng.below(3)
        if k == 0:
            fields = fields[: rng.below(7)]
        elif k == 1:
            fields = fields + [rng.pick(fields)] * (1 + rng.below(3))
        else:
            fields.insert(rng.below(7), rng.pick(_NUMBERS))
    else:  # a long run of one character (a paste gone wrong)
        i = rng.below(6)
        fields[i] = fields[i] + rng.pick(_FEN_CHARS) * (1 + rng.below(300))
    sep = " " if rng.chance(80) else rng.pick(("  ", "\t", " \t "))
    return sep.join(fields)


