# The project's stand-in for MicroPython's `network` module (the Pico W's Wi-Fi), for the MicroPython
# unix port and CPython: the firmware's online code runs on them unchanged, with real sockets and TLS
# underneath. Only what firmware/online/wifi.py uses: WLAN(STA_IF).active/connect/isconnected/
# status/disconnect/ifconfig, and the STAT_* codes of the rp2 port (CYW43).
#
# Tests set which networks exist and drop or restore the link: set_networks({ssid: password}),
# set_link(False/True). A network that is not there gives STAT_NO_AP_FOUND, a wrong password
# STAT_WRONG_PASSWORD, as the Pico W's driver does; a right one goes, one status() call at a time,
# 1 (joining), 2 (joined, DHCP pending: the rp2 port has no STAT_ name for it), 3 (STAT_GOT_IP),
# as the Pico W's does, so the firmware never takes the middle state for a failure.
STA_IF = 0
AP_IF = 1
STAT_IDLE = 0
STAT_CONNECTING = 1
STAT_WRONG_PASSWORD = -3
STAT_NO_AP_FOUND = -2
STAT_CONNECT_FAIL = -1
STAT_GOT_IP = 3
_STAT_NOIP = 2  # cyw43's CYW43_LINK_NOIP: joined, no address yet

_networks = {"testnet": "testpass"}
_link = [True]


def set_networks(networks):
    _networks.clear()
    _networks.update(networks)


def set_link(up):
    """The radio link comes and goes (a router rebooting, the board carried out of range)."""
    _link[0] = bool(up)


class WLAN:
    def __init__(self, interface=STA_IF):
        self._active = False
        self._status = STAT_IDLE
        self._ssid = None

    def active(self, *on):
        if on:
            self._active = bool(on[0])
        return self._active

    def connect(self, ssid, key=None):
        if not self._active:
            raise OSError("WLAN not active")
        self._ssid = ssid
        if ssid not in _networks or not _link[0]:  # out of range: the network is not seen
            self._status = STAT_NO_AP_FOUND
        elif _networks[ssid] != key:
            self._status = STAT_WRONG_PASSWORD
        else:
            self._status = STAT_CONNECTING

    def disconnect(self):
        self._status = STAT_IDLE

    def status(self, *args):
        st = self._status
        if st in (STAT_CONNECTING, _STAT_NOIP):
            self._status += 1  # the next call sees the next step: joined, then the address
        if st == STAT_GOT_IP and not _link[0]:
            return STAT_CONNECT_FAIL
        return st

    def isconnected(self):
        return self.status() == STAT_GOT_IP

    def ifconfig(self, *args):
        return ("127.0.0.1", "255.0.0.0", "127.0.0.1", "127.0.0.1")
