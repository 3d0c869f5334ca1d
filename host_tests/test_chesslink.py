# Millennium ChessLink on the USB link (firmware/link/chesslink.py, docs/spec.md section 7).
#
# First the messages byte by byte on the App + fakes rig of test_link.py; then the project's own
# ChessLink host (host_tests/helpers/chesslink_client.py) on the pseudo-terminal of
# `tools/sim_terminal.py --serial`, as a host program on a PC finds the board: its requests and
# answers, the LEDs it lights (read back with the simulator's `leds`), automatic reports through a
# whole game, a promotion chosen by taps, and a host that opens the port in the middle of a game.
import time

import chess
import pytest
from chesslink_client import (
    START_STATUS,
    Codec,
    GameFollower,
    Host,
    PtyTransport,
    has_odd_parity,
    led_message,
    square_of,
    status_placement,
)
from companion_rig import SimBoard, dump, hand_commands
from core import signals as S
from core.position import parse_square
from link.pieces import PROMOTION_CHOICE_MS
from test_link import Rig, frame_squares


def message(body, with_parity=False, check=True):
    return Codec(parity=with_parity).encode(body, check=check)


def replies(rig):
    """What the board sent since the last call (ChessLink only: no text lines)."""
    data = b"".join(x for x in rig.out if isinstance(x, bytes))
    texts = [x for x in rig.out if isinstance(x, str)]
    rig.out.clear()
    assert texts == [], "text lines in a ChessLink session: %r" % texts
    return data


def split(data, checked=True):
    """The board's bytes as its messages (letter + body), every block check verified."""
    codec = Codec(checked=checked)
    got = codec.feed(data)
    assert codec.pending() == 0 and codec.stray == 0, "bytes left over in %r" % data
    return [r.letter + r.body for r in got]


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
    assert all(has_odd_parity(b) for b in data)  # every byte odd parity
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
    before = bytes(rig.link.sessions["chesslink"].e2rom)
    rig.send(bad + b"\n")
    rig.run(50)
    assert replies(rig) == b""
    assert bytes(rig.link.sessions["chesslink"].e2rom) == before
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


@pytest.mark.parametrize("stray", [b"L", b"W0", b"R", b"S", b"L32" + b"0" * 40])
def test_a_stray_command_letter_never_swallows_the_next_message(stray):
    # A command letter in garbage starts a message that never finishes: the next message's own
    # letter cannot be a byte of it (after the letter come hex digits only), so the board drops
    # the stray at once and reads the next message whole, with no wait for the stale timeout.
    rig = session()
    rig.send(stray + message("V"))
    assert split(replies(rig)) == ["v0103"]
    rig.send(stray + message("W0203") + message("R02"))
    assert split(replies(rig)) == ["w0203", "r0203"]
    assert rig.link.sessions["chesslink"].ignored == 2
    # The rest of a broken message is dropped silently up to the line end; the next line is read.
    rig.send(stray + b"xyz\nstatus\n")
    assert rig.lines()[0].startswith("status phase=play")


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
    """The letter a status gives square `name` (h1 first, a8 last)."""
    sq = parse_square(name)
    return text[[i for i in range(64) if square_of(i) == sq][0]]


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


def test_the_hosts_codec_reads_replies_split_anywhere_and_finds_its_feet():
    """host_tests/helpers/chesslink_client.py's Codec, the part a Bluetooth transport reuses: bytes in,
    replies out, whatever the reads split; a stray byte or a half reply before them is skipped."""
    board = Codec(parity=True)  # the board's side of the wire, answering with parity
    data = board.encode("v0103") + board.encode("s" + START_STATUS) + board.encode("l")
    for cut in range(1, len(data)):
        host = Codec()
        got = host.feed(data[:cut]) + host.feed(data[cut:])
        assert [r.letter + r.body for r in got] == ["v0103", "s" + START_STATUS, "l"]
        assert all(r.parity for r in got) and host.bad_parity == 0
    host = Codec()
    tail = board.encode("s" + START_STATUS)[40:]  # opened in the middle of a report: 'r', 'b'...
    got = host.feed(b"\x00" + tail + board.encode("r0203"))
    assert [r.letter + r.body for r in got] == ["r0203"] and host.stray > 0
    assert Codec(parity=False).encode("V") == b"V56" and Codec().encode("V") == bytes((0xD6, 0xB5, 0xB6))


