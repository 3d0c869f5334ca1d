"""A picture of the companion's terminal view for docs/companion.md, from a real session.

Usage: .venv/bin/python -m companion.screenshot [OUT.png]   (run from tools/; default
tools/companion/screenshot.png)

Starts the simulated board on a pseudo-terminal, runs `play.py engine` against Stockfish in a
tmux window (a real terminal, so the view draws in colour), plays a few moves on the board with
the engine's replies, captures the pane with its colours (tmux capture-pane -e) and has headless
Chromium (/usr/bin/chromium, or $CHROMIUM; Playwright from requirements-dev.txt) render it.
Needs tmux and Stockfish.
"""
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import chess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SESSION = "companion-screenshot"
COLS, ROWS = 78, 27
PLAYER = ["e2 e4", "g1 f3", "f1 c4"]
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def xterm_rgb(n):
    """The RGB of xterm's 256-colour palette entry n."""
    base = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
            (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
            (255, 0, 255), (0, 255, 255), (255, 255, 255)]
    if n < 16:
        return base[n]
    if n < 232:
        n -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    g = 8 + 10 * (n - 232)
    return g, g, g


def ansi_to_html(text):
    out = []
    fg, bg = None, None
    for line in text.split("\n"):
        pos = 0
        row = []
        for m in SGR.finditer(line):
            row.append((fg, bg, line[pos:m.start()]))
            codes = [int(c) if c else 0 for c in m.group(1).split(";")]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg = bg = None
                elif 30 <= c <= 37:
                    fg = xterm_rgb(c - 30)
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                    if c == 38:
                        fg = xterm_rgb(codes[i + 2])
                    else:
                        bg = xterm_rgb(codes[i + 2])
                    i += 2
                i += 1
            pos = m.end()
        row.append((fg, bg, line[pos:]))
        cells = []
        for f, b, t in row:
            if not t:
                continue
            style = ""
            if f:
                style += "color:rgb%s;" % (f,)
            if b:
                style += "background:rgb%s;" % (b,)
            # A chess glyph comes from a fallback font, wider than the mono font's cells: each
            # non-ASCII character gets a cell of one character's width, as in a terminal.
            body = "".join(c if ord(c) < 128 else '<span class="g">%s</span>' % c for c in html.escape(t))
            cells.append('<span style="%s">%s</span>' % (style, body) if style else body)
        out.append("".join(cells))
    return ("<html><head><style>.g{display:inline-block;width:1ch;text-align:center;"
            "line-height:1}</style></head><body style='margin:0;background:#1d1f21'><pre style='margin:0;padding:14px;"
            "font:18px/1.25 \"DejaVu Sans Mono\",monospace;color:#e0e0e0'>%s</pre></body></html>" % "\n".join(out))


def tmux(*args):
    return subprocess.run(["tmux"] + list(args), check=True, capture_output=True, text=True).stdout


def main(argv):
    from playwright.sync_api import sync_playwright

    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "screenshot.png")
    tmp = tempfile.mkdtemp()
    link = os.path.join(tmp, "board")
    python = sys.executable
    sim = subprocess.Popen([python, os.path.join(ROOT, "tools", "sim_terminal.py"), "-q", "--serial", link],
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=ROOT)
    time.sleep(1)
    play = "%s %s engine --port %s --elo 1500 --time 0.3 --pgn %s" % (
        python, os.path.join(ROOT, "tools", "play.py"), link, os.path.join(tmp, "games.pgn"))
    tmux("new-session", "-d", "-s", SESSION, "-x", str(COLS), "-y", str(ROWS), play)
    board = chess.Board()
    try:
        for _ in range(100):  # until the board is in step (the handshake done)
            time.sleep(0.2)
            if "match the game" in tmux("capture-pane", "-t", SESSION, "-p"):
                break
        for n, squares in enumerate(PLAYER):
            sim.stdin.write("move %s\n" % squares)
            sim.stdin.flush()
            board.push_uci(squares.replace(" ", ""))
            for _ in range(50):
                time.sleep(0.2)
                found = re.findall(r"plays \S+ \((\w+)\)", tmux("capture-pane", "-t", SESSION, "-p"))
                if len(found) > n:
                    break
            uci = found[n]
            if n < len(PLAYER) - 1:  # the last reply stays lit, as the player sees it
                hands = "move %s %s" % (uci[:2], uci[2:4])
                if board.piece_at(chess.parse_square(uci[2:4])):
                    hands = "lift %s; %s" % (uci[2:4], hands)  # a capture: the victim off first
                sim.stdin.write(hands + "\n")
                sim.stdin.flush()
                board.push_uci(uci)
                time.sleep(1)
        time.sleep(1)
        screen = tmux("capture-pane", "-t", SESSION, "-p", "-e", "-N")  # -N: keep trailing spaces (empty h-file squares)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        sim.wait(5)
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 860, "height": 620}, device_scale_factor=1)
        page.set_content(ansi_to_html(screen.rstrip("\n")))
        page.locator("pre").screenshot(path=out)
        browser.close()
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
