# The USB command `ble`: what the Bluetooth LE link is doing, and which apps the board serves.
#
#   ble                          one line: services, connected, MTU, dialect, refused, dropped and
#                                the free heap (MicroPython)
#   ble off|cpp|chesslink|both   saved in board.json (the `ble` setting) and applied at once:
#                                the radio off, or on with those services (an app connected is
#                                dropped when the services change)
# Its own module, loaded when used: a board that never changes the setting keeps it out of RAM.
import json

SETTINGS_PATH = "board.json"
SERVICES = ("off", "cpp", "chesslink", "both")


def run(link, rest, path=SETTINGS_PATH, bluetooth=None):
    app = link.app
    if not rest:
        ble = app.ble
        link.line((ble.status() if ble is not None else "ble services=off") + heap_free())
        return
    if rest not in SERVICES:
        link.err("ble takes off, cpp, chesslink or both")
        return
    if rest != "off" and bluetooth is None:
        try:
            import bluetooth  # noqa: PLC0415 - only a Pico W's build has it
        except ImportError:
            link.err("ble: this board has no Bluetooth radio (a Pico W runs MicroPython's RPI_PICO_W build)")
            return
    problem = save_setting(path, rest)
    if problem:
        link.err("ble: " + problem)
        return
    if app.ble is not None:
        app.ble.close()
        app.ble = None
    if rest != "off":
        from link.ble import BleLink  # noqa: PLC0415

        app.ble = BleLink(bluetooth, app, rest, link.info)
    link.line("ble " + rest)


def heap_free():
    """" heap_free=N": the bytes free after a collection (a few ms on the Pico), to measure the
    board's heap with BLE on while it runs; "" where the runtime does not count (CPython)."""
    import gc

    if not hasattr(gc, "mem_free"):
        return ""
    gc.collect()
    return " heap_free=%d" % gc.mem_free()


def save_setting(path, services):
    """Write `"ble": services` into the settings file, keeping the rest; returns a problem or None."""
    try:
        with open(path) as f:
            settings = json.load(f)
    except OSError:
        settings = {}  # no board.json yet: the defaults and this one setting
    except ValueError:
        return "%s is not valid JSON: fix it over USB first (mpremote edit %s)" % (path, path)
    if not isinstance(settings, dict):
        return "%s does not hold a JSON object" % path
    settings["ble"] = services
    import config  # noqa: PLC0415 - the checks of board.json, loaded for this command only

    try:
        config.from_json(json.dumps(settings))  # a file the next start would refuse is not written
    except ValueError as e:
        return "not saved: %s" % e
    try:
        with open(path, "w") as f:
            json.dump(settings, f)
    except OSError as e:
        return "could not write %s: %s" % (path, e)
    return None
