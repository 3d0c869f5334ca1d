# DGT's board protocol on the USB link (firmware/link/dgt.py, firmware/link/dgt_bus.py, docs/spec.md
# section 12, docs/dgt.md), on the App + fakes rig of test_link.py with the link a serial port takes
# DGT hosts on (Link(..., dgt=True), as main.py wires the USB port): the messages byte by byte, the
# update modes, field updates for every physical order of host_tests/transcripts read back into
# moves by the project's own DGT host (host_tests/helpers/dgt_client.py), the clock, the LEDs, bus
# mode, hostile bytes and the other dialects beside it. The same host on the pseudo-terminal of
# tools/sim_terminal.py --serial is test_dgt_port.py.
import os
import random

import chess
import pytest
from dgt_client import (
    BOARD_DUMP,
    BUS_IGNORE_NEXT_PING,
    BUS_PING,
    BUS_REPEAT_CHANGES,
    BUS_SEND_ALL,
    BUS_SEND_BRD,
    BUS_SEND_CHANGES,
    BUS_SEND_CLK,
    BUS_SEND_FROM_START,
    BUS_SEND_VERSION,
    BUS_SET_START_GAME,
    BUSADRES,
    BWTIME,
    CLOCK_ASCII,
    CLOCK_BEEP,
    CLOCK_BUTTON,
    CLOCK_DISPLAY,
    CLOCK_END,
    CLOCK_ICONS,
    CLOCK_VERSION,
    EE_EOF,
    EE_MOVES,
    EE_START_TAG,
    FIELD_UPDATE,
    LONG_SERIALNR,
    MSG_BUS_BRD_DUMP,
    MSG_BUS_BWTIME,
    MSG_BUS_FROM_START,
    MSG_BUS_PING,
    MSG_BUS_START_GAME_WRITTEN,
    MSG_BUS_UPDATE,
    MSG_BUS_VERSION,
    SERIALNR,
    TRADEMARK,
    VERSION,
    BATTERY_STATUS,
    Codec,
    Follower,
    bus_frame,
    changes,
    clock_message,
    decode_clock,
    field_of,
    follow_updates,
    pegasus_leds,
    placement,
    rev2_leds,
    set_and_run,
)
from core import signals as S
from core.position import parse_square
from hands.transcript import file_settings, parse, placement_occupancy
from link.dgt import serial_number
from link.link import CHESSLINK, DGT
from link.pieces import PROMOTION_CHOICE_MS
from test_chesslink import message as chesslink_message
from test_chesslink import split
from test_link import Rig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRANSCRIPTS = os.path.join(ROOT, "host_tests", "transcripts")
START_FIELDS = bytes.fromhex("08090a0c0b0a0908" + "07" * 8 + "00" * 32 + "01" * 8 + "0203040605040302")


def sent(rig):
    """The bytes the board sent since the last call; no text line among them."""
    texts = [x for x in rig.out if isinstance(x, str)]
    data = b"".join(x for x in rig.out if isinstance(x, bytes))
    rig.out.clear()
    assert texts == [], "text in a DGT session: %r" % texts
    return data


def messages(rig, bus=False):
    """The board's messages since the last call, every byte accounted for."""
    codec = Codec(bus)
    got = codec.feed(sent(rig))
    assert codec.stray == 0 and codec.cut == 0 and codec.bad_checks == 0, got
    return got


def kinds(got):
    return [m.kind for m in got]


def session(**kw):
    """A board whose USB link has a DGT host on it, in UPDATE_BRD mode (field updates, no clock)."""
    rig = Rig(dgt=True, **kw)
    rig.send(b"\x44")
    assert sent(rig) == b"" and rig.link.dialect == DGT
    return rig


def ask(rig, data, bus=False):
    rig.send(bytes(data))
    return messages(rig, bus)


def updates(got):
    return [(m.data[0], m.data[1]) for m in got if m.kind == FIELD_UPDATE]


def named(pairs):
    return [(chess_name(f), "." if p == 0 else ".PRNBKQprnbkq"[p]) for f, p in pairs]


