# The USB command `engine` (link/commands.py's table points here): read and set the board's own engine.
# A module apart from engine/opponent.py, loaded the first time the command is used, so that a
# board never asked over USB keeps the RAM.
from core.position import BLACK, WHITE


def run(opponent, rest):
    """The USB command: `engine` | `engine white|black|off [LEVEL]` | `engine level N` |
    `engine hint`. Returns (ok, answer line)."""
    words = rest.split()
    try:
        if not words:
            pass
        elif words[0] == "hint":
            if not opponent.hint():
                return False, "engine: a hint needs casual mode and the player's turn in a game on"
        elif words[0] == "level" and len(words) == 2:
            opponent.set(opponent.colour, int(words[1]))
        elif words[0] in ("white", "black", "off") and len(words) <= 2:
            level = int(words[1]) if len(words) == 2 else opponent.level
            opponent.set(None if words[0] == "off" else WHITE if words[0] == "white" else BLACK, level)
        else:
            return False, "engine takes: white|black|off [LEVEL], level N, hint"
    except ValueError as e:
        return False, "engine: %s" % e
    return True, opponent.describe()
