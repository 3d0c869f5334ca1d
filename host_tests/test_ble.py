# The board over Bluetooth LE (firmware/link/ble.py, docs/spec.md section 9) with a real BLE stack
# on both ends: the firmware's transport runs on bumble through the project's adapter of
# MicroPython's `bluetooth` API (ble_adapter.py, which delivers long writes in pieces as the Pico W's
# BTstack does), and bumble centrals play the phones (ble_rig.py), on bumble's in-process link.
#
# CPP is checked by test_cpp's grammar-checking central, ChessLink by a client that frames messages
# as python-mchess does (block check, odd parity) and reassembles the board's notifications by the
# message lengths of ChessLink; both sessions are also run over the USB link, and must say the same
# lines (the same bytes) in the same order.
import sys

import chess
import pytest
from ble_rig import BleCentralRig, BleRig
from link.link import CHESSLINK, CPP
from link.ble import CHESSLINK_NAME, CPP_SERVICE, HOLD_MS, MTU_ALWAYS_ENOUGH, advertising
from test_cpp import ALL, Central
from core.position import parse_square
from test_link import START_PLACEMENT, Rig

pytest.importorskip("bumble", reason="bumble (requirements-dev.txt) is the phone of these tests")


@pytest.fixture
def rigs():
    made = []

    def make(**kw):
        rig = BleRig(**kw)
        made.append(rig)
        return rig

    yield make
    for rig in made:
        rig.close()


class LoggingCentral(Central):
    """test_cpp's central, keeping every line the board sent (take() empties only `received`)."""

    def __init__(self, rig):
        super().__init__(rig)
        self.log = []

    def _check(self, line):
        super()._check(line)
        self.log.append(line)


def _central(rig, phone):
    return LoggingCentral(BleCentralRig(rig, phone))


# ------------------------------------------------------------------------------ finding the board


def test_advertising_carries_the_cpp_service_and_the_millennium_name():
    adv, resp = advertising("both")
    assert len(adv) <= 31 and len(resp) <= 31
    assert bytes(reversed(bytes.fromhex(CPP_SERVICE.replace("-", "")))) in adv
    assert CHESSLINK_NAME.encode() in resp
    adv, resp = advertising("chesslink")
    assert CHESSLINK_NAME.encode() in adv  # Millennium apps match the name
    adv, resp = advertising("cpp")
    assert CHESSLINK_NAME.encode() not in adv + resp


def test_a_phone_finds_the_board_by_its_cpp_service_and_a_millennium_app_by_name(rigs):
    rig = rigs()
    phone = rig.phone()
    adv = phone.scan(CPP_SERVICE)
    assert adv is not None
    rig = rigs(services="chesslink")
    phone = rig.phone()
    adv = phone.scan_name(CHESSLINK_NAME)
    assert adv is not None
    phone.connect(adv.address)
    assert "chesslink_rx" in phone.chars and "cpp_rx" not in phone.chars  # only ChessLink offered


# ------------------------------------------------------------------------------ CPP


def _a_round(rig, c):
    """A round: negotiation, begin, moves both ways with the hands, a central move refused by
    the board's LEDs until made, end."""
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + " w")
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.move("e7e5")
    rig.play("e7e5")
    c.run(0)
    rig.play("g1f3")
    c.run(0)
    c.accept()
    c.move("b8c6")
    rig.play("b8c6")
    rig.play("f1c4")
    c.run(0)
    c.accept()
    c.move("g8f6")
    rig.play("g8f6")
    rig.play("e1g1")  # castling: king then rook
    c.run(0)
    c.accept()
    c.end("undefined")
    rig.lift("h7", ms=300)  # after end: silence
    c.run(0)


@pytest.mark.parametrize("raise_mtu", [247, None])
def test_a_whole_cpp_round_says_the_same_lines_as_usb(rigs, raise_mtu):
    usb = Rig()
    cu = LoggingCentral(usb)
    _a_round(usb, cu)
    rig = rigs()
    phone = rig.phone()
    phone.connect(raise_mtu=raise_mtu)  # None: the board asks for the MTU itself
    assert phone.mtu == 247 and rig.ble.mtu == 247
    c = _central(rig, phone)
    _a_round(rig, c)
    assert c.log == cu.log
    assert rig.ble.link.dialect == CPP and rig.ble.link.errors == 0
    assert rig.game.uci_moves() == usb.game.uci_moves() == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"]