def chess_name(f):
    return "abcdefgh"[f % 8] + str(8 - f // 8)


# ---------------------------------------------------------------------- picochess's first words


def test_picochess_starts_with_update_nice_and_version_then_the_board_and_the_clock():
    rig = Rig(dgt=True)
    got = ask(rig, b"\x4b\x4d")  # SEND_UPDATE_NICE, SEND_VERSION
    assert kinds(got) == [VERSION] and got[0].data == b"\x01\x02"
    assert rig.link.dialect == DGT
    got = ask(rig, b"\x42")  # SEND_BRD
    assert kinds(got) == [BOARD_DUMP] and got[0].data == START_FIELDS
    assert placement(got[0].data) == chess.STARTING_BOARD_FEN
    got = ask(rig, clock_message(CLOCK_VERSION))  # 2B 03 03 09 00
    assert [decode_clock(m.data) for m in got] == [("ack", 0x10, CLOCK_VERSION, 0x22, 0)]  # a clock 2.2
    rig.run(10)  # UPDATE_NICE: the time once (no clock on this board) ...
    got = messages(rig)
    assert [decode_clock(m.data) for m in got] == [("times", 0, 0, 0x20, 0, 0)]  # "no clock connected"
    rig.run(3000)
    assert messages(rig) == []  # ... and never again while it does not change
    got = ask(rig, b"\x45")  # the watchdog, every second
    assert kinds(got) == [SERIALNR] and got[0].data == b"%05d" % rig.link.sessions[DGT].serial


def test_what_the_board_says_of_itself():
    rig = session()
    dgt = rig.link.sessions[DGT]
    got = ask(rig, b"\x45\x55\x46\x47\x4c\x4d")
    assert kinds(got) == [SERIALNR, LONG_SERIALNR, BUSADRES, TRADEMARK, BATTERY_STATUS, VERSION]
    serial, long_serial, address, trademark, battery, version = [m.data for m in got]
    assert serial == b"01234" and long_serial == b"0000001234"  # the serial without a chip id
    assert address == bytes((1234 >> 7, 1234 & 0x7F)) and dgt.address == 1234  # dgtbrd.h: the serial number
    text = trademark.decode("ascii")
    assert len(trademark) <= 64 and "Open chessboard" in text and "01234" in text  # the project's own words
    assert "Digital Game Technology" not in text and "trade mark" not in text
    assert battery == b"\x64\x7f\x7f\x00\x00\x00\x00\x00\x00" and version == b"\x01\x02"
    got = ask(rig, b"\x49")  # SEND_EE_MOVES: the position now as the storage holds one, then EE_EOF
    assert kinds(got) == [EE_MOVES]
    data = got[0].data
    assert data[0] == EE_START_TAG and data[-1] == EE_EOF and len(data) == 2 + 2 * 32
    fields = bytearray(64)
    for i in range(1, len(data) - 1, 2):
        assert 0x40 <= data[i] <= 0x4F
        fields[data[i + 1]] = data[i] & 0x0F
    assert bytes(fields) == START_FIELDS


def test_serial_numbers_from_the_chip_id_keep_0x03_out_of_every_frame_to_the_board():
    """The first DGT frame arrives while Ctrl-C is still on (link/link.py): no bus frame to the
    board's address, nor to address 0 but SEND_CHANGES (which nobody sends there), holds 0x03."""
    rng = random.Random(5)
    seen = set()
    for _ in range(2000):
        n = serial_number(bytes(rng.randrange(256) for _ in range(8)))
        seen.add(n)
        assert 1 <= n <= 16383
        for cmd in list(range(0x81, 0x8E)) + [0x92]:
            assert 3 not in bus_frame(cmd, n), (n, cmd)
    # Spread over the 14-bit space as random draws are (2,000 draws from about 14,000 allowed
    # values repeat about 140 of them): two boards share a serial about once in 14,000 pairs.
    assert len(seen) > 1700
    assert serial_number(None) == serial_number(b"") == 1234


# ---------------------------------------------------------------------- modes and field updates


def test_each_update_mode_sends_what_dgtbrd_h_says():
    rig = session()
    rig.send(b"\x40")  # RESET: IDLE, no answer, nothing unasked
    rig.play("e2e4")
    assert messages(rig) == []
    assert ask(rig, b"\x42")[0].data[field_of("e4")] == 1  # the board knows the pawn is on e4
    rig.send(b"\x44")  # UPDATE_BRD: a field update for every change, nothing else
    rig.play("e7e5")
    assert named(updates(messages(rig))) == [("e7", "."), ("e5", "p")]
    rig.run(2000)
    assert messages(rig) == []
    rig.send(b"\x43")  # UPDATE: the clock at least every second as well
    rig.run(2100)
    assert kinds(messages(rig)) == [BWTIME] * 3
    rig.send(b"\x4b")  # UPDATE_NICE: the clock when it changes (no clock here: once)
    rig.run(2100)
    assert kinds(messages(rig)) == [BWTIME]
    rig.play("g1f3")
    assert named(updates(messages(rig))) == [("g1", "."), ("f3", "N")]
    rig.send(b"\x40")
    rig.play("b8c6")
    rig.run(2000)
    assert messages(rig) == []


def test_a_bus_command_switches_to_bus_mode_and_is_not_carried_out():
    rig = Rig(dgt=True)
    address = serial_number(None)  # a board with no chip id
    got = ask(rig, bus_frame(BUS_SEND_VERSION, address), bus=True)  # a board starts in bus mode
    assert kinds(got) == [MSG_BUS_VERSION] and got[0].data == b"\x01\x02" and got[0].address == address
    assert kinds(ask(rig, b"\x4d")) == [VERSION]  # a single-board command leaves bus mode ...
    rig.play("e2e4")
    assert messages(rig) == []  # ... for IDLE
    assert ask(rig, bus_frame(BUS_SEND_VERSION, address), bus=True) == []  # switches, not carried out
    assert kinds(ask(rig, bus_frame(BUS_SEND_VERSION, address), bus=True)) == [MSG_BUS_VERSION]
    assert ask(rig, b"\x4a") == []  # TO_BUSMODE
    assert kinds(ask(rig, bus_frame(BUS_SEND_VERSION, address), bus=True)) == [MSG_BUS_VERSION]


def rig_for(fen, mode):
    board = chess.Board(fen)
    occupied = [sq for sq in range(64) if placement_occupancy(board.board_fen())[sq]]
    rig = Rig(occupied=occupied, dgt=True)
    assert rig.ask("new " + fen)[-1] == "ok"
    assert rig.ask("mode " + mode) == ["mode " + mode]
    rig.run(400)
    rig.out.clear()
    return rig


def final_moves(fen, events):
    """The moves the referee's events leave standing (moves, takebacks, promotion choices, new games)."""
    moves = []
    for e in events:
        words = e.split()
        if words[0] == "move":
            moves.append(words[1])
        elif words[0] == "undo":
            assert moves.pop() == words[1]
        elif words[0] == "promote":
            moves[-1] = words[1]
        elif words[0] == "new":
            moves = []
    return moves


TRANSCRIPT_NAMES = sorted(n for n in os.listdir(TRANSCRIPTS) if n.endswith(".txt"))


@pytest.mark.parametrize("name", TRANSCRIPT_NAMES)
def test_a_host_rebuilds_from_field_updates_every_move_the_referee_reads(name):
    """Every physical order of host_tests/transcripts, hands as timed there: the host's game, kept
    from the field updates alone (captures either way round, castling in any order, en passant,
    promotions with the taps' choice, slides, takebacks, new games), ends as the referee's does."""
    with open(os.path.join(TRANSCRIPTS, name)) as f:
        text = f.read()
    fen, mode, events = parse(text)
    rig = rig_for(fen, mode)
    rules = file_settings(text)  # a transcript's @setting lines: the referee as that board.json sets it
    if rules:
        rig.app.referee.configure(rig.app.settings.updated(dict(rules)))
    start = ask(rig, b"\x44\x42")[0].data  # UPDATE_BRD, then the board
    assert placement(start) == chess.Board(fen).board_fen()
    refereed = []
    rig.app.listeners.append(lambda ev: refereed.append(ev))
    got = []
    t0 = rig.t
    for t, occupied, sq in events:
        rig.run(t0 + t - rig.t)
        (rig.vm.place if occupied else rig.vm.lift)(sq)
        got += messages(rig)
    rig.run(3000)
    got += messages(rig)
    assert kinds(got) == [FIELD_UPDATE] * len(got)
    follower = Follower(chess.Board(fen))
    fields = follow_updates(follower, start, updates(got))
    assert bytes(fields) == ask(rig, b"\x42")[0].data  # the updates add up to the board's dump
    read = follower.moves
    if rig.game.result != "*":
        # Past the game's end (a dead position) the hands may go on moving: the host sees fields,
        # which the board no longer reads as moves; up to the end the two agree.
        read = read[:len(rig.game.moves)]
    assert read == rig.game.uci_moves(), (follower.events, named(updates(got)))
    if not any(ev[0] == "new" for ev in refereed):
        ended = chess.Board(fen)  # the host's game at the referee's last move (past it, only hands)
        for move in read:
            ended.push_uci(move)
        assert ended.fen() == rig.game.fen()
        if rig.game.result == "*":
            assert follower.board.fen() == rig.game.fen()


def test_a_promotion_shows_the_pawn_until_its_piece_is_chosen():
    fen = "8/8/8/8/8/6k1/1p6/4K2R b - - 0 1"
    rig = rig_for(fen, "strict")
    ask(rig, b"\x44")
    rig.lift("b2")
    rig.place("b1", ms=800)
    assert rig.game.uci_moves() == ["b2b1q"]
    assert named(updates(messages(rig))) == [("b2", "."), ("b1", "p")]  # not a queen the player did not choose
    for _ in range(3):  # taps: rook, bishop, knight
        rig.lift("b1", ms=100)
        rig.place("b1", ms=400)
    assert rig.game.uci_moves() == ["b2b1n"]
    assert set(named(updates(messages(rig)))) == {("b1", "."), ("b1", "p")}
    rig.run(PROMOTION_CHOICE_MS)  # still: the choice is made, and the field gets its piece
    assert named(updates(messages(rig))) == [("b1", "n")]
    rig.lift("b1", ms=100)  # a tap now changes nothing
    rig.place("b1", ms=600)
    assert rig.game.uci_moves() == ["b2b1n"] and named(updates(messages(rig))) == [("b1", "."), ("b1", "n")]


def test_the_opponents_lift_makes_the_promotion_choice_and_the_piece_comes_first():
    fen = "8/8/8/8/8/6k1/1p6/4K2R b - - 0 1"
    rig = rig_for(fen, "strict")
    ask(rig, b"\x44")
    rig.lift("b2")
    rig.place("b1", ms=800)
    rig.lift("b1", ms=100)  # one tap: a rook
    rig.place("b1", ms=400)
    messages(rig)
    rig.lift("e1")
    assert named(updates(messages(rig))) == [("b1", "r"), ("e1", ".")]


def test_a_takeback_by_the_host_is_followed_and_reported():
    rig = session()
    for uci in ("e2e4", "d7d5", "e4d5"):
        rig.play(uci)
    messages(rig)
    rig.lift("d5")  # picochess's takeback: the pieces back as they stood
    rig.place("e4")
    rig.place("d5", ms=800)
    assert rig.game.uci_moves() == ["e2e4", "d7d5"]
    # On d5 first the game's piece there; once the board has followed the takeback, the black pawn.
    got = updates(messages(rig))
    assert named(got) == [("d5", "."), ("e4", "P"), ("d5", "P"), ("d5", "p")]
    board = chess.Board()
    for uci in ("e2e4", "d7d5", "e4d5"):
        board.push_uci(uci)
    follower = Follower(board)
    before = bytearray(64)
    for sq, piece in board.piece_map().items():
        before[sq ^ 56] = ".PRNBKQprnbkq".index(piece.symbol())
    follow_updates(follower, before, got)
    assert follower.events == ["undo e4d5"] and follower.moves == ["e2e4", "d7d5"]


# ---------------------------------------------------------------------- the clock


def clock_of(rig):
    got = ask(rig, b"\x41")
    assert kinds(got) == [BWTIME]
    return decode_clock(got[0].data)


def test_bwtime_carries_the_boards_own_clock():
    rig = Rig(dgt=True)
    assert rig.ask("clock 5+3")[0].startswith("clock 300000 300000")
    rig.send(b"\x40")  # IDLE: nothing unasked
    assert clock_of(rig) == ("times", 300, 300, 0, 0x20, 0x20)  # stopped; Fischer on both sides
    rig.play("e2e4", settle=1500)  # black's time runs, on the right
    kind, white, black, status, wf, bf = clock_of(rig)
    assert (white, black) == (300, 299) and status == 0x01 | 0x02 | 0x08  # running, tumbler right, right's turn
    rig.play("e7e5", settle=300)
    kind, white, black, status, wf, bf = clock_of(rig)
    assert status == 0x01 | 0x10 and black in (302, 303)  # black's 3 s increment; white's turn, on the left
    assert rig.ask("clock pause")[0].endswith("paused")
    assert clock_of(rig)[3] == 0


def test_a_fallen_flag_and_the_clocks_limits():
    rig = Rig(dgt=True)
    rig.ask("clock 0:30")
    rig.send(b"\x40")
    rig.play("e2e4")
    rig.play("e7e5")
    rig.run(31000)
    kind, white, black, status, wf, bf = clock_of(rig)
    assert white == 0 and wf == 0x50 and bf == 0 and not status & 1  # the flag fell, blocked at zero
    rig = Rig(dgt=True)
    rig.ask("clock 600")  # ten hours: more than the clock's one hours digit shows
    rig.send(b"\x40")
    assert clock_of(rig)[1:3] == (35999, 35999)  # 9:59:59


def test_set_and_run_gives_the_host_the_clock_until_it_goes():
    rig = Rig(dgt=True)
    rig.ask("clock 5+3")
    got = ask(rig, b"\x4b" + set_and_run(600000, 540000, 1))  # left (white) 10:00 runs, right 9:00
    assert [decode_clock(m.data) for m in got] == [("ack", 0x10, 0x0A, 0, 0)]
    assert rig.app.referee.clock is None  # the board's own laid aside: the host keeps the time
    rig.run(2500)
    assert [decode_clock(m.data)[1:4] for m in messages(rig)] == [(600, 540, 0x11), (599, 540, 0x11), (598, 540, 0x11)]
    assert rig.ask("clock") == ["clock 597500 540000 app app"]
    ask(rig, set_and_run(597000, 540000, 4))  # paused
    rig.run(1000)
    assert [decode_clock(m.data)[1:4] for m in messages(rig)] == [(597, 540, 0)]
    rig.send(chesslink_message("V"))  # another dialect: the board's own clock again
    assert rig.app.referee.clock is not None and rig.ask("clock")[0].startswith("clock 300000 300000")


@pytest.mark.parametrize(
    "cmd, data",
    [
        (CLOCK_DISPLAY, b"\x3f\x06\x5b\x4f\x66\x6d\x00\x01"),
        (CLOCK_ICONS, b"\x00" * 8),
        (CLOCK_END, b""),
        (CLOCK_BUTTON, b""),
        (CLOCK_VERSION, b""),
        (CLOCK_BEEP, b"\x10"),
        (CLOCK_ASCII, b" e2e4   \x00"),
        (0x0D, b"picochess  \x00"),  # the Revelation II's text
    ],
)
def test_clock_commands_are_acknowledged_in_the_modes_that_acknowledge(cmd, data):
    rig = session()
    assert ask(rig, clock_message(cmd, data)) == []  # UPDATE_BRD: no ack (dgtbrd.h)
    for mode in (b"\x43", b"\x4b"):
        rig.send(mode)
        got = ask(rig, clock_message(cmd, data))
        assert [decode_clock(m.data)[:3] for m in got] == [("ack", 0x10, cmd)]
    assert rig.link.sessions[DGT].ignored == 0 and rig.app.referee.clock is None


# ---------------------------------------------------------------------- LEDs


def lit(rig):
    frame = rig.app.shown_frame()
    return sorted(chess.square_name(sq) for sq in range(64) if frame[sq] == S.REMOTE_MOVE)


def test_the_revelation_ii_and_pegasus_led_commands_light_squares():
    rig = session()
    assert ask(rig, rev2_leds(1, field_of("e2"), field_of("e4"))) == []  # no answer
    rig.run(10)
    assert lit(rig) == ["e2", "e4"]
    ask(rig, rev2_leds(1, field_of("g8"), field_of("f6")))  # another move: added
    rig.run(10)
    assert lit(rig) == ["e2", "e4", "f6", "g8"]
    ask(rig, rev2_leds(0, field_of("e2"), field_of("e4")))  # off for those two
    rig.run(10)
    assert lit(rig) == ["f6", "g8"]
    rig.lift("g1", ms=100)  # the board's own picture goes on underneath ...
    assert rig.app.frame[parse_square("g1")] == S.LIFTED and lit(rig) == ["f6", "g8"]
    ask(rig, rev2_leds(0, 0x40, 0x40))  # all off: the board's own signals again
    rig.run(10)
    assert rig.app.host_frame is None and rig.leds.frame[parse_square("g1")] == S.LIFTED
    rig.place("g1")
    ask(rig, pegasus_leds([field_of("a1"), field_of("h8"), field_of("d4")]))
    rig.run(10)
    assert lit(rig) == ["a1", "d4", "h8"]
    ask(rig, pegasus_leds([field_of("c3")]))  # a new list replaces the old
    rig.run(10)
    assert lit(rig) == ["c3"]
    ask(rig, pegasus_leds([]))  # 60 02 00 00
    rig.run(10)
    assert rig.app.host_frame is None
    assert ask(rig, bytes((0x60, 4, 2, 1, 0, 0))) == [] and rig.app.host_frame is None  # settings: taken
    assert rig.link.sessions[DGT].ignored == 0


def test_a_new_game_from_the_console_leaves_dgt_and_gives_the_leds_back():
    rig = session()
    ask(rig, rev2_leds(1, field_of("d2"), field_of("d4")))
    assert rig.app.host_frame is not None
    assert rig.ask("new") == ["ok"]
    assert rig.link.dialect == "board" and rig.app.host_frame is None


# ---------------------------------------------------------------------- bus mode


def bus_rig():
    rig = Rig(dgt=True)
    return rig, rig.link.session(DGT)  # the session as a host's first byte makes it


def test_a_ping_to_every_board_is_answered_after_a_random_delay_within_1100_ms():
    rig, dgt = bus_rig()
    delays = []
    for _ in range(12):
        rig.send(bus_frame(BUS_PING, 0))
        assert sent(rig) == b""  # not at once: boards on one bus answer apart
        t0 = rig.t
        while True:
            rig.run(5)
            got = messages(rig, bus=True)
            if got:
                break
            assert rig.t - t0 <= 1105, "no answer within 1,100 ms"
        assert kinds(got) == [MSG_BUS_PING] and got[0].address == dgt.address and got[0].data == b""
        delays.append(rig.t - t0)
    assert len(set(delays)) >= 6 and max(delays) - min(delays) >= 300, delays  # spread, not fixed
    got = ask(rig, bus_frame(BUS_PING, dgt.address), bus=True)  # its own address: at once
    assert kinds(got) == [MSG_BUS_PING]


def test_ignore_next_bus_ping():
    rig, dgt = bus_rig()
    got = ask(rig, bus_frame(BUS_IGNORE_NEXT_PING, dgt.address), bus=True)
    assert kinds(got) == [MSG_BUS_PING]  # answered at once ...
    rig.send(bus_frame(BUS_PING, 0))
    rig.run(1200)
    assert sent(rig) == b""  # ... and the next ping to everyone is not
    rig.send(bus_frame(BUS_PING, 0))
    rig.run(1200)
    assert kinds(messages(rig, bus=True)) == [MSG_BUS_PING]


def test_bus_frames_to_the_board_and_its_answers():
    rig, dgt = bus_rig()
    a = dgt.address
    got = ask(rig, bus_frame(BUS_SEND_BRD, a), bus=True)
    assert kinds(got) == [MSG_BUS_BRD_DUMP] and got[0].data == START_FIELDS and got[0].address == a
    got = ask(rig, bus_frame(BUS_SEND_CLK, a), bus=True)
    assert kinds(got) == [MSG_BUS_BWTIME] and decode_clock(got[0].data)[3] == 0x20
    got = ask(rig, bus_frame(BUS_SEND_CHANGES, a), bus=True)
    assert kinds(got) == [MSG_BUS_UPDATE] and got[0].data == b""  # nothing changed yet
    got = ask(rig, bus_frame(BUS_SET_START_GAME, a), bus=True)
    assert kinds(got) == [MSG_BUS_START_GAME_WRITTEN] and got[0].data == b""
    rig.lift("e2", ms=100)
    rig.place("e4", ms=400)  # less than 250 ms after the lift: the quick bit
    got = ask(rig, bus_frame(BUS_SEND_CHANGES, a), bus=True)
    tags = changes(got[0].data)
    assert tags[0] == ("start",) and len(tags) == 1 + 32 + 2  # the start tag, the position ...
    assert tags[-2:] == [(field_of("e2"), 0, False), (field_of("e4"), 1, True)]  # ... then the changes
    assert ask(rig, bus_frame(BUS_REPEAT_CHANGES, a), bus=True)[0].data == got[0].data
    rig.play("e7e5")
    got = ask(rig, bus_frame(BUS_SEND_ALL, a), bus=True)  # changes, clock, board
    assert kinds(got) == [MSG_BUS_UPDATE, MSG_BUS_BWTIME, MSG_BUS_BRD_DUMP]
    assert changes(got[0].data) == [(field_of("e7"), 0, False), (field_of("e5"), 7, True)]
    assert placement(got[2].data) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
    got = ask(rig, bus_frame(BUS_SEND_FROM_START, a), bus=True)  # the position as the host was sent it
    assert kinds(got) == [MSG_BUS_FROM_START]
    fields = bytearray(64)
    for tag in changes(got[0].data)[1:]:
        fields[tag[0]] = tag[1]
    assert placement(fields) == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
    assert changes(got[0].data)[0] == ("start",)


def test_bus_frames_for_others_with_a_wrong_checksum_or_livechess_0x92_get_no_answer():
    rig, dgt = bus_rig()
    a = dgt.address
    for frame in (
        bus_frame(BUS_SEND_BRD, a + 1),  # another board's
        bus_frame(BUS_SEND_BRD, 0),  # only a ping, a reset or the end of bus mode go to everyone
        bus_frame(BUS_SEND_BRD, a, check=0x00),
        bus_frame(0x92, a),  # LiveChess's undocumented command
        bus_frame(0x92, 0),
        bus_frame(0x8C, a),  # the draughts board's half dump
        bytes((BUS_SEND_BRD, a >> 7, 0x80, 0x00)),  # bit 7 in the address: cut
    ):
        rig.send(frame)
        rig.run(20)
        assert sent(rig) == b"", frame.hex()
    assert dgt.bus and kinds(ask(rig, bus_frame(BUS_SEND_VERSION, a), bus=True)) == [MSG_BUS_VERSION]


def test_a_host_that_stops_asking_gets_the_position_in_place_of_what_overflowed():
    rig, dgt = bus_rig()
    a = dgt.address
    ask(rig, bus_frame(BUS_SEND_CHANGES, a), bus=True)
    for _ in range(40):  # 160 changes: more than the board keeps
        rig.play("g1f3")
        rig.play("g8f6")
        rig.play("f3g1")
        rig.play("f6g8")
    got = ask(rig, bus_frame(BUS_SEND_CHANGES, a), bus=True)
    tags = changes(got[0].data)
    assert ("start",) in tags
    fields = bytearray(64)
    for tag in tags[len(tags) - 1 - tags[::-1].index(("start",)) :]:
        if tag == ("start",):
            fields = bytearray(64)
        else:
            fields[tag[0]] = tag[1]
    assert bytes(fields) == START_FIELDS  # what the host rebuilds is the board


# ---------------------------------------------------------------------- hostile bytes


@pytest.mark.parametrize(
    "bad",
    [
        b"\x2b\x05\x03\x09\x00",  # a size no clock command has
        b"\x2b\x03\x04\x09\x00",  # not 0x03 after the size
        b"\x2b\x03\x03\x09\x01",  # not 0x00 at the end
        b"\x2b\x04\x03\x09\x00\x00",  # the version query with the beep's size
        b"\x2b\x03\x03\x0e\x00",  # no such clock command
        clock_message(0x0A, b"\x0a\x00\x00\x00\x00\x00\x01"),  # SetNRun: ten hours
        clock_message(0x0A, b"\x00\x3c\x00\x00\x00\x00\x01"),  # sixty minutes
        clock_message(0x0C, b"\xc1" * 8 + b"\x00"),  # bit 7 in the text
        b"\x60\x04\x01\x40\x01\x00",  # a field beyond 63
        b"\x60\x04\x03\x01\x02\x00",  # no such pattern
        b"\x60\x04\x01\x01\x02\x05",  # not 0x00 at the end
        b"\x60\x01\x00",  # too short for any form
        b"\x60\x50" + b"\x01" * 0x50,  # too long for any form
        b"\x60\x08\x05\x01\x00\x05\x01\x02\x48\x00",  # Pegasus: a field beyond 63
    ],
)
def test_a_malformed_clock_or_led_message_is_ignored_and_changes_nothing(bad):
    rig = session()
    rig.send(b"\x4b")
    rig.run(10)
    messages(rig)
    dgt = rig.link.sessions[DGT]
    before = (rig.game.fen(), dgt.mode, dgt.host_clock, rig.app.host_frame, rig.app.referee.clock)
    rig.send(bad)
    rig.run(1100)  # past a cut message's staleness
    assert messages(rig) == [] and dgt.ignored >= 1
    assert (rig.game.fen(), dgt.mode, dgt.host_clock, rig.app.host_frame, rig.app.referee.clock) == before
    assert kinds(ask(rig, b"\x4d")) == [VERSION]  # the next message is read as ever


def test_a_message_split_anywhere_and_a_stale_half_message():
    rig = session()
    rig.send(b"\x4b")
    data = clock_message(CLOCK_VERSION) + b"\x4d" + rev2_leds(1, 12, 28) + b"\x42"
    for i in range(len(data)):
        rig.send(data[i : i + 1])
    assert kinds(messages(rig)) == [BWTIME, VERSION, BOARD_DUMP]
    assert lit(rig) == ["e5", "e7"]  # fields 12 and 28
    rig.send(clock_message(CLOCK_VERSION)[:3])  # the host went away mid-message ...
    rig.run(1100)
    assert [decode_clock(m.data)[0] for m in messages(rig)] == ["times"]  # (UPDATE_NICE's first)
    rig.send(b"\x4d")  # ... the next one starts afresh
    assert kinds(messages(rig)) == [VERSION]
    a = rig.link.sessions[DGT].address
    rig.send(bus_frame(BUS_SEND_VERSION, a)[:2] + bus_frame(BUS_PING, a))  # a frame cut by the next
    assert sent(rig) == b"" and rig.link.sessions[DGT].bus  # (a bus command switches, is not carried out)
    assert kinds(ask(rig, bus_frame(BUS_SEND_VERSION, a), bus=True)) == [MSG_BUS_VERSION]


def test_random_bytes_never_break_the_link_and_the_board_answers_after():
    rng = random.Random(30)
    rig = Rig(dgt=True)
    alphabet = b"+@ABCDEFGIJKLMU`\x00\x03\x04\x09\x0a\x0b\x0d\x3f\x40\x7f" + bytes(range(0x80, 0x94)) + b"VSXWeg \n"
    fen = rig.game.fen()
    for i in range(600):
        chunk = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        rig.send(chunk)
        if i % 10 == 0:
            rig.run(20)
        for x in rig.out:
            assert "internal error" not in (x if isinstance(x, str) else ""), (chunk, x)
        rig.out.clear()
    rig.run(1100)
    rig.send(b"\n")  # a line or ChessLink message the random bytes began
    rig.send(b"\x40\x4d\x42")
    assert rig.game.fen() == fen
    got = Codec().feed(b"".join(x for x in rig.out if isinstance(x, bytes)))
    assert [m.kind for m in got][-2:] == [VERSION, BOARD_DUMP] and got[-1].data == START_FIELDS


def test_ctrl_c_is_data_in_a_clock_message_and_ctrl_c_elsewhere_while_dgt_speaks():
    calls = []
    rig = Rig(dgt=True)
    rig.link.kbd_intr = calls.append  # main.py gives it micropython.kbd_intr
    rig.send(b"\x4b")
    assert calls == [-1]  # a DGT host speaks: 0x03 comes to the link
    got = ask(rig, clock_message(CLOCK_VERSION))  # 2B 03 03 09 00: three 0x03 as data
    assert [decode_clock(m.data)[:3] for m in got] == [("ack", 0x10, CLOCK_VERSION)]
    rig.send(chesslink_message("V"))  # another dialect takes over: Ctrl-C is MicroPython's again
    assert calls == [-1, 3] and rig.link.dialect == CHESSLINK
    rig.out.clear()
    rig.send(b"\x4d")
    assert calls == [-1, 3, -1]
    with pytest.raises(KeyboardInterrupt):
        rig.send(b"\r\x03")  # mpremote's Ctrl-C, outside a DGT message
    assert calls == [-1, 3, -1, 3]  # and Ctrl-C is MicroPython's again


# ---------------------------------------------------------------------- the other dialects


def test_the_other_dialects_after_a_dgt_host():
    rig = session()
    ask(rig, b"\x4d")
    rig.send(chesslink_message("V"))  # a ChessLink host on the port next
    assert rig.link.dialect == CHESSLINK
    assert split(b"".join(rig.out)) == ["v0103"]
    rig.out.clear()
    rig.send(chesslink_message("I"))  # I and L are ChessLink's unless a DGT host speaks
    assert split(b"".join(rig.out)) == ["i0055mm"]
    rig.out.clear()
    assert rig.ask("feature msg") == ["ok"]  # a CPP app next
    rig.send(b"\x4d")  # and DGT again, in the mode it left (UPDATE_BRD)
    assert kinds(messages(rig)) == [VERSION] and rig.link.dialect == DGT
    rig.play("e2e4")
    assert named(updates(messages(rig))) == [("e2", "."), ("e4", "P")]


def test_a_person_at_the_terminal_while_a_dgt_host_speaks():
    rig = session()
    assert rig.ask("status")[0].startswith("status phase=play")  # board commands answer as ever
    assert rig.link.dialect == DGT
    rig.send(b"fen\n")
    assert rig.lines() == ["fen " + rig.game.fen()]
    rig.send(b"\xff\x4d")  # a line the board would refuse ends at the next DGT command
    assert kinds(messages(rig)) == [VERSION]
    rig.send(b"xyz")  # an unfinished line ...
    rig.run(1100)
    rig.send(b"\x4d")  # ... gives way after a second
    assert kinds(messages(rig)) == [VERSION]
    rig.send(b"new r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")  # upper case in a line is text
    assert rig.lines() == ["ok"] and rig.link.dialect == "board"


def test_without_dgt_on_its_transport_the_link_reads_dgt_bytes_as_before():
    rig = Rig()  # the BLE link's and the online central's: no DGT
    rig.send(b"\x4b\x4d\x42\n")
    assert rig.lines() == ["err unknown command: KMB (try help)"]
    rig.send(b"\x87\x00\x00\x07\n")
    assert rig.lines() == ["err non-ASCII byte 0x87: line ignored"]
    assert DGT not in rig.link.sessions


def test_no_memory_for_the_dgt_module_drops_its_bytes_and_the_board_goes_on(monkeypatch):
    """On a heap too full to load link/dgt.py the byte is dropped, nothing escapes the Link (not
    even when the console's own message finds no memory), the console says the dialect stopped,
    and the board's commands answer as ever."""
    import link.link as link_module

    def no_memory(*args):
        raise MemoryError("memory allocation failed, allocating 1280 bytes")

    monkeypatch.setitem(link_module.DIALECTS, DGT, no_memory)
    rig = Rig(dgt=True)
    rig.send(b"\x4d")
    assert rig.lines() == []  # no err line: the console's message waits for a PC that speaks
    console = rig.app.console
    rig.app.console = no_memory  # the message itself out of memory
    rig.send(b"\x4b\x4d\x42")
    rig.app.console = console
    assert DGT not in rig.link.sessions and rig.link.dialect is None
    stopped = "msg not enough memory for that dialect: the link is back to the board's commands"
    assert rig.ask("fen") == [stopped, "fen " + rig.game.fen()]
