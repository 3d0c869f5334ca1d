# Whether a CPP round fits the BLE link's MTU (link/ble.py): loaded only when an app whose MTU is
# below MTU_ALWAYS_ENOUGH begins a round or asks for the state, so a phone that raised the MTU
# (185 on iOS, 517 on Android) never brings this code in.
#
# A CPP app takes each notification as one whole command and joins none (chess_peripheral_driver's
# BleStringSerial decodes every notification value into one command; blichess hands each to its
# protocol as it comes), so the board never splits a line: a round whose longest line would not
# fit MTU-3 bytes is refused before it starts.
from micropython import const

# The widest each FEN field after the placement can be, with its space: side " w", castling
# " KQkq", en passant " e3", halfmove clock " 150" (the 75-move rule ends the game there), move
# number " 9999".
_FIELD_WIDTHS = b"\x02\x05\x03\x04\x05"
_PLACEMENT_MAX = const(71)  # 8 ranks of at most 8 characters each, and 7 slashes


def cpp_line_max(word, fields):
    """The longest line a CPP session started by `word` (b"begin" or b"get_state") may send, the
    central using `fields` FEN fields: `unsync FEN` in a round, `state PLACEMENT` in a state stream."""
    if word == b"get_state":
        return 6 + _PLACEMENT_MAX  # "state " and the placement
    return 7 + _PLACEMENT_MAX + sum(_FIELD_WIDTHS[: max(0, min(fields, 6) - 1)])  # "unsync "...


def refusal(command, mtu, console):
    """The `err` text refusing `command` (a CPP write, bytes) at this MTU, or None when it fits;
    the reason also goes to the USB console. The text leads with the figures, so that what MTU-3
    bytes keep of it (20 at MTU 23: `err MTU 23, need 100`) still says why."""
    word, _, rest = bytes(command).partition(b" ")
    if word != b"begin" and word != b"get_state":
        return None
    need = cpp_line_max(word, len(rest.split())) + 3
    if need <= mtu:
        return None
    console(
        "ble: CPP %s refused: this app's MTU is %d, and a CPP app takes each notification as one"
        " whole line, so its lines of up to %d bytes need an MTU of %d" % (word.decode(), mtu, need - 3, need)
    )
    return "MTU %d, need %d (the phone must raise the MTU for CPP)" % (mtu, need)
