# The browser simulator in a real browser: headless Chromium plays a scripted game with the mouse.
#
# tools/sim_server.py serves sim/ and MicroPython's WebAssembly build; Playwright (PyPI, pinned in
# requirements-dev.txt) drives Debian's chromium (/usr/bin/chromium; no browser is downloaded).
# The game covers a quiet move with the lifted piece's LEDs, castling king first with a slide, an
# illegal move flagged and retracted (touch-move then binds the piece), a capture victim first, a
# capture by swapping, a knocked piece put back, check, mate, the monochrome view, the PGN download,
# a position from a FEN and a promotion changed to a knight by taps.
#
# `make test-browser` runs this file (make test-cpython leaves it out). Without a browser it skips
# with a message - except where CI=true, where a missing browser or driver is a failure.
import os
import shutil
import threading

import pytest

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

WHITE_LED = "ffffff"
GREEN = "00ff00"
RED = "ff0000"
CYAN = "00ffff"
BLUE = "0000ff"
MAGENTA = "ff00ff"
DIM_BLUE = "000030"  # last move: (0, 0, 48)


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
    """The page, driven as a person would: mouse over squares, buttons."""

    def __init__(self, page):
        self.page = page
        self.box = page.locator("#board").bounding_box()

    def xy(self, name):
        size = self.box["width"] / 8
        f = "abcdefgh".index(name[0])
        r = int(name[1]) - 1
        return self.box["x"] + (f + 0.5) * size, self.box["y"] + (7.5 - r) * size

    def off_board(self):
        return self.box["x"] - 30, self.box["y"] + self.box["height"] / 2

    def lift(self, name):
        self.page.mouse.move(*self.xy(name))
        self.page.mouse.down()

    def hover(self, name):
        self.page.mouse.move(*self.xy(name), steps=6)

    def drop(self, name=None):
        if name is None:
            self.page.mouse.move(*self.off_board(), steps=4)
        else:
            self.page.mouse.move(*self.xy(name), steps=4)
        self.page.mouse.up()

    def drag(self, a, b=None, slide=False):
        self.lift(a)
        if slide:
            # Shift held from the lift to the drop: the piece stays on the board all the way.
            self.page.keyboard.down("Shift")
        self.drop(b)
        if slide:
            self.page.keyboard.up("Shift")

    def tap(self, name):
        self.page.mouse.click(*self.xy(name))

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


def move(board, a, b, n):
    board.drag(a, b)
    board.wait_moves(n)


