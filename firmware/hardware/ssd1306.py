# A 128x64 SSD1306 OLED on I2C: the board's optional clock display (docs/clock.md, hardware/oled.md).
#
# The display keeps its own picture (GDDRAM: 8 pages of 8 pixel rows, one byte per column per page,
# bit 0 the top row of the page), so the firmware writes only what changed. A whole picture is
# 1 KB, about 25 ms at 400 kHz: far too long for the 4 ms scan loop. So drawing happens in a frame
# buffer here, each 32-column piece of a page that changed is marked, and step() sends at most one
# such piece a call (33 data bytes and 7 command bytes, under 1 ms at 400 kHz): App-side code calls
# it once a scan, and the picture reaches the display within a few scans.
#
# The SSD1306 commands used (Solomon Systech SSD1306 datasheet, section 9): display off/on (0xAE,
# 0xAF), clock divide (0xD5), multiplex ratio (0xA8), display offset (0xD3), start line (0x40),
# charge pump (0x8D, 0x14: on, from the 3.3 V supply), memory addressing mode (0x20, 0: horizontal),
# segment remap (0xA1) and COM scan direction (0xC8) for a module mounted pins up, COM pins
# configuration (0xDA, 0x12), contrast (0x81), pre-charge (0xD9), VCOMH level (0xDB), display from
# RAM (0xA4), normal (not inverted) display (0xA6), column and page address windows (0x21, 0x22).
# Every I2C write starts with a control byte: 0x00 for a run of commands, 0x40 for a run of data.
#
# i2c: anything with writeto(address, buffer), machine.I2C on the Pico, a fake in the tests.
from micropython import const

ADDRESS = const(0x3C)  # the address of nearly every module (0x3D with its address jumper moved)
WIDTH = const(128)
HEIGHT = const(64)
PAGES = const(8)
CHUNK = const(32)  # columns sent per step()
_CHUNKS = const(32)  # PAGES * WIDTH // CHUNK
CONTROL_COMMANDS = const(0x00)
CONTROL_DATA = const(0x40)

INIT = bytes(
    (
        CONTROL_COMMANDS,
        0xAE,  # display off while it is set up
        0xD5, 0x80,  # clock: the reset divide ratio and oscillator
        0xA8, 0x3F,  # 64 rows
        0xD3, 0x00,  # no vertical offset
        0x40,  # start at RAM row 0
        0x8D, 0x14,  # charge pump on: the panel's high voltage from 3.3 V
        0x20, 0x00,  # horizontal addressing: data fills a window column by column, page by page
        0xA1,  # column 127 at the left: with 0xC8 the picture is upright, header pins at the top
        0xC8,
        0xDA, 0x12,  # COM pins: alternative configuration, as 128x64 modules are wired
        0x81, 0x7F,  # contrast: middle
        0xD9, 0xF1,  # pre-charge for the charge pump
        0xDB, 0x40,  # VCOMH
        0xA4,  # show the RAM
        0xA6,  # not inverted
        0xAF,  # display on
    )
)  # fmt: skip