def corners(*names):
    """The L message a host sends to light squares: all four corners of each."""
    return led_message(names, 0xCC)


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
    if rig.link.sessions["chesslink"].e2rom[0] & 1:
        rig.send(b"W0000")  # the random bytes turned the block check off: on again
    rig.out.clear()
    rig.send(message("X") + message("V"))
    assert split(replies(rig)) == ["x", "v0103"]


def lit_squares(rig):
    frame = rig.app.shown_frame()
    return sorted(chess.square_name(sq) for sq in range(64) if frame[sq] == S.REMOTE_MOVE)


@pytest.mark.parametrize(
    "names, lit",
    [
        (("e1", "g1"), ["e1", "g1"]),  # O-O, the king's squares only: f1 between them stays dark
        (("e1", "f1", "g1", "h1"), ["e1", "f1", "g1", "h1"]),  # O-O, every square it changes
        (("e8", "c8"), ["c8", "e8"]),  # O-O-O, the king's squares
        (("a8", "c8", "d8", "e8"), ["a8", "b8", "c8", "d8", "e8"]),  # b8's corners are all lit too
        (("e2", "e4"), ["e2", "e4"]),
        (("g1", "f3"), ["f3", "g1"]),
        (("a1", "h8"), ["a1", "h8"]),  # the corners of the board: LED 73 and LED 9's squares
    ],
)
def test_a_hosts_move_lights_its_from_and_to_squares(names, lit):
    rig = session()
    rig.send(message(led_message(names)))
    assert split(replies(rig)) == ["l"]
    rig.run(10)
    assert lit_squares(rig) == lit


def test_led_numbers_count_from_the_h1_corner():
    """LED 1 is the h1 corner, 9 the h8 corner, 73 the a1 corner, 81 the a8 corner: a host that
    lights the four corners of one corner square lights that square."""
    for name, leds in (("h1", (1, 2, 10, 11)), ("h8", (8, 9, 17, 18)), ("a1", (64, 65, 73, 74)), ("a8", (71, 72, 80, 81))):
        rig = session()
        codes = ["00"] * 81
        for n in leds:
            codes[n - 1] = "FF"
        rig.send(message("L20" + "".join(codes)))
        assert split(replies(rig)) == ["l"]
        rig.run(10)
        assert lit_squares(rig) == [name]


def test_the_status_reads_h1_first_as_the_hosts_do():
    rig = session()
    for uci in ("e2e4", "e7e5", "g1f3"):
        rig.play(uci)
    s = status(rig)
    assert s[0] == "R" and s[63] == "r" and s[3] == "K" and s[59] == "k"  # h1 ... a8; the kings on e
    assert status_placement(s) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"


def test_a_refused_new_keeps_the_chesslink_session():
    rig = session()
    rig.send(message(corners("a1")))
    replies(rig)
    got = rig.ask("new x")
    assert len(got) == 1 and got[0].startswith("err new: ")
    assert rig.link.dialect == "chesslink" and rig.app.host_frame is not None
    rig.play("e2e4")
    assert rig.out == []  # no text `move` line: the session goes on
    assert at(status(rig), "e4") == "P"


PROMOTION_FEN = "8/8/8/8/8/6k1/1p6/4K2R b - - 0 1"