def test_a_game_in_the_browser(server, browser):
    page = browser.new_page(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        page.goto(server)
        page.wait_for_function("window.simReady === true", timeout=30000)
        board = Board(page)
        play_the_game(board, page)
        assert errors == []
    except Exception:
        os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
        page.screenshot(path=os.path.join(ROOT, "build", "test-browser-failure.png"))
        print("page errors:", errors)
        raise
    finally:
        page.close()


def play_the_game(board, page):
    assert page.evaluate("window.simPieces") == "RNBQKBNR" + "P" * 8 + "." * 32 + "p" * 8 + "rnbqkbnr"
    assert board.state()["status"] == "White to move" and board.state()["mode"] == "strict"
    # A lifted pawn: its square cyan, its two destinations green, and nothing committed yet.
    board.lift("e2")
    board.hover("e3")
    board.wait_signal("e4", "quiet")
    assert (board.rgb("e2"), board.rgb("e3"), board.rgb("e4"), board.rgb("e5")) == (CYAN, GREEN, GREEN, "000000")
    assert board.state()["san"] == []
    board.drop("e4")
    board.wait_moves(1)
    assert (board.rgb("e2"), board.rgb("e4")) == (DIM_BLUE, DIM_BLUE)
    assert board.piece("e4") == "P" and board.piece("e2") == "."
    for i, (a, b) in enumerate((("e7", "e5"), ("g1", "f3"), ("d7", "d6"), ("f1", "c4"), ("c8", "g4"))):
        move(board, a, b, i + 2)

    # Castling king first, the king slid along the board over f1: then the LEDs ask for the rook.
    board.drag("e1", "g1", slide=True)
    board.wait("window.simIdle()")
    board.wait_signal("h1", "lifted")
    assert (board.rgb("h1"), board.rgb("f1")) == (CYAN, GREEN)
    move(board, "h1", "f1", 7)
    assert board.state()["san"][-1] == "O-O"
    move(board, "b8", "c6", 8)

    # An illegal move: flagged red where the knight landed, green where it must go back.
    board.drag("b1", "b3")
    board.wait("window.simState.game.error !== null && window.simState.game.error[0] === 'illegal'")
    board.wait_rgb("b3", RED)
    board.wait_rgb("b1", GREEN)
    assert board.signal("b3") == "illegal" and board.signal("b1") == "place-here"
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

    # A white piece knocked off the board while black is to move: nothing can happen to it, so it
    # is no error (it may be a piece being straightened, SPEC 3); after 3 s the board asks for it back.
    page.click("#knock")
    board.tap("a2")
    board.wait_signal("a2", "place-here", timeout=8000)
    assert board.state()["error"] is None
    board.wait_rgb("a2", GREEN)
    page.locator("#tray-w .tray-piece").first.hover()
    page.mouse.down()
    board.drop("a2")
    board.wait("window.simState.game.error === null")
    assert board.piece("a2") == "P"

    # Capture by swapping: the bishop dropped on the queen pushes her off.
    move(board, "g4", "d1", 12)
    move(board, "c4", "f7", 13)
    board.wait_signal("e8", "check")
    e8 = board.rgb("e8")  # read once: the pulse changes it every 32 ms
    r, g, b = (int(e8[i:i + 2], 16) for i in (0, 2, 4))
    # Orange (255, 96, 0) at one of the pulse's brightness levels k/256 (hardware/ws2812.py).
    assert b == 0 and any((255 * k) >> 8 == r and (96 * k) >> 8 == g for k in range(1, 257)), (r, g, b)
    move(board, "e8", "e7", 14)
    move(board, "c3", "d5", 15)
    board.wait("window.simState.game.result === '1-0'")
    state = board.state()
    assert state["reason"] == "checkmate"
    assert state["san"] == "e4 e5 Nf3 d6 Bc4 Bg4 O-O Nc6 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#".split()
    board.wait_rgb("e7", RED)  # the mated king blinks red
    board.wait_rgb("d5", GREEN)  # the mating knight blinks green
    assert board.signal("e7") == "mated-king" and board.signal("d5") == "mating-piece"
    moves_text = page.inner_text("#moves")
    assert "Nxe5" in moves_text and "Nd5#" in moves_text
    assert "1-0 checkmate" in page.inner_text("#status")

    # The monochrome MAX7219 view shows the same signals as blink patterns.
    page.check('input[name="view"][value="mono"]')
    board.wait('document.querySelector(\'.sq[data-name="d5"]\').dataset.mono === "1"')
    assert page.locator(".sq .led.on").count() >= 1
    page.check('input[name="view"][value="rgb"]')

    # The game as PGN.
    with page.expect_download() as info:
        page.click("#pgn")
    pgn = open(info.value.path()).read()
    assert '[Result "1-0"]' in pgn and "Nxe5" in pgn and "Nd5# 1-0" in pgn

    # A position from a FEN, then a promotion changed to a knight by three taps: mate.
    page.fill("#fenin", "6nb/5Ppk/7p/8/8/8/8/K7 w - - 0 1")
    page.click("#fenform button")
    board.wait("window.simState.game.phase === 'play' && window.simState.game.fen.startsWith('6nb/5Ppk')")
    assert board.piece("f7") == "P" and board.piece("a1") == "K"
    move(board, "f7", "f8", 1)
    assert board.state()["san"] == ["f8=Q"]
    board.wait_rgb("f8", WHITE_LED)  # promote-queen
    assert board.piece("f8") == "Q"
    for letter, rgb in (("r", BLUE), ("b", MAGENTA)):
        board.tap("f8")
        board.wait("window.simState.game.promotion && window.simState.game.promotion[1] === '%s'" % letter)
        board.wait_rgb("f8", rgb)
        assert board.piece("f8") == letter.upper()
    board.tap("f8")
    board.wait("window.simState.game.result === '1-0'")
    assert board.state()["san"] == ["f8=N#"]
    assert board.piece("f8") == "N"
    board.wait_signal("h7", "mated-king")

    # The mode switch reaches the firmware.
    page.select_option("#mode", "casual")
    board.wait("window.simState.game.mode === 'casual'")

    # Setting up the start position by hand starts a new game (SPEC 3), as on the board.
    page.click("#newgame")
    board.wait("window.simState.game.san.length === 0 && window.simState.game.fen.startsWith('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w')")
    assert "new" in page.inner_text("#log").split()
    assert board.piece("e1") == "K" and page.locator(".tray-piece").count() == 0
