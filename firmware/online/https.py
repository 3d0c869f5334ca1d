# HTTP/1.1 over TLS with the server's certificate verified, on MicroPython's socket and ssl (mbedTLS)
# and on CPython's: only what both have (getaddrinfo, connect, SSLContext.wrap_socket, recv, write).
#
# The roots: a PEM file of CA certificates the firmware carries (online/roots.pem, replaceable over
# USB: docs/lichess-wifi.md). MicroPython's mbedTLS takes a PEM block only NUL-terminated and one
# DER certificate per call, so each PEM block is decoded here and given as DER, one call each.
# A certificate that does not verify raises TlsRefused with the reason, and no byte is sent.
#
# Responses: a status line, headers, then a body by Content-Length or chunked transfer encoding
# (Lichess's streams); Response.read_some() returns what the body has now, within the socket's
# socket's mode: after nonblocking(), at once, so one core can watch several streams in turn.
import binascii
import gc

_MAX_HEAD = 4096  # a response head longer than this is not Lichess's
_TIMED_OUT = (11, 110, 116)  # EAGAIN, ETIMEDOUT (Linux/lwIP); CPython raises TimeoutError instead


class HttpError(Exception):
    """The connection failed (DNS, refused, reset, stalled) or the answer was not HTTP."""


class TlsRefused(HttpError):
    """The server's certificate does not verify against the board's roots: nothing was sent."""


def timed_out(e):
    """Whether an exception from a socket read is only a read timeout (nothing arrived yet)."""
    if type(e).__name__ in ("timeout", "TimeoutError", "SSLWantReadError"):
        return True
    return isinstance(e, OSError) and bool(e.args) and e.args[0] in _TIMED_OUT


def pem_blocks(text):
    """The DER bytes of each certificate in a PEM text (bytes or str). Worked on as bytes: the
    WebAssembly build's binascii (a Python one) takes no str, and the roots file is read as bytes."""
    if isinstance(text, str):
        text = text.encode()
    out = []
    begin = b"-----BEGIN CERTIFICATE-----"
    end = b"-----END CERTIFICATE-----"
    i = text.find(begin)
    while i >= 0:
        j = text.find(end, i)
        if j < 0:
            break
        out.append(binascii.a2b_base64(b"".join(text[i + len(begin):j].split())))
        i = text.find(begin, j)
    return out


def context(ssl, roots_pem):
    """An SSLContext that requires the server's certificate to chain to one of these roots."""
    ders = pem_blocks(roots_pem)
    if not ders:
        raise ValueError("no certificate in the roots file")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED
    for der in ders:
        ctx.load_verify_locations(cadata=der)
    return ctx