def test_the_usb_console_works_while_an_app_is_connected(rigs):
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + " w")
    rig.play("d2d4")
    c.run(0)
    assert rig.ask("status")[0].startswith("status phase=play mode=strict turn=b moves=1")
    pgn = rig.ask("pgn")
    assert pgn[0].startswith("pgn ") and "1. d4 *" in pgn
    assert c.take() == ["sync " + START_PLACEMENT + " w", "move d2d4"]  # nothing of the console


def test_mtu_23_long_writes_arrive_in_pieces_and_are_put_back_together(rigs):
    rig = rigs()
    phone = rig.phone(mtu=23)  # an old phone's stack: answers the board's MTU request with 23
    phone.connect()
    assert phone.mtu == 23 and rig.ble.mtu == 23
    # 62 bytes: BTstack hands over 4 writes of at most 18 bytes.
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    before = len(rig.radio.writes)
    phone.write("begin " + fen)
    pieces = [v for _, v in rig.radio.writes[before:]]
    assert [len(p) for p in pieces] == [18, 18, 18, 8]
    # Put back together, it is one begin, answered once: refused, because no round fits MTU 23
    # (test_a_round_the_mtu_cannot_carry_is_refused_with_the_reason).
    assert [v.decode() for v in phone.take()] == ["err MTU 23, need 100"]
    # 36 bytes, two whole pieces: held until HOLD_MS passed without a rest, then one command.
    before = len(rig.radio.writes)
    phone.write("begin 4k3/8/8/8/8/8/8/4K3 w - - 10 1")
    assert [len(v) for _, v in rig.radio.writes[before:]] == [18, 18]
    assert rig.ble.holding
    rig.run(HOLD_MS + 10)
    assert not rig.ble.holding and [v.decode() for v in phone.take()] == ["err MTU 23, need 100"]
    # A whole command of exactly 18 bytes followed by another: both run at once, in order.
    phone.write("feature undo_offer", poll=False)
    phone.write("feature msg")
    assert [v.decode() for v in phone.take()] == ["ok", "ok"]
    assert rig.ble.link.sessions["cpp"].has("undo_offer") and rig.ble.link.sessions["cpp"].has("msg")
    # An err goes out shortened to fit, never cut by the stack in the middle of nowhere.
    phone.write("hello there")
    assert [v.decode() for v in phone.take()] == ["err unknown command:"]


def test_a_round_the_mtu_cannot_carry_is_refused_with_the_reason(rigs):
    # A CPP app takes each notification as one whole command (chess_peripheral_driver's
    # BleStringSerial, blichess): a sync line split over notifications would reach it as three
    # commands, and one not sent leaves it waiting for ever. So at an MTU too small for the
    # round's lines the board refuses begin and get_state at once, in 20 bytes, and changes nothing.
    rig = rigs()
    phone = rig.phone(mtu=23)
    phone.connect()
    assert rig.ble.mtu == 23
    c = _central(rig, phone)
    c.negotiate(("msg",))  # short answers go at any MTU
    assert c.features == ["msg"]
    fen = rig.game.fen()
    for begin, need in (("begin " + START_PLACEMENT + " w KQkq - 0 1", 100), ("begin " + START_PLACEMENT + " w", 83)):
        phone.write(begin)
        assert [v.decode() for v in phone.take()] == ["err MTU 23, need %d" % need]
        assert not rig.ble.link.sessions["cpp"].round and rig.game.fen() == fen
    phone.write("get_state")
    assert [v.decode() for v in phone.take()] == ["err MTU 23, need 80"]
    assert not rig.ble.link.sessions["cpp"].streaming
    said = [text for text in rig.console if "refused" in text]
    assert said[0] == (
        "ble: CPP begin refused: this app's MTU is 23, and a CPP app takes each notification as one"
        " whole line, so its lines of up to 97 bytes need an MTU of 100"
    )
    assert rig.ble.dropped == 0  # nothing was left unsent: the app heard why
    rig.lift("e2")
    rig.place("e4", ms=400)
    assert phone.take() == []  # no round: the board says nothing unasked


