# The network a Pico W's online play meets, for the chip model of tools/memory/ (MicroPython's
# WebAssembly build has no socket, ssl, network or _thread): stand-ins for those four modules at
# the socket seam, and behind them a Lichess that answers the Board API's requests as lichess.org
# does (docs/lichess-wifi.md), stepped by tools/memory/scenarios.py.
#
# What the chip's mbedTLS holds, this fake holds as bytearrays of the measured sizes
# (tools/memory/chips.py), at the moments the rp2 port allocates them from the GC heap: the 16 KB
# input buffer (one block) and the 4 KB output buffer as the handshake begins, the handshake's
# working memory until the scenario has measured that moment (settle()), the session for as long
# as the connection is open; the roots the context parsed, for as long as it lives.
#
# The firmware's own code runs unchanged on top: online/boot.py imports these as `network`,
# `socket`, `ssl` and `_thread` (Model puts them in sys.modules), and the second core's function is
# not run on a thread: the scenario calls its turn() itself, between scans.
import json

ACCOUNT = {"id": "tester", "username": "Tester"}
GAME_ID = "modelgm1"


class _Lock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def acquire(self, *a):
        return True

    def release(self):
        pass


class Thread:
    """_thread: the second core's function is kept, not started (the scenario steps it); its stack
    is held as the rp2 port allocates it, from the GC heap as the thread starts."""

    def __init__(self, default_stack):
        self.started = None
        self.stack = 0
        self.default_stack = default_stack
        self.stack_bytes = None

    def allocate_lock(self):
        return _Lock()

    def start_new_thread(self, fn, args):
        self.stack_bytes = bytearray(self.stack or self.default_stack)
        self.started = (fn, args)

    def stack_size(self, n=None):
        old = self.stack
        if n is not None:
            self.stack = n
        return old


class _Wlan:
    def __init__(self, net):
        self.net = net

    def active(self, on=None):
        return True

    def connect(self, ssid, password=None):
        pass

    def status(self):
        return Network.STAT_GOT_IP if self.net.wifi else -1

    def isconnected(self):
        return self.net.wifi

    def disconnect(self):
        pass


class Network:
    """network: a station that joins at once."""

    STA_IF = 0
    STAT_GOT_IP = 3
    STAT_NO_AP_FOUND = -2
    STAT_WRONG_PASSWORD = -3

    def __init__(self, net):
        self.net = net

    def WLAN(self, which):  # noqa: N802 - network's own name
        return _Wlan(self.net)


class _Raw:
    def settimeout(self, s):
        pass

    def connect(self, addr):
        pass

    def close(self):
        pass


class Socket:
    """socket: addresses and TCP sockets that connect at once (the bytes go through the TLS fake)."""

    AF_INET = 2
    SOCK_STREAM = 1
    SOCK_DGRAM = 2

    def getaddrinfo(self, host, port, *a):
        return [(2, 1, 0, "", ("10.0.0.1", port))]

    def socket(self, *a):
        return _Raw()


class _Context:
    def __init__(self, net):
        self.net = net
        self.roots = []  # the parsed roots, as mbedTLS keeps them in the context
        self.verify_mode = 0

    def load_verify_locations(self, cadata=None):
        self.roots.append(bytearray(len(cadata) + self.net.sizes["tls_root_parsed"]))

    def wrap_socket(self, raw, server_hostname=None):
        return Tls(self.net)


class Ssl:
    PROTOCOL_TLS_CLIENT = 16
    CERT_REQUIRED = 2

    def __init__(self, net):
        self.net = net

    def SSLContext(self, protocol):  # noqa: N802 - ssl's own name
        return _Context(self.net)


