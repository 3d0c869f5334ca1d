# The game's PGN kept up to date move by move, for a broadcast (online/broadcast.py) that sends it
# whole after every move: the movetext lives in one bytearray that only grows at its end, each
# move written once (its SAN, its number, its `{[%clk h:mm:ss]}`), so a push costs no rebuilding
# of a 300-move string (core/notation.py's pgn() makes a word list and joins it: kilobytes of
# garbage a move on a heap of 200 KB). A takeback cuts the text back to where that move began.
#
# Pure: the game, the clock's per-move times and the date come in as arguments.
#
# The text: the tags (the seven tag roster, Board, TimeControl, SetUp/FEN for a position set up),
# a blank line, then one line per move pair, "12. Nf3 {[%clk 0:04:58]} 12... Nc6 {[%clk 0:04:51]}"
# (the number again after a comment, as PGN export does), then the result. A line stays under 80
# characters without wrapping. lila reads `[%clk]` (modules/relay) and matches a pushed game to the
# round's board by its tags, so the tags stay the same from the first move to the result.
from array import array

from core.position import STARTING_FEN, Position

_GROW = 1024  # the movetext grows by this much: about 40 moves with clocks


class PgnWriter:
    def __init__(self, capacity=_GROW):
        self.text = bytearray(capacity)  # the movetext, self.n bytes of it used
        self.n = 0
        self.starts = array("H")  # where each ply's text begins in self.text
        self.moves = array("l")  # the moves written (core/position.py's ints), one per ply
        self.ply = 0  # how many of starts and moves are in use (the arrays never shrink)
        self.position = None  # the position after the moves written (SAN needs the one before)
        self.start_fen = None
        self.comment = False  # the last ply written ended with a clock comment
        self.head = b""  # the tags and the blank line after them
        self.tags = None  # what head was made from: rebuilt only when one of them changes
        self.result = "*"

    # ------------------------------------------------------------------ following the game

    def follow(self, game, clocks, tags):
        """Bring the text up to the game: returns whether it changed. clocks: the mover's ms left
        after each of the last len(clocks) moves (core/clock.py's history), or None without a clock;
        tags: (key, value) pairs for the head (the roster, Board, TimeControl), in order."""
        changed = False
        if game.start_fen != self.start_fen:
            self.start_fen = game.start_fen
            self.position = Position(game.start_fen)
            self.n = self.ply = 0
            self.comment = False
            self.tags = None
            changed = True
        if game.ply() != self.ply or game.last_move() != (self.moves[self.ply - 1] if self.ply else 0):
            moves = game.moves  # a new list: only when something moved
            keep = 0
            while keep < self.ply and keep < len(moves) and moves[keep] == self.moves[keep]:
                keep += 1
            self._cut(keep)
            first_clock = len(moves) - len(clocks) if clocks is not None else len(moves)
            for i in range(keep, len(moves)):
                self._append(moves[i], clocks[i - first_clock] if i >= first_clock else -1)
            changed = True
        if game.result != self.result or tags != self.tags:
            self.result = game.result
            self.tags = tags
            self._head(tags)
            changed = True
        return changed

    def parts(self):
        """The PGN as pieces to write one after another (nothing copied): head, movetext, result."""
        return (self.head, memoryview(self.text)[: self.n], self.result.encode() + b"\n")

    def size(self):
        return len(self.head) + self.n + len(self.result) + 1

    def pgn(self):
        """The whole PGN as bytes (tests, the PC's companion): a copy."""
        head, body, tail = self.parts()
        return bytes(head) + bytes(body) + tail

    # ------------------------------------------------------------------ writing

    def _head(self, tags):
        lines = []
        for key, value in tags:
            lines.append('[%s "%s"]\n' % (key, str(value).replace("\\", "\\\\").replace('"', '\\"')))
        lines.append('[Result "%s"]\n' % self.result)
        if self.start_fen != STARTING_FEN:
            lines.append('[SetUp "1"]\n[FEN "%s"]\n' % self.start_fen)
        lines.append("\n")
        self.head = "".join(lines).encode()

    def _cut(self, keep):
        """Forget the plies from keep on (a takeback, or a game that went another way)."""
        if keep >= self.ply:
            return
        self.n = self.starts[keep]
        while self.ply > keep:
            self.ply -= 1
            self.position.unmake()
        self.comment = keep > 0 and self.text[self.n - 2] == 0x7D  # "}" and the separator after it

    def _append(self, move, clock_ms):
        from core.notation import san

        p = self.position
        start = self.n
        white = p.side == 0
        if white:
            self._number(p.fullmove)
            self._put(b". ")
        elif self.ply == 0 or self.comment:
            self._number(p.fullmove)
            self._put(b"... ")
        self._put(san(p, move).encode())
        p.make(move)
        self.comment = clock_ms >= 0
        if self.comment:
            self._put(b" {[%clk ")
            self._clock(clock_ms)
            self._put(b"]}")
        self._put(b" " if white else b"\n")
        i = self.ply
        if i < len(self.starts):
            self.starts[i] = start
            self.moves[i] = move
        else:
            self.starts.append(start)
            self.moves.append(move)
        self.ply = i + 1

    def _room(self, k):
        if self.n + k > len(self.text):
            text = bytearray(len(self.text) + _GROW)
            text[: self.n] = memoryview(self.text)[: self.n]
            self.text = text

    def _put(self, data):
        k = len(data)
        self._room(k)
        self.text[self.n : self.n + k] = data
        self.n += k

    def _number(self, value):
        """A whole number's digits, written in place (no string made)."""
        digits = 1
        d = 10
        while value >= d:
            digits += 1
            d *= 10
        self._room(digits)
        text = self.text
        self.n += digits
        i = self.n
        while digits:
            i -= 1
            text[i] = 48 + value % 10
            value //= 10
            digits -= 1

    def _clock(self, ms):
        """h:mm:ss, rounded up to the second as clocks show time left (core/clock.py's clock_text)."""
        s = (ms + 999) // 1000 if ms > 0 else 0
        self._number(s // 3600)
        self._put(b":")
        self._two(s // 60 % 60)
        self._put(b":")
        self._two(s % 60)

    def _two(self, v):
        self._room(2)
        self.text[self.n] = 48 + v // 10
        self.text[self.n + 1] = 48 + v % 10
        self.n += 2
