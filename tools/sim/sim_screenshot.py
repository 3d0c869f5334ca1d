"""Screenshots of the browser simulator for the README and docs/simulators.md.

Usage: .venv/bin/python tools/sim/sim_screenshot.py [OUT_DIR]     (default tools/sim/)

Serves the page (tools/sim/sim_server.py) and plays it in headless Chromium (/usr/bin/chromium, or
$CHROMIUM), writing:
  screenshot.png        desktop, a 5+3 clock on the trays: 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6, the
                        knight on f3 in the hand: f3 cyan, its quiet destinations green, the
                        capture on e5 red, white's clock running
  screenshot-phone.png  390 x 844 touch screen: after 1. e4 e5, the f1 bishop dragged by a finger,
                        drawn above it, the square under the finger outlined
  screenshot-knock.png  desktop: after 1. e4 e5 a sleeve knocks b2, c2 and d2 over: the squares ask
                        for their pawns (place-here) and the events say so in plain words
Needs playwright (requirements-dev.txt) and node_modules (npm ci).
"""
import os
import shutil
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "sim"))

import sim_server  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Page:
    def __init__(self, browser, url, **kw):
        self.page = browser.new_page(**kw)
        self.page.goto(url)
        self.page.wait_for_function("window.simReady === true", timeout=30000)
        self.cdp = self.page.context.new_cdp_session(self.page) if kw.get("has_touch") else None

    def xy(self, name, dx=0.5, dy=0.5):
        box = self.page.locator("#board").bounding_box()
        size = box["width"] / 8
        f = "abcdefgh".index(name[0])
        r = int(name[1]) - 1
        return box["x"] + (f + dx) * size, box["y"] + (7 - r + dy) * size

    def moves(self, pairs):
        mouse = self.page.mouse
        for n, (a, b) in enumerate(pairs):
            mouse.move(*self.xy(a))
            mouse.down()
            mouse.move(*self.xy(b), steps=4)
            mouse.up()
            self.page.wait_for_function(
                "window.simIdle() && window.simState.game.san.length === %d" % (n + 1), timeout=5000
            )

    def touch(self, kind, x=0, y=0):
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def shot(self, path, settle=300):
        self.page.wait_for_timeout(settle)
        self.page.screenshot(path=path, full_page=False)
        print("wrote", path)


def main(argv):
    from playwright.sync_api import sync_playwright

    out = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tools", "sim")
    os.makedirs(out, exist_ok=True)
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    srv = sim_server.make_server("127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = sim_server.server_url(srv)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
            desktop = {"viewport": {"width": 1120, "height": 800}, "device_scale_factor": 1}

            page = Page(browser, url, **desktop)
            page.page.fill("#clockin", "5+3")
            page.page.click("#clockform button[type=submit]")
            page.page.wait_for_function("window.simState.game.clock !== null", timeout=5000)
            page.moves((("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6"), ("f1", "c4"), ("g8", "f6")))
            page.page.mouse.move(*page.xy("f3"))
            page.page.mouse.down()
            page.page.mouse.move(*page.xy("g4", 0.15, 0.85), steps=4)  # held a little above the board
            page.page.wait_for_function(
                "document.querySelector('.sq[data-name=\"e5\"]').dataset.signal === 'capture'", timeout=5000
            )
            page.shot(os.path.join(out, "screenshot.png"))
            page.page.close()

            page = Page(browser, url, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                        device_scale_factor=1)
            page.moves((("e2", "e4"), ("e7", "e5")))
            x, y = page.xy("f1")
            page.touch("touchStart", x, y)
            for i in range(1, 7):
                tx, ty = page.xy("c4")
                page.touch("touchMove", x + (tx - x) * i / 6, y + (ty - y) * i / 6)
            page.page.wait_for_function(
                "document.querySelector('.sq[data-name=\"c4\"]').dataset.signal === 'quiet'", timeout=5000
            )
            page.shot(os.path.join(out, "screenshot-phone.png"))
            page.page.close()

            page = Page(browser, url, **desktop)
            page.moves((("e2", "e4"), ("e7", "e5")))
            page.page.click("#knock")
            page.page.evaluate("window.scrollTo(0, 0)")
            page.page.mouse.click(*page.xy("c2"))
            page.page.wait_for_function("window.simState.game.error !== null", timeout=5000)
            page.page.wait_for_timeout(600)  # the events log gets its plain words
            page.page.wait_for_function(  # then the blinking place-here squares in their lit phase
                "document.querySelector('.sq[data-name=\"c2\"]').dataset.rgb === 'ffffff'", timeout=5000
            )
            page.shot(os.path.join(out, "screenshot-knock.png"), settle=0)
            browser.close()
    finally:
        srv.shutdown()
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