# A 5x7 font, 7 row bytes a glyph (bit 4 the left column), drawn for this board: digits and the
# clock's signs, the capitals for messages (lower case is shown as capitals). FONT_CHARS[i] is
# glyph i; a character not in it shows as '?'.
FONT_CHARS = " 0123456789:.-+/!?,'ABCDEFGHIJKLMNOPQRSTUVWXYZ"
FONT = (
    b"\x00\x00\x00\x00\x00\x00\x00"  # ' '
    b"\x0e\x11\x13\x15\x19\x11\x0e"  # '0'
    b"\x04\x0c\x04\x04\x04\x04\x0e"  # '1'
    b"\x0e\x11\x01\x02\x04\x08\x1f"  # '2'
    b"\x1f\x02\x04\x02\x01\x11\x0e"  # '3'
    b"\x02\x06\x0a\x12\x1f\x02\x02"  # '4'
    b"\x1f\x10\x1e\x01\x01\x11\x0e"  # '5'
    b"\x06\x08\x10\x1e\x11\x11\x0e"  # '6'
    b"\x1f\x01\x02\x04\x08\x08\x08"  # '7'
    b"\x0e\x11\x11\x0e\x11\x11\x0e"  # '8'
    b"\x0e\x11\x11\x0f\x01\x02\x0c"  # '9'
    b"\x00\x0c\x0c\x00\x0c\x0c\x00"  # ':'
    b"\x00\x00\x00\x00\x00\x0c\x0c"  # '.'
    b"\x00\x00\x00\x1f\x00\x00\x00"  # '-'
    b"\x00\x04\x04\x1f\x04\x04\x00"  # '+'
    b"\x01\x02\x02\x04\x08\x08\x10"  # '/'
    b"\x04\x04\x04\x04\x04\x00\x04"  # '!'
    b"\x0e\x11\x01\x02\x04\x00\x04"  # '?'
    b"\x00\x00\x00\x00\x0c\x04\x08"  # ','
    b"\x0c\x04\x08\x00\x00\x00\x00"  # "'"
    b"\x0e\x11\x11\x1f\x11\x11\x11"  # 'A'
    b"\x1e\x11\x11\x1e\x11\x11\x1e"  # 'B'
    b"\x0e\x11\x10\x10\x10\x11\x0e"  # 'C'
    b"\x1c\x12\x11\x11\x11\x12\x1c"  # 'D'
    b"\x1f\x10\x10\x1e\x10\x10\x1f"  # 'E'
    b"\x1f\x10\x10\x1e\x10\x10\x10"  # 'F'
    b"\x0e\x11\x10\x17\x11\x11\x0f"  # 'G'
    b"\x11\x11\x11\x1f\x11\x11\x11"  # 'H'
    b"\x0e\x04\x04\x04\x04\x04\x0e"  # 'I'
    b"\x07\x02\x02\x02\x02\x12\x0c"  # 'J'
    b"\x11\x12\x14\x18\x14\x12\x11"  # 'K'
    b"\x10\x10\x10\x10\x10\x10\x1f"  # 'L'
    b"\x11\x1b\x15\x15\x11\x11\x11"  # 'M'
    b"\x11\x11\x19\x15\x13\x11\x11"  # 'N'
    b"\x0e\x11\x11\x11\x11\x11\x0e"  # 'O'
    b"\x1e\x11\x11\x1e\x10\x10\x10"  # 'P'
    b"\x0e\x11\x11\x11\x15\x12\x0d"  # 'Q'
    b"\x1e\x11\x11\x1e\x14\x12\x11"  # 'R'
    b"\x0f\x10\x10\x0e\x01\x01\x1e"  # 'S'
    b"\x1f\x04\x04\x04\x04\x04\x04"  # 'T'
    b"\x11\x11\x11\x11\x11\x11\x0e"  # 'U'
    b"\x11\x11\x11\x11\x11\x0a\x04"  # 'V'
    b"\x11\x11\x11\x15\x15\x15\x0a"  # 'W'
    b"\x11\x11\x0a\x04\x0a\x11\x11"  # 'X'
    b"\x11\x11\x0a\x04\x04\x04\x04"  # 'Y'
    b"\x1f\x01\x02\x04\x08\x10\x1f"  # 'Z'
)
GLYPH_W = const(5)
GLYPH_H = const(7)


def glyph_index(ch):
    i = FONT_CHARS.find(ch.upper())
    return i if i >= 0 else FONT_CHARS.index("?")


