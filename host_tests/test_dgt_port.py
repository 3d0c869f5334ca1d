# DGT's board protocol through a pseudo-terminal (docs/spec.md section 12, docs/dgt.md): the
# simulated board of `tools/sim_terminal.py --serial` with the project's own DGT hosts
# (host_tests/helpers/dgt_client.py) on its port, as a host program on a PC finds a board:
# picochess's handshake and timers through a game, every physical order of host_tests/transcripts
# read back into the referee's moves from field updates, a bus-mode host as DGT LiveChess drives its
# boards, the LEDs, and hostile bytes. The messages byte by byte are test_dgt.py's.
import os
import random
import time

import chess
import pytest
from chesslink_client import Host as ChessLinkHost
from chesslink_client import PtyTransport
from companion_rig import dump, hand_commands
from dgt_client import (
    BUS_IGNORE_NEXT_PING,
    BUS_PING,
    BUS_SEND_BRD,
    BUS_SEND_CHANGES,
    BUS_SEND_CLK,
    BUS_SEND_VERSION,
    BUS_SET_START_GAME,
    LIVECHESS_0x92,
    MSG_BUS_BRD_DUMP,
    MSG_BUS_BWTIME,
    MSG_BUS_PING,
    MSG_BUS_START_GAME_WRITTEN,
    MSG_BUS_UPDATE,
    MSG_BUS_VERSION,
    VERSION,
    BusHost,
    Follower,
    Host,
    Picochess,
    bus_frame,
    changes,
    decode_clock,
    field_of,
    follow_updates,
    placement,
    rev2_leds,
)
from hands.transcript import file_settings, parse
from test_chesslink import HostOnPort
from test_dgt import TRANSCRIPT_NAMES, TRANSCRIPTS, final_moves


class DgtOnPort(HostOnPort):
    """tools/sim_terminal.py --serial with DGT hosts on its pseudo-terminal."""

    def dgt(self, cls=Host):
        transport = PtyTransport(self.path)
        host = cls(transport)
        self.hosts.append((host, transport))
        return host

    def mark(self, name):
        """Every simulator line sent so far has run: the simulator echoes each line it reads."""
        self.sim.send("wait 0 # %s" % name)
        self.sim.expect(r"^> wait 0 # %s$" % name)


@pytest.fixture
def port(tmp_path):
    p = DgtOnPort(tmp_path)
    yield p
    p.close()


@pytest.fixture
def quick_port(tmp_path):
    """A board whose simulated clock moves only as the script says: no settle after each line."""
    p = DgtOnPort(tmp_path, "--settle", "0")
    yield p
    p.close()


# A game with both castlings' kings' side, an en passant capture, captures and a promotion.
GAME = "e2e4 d7d5 e4d5 c7c5 d5c6 g8f6 g1f3 e7e6 f1e2 f8e7 e1g1 e8g8 c6b7 b8c6 b7a8q".split()


def test_picochess_shakes_hands_then_follows_a_game_from_its_dumps(port):
    host = port.dgt()
    pico = Picochess(host).start()
    try:
        end = time.monotonic() + 5
        while (pico.clock_version is None or not pico.dumps) and time.monotonic() < end:
            time.sleep(0.05)
        assert pico.version == (1, 2) and pico.version_requests == 1  # answered at the first asking
        assert pico.clock_version == (2, 2)  # the clock's version, acknowledged inside BWTIME
        assert placement(pico.dumps[0]) == chess.STARTING_BOARD_FEN
        time.sleep(2.2)
        assert pico.serials >= 2  # the watchdog's serial number, every second
        board = chess.Board()
        for uci in GAME:
            move = chess.Move.from_uci(uci)
            port.sim.send(hand_commands(board, move))
            board.push(move)
            end = time.monotonic() + 6  # a promotion's piece is chosen after 2 s still
            while pico.follower.moves != [m.uci() for m in board.move_stack] and time.monotonic() < end:
                time.sleep(0.05)
            assert pico.follower.moves == [m.uci() for m in board.move_stack], (pico.follower.events, dump(port.sim))
        assert pico.follower.board.fen() == board.fen()
        assert host.codec.stray == 0 and host.codec.cut == 0
    finally:
        pico.stop()


