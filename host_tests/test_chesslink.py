# Millennium ChessLink on the USB link (firmware/link/chesslink.py, docs/spec.md section 7): the messages of
# python-mchess's magic-board.md (commit 74ccfd40) byte by byte, then python-mchess's own client
# (host_tests/mchess/, its files unchanged) playing moves over a pseudo-terminal.
import errno
import os
import pty
import queue
import sys
import threading
import time
import tty

import chess
import pytest
import serial  # pyserial: python-mchess's transport (pinned through mpremote)
from core import signals as S
from core.position import parse_square
from test_link import Rig, frame_squares

HERE = os.path.dirname(os.path.abspath(__file__))
# python-mchess's own code, unchanged, still calls Thread.setDaemon().
pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")
START_STATUS = "rnbqkbnr" + "p" * 8 + "." * 32 + "P" * 8 + "RNBQKBNR"


def parity(b):
    """b with odd parity in bit 7 (python-mchess's add_odd_par)."""
    return b | 0x80 if bin(b).count("1") % 2 == 0 else b


def message(body, with_parity=False, check=True):
    data = body.encode()
    if check:
        c = 0
        for b in data:
            c ^= b
        data += b"%02X" % c
    if with_parity:
        data = bytes(parity(b) for b in data)
    return data


def replies(rig):
    """What the board sent since the last call, bit 7 masked, with the parity it carried."""
    data = b"".join(x for x in rig.out if isinstance(x, bytes))
    texts = [x for x in rig.out if isinstance(x, str)]
    rig.out.clear()
    assert texts == [], "text lines in a ChessLink session: %r" % texts
    return data


def split(data):
    """Received bytes into messages, by the reply letter's length (python-mchess's protocol_replies)."""
    lengths = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7, "i": 9}
    out = []
    i = 0
    while i < len(data):
        letter = chr(data[i] & 0x7F)
        n = lengths[letter]
        chunk = data[i : i + n]
        body = bytes(b & 0x7F for b in chunk)
        c = 0
        for b in body[:-2]:
            c ^= b
        assert body[-2:] == b"%02X" % c, "block check of %r" % body
        out.append(body[:-2].decode())
        i += n
    return out


def session(**kwargs):
    rig = Rig(**kwargs)
    rig.send(message("W0201"))  # automatic reports off, for tests that ask themselves
    assert split(replies(rig)) == ["w0201"]
    return rig


def test_version_identity_and_status_at_the_start():
    rig = session()
    rig.send(message("V") + message("I") + message("S"))
    assert split(replies(rig)) == ["v0103", "i0055mm", "s" + START_STATUS]


def test_parity_is_answered_exactly_when_the_client_sends_it():
    rig = session()
    rig.send(message("V", with_parity=True))
    data = replies(rig)
    assert all(bin(b).count("1") % 2 == 1 for b in data)  # every byte odd parity
    assert any(b & 0x80 for b in data)
    assert split(data) == ["v0103"]
    rig.send(message("V"))
    data = replies(rig)
    assert not any(b & 0x80 for b in data) and split(data) == ["v0103"]


@pytest.mark.parametrize(
    "bad",
    [
        b"V57",  # wrong block check
        b"V5",  # cut short, then a line end
        b"S5g",  # not a hex digit
        b"W02x3",
        bytes((0x56 | 0x80, 0x35, 0x36)),  # parity on V and on 5, not on 6 (even): a bit lost
        b"V56"[:1] + b"\n",
    ],
)
def test_malformed_messages_are_ignored_and_change_nothing(bad):
    rig = session()
    before = bytes(rig.link.chesslink.e2rom)
    rig.send(bad + b"\n")
    rig.run(50)
    assert replies(rig) == b""
    assert bytes(rig.link.chesslink.e2rom) == before
    rig.send(message("V"))  # and the next message is read as ever
    assert split(replies(rig)) == ["v0103"]


def test_a_message_split_anywhere_and_a_stale_half_message():
    rig = session()
    data = message("W0203") + message("R02")
    for i in range(len(data)):
        rig.send(data[i : i + 1])
    assert split(replies(rig)) == ["w0203", "r0203"]
    rig.send(message("W0201"))
    rig.send(message("R02")[:2])  # the client went away mid-message ...
    rig.run(1200)
    rig.send(message("V"))  # ... the next one starts afresh
    assert split(replies(rig)) == ["w0201", "v0103"]