@pytest.mark.parametrize("mtu,fields", [(83, " w"), (100, " w KQkq - 0 1")])
def test_a_round_goes_at_the_mtu_the_refusal_names_and_its_widest_lines_fit(rigs, mtu, fields):
    # At exactly the MTU the refusal names the round goes on: pieces set down on every other
    # square of ranks 3 to 6 make the widest placement there is (8 characters a rank, 71 in all),
    # and its unsync line still goes whole.
    from link.ble_mtu import cpp_line_max

    rig = rigs()
    phone = rig.phone(mtu=mtu)
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + fields)
    assert c.take()[-1] == "sync " + START_PLACEMENT + fields
    for rank in "3456":
        for file in ("bdfh" if rank in "35" else "aceg"):
            rig.vm.place(parse_square(file + rank))
    c.run(300)
    line = c.take()[0]
    placement = line.split()[1]
    assert line.startswith("unsync ") and len(placement) == 71 and placement.count("?") == 16
    assert len(line) <= cpp_line_max(b"begin", len(fields.split()) + 1) == mtu - 3
    assert cpp_line_max(b"begin", 6) + 3 == MTU_ALWAYS_ENOUGH  # from there on nothing is checked
    assert rig.ble.dropped == 0 and not any("does not fit" in text for text in rig.console)


def test_garbage_cpp_writes_get_one_err_each_and_change_nothing(rigs):
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + " w")
    fen = rig.game.fen()
    for garbage in (b"\xff\xfe\x00", b"hello there", b"S", b"move e2e4\nnew", b"begin not/a/fen w", b"\r\n"):
        phone.write(garbage)
        got = [v.decode() for v in phone.take()]
        if garbage == b"\r\n":
            assert got == []  # an empty write: nothing to answer
        else:
            assert len(got) == 1 and got[0].startswith("err "), (garbage, got)
    assert rig.game.fen() == fen and rig.ble.link.dialect == CPP and rig.ble.link.sessions["cpp"].round
    c.query = "feature msg"  # the session goes on
    c.send(c.query)
    rig.play("e2e4")
    c.run(0)
    assert c.take()[-1] == "move e2e4"


def test_cpp_disconnect_mid_move_and_reconnect(rigs):
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + " w")
    rig.play("e2e4")
    c.run(0)
    c.accept()
    c.move("e7e5")
    rig.play("e7e5")
    c.run(0)
    assert c.take()[-1] == "moved"
    rig.lift("g1")  # the knight in the air ...
    phone.disconnect()  # ... when the phone walks out of range
    assert rig.ble.connection < 0 and rig.ble.link.dialect is None
    rig.place("f3", ms=400)  # the move is made while nobody listens
    assert rig.game.uci_moves() == ["e2e4", "e7e5", "g1f3"]  # nothing lost on the board
    assert rig.radio.advertising is not None  # found again
    phone.connect()
    c = _central(rig, phone)  # the app starts its driver again: features, variant, begin
    c.negotiate(ALL)
    c.begin(" ".join(rig.game.fen().split()[:2]))  # the app's game: it saw g1f3 (its own record)
    assert c.log[-1] == "sync " + " ".join(rig.game.fen().split()[:2])
    assert rig.game.uci_moves() == ["e2e4", "e7e5", "g1f3"]  # the board kept its game and record
    # The app that missed the move begins from its own game: unsync, and the LEDs guide it there.
    phone.disconnect()
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w")
    assert c.take()[-1] == "unsync rnbqkbnr/pppp1ppp/8/4p3/4P3/5?2/PPPP1PPP/RNBQKB1R w"
    rig.lift("f3")
    rig.place("g1", ms=400)
    c.run(0)
    assert c.take()[-1] == "sync rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w"


