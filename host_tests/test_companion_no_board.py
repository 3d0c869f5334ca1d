# `make play` with no board attached (tools/play.py, tools/companion/): the companion says how to
# play on the simulated board instead, and ends after --board-wait seconds, never waiting for ever.
# The opponent is the board's own engine as a UCI engine (tools/uci.py), so no Stockfish is needed.
import os
import subprocess
import sys
import time

from companion_rig import ROOT

ENGINE = "%s %s" % (sys.executable, os.path.join(ROOT, "tools", "uci.py"))
ROUTE = "`python3 tools/sim_terminal.py --serial /tmp/board`"


def test_a_port_with_no_board_behind_it_ends_with_the_simulated_boards_route(tmp_path):
    started = time.monotonic()
    r = subprocess.run(
        [sys.executable, "tools/play.py", "engine", "--engine", ENGINE, "--port", str(tmp_path / "no-board"),
         "--board-wait", "1", "--pgn", str(tmp_path / "games.pgn")],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert time.monotonic() - started < 30
    lines = r.stdout.splitlines()
    assert "cannot open %s (it is gone): waiting for the board" % (tmp_path / "no-board") in lines[1]
    assert ROUTE in lines[2] and '`make play PLAY_ARGS="engine --port /tmp/board"`' in lines[2]
    assert lines[3] == "waiting 1 s for a board (--board-wait)"
    assert lines[-1] == "no board came within 1 s: the companion ends (the simulated board: see above)"


def test_no_pico_on_usb_says_so_and_how_to_play_without_one(monkeypatch, capsys, tmp_path):
    # What `make play` does on a PC with no Pico plugged in: no USB port has the Pico's vendor id.
    from companion import central, cli

    class NoPorts:
        @staticmethod
        def comports():
            return []

    monkeypatch.setattr(central, "list_ports", NoPorts)
    status = cli.main(["engine", "--engine", ENGINE, "--board-wait", "0.5", "--no-keys",
                       "--pgn", str(tmp_path / "games.pgn")])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert "board: no board found: plug it in, or name its port with --port" in out
    assert any(ROUTE in line for line in out)
    assert out[-1] == "no board came within 0.5 s: the companion ends (the simulated board: see above)"


def test_a_board_that_comes_is_played_on(tmp_path):
    # The wait is for a first board only: the simulated board on its pseudo-terminal is found,
    # and the companion plays on past --board-wait (it leaves when told to).
    from companion_rig import Companion, SimBoard

    link = str(tmp_path / "board")
    sim = SimBoard(link)
    comp = Companion("engine", "--engine", ENGINE, "--port", link, "--board-wait", "1", "--pgn", str(tmp_path / "g.pgn"))
    try:
        comp.expect("board connected on")
        time.sleep(1.5)
        assert comp.proc.poll() is None and "no board came" not in comp.text()
    finally:
        comp.stop()
        sim.stop()