def test_without_block_check_for_a_terminal():
    rig = session()
    rig.send(message("W0001"))
    assert split(replies(rig)) == ["w0001"]
    rig.send(b"V")
    assert replies(rig) == b"v0103"
    rig.send(b"W0000")
    assert replies(rig) == b"w0000"
    rig.send(message("V"))
    assert split(replies(rig)) == ["v0103"]


def status(rig):
    rig.send(message("S"))
    (reply,) = split(replies(rig))
    return reply[1:]


def at(text, name):
    sq = parse_square(name)
    return text[8 * (7 - sq // 8) + sq % 8]


def test_status_follows_the_pieces_in_the_hand():
    rig = session()
    rig.lift("e2")
    assert at(status(rig), "e2") == "."
    rig.place("e4", ms=50)  # not committed yet: the move on its way
    s = status(rig)
    assert at(s, "e4") == "P" and at(s, "e2") == "."
    rig.run(300)
    rig.lift("d7", ms=300)  # an illegal move: d7-d4, the pawn reported where it is put down
    rig.place("d4", ms=600)
    s = status(rig)
    assert at(s, "d4") == "p" and at(s, "d7") == "."
    rig.lift("d4")
    rig.place("d7", ms=300)
    # A capture: the victim's square holds the capturing piece once it is set down.
    for frm, to in (("d7", "d5"),):
        rig.lift(frm)
        rig.place(to, ms=300)
    rig.lift("e4")
    rig.lift("d5")
    rig.place("d5", ms=50)
    s = status(rig)
    assert at(s, "d5") == "P" and at(s, "e4") == "."
    # A stray piece nobody lifted: a pawn of the half it stands on.
    rig.run(300)
    rig.place("h5", ms=300)
    assert at(status(rig), "h5") == "p"


def test_a_takeback_by_the_host_is_followed_in_strict_mode():
    rig = session()  # strict: the board itself reads no takeback
    for frm, to in (("e2", "e4"), ("d7", "d5")):
        rig.lift(frm)
        rig.place(to, ms=400)
    rig.lift("e4")
    rig.lift("d5")
    rig.place("d5", ms=400)
    assert rig.game.uci_moves() == ["e2e4", "d7d5", "e4d5"]
    # The host's takeback: the white pawn back to e4, the black one back on d5.
    rig.lift("d5")
    rig.place("e4")
    rig.place("d5", ms=800)
    assert rig.game.uci_moves() == ["e2e4", "d7d5"]
    s = status(rig)
    assert at(s, "d5") == "p" and at(s, "e4") == "P"
    rig.lift("e4")  # and the next move is read as ever
    rig.lift("d5")
    rig.place("d5", ms=400)
    assert rig.game.uci_moves() == ["e2e4", "d7d5", "e4d5"] and at(status(rig), "d5") == "P"


def test_automatic_reports_on_every_change_and_at_every_scan():
    rig = session()
    rig.send(message("W0203"))  # 011: on any change
    rig.run(5)
    got = split(replies(rig))
    assert got == ["w0203", "s" + START_STATUS]  # the state now, then every change
    rig.lift("g1")
    rig.place("f3", ms=300)
    got = split(replies(rig))
    assert [at(x[1:], "g1") + at(x[1:], "f3") for x in got] == ["..", ".N"]
    rig.run(500)
    assert replies(rig) == b""  # nothing changed: nothing sent
    rig.send(message("W0200"))  # 000: every scan (41 ms at scan time 20)
    assert split(replies(rig))[0] == "w0200"
    rig.run(410)
    assert 9 <= len(split(replies(rig))) <= 11


def test_e2rom_reads_back_what_was_written():
    rig = session()
    rig.send(message("W1742") + message("R17") + message("R01"))
    assert split(replies(rig)) == ["w1742", "r1742", "r0114"]


def corners(*names):
    """The 81 LED bytes python-mchess sends to light squares (all four corners of each)."""
    leds = [0] * 81
    for name in names:
        sq = parse_square(name)
        f, top = sq % 8, 7 - sq // 8
        for c in (9 * f + top, 9 * f + top + 1, 9 * (f + 1) + top, 9 * (f + 1) + top + 1):
            leds[c] = 0xCC
    return "L20" + "".join("%02X" % v for v in leds)


def test_host_leds_light_the_squares_their_corners_enclose_until_x():
    rig = session()
    rig.send(message(corners("e7", "e5")))
    assert split(replies(rig)) == ["l"]
    rig.run(10)
    # e6 has all four corners lit too, but they belong to e7 and e5.
    assert frame_squares_of(rig, S.REMOTE_MOVE) == sorted([parse_square("e7"), parse_square("e5")])
    rig.send(message(corners("e2", "e3")))  # neighbours
    assert split(replies(rig)) == ["l"]
    rig.run(10)
    assert frame_squares_of(rig, S.REMOTE_MOVE) == sorted([parse_square("e2"), parse_square("e3")])
    rig.lift("g1", ms=100)  # the board's own picture goes on underneath ...
    assert frame_squares_of(rig, S.LIFTED) == []
    rig.send(message("X"))
    assert split(replies(rig)) == ["x"]
    rig.run(10)
    assert frame_squares_of(rig, S.LIFTED) == [parse_square("g1")]  # ... and is back after X
    assert frame_squares(rig, S.LIFTED) == [parse_square("g1")]


def frame_squares_of(rig, signal):
    return sorted(i for i in range(64) if rig.leds.frame[i] == signal)


def test_reset_clears_the_leds_and_new_leaves_chesslink():
    rig = session()
    rig.send(message(corners("a1")))
    replies(rig)
    rig.send(message("T"))
    rig.run(10)
    assert replies(rig) == b"" and rig.app.host_frame is None
    rig.send(message(corners("a1")))
    replies(rig)
    assert rig.ask("new") == ["ok"]  # a person at a terminal: the board's commands again
    assert rig.app.host_frame is None and rig.link.dialect == "board"


# ---------------------------------------------------------------------- python-mchess itself


class PtyBoard:
    """The firmware's App and Link on a pseudo-terminal, scanned every 5 ms in a thread: the
    simulated board as a ChessLink client finds it on a USB port."""

    def __init__(self):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # a USB CDC port passes every byte as it is
        self.port = os.ttyname(self.slave)
        self.rig = Rig(store=False)
        self.rig.link.write_bytes = self._write
        self.rig.link.write = lambda text: self._write(text.encode())
        self.hands = queue.Queue()
        self.sent = bytearray()
        self.running = True
        os.set_blocking(self.master, False)
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _write(self, data):
        self.sent += data
        os.write(self.master, bytes(data))

    def _loop(self):
        rig = self.rig
        while self.running:
            try:
                data = os.read(self.master, 512)
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EIO):
                    raise
                data = b""
            if data:
                rig.link.feed(data)
            while not self.hands.empty():
                action, name = self.hands.get()
                getattr(rig.vm, action)(parse_square(name))
            rig.run(5)
            time.sleep(0.004)

    def act(self, action, name, ms=80):
        self.hands.put((action, name))
        time.sleep(ms / 1000)

    def play(self, uci):
        self.act("lift", uci[:2])
        if self.rig.vm.occupied(parse_square(uci[2:4])):
            self.act("lift", uci[2:4])
        self.act("place", uci[2:4], ms=400)

    def close(self):
        self.running = False
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


def open_mchess(port, tmp_path, monkeypatch):
    """python-mchess's ChessLink (mchess/chess_link.py with chess_link_usb.py), configured to the
    port as a user's chess_link_config.json would be."""
    # A pseudo-terminal has no modem lines: pyserial's DTR ioctl fails there (ENOTTY), where the
    # Pico's USB CDC port takes it. Nothing else of the client is changed.
    original = serial.Serial._update_dtr_state

    def dtr(self):
        try:
            original(self)
        except OSError as e:
            if e.errno != errno.ENOTTY:
                raise

    monkeypatch.setattr(serial.Serial, "_update_dtr_state", dtr)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chess_link_config.json").write_text(
        '{"transport": "chess_link_usb", "address": "%s", "autodetect": false, "orientation": true,'
        ' "protocol_debug": false, "btle_iface": 0}' % port
    )
    monkeypatch.syspath_prepend(os.path.join(HERE, "mchess"))
    for name in ("chess_link", "chess_link_usb", "chess_link_protocol"):
        sys.modules.pop(name, None)
    import chess_link

    appque = queue.Queue()
    return chess_link.ChessLink(appque, "board"), appque


