"""Screenshot of the browser simulator with a lifted piece and its legal destinations (for the README).

Usage: .venv/bin/python tools/sim_screenshot.py [OUT.png]     (default tools/sim/screenshot.png)

Serves the page (tools/sim_server.py), plays 1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 with the mouse in
headless Chromium (/usr/bin/chromium, or $CHROMIUM), lifts the knight on f3 and keeps it in the
hand: f3 lights cyan, its quiet destinations green and the capture on e5 red.
Needs playwright (requirements-dev.txt) and node_modules (npm ci).
"""
import os
import shutil
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import sim_server  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(argv):
    from playwright.sync_api import sync_playwright

    out = argv[1] if len(argv) > 1 else os.path.join(ROOT, "tools", "sim", "screenshot.png")
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    srv = sim_server.make_server("127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1120, "height": 800}, device_scale_factor=1)
            page.goto(sim_server.server_url(srv))
            page.wait_for_function("window.simReady === true", timeout=30000)
            box = page.locator("#board").bounding_box()
            size = box["width"] / 8

            def xy(name, dx=0.5, dy=0.5):
                f = "abcdefgh".index(name[0])
                r = int(name[1]) - 1
                return box["x"] + (f + dx) * size, box["y"] + (7 - r + dy) * size

            for n, (a, b) in enumerate(
                (("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6"), ("f1", "c4"), ("g8", "f6"))
            ):
                page.mouse.move(*xy(a))
                page.mouse.down()
                page.mouse.move(*xy(b), steps=4)
                page.mouse.up()
                page.wait_for_function(
                    "window.simIdle() && window.simState.game.san.length === %d" % (n + 1), timeout=5000
                )
            page.mouse.move(*xy("f3"))
            page.mouse.down()
            page.mouse.move(*xy("g4", 0.15, 0.85), steps=4)  # held a little above the board
            page.wait_for_function(
                "document.querySelector('.sq[data-name=\"e5\"]').dataset.signal === 'capture'", timeout=5000
            )
            page.wait_for_timeout(300)
            os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
            page.screenshot(path=out, full_page=False)
            browser.close()
    finally:
        srv.shutdown()
        srv.server_close()
    print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
