"""A small web server for the browser simulator: serves tools/sim/, firmware/ and MicroPython's WebAssembly build.

Usage (from anywhere; `make sim` runs it):
    python3 tools/sim/sim_server.py [--port N] [--host ADDR]

Prints the address to open and serves until Ctrl-C. Only these URLs exist (nothing else of the
repository is reachable through it):
    /                      -> redirect to /sim/
    /sim/...               tools/sim/ (index.html, sim.js, style.css, board_sim.py, sim_controls.py)
    /sim/manifest.json     the firmware files the page copies into MicroPython's file system,
                           listed from firmware/ at request time, so a new module needs no edit here
    /firmware/...          firmware/*.py, exactly as they go on the Pico
    /mp/...                node_modules/@micropython/micropython-webassembly-pyscript/ (npm ci installs it)
No network is needed at run time: everything comes from the clone and its npm install.
Python standard library only.
"""
import argparse
import errno
import http.server
import json
import os
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MP_PACKAGE = os.path.join("node_modules", "@micropython", "micropython-webassembly-pyscript")
# URL prefix -> folder (relative to the repository root).
MOUNTS = {
    "sim": os.path.join("tools", "sim"),
    "firmware": "firmware",
    "mp": MP_PACKAGE,
}
# Browsers refuse to run a module script or to compile WebAssembly streamed with the wrong type.
MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".py": "text/x-python; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}
DEFAULT_PORT = 8000
# When the default port is taken (another server, a second `make sim`), try the next few.
PORT_TRIES = 20


def firmware_manifest(root=ROOT):
    """{"firmware": [paths under firmware/ of every .py], "sim": ["board_sim.py", "sim_controls.py"]}, sorted."""
    files = []
    base = os.path.join(root, "firmware")
    for folder, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(names):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, name), base)
                files.append(rel.replace(os.sep, "/"))
    return {"firmware": sorted(files), "sim": ["board_sim.py", "sim_controls.py"]}


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "ChessboardSim/1"
    root = ROOT
    quiet = True

    def do_GET(self):
        self._serve(send_body=True)

    def do_HEAD(self):
        self._serve(send_body=False)

    def _serve(self, send_body):
        path = urllib.parse.urlsplit(self.path).path
        if path in ("/", "/index.html", "/sim"):
            self.send_response(302)
            self.send_header("Location", "/sim/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/sim/manifest.json":
            body = json.dumps(firmware_manifest(self.root)).encode()
            return self._send(200, "application/json", body, send_body)
        if path == "/favicon.ico":
            return self._send(204, "image/x-icon", b"", send_body)
        file_path = self._resolve(path)
        if file_path is None or not os.path.isfile(file_path):
            return self._send(404, "text/plain; charset=utf-8", b"not found\n", send_body)
        ext = os.path.splitext(file_path)[1].lower()
        with open(file_path, "rb") as f:
            body = f.read()
        self._send(200, MIME_TYPES.get(ext, "application/octet-stream"), body, send_body)

    def _resolve(self, path):
        raw = urllib.parse.unquote(path)
        parts = [p for p in raw.split("/") if p]
        if not parts or parts[0] not in MOUNTS:
            return None
        # No way out of the mounted folders, and nothing hidden or compiled.
        if any(p.startswith(".") or p == "__pycache__" or "\\" in p for p in parts):
            return None
        rest = parts[1:]
        if not rest or raw.endswith("/"):
            rest.append("index.html")
        return os.path.join(self.root, MOUNTS[parts[0]], *rest)

    def _send(self, status, content_type, body, send_body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        # A development server: an edited firmware file must show on the next reload.
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, fmt, *args):
        if not self.quiet:
            sys.stderr.write("sim_server: %s\n" % (fmt % args))


def make_server(host="127.0.0.1", port=DEFAULT_PORT, root=ROOT, quiet=True, tries=1):
    """A ThreadingHTTPServer for the simulator, bound to the first free port from `port` (port 0:
    any free port). Raises OSError when none of the `tries` ports is free."""
    handler = type("SimHandler", (Handler,), {"root": root, "quiet": quiet})
    last = None
    for i in range(tries):
        try:
            server = http.server.ThreadingHTTPServer((host, port + i if port else 0), handler)
            server.daemon_threads = True
            return server
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            last = e
    raise last


def server_url(server):
    host, port = server.server_address[:2]
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return "http://%s:%d/sim/" % (host, port)


def pico_on_usb(devices="/sys/bus/usb/devices"):
    """Is a Raspberry Pi Pico (USB vendor 2e8a) plugged in? (Linux's sysfs; elsewhere: no.)"""
    try:
        names = os.listdir(devices)
    except OSError:
        return False
    for name in names:
        try:
            with open(os.path.join(devices, name, "idVendor")) as f:
                if f.read().strip().lower() == "2e8a":
                    return True
        except OSError:
            continue
    return False


def main(argv=None):
    parser = argparse.ArgumentParser(description="Serve the browser board simulator (tools/sim/index.html).")
    parser.add_argument("--port", type=int, default=None,
                        help="TCP port (default %d, or the next free one; 0 = any free port)" % DEFAULT_PORT)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 to reach it from another machine)")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    if not os.path.isfile(os.path.join(ROOT, MP_PACKAGE, "micropython.mjs")):
        sys.stderr.write(
            "sim_server: %s is missing: run `npm ci` in %s first (`make sim` does it)\n" % (MP_PACKAGE, ROOT)
        )
        return 1
    port = DEFAULT_PORT if args.port is None else args.port
    try:
        server = make_server(args.host, port, quiet=not args.verbose, tries=PORT_TRIES if args.port is None else 1)
    except OSError as e:
        sys.stderr.write("sim_server: cannot listen on %s:%s (%s); choose another with --port N "
                         "(make sim SIM_PORT=N)\n" % (args.host, port, e.strerror or e))
        return 1
    print("Board simulator: open %s in a browser (Ctrl-C stops the server)" % server_url(server), flush=True)
    if pico_on_usb():
        print("A Raspberry Pi Pico is on USB: `make flash` puts this firmware on it, `make repl` talks to it.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nsim_server: stopped")
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
