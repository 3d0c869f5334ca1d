# Reading the saved game at power-up: the newest whole record that replays (store_write.py's
# format), then the journal records that extend it (store.py's format). GameStore.resume() loads
# this module and drops it once the game is read: a board reads its flash once a power-up.
#
# Every record, and every journal record, says whether it is whole: a whole record ends with its
# length and Adler-32, a journal record with 2 bytes of the Adler-32 of the journal up to it. What
# is not whole is what a power cut (or a damaged flash) left, and is never read as a game: a record
# gives way to the other one (PATH or PATH.tmp), a journal record is dropped with all that follows
# it, and the records before it count. A whole record must also replay: its checksum only says
# the bytes are what was written, not that a well-checksummed but hostile or buggy record makes
# sense, so a record whose moves the rules refuse gives way to the other, and a journal record
# the rules refuse ends the journal there.
from micropython import const

from core.game import (
    AGREEMENT,
    CLAIMED_DRAW,
    FLAG,
    FLAG_INSUFFICIENT,
    ILLEGAL_MOVES,
    ILLEGAL_MOVES_INSUFFICIENT,
    RESIGNATION,
    Game,
)
from core.position import BLACK, WHITE, square_name
from store import FORMAT, VERSION, StoreError, adler32

MODES = ("strict", "casual")
# The journal's records: store.py says what they hold (these are its private copies).
_UNDO = const(0x80)
_CLOCK = const(0x81)
_HEADER = const(0x82)
# A 600-ply game is about 3.7 kB; anything far bigger is not a record this firmware wrote, and
# reading it whole could exhaust the Pico's heap.
MAX_BYTES = const(16384)
# The journal never passes store.py's _JOURNAL_MAX: far more is not one of ours.
_MAX_JOURNAL = const(1024)
_ENOENT = const(2)
# The save counter goes up once a whole record: 2**30 of them is more than a board will ever write,
# and keeps the counter a small int on the Pico.
_MAX_SEQ = const(0x3FFFFFFF)
# What each result reason may come with: a resignation has a winner, an agreement or claim is a draw.
_RESULTS = {
    RESIGNATION: ("1-0", "0-1"),
    AGREEMENT: ("1/2-1/2",),
    CLAIMED_DRAW: ("1/2-1/2",),
    FLAG: ("1-0", "0-1"),
    FLAG_INSUFFICIENT: ("1/2-1/2",),
    ILLEGAL_MOVES: ("1-0", "0-1"),
    ILLEGAL_MOVES_INSUFFICIENT: ("1/2-1/2",),
}
_CLOCK_NUMBERS = const(11)


def read(store):
    """(the highest seq of a whole record on the flash, the game or None). The game: (game, mode,
    notes, result, opponent, clock, clock line, the record's seq, journal, from PATH.tmp); journal:
    (bytes, Adler-32 halves) when appends may go on after it, 0 when no journal extends the record,
    None when one was cut short or refused (the next change writes the whole game). Raises
    StoreError when no whole record replays."""
    errors = []
    records = []
    seq_max = 0
    for path in (store.path, store.tmp):  # .tmp is whole only if a save was cut before its rename
        try:
            data = _read(store, path, MAX_BYTES)
            record = None if data is None else parse(data, path)
        except StoreError as e:
            if path == store.path:
                errors.append(str(e))
            continue  # a .tmp cut short is what a power cut during a save leaves: the record stands
        if record is not None:
            if record[0] > seq_max:
                seq_max = record[0]
            records.append((record, path))
    # Newest first: a complete .tmp newer than the record is a save cut before its rename.
    if len(records) == 2 and records[1][0][0] > records[0][0][0]:
        records.reverse()
    notes = []
    for record, path in records:
        seq, mode, fen, moves, result, opponent, clock = record
        try:
            game, past_end = _replay(fen, moves)
        except ValueError as e:
            errors.append("%s: does not replay (%s)" % (path, e))
            continue
        if errors:
            notes.append("; ".join(errors) + ": using %s" % path)
        if past_end:
            notes.append(
                "%s: the game ended after %d moves (%s); the %d moves recorded after that are ignored"
                % (path, game.ply(), game.reason, past_end)
            )
        if isinstance(clock, str):  # a clock line that does not read: the game goes on without
            notes.append(clock + ": the game goes on without a clock")
            clock = None
        journal, clock = _journal(store, seq, game, clock, notes)
        line = " ".join([clock[0]] + [str(n) for n in clock[1] + clock[2]]) if clock else None
        if result is not None and not game.is_over() and not apply_result(game, result):
            notes.append("%s: refused its result %s %s: %s" % (path, result[0], result[1], "no draw can be claimed in this position"))
        return seq_max, (game, mode, notes, result, opponent, clock, line, seq, journal, path == store.tmp)
    if errors:
        raise StoreError("; ".join(errors))
    return seq_max, None