def connect_as_the_agent(cl, appque):
    """What python-mchess's ChessLinkAgent does on connecting, until the start position is seen."""
    assert cl.connected
    cl.get_version()
    cl.set_debounce(4)
    cl.get_scan_time_ms()
    cl.set_scan_time_ms(100.0)
    cl.get_position()
    wait_for(appque, "new_game")  # the start position seen (and the board's orientation found)
    end = time.time() + 3
    while cl.board_version == "---" and time.time() < end:
        time.sleep(0.05)
    assert cl.board_version == "01.03"


@pytest.fixture
def mchess(tmp_path, monkeypatch):
    board = PtyBoard()
    cl, appque = open_mchess(board.port, tmp_path, monkeypatch)
    yield cl, appque, board
    cl.quit()
    cl.trans.quit()
    board.rig.link.write_bytes(b"x")  # wakes the client's blocking read so its thread ends
    time.sleep(0.3)
    board.close()


def wait_for(appque, cmd, seconds=5.0):
    end = time.time() + seconds
    seen = []
    while time.time() < end:
        try:
            msg = appque.get(timeout=0.1)
        except queue.Empty:
            continue
        seen.append(msg)
        if msg.get("cmd") == cmd:
            return msg, seen
    raise AssertionError("no %r from python-mchess; got %r" % (cmd, seen))