class Binascii:
    """binascii: the WebAssembly build's is a Python module whose a2b_base64 makes garbage by the
    tens of kilobytes (the chip's is C, and makes the output alone); this one makes its output
    and a 256-byte table, so the model's heap at the roots' parse (online/https.py) is the chip's."""

    def __init__(self):
        self.table = bytearray(256)
        for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"):
            self.table[c] = i

    def a2b_base64(self, data):
        table = self.table
        out = bytearray(len(data) * 3 // 4)
        n = 0
        acc = 0
        bits = 0
        for c in data:
            if c == 61:  # "=": the end
                break
            acc = ((acc << 6) | table[c]) & 0xFFF
            bits += 6
            if bits >= 8:
                bits -= 8
                out[n] = (acc >> bits) & 0xFF
                n += 1
        return bytes(out[:n])


def _chunk(obj):
    data = b"\n" if obj is None else json.dumps(obj).encode() + b"\n"
    return b"%x\r\n" % len(data) + data + b"\r\n"


class Tls:
    """One TLS connection: mbedTLS's buffers held while it is open; the server's side behind it."""

    def __init__(self, net):
        sizes = net.sizes
        self.net = net
        # As mbedtls_ssl_setup() and the handshake allocate them on the rp2 port: in, out, the
        # handshake's working memory (dropped at settle()), then what the session keeps.
        if net.spare:
            # A connection closed earlier in this turn: the chip collects before each handshake
            # (online/https.py), so its buffers' place is this one's; this build collects only
            # between calls, so the fake hands the same buffers on.
            self.held = net.spare[-3:]
            del net.spare[-3:]
        else:
            self.held = [bytearray(sizes["tls_in"]), bytearray(sizes["tls_out"])]
            self.held.append(bytearray(sizes["tls_session"]))
        if net.handshake is None:
            net.handshake = bytearray(sizes["tls_handshake"])
        # else: a handshake earlier in this turn, not measured yet: mbedTLS freed its working
        # memory at its end, and the chip's collection before this one gives the place back.
        self.rx = b""
        self.body_left = 0  # a request's body bytes still to come (write())
        self.method = self.path = None
        self.kind = None
        self.blocking = True
        self.cut = False
        net.opened += 1
        net.open.append(self)

    def setblocking(self, on):
        self.blocking = on

    def write(self, data):
        """A request's bytes, in one write or several (a broadcast's head, then its PGN's pieces):
        the request is answered once its body is all in. Only the head is kept: the body's bytes
        are counted, not held, so the heap holds no more of them than the chip's would."""
        if self.cut:
            return len(data)  # the server has hung up: the bytes go nowhere, the read finds the end
        if self.body_left:
            self.body_left -= len(data)
            if self.body_left <= 0:
                self.body_left = 0
                self.net.request(self, self.method, self.path, b"")
            return len(data)
        head, _, body = bytes(data).partition(b"\r\n\r\n")
        method, path = head.split(b" ")[:2]
        length = 0
        for line in head.split(b"\r\n")[1:]:
            key, _, value = line.partition(b":")
            if key.strip().lower() == b"content-length":
                length = int(value)
        if len(body) < length:
            self.method, self.path, self.body_left = method.decode(), path.decode(), length - len(body)
            return len(data)
        self.net.request(self, method.decode(), path.decode(), body)
        return len(data)

    def recv(self, n):
        if not self.rx:
            if self.cut:
                return b""
            if self.blocking:
                raise OSError(110)  # ETIMEDOUT: what a blocking read with nothing gives
            return None
        data, self.rx = self.rx[:n], self.rx[n:]
        return data

    def close(self):
        if self in self.net.open:
            self.net.open.remove(self)
        if self.held is not None:
            # Kept until the turn is over (Net.turn_over): the next connection of the same turn
            # takes them, and a post opened and closed within the turn the scenario measures is
            # counted as it was at its handshake's peak.
            self.net.spare.extend(self.held)
            self.held.clear()
        self.held = None
        self.rx = b""

    def answer(self, status, body, close=True):
        data = json.dumps(body).encode()
        self.rx += b"HTTP/1.1 %d OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (status, len(data))
        self.rx += (b"Connection: close\r\n\r\n" if close else b"\r\n") + data

    def stream(self, kind, first=()):
        self.kind = kind
        self.rx += b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
        for obj in first:
            self.rx += _chunk(obj)


class Net:
    """The network and Lichess behind it. sizes: tools/memory/chips.py's TLS stand-ins."""

    def __init__(self, sizes):
        self.sizes = sizes
        self.wifi = True
        self.open = []  # the TLS connections open now
        self.opened = 0  # ... and opened so far: a handshake happened since the last look
        self.handshake = None  # the handshake's working memory, held until settle()
        self.spare = []  # buffers of connections closed in this turn (Tls.close), until turn_over()
        self.thread = Thread(sizes["core1_stack"])
        self.modules = {"network": Network(self), "socket": Socket(), "ssl": Ssl(self), "_thread": self.thread,
                        "binascii": Binascii()}
        self.requests = []  # (method, path) as they came, the last few
        self.game = None  # the game's moves (UCI), once it began
        self.status = "started"
        self.winner = None
        self.replies = []  # the opponent's moves, in turn
        self.announce = True  # the event stream announces the game on opening
        self.pushes = 0  # a broadcast's pushes answered

    def settle(self):
        """The scenario has measured the handshake's moment: its working memory goes back."""
        self.handshake = None

    def turn_over(self):
        """Between the network core's turns (a call of the model's own: collected): the buffers
        of connections closed in the last turn go. Emptied, not only let go: a stale word left
        on this build's stacks would keep the list, and through it the buffers, alive."""
        self.spare.clear()

    def streams(self, kind):
        return [c for c in self.open if c.kind == kind]

    def state(self):
        return {"type": "gameState", "moves": " ".join(self.game), "wtime": 900000, "btime": 900000,
                "winc": 10000, "binc": 10000, "status": self.status, "winner": self.winner}

    def push(self, kind, obj):
        for c in self.streams(kind):
            c.rx += _chunk(obj)

    def keep_alive(self):
        for c in self.open:
            if c.kind is not None:
                c.rx += _chunk(None)

    def drop(self, kind):
        """The server cuts a stream (a reconnect follows)."""
        for c in self.streams(kind):
            c.cut = True
            c.kind = None

    def end(self, status, winner):
        self.status, self.winner = status, winner
        self.push("game", self.state())
        for c in self.streams("game"):
            c.rx += b"0\r\n\r\n"  # the stream's end

    def request(self, conn, method, path, body):
        if len(self.requests) >= 8:
            self.requests.pop(0)
        self.requests.append((method, path))
        if path == "/api/account":
            conn.answer(200, ACCOUNT)
        elif path == "/api/stream/event":
            first = ()
            if self.announce and self.status == "started":
                first = ({"type": "gameStart", "game": {"gameId": GAME_ID, "id": GAME_ID, "fullId": GAME_ID + "abcd"}},)
            conn.stream("events", first)
        elif path.startswith("/api/board/game/stream/"):
            if self.game is None:
                self.game = []
            full = {"type": "gameFull", "id": GAME_ID, "variant": {"key": "standard", "name": "Standard"},
                    "rated": False, "speed": "rapid", "perf": {"name": "Rapid"},
                    "clock": {"initial": 900000, "increment": 10000}, "initialFen": "startpos",
                    "white": {"id": "tester", "name": "Tester", "rating": 1500},
                    "black": {"id": "opponent", "name": "Opponent", "rating": 1500},
                    "state": self.state()}
            conn.stream("game", (full,))
        elif path.startswith("/api/broadcast/round/") and path.endswith("/push"):
            # Lichess's push answer, the connection kept (the board keeps it between pushes).
            self.pushes += 1
            conn.answer(200, {"games": [{"tags": {}, "moves": self.pushes}]}, close=False)
        elif "/move/" in path:
            self.game.append(path.rsplit("/", 1)[1])
            conn.answer(200, {"ok": True})
            self.push("game", self.state())
            if self.replies:
                self.game.append(self.replies.pop(0))
                self.push("game", self.state())
        else:
            conn.answer(200, {"ok": True})
