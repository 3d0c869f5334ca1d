# Seeded fuzzing of FENs and saved records (issue 11); the shared generators are in fuzz_base.py.
from fuzz_base import FENS, Rng, fen_input, mutate
from fuzz_base import _NUMBERS


def check_position(position_class, fen_error, fen, p):
    """What must hold of any position the core accepted."""
    out = p.fen()
    again = position_class(out)
    assert again.fen() == out, "%r: fen() does not read back: %r" % (fen, out)
    assert 0 <= p.halfmove <= 150 and 1 <= p.fullmove <= 9999, fen
    moves = p.legal_moves()
    key = p.zkey
    for m in moves[:8]:
        p.make(m)
        p.legal_moves()
        p.unmake()
    assert p.fen() == out and p.zkey == key, "%r: make/unmake changed the position" % fen
    return moves


def fuzz_fens(n, seed=1):
    from core.game import Game
    from core.position import FenError, Position

    rng = Rng(seed)
    stats = {"inputs": 0, "accepted": 0, "refused": 0}
    for _ in range(n):
        fen = fen_input(rng)
        stats["inputs"] += 1
        try:
            p = Position(fen)
        except FenError as e:
            stats["refused"] += 1
            assert len(str(e)) < 200, "%r: message of %d characters" % (fen[:60], len(str(e)))
            continue
        stats["accepted"] += 1
        check_position(Position, FenError, fen, p)
        g = Game(fen)
        assert g.fen() == p.fen()
    return stats


# ---------------------------------------------------------------------- saved records

_RECORD_CHARS = "abcdefgh12345678nbrqx -/\nKQkqwb0123456789"
_KEYS = ("seq", "mode", "start", "moves", "result", "chessboard-game", "end", "")


def _record(body):
    from store import adler32

    data = body.encode()
    a, b = adler32(data)
    return data + ("end %d %04x%04x\n" % (len(data), b, a)).encode()


def record_input(rng):
    """The bytes of one record: a good one changed below its checksum (re-summed, so the parser
    gets past it and meets what a hostile or buggy writer could put there), or a good one with
    bits flipped (which the checksum must catch)."""
    moves = ("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6", "g1f3 g8f6 f3g1 f6g8 " * 6 + "e2e4", "", "e2e4 e2e4", "a7a8q", "e1g1 e8g8")
    lines = ["chessboard-game 1", "seq %d" % rng.below(1000), "mode " + rng.pick(("strict", "casual")),
             "start " + (FENS[0] if rng.chance(50) else rng.pick(FENS)), "moves " + rng.pick(moves)]
    if rng.chance(25):
        lines.append("result %s %s" % (rng.pick(("1-0", "0-1", "1/2-1/2", "*")),
                                       rng.pick(("resignation", "agreement", "claimed-draw", "checkmate"))))
    how = rng.below(5)
    i = rng.below(len(lines))
    if how == 0:  # one line's text changed
        lines[i] = mutate(rng, lines[i], _RECORD_CHARS, rounds=2)
    elif how == 1:  # one line's value replaced
        key = lines[i].split(" ", 1)[0]
        value = fen_input(rng) if key == "start" else rng.pick(_NUMBERS + ("strict", "e2e4", key))
        lines[i] = (key if rng.chance(80) else rng.pick(_KEYS)) + " " + value
    elif how == 2:  # a line doubled or dropped
        if rng.chance(50):
            lines.insert(i, lines[rng.below(len(lines))])
        else:
            del lines[i]
    data = _record("\n".join(lines) + "\n")
    if how == 3:
        data = bytearray(data)
        for _ in range(1 + rng.below(3)):
            data[rng.below(len(data))] ^= 1 << rng.below(8)
        data = bytes(data)
    return data


def fuzz_records(n, seed=1):
    """Records as game.sav, and as game.sav.tmp beside a good game.sav: resume() gives a game or a
    StoreError, never anything else, and never loses the good record to a bad .tmp."""
    from store import GameStore, StoreError
    from store_read import parse

    from test_store_portable import FakeFlash, play

    rng = Rng(seed)
    stats = {"inputs": 0, "resumed": 0, "refused": 0, "good record kept": 0}
    good = play("e2e4 e7e5 g1f3".split())
    for _ in range(n):
        data = record_input(rng)
        stats["inputs"] += 1
        try:
            parse(data, "game.sav")
        except StoreError as e:
            assert len(str(e)) < 300, "message of %d characters" % len(str(e))
        flash = FakeFlash()
        flash.files["game.sav"] = data
        try:
            game, mode, notes = GameStore("game.sav", flash).resume()
            stats["resumed"] += 1
            assert mode in ("strict", "casual")
            for note in notes:
                assert len(note) < 400, note[:100]
            again = play(game.uci_moves(), game.start_fen)  # what resumed replays by itself
            assert again.fen() == game.fen()
        except StoreError as e:
            stats["refused"] += 1
            assert len(str(e)) < 600, "message of %d characters" % len(str(e))
        # The same bytes as a newer .tmp beside a good record: the good game is never lost.
        flash = FakeFlash()
        GameStore("game.sav", flash).save(good, "strict")
        flash.files["game.sav.tmp"] = data
        game, mode, notes = GameStore("game.sav", flash).resume()
        if game.uci_moves() == good.uci_moves() and game.start_fen == good.start_fen:
            stats["good record kept"] += 1
        else:
            # The .tmp won: it must be a complete record that replays (a newer save cut before its rename).
            record = parse(data, "game.sav.tmp")
            assert record[0] > 1 and game.start_fen == play([], record[2]).start_fen, data[:80]
    return stats