def legal_moves(board):
    """What python-mchess's dispatcher gives move_from(): the position after each move -> its UCI."""
    vals = {}
    for mv in board.legal_moves:
        board.push(mv)
        vals[board.board_fen()] = mv.uci()
        board.pop()
    return vals


def test_python_mchess_plays_moves_on_the_board(mchess):
    cl, appque, board = mchess
    connect_as_the_agent(cl, appque)
    assert board.rig.link.chesslink.e2rom[2] == 7 and board.rig.link.chesslink.e2rom[1] == 48
    game = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        cl.move_from(game.fen(), legal_moves(game), cl.WHITE if game.turn else cl.BLACK)
        if not game.turn:
            # An engine's reply shown on the board's LEDs: python-mchess lights its squares.
            after = game.copy()
            after.push_uci(uci)
            cl.show_deltas([cl.fen_to_position(game.fen()), cl.fen_to_position(after.fen())], 0x20)
            time.sleep(0.2)
            lit = sorted(sq for sq in range(64) if board.rig.leds.frame[sq] == S.REMOTE_MOVE)
            assert lit == sorted([parse_square(uci[:2]), parse_square(uci[2:])])
        board.play(uci)
        msg, _ = wait_for(appque, "move")
        assert msg["uci"] == uci
        game.push_uci(uci)
    assert board.rig.game.uci_moves() == ["e2e4", "e7e5", "g1f3"]
    assert board.rig.app.host_frame is None  # python-mchess sends X after each move
    # The client sent odd parity: every byte the board sent carried it too.
    assert board.sent and all(bin(b).count("1") % 2 == 1 for b in board.sent)


def test_random_chesslink_bytes_never_break_the_link():
    import random

    rng = random.Random(10)
    rig = Rig()
    alphabet = b"VSLXWRTI0123456789ABCDEFvs\r\n" + bytes(range(0x80, 0x100, 7))
    for i in range(400):
        chunk = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        if rng.random() < 0.2:
            chunk += message(rng.choice(["V", "S", "X", "I", "R02", "W0203", "W0201", corners("e2")]), rng.random() < 0.5)
        rig.send(chunk)
        if i % 10 == 0:
            rig.run(20)
        for x in rig.out:
            text = x if isinstance(x, str) else ""
            assert "internal error" not in text, (chunk, text)
        rig.out.clear()
    rig.send(b"\n")  # ends a message the random bytes left half-sent (an L is 167 bytes)
    if rig.link.chesslink.e2rom[0] & 1:
        rig.send(b"W0000")  # the random bytes turned the block check off: on again
    rig.out.clear()
    rig.send(message("X") + message("V"))
    assert split(replies(rig)) == ["x", "v0103"]


def test_python_mchess_on_the_simulated_board_terminal(tmp_path, monkeypatch):
    """The same client against `tools/sim_terminal.py --serial`: the simulated board as a user
    runs it, its hands typed on its standard input."""
    from companion_rig import SimBoard, dump

    port = str(tmp_path / "board")
    sim = SimBoard(port)
    cl = None
    try:
        cl, appque = open_mchess(port, tmp_path, monkeypatch)
        connect_as_the_agent(cl, appque)
        game = chess.Board()
        for uci in ("e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4"):
            cl.move_from(game.fen(), legal_moves(game), cl.WHITE if game.turn else cl.BLACK)
            sim.send(("lift %s; move %s %s" % (uci[2:], uci[:2], uci[2:])) if game.piece_at(chess.parse_square(uci[2:])) else "move %s %s" % (uci[:2], uci[2:]))
            msg, _ = wait_for(appque, "move", seconds=10)
            assert msg["uci"] == uci, dump(sim)
            game.push_uci(uci)
    finally:
        if cl is not None:
            cl.quit()
            cl.trans.quit()
        sim.stop()
