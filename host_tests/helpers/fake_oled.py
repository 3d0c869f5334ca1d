# A fake I2C bus with an SSD1306 OLED on it, for host_tests/test_clock.py: it decodes what
# firmware/hardware/ssd1306.py sends and reads the picture back (CPython only: the firmware's own
# fakes in hardware/fake.py must stay small enough to compile on a 320 kB MicroPython heap).


class FakeSsd1306Bus:
    """An I2C bus with an SSD1306 on it that decodes what the firmware sends: the commands it
    understands (hardware/ssd1306.py's set) and the data written into its 128x8-page RAM through
    the column and page window, in horizontal addressing mode. pixel(x, y) and text(...) read the
    picture back; a write to another address raises OSError, as machine.I2C does (ENODEV)."""

    def __init__(self, address=0x3C):
        self.address = address
        self.ram = bytearray(128 * 8)
        self.on = False
        self.charge_pump = False
        self.horizontal = False
        self.window = [0, 127, 0, 7]
        self.col = 0
        self.page = 0
        self.transfers = 0
        self.data_bytes = 0

    # The command bytes that take arguments, and how many.
    _ARGS = {0xD5: 1, 0xA8: 1, 0xD3: 1, 0x8D: 1, 0x20: 1, 0xDA: 1, 0x81: 1, 0xD9: 1, 0xDB: 1, 0x21: 2, 0x22: 2}

    def writeto(self, address, buf):
        if address != self.address:
            raise OSError(19, "no device at 0x%02x" % address)
        buf = bytes(buf)
        self.transfers += 1
        control = buf[0]
        if control == 0x40:
            for b in buf[1:]:
                self._data(b)
            return
        if control != 0x00:
            raise ValueError("control byte 0x%02x: this fake takes command runs (0x00) and data runs (0x40)" % control)
        i = 1
        while i < len(buf):
            cmd = buf[i]
            n = self._ARGS.get(cmd, 0)
            args = buf[i + 1 : i + 1 + n]
            if len(args) != n:
                raise ValueError("command 0x%02x cut short" % cmd)
            i += 1 + n
            if cmd == 0xAF:
                self.on = True
            elif cmd == 0xAE:
                self.on = False
            elif cmd == 0x8D:
                self.charge_pump = args[0] == 0x14
            elif cmd == 0x20:
                self.horizontal = args[0] == 0
            elif cmd == 0x21:
                self.window[0:2] = list(args)
                self.col = args[0]
            elif cmd == 0x22:
                self.window[2:4] = list(args)
                self.page = args[0]

    def _data(self, b):
        if not self.horizontal:
            raise ValueError("data before horizontal addressing was set")
        self.data_bytes += 1
        self.ram[self.page * 128 + self.col] = b
        if self.col < self.window[1]:
            self.col += 1
        else:
            self.col = self.window[0]
            self.page = self.window[2] if self.page >= self.window[3] else self.page + 1

    def pixel(self, x, y):
        return (self.ram[(y >> 3) * 128 + x] >> (y & 7)) & 1

    def rows(self, y0=0, y1=64):
        """The picture as strings of '#' and '.', for messages."""
        return ["".join("#" if self.pixel(x, y) else "." for x in range(128)) for y in range(y0, y1)]

    def text(self, y0, y1, font_chars, font, scale, x_from=0):
        """Read the characters drawn in rows y0..y1 (columns from x_from) at `scale` with a 5x7 font
        (7 row bytes a glyph); '' for a blank area. The glyph grid starts on the topmost lit row and
        at the first column, at or up to four glyph columns left of the leftmost lit pixel, where
        every cell is a glyph of the font."""
        lit = [(x, y) for y in range(y0, y1) for x in range(x_from, 128) if self.pixel(x, y)]
        if not lit:
            return ""
        top = min(y for x, y in lit)
        left = min(x for x, y in lit)
        right = max(x for x, y in lit)
        for x0 in range(max(x_from, left - 4 * scale), left + 1):
            out = self._decode(x0, top, right, font_chars, font, scale)
            if out is not None:
                return out.rstrip()
        raise AssertionError("no text in the font here:\n" + "\n".join(self.rows(y0, y1)))

    def _decode(self, x, top, right, font_chars, font, scale):
        out = ""
        while x <= right:
            rows = []
            for r in range(7):
                bits = 0
                for c in range(5):
                    px = x + c * scale
                    if px < 128 and top + r * scale < 64 and self.pixel(px, top + r * scale):
                        bits |= 0x10 >> c
                rows.append(bits)
            for i in range(len(font_chars)):
                if list(font[7 * i : 7 * i + 7]) == rows:
                    out += font_chars[i]
                    break
            else:
                return None
            x += 6 * scale
        return out
