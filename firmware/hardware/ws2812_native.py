# hardware/ws2812.py's paint() in native code (viper), for the Pico.
#
# Why native: measured on the emulated RP2040, the Python loop over the 64 squares costs 1.8 ms of
# bytecode a frame (8 us a square), a quarter of the main-loop step that shows a lift; this one
# costs about 0.1 ms. It takes the same table and params and returns the same value, which
# host_tests/portable/test_scan_and_show.py checks where viper runs (the unix port). Only the Pico
# imports it (hardware/pico.py): CPython and WebAssembly have no native emitter, and use the
# plain path. The layout constants are hardware/ws2812.py's (T_COLOURS, T_PULSE, P_*, BLINKS,
# PULSES), written out here because viper code cannot read another module's const().
import micropython


@micropython.viper
def paint(out, frame, table, params) -> int:
    o = ptr8(out)
    fr = ptr8(frame)
    t = ptr8(table)
    p = ptr16(params)
    bit = 1 << p[24]  # P_SLOT
    k_steady = p[25]  # P_STEADY
    k_pulse = p[26]  # P_PULSE
    o_r = p[27]  # P_ORDER
    o_g = p[28]
    o_b = p[29]
    total = 0
    flags = 0
    sq = 0
    while sq < 64:
        i = t[sq]
        code = fr[sq]
        sq += 1
        if code == 0 or code >= 24:  # signals.COUNT
            o[i] = 0
            o[i + 1] = 0
            o[i + 2] = 0
            continue
        pattern = p[code]
        k = k_steady
        if t[136 + code]:  # T_PULSE
            flags |= 1 << 21  # PULSES
            k = k_pulse
        if pattern != 0xFFFF:
            flags |= 1 << 20  # BLINKS
            if (pattern & bit) == 0:
                o[i] = 0
                o[i + 1] = 0
                o[i + 2] = 0
                continue
        c = 64 + 3 * code  # T_COLOURS
        r = (t[c] * k) >> 8
        g = (t[c + 1] * k) >> 8
        b = (t[c + 2] * k) >> 8
        o[i + o_r] = r
        o[i + o_g] = g
        o[i + o_b] = b
        total += r + g + b
    return total | flags
