"""The terminal view: the board, whose turn it is, the clocks, the last moves, what the LEDs show,
and messages in plain words.

On a terminal it redraws the whole screen (ANSI colours: light and dark squares, the squares the
board's LEDs light in their own colours); into a pipe or a file it prints each message as one
line, and the board only when asked (`show`), so a log reads as a story.
"""
import os
import shutil
import sys
import time

import chess

GLYPHS = {
    "K": "\u2654", "Q": "\u2655", "R": "\u2656", "B": "\u2657", "N": "\u2658", "P": "\u2659",
    "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f",
}
LIGHT = "\x1b[48;5;180m"
DARK = "\x1b[48;5;137m"
# The LED colours of the board's own signals (hardware/leds.py): a move to make is blue, a square
# to fix is orange, a hint is green.
LED_BG = {"move": "\x1b[48;5;33m", "fix": "\x1b[48;5;208m", "hint": "\x1b[48;5;40m"}
RESET = "\x1b[0m"
MESSAGES_KEPT = 8


def clock_text(ms):
    """1:02:03, 4:05, and tenths under ten seconds (9.4), as a chess clock shows them."""
    if ms is None:
        return "--:--"
    ms = max(0, int(ms))
    if ms < 10000:
        return "%d.%d" % (ms // 1000, (ms % 1000) // 100)
    h, rest = divmod(ms // 1000, 3600)
    m, s = divmod(rest, 60)
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


class View:
    def __init__(self, out=None, colour=None, flipped=False):
        self.out = out or sys.stdout
        tty = hasattr(self.out, "isatty") and self.out.isatty()
        self.screen = tty
        self.colour = tty and os.environ.get("NO_COLOR") is None if colour is None else colour
        self.flipped = flipped
        self.messages = []
        self.lines = []

    def say(self, text):
        stamp = time.strftime("%H:%M:%S")
        self.messages.append("%s %s" % (stamp, text))
        del self.messages[:-MESSAGES_KEPT]
        if not self.screen:
            self.out.write(text + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ drawing

    def draw(self, state):
        """state: dict with board (chess.Board), title, white, black, wtime, btime, leds
        ({square name: "move"|"fix"|"hint"}), leds_text, status, prompt."""
        self.lines = self.render(state)
        if self.screen:
            width = shutil.get_terminal_size().columns
            self.lines = [line if len(line) <= width or "\x1b" in line else line[:width - 1] + "\u2026"
                          for line in self.lines]
            # Home, each line over the old one (cleared to its end), the rest cleared: no flicker.
            self.out.write("\x1b[H" + "".join(line + "\x1b[K\n" for line in self.lines) + "\x1b[J"
                           + state.get("prompt", "> "))
            self.out.flush()

    def show(self, state):
        """Print the board once (the `show` command, and the end of a game, into a pipe)."""
        for line in self.render(state, colour=self.colour):
            self.out.write(line + "\n")
        self.out.flush()

    def render(self, state, colour=None):
        colour = self.colour if colour is None else colour
        board = state["board"]
        leds = state.get("leds", {})
        last = board.move_stack[-1] if board.move_stack else None
        lines = [state.get("title", "")]
        top, bottom = ("black", "white") if not self.flipped else ("white", "black")
        lines.append(self._player_line(state, top, board))
        ranks = range(7, -1, -1) if not self.flipped else range(8)
        files = range(8) if not self.flipped else range(7, -1, -1)
        for r in ranks:
            row = "%d " % (r + 1)
            for f in files:
                sq = chess.square(f, r)
                p = board.piece_at(sq)
                name = chess.square_name(sq)
                if colour:
                    bg = LED_BG.get(leds.get(name)) or (LIGHT if (f + r) % 2 else DARK)
                    glyph = GLYPHS[p.symbol()] if p else " "
                    mark = " "
                    if last and sq in (last.from_square, last.to_square) and name not in leds:
                        mark = "\u00b7"
                    row += "%s\x1b[30m%s%s %s" % (bg, mark, glyph, RESET)
                else:
                    sym = p.symbol() if p else "."
                    led = {"move": "*", "fix": "!", "hint": "?"}.get(leds.get(name), " ")
                    if led == " " and last and sq in (last.from_square, last.to_square):
                        led = "-"
                    row += " %s%s" % (sym, led)
            lines.append(row)
        letters = "abcdefgh" if not self.flipped else "hgfedcba"
        lines.append("  " + "".join((" %s " if colour else " %s ") % c for c in letters))
        lines.append(self._player_line(state, bottom, board))
        lines.append("")
        lines.append(state.get("status", ""))
        lines.append("LEDs: " + (state.get("leds_text") or "the board's own (nothing asked of you)"))
        lines.append("moves: " + (moves_text(board, 10) or "-"))
        lines.append("")
        lines.extend(self.messages)
        return lines

    def _player_line(self, state, colour, board):
        name = state.get(colour) or colour.capitalize()
        ms = state.get("wtime" if colour == "white" else "btime")
        turn = (board.turn == chess.WHITE) == (colour == "white") and not board.is_game_over()
        clock = clock_text(ms) if ms is not None else ""
        arrow = "\u25b6 " if turn else "  "
        return "%s%-28s %s" % (arrow, name, clock)


def moves_text(board, last_n=None):
    """The moves in SAN, numbered (the last `last_n` full moves only)."""
    parts = []
    b = board.root()
    for i, move in enumerate(board.move_stack):
        if b.turn == chess.WHITE:
            parts.append("%d. %s" % (b.fullmove_number, b.san(move)))
        else:
            if i == 0:
                parts.append("%d... %s" % (b.fullmove_number, b.san(move)))
            else:
                parts[-1] += " " + b.san(move)
        b.push(move)
    if last_n is not None and len(parts) > last_n:
        parts = ["..."] + parts[-last_n:]
    return " ".join(parts)