@pytest.mark.parametrize("moves", [["e2e4", "e7e5"], []])
def test_a_piece_in_the_air_when_the_app_drops_is_reported_when_it_comes_down(rigs, moves):
    # The bishop (or, before the first move, the e-pawn) is lifted, the phone walks out of range,
    # comes back and begins the game as it stands: the piece still in the air is part of a move
    # in progress, not a board out of step, and putting it down is the app's next `move`.
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(START_PLACEMENT + " w")
    for uci in moves:
        rig.play(uci)
        c.run(0)
        if c.peripheral_move:
            c.accept()
        else:
            c.move(uci)
    lifted, landing = ("f1", "c4") if moves else ("e2", "e4")
    rig.lift(lifted)
    phone.disconnect()
    rig.run(400)
    phone.connect()
    c = _central(rig, phone)
    c.negotiate(ALL)
    c.begin(" ".join(rig.game.fen().split()[:2]))
    assert c.take()[-1] == "sync " + " ".join(rig.game.fen().split()[:2])
    rig.place(landing, ms=400)
    c.run(0)
    assert c.take()[-1] == "move " + lifted + landing
    assert rig.game.uci_moves() == moves + [lifted + landing]


def test_a_second_central_is_refused_and_the_first_goes_on(rigs):
    rig = rigs()
    first = rig.phone()
    first.connect()
    c = _central(rig, first)
    c.negotiate(("msg",))
    second = rig.phone()
    assert second.scan(CPP_SERVICE, timeout=0.3) is None  # not advertising while an app is connected
    # A stack that advertises on while connected: the second central connects and is dropped.
    first.disconnect()
    rig.radio.keep_advertising = True
    first.connect()
    c = _central(rig, first)
    c.negotiate(("msg",))
    second.connect(service=CPP_SERVICE)
    rig.run(20)
    assert second.disconnected and rig.ble.refused == 1
    assert any("second app refused" in text for text in rig.console)
    c.query = "feature check"
    c.send("feature check")
    assert c.query is None and "check" in c.features and not first.disconnected


# ------------------------------------------------------------------------------ ChessLink

_LENGTHS = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7, "i": 9}


class ChessLinkClient:
    """The host's side of ChessLink over BLE, as python-mchess's BLE transport does it: messages
    with their block check (and odd parity when asked), written with response, and the board's
    notifications joined into messages by their letters' lengths."""

    def __init__(self, phone, parity):
        self.phone = phone
        self.parity = parity
        self.stream = b""
        self.notifications = []  # sizes of every notification received
        self.raw = b""  # every byte received

    def send(self, body):
        self.phone.write(message(body, self.parity), name="chesslink_rx")

    def messages(self):
        got = self.phone.take("chesslink")
        self.notifications += [len(v) for v in got]
        self.raw += b"".join(got)
        out, self.stream = parse(self.stream + b"".join(got), self.parity)
        return out


def parse(stream, parity):
    """(the whole messages at the start of `stream`, checked and without their check, the rest)."""
    out = []
    while stream:
        n = _LENGTHS[chr(stream[0] & 0x7F)]
        if len(stream) < n:
            break
        msg = bytes(b & 0x7F for b in stream[:n])
        if parity:
            assert all(bin(b).count("1") % 2 == 1 for b in stream[:n]), "parity"
        check = 0
        for b in msg[:-2]:
            check ^= b
        assert msg[-2:] == b"%02X" % check, msg
        out.append(msg[:-2].decode())
        stream = stream[n:]
    return out, stream


def message(body, parity=False):
    """A host's ChessLink message: the body, its block check, odd parity on every byte if asked."""
    check = 0
    for ch in body:
        check ^= ord(ch)
    data = (body + "%02X" % check).encode()
    if parity:
        data = bytes(b | 0x80 if bin(b).count("1") % 2 == 0 else b for b in data)
    return data


def _statuses(board):
    """The status report of `board` in either square order a ChessLink board may use (a8 first,
    or h1 first as Millennium's boards send it, issue 20): what is checked here is the transport,
    and the order is test_chesslink.py's to check."""
    def symbol(file, rank):
        piece = board.piece_at(chess.square(file, rank))
        return piece.symbol() if piece else "."

    a8 = "".join(symbol(f, r) for r in range(7, -1, -1) for f in range(8))
    h1 = "".join(symbol(f, r) for r in range(8) for f in range(7, -1, -1))
    return ("s" + a8, "s" + h1)


