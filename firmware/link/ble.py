# The link over Bluetooth LE (docs/spec.md section 9): the board as the peripheral that
# phone and tablet apps find and drive, beside the USB link and with the same dialects on top.
#
# One transport, two GATT services, one Link (link/link.py) behind both:
#   - CPP: a write on rx is one whole command (no line end), fed to the Link as a line; every line
#     the Link writes goes out as one notification on tx, without its line end.
#   - Millennium ChessLink, as Millennium's BLE boards offer it (Microchip's transparent UART
#     service): the bytes written are fed to the Link as a stream, and the bytes the Link sends
#     (with parity when the host uses it) go out in notifications of at most MTU-3 bytes each.
#     Only ChessLink messages are taken from this service: anything else is ignored, as a
#     Millennium board ignores it (no board command reaches the game through it).
# Which services the board offers is the `ble` setting (config.py; "off" leaves the radio off).
#
# What BLE does to the bytes on MicroPython's BTstack binding, the Pico W's (found running its unix
# port built with BTstack against bumble's controllers; docs/bluetooth.md):
#   - a write longer than MTU-3 reaches the program as several writes of MTU-5 bytes (the pieces of
#     the central's prepared writes, their offsets dropped) and a last, shorter one. CPP allows one
#     command per write, so a piece of exactly MTU-5 bytes is held (it may have a rest to come): the
#     next write is its rest unless the held text is a whole command by itself and the next one
#     starts a command of its own; a held piece with no follower within HOLD_MS is a command by
#     itself. ChessLink is a stream and needs none of this.
#   - a notification longer than MTU-3 is cut. So the board asks for a larger MTU itself as soon
#     as a central connects (gattc_exchange_mtu, answered by the phone's stack: 185 on iOS, 517 on
#     Android), and answers a central's request with PREFERRED_MTU.
#   - a CPP app takes each notification as one whole command: chess_peripheral_driver's
#     BleStringSerial decodes every notification value into one command string, and blichess does
#     the same; none joins notifications. So a CPP line is never split: a round (`begin`) or a
#     state stream (`get_state`) whose longest line would not fit MTU-3 is refused at once with
#     `err MTU N, need M` (20 bytes: it fits MTU 23) and the reason on the USB console, and the
#     board stays as it is (link/ble_mtu.py, loaded only below MTU_ALWAYS_ENOUGH). A line that
#     still does not fit is never cut: `msg`/`err` lose the end of their text, any other line is
#     not sent and the USB console says so.
#
# Connections come and go: one central at a time (advertising stops while one is connected, and a
# second one that connects anyway is disconnected at once); when it goes, the Link leaves its
# dialect (the LEDs a ChessLink host lit go back to the board's own, a CPP round ends: the app
# begins again when it comes back and gets sync or unsync for the game as it stands). Nothing of
# the game is lost: it is the board's. A ChessLink host that comes back gets a status report with
# its first message (in the report modes that report), whatever changed meanwhile.
#
# The radio's interrupt handler only queues (the written bytes copied out, because the next write
# overwrites them); poll(), called from the scan loop, does the rest and never waits on the radio:
# notifications go out a few per turn from a queue. An idle turn (nothing queued, no dialect
# speaking) compares two values and allocates nothing.
from micropython import const

from link.link import CHESSLINK, CPP, CPP_WORDS, Link

# Service and characteristic UUIDs (docs/spec.md section 9).
CPP_SERVICE = "f5351050-b2c9-11ec-a0c0-b3bc53b08d33"
CPP_TX = "f53513ca-b2c9-11ec-a0c1-639b8957db99"  # board -> app, notify
CPP_RX = "f535147e-b2c9-11ec-a0c2-8bbd706ec4e6"  # app -> board, write
CHESSLINK_SERVICE = "49535343-fe7d-4ae5-8fa9-9fafd205e455"
CHESSLINK_NOTIFY = "49535343-1e4d-4bd9-ba61-23c647249616"  # board -> app
CHESSLINK_WRITE = "49535343-8841-43f4-a8d4-ecbe34729bb3"  # app -> board
# Apps for Millennium boards find them by this name (python-mchess, White Pawn, chess.com).
CHESSLINK_NAME = "MILLENNIUM CHESS"
CPP_NAME = "Chessboard"