def test_the_status_never_shows_a_promotion_piece_not_chosen_yet():
    rig = Rig(occupied=[parse_square(x) for x in ("g3", "b2", "e1", "h1")])
    assert rig.ask("new " + PROMOTION_FEN)[-1] == "ok"
    rig.send(message("W0203"))  # reports on every change
    rig.run(20)
    rig.out.clear()
    shown = []

    def watch(ms):
        for _ in range(ms // 5):
            rig.run(5)
            for r in split(replies(rig)):
                if r[0] == "s":
                    shown.append(at(r[1:], "b1"))

    rig.vm.lift(parse_square("b2"))
    watch(100)
    rig.vm.place(parse_square("b1"))
    watch(800)  # the move is made: a queen for the board's game, a pawn for the host
    assert rig.game.uci_moves() == ["b2b1q"]
    for _ in range(3):  # taps: rook, bishop, knight
        rig.vm.lift(parse_square("b1"))
        watch(100)
        rig.vm.place(parse_square("b1"))
        watch(400)
    assert rig.game.uci_moves() == ["b2b1n"]
    assert set(shown) <= {".", "p"}, shown  # never a piece the player had not chosen
    watch(PROMOTION_CHOICE_MS + 100)  # the piece stands still: the choice is made
    assert shown[-1] == "n"
    rig.vm.lift(parse_square("b1"))  # a tap now changes nothing: the host has been told
    watch(100)
    rig.vm.place(parse_square("b1"))
    watch(600)
    assert rig.game.uci_moves() == ["b2b1n"] and shown[-1] == "n"


def test_the_opponents_lift_makes_the_promotion_choice_at_once():
    rig = Rig(occupied=[parse_square(x) for x in ("g3", "b2", "e1", "h1")])
    assert rig.ask("new " + PROMOTION_FEN)[-1] == "ok"
    rig.send(message("W0201"))
    rig.run(20)
    rig.out.clear()
    rig.lift("b2")
    rig.place("b1", ms=800)
    assert at(status(rig), "b1") == "p"
    rig.lift("e1")  # white's king: the queen it is
    assert at(status(rig), "b1") == "q"


# ---------------------------------------------------------------------- a host on the port


class HostOnPort:
    """tools/sim_terminal.py --serial with the project's ChessLink host on its pseudo-terminal."""

    def __init__(self, tmp_path, *args):
        self.path = str(tmp_path / "board")
        self.sim = SimBoard(self.path, *args)
        self.hosts = []

    def connect(self, parity=True):
        transport = PtyTransport(self.path)
        host = Host(transport, parity=parity)
        self.hosts.append((host, transport))
        return host

    def hang_up(self, host):
        for h, t in self.hosts:
            if h is host:
                t.close()
        self.hosts = [(h, t) for h, t in self.hosts if h is not host]

    def leds(self):
        """The simulator's `leds`: {square: signal name} of every lit square (after a scan, so
        that what the port just carried has reached the LEDs)."""
        self.sim.send("wait 20")
        self.sim.send("leds")
        out = {}
        while True:
            line = self.sim.expect(r"^(all LEDs off|\(blinking|[a-h][1-8] )").string
            if not line[0] in "abcdefgh" or line[1] not in "12345678":
                return out
            words = line.split()
            out[words[0]] = words[1]

    def close(self):
        for _, t in self.hosts:
            t.close()
        self.sim.stop()


@pytest.fixture
def port(tmp_path):
    p = HostOnPort(tmp_path)
    yield p
    p.close()


def test_a_host_on_the_port_speaks_every_message(port):
    host = port.connect()
    host.write_e2rom(2, 1)  # reports off: this host asks
    assert host.version() == "0103"
    assert host.identity() == "0055mm"
    assert host.status() == START_STATUS
    # E2ROM: written, read back; scan time and report mode as python-mchess sets them.
    assert host.write_e2rom(0x17, 0x42) == "1742" and host.read_e2rom(0x17) == 0x42
    assert host.write_e2rom(1, 48) == "0130" and host.read_e2rom(1) == 48
    assert host.read_e2rom(2) == 1
    # Parity both ways: every byte of every answer carries odd parity, exactly when ours do.
    assert all(r.parity for r in host.log) and host.codec.bad_parity == 0
    port.hang_up(host)  # one program at a time on a port: the next one sends no parity
    plain = port.connect(parity=False)
    assert plain.version() == "0103" and plain.read_e2rom(0x17) == 0x42
    assert not any(r.parity for r in plain.log)
    port.hang_up(plain)
    host = port.connect()
    assert host.version() == "0103" and host.log[-1].parity
    # A corrupted block check is ignored: no answer, nothing changed.
    host.send("W1799", check="00")
    host.nothing_for(0.5)
    assert host.read_e2rom(0x17) == 0x42
    # A message split across reads: one byte at a time, 20 ms apart.
    host.transport.write(host.codec.encode("W1707"), gap=0.02)
    assert host.wait_reply("w").body == "1707" and host.read_e2rom(0x17) == 7
    # LEDs on corners: the board shows the squares the host lit, and its own signals after X.
    assert host.leds(["e2", "e4"]) == ""
    assert port.leds() == {"e2": "remote-move", "e4": "remote-move"}
    host.leds(["e1", "g1"])  # a king's castling move
    assert port.leds() == {"e1": "remote-move", "g1": "remote-move"}
    assert host.leds_off() == ""
    assert port.leds() == {}
    # Reset: no answer; the LEDs the host lit go dark.
    host.leds(["d2", "d4"])
    host.reset()
    host.nothing_for(0.5)
    assert port.leds() == {} and host.version() == "0103"
    # The block check off (for a terminal) and on again.
    host.write_e2rom(0, 1)
    assert host.version() == "0103" and host.status() == START_STATUS
    host.write_e2rom(0, 0)
    assert host.version() == "0103"


# A whole game with castling on the queen's side, captures, checks and a mate (Unzicker's trap
# line as it is usually quoted).
WHOLE_GAME = (
    "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 c7c6 g1f3 c8g4 c1f4 e7e6 h2h3 g4f3 d1f3 f8b4 f1e2 b8d7 "
    "a2a3 e8c8 a3b4 a5a1 e1d2 a1h1 f3c6 b7c6 e2a6"
).split()


def test_automatic_reports_follow_a_whole_game(port):
    host = port.connect()
    host.write_e2rom(2, 3)  # a status on every change
    follower = GameFollower(chess.Board())
    host.wait_status(lambda s: s == START_STATUS)
    game = chess.Board()
    for uci in WHOLE_GAME:
        move = chess.Move.from_uci(uci)
        port.sim.send(hand_commands(game, move))
        game.push(move)
        reports = []  # every change reported: the piece up (an empty square), then down

        def changed(s):
            reports.append(s)
            return follower.see(s) is not None

        host.wait_status(changed, timeout=10)
        assert follower.moves[-1] == uci, dump(port.sim)
        assert len(reports) >= 2 and len(set(reports)) == len(reports), (uci, reports)
    assert follower.moves == WHOLE_GAME and game.is_checkmate()
    assert host.codec.bad_checks == 0 and host.codec.stray == 0


def test_a_host_that_opens_the_port_mid_game_follows_it(port):
    early = port.connect()
    early.write_e2rom(2, 0)  # a status every scan, then it goes away without a word
    early.wait_status(lambda s: True)
    port.hang_up(early)
    game = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        move = chess.Move.from_uci(uci)
        port.sim.send(hand_commands(game, move))
        game.push(move)
    time.sleep(0.5)  # the board's reports pile up in the port meanwhile
    host = port.connect()
    status = host.wait_status(lambda s: True)  # the first whole report it reads
    assert status_placement(status) == game.board_fen()  # not upside down
    follower = GameFollower(game.copy())
    port.sim.send("move b8 c6")
    host.wait_status(lambda s: follower.see(s) is not None, timeout=10)
    assert follower.moves == ["b8c6"]


def test_an_under_promotion_chosen_by_taps_reaches_the_host(port):
    fen = "8/8/8/8/8/6k1/1p6/R3K3 b Q - 0 1"
    port.sim.send("fen " + fen)
    host = port.connect()
    host.write_e2rom(2, 3)
    game = chess.Board(fen)
    host.wait_status(lambda s: status_placement(s) == game.board_fen())
    follower = GameFollower(game)
    port.sim.send("lift a1; move b2 a1")
    for _ in range(3):  # queen -> rook -> bishop -> knight
        port.sim.send("tap a1")
    port.sim.expect("promote b2a1n")
    host.wait_status(lambda s: follower.see(s) is not None, timeout=10)
    assert follower.moves == ["b2a1n"], dump(port.sim)
    port.sim.send("move e1 d2")  # and the game goes on
    host.wait_status(lambda s: follower.see(s) is not None, timeout=10)
    assert follower.moves == ["b2a1n", "e1d2"]