def _chesslink_game(rig, send, read):
    """V, reports on every change, S, a few moves with the hands (the last status after each must
    be the position), LEDs lit and released by the host, I."""
    board = chess.Board()
    got = []

    def say(body):
        send(body)
        rig.run(100)  # python-mchess writes about 0.1 s apart

    say("V")
    say("W0203")
    say("S")
    got += read()
    for uci in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6"):
        rig.play(uci)
        board.push_uci(uci)
        got += read()
        assert got[-1] in _statuses(board), uci
    say("L32" + "00" * 81)
    say("X")
    say("I")
    got += read()
    return got


@pytest.mark.parametrize("mtu,parity", [(23, True), (247, False)])
def test_a_chesslink_game_says_the_same_bytes_as_usb(rigs, mtu, parity):
    usb = Rig()
    sent = []

    def usb_send(body):
        usb.send(message(body, parity))

    def usb_read():
        sent.append(b"".join(x for x in usb.out if isinstance(x, bytes)))
        usb.out.clear()
        return parse(b"".join(sent), parity)[0][-1:]

    _chesslink_game(usb, usb_send, usb_read)
    usb_bytes = b"".join(sent)
    rig = rigs()
    phone = rig.phone(mtu=mtu)
    phone.connect(raise_mtu=None)
    assert rig.ble.mtu == mtu
    client = ChessLinkClient(phone, parity)
    got = _chesslink_game(rig, client.send, client.messages)
    # (Until W0203 the board reports every scan, ChessLink's default: status reports between.)
    assert got[0] == "v0103" and "w0203" in got and got[got.index("w0203") + 1] in _statuses(chess.Board())
    assert got[-3:] == ["l", "x", "i0055mm"]
    assert rig.ble.link.dialect == CHESSLINK
    # Split as a Millennium board splits its stream: notifications of at most MTU-3 bytes; the
    # status report (67 bytes) in 20, 20, 20 and 7 at MTU 23.
    assert max(client.notifications) <= mtu - 3
    if mtu == 23:
        sizes = ",".join(str(n) for n in client.notifications)
        assert sizes.startswith("7,") and ",20,20,20,7," in sizes
    assert client.raw == usb_bytes  # the same bytes as USB, in the same order


def test_chesslink_garbage_is_ignored_and_changes_nothing(rigs):
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    client = ChessLinkClient(phone, False)
    client.send("W0201")  # no automatic reports: anything that comes is an answer
    assert client.messages() == ["w0201"]
    fen = rig.game.fen()
    for garbage in (b"hello\n", b"new\n", b"V00", b"\xff\xfe", b"begin 8/8/8/8/8/8/8/8 w\n"):
        phone.write(garbage, name="chesslink_rx")
        rig.run(10)
    assert client.messages() == [] and phone.take("cpp") == []
    assert rig.game.fen() == fen and rig.ble.link.dialect in (None, CHESSLINK)
    client.send("V")
    assert client.messages() == ["v0103"]


def test_a_stray_chesslink_letter_in_garbage_never_swallows_the_next_message(rigs):
    # "hello SR" holds two command letters: the S starts a message that the R cannot belong to,
    # and the R one that the next message's letter cannot: both dropped at once, and the app's
    # next message is answered in the same scan, not a second later.
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    client = ChessLinkClient(phone, True)
    client.send("W0201")
    assert client.messages() == ["w0201"]
    phone.write(b"hello SR", name="chesslink_rx", poll=False)
    client.send("V")
    assert client.messages() == ["v0103"]
    phone.write(b"L32" + b"00" * 20, name="chesslink_rx", poll=False)  # an L cut short
    client.send("I")
    assert client.messages() == ["i0055mm"]


# DGT's commands, frames and messages as a DGT host on a serial port sends them (link/dgt.py).
DGT_BYTES = (b"\x4b", b"\x4d", b"\x42", b"\x49", b"\x4c", b"\x2b\x03\x03\x09\x00", b"\x60\x02\x00\x00",
             b"\x60\x04\x01\x0c\x1c\x00", b"\x87\x00\x00\x07", b"\x92\x00\x00\x12")


