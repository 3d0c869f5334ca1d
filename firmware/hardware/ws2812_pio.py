# The WS2812B chain written by a PIO state machine fed by DMA: the CPU only starts the transfer.
#
# MicroPython's neopixel module writes with machine.bitstream, a CPU loop with interrupts off for
# the whole frame: 64 LEDs x 24 bits x 1.25 us = 1.92 ms of every LED update lost to the scan loop
# (and to USB). Here a state machine makes the pulses (the program of the RP2040 datasheet,
# section 3.6.2, and pico-examples' ws2812.pio) and a DMA channel feeds it the frame's 192 bytes
# paced by the state machine's TX FIFO, so write() returns after about 30 us.
#
# PioStrip looks like neopixel.NeoPixel to hardware/ws2812.py (len(), bpp, ORDER, buf, write()),
# so the LED driver and its fakes (hardware/fake.py's FakeNeoPixel) stay as they are. Only the
# Pico imports this module: it needs rp2, which CPython and the other MicroPython ports lack.
import rp2
from micropython import const

# One bit is 10 cycles at 8 MHz = 1.25 us (800 kHz): high 2 cycles (250 ns) for a 0, 7 (875 ns)
# for a 1, inside the WS2812B's 0.4 us +- 150 ns and 0.8 us +- 150 ns.
_FREQ = const(8000000)
_BYTES = const(192)
# DMA transfer sizes: 0 = a byte. A byte written to a PIO FIFO reaches it repeated in all four
# lanes of the 32-bit word, so with a pull threshold of 8 and a left shift the state machine
# sends exactly that byte, most significant bit first, as the WS2812B wants.
_DMA_BYTE = const(0)
_PIO0_BASE = const(0x50200000)
_TXF0 = const(0x010)
# A frame's last bit reaches the chain this long after the DMA starts (64 x 24 bits x 1.25 us); a new
# frame may only start after the chain latched the previous one: the frame plus the reset pause, over
# 280 us low for the current WS2812B (50 us for the old).
WIRE_US = const(1920)
_FRAME_US = const(WIRE_US + 300)


@rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    autopull=True,
    pull_thresh=8,
    fifo_join=rp2.PIO.JOIN_TX,
)
def _ws2812():
    # The names below are the PIO assembler's, which rp2.asm_pio provides while it assembles.
    wrap_target()  # noqa: F821
    label("bit")  # noqa: F821
    out(x, 1).side(0)[2]  # noqa: F821 - 3 cycles low, and take the next bit
    jmp(not_x, "zero").side(1)[1]  # noqa: F821 - 2 cycles high for either bit
    jmp("bit").side(1)[4]  # noqa: F821 - a 1 stays high 5 more cycles
    label("zero")  # noqa: F821
    nop().side(0)[4]  # noqa: F821 - a 0 goes low for them
    wrap()  # noqa: F821


class PioStrip:
    """64 RGB WS2812B on `pin` (a machine.Pin), written by PIO state machine `sm_id` (0-3: PIO0)."""

    bpp = 3
    ORDER = (1, 0, 2, 3)  # the WS2812B takes green, red, blue (neopixel.NeoPixel's ORDER)

    def __init__(self, pin, n=64, sm_id=0):
        import time

        if n * 3 != _BYTES:
            raise ValueError("PioStrip drives 64 LEDs")
        self._n = n
        self.buf = bytearray(_BYTES)  # what the next write() sends, in chain order, GRB
        self._sending = bytearray(_BYTES)  # the DMA reads this copy while buf is refilled
        self._time = time
        self._sm = rp2.StateMachine(sm_id, _ws2812, freq=_FREQ, sideset_base=pin)
        self._sm.active(1)
        self._dma = rp2.DMA()
        self._txf = _PIO0_BASE + _TXF0 + 4 * sm_id
        # treq_sel = the state machine's TX DREQ (0-3 for PIO0): the DMA waits for FIFO room.
        self._ctrl = self._dma.pack_ctrl(size=_DMA_BYTE, inc_write=False, treq_sel=sm_id)
        self.sent_us = time.ticks_us()
        self.writes = 0  # frames sent; sent_us: when the last began to go out (time.ticks_us)
        self.dropped = 0  # frames not sent because the previous one never finished

    def __len__(self):
        return self._n

    def write(self):
        """Send buf to the chain; returns once the DMA has started (a previous frame, if still
        on the wire, is waited for first)."""
        time = self._time
        left = _FRAME_US - time.ticks_diff(time.ticks_us(), self.sent_us)
        if left > 0:
            time.sleep_us(left)
        if self._dma.active():
            # The frame time has passed, so the state machine has stopped taking bytes: it never
            # happens on a working chip (an emulator that does not run PIO, say). Waiting would
            # hang the scan loop, so this frame is dropped and counted; the next change is sent.
            self.dropped += 1
            return
        self._sending[:] = self.buf
        self.sent_us = time.ticks_us()
        self._dma.config(read=self._sending, write=self._txf, count=_BYTES, ctrl=self._ctrl, trigger=True)
        self.writes += 1
