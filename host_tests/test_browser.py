# The browser simulator in a real browser: headless Chromium plays a scripted game with the mouse.
#
# tools/sim/sim_server.py serves sim/ and MicroPython's WebAssembly build; Playwright (PyPI, pinned in
# requirements-dev.txt) drives Debian's chromium (/usr/bin/chromium; no browser is downloaded).
# The game is played twice, with a mouse on a desktop-sized page and with a finger on a 390 x 844
# touch screen: a quiet move with the lifted piece's LEDs and its "pending" mark, moves by click
# then click (the piece held in the air), pieces knocked over together (no touch-move, the plain
# words guide them back), castling king first with a slide, an illegal move flagged and retracted
# (touch-move then binds the piece), a capture victim first, a capture by swapping, check, mate,
# the board flipped, the move list clicked to look back, the monochrome view with its legend, the
# PGN download (real date, the mode in Event), a position from a FEN (logged), a promotion changed
# to a knight by taps with its hint, casual mode's takeback button, the layout (status beside or
# under the board, labelled trays, the phone's intro without Shift), the log cleared by a new game,
# a 5+3 clock on the trays (increments, the running side, a pause, a control refused), a flag
# falling on a 0:02 clock, and a game against the board's engine at level 1 (its move lit blue and
# in the status, another move refused, its move made by hand; the kings' gesture followed by the
# page's controls).
#
# `make test-browser` runs this file (make test-cpython leaves it out). Without a browser it skips
# with a message - except where CI=true, where a missing browser or driver is a failure.
import os
import re
import shutil
import threading

import pytest

from core import signals as S  # firmware/core/signals.py: the legend has a row for each signal but off
from core.clock import short_text  # what a clock face shows: the page draws the same (sim.js clockFace)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# The flags that work in a container as root: no sandbox, no GPU, nothing fetched in the background.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MP_MODULE = os.path.join(ROOT, "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs")