def test_dgt_is_a_serial_ports_dialect_and_its_bytes_over_ble_change_nothing(rigs):
    """DGT hosts speak over a serial port: the BLE link has no DGT. Its bytes on the CPP service
    are refused as any non-CPP write is (one err each), on the ChessLink service ignored as any
    non-ChessLink byte is; the game, the LEDs and a DGT host on the USB port are untouched."""
    rig = rigs(dgt=True)  # the USB link takes DGT hosts, as main.py wires it
    rig.send(b"\x44")  # a DGT host on USB, field updates on
    phone = rig.phone()
    phone.connect()
    fen = rig.game.fen()
    for data in DGT_BYTES:
        phone.write(data)
        got = [v.decode() for v in phone.take()]
        assert len(got) == 1 and got[0].startswith("err "), (data, got)
    client = ChessLinkClient(phone, False)
    for data in DGT_BYTES:
        phone.write(data, name="chesslink_rx")
        rig.run(10)
    rig.run(1100)  # an I or L the bytes began (ChessLink's letters too) goes stale
    assert client.messages() == [] and phone.take("cpp") == []
    assert "dgt" not in rig.ble.link.sessions and rig.ble.link.dialect in (None, CHESSLINK)
    assert rig.game.fen() == fen and rig.app.host_frame is None
    client.send("W0201")  # ChessLink goes on over BLE (reports off: only answers come) ...
    client.send("V")
    assert client.messages() == ["w0201", "v0103"]
    rig.out.clear()
    rig.play("e2e4")  # ... and the DGT host on USB has its field updates
    assert b"".join(x for x in rig.out if isinstance(x, bytes)) == b"\x8e\x00\x05\x34\x00\x8e\x00\x05\x24\x01"


def test_chesslink_reconnection_gets_the_status_with_what_changed(rigs):
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    client = ChessLinkClient(phone, True)
    client.send("W0203")
    client.send("S")
    assert client.messages()[-1] in _statuses(chess.Board())
    rig.lift("e2")  # mid-move ...
    lifted = chess.Board()
    lifted.remove_piece_at(chess.E2)
    assert client.messages()[-1] in _statuses(lifted)
    phone.disconnect()  # ... the host's phone drops
    rig.place("e4", ms=400)
    assert rig.game.uci_moves() == ["e2e4"]
    phone.connect()
    client.send("V")  # the host's first message after reconnecting
    rig.run(20)
    got = client.messages()
    board = chess.Board()
    board.push_uci("e2e4")
    assert got[0] == "v0103" and got[-1] in _statuses(board)


# ------------------------------------------------------------------------------ wiring and settings


def test_main_wires_ble_on_a_pico_w_and_polls_it_every_scan(rigs, monkeypatch, tmp_path):
    import config
    import wiring
    from test_main_loop import FakePico

    monkeypatch.chdir(tmp_path)
    rig = rigs()  # the air, its loop and a phone
    bluetooth = rig.radio_of_another_board()
    rig.radio.gap_advertise(None)  # the rig's own board goes quiet: only the wired board advertises
    rig.settle()
    settings = config.Settings().updated({"ble": "cpp", "status_led_pin": "LED"})  # a Pico W's LED
    pico = FakePico(settings)
    out = []
    board = rig.call(_build(wiring, settings, pico, out, bluetooth))
    assert board.app.ble is not None and board.app.ble.services == "cpp"
    board.start(0)
    phone = rig.phone()
    adv = phone.scan(CPP_SERVICE)
    assert adv is not None and adv.address == bluetooth.radio.device.random_address
    phone.connect(adv.address)
    phone.write("feature msg", poll=False)
    for t in range(5, 50, 5):
        board.tick(t)
        rig.settle()
    assert [v.decode() for v in phone.take()] == ["ok"]


async def _build(wiring, settings, pico, out, bluetooth):
    return wiring.build(settings, pico.machine, pico.neopixel, out.append, bluetooth=bluetooth)


