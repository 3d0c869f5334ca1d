# The reed-switch matrix scanner: pulls one rank's row low at a time and reads all 8 file columns at once.
#
# Wiring (hardware/schematic.md): 8 row lines, one per rank, on open-drain outputs that idle
# released (high impedance); 8 column lines, one per file, inputs with pull-ups. Each square has
# a reed switch in series with a diode from its file's column to its rank's row. Selecting a row
# (driving it low) lets every closed switch on that rank pull its column low through the diode;
# the diodes stop current flowing back through other rows, so three pieces on the corners of a
# rectangle cannot make the fourth corner read occupied (no ghosting with 32 pieces on the board).
#
# Map: rows[r] drives rank r+1 and column bit f reads file "abcdefgh"[f], so the switch at
# (r, f) is square 8*r + f (a1 = 0, h1 = 7, a8 = 56, h8 = 63), as in config.py.
#
# The columns are read either by one load of the RP2040's SIO GPIO_IN register, which holds the
# input level of every GPIO (config.SIO_GPIO_IN; the 8 columns sit on consecutive GPIOs from
# column_base), or by any read_columns() callable returning the 8 levels with file a in bit 0 -
# the way the tests and simulators plug in hardware/fake.py's VirtualReedMatrix. On the Pico a
# ranks_reader (hardware/matrix_sio.py, native code on the SIO registers) does the whole
# row loop at once: the Python loop below costs a scan's whole CPU budget on an RP2040.
#
# A scan's result is a rank byte per rank (scan_ranks(): bytearray(8), bit f of byte r = the
# switch on file f of rank r+1 is closed): the debouncer compares the 8 bytes with the last scan
# in one C-level comparison and only looks at the squares of a rank that changed. scan() spreads
# the same reading over 64 bytes for the code that wants a square per byte.
#
# This module only reports what the switches read. Debouncing is core/debounce.py's job, and
# deciding that a switch is stuck (never changes, or closed where the game has no piece) is the
# referee's; the scanner only flags what is electrically impossible (see fault()).
from micropython import const

_SQUARES = const(64)
_FILES = const(0xFF)
# One set of chessmen has 32 pieces: more closed switches than that cannot be pieces.
MAX_PIECES = const(32)

# Number of 1 bits in each byte value: counts one rank's closed switches without a loop.
_BITS = bytes(bin(i).count("1") for i in range(256))


