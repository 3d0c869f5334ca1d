# Joining the Wi-Fi network (Pico W, Pico 2 W: the CYW43 radio through MicroPython's `network`).
# network is passed in (the real module on the Pico, tools/shims/network.py on a PC), so a Pico
# without a radio never imports it. join() waits for the link, a little at a time, and returns the
# state in words the console and the docs use.
CONNECTED = "online"
NO_NETWORK = "network not found"
WRONG_PASSWORD = "wrong Wi-Fi password"
FAILED = "could not join the network"
TIMEOUT_MS = 20000


def state(wlan, network):
    s = wlan.status()
    if s == network.STAT_GOT_IP:
        return CONNECTED
    if s == network.STAT_NO_AP_FOUND:
        return NO_NETWORK
    if s == network.STAT_WRONG_PASSWORD:
        return WRONG_PASSWORD
    if 0 <= s < network.STAT_GOT_IP:
        # The Pico W's driver goes 1 (joining), 2 (joined, waiting for an address by DHCP: no
        # STAT_ name), 3 (STAT_GOT_IP); 0 is idle before connect() takes hold. All of them are
        # on the way; only the negative codes are failures.
        return "joining"
    return FAILED


def join(network, ssid, password, ticks_ms, sleep_ms, timeout_ms=TIMEOUT_MS):
    """(wlan, state): the station interface and CONNECTED or why not."""
    wlan = network.WLAN(network.STA_IF)
    wlan.active(True)
    wlan.connect(ssid, password)
    start = ticks_ms()
    while True:
        st = state(wlan, network)
        # & 2**30 - 1: time.ticks_ms wraps there (12.4 days); a plain difference would go negative
        if st != "joining" or (ticks_ms() - start) & 0x3FFFFFFF > timeout_ms:
            return wlan, st if st != "joining" else FAILED
        sleep_ms(100)