def apply_result(game, result):
    """Give `game` the (result, reason) a record ended with; True when the game is then over. A
    claimed draw is applied only where the position offers the claim (FIDE 9.2, 9.3)."""
    result, reason = result
    if reason == RESIGNATION:
        game.resign(WHITE if result == "0-1" else BLACK)
    elif reason == CLAIMED_DRAW:
        game.claim_draw()
    elif reason == AGREEMENT:
        game.agree_draw()
    else:
        game.declare(result, reason)  # an arbiter's decision: a flag fall, illegal moves
    return game.is_over()


def _read(store, path, size):
    """The first size + 1 bytes of a file, None if it does not exist; StoreError if unreadable."""
    try:
        f = store.open(path, "rb")
    except OSError as e:
        if e.args and e.args[0] == _ENOENT:
            return None
        raise StoreError("%s: cannot be read (%s)" % (path, e))
    try:
        return f.read(size + 1)
    except OSError as e:
        raise StoreError("%s: cannot be read (%s)" % (path, e))
    finally:
        f.close()


def _replay(fen, moves):
    """(the game the record describes, how many recorded moves came after its end). Raises
    ValueError (FenError among them) when the start position or a move is refused. Moves after the
    game ended (checkmate, a fivefold repetition, the 75-move rule...) are not played: no game goes
    on past its end (FIDE 5, 9.6)."""
    game = Game(fen)
    for i in range(len(moves)):
        if game.is_over():
            return game, len(moves) - i
        try:
            game.push_uci(moves[i])
        except ValueError as e:
            raise ValueError("move %d, %s: %s" % (i + 1, moves[i][:8], e))
    return game, 0


def _journal(store, seq, game, clock, out):
    """Play the records of the journal that extends record `seq` on `game` (and its clock), up to
    the first that is not whole or that the rules refuse; what a person should be told goes to
    `out`. Returns (journal state as read() says, the clock)."""
    name = store.path + ".d/journal"
    try:
        data = _read(store, name, _MAX_JOURNAL)
    except StoreError as e:
        out.append(str(e))
        return None, clock
    if not data:
        return 0, clock  # no journal yet (or an empty one: its first append was cut off)
    if len(data) > _MAX_JOURNAL:
        out.append("%s: over %d bytes, not a journal this firmware wrote: ignored" % (name, _MAX_JOURNAL))
        return None, clock
    a, b = adler32(data[:6])
    if len(data) < 8 or data[0] != _HEADER or data[6] != b >> 8 or data[7] != b & 255:
        # A header cut short: the first append after a whole record, cut off (its ply is read
        # from the pieces); or not a journal at all.
        out.append("%s: no whole header (a write cut off): ignored" % name)
        return 0, clock
    if data[1] != 1:
        out.append("%s: journal format %d, this firmware reads format 1: ignored" % (name, data[1]))
        return 0, clock
    if (data[2] << 24 | data[3] << 16 | data[4] << 8 | data[5]) != seq:
        return 0, clock  # it extends an older record, which the newer one holds whole: stale
    i = 8
    done = (8, a, b)  # where the last whole save ends, and the Adler-32 halves there
    change = []  # the records of the save being read: played once its last record is read
    end = len(data)
    why = None
    while i < end:
        kind = data[i]
        n = 2 if kind < _UNDO else 1 if kind == _UNDO else 2 + data[i + 1] if kind == _CLOCK and i + 1 < end else 0
        if not n:
            why = "an unknown record (%d)" % kind if kind != _CLOCK else "a record cut short (a write the power cut off)"
            break
        if i + n + 2 > end:
            why = "a record cut short (a write the power cut off)"
            break
        a, b = adler32(data[i : i + n], a, b)
        check = data[i + n] << 8 | data[i + n + 1]
        if check != b and check != b ^ 0xFFFF:
            why = "a record that fails its checksum"
            break
        change.append((i, kind, n))
        i += n + 2
        if check == b:  # the save's last record: the save is whole
            for at, kind, n in change:
                why, clock = _play(data, at, kind, n, game, clock)
                if why:
                    break
            if why:
                i = at
                break
            change = []
            done = (i, a, b)
    if why is None and change:
        why = "a save cut short (a write the power cut off)"
    if why:
        out.append("%s: %s at byte %d: the game resumes after ply %d, what follows is ignored" % (name, why, i if not change else change[0][0], game.ply()))
        return None, clock
    return done, clock


def _play(data, i, kind, n, game, clock):
    """Play one whole journal record: (None, clock), or (why the rules refuse it, clock)."""
    if kind < _UNDO:
        v = kind << 8 | data[i + 1]
        promotion = v >> 12
        if promotion and not 2 <= promotion <= 5:
            return "a move with no promotion piece %d" % promotion, clock
        uci = square_name(v & 63) + square_name(v >> 6 & 63) + ("nbrq"[promotion - 2] if promotion else "")
        if game.is_over():
            return "the move %s after the end of the game" % uci, clock
        try:
            game.push_uci(uci)
        except ValueError as e:
            return "a move the rules refuse (%s)" % e, clock
    elif kind == _UNDO:
        if not game.ply():
            return "a takeback with no move to take back", clock
        game.pop()
    else:
        numbers = []
        value = 0
        shift = 0
        for c in data[i + 2 : i + n]:
            value |= (c & 127) << shift
            shift += 7
            if c < 128:
                numbers.append(value)
                value = 0
                shift = 0
            elif shift > 28:
                break
        if clock is not None:  # a game whose record has no clock, or none that reads, keeps none
            got = _parse_clock(" ".join([clock[0]] + [str(v) for v in numbers]), "clock record")
            if isinstance(got, str) or shift:
                return "a clock record that does not read", clock
            clock = got
    return None, clock


