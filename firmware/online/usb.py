# The `online` command on the USB link (link/commands.py hands it over, loaded only when typed):
#   online                          the Lichess link's state
#   online wifi-ssid NAME           the Wi-Fi network to join (the rest of the line, spaces and all)
#   online wifi-password PASSWORD   its password: written once, never read back
#   online lichess-token TOKEN      the Lichess token (board:play scope): written once, never read back
#   online seek MIN+INC             seek a game on Lichess now (rapid or slower)
# and the end of the `status` line: whether the secrets are set, never what they are.
from online import secrets

_KEYS = {"wifi-ssid": "ssid", "wifi-password": "password", "lichess-token": "token"}


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
    if what in _KEYS:
        try:
            secrets.update(**{_KEYS[what]: value})
        except ValueError as e:
            link.err(str(e))
            return
        except OSError as e:
            link.err("%s not saved: the flash said %s" % (what, e))
            return
        link.line("ok %s set" % what)  # never the value: it is not read back
        return
    if what == "seek":
        if central is None:
            link.err("online: not online (status says why)")
            return
        from online.lichess_game import parse_seek

        try:
            minutes, inc = parse_seek(value or "10+0")
        except ValueError as e:
            link.err(str(e))
            return
        central.session.seek(int(minutes), inc)
        link.line("ok seeking %d+%d" % (minutes, inc))
        return
    link.err("online: wifi-ssid, wifi-password, lichess-token or seek")
