# The Wi-Fi password and the Lichess token: written once over USB (`online wifi-ssid NAME`,
# `online wifi-password PW`, `online lichess-token TOKEN`: online/usb.py) into a file of their own, SECRETS_PATH, that nothing reads
# back: no command prints it, `status` says only whether each is set, and `make flash`
# (tools/flash.py) neither copies nor deletes it. Only online/ reads it, to join the network and to
# put the token in the Authorization header of requests to Lichess.
#
# The broadcast token (`online broadcast-token TOKEN`, scope study:write: docs/broadcast.md) is kept
# the same way, as `broadcast`: a separate token, so the one a board plays with cannot write studies.
#
# The file: one "key value" a line (ssid, password, token, broadcast); a value is the rest of its line.
# Written whole to PATH.tmp then renamed over PATH, as the saved game's whole record is
# (store_write.py), so a power cut leaves the old secrets or the new ones. A board's flash is not
# encrypted: whoever holds the board can read the file with a debugger; a token with only the
# board:play scope limits the harm.
import os

from online import SECRETS_PATH
KEYS = ("ssid", "password", "token", "broadcast")
# IEEE 802.11: a network's name (SSID) is at most 32 octets; on the air it is bytes, typed it is
# UTF-8, so "Café" is 5 of them.
SSID_MAX_BYTES = 32
# WPA2-PSK (IEEE 802.11i, the passphrase-to-key mapping): a passphrase is 8 to 63 printable ASCII
# characters (32-126), or the key itself as 64 hex digits.
PASSWORD_MIN = 8
PASSWORD_MAX = 63
PSK_HEX = 64
_HEX = "0123456789abcdefABCDEF"
# What `online` says of each key's value in its reasons.
NAMES = {"ssid": "Wi-Fi network's name (SSID)", "password": "Wi-Fi password", "token": "Lichess token",
         "broadcast": "broadcast token (study:write)"}


def _odd(value, space_ok):
    """Words for the first character a value may not hold (a control character, a space when
    not space_ok, anything beyond ASCII), or None."""
    for i in range(len(value)):
        c = value[i]
        if c == " " and space_ok or " " < c <= "~":
            continue
        # Never the character itself: a secret's letters are not printed, even a wrong one.
        what = "a space" if c == " " else "a tab" if c == "\t" else "a control character" if c <= "\x7f" else "a letter beyond ASCII"
        return "%s at character %d" % (what, i + 1)
    return None


def problem(key, value):
    """Why `value` cannot be the `key` (ssid, password, token) a network or Lichess would take,
    in words for the player; None when it can. The same rules for what is typed over USB
    (online/usb.py) and what the file holds at power-up (online/boot.py)."""
    if not value or "\n" in value or "\r" in value:
        return "a %s must be one non-empty line (- clears it)" % key
    if key == "ssid":
        n = len(value.encode())
        if n > SSID_MAX_BYTES:
            return "a %s is at most %d bytes (802.11): this one is %d bytes in UTF-8" % (NAMES[key], SSID_MAX_BYTES, n)
    elif key == "password":
        if not value.strip():
            return "a %s of only spaces or tabs cannot be right: for an open network clear it (online wifi-password -)" % NAMES[key]
        if len(value) == PSK_HEX and all(c in _HEX for c in value):
            return None  # the 256-bit key itself (wpa_passphrase's psk=), not a passphrase
        odd = _odd(value, True)
        if odd:
            return "a WPA %s is printable ASCII (letters, digits, punctuation, spaces): this one has %s" % (NAMES[key], odd)
        if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
            return "a WPA %s is %d to %d characters (or the key as %d hex digits): this one has %d" % (
                NAMES[key], PASSWORD_MIN, PASSWORD_MAX, PSK_HEX, len(value))
    elif key in ("token", "broadcast"):
        odd = _odd(value, False)
        if odd:
            return "a %s is one word of printable ASCII, as Lichess shows it (lip_...): this one has %s" % (NAMES[key], odd)
    return None


def _read(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                line = line.rstrip("\r\n")
                i = line.find(" ")
                if i > 0 and line[:i] in KEYS:
                    out[line[:i]] = line[i + 1:]
    except OSError:
        pass
    return out


def load(path=SECRETS_PATH):
    """For online/ only: {key: value} of what is set."""
    return _read(path)


def status(path=SECRETS_PATH):
    """What `status` may say: for each key, whether it is set; never a value."""
    have = _read(path)
    return {"wifi": bool(have.get("ssid")), "token": bool(have.get("token")),
            "broadcast": bool(have.get("broadcast"))}


def update(path=SECRETS_PATH, **values):
    """Set some keys (the others stay); a value None clears its key (an open network's password).
    A value is kept exactly, spaces and all. ValueError, with problem()'s reason, for a value no
    network or Lichess would take; nothing is written then."""
    have = _read(path)
    for k in values:
        if k not in KEYS:
            raise ValueError("unknown secret " + k)
        v = values[k]
        if v is None:
            have.pop(k, None)
            continue
        why = problem(k, v)
        if why:
            raise ValueError(why)
        have[k] = v
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for k in KEYS:
            if k in have:
                f.write("%s %s\n" % (k, have[k]))
    try:
        os.rename(tmp, path)
    except OSError:
        os.remove(path)
        os.rename(tmp, path)
