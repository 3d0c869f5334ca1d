# Tests of tools/sim/sim_server.py: what it serves, with which types, and nothing else of the repository.
import glob
import os
import threading
import urllib.error
import urllib.request

import pytest

import sim_server  # tools/ is on sys.path through conftest.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def url():
    srv = sim_server.make_server("127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def test_the_manifest_lists_every_firmware_module():
    manifest = sim_server.firmware_manifest()
    on_disk = sorted(
        os.path.relpath(p, os.path.join(ROOT, "firmware")).replace(os.sep, "/")
        for p in glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True)
        if "__pycache__" not in p
    )
    assert manifest["firmware"] == on_disk
    for needed in ("app.py", "config.py", "core/referee.py", "hardware/fake.py", "hardware/ws2812.py"):
        assert needed in manifest["firmware"]
    assert manifest["sim"] == ["board_sim.py", "sim_controls.py"]


def test_pages_and_types(url):
    status, ctype, body = get(url + "/sim/")
    assert status == 200 and ctype.startswith("text/html") and b"sim.js" in body
    assert get(url + "/sim/sim.js")[1].startswith("text/javascript")
    assert get(url + "/sim/board_sim.py")[0] == 200
    assert get(url + "/firmware/core/referee.py")[0] == 200
    status, ctype, body = get(url + "/sim/manifest.json")
    assert status == 200 and ctype == "application/json" and b"core/position.py" in body
    if os.path.isdir(os.path.join(ROOT, sim_server.MP_PACKAGE)):
        assert get(url + "/mp/micropython.mjs")[1].startswith("text/javascript")
        status, ctype, body = get(url + "/mp/micropython.wasm")
        assert status == 200 and ctype == "application/wasm" and body[:4] == b"\0asm"


def test_nothing_else_is_reachable(url):
    for path in ("/Makefile", "/.git/config", "/sim/../Makefile", "/firmware/%2e%2e/Makefile",
                 "/sim/%2e%2e/.ci/run", "/tools/sim/sim_server.py", "/node_modules/.package-lock.json"):
        assert get(url + path)[0] == 404, path


def test_a_busy_port_moves_on_to_the_next():
    first = sim_server.make_server("127.0.0.1", 0)
    try:
        port = first.server_address[1]
        with pytest.raises(OSError):
            sim_server.make_server("127.0.0.1", port)
        second = sim_server.make_server("127.0.0.1", port, tries=5)
        assert second.server_address[1] != port
        second.server_close()
    finally:
        first.server_close()


def test_a_pico_on_usb_is_noticed(tmp_path):
    assert not sim_server.pico_on_usb(str(tmp_path / "none"))
    (tmp_path / "1-1").mkdir()
    (tmp_path / "1-1" / "idVendor").write_text("1d6b\n")  # a hub
    assert not sim_server.pico_on_usb(str(tmp_path))
    (tmp_path / "1-2").mkdir()
    (tmp_path / "1-2" / "idVendor").write_text("2e8a\n")  # Raspberry Pi
    assert sim_server.pico_on_usb(str(tmp_path))
