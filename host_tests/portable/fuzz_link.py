# Seeded fuzzing of the USB link (issue 11): lines and bytes to a whole board on fakes.
from fuzz_base import FENS, Rng, fen_input, mutate


# ---------------------------------------------------------------------- the USB link

_LINK_WORDS = (
    "begin", "move", "ok", "nok", "promote", "undo", "end", "err", "msg", "feature", "variant",
    "set_variant", "check", "side", "draw_offer", "get_state", "last_move", "time", "score", "state",
    "set_state", "options_begin", "set_option", "status", "board", "fen", "pgn", "help", "mode", "new",
)
_ARGS = (
    "", "e2e4", "e7e5", "g1f3", "e7e8q", "a7a8n", "e2e9", "e2e4e5", "q", "n", "x", "strict", "casual",
    "w", "b", "?", "e1", "z9", "msg", "undo", "check", "standard", "chess960", "resign", "get_state",
) + FENS
_LINK_CHARS = "abcdefgh12345678 qrbnkpKQRBNP/-wb01x?\t"


def link_line(rng):
    """One line as a PC could send it: a command with plausible, mutated or hostile arguments."""
    word = rng.pick(_LINK_WORDS)
    how = rng.below(10)
    if how <= 3:
        line = word + " " + rng.pick(_ARGS)
    elif how <= 5:
        line = word + " " + fen_input(rng)
    elif how == 6:
        line = mutate(rng, word + " " + rng.pick(_ARGS), _LINK_CHARS)
    elif how == 7:
        line = word + " " + " ".join(rng.pick(_ARGS) for _ in range(1 + rng.below(8)))
    elif how == 8:
        line = word
    else:
        line = rng.pick(("", " ", "\t", word.upper(), word + word)) + rng.pick(_ARGS)
    return line


# DGT hosts' messages (link/dgt.py): commands, clock messages, LEDs, bus frames (to the board's
# address without a chip id, 1234 = 0x09 0x52, and to every board), LiveChess's 0x92.
_DGT = (
    b"\x40", b"\x41", b"\x42", b"\x43", b"\x44", b"\x45", b"\x46", b"\x47", b"\x49", b"\x4a", b"\x4b",
    b"\x4c", b"\x4d", b"\x55", b"\x2b\x03\x03\x09\x00", b"\x2b\x0a\x03\x0a\x00\x05\x00\x00\x05\x00\x01\x00",
    b"\x2b\x04\x03\x0b\x10\x00", b"\x60\x04\x01\x0c\x1c\x00", b"\x60\x04\x00\x40\x40\x00",
    b"\x60\x07\x05\x01\x00\x05\x24\x34\x00", b"\x60\x02\x00\x00", b"\x87\x00\x00\x07", b"\x82\x09\x52\x5d",
    b"\x83\x09\x52\x5e", b"\x85\x09\x52\x60", b"\x86\x09\x52\x61", b"\x8d\x09\x52\x68", b"\x92\x00\x00\x12",
)


def dgt_bytes(rng):
    """A DGT host's message, whole, cut short, or with one byte changed."""
    data = bytearray(rng.pick(_DGT))
    how = rng.below(4)
    if how == 1 and len(data) > 1:
        data = data[: 1 + rng.below(len(data) - 1)]
    elif how == 2:
        data[rng.below(len(data))] = rng.below(256)
    return bytes(data)


def link_bytes(rng):
    """Raw bytes: line ends of every kind, control and high bytes, over-long lines, DGT's messages."""
    out = bytearray()
    for _ in range(1 + rng.below(4)):
        k = rng.below(6)
        if k == 0:
            for _ in range(rng.below(40)):
                out.append(rng.below(256))
        elif k == 1:
            out += b"x" * (100 + rng.below(200))
        elif k == 2:
            out += link_line(rng).encode()
        elif k == 3:
            out += rng.pick((b"\r", b"\n", b"\r\n", b"\n\r", b"\x00", b"\xff", b"\x1b[A"))
        elif k == 4:
            out += dgt_bytes(rng)
        else:
            out += b"\r\n"
    return bytes(out)


class LinkRig:
    """A board on fakes (virtual reed matrix, real scanner, App, saved game on a fake flash) with
    its USB link; `out` keeps what the link wrote."""

    def __init__(self):
        import config
        from app import App
        from hardware.fake import RamFiles, VirtualReedMatrix
        from hardware.leds import TextLeds
        from hardware.matrix import MatrixScanner
        from link.link import Link
        from store import GameStore

        self.vm = VirtualReedMatrix()
        for sq in list(range(16)) + list(range(48, 64)):
            self.vm.place(sq)
        scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        self.app = App(config.Settings(), scanner, TextLeds(), GameStore("game.sav", RamFiles()))
        self.out = []
        self.chesslink = []  # ChessLink's and DGT's answers: bytes, no line ends (docs/spec.md sections 7, 12)
        self.link = Link(self.app, self.out.append, self.chesslink.append, dgt=True)  # as main.py wires USB
        self.app.console = self.link.info
        self.t = 0
        self.app.start(0)
        self.link.poll(0)

    def run(self, ms):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)
            self.link.poll(self.t)

    def hands(self, rng):
        """A player touching the board: a piece up, or one down on an empty square."""
        sq = rng.below(64)
        if self.vm.occupied(sq):
            self.vm.lift(sq)
        else:
            self.vm.place(sq)


def fuzz_link(n, seed=1, raw_percent=25):
    """n lines (or byte chunks) sent to the link, with the board scanned and pieces moved between
    them: no internal error, no exception out of the link or the App, every line ASCII."""
    rng = Rng(seed)
    rig = LinkRig()
    stats = {"inputs": 0, "err lines": 0, "lines out": 0}
    for _ in range(n):
        if rng.chance(raw_percent):
            data = link_bytes(rng)
        else:
            data = link_line(rng) + rng.pick(("\n", "\r\n", "\r"))
        stats["inputs"] += 1
        start = len(rig.out)
        rig.link.feed(data if rng.chance(50) else data.encode() if isinstance(data, str) else data)
        if rng.chance(30):
            rig.hands(rng)
        if rng.chance(40):
            rig.run(5 * (1 + rng.below(60)))
        for text in rig.out[start:]:
            assert text.endswith("\n"), "%r: %r" % (data, text)
            for ch in text:
                assert 32 <= ord(ch) < 127 or ch == "\n", "%r: non-ASCII answer %r" % (data, text)
            assert "internal error" not in text, "%r: %r" % (data, text)
            if text.startswith("err "):
                stats["err lines"] += 1
        stats["lines out"] += len(rig.out) - start
        if len(rig.out) > 2000:
            del rig.out[:]
    return stats