# Full-scale colours of hardware/leds.py (the simulator's strip runs at brightness 255).
WHITE_LED = "ffffff"  # place-here
GREEN = "00ff00"  # quiet
RED = "ff0000"  # capture
CYAN = "00ffff"  # lifted, touched
BLUE = "0000ff"  # promote-rook
MAGENTA = "ff00ff"  # illegal, promote-queen
ORANGE = "ff5000"  # promote-bishop, remove
VIOLET = "8000ff"  # mated-king
GOLD = "ffa000"  # mating-piece
WARM_DIM = "302818"  # last-move: (48, 40, 24)
DESKTOP = {"viewport": {"width": 1200, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def unavailable(reason):
    if CI:
        pytest.fail("CI=true and the browser test cannot run: " + reason)
    pytest.skip(reason)


def chromium_path():
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def find_chromium():
    path = chromium_path()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


@pytest.fixture(scope="module")
def server():
    import sim_server  # tools/ is on sys.path through conftest.py

    if not os.path.isfile(MP_MODULE):
        unavailable("node_modules/@micropython/micropython-webassembly-pyscript is missing (run npm ci)")
    srv = sim_server.make_server("127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield sim_server.server_url(srv)
    srv.shutdown()
    srv.server_close()


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        unavailable("no browser at %s (apt-get install chromium, or set CHROMIUM=path)" % chromium_path())
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -r requirements-dev.txt)")
    with sync_playwright() as p:
        # Playwright gives every launch a fresh temporary profile (--user-data-dir).
        b = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Board:
    """The page, played as a person would: with a mouse on a desktop, with a finger on a phone."""

    def __init__(self, page, touch):
        self.page = page
        self.touch = touch
        self.cdp = page.context.new_cdp_session(page) if touch else None
        self.at = (0, 0)

    def xy(self, name):
        # Asked each time: the page may have scrolled (a button clicked below the board) or flipped.
        return tuple(self.page.evaluate(
            "(n) => { const r = document.querySelector('.sq[data-name=\"' + n + '\"]').getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; }", name))

    def tray_xy(self, colour="w"):
        box = self.page.locator("#tray-%s .tray-label" % colour).bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    # The hand: a mouse, or a finger through Chromium's touch input (pointer events of type touch).
    def _touch(self, kind, x=0, y=0):
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def down_at(self, x, y):
        if self.touch:
            self._touch("touchStart", x, y)
        else:
            self.page.mouse.move(x, y)
            self.page.mouse.down()
        self.at = (x, y)

    def move_to(self, x, y, steps=4):
        if self.touch:
            x0, y0 = self.at
            for i in range(1, steps + 1):
                self._touch("touchMove", x0 + (x - x0) * i / steps, y0 + (y - y0) * i / steps)
        else:
            self.page.mouse.move(x, y, steps=steps)
        self.at = (x, y)

    def up(self):
        if self.touch:
            self._touch("touchEnd")
        else:
            self.page.mouse.up()

    def in_view(self):
        # A button clicked below the board scrolls the phone's page: bring the board back, as a
        # person would before touching it.
        self.page.evaluate("document.getElementById('board-frame').scrollIntoView({block: 'nearest'})")

    def lift(self, name):
        self.in_view()
        self.down_at(*self.xy(name))

    def hover(self, name):
        self.move_to(*self.xy(name), steps=6)

    def drop(self, name=None):
        self.move_to(*(self.tray_xy() if name is None else self.xy(name)))
        self.up()

    def drag(self, a, b=None, slide=False):
        if slide and self.touch:
            self.page.check("#slide")  # no Shift key on a phone
        self.lift(a)
        if slide and not self.touch:
            # Shift held from the lift to the drop: the piece stays on the board all the way.
            self.page.keyboard.down("Shift")
        self.drop(b)
        if slide:
            if self.touch:
                self.page.uncheck("#slide")
            else:
                self.page.keyboard.up("Shift")

    def drag_from_tray(self, colour, name):
        self.page.evaluate("document.getElementById('tray-%s').scrollIntoView({block: 'nearest'})" % colour)
        box = self.page.locator("#tray-%s .tray-piece" % colour).first.bounding_box()
        self.down_at(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.drop(name)

    def tap(self, name):
        self.in_view()
        x, y = self.xy(name)
        if self.touch:
            self.page.touchscreen.tap(x, y)
        else:
            self.page.mouse.click(x, y)

    def click_move(self, a, b):
        """Click (tap) the piece: it is held in the air; click the square: it is put down there."""
        self.tap(a)
        self.wait("window.simHeld() === 'air'")
        self.tap(b)

    def wait(self, condition, timeout=5000):
        self.page.wait_for_function(condition, timeout=timeout)

    def wait_moves(self, n):
        self.wait("window.simIdle() && window.simState.game.san.length === %d" % n)

    def rgb(self, name):
        return self.page.get_attribute('.sq[data-name="%s"]' % name, "data-rgb")

    def signal(self, name):
        return self.page.get_attribute('.sq[data-name="%s"]' % name, "data-signal")

    def wait_rgb(self, name, rgb, timeout=3000):
        # Blinking signals are dark part of the time: wait for the lit phase.
        self.wait('document.querySelector(\'.sq[data-name="%s"]\').dataset.rgb === "%s"' % (name, rgb), timeout)

    def wait_signal(self, name, signal, timeout=3000):
        self.wait('document.querySelector(\'.sq[data-name="%s"]\').dataset.signal === "%s"' % (name, signal), timeout)

    def state(self):
        return self.page.evaluate("window.simState.game")

    def piece(self, name):
        f = "abcdefgh".index(name[0])
        return self.page.evaluate("window.simPieces")[f + 8 * (int(name[1]) - 1)]

    def shown(self, name):
        """The piece drawn on a square (while looking back, not the board's)."""
        return self.page.get_attribute('.sq[data-name="%s"]' % name, "data-piece")


def move(board, a, b, n, click=False):
    if click:
        board.click_move(a, b)
    else:
        board.drag(a, b)
    board.wait_moves(n)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_game_in_the_browser(server, browser, device):
    touch = device == "phone"
    page = browser.new_page(accept_downloads=True, **(PHONE if touch else DESKTOP))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        page.goto(server)
        page.wait_for_function("window.simReady === true", timeout=30000)
        board = Board(page, touch)
        the_layout(board, page, touch)
        play_the_game(board, page, touch)
        looking_back_and_flipping(board, page)
        after_the_game(board, page)
        a_promotion_tapped_round(board, page)
        casual_takebacks_and_a_new_game(board, page)
        a_clock_and_a_game_against_the_board(board, page)
        assert errors == []
    except Exception:
        os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
        page.screenshot(path=os.path.join(ROOT, "build", "test-browser-failure-%s.png" % device))
        print("page errors:", errors)
        raise
    finally:
        page.close()


def the_layout(board, page, touch):
    width = page.viewport_size["width"]
    height = page.viewport_size["height"]
    b = page.locator("#board").bounding_box()
    status = page.locator("#status").bounding_box()
    assert 0 <= b["x"] and b["x"] + b["width"] <= width
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing scrolls sideways
    # The status is under the board, on screen with it without scrolling; on a desktop the side
    # panel (moves, LEDs, events) is beside the board, on a phone below it.
    assert status["y"] >= b["y"] + b["height"] and status["y"] + status["height"] <= height
    if touch:
        # One column: the board in the middle of the screen, and the game's controls (the clock,
        # the board's engine) on the first screen under it, with no scrolling.
        frame = page.locator("#board-frame").bounding_box()
        assert abs(frame["x"] - (width - frame["x"] - frame["width"])) <= 1, frame
        assert page.locator("#game").bounding_box()["y"] > b["y"] + b["height"]
        for control in ("#mode", "#clockin", "#clockform button[type=submit]", "#clockpause", "#opponent", "#level"):
            box = page.locator(control).bounding_box()
            assert box["y"] + box["height"] <= height, (control, box)
    else:
        assert page.locator("#side").bounding_box()["x"] >= b["x"] + b["width"]
    assert "White's pieces off the board" in page.inner_text("#tray-w")
    assert "Black's pieces off the board" in page.inner_text("#tray-b")
    intro = page.inner_text(".intro")
    if touch:
        assert "Shift" not in intro and "Tap a piece, then the square" in intro
    else:
        assert "Shift" in intro and "Click a piece, then the square" in intro
    assert page.is_disabled("#takeback")  # strict mode: no takebacks
    # ... and it looks it, as Pause does before a clock: dimmed, no pointer, beside live buttons.
    for disabled in ("#takeback", "#clockpause"):
        assert page.is_disabled(disabled)
        assert looks_disabled(page, disabled) and not looks_disabled(page, "#flip"), disabled


def looks_disabled(page, selector):
    style = page.evaluate("(s) => { const c = getComputedStyle(document.querySelector(s));"
                          " return [Number(c.opacity), c.cursor]; }", selector)
    return style[0] <= 0.5 and style[1] == "not-allowed"


def play_the_game(board, page, touch):
    assert page.evaluate("window.simPieces") == "RNBQKBNR" + "P" * 8 + "." * 32 + "p" * 8 + "rnbqkbnr"
    assert board.state()["status"] == "White to move" and board.state()["mode"] == "strict"
    # A lifted pawn: its square cyan, its two destinations green, and nothing committed yet.
    board.lift("e2")
    board.hover("e3")
    board.wait_signal("e4", "quiet")
    assert (board.rgb("e2"), board.rgb("e3"), board.rgb("e4"), board.rgb("e5")) == (CYAN, GREEN, GREEN, "000000")
    assert board.state()["san"] == []
    held = page.locator("#held").bounding_box()
    if touch:
        # The piece in the hand is drawn above the finger, not under it.
        assert held["y"] + held["height"] <= board.at[1]
    else:
        assert held["y"] < board.at[1] < held["y"] + held["height"]
    board.drop("e4")
    board.wait_moves(1)
    assert page.evaluate("window.simPendingSeen()") == "e2e4"  # shown while it waited for its commit
    assert (board.rgb("e2"), board.rgb("e4")) == (WARM_DIM, WARM_DIM)
    assert board.piece("e4") == "P" and board.piece("e2") == "."

    # Click, then click: the pawn stays in the air (lifted, its moves lit) until the second click.
    board.tap("e7")
    board.wait("window.simHeld() === 'air'")
    board.wait_signal("e5", "quiet")
    assert board.signal("e7") == "lifted" and "in the air" in page.inner_text("#hint")
    board.tap("e5")
    board.wait_moves(2)

    # A sleeve knocks c2 over and b2 and d2 with it, within a few ms: an accident, never a touch.
    # The LEDs and the plain words guide the pawns back; then white plays Nf3, not bound to c2.
    page.click("#knock")
    board.tap("c2")
    board.wait("window.simState.game.error !== null && window.simState.game.error[0] === 'mismatch'")
    board.wait_rgb("b2", WHITE_LED)  # place-here
    assert board.signal("d2") == "place-here"
    assert page.locator("#tray-w .tray-piece").count() == 3
    assert "put the pawns back on b2, c2 and d2" in page.inner_text("#log")
    assert "put the pawns back on b2, c2 and d2" in page.inner_text("#status")
    for name in ("b2", "c2", "d2"):
        board.drag_from_tray("w", name)
    board.wait("window.simState.game.error === null")
    move(board, "g1", "f3", 3, click=True)
    for i, (a, b) in enumerate((("d7", "d6"), ("f1", "c4"), ("c8", "g4"))):
        move(board, a, b, i + 4, click=i == 1)
    assert "touch-move" not in page.inner_text("#log")

    # Castling king first, the king slid along the board over f1: then the LEDs ask for the rook.
    board.drag("e1", "g1", slide=True)
    board.wait("window.simIdle()")
    board.wait_signal("h1", "lifted")
    assert (board.rgb("h1"), board.rgb("f1")) == (CYAN, GREEN)
    move(board, "h1", "f1", 7)
    assert board.state()["san"][-1] == "O-O"
    move(board, "b8", "c6", 8, click=True)

    # An illegal move: magenta where the knight landed, white where it must go back, in words too.
    board.drag("b1", "b3")
    board.wait("window.simState.game.error !== null && window.simState.game.error[0] === 'illegal'")
    board.wait_rgb("b3", MAGENTA)
    board.wait_rgb("b1", WHITE_LED)
    assert board.signal("b3") == "illegal" and board.signal("b1") == "place-here"
    assert "the knight on b1 cannot go to b3" in page.inner_text("#log")
    # Retracted: strict mode's touch-move now binds the knight (FIDE 4.3), its square blinks cyan.
    board.drag("b3", "b1")
    board.wait("window.simState.game.error === null")
    board.wait_signal("b1", "touched")
    board.wait_rgb("b1", CYAN)
    move(board, "b1", "c3", 9)
    move(board, "g7", "g6", 10)

    # Capture, victim first: the pawn goes off the board, the LEDs show who can take it.
    board.drag("e5", None)
    board.wait_signal("f3", "capture")
    assert (board.rgb("f3"), board.rgb("e5")) == (RED, CYAN)
    move(board, "f3", "e5", 11)
    assert page.locator("#tray-b .tray-piece").count() == 1

    # Capture by swapping: the bishop dropped on the queen pushes her off.
    move(board, "g4", "d1", 12)
    move(board, "c4", "f7", 13, click=True)
    board.wait_signal("e8", "check")
    e8 = board.rgb("e8")  # read once: the pulse changes it every 32 ms
    r, g, b = (int(e8[i:i + 2], 16) for i in (0, 2, 4))
    # Yellow (255, 200, 0) at one of the pulse's brightness levels k/256 (hardware/ws2812.py).
    assert b == 0 and any((255 * k) >> 8 == r and (200 * k) >> 8 == g for k in range(1, 257)), (r, g, b)
    move(board, "e8", "e7", 14)
    move(board, "c3", "d5", 15)
    board.wait("window.simState.game.result === '1-0'")
    state = board.state()
    assert state["reason"] == "checkmate"
    assert state["san"] == "e4 e5 Nf3 d6 Bc4 Bg4 O-O Nc6 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#".split()
    board.wait_rgb("e7", VIOLET)  # the mated king blinks violet
    board.wait_rgb("d5", GOLD)  # the mating knight blinks gold
    assert board.signal("e7") == "mated-king" and board.signal("d5") == "mating-piece"
    moves_text = page.inner_text("#moves")
    assert "Nxe5" in moves_text and "Nd5#" in moves_text
    assert "1-0 checkmate" in page.inner_text("#status")
    assert "checkmate: White wins" in page.inner_text("#log")


def looking_back_and_flipping(board, page):
    # Flipped, black is at the bottom: a8 is the bottom right corner.
    page.click("#flip")
    b = page.locator("#board").bounding_box()
    x, y = board.xy("a8")
    assert x > b["x"] + b["width"] * 7 / 8 and y > b["y"] + b["height"] * 7 / 8
    # The move list looks back: after 1...e5 the knight was on g1; the board itself is unchanged.
    page.click('#moves button[data-ply="2"]')
    board.wait("window.simLookBack === 2")
    assert (board.shown("e5"), board.shown("g1"), board.shown("d5")) == ("p", "N", "")
    assert board.piece("d5") == "N" and "after 1… e5" in page.inner_text("#hint")
    page.click("#back-to-game")
    board.wait("window.simLookBack === -1")
    assert board.shown("d5") == "N"
    page.click("#flip")
    x, y = board.xy("a8")
    assert x < b["x"] + b["width"] / 8 and y < b["y"] + b["height"] / 8


def after_the_game(board, page):
    # The monochrome MAX7219 view shows the same signals as blink patterns, and says which.
    page.check('input[name="view"][value="mono"]')
    board.wait('document.querySelector(\'.sq[data-name="d5"]\').dataset.mono === "1"')
    assert page.locator(".sq .led.on").count() >= 1
    assert "fast blink 4 Hz (game over)" in page.inner_text('#lit li[data-signal="mated-king"]')
    page.click("#legend summary")
    assert page.locator("#legend-body tr").count() == len(S.names()) - 1  # every signal but off
    assert "mostly on: 1.5 s on, 0.5 s off" in page.inner_text('#legend-body tr[data-signal="place-here"]')
    assert page.locator('#legend-body tr[data-signal="capture"] .slots i.on').count() == 8  # 0x3333
    page.click("#legend summary")
    page.check('input[name="view"][value="rgb"]')

    # The game as PGN: today's date, and the mode in the Event tag.
    with page.expect_download() as info:
        page.click("#pgn")
    pgn = open(info.value.path()).read()
    assert '[Result "1-0"]' in pgn and "Nxe5" in pgn and "Nd5# 1-0" in pgn
    assert '[Event "Strict game (touch-move)"]' in pgn and re.search(r'\[Date "20\d\d\.\d\d\.\d\d"\]', pgn)


def a_promotion_tapped_round(board, page):
    # A position from a FEN (the log says so), then a promotion changed to a knight by taps: mate.
    page.fill("#fenin", "6nb/5Ppk/7p/8/8/8/8/K7 w - - 0 1")
    page.click("#fenform button")
    board.wait("window.simState.game.phase === 'play' && window.simState.game.fen.startsWith('6nb/5Ppk')")
    assert "position set up: 6nb/5Ppk/7p/8/8/8/8/K7 w - - 0 1" in page.inner_text("#log")
    assert board.piece("f7") == "P" and board.piece("a1") == "K"
    move(board, "f7", "f8", 1)
    assert board.state()["san"] == ["f8=Q"]
    board.wait_rgb("f8", MAGENTA)  # promote-queen: seen on a white queen
    assert board.piece("f8") == "Q"
    # The hint says what a tap gives; the square shows the next piece.
    assert "make it a rook" in page.inner_text("#hint")
    assert page.inner_text('.sq[data-name="f8"] .promo-hint') == "tap: \u265c"
    for letter, rgb in (("r", BLUE), ("b", ORANGE)):
        board.tap("f8")
        board.wait("window.simState.game.promotion && window.simState.game.promotion[1] === '%s'" % letter)
        board.wait_rgb("f8", rgb)
        assert board.piece("f8") == letter.upper()
    board.tap("f8")
    board.wait("window.simState.game.result === '1-0'")
    assert board.state()["san"] == ["f8=N#"]
    assert board.piece("f8") == "N" and page.locator(".promo-hint").count() == 0
    board.wait_signal("h7", "mated-king")


def casual_takebacks_and_a_new_game(board, page):
    # The mode switch reaches the firmware.
    page.select_option("#mode", "casual")
    board.wait("window.simState.game.mode === 'casual'")

    # Setting up the start position by hand starts a new game (docs/spec.md section 3), as on the board; the old
    # game's events leave the log.
    page.click("#newgame")
    board.wait("window.simState.game.san.length === 0 && window.simState.game.fen.startsWith('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w')")
    board.wait("document.getElementById('log').innerText.includes('new')")
    log = page.inner_text("#log")
    assert "f7f8" not in log and "position 6nb" not in log and "checkmate" not in log and "new" in log
    assert board.piece("e1") == "K" and page.locator(".tray-piece").count() == 0

    # Casual mode's takeback button sets the previous position up, as the gesture does: a capture
    # taken back puts the victim back from the tray.
    move(board, "e2", "e4", 1, click=True)
    move(board, "d7", "d5", 2)
    move(board, "e4", "d5", 3, click=True)
    assert page.locator("#tray-b .tray-piece").count() == 1
    board.wait("!document.getElementById('takeback').disabled")
    page.click("#takeback")
    board.wait("window.simIdle() && window.simState.game.san.length === 2")
    assert "White's exd5 taken back" in page.inner_text("#log")
    assert (board.piece("e4"), board.piece("d5")) == ("P", "p") and page.locator(".tray-piece").count() == 0
    text = the_events_in_a_players_words(page)
    assert "casual mode: takebacks, no touch-move" not in text  # said before the new game
    assert "White plays e4\n" in text + "\n" or "White plays e4" in text
    assert "Black plays d5" in text and "White plays exd5" in text
    page.click("#takeback")
    board.wait("window.simIdle() && window.simState.game.san.length === 1")
    assert board.piece("d7") == "p" and board.state()["san"] == ["e4"]


def clock_ms(page):
    c = page.evaluate("window.simState.game.clock")
    return c["white"], c["black"]


def faces(page):
    return page.inner_text("#clock-w"), page.inner_text("#clock-b")


def a_clock_and_a_game_against_the_board(board, page):
    # A new game in strict mode, then the visitor types a time control: both trays show 5:00.
    page.select_option("#mode", "strict")
    page.click("#newgame")
    board.wait("window.simIdle() && window.simState.game.san.length === 0 && window.simState.game.mode === 'strict'")
    assert page.is_hidden("#clock-w") and page.is_hidden("#clock-b")  # no clock until one is set
    trays = [page.locator("#tray-%s" % c).bounding_box() for c in "wb"]
    page.fill("#clockin", "5+3")
    page.click("#clockform button[type=submit]")
    board.wait("window.simState.game.clock !== null")
    # Each face sits in its tray, which keeps its height: the status stays on screen under the board.
    for c, tray in zip("wb", trays):
        now = page.locator("#tray-%s" % c).bounding_box()
        face = page.locator("#clock-%s" % c).bounding_box()
        assert now["height"] == tray["height"], (c, tray, now)
        assert now["x"] <= face["x"] and face["x"] + face["width"] <= now["x"] + now["width"]
        assert now["y"] <= face["y"] and face["y"] + face["height"] <= now["y"] + now["height"]
    clock = page.evaluate("window.simState.game.clock")
    assert clock == {"control": "5+3", "white": 300000, "black": 300000, "running": None, "state": "waiting"}
    assert page.is_visible("#clock-w") and page.is_visible("#clock-b") and faces(page) == ("5:00", "5:00")
    assert page.is_hidden("#clockerror") and "clock set: 5+3" in page.inner_text("#log")
    assert page.is_disabled("#clockpause")  # nothing runs before white's first move

    # A control the clock cannot read: said in words under the field; the 5+3 clock stands.
    page.fill("#clockin", "5+x")
    page.click("#clockform button[type=submit]")
    assert page.is_visible("#clockerror") and page.inner_text("#clockerror").startswith("clock: ")
    assert page.evaluate("window.simState.game.clock") == clock and faces(page) == ("5:00", "5:00")

    # White's first move starts the clock without costing or earning anything (core/clock.py
    # press): black's time runs from that commit; white's face stays 5:00.
    before_white = page.evaluate("window.simClock()")
    move(board, "e2", "e4", 1)
    after_white = page.evaluate("window.simClock()")
    board.wait("window.simState.game.clock.running === 'b'")
    assert clock_ms(page)[0] == 300000 and page.inner_text("#clock-w") == "5:00"
    board.wait("document.getElementById('log').innerText.includes('clocks: White 5:00, Black 5:00')")
    the_events_in_a_players_words(page)
    assert "running" in page.get_attribute("#clock-b", "class")
    assert "running" not in page.get_attribute("#clock-w", "class")
    assert not page.is_disabled("#clockpause") and page.inner_text("#clockpause") == "Pause"

    # Black answers: black's time is 5:00 less what the move took, plus the 3 s increment. By the
    # page's own (simulated) clock, black's time ran at least from white's move done to black's
    # drag begun and at most from white's drag begun to black's move done (50 ms: whole ms, a scan).
    begun_black = page.evaluate("window.simClock()")
    move(board, "e7", "e5", 2, click=True)
    done_black = page.evaluate("window.simClock()")
    board.wait("window.simState.game.clock.running === 'w'")
    black = clock_ms(page)[1]
    bounds = (303000 - (done_black - before_white) - 50, 303000 - (begun_black - after_white) + 50)
    assert bounds[0] <= black <= bounds[1], (black, bounds)
    assert page.inner_text("#clock-b") == short_text(black)
    assert "running" in page.get_attribute("#clock-w", "class")

    # White's clock runs now: its face counts down (m:ss, so watch it across more than a second).
    before = page.inner_text("#clock-w")
    page.wait_for_timeout(1300)
    assert page.inner_text("#clock-w") != before and page.inner_text("#clock-b") == short_text(black)
    move(board, "g1", "f3", 3)
    done = page.evaluate("window.simClock()")
    board.wait("window.simState.game.clock.running === 'b'")
    white = clock_ms(page)[0]
    # White's turn began at black's commit (between black's drag begun and its move done) and took
    # in the 1.3 s wait: white's time is 5:00 + 3 s less that, so at most 5:01.7.
    assert 303000 - (done - begun_black) - 50 <= white <= 301700 + 50, white
    assert page.inner_text("#clock-w") == short_text(white)

    # Paused: black's face stands still, the button says Resume; resumed, it runs again.
    page.click("#clockpause")
    board.wait("window.simState.game.clock.state === 'paused'")
    assert page.evaluate("window.simState.game.clock.running") is None
    assert page.inner_text("#clockpause") == "Resume"
    paused = faces(page)
    black = clock_ms(page)[1]
    page.wait_for_timeout(1300)
    assert faces(page) == paused and clock_ms(page)[1] == black
    assert page.inner_text("#clock-b") == short_text(black)
    # A control set after the first move is refused in words, and the game's clock is unchanged.
    page.fill("#clockin", "15+10")
    page.click("#clockform button[type=submit]")
    assert "before the first move" in page.inner_text("#clockerror")
    assert page.evaluate("window.simState.game.clock.control") == "5+3" and faces(page) == paused
    page.click("#clockpause")
    board.wait("window.simState.game.clock.state === 'running'")
    assert page.is_hidden("#clockerror") and page.inner_text("#clockpause") == "Pause"
    page.wait_for_timeout(1300)
    assert page.inner_text("#clock-b") != paused[1] and page.inner_text("#clock-w") == paused[0]

    # Two seconds each: the faces show tenths and turn red (low time); black's flag falls while
    # black thinks, white can mate, so white wins (FIDE 6.9), and black's face turns red.
    page.click("#newgame")
    board.wait("window.simIdle() && window.simState.game.san.length === 0")
    page.fill("#clockin", "0:02")
    page.click("#clockform button[type=submit]")
    board.wait("window.simState.game.clock.control === '0:02'")
    assert faces(page) == ("2.0", "2.0") and "low" in page.get_attribute("#clock-w", "class")
    move(board, "e2", "e4", 1)
    board.wait("window.simState.game.result !== '*'", timeout=6000)
    assert (board.state()["result"], board.state()["reason"]) == ("1-0", "flag")
    assert page.evaluate("window.simState.game.clock.state") == "flag-b"
    board.wait("document.getElementById('clock-b').textContent === '0.0'")
    assert "flag" in page.get_attribute("#clock-b", "class") and page.inner_text("#clock-w") == "2.0"
    assert "1-0" in page.inner_text("#status") and page.is_disabled("#clockpause")

    # A game against the board: a new game without a clock, the board plays black at level 1.
    page.click("#newgame")
    board.wait("window.simIdle() && window.simState.game.san.length === 0")
    page.fill("#clockin", "none")
    page.click("#clockform button[type=submit]")
    board.wait("window.simState.game.clock === null")
    assert page.is_hidden("#clock-w") and page.is_hidden("#clock-b")
    page.select_option("#opponent", "black")
    page.select_option("#level", "1")
    board.wait("document.getElementById('log').innerText.includes('the board plays black at level 1')")
    move(board, "d2", "d4", 1)
    # Its answer: lit blue on its from and to squares (remote-move), said in the events and the
    # status, and not made until a player makes it on the board.
    board.wait("/the board plays \\S+ \\([a-h][1-8][a-h][1-8]\\)/.test(document.getElementById('log').innerText)", timeout=15000)
    uci = re.search(r"the board plays \S+ \(([a-h][1-8])([a-h][1-8])\)", page.inner_text("#log")).groups()
    for name in uci:
        board.wait_signal(name, "remote-move")
    board.wait_rgb(uci[1], BLUE)
    assert board.piece(uci[0]).islower() and board.state()["san"] == ["d4"]
    status = page.inner_text("#status")
    assert "the board plays" in status and "(%s%s): make its move on the board" % uci in status
    # Another black move is refused (the board plays its own), guided back in words; the piece
    # put back is not bound by touch-move, and the board's move still stands.
    other = "a7" if uci[0] != "a7" else "h7"
    board.drag(other, other[0] + "6")
    board.wait("window.simState.game.error !== null && window.simState.game.error[0] === 'illegal'")
    assert "put it back on %s" % other in page.inner_text("#status") and board.state()["san"] == ["d4"]
    board.drag(other[0] + "6", other)
    board.wait("window.simIdle() && window.simState.game.error === null")
    assert board.signal(uci[0]) == "remote-move" and board.signal(other) != "touched"
    move(board, uci[0], uci[1], 2, click=True)
    assert board.state()["uci"][-1] == "%s%s" % uci
    assert board.signal(uci[0]) != "remote-move" and board.signal(uci[1]) != "remote-move"
    assert board.state()["turn"] == "w" and board.state()["error"] is None

    # The kings' gesture on the board chooses too, and the page's controls follow it: both kings
    # lifted at the start position, the white one put on b6 (rank 6: the player takes black; file b:
    # level 2), then both home. The board, playing white, lights its first move.
    page.click("#newgame")
    board.wait("window.simIdle() && window.simState.game.san.length === 0")
    assert page.input_value("#opponent") == "black" and page.input_value("#level") == "1"
    board.drag("e1", None)
    board.drag("e8", None)
    board.wait("window.simIdle()")
    board.drag_from_tray("w", "b6")
    board.wait("window.simIdle()")
    board.drag("b6", "e1")
    board.drag_from_tray("b", "e8")
    board.wait("document.getElementById('log').innerText.includes('the board plays white at level 2')")
    board.wait("document.getElementById('opponent').value === 'white'")
    assert page.input_value("#level") == "2"
    board.wait("/the board plays \\S+ \\([a-h]2[a-h][34]\\)/.test(document.getElementById('log').innerText)", timeout=15000)
    board.wait("window.simState.game.status.includes('the board plays')")
    # Two players again, from the page: the lit move goes out.
    page.select_option("#opponent", "none")
    board.wait("document.getElementById('log').innerText.includes('two players, no engine')")
    board.wait("window.simState.game.status === 'White to move'")
    assert page.input_value("#opponent") == "none"
    text = the_events_in_a_players_words(page)
    assert "the board plays white at level 2" in text and "two players, no engine" in text
    assert re.search(r"the board plays [NBRQ]?[a-h][34] \([a-h]2[a-h][34]\)", text), text


def the_events_in_a_players_words(page):
    """The Events log as a player reads it: every line a time and a sentence, nothing of the
    firmware's internal words (`engine engine plays=black level=2 state=waiting`, `move e2e4`)."""
    lines = page.inner_text("#log").splitlines()
    assert lines and all(re.match(r"\d+\.\d s \S", line) for line in lines), lines
    text = "\n".join(lines)
    for internal in ("engine engine", "plays=", "level=", "state=", "console:", "msg ", "move ", "undo ", "clock 3"):
        assert internal not in text, (internal, text)
    return text