# The `ble` setting: which services the board offers.
OFF = "off"
SERVICES = (OFF, "cpp", "chesslink", "both")

# MicroPython's bluetooth IRQ event codes.
_IRQ_CENTRAL_CONNECT = const(1)
_IRQ_CENTRAL_DISCONNECT = const(2)
_IRQ_GATTS_WRITE = const(3)
_IRQ_MTU_EXCHANGED = const(21)
# MicroPython's characteristic flags.
_FLAG_NOTIFY = const(0x0010)
_FLAG_WRITE = const(0x0008)
_FLAG_WRITE_NO_RESPONSE = const(0x0004)

DEFAULT_MTU = const(23)
# Asked for at connection and answered to a central's request: a 128-byte CPP line and its 3 bytes
# of ATT header fit with room, and a ChessLink status report (67 bytes) goes in one notification.
PREFERRED_MTU = const(247)
# From this MTU on every line of a CPP round fits a notification (its longest, 97 bytes with six FEN
# fields, and ATT's 3): below it link/ble_mtu.py checks a round before it begins.
MTU_ALWAYS_ENOUGH = const(100)
# How long a write piece of exactly MTU-5 bytes waits for its rest. The pieces of one long write
# come one per ATT request and response, one or two connection intervals apart (7.5-50 ms each).
HOLD_MS = const(250)
# Advertising interval (the apps scan for a few seconds; 100 ms is what phones find at once).
ADV_INTERVAL_US = const(100000)
# After the stack refused to advertise, the next try (the scan loop goes on meanwhile).
ADVERTISE_RETRY_MS = const(1000)
# Writes kept between two scans at most: a central writing faster than that loses the rest (the
# USB `ble` command counts them among the dropped).
_QUEUE_MAX = const(32)
# Notifications handed to the radio per scan: the rest wait for the next one (5 ms later).
_NOTIFY_PER_TURN = const(4)
_OUT_MAX = const(64)  # notifications waiting at most (a central that does not read loses the oldest)

# Kinds of queued events.
_EV_CONNECT = const(0)
_EV_DISCONNECT = const(1)
_EV_CPP = const(2)
_EV_CHESSLINK = const(3)
_EV_MTU = const(4)

_NO_CONNECTION = const(-1)


def _ad(kind, payload):
    return bytes((len(payload) + 1, kind)) + payload


def _uuid128(text):
    # Advertising data carries a 128-bit UUID little-endian.
    raw = bytes(int(text.replace("-", "")[i : i + 2], 16) for i in range(0, 32, 2))
    return bytes(reversed(raw))


def advertising(services):
    """(advertising data, scan response) for `services` ("cpp", "chesslink" or "both").

    31 bytes each: flags (3) and one 128-bit service UUID (18) fill 21, the name "MILLENNIUM CHESS"
    18. CPP apps filter on the CPP service, so it goes in the advertisement whenever CPP is offered,
    with the name in the scan response (phones scan actively and see both); ChessLink apps filter
    on the name, which is in the advertisement when ChessLink alone is offered."""
    flags = _ad(0x01, b"\x06")  # LE general discoverable, no BR/EDR
    name = (CHESSLINK_NAME if services != "cpp" else CPP_NAME).encode()
    if services == "chesslink":
        return flags + _ad(0x09, name), _ad(0x07, _uuid128(CHESSLINK_SERVICE))
    return flags + _ad(0x07, _uuid128(CPP_SERVICE)), _ad(0x09, name)


def complete_cpp(text):
    """Whether `text` is a whole CPP command as it stands (a held piece that may go alone)."""
    word, _, rest = text.partition(" ")
    if word not in CPP_WORDS:
        return False
    if word == "begin" or word == "undo" or word == "redo" or word == "set_state":
        return len(rest.split("/")) == 8 and len(rest.split()) >= 2  # placement and side at least
    return True


