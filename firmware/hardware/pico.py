# The Pico's hardware built from the settings: pins, the matrix scanner, the LED driver and the
# status LED. The only place that imports machine and neopixel (wiring.py passes fakes in tests).
import sys
import time

import config
from hardware.matrix import MatrixScanner


def _rp2040():
    """True on the rp2 port: PIO, DMA, the SIO registers and viper's native code are there."""
    try:
        import rp2  # noqa: F401 - only asks whether the module exists
    except ImportError:
        return False
    return True


def modules(settings, machine=None, neopixel=None):
    """(machine, neopixel): the ones given, else the Pico's own. On an RP2040 neopixel stays None:
    its WS2812B chain is written by PIO and DMA (hardware/ws2812_pio.py), not by neopixel's CPU
    loop; elsewhere, or when a test hands one in, neopixel.NeoPixel writes it."""
    if machine is None:
        import machine
    if neopixel is None and settings.led_type == "ws2812":
        if not _rp2040():
            import neopixel
    return machine, neopixel


def rtc_setter(machine):
    """The chip's real-time clock setter (RTC().datetime), which online/boot.py sets from SNTP so
    that certificate dates can be checked; None where there is none (the fakes, CPython)."""
    try:
        return machine.RTC().datetime
    except AttributeError:
        return None


def make_leds(settings, machine, neopixel, say):
    """The LED driver settings.led_type names, on its pins."""
    Pin = machine.Pin
    if settings.led_type == "max7219":
        from hardware.max7219 import Max7219Leds

        pins = {"sck": Pin(settings.spi_sck), "mosi": Pin(settings.spi_mosi)}
        if settings.spi_miso is not None:
            pins["miso"] = Pin(settings.spi_miso)
        # Mode 0 as the MAX7219 wants it: data taken on the rising clock edge, MSB first.
        spi = machine.SPI(settings.spi_id, baudrate=settings.spi_baudrate, polarity=0, phase=0, **pins)
        cs = Pin(settings.spi_cs, Pin.OUT, value=1)
        leds = Max7219Leds(spi, cs, brightness=settings.brightness)
        if settings.spi_miso is None:
            say("MAX7219: spi_miso is null, so the driver cannot check that the chip answers")
        elif not leds.self_test():
            leds.fault = True
            say(
                "MAX7219 does not answer on DOUT -> GPIO %d: check its 5 V supply, the wires to "
                "GPIO %d/%d/%d and the DOUT divider" % (settings.spi_miso, settings.spi_sck, settings.spi_mosi, settings.spi_cs)
            )
        return leds
    from hardware.ws2812 import Ws2812Leds

    if neopixel is None:
        from hardware.ws2812_pio import PioStrip

        np = PioStrip(Pin(settings.led_pin, Pin.OUT), 64)
    else:
        np = neopixel.NeoPixel(Pin(settings.led_pin, Pin.OUT), 64)
    extra = {}
    if _rp2040():
        from hardware.ws2812_native import paint  # native code: 1.8 ms a frame less on an RP2040

        extra["paint"] = paint
    return Ws2812Leds(
        np,
        chain=config.chain_squares(settings.led_chain),
        brightness=settings.brightness,
        current_cap_ma=settings.current_cap_ma,
        channel_ma=settings.led_channel_ma,
        **extra
    )


def make_scanner(settings, machine):
    """The reed matrix: rows open-drain and released, columns inputs with pull-ups."""
    Pin = machine.Pin
    # Released open-drain rows float (high impedance): no rank is selected until scan() pulls one low.
    rows = [Pin(n, Pin.OPEN_DRAIN, value=1) for n in settings.row_pins]
    for n in settings.column_pins:
        Pin(n, Pin.IN, Pin.PULL_UP)
    reader = None
    if _rp2040():
        from hardware.matrix_sio import SioRanks

        reader = SioRanks(settings.row_pins, settings.column_base, settings.settle_us, machine.mem32)
    return MatrixScanner(
        rows,
        mem32=machine.mem32,
        gpio_in_addr=config.SIO_GPIO_IN,
        column_base=settings.column_base,
        sleep_us=getattr(time, "sleep_us", None),
        settle_us=settings.settle_us,
        ranks_reader=reader,
    )


def pads_base():
    """PADS_BANK0 of the chip MicroPython runs on: the RP2350's when it names that chip, else the
    RP2040's (also what hardware/fake.py models for the tests and simulators)."""
    if "RP2350" in getattr(sys.implementation, "_machine", ""):
        return config.PADS_BANK0_RP2350
    return config.PADS_BANK0_RP2040


def set_row_drive(settings, machine, base=None):
    """Row pads to 12 mA drive, each read back; returns the mA each row reads, rank 1 first.

    A row pin sinks the current of every closed switch on its rank. The RP2040's output-low limit
    (0.5 V) holds only up to the selected drive's current, 4 mA after reset, and a full rank draws
    about 3 mA through 10 kOhm pull-ups (5 mA through 4.7 kOhm): at 12 mA the pin stays near 0.1 V
    and the column's low level (that plus the diode's drop) well under the 0.8 V input-low limit.
    Only the DRIVE bits change, so the pull, input and isolation bits MicroPython set stay."""
    mem32 = machine.mem32
    if base is None:
        base = pads_base()
    read = []
    for n in settings.row_pins:
        address = base + 4 + 4 * n
        value = mem32[address]
        mem32[address] = (value & ~config.PAD_DRIVE_MASK) | (config.PAD_DRIVE_12MA << config.PAD_DRIVE_SHIFT)
        read.append(config.PAD_DRIVE_MA[(mem32[address] & config.PAD_DRIVE_MASK) >> config.PAD_DRIVE_SHIFT])
    return read


def row_drive_problem(settings, drive_ma):
    """A console message naming the rows that did not take 12 mA, or None when all did."""
    wrong = [
        "GPIO %d (%d mA)" % (settings.row_pins[r], drive_ma[r]) for r in range(8) if drive_ma[r] != 12
    ]
    if not wrong:
        return None
    return (
        "row pads did not read back 12 mA drive: %s; a full rank may read empty "
        "(hardware/schematic.md, Pull-ups and logic levels)" % ", ".join(wrong)
    )


def make_oled(settings, machine, say):
    """The optional clock display (hardware/ssd1306.py), or None when none is configured or none
    answers on the bus (the board then plays on without it, and says so)."""
    if settings.oled_sda is None:
        return None
    Pin = machine.Pin
    i2c = machine.I2C(settings.oled_i2c_id, sda=Pin(settings.oled_sda), scl=Pin(settings.oled_scl), freq=400000)
    try:
        from hardware.ssd1306 import Ssd1306

        oled = Ssd1306(i2c)
        oled.init()
        oled.flush()  # blank, before the scan loop starts
    except MemoryError:
        say("the clock display stopped: not enough memory (the clock goes on)")
        return None
    except OSError as e:
        say("no clock display answers on I2C%d (GPIO %d, %d): %s" % (settings.oled_i2c_id, settings.oled_sda, settings.oled_scl, e))
        return None
    return oled


def make_status_led(settings, machine):
    """The Pico's own LED (heartbeat and fault blink), or None when the settings have none."""
    if settings.status_led_pin is None:
        return None
    return machine.Pin(settings.status_led_pin, machine.Pin.OUT, value=0)
