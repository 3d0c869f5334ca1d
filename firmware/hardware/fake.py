# Fakes of machine.Pin, SPI, NeoPixel, a MAX7219 and the reed matrix, for the tests and the simulators.
#
# The host tests and the browser simulator (MicroPython WebAssembly) hand these to the real
# drivers (hardware/matrix.py, ws2812.py, max7219.py) in place of the Pico's objects, so this
# module imports nothing from machine and runs on CPython and MicroPython alike. The fakes
# behave electrically, not just by recording calls: VirtualReedMatrix answers a column read with
# exactly what the wires would show for the rows the scanner currently pulls low, FakeMax7219
# shifts and latches SPI words like the chip. Their hot paths (a pin write, a column read, an SPI
# write) allocate nothing, so the drivers' zero-allocation tests can run over them.
from micropython import const

_SQUARES = const(64)


class FakePin:
    """machine.Pin with the rp2 port's constants; value() reads `reader(pin)` when one is given.

    `listener(pin)` is called after every change of the output value (the fake matrix and the
    fake MAX7219 use it to see a row being selected or CS rising)."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id=None, mode=-1, pull=-1, value=None, reader=None):
        self.id = id
        self.mode = FakePin.IN
        self.pull = None
        self._value = 1
        self.reader = reader
        self.listener = None
        self.changes = 0  # output value changes, for tests
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self.reader is not None:
                return self.reader(self)
            return self._value
        v = 1 if v else 0
        if v != self._value:
            self._value = v
            self.changes += 1
            if self.listener is not None:
                self.listener(self)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)

    def driven_low(self):
        # An output (push-pull or open-drain) writing 0 sinks current; anything else floats or drives high.
        return self._value == 0 and (self.mode == FakePin.OUT or self.mode == FakePin.OPEN_DRAIN)

    def __repr__(self):
        return "FakePin(%r, mode=%d, value=%d)" % (self.id, self.mode, self._value)


class FakeSPI:
    """machine.SPI: write(), readinto(), write_readinto(), read().

    MISO comes from `device` (an object with shift(byte) -> byte, e.g. FakeMax7219) or, with no
    device, is the constant `miso_idle`: 0x00 or 0xFF is what a line with nothing driving it
    reads through a pull-down or pull-up - the case MAX7219 self_test() must catch.
    With record=True every write is also kept in self.log as bytes (allocates; tests only)."""

    def __init__(self, device=None, miso_idle=0x00, record=False):
        self.device = device
        self.miso_idle = miso_idle
        self.log = [] if record else None
        self.bytes_out = 0  # bytes clocked out so far

    def _shift(self, b):
        self.bytes_out += 1
        if self.device is not None:
            return self.device.shift(b)
        return self.miso_idle

    def write(self, buf):
        for b in buf:
            self._shift(b)
        if self.log is not None:
            self.log.append(bytes(buf))

    def write_readinto(self, out, into):
        for i in range(len(out)):
            into[i] = self._shift(out[i])
        if self.log is not None:
            self.log.append(bytes(out))

    def readinto(self, buf, write=0x00):
        for i in range(len(buf)):
            buf[i] = self._shift(write)

    def read(self, n, write=0x00):
        buf = bytearray(n)
        self.readinto(buf, write)
        return bytes(buf)


class FakeMax7219:
    """A MAX7219 on a FakeSPI: a 16-bit shift register latched into its registers when CS rises.

    DOUT gives back what was shifted in 16 clocks earlier (the daisy-chain output), so a word
    followed by a no-op word reads the first word back on MISO. Registers as in the datasheet:
    1-8 digit (row) data, 9 decode mode, 10 intensity, 11 scan limit, 12 shutdown, 15 display test.
    Words written while CS is high are shifted but never latched, as on the chip."""

    def __init__(self, cs):
        self.cs = cs
        cs.listener = self._cs_changed
        self.registers = bytearray(16)  # power-up: all control registers 0 = shutdown, as the chip
        self.latches = 0  # words latched, for tests
        self._shift = 0

    def shift(self, b):
        out = self._shift >> 8
        self._shift = ((self._shift << 8) | b) & 0xFFFF
        return out

    def _cs_changed(self, pin):
        if pin._value == 1:  # rising edge: LOAD latches the last 16 bits shifted in
            address = (self._shift >> 8) & 0x0F
            self.registers[address] = self._shift & 0xFF
            self.latches += 1

    def row(self, rank):
        return self.registers[1 + rank]

    def lit(self):
        """bytearray(8) of the rows the chip displays (all dark in shutdown or above the scan limit)."""
        out = bytearray(8)
        if self.registers[15] & 1:  # display test: every LED on
            for r in range(8):
                out[r] = 0xFF
            return out
        if not self.registers[12] & 1:
            return out
        for r in range(self.registers[11] % 8 + 1):
            out[r] = self.registers[1 + r]
        return out


class FakeNeoPixel:
    """neopixel.NeoPixel: buf in the strip's byte order (GRB for a WS2812B), ORDER, n, bpp, write().

    write() copies buf to self.shown - what the LEDs display - and counts the writes."""

    ORDER = (1, 0, 2, 3)  # as MicroPython's driver: red goes to byte 1, green to 0, blue to 2

    def __init__(self, pin=None, n=_SQUARES, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.shown = bytearray(n * bpp)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, index, val):
        offset = index * self.bpp
        for i in range(self.bpp):
            self.buf[offset + self.ORDER[i]] = val[i]

    def __getitem__(self, index):
        offset = index * self.bpp
        return tuple(self.buf[offset + self.ORDER[i]] for i in range(self.bpp))

    def fill(self, val):
        for i in range(self.n):
            self[i] = val

    def write(self):
        self.shown[:] = self.buf
        self.writes += 1

    def pixel(self, index):
        """(r, g, b) the LED at `index` in the chain shows since the last write()."""
        offset = index * self.bpp
        o = self.ORDER
        s = self.shown
        return (s[offset + o[0]], s[offset + o[1]], s[offset + o[2]])


class FakeMem32:
    """machine.mem32 for GPIO_IN and, when pads_addr is given, the 30 GPIO pad registers.

    Reading `address` returns `read()` shifted to `base`; other GPIOs read as `others` (bits
    outside the columns), so a scanner that forgets to mask them is caught. The pad register of
    GPIO n sits at pads_addr + 4 + 4*n, starts at the chip's reset value 0x56 (input enabled, 4 mA,
    pull-down, Schmitt trigger) and keeps the 8 bits the chip has (pads[n]). Any other address
    raises ValueError: a wrong address in config shows at once."""

    def __init__(self, address, base, read, others=0, pads_addr=None):
        self.address = address
        self.base = base
        self._read = read
        self.others = others
        self.reads = 0
        self.pads_addr = pads_addr
        self.pads = bytearray(b"\x56" * 30)

    def _pad(self, address):
        if self.pads_addr is not None and self.pads_addr + 4 <= address < self.pads_addr + 124 and not address & 3:
            return (address - self.pads_addr - 4) >> 2
        raise ValueError("fake mem32 models GPIO_IN and the GPIO pads only, not 0x%08x" % address)

    def __getitem__(self, address):
        if address != self.address:
            return self.pads[self._pad(address)]
        self.reads += 1
        return self.others | (self._read() << self.base)

    def __setitem__(self, address, value):
        self.pads[self._pad(address)] = value & 0xFF


class VirtualReedMatrix:
    """The board's 8x8 reed-switch matrix, electrically: rows driven low, columns pulled up.

    A test or the simulator puts pieces on squares (place/lift); the scanner drives `rows` (8
    open-drain FakePins: rows[r] = rank r+1) and reads the columns through read_columns(),
    `columns` (8 input FakePins, columns[f] = file a+f) or `mem32` (a FakeMem32 at gpio_in_addr,
    columns on GPIO column_base .. column_base+7). A column reads low (0) when a closed switch
    connects it to a row that is driven low, high (1) otherwise.

    With diodes=True (the board's design) current only flows column -> switch -> diode -> row, so
    a column sees exactly the switches of the driven rows. With diodes=False three closed corners
    of a rectangle also pull the fourth corner's column low through a sneak path (ghosting).

    Imperfections to test the firmware against:
    - bounce: place(sq, bounce_ms=N) / lift(sq, bounce_ms=N) make the contact toggle every
      millisecond of self.now_ms for N ms before it rests in the new state;
    - settling: with settle_us > 0 a column read fewer than settle_us microseconds (counted by
      this object's sleep_us) after a row changed, within the same now_ms, still shows the
      previous reading, as a pulled-up column recovering through its RC would;
    - stuck_low: a bit mask of columns shorted to ground (they read 0 whatever the rows do)."""

    def __init__(self, column_base=0, gpio_in_addr=0, diodes=True, settle_us=0, others=0):
        self.rows = [FakePin(("row", r), FakePin.OPEN_DRAIN, value=1) for r in range(8)]
        for pin in self.rows:
            pin.listener = self._row_changed
        self.columns = [
            FakePin(("column", f), FakePin.IN, FakePin.PULL_UP, reader=self._column_reader) for f in range(8)
        ]
        for f in range(8):
            self.columns[f].file = f
        self.mem32 = FakeMem32(gpio_in_addr, column_base, self.read_columns, others)
        self.diodes = diodes
        self.settle_us = settle_us
        self.stuck_low = 0
        self.now_ms = 0
        self.reads = 0
        self._rank_bits = bytearray(8)  # resting state: bit f of byte r = switch at rank r+1, file f closed
        self._bounce_start = [0] * _SQUARES
        self._bounce_end = [0] * _SQUARES
        self._bouncing = 0
        self._waited_us = 0
        self._changed_ms = -1  # now_ms of the last row change
        self._last_levels = 0xFF

    # -- the pieces -----------------------------------------------------------------------

    def place(self, sq, bounce_ms=0):
        self._set(sq, 1, bounce_ms)

    def lift(self, sq, bounce_ms=0):
        self._set(sq, 0, bounce_ms)

    def set_occupancy(self, occupied):
        """Lay out a whole board at once: `occupied` is 64 truthy/falsy values, index 0 = a1."""
        for sq in range(_SQUARES):
            self._set(sq, 1 if occupied[sq] else 0, 0)

    def occupied(self, sq):
        return (self._rank_bits[sq >> 3] >> (sq & 7)) & 1

    def _set(self, sq, closed, bounce_ms):
        r = sq >> 3
        bit = 1 << (sq & 7)
        if closed:
            self._rank_bits[r] |= bit
        else:
            self._rank_bits[r] &= ~bit & 0xFF
        if bounce_ms > 0:
            if self._bounce_end[sq] == 0:
                self._bouncing += 1
            self._bounce_start[sq] = self.now_ms
            self._bounce_end[sq] = self.now_ms + bounce_ms

    def _closed(self, r):
        # Closed switches of rank r right now, bounce included.
        bits = self._rank_bits[r]
        if self._bouncing:
            now = self.now_ms
            for f in range(8):
                sq = 8 * r + f
                end = self._bounce_end[sq]
                if end:
                    if now >= end:
                        self._bounce_end[sq] = 0
                        self._bouncing -= 1
                    elif (now - self._bounce_start[sq]) & 1:
                        bits ^= 1 << f  # an odd millisecond into the bounce: contact off its rest state
        return bits

    # -- the wires ------------------------------------------------------------------------

    def _row_changed(self, pin):
        self._changed_ms = self.now_ms
        self._waited_us = 0

    def sleep_us(self, us):
        """Pass as the scanner's sleep_us: counts the settle time instead of waiting."""
        self._waited_us += us

    def levels(self):
        """Column levels as the wires are now: bit f = 1 when file f's column is high."""
        driven = 0
        for r in range(8):
            if self.rows[r].driven_low():
                driven |= 1 << r
        low = self.stuck_low
        if driven:
            if self.diodes:
                for r in range(8):
                    if (driven >> r) & 1:
                        low |= self._closed(r)
            else:
                # No diodes: a low row pulls its closed columns low, and those columns pull every
                # row they touch through its closed switches, and so on until nothing new is reached.
                rows = driven
                cols = 0
                grew = True
                while grew:
                    grew = False
                    for r in range(8):
                        c = self._closed(r)
                        if (rows >> r) & 1:
                            if c & ~cols:
                                cols |= c
                                grew = True
                        elif c & cols:
                            rows |= 1 << r
                            grew = True
                low |= cols
        return ~low & 0xFF

    def read_columns(self):
        """The 8 column levels in one read (like GPIO_IN): bit f = file f, 1 = high = no switch closed."""
        self.reads += 1
        if self.settle_us and self._changed_ms == self.now_ms and self._waited_us < self.settle_us:
            return self._last_levels  # read too soon after a row change: the column has not moved yet
        self._last_levels = self.levels()
        return self._last_levels

    def _column_reader(self, pin):
        return (self.read_columns() >> pin.file) & 1

    def expected_scan(self):
        """bytearray(64): what a correct scanner must report now (diodes: exactly the closed switches)."""
        out = bytearray(_SQUARES)
        for r in range(8):
            bits = self._closed(r)
            for f in range(8):
                out[8 * r + f] = (bits >> f) & 1
        return out


class _Namespace:
    """A module stand-in: attributes only (MicroPython has no types.ModuleType)."""


class _PinMaker:
    """machine.Pin as wiring.py calls it: the virtual matrix's row and column pins for their GPIOs,
    a FakePin for any other; records how each GPIO was set up."""

    IN = FakePin.IN
    OUT = FakePin.OUT
    OPEN_DRAIN = FakePin.OPEN_DRAIN
    PULL_UP = FakePin.PULL_UP
    PULL_DOWN = FakePin.PULL_DOWN

    def __init__(self, pico):
        self._pico = pico

    def __call__(self, id, mode=-1, pull=-1, value=None):
        pico = self._pico
        pico.made[id] = (mode, pull, value)
        if id in pico.row_gpios:
            pin = pico.vm.rows[pico.row_gpios.index(id)]
        elif id in pico.column_gpios:
            pin = pico.vm.columns[pico.column_gpios.index(id)]
        else:
            pin = pico.others.get(id)
            if pin is None:
                pin = pico.others[id] = FakePin(id)
        pin.init(mode, pull, value=value)
        return pin


class FakePico:
    """The `machine` and `neopixel` modules wiring.py builds the board from, wired to one
    VirtualReedMatrix (rows and columns on the given GPIOs, GPIO_IN at gpio_in_addr) and, on the
    SPI bus, a MAX7219 that answers its self-test or none. Tests and benchmarks hand
    pico.machine and pico.neopixel to wiring.build(); what wiring.py asked for is recorded."""

    def __init__(
        self, row_gpios, column_gpios, gpio_in_addr, occupied=(), max7219_answers=True, cs_gpio=None, pads_addr=None
    ):
        self.row_gpios = list(row_gpios)
        self.column_gpios = list(column_gpios)
        self.vm = VirtualReedMatrix(column_base=self.column_gpios[0], gpio_in_addr=gpio_in_addr)
        if pads_addr is None:
            import config

            pads_addr = config.PADS_BANK0_RP2040  # an RP2040, as hardware/pico.py finds it off the Pico
        self.vm.mem32.pads_addr = pads_addr
        for sq in occupied:
            self.vm.place(sq)
        self.made = {}  # GPIO -> (mode, pull, value) as wiring.py set it up
        self.others = {}  # GPIO -> FakePin, for the pins that are not the matrix's
        self.np = None  # the NeoPixel wiring.py made, if any
        self.spi_args = None  # (id, baudrate, polarity, phase, sck, mosi, miso) of machine.SPI()
        cs = None
        if cs_gpio is not None:
            cs = self.others[cs_gpio] = FakePin(cs_gpio)
        self.chip = FakeMax7219(cs) if (max7219_answers and cs is not None) else None
        self.machine = _Namespace()
        self.machine.Pin = _PinMaker(self)
        self.machine.SPI = self._spi
        self.machine.mem32 = self.vm.mem32
        self.neopixel = _Namespace()
        self.neopixel.NeoPixel = self._neopixel

    def _spi(self, id, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None, miso=None):
        self.spi_args = (id, baudrate, polarity, phase, sck, mosi, miso)
        return FakeSPI(device=self.chip)

    def _neopixel(self, pin, n):
        self.np = FakeNeoPixel(pin, n)
        return self.np


class RamFiles:
    """The saved game's filesystem in RAM (store.GameStore's fs), for benches and fuzzers: the CPU
    cost of a save without the flash's. What a file is written with ("wb", or "ab" to append)
    appears when it is closed, as littlefs commits a file's data at close."""

    def __init__(self):
        self.files = {}
        self.dirs = set()

    def open(self, path, mode):
        if "r" in mode:
            if path not in self.files:
                raise OSError(2, "ENOENT")
            return _RamFile(self, path, self.files[path])
        return _RamFile(self, path, None, self.files.get(path, b"") if "a" in mode else b"")

    def rename(self, old, new):
        self.files[new] = self.files.pop(old)

    def remove(self, path):
        del self.files[path]

    def mkdir(self, path):
        if path in self.dirs:
            raise OSError(17, "EEXIST")
        self.dirs.add(path)


class _RamFile:
    def __init__(self, fs, path, data=None, before=b""):
        self._fs = fs
        self._path = path
        self._data = data
        self._parts = [before]

    def write(self, b):
        self._parts.append(bytes(b))
        return len(b)

    def read(self, n=-1):
        return self._data if n < 0 else self._data[:n]

    def close(self):
        if self._data is None:
            self._fs.files[self._path] = b"".join(self._parts)


class FakeRadio:
    """MicroPython's bluetooth.BLE as a script drives it (no radio traffic: host_tests/helpers/ble_adapter.py
    puts the same API on a real BLE stack): event() and write() play the stack's interrupts, and
    what the firmware asked of the radio is recorded."""

    def __init__(self):
        self.handler = None
        self.on = False
        self.values = {}
        self.notified = []  # (conn, handle, bytes)
        self.advertising = None
        self.refuse_advertising = 0  # how many more gap_advertise() calls raise OSError (tests)
        self.disconnected = []
        self.mtu_asked = []
        self.calls_in_irq = 0  # radio calls other than gatts_read made from inside the handler
        self._in_irq = False

    def active(self, on=None):
        if on is not None:
            self.on = on
        return self.on

    def config(self, **kw):
        pass

    def irq(self, handler):
        self.handler = handler

    def gatts_register_services(self, table):
        out = []
        handle = 10
        for _uuid, chars in table:
            handles = []
            for _c in chars:
                handles.append(handle)
                self.values[handle] = b""
                handle += 2
            out.append(tuple(handles))
        return tuple(out)

    def gatts_set_buffer(self, handle, size, append=False):
        pass

    def gatts_read(self, handle):
        return self.values[handle]

    def gatts_notify(self, conn, handle, data):
        self._note()
        self.notified.append((conn, handle, bytes(data)))

    def gap_advertise(self, interval, adv_data=None, resp_data=None, connectable=True):
        self._note()
        if interval is not None and self.refuse_advertising > 0:
            self.refuse_advertising -= 1  # a stack that is busy: MicroPython raises OSError
            raise OSError(16)
        self.advertising = None if interval is None else adv_data

    def gap_disconnect(self, conn):
        self._note()
        self.disconnected.append(conn)

    def gattc_exchange_mtu(self, conn):
        self._note()
        self.mtu_asked.append(conn)

    def _note(self):
        if self._in_irq:
            self.calls_in_irq += 1

    # the script: what the stack would report
    def event(self, code, data):
        self._in_irq = True
        try:
            self.handler(code, data)
        finally:
            self._in_irq = False

    def write(self, conn, handle, data):
        self.values[handle] = data
        self.event(3, (conn, handle))  # _IRQ_GATTS_WRITE


class FakeBluetooth:
    """Stands for MicroPython's `bluetooth` module: BLE() is the one FakeRadio."""

    def __init__(self):
        self.radio = FakeRadio()

    def BLE(self):  # noqa: N802 - MicroPython's name
        return self.radio

    def UUID(self, text):  # noqa: N802 - MicroPython's name
        return text
