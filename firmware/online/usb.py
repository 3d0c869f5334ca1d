# The `online` command on the USB link (link/commands.py hands it over, loaded only when typed):
#   online                          the Lichess link's state
#   online wifi-ssid NAME           the Wi-Fi network to join (the rest of the line, spaces and all)
#   online wifi-password PASSWORD   its password: written once, never read back
#   online lichess-token TOKEN      the Lichess token (board:play scope): written once, never read back
#   online wifi-password -          (any of the three) cleared: an open network has no password
# A value is the rest of the line after the word and one space, exactly as typed: WPA allows
# spaces at either end of a password or a network's name, so nothing is stripped.
#   online seek MIN+INC             seek a game on Lichess now (rapid or slower)
#   online broadcast...             a Lichess broadcast of the board's game (online/broadcast_usb.py)
# and the end of the `status` line: whether the secrets are set, never what they are.
from online import secrets

_KEYS = {"wifi-ssid": "ssid", "wifi-password": "password", "lichess-token": "token"}
CLEAR = "-"  # the value that clears a secret (no WPA password nor Lichess token is one character)


def _typed(link, what, value):
    """The value after `what` and one space on the line as typed (Link.line_text), spaces kept;
    value (the stripped rest) where the line is not at hand."""
    line = getattr(link, "line_text", None)
    if not line:
        return value
    i = line.find(" " + what)
    if i < 0:
        return value
    typed = line[i + 1 + len(what):]
    return typed[1:] if typed[:1] in (" ", "\t") else typed


def status_suffix(link):
    """ online=STATE wifi=set|unset token=set|unset, or "" on a board never set up nor online."""
    have = secrets.status()
    central = getattr(link.app, "online", None)
    if central is None and not have["wifi"] and not have["token"]:
        return ""
    return " online=%s wifi=%s token=%s" % (
        central.net_state if central is not None else "off",
        "set" if have["wifi"] else "unset",
        "set" if have["token"] else "unset",
    )


def command(link, rest):
    words = rest.split(None, 1)
    central = getattr(link.app, "online", None)
    if not words:
        link.line("online %s" % (central.net_state if central is not None else "off"))
        return
    what = words[0]
    value = words[1].strip() if len(words) > 1 else ""
    if what.startswith("broadcast"):  # a Lichess broadcast: its own module (online/broadcast_usb.py)
        from online.broadcast_usb import command as broadcast_command

        broadcast_command(link, what, _typed(link, what, value) if value else "")
        return
    if what in _KEYS:
        typed = _typed(link, what, value)
        cleared = typed == CLEAR
        try:
            secrets.update(**{_KEYS[what]: None if cleared else typed})
        except ValueError as e:
            link.err(str(e))
            return
        except OSError as e:
            link.err("%s not saved: the flash said %s" % (what, e))
            return
        link.line("ok %s %s" % (what, "cleared" if cleared else "set"))  # never the value: it is not read back
        return
    if what == "seek":
        if central is None or central.session is None:
            link.err("online: not online (status says why)")
            return
        from online.lichess_game import parse_seek

        try:
            minutes, inc = parse_seek(value or "10+0")
        except ValueError as e:
            link.err(str(e))
            return
        central.session.seek(minutes, inc)
        link.line("ok seeking %d+%d" % (minutes, inc))
        return
    link.err("online: wifi-ssid, wifi-password, lichess-token, seek or broadcast")