def parse(data, name="saved game"):
    """(seq, mode, fen, moves, result, opponent, clock) from a record's bytes; raises StoreError saying
    what is wrong. clock: None, (control, 9 clock numbers, 2 illegal-move counts), or the text of
    what is wrong with the clock line (not fatal: the moves are the game, the clock only its times)."""
    if not data:
        raise StoreError("%s: empty file (the save was cut off before anything was written)" % name)
    if len(data) > MAX_BYTES:
        raise StoreError("%s: over %d bytes, not a saved game" % (name, MAX_BYTES))
    # The end line: the last line, complete with its newline.
    if data[-1:] != b"\n":
        raise StoreError("%s: truncated (the last line is incomplete)" % name)
    cut = data.rfind(b"\n", 0, len(data) - 1) + 1  # start of the last line
    last = data[cut:-1].split()
    if len(last) != 3 or last[0] != b"end":
        raise StoreError("%s: truncated (no end line: the save was cut off)" % name)
    try:
        size = int(last[1])
        stored = last[2].decode()
        int(stored, 16)
    except (ValueError, UnicodeError):
        raise StoreError("%s: corrupt end line" % name)
    if size != cut:
        raise StoreError("%s: truncated or corrupt (end line says %d bytes, found %d)" % (name, size, cut))
    a, b = adler32(data[:cut])
    if "%04x%04x" % (b, a) != stored:
        raise StoreError(
            "%s: corrupt (checksum %04x%04x, expected %s: the flash changed under the file)" % (name, b, a, stored)
        )
    # The checksum matched, so every byte is what was written: from here on an error means a
    # record from another firmware version, not damage.
    try:
        text = data[:cut].decode()
    except UnicodeError:
        raise StoreError("%s: not ASCII text" % name)
    lines = text.split("\n")
    head = lines[0].split()
    if len(head) != 2 or head[0] != FORMAT:
        raise StoreError("%s: not a saved game (starts with %r)" % (name, lines[0][:40]))
    if head[1] != str(VERSION):
        raise StoreError("%s: saved in format %s, this firmware reads format %d" % (name, head[1], VERSION))
    seq = -1
    mode = None
    fen = None
    moves = []
    result = None
    opponent = None
    clock = None
    for line in lines[1:]:
        if not line:
            continue
        parts = line.split(" ", 1)
        key = parts[0]
        value = parts[1] if len(parts) > 1 else ""
        if key == "seq":
            try:
                seq = int(value) if len(value) < 11 else -1
            except ValueError:
                seq = -1
            if not 0 <= seq <= _MAX_SEQ:
                raise StoreError("%s: bad save counter %r" % (name, value[:40]))
        elif key == "mode":
            if value not in MODES:
                raise StoreError("%s: unknown mode %r" % (name, value[:40]))
            mode = value
        elif key == "start":
            fen = value
        elif key == "moves":
            moves.extend(value.split())
        elif key == "result":
            words = value.split()
            if len(words) != 2 or words[1] not in _RESULTS or words[0] not in _RESULTS[words[1]]:
                raise StoreError("%s: bad result line %r" % (name, value[:40]))
            result = (words[0], words[1])
        elif key == "opponent":
            words = value.split()
            if len(words) != 2 or words[0] not in ("white", "black") or words[1] not in "12345678" or len(words[1]) != 1:
                raise StoreError("%s: bad opponent line %r" % (name, value[:40]))
            opponent = value
        elif key == "clock":
            clock = _parse_clock(value, name)
        else:
            raise StoreError("%s: unknown line %r" % (name, line[:40]))
    if seq < 0 or mode is None or fen is None:
        raise StoreError("%s: incomplete record (seq, mode or start missing)" % name)
    return seq, mode, fen, moves, result, opponent, clock


def _parse_clock(value, name):
    """(control, 9 clock numbers, 2 illegal-move counts), or the text saying the line is bad."""
    words = value.split()
    bad = "%s: bad clock line %r" % (name, value[:60])
    if len(words) != 1 + _CLOCK_NUMBERS:
        return bad
    from core.clock import Clock, parse_control

    try:
        numbers = tuple(int(w) if len(w) < 10 else -1 for w in words[1:])
        Clock(parse_control(words[0])).restore(numbers[:9])  # checks the numbers fit the control
    except ValueError:
        return bad
    if not (0 <= numbers[9] <= 2 and 0 <= numbers[10] <= 2):
        return bad
    return words[0], numbers[:9], numbers[9:]