class Response:
    def __init__(self, conn, status, headers):
        self.conn = conn
        self.status = status
        self.headers = headers
        self.chunked = "chunked" in headers.get("transfer-encoding", "")
        length = headers.get("content-length")
        try:
            self.left = int(length) if length is not None else -1  # bytes of body still to come
        except ValueError:
            conn.close()
            raise HttpError("a Content-Length that is not a number")
        self.chunk_left = 0  # chunked: bytes of the current chunk still to come (-1: need its size)
        self.done = self.left == 0
        if self.chunked:
            self.chunk_left = -1

    def read_some(self):
        """The body bytes available now (b"" when none came within the timeout). Sets done at
        the body's end; raises HttpError when the connection is cut before it."""
        if self.done:
            return b""
        conn = self.conn
        if not self.chunked:
            data = conn.read_raw(self.left if 0 < self.left < 1024 else 1024)
            if data is None:
                return b""
            if not data:
                if self.left < 0:
                    self.done = True  # the body runs to the connection's end
                    return b""
                raise HttpError("the connection closed mid-answer")
            if self.left > 0:
                self.left -= len(data)
                self.done = self.left == 0
            return data
        # chunk_left: -1 = its size line is next, 0 = the CRLF after its data, n > 0 = data to come
        out = b""
        while not self.done:
            if self.chunk_left < 0:
                line = conn.read_line()
                if line is None:
                    return out
                try:
                    self.chunk_left = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    raise HttpError("a chunk size that is not hex")
                if self.chunk_left == 0:
                    self.done = True  # the last chunk; its blank line (no trailers) is left unread
                continue
            if self.chunk_left == 0:
                if conn.read_line() is None:
                    return out
                self.chunk_left = -1
                continue
            data = conn.read_raw(self.chunk_left if self.chunk_left < 1024 else 1024)
            if data is None:
                return out
            if not data:
                raise HttpError("the stream was cut")
            self.chunk_left -= len(data)
            out += data
            if not conn.buffered() and self.chunk_left == 0:
                return out  # a whole chunk: hand it on without waiting for the next
        return out

    def read_all(self, limit=16384):
        """The whole body (a JSON answer); HttpError when longer than limit."""
        out = b""
        while not self.done:
            data = self.read_some()
            if not data and not self.done:
                # Nothing within the socket's timeout, mid-answer: the server or the network has
                # stalled. Reading on would loop for ever (the network core stuck).
                self.conn.close()
                raise HttpError("no answer from %s (stalled)" % self.conn.host)
            out += data
            if len(out) > limit:
                self.conn.close()
                raise HttpError("an answer too long")
        return out