class Ssd1306:
    """The frame buffer and the piecewise transfer; draw with clear/fill/text, then call step()
    until it returns False (or once a scan)."""

    def __init__(self, i2c, address=ADDRESS):
        self.i2c = i2c
        self.address = address
        self.buffer = bytearray(PAGES * WIDTH)  # page-major: byte x + 128 * page, bit = row & 7
        self.dirty = bytearray(_CHUNKS)  # 1: that 32-column piece of a page differs from the display
        self._data = bytearray(1 + CHUNK)
        self._data[0] = CONTROL_DATA
        self._window = bytearray(7)  # control byte, 0x21 first last, 0x22 page page
        self._window[0] = CONTROL_COMMANDS
        self._window[1] = 0x21
        self._window[4] = 0x22
        self._next = 0  # the piece step() looks at first
        self.writes = 0  # I2C transfers made, for tests and the bench

    def init(self):
        """Set the panel up and mark the whole (blank) picture to be sent. Raises OSError when no
        display answers at the address (the caller then runs without one)."""
        self.i2c.writeto(self.address, INIT)
        self.writes += 1
        for i in range(_CHUNKS):
            self.dirty[i] = 1

    def fill_rect(self, x, y, w, h, on):
        """Set (on) or clear the pixels of a rectangle, clipped to the screen: a page at a time,
        a byte a column (a whole clock face is about 300 byte operations, 1-2 ms on the Pico)."""
        buf = self.buffer
        x1 = min(x + w, WIDTH)
        y1 = min(y + h, HEIGHT)
        x = max(x, 0)
        y = max(y, 0)
        if x >= x1 or y >= y1:
            return
        for page in range(y >> 3, ((y1 - 1) >> 3) + 1):
            top = max(y, page * 8) & 7
            bottom = min(y1, page * 8 + 8) - page * 8  # rows top..bottom-1 of this page
            mask = ((1 << bottom) - 1) ^ ((1 << top) - 1)
            base = page * WIDTH
            if on:
                for col in range(base + x, base + x1):
                    buf[col] |= mask
            else:
                keep = 0xFF ^ mask
                for col in range(base + x, base + x1):
                    buf[col] &= keep
        self._mark(x, y, x1 - x, y1 - y)

    def clear(self):
        self.fill_rect(0, 0, WIDTH, HEIGHT, False)

    def text(self, x, y, s, scale=1):
        """Draw s at (x, y) (y from 0; what is under it is kept: clear the area first), each glyph
        5x7 pixels times scale with one scaled column between. Returns the x after the text."""
        buf = self.buffer
        x0 = x
        for ch in s:
            g = glyph_index(ch) * GLYPH_H
            for c in range(GLYPH_W):
                # The glyph's column c, scaled down the screen: bit r*scale.. of `column` per row r.
                column = 0
                for r in range(GLYPH_H):
                    if FONT[g + r] & (0x10 >> c):
                        column |= ((1 << scale) - 1) << (r * scale)
                if not column:
                    continue
                column <<= y & 7
                for dx in range(scale):
                    col = x + c * scale + dx
                    if col < 0 or col >= WIDTH:
                        continue
                    v = column
                    page = y >> 3
                    while v and page < PAGES:
                        buf[page * WIDTH + col] |= v & 0xFF
                        v >>= 8
                        page += 1
            x += (GLYPH_W + 1) * scale
        self._mark(x0, y, x - x0, GLYPH_H * scale)
        return x

    def _mark(self, x, y, w, h):
        if w <= 0 or h <= 0:
            return
        for page in range(y >> 3, ((y + h - 1) >> 3) + 1):
            for piece in range(x // CHUNK, (x + w - 1) // CHUNK + 1):
                self.dirty[page * (WIDTH // CHUNK) + piece] = 1

    def busy(self):
        """Is part of the picture still to be sent?"""
        return b"\x01" in self.dirty  # one C-level search

    def step(self):
        """Send the next piece that changed, if any; returns whether one was sent."""
        dirty = self.dirty
        if b"\x01" not in dirty:
            return False  # the common case, every scan: one C-level search, no loop
        n = self._next
        for _ in range(_CHUNKS):
            if dirty[n]:
                dirty[n] = 0
                self._next = (n + 1) % _CHUNKS
                self._send(n)
                return True
            n = (n + 1) % _CHUNKS
        return False

    def flush(self):
        """Send everything that changed now (at start-up, not in the scan loop)."""
        while self.step():
            pass

    def _send(self, n):
        per_page = WIDTH // CHUNK
        page = n // per_page
        first = (n % per_page) * CHUNK
        w = self._window
        w[2] = first
        w[3] = first + CHUNK - 1
        w[5] = page
        w[6] = page
        self.i2c.writeto(self.address, w)
        start = page * WIDTH + first
        data = self._data
        buf = self.buffer
        for i in range(CHUNK):
            data[1 + i] = buf[start + i]
        self.i2c.writeto(self.address, data)
        self.writes += 2
