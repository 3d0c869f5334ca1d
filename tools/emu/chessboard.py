"""The chessboard around the emulated Pico: magnets on the reed matrix, the LEDs read back, transcripts played.

    from chessboard import EmulatedBoard
    with EmulatedBoard() as board:                 # boots the firmware of `make flash`
        out = board.play(open("host_tests/transcripts/slide.txt").read())
        print(out.lines)                           # ["move a1a8", ..., "fen ..."], as tools/replay.py prints

play() does what a player does: the pieces of the transcript's @fen stand on the board, the board
is told the game (`mode`, `new FEN` over the USB link, as a PC would), then every `T_MS lift SQ` /
`T_MS place SQ` moves a magnet at its instant of emulated time, through the GPIOs of config.py's
pin map. What the board says on its USB console (`move e2e4`, `error ...`) and what its WS2812B
chain shows come back; `fen` is asked at the end.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
for _p in (HERE, os.path.join(ROOT, "tools", "hands"), os.path.join(ROOT, "firmware"), os.path.join(ROOT, "tools", "shims")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import config  # noqa: E402
import transcript  # noqa: E402
from chip import Chip, firmware_image  # noqa: E402
from core import signals  # noqa: E402
from core.position import Position  # noqa: E402
from hardware import leds as led_table  # noqa: E402

# The lines of docs/spec.md section 5 the board's USB link prints outside a CPP round (link.py: event_text).
EVENT_WORDS = ("move", "undo", "promote", "error", "new", "claim", "end")
# Before the first transition of a transcript: time for the board to take in the new game. The
# `new` command saves the game (about 150 ms of flash writes on the chip), and a lift during that
# save is misread today (issue 8, part 3), so the transcript starts after it.
LEAD_MS = 400
# After the last transition: a commit comes within 500 ms (docs/spec.md section 3), an error shows at once.
TAIL_MS = 1000
SETTINGS = config.Settings()
CHAIN = config.chain_squares(SETTINGS.led_chain)


def occupancy(fen):
    out = bytearray(64)
    Position(fen).occupancy_into(out)
    return out


def squares_rgb(frame):
    """[(r, g, b)] per square (index 0 = a1) of a WS2812B frame (GRB bytes in chain order)."""
    out = [(0, 0, 0)] * 64
    for n in range(min(64, len(frame) // 3)):
        g, r, b = frame[3 * n], frame[3 * n + 1], frame[3 * n + 2]
        out[CHAIN[n]] = (r, g, b)
    return out


def colour_signals(rgb):
    """The signal names whose colour this is (any brightness): e.g. {"quiet", "mating-piece", ...}."""
    if max(rgb) == 0:
        return set()
    out = set()
    top = max(rgb)
    for code in range(1, signals.COUNT):
        c = led_table.COLOURS[3 * code : 3 * code + 3]
        k = top / max(c)
        if all(abs(rgb[i] - c[i] * k) <= 2 + 0.02 * c[i] * k for i in range(3)):
            out.add(signals.name(code))
    return out


def mono_lit(rows):
    """Square names lit in MAX7219 digit bytes (digit r = rank r+1, bit f = file a+f)."""
    from core.position import square_name

    return {square_name(8 * r + f) for r in range(8) for f in range(8) if rows[r] >> f & 1}


def lit(frame):
    """{square name: set of signal names} of the lit squares of a frame."""
    from core.position import square_name

    return {square_name(sq): colour_signals(rgb) for sq, rgb in enumerate(squares_rgb(frame)) if max(rgb)}


class Played:
    """What a transcript did on the board: lines (docs/spec.md section 5, with the final `fen`), frames
    [(ms since the first transition, WS2812B bytes)], mono [(ms, 8 MAX7219 digit bytes, lit)],
    console [(ms, text)], saves [(ms, ms it lasted)]: the flash writes (a save's erases and
    programs, joined where they follow each other), and the emulated cost."""

    def __init__(self, lines, frames, console, start_ms, cpu_ms, mono=(), saves=()):
        self.lines = lines
        self.saves = saves
        self.frames = frames
        self.mono = mono
        self.console = console
        self.start_ms = start_ms
        self.cpu_ms = cpu_ms

    def frame_at(self, t_ms):
        """The frame the LEDs showed at t_ms (ms of the transcript's clock), or None."""
        shown = None
        for t, f in self.frames:
            if t > t_ms:
                break
            shown = f
        return shown


def flash_writes(busy, start_ms, gap_ms=5.0):
    """The flash waits [(ms, ms)] joined into writes: waits less than gap_ms apart are one save (a
    littlefs commit is several erases and programs with a little code between them)."""
    out = []
    for t, ms in busy:
        t -= start_ms
        if out and t - (out[-1][0] + out[-1][1]) < gap_ms:
            out[-1] = (out[-1][0], t + ms - out[-1][0])
        else:
            out.append((t, ms))
    return out


class EmulatedBoard:
    """settings: a board.json for the flash ({"led_type": "max7219"}, ...), as a builder writes it."""

    def __init__(self, chip=None, fs=None, settings=None):
        self.chip = chip or Chip()
        self.fs = fs
        self.settings = settings
        self.closed = occupancy(transcript.STARTING_FEN)

    def boot(self, fs=None, flash=None):
        if not (fs or self.fs or flash):
            extra = None
            if self.settings is not None:
                import json

                extra = {"board.json": json.dumps(self.settings).encode()}
            fs = firmware_image(extra=extra)
        self.fs = fs or self.fs
        return self.chip.boot(fs=self.fs, flash=flash, closed=self.closed)

    def place_all(self, closed):
        self.closed = bytearray(closed)
        self.chip.squares(self.closed)

    def new_game(self, fen, mode):
        """Pieces of `fen` on the board, and the board told the game (as a PC would)."""
        self.place_all(occupancy(fen))
        self.chip.command("mode " + mode, until="mode " + mode)
        self.chip.command("new " + fen, until="ok")

    def play(self, text, fen=None, mode=None, tail_ms=TAIL_MS, new_game=True):
        """Play a transcript; returns Played."""
        fen, mode, events = transcript.parse(text, fen, mode)
        if new_game:
            self.new_game(fen, mode)
        asked = transcript.file_new(text)
        if asked is not None:
            self.chip.command("new " + asked, until="ok")  # the pieces stay where they stand
        chip = self.chip
        chip.run(LEAD_MS)
        first = events[0][0] if events else 0
        timed = [(t - first, occupied, sq) for t, occupied, sq in events]
        for t, occupied, sq in timed:
            self.closed[sq] = occupied
        console_from = len(chip.lines)
        frames_from = len(chip.frames)
        mono_from = len(chip.mono)
        start = chip.now_ms
        cpu0 = chip.last["cpu_ms"]
        end = (timed[-1][0] if timed else 0) + tail_ms
        chip.run(end, events=timed)
        chip.command("fen", until="fen ")
        console = [(t - start, s) for t, s in chip.lines[console_from:]]
        lines = [s for t, s in console if s.split(" ", 1)[0] in EVENT_WORDS]
        lines.append([s for t, s in console if s.startswith("fen ")][-1])
        frames = [(t - start, f) for t, f in chip.frames[frames_from:]]
        mono = [(t - start, rows, on) for t, rows, on in chip.mono[mono_from:]]
        return Played(lines, frames, console, start, chip.last["cpu_ms"] - cpu0, mono, flash_writes(chip.flash_busy(start), start))

    def close(self):
        self.chip.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def expected(text, tail_ms=TAIL_MS):
    """The same transcript through the same firmware core on CPython (tools/hands/transcript.py), with the
    same tail after the last transition: the lines the chip must print."""
    fen, mode, events = transcript.parse(text)
    saved = transcript.TAIL_MS
    transcript.TAIL_MS = tail_ms
    try:
        return transcript.run(fen, mode, events)
    finally:
        transcript.TAIL_MS = saved
