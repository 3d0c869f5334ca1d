# The broadcast's USB commands (online/usb.py hands over every `online broadcast...` word; loaded
# only when typed). docs/broadcast.md:
#   online broadcast                 the broadcast's state: round, board, names, pushes, how far behind
#   online broadcast ROUND_ID        push this board's game to that round (the 8 characters at the end
#                                    of the round's URL) from the next power-up; `-`: no broadcast
#   online broadcast-token TOKEN     the token with the study:write scope: written once, never read back
#   online broadcast-white NAME      the White tag (`-`: "White, board N"); -black likewise
#   online broadcast-board N         the Board tag (1-999)
#   online broadcast-round R         the Round tag (e.g. 3, or 3.1)
#   online broadcast-event TEXT      the Event tag
# Everything but the token goes into board.json (the broadcast* settings, config.py), checked as a
# start-up would check it; the tags apply from the board's next change, so set them before the game:
# a name changed mid-game is another game to Lichess.
import json

SETTINGS_PATH = "board.json"
CLEAR = "-"
# The word after `online` -> the board.json key; None: the token (online/secrets.py).
WORDS = {"broadcast": "broadcast", "broadcast-token": None, "broadcast-white": "broadcast_white",
         "broadcast-black": "broadcast_black", "broadcast-board": "broadcast_board",
         "broadcast-round": "broadcast_round", "broadcast-event": "broadcast_event"}
DEFAULTS = {"broadcast_board": 1, "broadcast_round": "1", "broadcast_event": "Club game"}


def command(link, what, value, path=SETTINGS_PATH):
    """what: the word after `online`; value: the rest of the line as typed (spaces kept)."""
    if what not in WORDS:
        link.err("online: broadcast, broadcast-token, broadcast-white, broadcast-black, broadcast-board, "
                 "broadcast-round or broadcast-event")
        return
    key = WORDS[what]
    if key is None:
        from online import secrets

        cleared = value == CLEAR
        if not value:
            link.err("online broadcast-token TOKEN (a Lichess token with the study:write scope; - clears it)")
            return
        try:
            secrets.update(broadcast=None if cleared else value)
        except (ValueError, OSError) as e:
            link.err("broadcast-token not saved: %s" % e)
            return
        link.line("ok broadcast-token %s" % ("cleared" if cleared else "set"))  # never the value
        return
    if key == "broadcast" and not value:
        link.line(state_line(link.app, path))
        return
    if value == CLEAR:
        setting = DEFAULTS.get(key)
    elif key == "broadcast_board":
        if not value.isdigit():
            link.err("online broadcast-board N: a board number 1-999, got %r" % value[:20])
            return
        setting = int(value)
    else:
        setting = value
    problem = save_setting(path, key, setting)
    if problem:
        link.err("online %s: %s" % (what, problem))
        return
    settings = link.app.settings
    if key != "broadcast":
        setattr(settings, key, setting)  # the tags from the next change on
    link.line("ok %s %s%s" % (what, "cleared" if setting is None else setting,
                              " (from the next power-up)" if key == "broadcast" else ""))


def state_line(app, path=SETTINGS_PATH):
    """The round pushed to now, and the one board.json names for the next power-up when another."""
    s = app.settings
    from online import secrets

    line = "broadcast round=%s" % (s.broadcast or "none")
    try:
        with open(path) as f:
            saved = json.load(f).get("broadcast")
    except (OSError, ValueError, AttributeError):
        saved = s.broadcast
    if saved != s.broadcast:
        line += " next_power_up=%s" % (saved or "none")
    line += " board=%d white=%s black=%s round_tag=%s token=%s" % (
        s.broadcast_board, json.dumps(s.broadcast_white or "White, board %d" % s.broadcast_board),
        json.dumps(s.broadcast_black or "Black, board %d" % s.broadcast_board), json.dumps(s.broadcast_round),
        "set" if secrets.status()["broadcast"] else "unset")
    online = getattr(app, "online", None)
    pusher = getattr(online, "pusher", None)
    if pusher is not None:
        line += " state=%s pushes=%d behind=%d" % (online.net_state, pusher.pushes,
                                                     online.writer.ply - pusher.sent_ply)
        if pusher.dead:
            line += " stopped=%s" % json.dumps(pusher.dead)
    return line


def save_setting(path, key, value):
    """Write `key: value` into the settings file, keeping the rest, checked as the next start-up
    would check it; returns a problem or None (nothing written then)."""
    try:
        with open(path) as f:
            settings = json.load(f)
    except OSError:
        settings = {}  # no board.json yet: the defaults and this one setting
    except ValueError:
        return "%s is not valid JSON: fix it over USB first (mpremote edit %s)" % (path, path)
    if not isinstance(settings, dict):
        return "%s does not hold a JSON object" % path
    settings[key] = value
    import config  # noqa: PLC0415 - the checks of board.json, loaded for this command only

    try:
        config.from_json(json.dumps(settings))
    except ValueError as e:
        return "not saved: %s" % e
    try:
        with open(path, "w") as f:
            json.dump(settings, f)
    except OSError as e:
        return "could not write %s: %s" % (path, e)
    return None