class Connection:
    """One TLS connection to host:port. socket and ssl are the modules (injected for tests)."""

    def __init__(self, socket, ssl_context, host, port=443, timeout_s=10):
        self.socket = socket
        self.ctx = ssl_context
        self.host = host
        self.port = port
        self.timeout_s = timeout_s
        self.raw = None
        self.tls = None
        self.buf = b""
        self.closed = False  # the server said Connection: close, or the connection failed

    def open(self):
        """DNS, TCP and the TLS handshake (seconds of arithmetic on a Cortex-M0+)."""
        try:
            addr = self.socket.getaddrinfo(self.host, self.port)[0][-1]
        except OSError as e:
            raise HttpError("cannot find %s (DNS: %s)" % (self.host, _words(e)))
        try:
            raw = self.socket.socket()  # OSError when lwIP has no socket left (ENOMEM)
            self.raw = raw
            raw.settimeout(self.timeout_s)
            raw.connect(addr)
        except OSError as e:
            self.close()
            raise HttpError("cannot reach %s (%s)" % (self.host, _words(e)))
        # mbedTLS takes its 16 KB input buffer in one piece from the heap as the handshake begins
        # (on the rp2 port; 4 KB out, and about 28 KB at the handshake's peak): collected first,
        # the garbage of play is no longer in the way of that block.
        gc.collect()
        try:
            self.tls = self.ctx.wrap_socket(raw, server_hostname=self.host)
        except Exception as e:  # noqa: BLE001 - mbedTLS says ValueError, CPython SSLError
            self.close()
            if timed_out(e):
                raise HttpError("%s did not finish the TLS handshake in time" % self.host)
            text = str(e)
            if "CERTIFICATE" in text.upper() or "verif" in text or "CA" in text.split():
                raise TlsRefused("the certificate of %s does not verify against the board's roots (%s): "
                                 "nothing was sent" % (self.host, text.strip()))
            raise HttpError("TLS with %s failed (%s)" % (self.host, text.strip() or type(e).__name__))
        self.buf = b""
        self.closed = False

    def nonblocking(self):
        """Reads return at once from now on (None when nothing came). Not read timeouts: on
        MicroPython a timeout inside a TLS record leaves mbedTLS unable to read that stream again
        (measured on the unix port: no byte after the first timeout), a would-block does not."""
        self.tls.setblocking(False)

    def close(self):
        for s in (self.tls, self.raw):
            if s is not None:
                try:
                    s.close()
                except OSError:
                    pass
        self.tls = self.raw = None
        self.closed = True

    def request(self, method, path, headers, body=b""):
        """Send one request; returns the Response once its head is read."""
        self.send(method, path, headers, body)
        return self.read_head()

    def send(self, method, path, headers, body=b""):
        """Send one request, without waiting for its answer (read_head() reads it). body: bytes,
        or a tuple of buffers sent one after another (a broadcast's PGN in pieces: nothing joined)."""
        if self.tls is None:
            self.open()
        parts = body if isinstance(body, tuple) else None
        length = len(body)
        if parts is not None:
            length = 0
            for part in parts:
                length += len(part)
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: " + self.host]
        for k in headers:
            lines.append("%s: %s" % (k, headers[k]))
        if length or method == "POST":
            lines.append("Content-Length: %d" % length)
        data = ("\r\n".join(lines) + "\r\n\r\n").encode()
        try:
            if parts is None:
                self._write_all(data + body)
            else:
                self._write_all(data)
                for part in parts:
                    self._write_all(part)
        except OSError as e:
            self.close()
            raise HttpError("the connection failed while sending (%s)" % _words(e))

    def _write_all(self, data):
        """All of data: a TLS write may take only part of a long buffer (mbedTLS's record size)."""
        view = memoryview(data)
        while len(view):
            n = self.tls.write(view)
            if not n or n >= len(view):  # None or 0: a non-blocking socket took nothing now (as before)
                return
            view = view[n:]

    def read_head(self):
        status_line = self.read_line(wait=True)
        while not status_line:  # the blank line a chunked body before it ended with
            status_line = self.read_line(wait=True)
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            self.close()
            raise HttpError("not an HTTP answer")
        headers = {}
        size = len(status_line)
        while True:
            line = self.read_line(wait=True)
            size += len(line)
            if size > _MAX_HEAD:
                self.close()
                raise HttpError("an answer head too long")
            if not line:
                break
            i = line.find(b":")
            if i > 0:
                headers[line[:i].strip().lower().decode()] = line[i + 1:].strip().decode()
        if headers.get("connection", "").lower() == "close":
            self.closed = True  # no keep-alive: open again for the next request
        try:
            status = int(parts[1])
        except ValueError:
            self.close()
            raise HttpError("not an HTTP answer")
        return Response(self, status, headers)

    def buffered(self):
        return len(self.buf)

    def _fill(self):
        """Read what the socket has; None on a timeout, b"" when the server closed."""
        try:
            # recv, not read: MicroPython's read(n) waits for all n bytes; recv (its read1) returns
            # what one TLS record gave, as CPython's recv does.
            data = self.tls.recv(1024)
        except Exception as e:  # noqa: BLE001
            if timed_out(e):
                return None
            self.close()
            raise HttpError("the connection failed (%s)" % _words(e))
        if data is None:
            return None  # MicroPython's non-blocking read with nothing yet
        return data

    def read_line(self, wait=False):
        """A line without its CRLF; None when it is not all here within the timeout (unless wait:
        then a timeout is a stalled server, HttpError)."""
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 1:]
                return line[:-1] if line.endswith(b"\r") else line
            if len(self.buf) > _MAX_HEAD:
                self.close()
                raise HttpError("a line too long")
            data = self._fill()
            if data is None:
                if wait:
                    self.close()
                    raise HttpError("no answer from %s (stalled)" % self.host)
                return None
            if not data:
                self.close()
                raise HttpError("the server closed the connection")
            self.buf += data

    def read_raw(self, n):
        """Up to n bytes: what is buffered first. None on a timeout, b"" at the connection's end."""
        if self.buf:
            data, self.buf = self.buf[:n], self.buf[n:]
            return data
        data = self._fill()
        if data is None or not data:
            return data
        if len(data) > n:
            data, self.buf = data[:n], data[n:]
        return data


def _words(e):
    if isinstance(e, OSError) and e.args:
        return "error %s" % (e.args[0],)
    return type(e).__name__
