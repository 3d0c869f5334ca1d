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
    A value is kept exactly, spaces and all. ValueError for a value that cannot be stored."""
    have = _read(path)
    for k in values:
        if k not in KEYS:
            raise ValueError("unknown secret " + k)
        v = values[k]
        if v is None:
            have.pop(k, None)
            continue
        if not v or "\n" in v or "\r" in v:
            raise ValueError("a %s must be one non-empty line (- clears it)" % k)
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