def test_every_physical_order_reaches_a_host_as_the_referee_reads_it(quick_port):
    """host_tests/transcripts on the simulated board, one after the other, with one DGT host in
    UPDATE_BRD mode on the port: the host's game, rebuilt from the field updates alone, ends with
    the moves the referee read in the same run."""
    port = quick_port
    host = port.dgt()
    host.send(b"\x44")
    read = {}
    for name in TRANSCRIPT_NAMES:
        with open(os.path.join(TRANSCRIPTS, name)) as f:
            text = f.read()
        if file_settings(text):
            continue  # a board.json rule the terminal simulator cannot set: test_dgt.py runs it in-process
        fen, mode, events = parse(text)
        port.sim.send("mode " + mode)
        port.sim.send("fen " + fen)
        port.sim.send("wait 500")
        port.mark("start " + name)
        first = len(port.sim.lines)
        start = host.board()
        assert placement(start) == chess.Board(fen).board_fen(), name
        seen = len(host.updates)
        t = 0
        for at, occupied, sq in events:
            port.sim.send("wait %d" % (at - t))
            port.sim.send("%s %s" % ("place" if occupied else "lift", chess.square_name(sq)))
            t = at
        port.sim.send("wait 3000")
        port.mark("end " + name)
        host.sync()
        refereed = [line for line in port.sim.lines[first:] if line.split()[0] in ("move", "undo", "promote", "new")]
        follower = Follower(chess.Board(fen))
        fields = follow_updates(follower, start, host.updates_since(seen))
        assert bytes(fields) == host.board(), name
        expected = final_moves(fen, refereed)
        moves = follower.moves
        if any(line.startswith("end ") for line in port.sim.lines[first:]):
            moves = moves[:len(expected)]  # the hands may move on past the game's end (test_dgt.py says why)
        assert moves == expected, (name, refereed, follower.events)
        read[name] = follower.moves
    assert read["castling-rook-first-casual.txt"] == ["e1g1"] and read["en-passant-victim-last.txt"] == ["d4e3"]
    assert read["promotion-taps.txt"] == ["e7e8b", "a3b2"] and read["slide.txt"] == ["a1a5"]
    assert read["capture-swap.txt"] == ["e4d5"] and read["takeback-casual.txt"] == ["d2d4"]
    assert host.codec.stray == 0 and host.codec.cut == 0


def test_a_bus_host_finds_the_board_and_follows_a_game_from_its_changes(port):
    port.sim.send("clock 5+3")
    host = port.dgt(BusHost)
    host.send(bus_frame(LIVECHESS_0x92, 0))  # LiveChess's undocumented command: no answer
    address, delay = host.discover()  # a ping to every board
    assert delay < 1.1 + 0.3  # answered within 1,100 ms (and the pseudo-terminal's latency)
    assert host.frame(BUS_IGNORE_NEXT_PING, address, MSG_BUS_PING).address == address
    host.send(bus_frame(BUS_PING, 0))
    host.nothing_for(1.3, (MSG_BUS_PING,))  # the ping it was told to ignore
    assert host.frame(BUS_SEND_VERSION, address, MSG_BUS_VERSION).data == b"\x01\x02"
    assert host.frame(BUS_SET_START_GAME, address, MSG_BUS_START_GAME_WRITTEN).data == b""
    board = host.frame(BUS_SEND_BRD, address, MSG_BUS_BRD_DUMP).data
    assert placement(board) == chess.STARTING_BOARD_FEN
    host.frame(BUS_SEND_CHANGES, address, MSG_BUS_UPDATE)  # the start tag and the position: had already
    follower = Follower(chess.Board())
    fields = bytearray(board)
    game = chess.Board()
    for uci in GAME[:12]:  # to both sides castled
        move = chess.Move.from_uci(uci)
        port.sim.send(hand_commands(game, move))
        game.push(move)
        port.mark(uci)
        for tag in changes(host.frame(BUS_SEND_CHANGES, address, MSG_BUS_UPDATE).data):
            assert tag != ("start",)
            fields[tag[0]] = tag[1]
            follower.see(placement(fields))
        assert follower.moves == [m.uci() for m in game.move_stack], follower.events
    kind, white, black, status, wf, bf = decode_clock(host.frame(BUS_SEND_CLK, address, MSG_BUS_BWTIME).data)
    assert kind == "times" and 0 < white <= 300 + 5 * 3 and 0 < black <= 300 + 6 * 3 and status & 0x10  # white to move
    assert host.codec.bad_checks == 0 and host.codec.stray == 0 and host.codec.cut == 0


def test_the_hosts_leds_on_the_board(port):
    host = port.dgt()
    host.send(b"\x40" + rev2_leds(1, field_of("e2"), field_of("e4")))
    assert port.leds() == {"e2": "remote-move", "e4": "remote-move"}
    host.send(rev2_leds(0, 0x40, 0x40))
    assert port.leds() == {}


def test_hostile_bytes_on_the_port_change_nothing_and_every_dialect_still_answers(port):
    host = port.dgt()
    assert host.version() == (1, 2)
    rng = random.Random(7)
    garbage = [
        bytes(rng.randrange(256) for _ in range(200)),
        b"\x2b\x7f" + bytes(range(40)),  # a clock message of no size there is
        b"\x60\x04\x01\x50\x51\x00",  # LEDs beyond the board
        bus_frame(BUS_SEND_BRD, 1234, check=0),  # a wrong checksum
        b"hello\r\n",
        b"\x03",  # Ctrl-C: a byte on the simulator (the Pico's firmware would stop for the REPL)
    ]
    for data in garbage:
        host.send(data)
    time.sleep(1.2)  # past any half message the bytes left
    host.send(b"\n")
    host.drain()
    assert host.version() == (1, 2) and placement(host.board()) == chess.STARTING_BOARD_FEN
    port.hang_up(host)
    chesslink = port.connect()  # another program on the port next
    chesslink.write_e2rom(2, 1)
    assert chesslink.version() == "0103"
    port.hang_up(chesslink)
    host = port.dgt()
    assert host.version() == (1, 2)