def test_ble_on_a_pico_without_radio_says_so_and_the_board_plays_on(monkeypatch, tmp_path):
    import config
    import wiring
    from test_main_loop import FakePico

    monkeypatch.chdir(tmp_path)
    settings = config.Settings().updated({"ble": "both", "status_led_pin": "LED"})
    pico = FakePico(settings)
    out = []
    board = wiring.build(settings, pico.machine, pico.neopixel, out.append)  # CPython: no `bluetooth`
    assert board.app.ble is None
    board.link.use("board")
    assert any("no Bluetooth radio" in line for line in out)


def test_the_ble_command_reports_and_saves_the_setting(rigs, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "board.json").write_text('{"brightness": 30}')
    rig = rigs()
    phone = rig.phone()
    phone.connect()
    status = rig.ask("ble")
    assert status == ["ble services=both connected=yes mtu=247 dialect=- refused=0 dropped=0"]
    assert rig.ask("ble cpp") == ["err ble: this board has no Bluetooth radio (a Pico W runs MicroPython's RPI_PICO_W build)"]
    assert rig.ask("ble sometimes") == ["err ble takes off, cpp, chesslink or both"]
    assert rig.ask("ble off") == ["ble off"]
    rig.settle()
    assert rig.app.ble is None and not rig.radio.active() and rig.radio.advertising is None
    assert phone.disconnected and len(rig.app.listeners) == 1  # the USB link's alone
    import config

    saved = config.load(str(tmp_path / "board.json"))
    assert saved.ble == "off" and saved.brightness == 30
    assert rig.ask("ble") == ["ble services=off"]


def test_the_ble_command_switches_services_at_once(tmp_path):
    import json

    from hardware.fake import FakeBluetooth
    from link.ble_command import run

    usb = Rig()
    path = str(tmp_path / "board.json")
    first = FakeBluetooth()
    # A board.json the next start would refuse is not written: GP25 is a Pico W's radio.
    run(usb.link, "chesslink", path, bluetooth=first)
    assert usb.lines() == [
        'err ble: not saved: status_led_pin: GP25 is the radio\'s chip select on a Pico W: use "LED" (or null) with ble "chesslink"'
    ]
    assert usb.app.ble is None and not first.radio.on
    with open(path, "w") as f:
        json.dump({"status_led_pin": "LED"}, f)
    run(usb.link, "chesslink", path, bluetooth=first)
    assert usb.lines() == ["ble chesslink"]
    assert usb.app.ble.services == "chesslink" and first.radio.on
    assert CHESSLINK_NAME.encode() in first.radio.advertising  # the name in the advertisement itself
    second = FakeBluetooth()
    run(usb.link, "cpp", path, bluetooth=second)
    assert usb.lines() == ["ble cpp"]
    assert not first.radio.on and second.radio.on and usb.app.ble.services == "cpp"
    assert len(usb.app.listeners) == 2  # the USB link's and the new BLE link's, not the old one's
    with open(path) as f:
        assert json.load(f) == {"status_led_pin": "LED", "ble": "cpp"}