class MatrixScanner:
    """scan() -> bytearray(64) of 0/1 (1 = switch closed = a piece stands there), index 0 = a1.

    rows: 8 Pin objects, already initialised open-drain and released (value 1); rows[r] = rank r+1.
    Columns, one of:
      read_columns: callable returning the 8 column levels, bit f = file a+f, 1 = high;
      mem32, gpio_in_addr, column_base: machine.mem32, config.SIO_GPIO_IN and the GPIO of file a.
      ranks_reader: an object whose read(ranks) reads all 8 ranks into the bytearray(8) `ranks`
        and returns the columns low with no row selected | closed switches << 8, and whose
        spread(ranks, squares) unpacks them a square per byte (the Pico's matrix_sio.SioRanks);
        rows and columns are then only its business.
    sleep_us: the settle wait (time.sleep_us on the Pico); by default time.sleep_us when the
      running Python has it, else no wait (CPython with fakes)."""

    # After a row is pulled low, or released, the column lines need time to reach their new
    # level: a column falls fast (the row pin sinks it through the diode) but rises only through
    # its pull-up. With the board's 10 kOhm pull-ups against at most 200 pF of column wire and
    # diodes the RC is 2 us, and 10 us after selecting each row is 5 of them; the RP2040's
    # internal 50-80 kOhm alone would need about 40 us (hardware/schematic.md, "Settle time").
    settle_us = 10

    def __init__(
        self,
        rows,
        read_columns=None,
        mem32=None,
        gpio_in_addr=None,
        column_base=None,
        sleep_us=None,
        settle_us=None,
        ranks_reader=None,
    ):
        if len(rows) != 8:
            raise ValueError("need 8 row pins, rank 1 first")
        self._rows = tuple(rows)
        self._reader = ranks_reader
        # A reader in native code is called straight from scan_ranks(): one Python call less a scan.
        self._native, self._native_arg = getattr(ranks_reader, "native", None) or (None, None)
        if ranks_reader is not None:
            self._read = None
        elif read_columns is not None:
            self._read = read_columns
        elif mem32 is not None and gpio_in_addr is not None and column_base is not None:
            self._mem32 = mem32
            self._gpio_in = gpio_in_addr
            self._base = column_base
            self._read = self._read_gpio_in
        else:
            raise ValueError("give read_columns, or mem32 + gpio_in_addr + column_base")
        if sleep_us is None:
            import time

            sleep_us = getattr(time, "sleep_us", None)
        self._sleep_us = sleep_us
        if settle_us is not None:
            self.settle_us = settle_us
        self.squares = bytearray(_SQUARES)  # the last scan() a square per byte; scan() returns it
        self.ranks = bytearray(8)  # the last scan a rank per byte; scan_ranks() returns it
        self.closed = 0  # closed switches in the last scan
        self.stuck_files = 0  # columns that read low with no row selected (bit f = file a+f)
        self.scans = 0

    def _read_gpio_in(self):
        # One 32-bit load gives every GPIO's input level; the caller masks to the 8 columns. On
        # the RP2040 GPIO_IN has 30 bits, so the value is a small int and the read allocates nothing.
        return self._mem32[self._gpio_in] >> self._base

    def scan(self):
        """Read all 64 switches into self.squares and return it. Allocates nothing."""
        return self.scan_into(self.squares)

    def scan_into(self, buf):
        """Read all 64 switches into buf (a bytearray(64)) and return it. Allocates nothing."""
        ranks = self.scan_ranks()
        if self._reader is not None:
            self._reader.spread(ranks, buf)
            return buf
        # The main loop reads scan_ranks(); this spread is for the code that wants a square a byte.
        for sq in range(_SQUARES):
            buf[sq] = (ranks[sq >> 3] >> (sq & 7)) & 1
        return buf

    def scan_ranks(self):
        """Read all 64 switches into self.ranks (bit f of byte r = file f of rank r+1 closed)
        and return it. Allocates nothing."""
        ranks = self.ranks
        if self._native is not None:
            v = self._native(ranks, self._native_arg)
            self.stuck_files = v & _FILES
            self.closed = v >> 8
            self.scans += 1
            return ranks
        if self._reader is not None:
            v = self._reader.read(ranks)
            self.stuck_files = v & _FILES
            self.closed = v >> 8
            self.scans += 1
            return ranks
        read = self._read
        sleep_us = self._sleep_us
        settle = self.settle_us
        # With every row released no column has a path to ground, so every column must read
        # high. One that reads low is shorted to ground, a dead input, or sits on a row that is
        # stuck low (that row's pieces then show in every row).
        self.stuck_files = ~read() & _FILES
        closed = 0
        r = 0
        for row in self._rows:
            row.value(0)
            if settle and sleep_us is not None:
                sleep_us(settle)
            # Active low: a closed switch pulls its column down to the selected row.
            bits = ~read() & _FILES
            row.value(1)
            closed += _BITS[bits]
            ranks[r] = bits
            r += 1
        self.closed = closed
        self.scans += 1
        return ranks

    def fault(self):
        """True when the last scan cannot be pieces on a working board.

        A column low with no row selected (stuck_files), or more closed switches than a set of
        chessmen has: a shorted column reads closed on every rank, a row stuck low ghosts into
        every row, and an 'all 8 columns low on every row' scan is 64 > 32. The finer checks
        (a switch that never opens, or closed where the game has no piece) need the game and
        belong to the referee."""
        return self.stuck_files != 0 or self.closed > MAX_PIECES