def _whole_command(data):
    try:
        return complete_cpp(bytes(data).decode())
    except UnicodeError:  # not text: no command at all, so the next write is its rest
        return False


class BleLink:
    """The BLE transport. bluetooth: MicroPython's `bluetooth` module (or the host tests' adapter);
    app: the App; services: one of SERVICES but OFF; console(text): messages for a person (the USB
    link's info)."""

    def __init__(self, bluetooth, app, services, console=None, name=None):
        if services not in SERVICES or services == OFF:
            raise ValueError("ble: services must be cpp, chesslink or both")
        self.services = services
        self.console = console or (lambda text: None)
        self.link = Link(app, self._write_text, self._write_bytes)
        self.connection = _NO_CONNECTION
        self.mtu = DEFAULT_MTU
        self.refused = 0  # second centrals disconnected
        self.lost = 0  # radio events dropped because the queue was full
        self.starved = False  # a MemoryError in the radio's handler, raised by poll()
        self.dropped = 0  # notifications dropped: too long for the MTU, or a central not reading
        self._queue = []
        self._spare = []
        self._out = []  # (value handle, bytes) waiting to be notified
        self._held = bytearray(0)  # a CPP write piece waiting for its rest
        self._held_at = 0
        self._chesslink_fresh = False  # a host back after a drop, its first message not yet in
        self._advertise_at = -1  # when the stack last refused to advertise (-1: it did not)
        radio = bluetooth.BLE()
        self.radio = radio
        radio.active(True)
        name = name or (CHESSLINK_NAME if services != "cpp" else CPP_NAME)
        for key, value in (("mtu", PREFERRED_MTU), ("gap_name", name)):
            try:
                radio.config(**{key: value})
            except (ValueError, OSError):  # a stack without this setting: its default
                pass
        radio.irq(self._irq)
        UUID = bluetooth.UUID
        writable = _FLAG_WRITE | _FLAG_WRITE_NO_RESPONSE
        table = []
        if services != "chesslink":
            table.append((UUID(CPP_SERVICE), ((UUID(CPP_TX), _FLAG_NOTIFY), (UUID(CPP_RX), writable))))
        if services != "cpp":
            chars = ((UUID(CHESSLINK_NOTIFY), _FLAG_NOTIFY), (UUID(CHESSLINK_WRITE), writable))
            table.append((UUID(CHESSLINK_SERVICE), chars))
        handles = radio.gatts_register_services(table)
        self.cpp_tx = self.cpp_rx = self.chesslink_notify = self.chesslink_write = -1
        i = 0
        if services != "chesslink":
            self.cpp_tx, self.cpp_rx = handles[0]
            i = 1
        if services != "cpp":
            self.chesslink_notify, self.chesslink_write = handles[i]
        for handle in (self.cpp_rx, self.chesslink_write):
            if handle >= 0:
                # Room for the longest single write a raised MTU allows (ATT caps a value at 512).
                radio.gatts_set_buffer(handle, PREFERRED_MTU, False)
        self.adv_data, self.scan_response = advertising(services)
        self._advertise()

    # ------------------------------------------------------------------ the radio's side

    def _irq(self, event, data):
        """The radio's interrupt handler: queue, nothing else. MicroPython drops the handler for good
        when an exception leaves it, so the radio would go deaf unsaid: a MemoryError is kept for
        poll() to raise, where the scan loop's edge stops Bluetooth with its sentence."""
        try:
            self._take(event, data)
        except MemoryError:
            self.starved = True

    def _take(self, event, data):
        if event == _IRQ_GATTS_WRITE:
            conn, handle = data
            if handle == self.cpp_rx:
                kind = _EV_CPP
            elif handle == self.chesslink_write:
                kind = _EV_CHESSLINK
            else:
                return
            item = (kind, conn, self.radio.gatts_read(handle))
        elif event == _IRQ_CENTRAL_CONNECT:
            item = (_EV_CONNECT, data[0], None)
        elif event == _IRQ_CENTRAL_DISCONNECT:
            item = (_EV_DISCONNECT, data[0], None)
        elif event == _IRQ_MTU_EXCHANGED:
            item = (_EV_MTU, data[0], data[1])
        else:
            return
        if len(self._queue) < _QUEUE_MAX or item[0] != _EV_CPP and item[0] != _EV_CHESSLINK:
            self._queue.append(item)  # a connection's coming and going is never dropped
        else:
            self.lost += 1

    def _advertise(self):
        """Advertise again. The stack may refuse (an OSError, e.g. its buffers busy right after a
        disconnection): the scan loop must not die of it, so poll() tries again a second later."""
        try:
            self.radio.gap_advertise(ADV_INTERVAL_US, self.adv_data, resp_data=self.scan_response, connectable=True)
            self._advertise_at = -1
        except OSError as e:
            if self._advertise_at < 0:
                self.console("ble: advertising refused by the radio (%s); trying again" % e)
            self._advertise_at = self.link.now

    def _quiet(self):
        """Stop advertising (one app at a time); a refusal only means it had stopped already."""
        try:
            self.radio.gap_advertise(None)
        except OSError:
            pass

    # ------------------------------------------------------------------ the scan loop's side

    def poll(self, now):
        """Once a scan: what the radio queued, the dialect's own reports, the notifications."""
        if self.starved:
            raise MemoryError("no memory for the radio's events")
        link = self.link
        link.now = now
        if self._queue:
            queue = self._queue
            self._queue = self._spare  # the handler appends to the other list from here on
            for item in queue:
                self._event(item, now)
            queue.clear()
            self._spare = queue
        if self._advertise_at >= 0 and now - self._advertise_at >= ADVERTISE_RETRY_MS and self.connection == _NO_CONNECTION:
            self._advertise()
        if self._held and now - self._held_at >= HOLD_MS:
            self._run_cpp(self._held)
            self._held = bytearray(0)
        if link.polls:
            link.poll(now)
        if self._out:
            self._notify()

    def _event(self, item, now):
        kind, conn, data = item
        if kind == _EV_CONNECT:
            if self.connection != _NO_CONNECTION:
                self._refuse(conn)
                return
            self.connection = conn
            self.mtu = DEFAULT_MTU
            # One app at a time: no second phone finds the board meanwhile (BTstack would go on
            # advertising while it has room for more connections).
            self._advertise_at = -1
            self._quiet()
            # A ChessLink session from an earlier connection: its host gets the status again.
            self._chesslink_fresh = CHESSLINK in self.link.sessions
            try:
                self.radio.gattc_exchange_mtu(conn)
            except (AttributeError, OSError):  # a stack without the GATT client: the central decides
                pass
            self.console("ble: an app connected")
            return
        if conn != self.connection:
            return  # a refused central's last words
        if kind == _EV_DISCONNECT:
            self._disconnected()
        elif kind == _EV_MTU:
            self.mtu = data
        elif kind == _EV_CPP:
            self._cpp_write(data, now)
        else:
            self.link.feed_chesslink(data)
            if self._chesslink_fresh and self.link.dialect == CHESSLINK:
                self._chesslink_fresh = False
                self.link.sessions[CHESSLINK].report_due()  # a host back after a drop gets the status

    def _refuse(self, conn):
        self.refused += 1
        try:
            self.radio.gap_disconnect(conn)
        except OSError:
            pass
        self.console("ble: a second app refused (one at a time)")

    def _disconnected(self):
        self.connection = _NO_CONNECTION
        self._out.clear()
        self._held = bytearray(0)
        link = self.link
        link.use(None)
        # The next app negotiates its own features: nothing of this one's session may answer for
        # it. (ChessLink's session stays: its E2ROM settings are a Millennium board's EEPROM.)
        link.forget(CPP)
        self.console("ble: the app disconnected")
        self._advertise()

    def disconnect(self):
        """Drop the central (the USB `ble` command, tests)."""
        if self.connection != _NO_CONNECTION:
            try:
                self.radio.gap_disconnect(self.connection)
            except OSError:
                pass

    def close(self):
        """The radio off, and this link no longer told of the game (the USB `ble` command)."""
        self.disconnect()
        self.connection = _NO_CONNECTION
        self._out.clear()
        self.link.detach()
        self._advertise_at = -1
        self._quiet()
        self.radio.active(False)

    # ------------------------------------------------------------------ CPP: one command per write

    def _cpp_write(self, data, now):
        piece = self.mtu - 5  # what a prepared write carries: the size of every piece but the last
        held = self._held
        if held:
            self._held = bytearray(0)
            if _whole_command(held) and self._starts_command(data):
                self._run_cpp(held)
            else:
                data = bytes(held) + data
        if len(data) % piece == 0 and len(data) >= piece and len(data) <= 128:
            self._held = bytearray(data)
            self._held_at = now
            return
        self._run_cpp(data)

    def _starts_command(self, data):
        end = data.find(b" ")
        word = data if end < 0 else data[:end]
        try:
            return word.decode() in CPP_WORDS
        except UnicodeError:
            return False

    def _run_cpp(self, data):
        link = self.link
        while data and data[-1] in (10, 13):
            data = data[:-1]  # a line end a central added
        if not data:
            return
        if b"\n" in data or b"\r" in data:
            link.err("a CPP write is one command: write ignored")
            return
        if 65 <= data[0] <= 90:
            # A capital letter would start a ChessLink message on the USB framing: not CPP's.
            link.err("not a CPP command: write ignored")
            return
        if self.mtu < MTU_ALWAYS_ENOUGH and (data.startswith(b"begin") or data.startswith(b"get_state")):
            from link.ble_mtu import refusal  # noqa: PLC0415 - only an app that kept a small MTU

            why = refusal(data, self.mtu, self.console)
            if why is not None:
                link.err(why)
                return
        link.feed(data)
        link.feed(b"\n")

    # ------------------------------------------------------------------ output

    def _write_text(self, text):
        """The Link's text lines: one notification each on CPP's tx, without the line end."""
        if self.connection == _NO_CONNECTION or self.cpp_tx < 0:
            return
        room = self.mtu - 3
        for line in text.split("\n"):
            if not line:
                continue
            if len(line) > room:
                if line.startswith("msg ") or line.startswith("err "):
                    line = line[:room].rstrip()
                else:
                    self.dropped += 1
                    self.console(
                        "ble: a %d-byte CPP line does not fit MTU %d and was not sent (the app must raise the MTU)"
                        % (len(line), self.mtu)
                    )
                    continue
            self._queue_out(self.cpp_tx, line.encode())

    def _write_bytes(self, data):
        """ChessLink's bytes: notifications of at most MTU-3 bytes, as a Millennium board splits
        its serial stream."""
        if self.connection == _NO_CONNECTION or self.chesslink_notify < 0:
            return
        room = self.mtu - 3
        for start in range(0, len(data), room):
            self._queue_out(self.chesslink_notify, bytes(data[start : start + room]))

    def _queue_out(self, handle, value):
        out = self._out
        if len(out) >= _OUT_MAX:
            out.pop(0)
            self.dropped += 1
        out.append((handle, value))

    def _notify(self):
        out = self._out
        n = 0
        while out and n < _NOTIFY_PER_TURN:
            handle, value = out[0]
            try:
                self.radio.gatts_notify(self.connection, handle, value)
            except OSError:
                return  # the stack's buffers are full: the rest next turn
            out.pop(0)
            n += 1

    @property
    def holding(self):
        """A CPP write piece waits for its rest (see HOLD_MS)."""
        return len(self._held) > 0

    def status(self):
        """One line for the USB `ble` command."""
        return "ble services=%s connected=%s mtu=%d dialect=%s refused=%d dropped=%d" % (
            self.services,
            "yes" if self.connection != _NO_CONNECTION else "no",
            self.mtu,
            self.link.dialect or "-",
            self.refused,
            self.dropped + self.lost,
        )