def test_a_flood_of_writes_loses_what_one_scan_cannot_hold_and_says_so():
    from hardware.fake import FakeBluetooth
    from link.ble import BleLink

    usb = Rig()
    bt = FakeBluetooth()
    ble = BleLink(bt, usb.app, "cpp", usb.link.info)
    usb.app.ble = ble
    bt.radio.event(1, (3, 0, b""))  # an app connects ...
    ble.poll(0)
    for _ in range(40):  # ... and writes 40 commands between two scans
        bt.radio.write(3, ble.cpp_rx, b"feature msg")
    bt.radio.event(2, (3, 0, b""))  # then goes: its going is never lost
    ble.poll(5)
    assert ble.connection < 0
    bt.radio.event(1, (4, 0, b""))  # the same again, the app staying this time
    ble.poll(10)
    for _ in range(40):
        bt.radio.write(4, ble.cpp_rx, b"feature msg")
    for t in range(15, 100, 5):
        ble.poll(t)
        assert len(bt.radio.notified) <= 4 * (t // 5 - 2)  # at most 4 notifications a scan
    answers = [data for _c, h, data in bt.radio.notified if h == ble.cpp_tx]
    assert answers == [b"ok"] * 32
    bt.radio.event(2, (4, 0, b""))
    ble.poll(100)
    assert ble.connection < 0 and bt.radio.advertising is not None
    assert usb.ask("ble")[-1] == "ble services=cpp connected=no mtu=23 dialect=- refused=0 dropped=16"


def test_ble_on_wants_the_pico_w_led_not_gp25():
    import config

    with pytest.raises(config.SettingsError) as e:
        config.Settings().updated({"ble": "both"})
    assert e.value.key == "status_led_pin" and "chip select" in str(e.value)
    assert config.Settings().updated({"ble": "both", "status_led_pin": "LED"}).ble == "both"
    assert config.Settings().updated({"ble": "cpp", "status_led_pin": None}).ble == "cpp"


def test_the_readmes_ble_both_works_on_a_fresh_pico_w(monkeypatch, tmp_path):
    # A fresh Pico W: no board.json. MicroPython names the board, the firmware takes the radio
    # chip's LED for its status LED, and `ble both` is saved and applied, and wiring.py drives "LED",
    # never GP25 (the radio's chip select).
    import config
    import wiring
    from hardware.fake import FakeBluetooth
    from link.ble_command import run
    from test_main_loop import FakePico

    monkeypatch.setattr(sys.implementation, "_machine", "Raspberry Pi Pico W with RP2040", raising=False)
    monkeypatch.chdir(tmp_path)
    usb = Rig()
    run(usb.link, "both", "board.json", bluetooth=FakeBluetooth())
    assert usb.lines() == ["ble both"] and usb.app.ble.services == "both"
    settings, problem = config.load_or_default("board.json")
    assert problem is None and settings.ble == "both" and settings.status_led_pin == "LED"
    pico = FakePico(settings)
    wiring.build(settings, pico.machine, pico.neopixel, [].append, bluetooth=FakeBluetooth())
    assert "LED" in pico.made and 25 not in pico.made


def test_the_projects_chesslink_host_follows_a_game_over_ble(rigs):
    import chesslink_client as client
    from ble_rig import BleTransport

    rig = rigs(services="chesslink")
    phone = rig.phone(mtu=23)  # every status report split in four notifications
    phone.connect(phone.scan_name(CHESSLINK_NAME).address)
    host = client.Host(BleTransport(phone), parity=True)
    assert host.version() == "0103" and host.identity() == "0055mm"
    host.write_e2rom(2, 3)  # status reports on every change
    follower = client.GameFollower(chess.Board())
    assert client.status_placement(host.status()) == chess.STARTING_BOARD_FEN
    host.drain()
    moves = ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"]
    for uci in moves:
        rig.play(uci)
        host.wait_status(lambda s: follower.see(s) is not None, timeout=0.1)  # already received
    assert follower.moves == moves and host.codec.bad_parity == 0 and host.codec.stray == 0
    assert host.leds(["e2", "e4"]) == "" and host.leds_off() == ""


def test_a_radio_that_refuses_to_advertise_does_not_stop_the_board():
    # After a disconnection the stack may refuse to advertise (MicroPython raises OSError): the
    # scan loop goes on, the console says so once, and advertising is tried again a second later.
    from hardware.fake import FakeBluetooth
    from link.ble import BleLink

    usb = Rig()
    bt = FakeBluetooth()
    said = []
    ble = BleLink(bt, usb.app, "cpp", said.append)
    usb.app.ble = ble
    bt.radio.event(1, (3, 0, b""))
    ble.poll(0)
    assert bt.radio.advertising is None  # one app at a time
    bt.radio.refuse_advertising = 2
    bt.radio.event(2, (3, 0, b""))
    for t in range(5, 2100, 5):
        ble.poll(t)  # must not raise
        if t < 2005:  # refused at the disconnection (5 ms) and at the retry a second later
            assert bt.radio.advertising is None
    assert bt.radio.advertising is not None and bt.radio.refuse_advertising == 0
    assert sum("advertising refused by the radio" in line for line in said) == 1, said
