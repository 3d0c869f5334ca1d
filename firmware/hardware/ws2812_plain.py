# hardware/ws2812.py's paint() in plain Python: CPython, the unix port and WebAssembly (the Pico
# runs hardware/ws2812_native.py, the same in viper; host_tests/portable/test_scan_and_show.py
# checks that the two agree). The table and params layouts are hardware/ws2812.py's.
from micropython import const

# hardware/ws2812.py's layout, written out here as ws2812_native.py does (so that this module
# imports nothing of the driver's; host_tests/test_leds.py checks that the numbers agree).
_T_COLOURS = const(64)
_T_PULSE = const(136)
_P_SLOT = const(24)
_P_STEADY = const(25)
_P_PULSE = const(26)
_P_ORDER = const(27)
_BLINKS = const(1 << 20)
_PULSES = const(1 << 21)

_SQUARES = const(64)
_COUNT = const(24)  # signals.COUNT (hardware/ws2812.py checks it)


def paint(out, frame, table, params):
    """Each square's colour now into out (the strip buffer, GRB): dark for off, an unknown code or
    a blink slot that is dark, else the code's colour at its brightness. Returns the sum of the
    channel values | BLINKS | PULSES as the frame has them."""
    bit = 1 << params[_P_SLOT]
    k_steady = params[_P_STEADY]
    k_pulse = params[_P_PULSE]
    o_r = params[_P_ORDER]
    o_g = params[_P_ORDER + 1]
    o_b = params[_P_ORDER + 2]
    total = 0
    flags = 0
    for sq in range(_SQUARES):
        i = table[sq]
        code = frame[sq]
        if code == 0 or code >= _COUNT:
            out[i] = 0
            out[i + 1] = 0
            out[i + 2] = 0
            continue
        pattern = params[code]
        k = k_steady
        if table[_T_PULSE + code]:
            flags |= _PULSES
            k = k_pulse
        if pattern != 0xFFFF:
            flags |= _BLINKS
            if not pattern & bit:
                out[i] = 0
                out[i + 1] = 0
                out[i + 2] = 0
                continue
        c = _T_COLOURS + 3 * code
        r = (table[c] * k) >> 8
        g = (table[c + 1] * k) >> 8
        b = (table[c + 2] * k) >> 8
        out[i + o_r] = r
        out[i + o_g] = g
        out[i + o_b] = b
        total += r + g + b
    return total | flags
