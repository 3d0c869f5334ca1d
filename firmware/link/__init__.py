# The link to the PC and the phone apps: one serial connection, four dialects (docs/usb-link.md).
#
#   link/link.py            the Link: frames the bytes of one connection and picks the dialect
#                           (docs/spec.md section 6); the interface every dialect implements
#   link/commands.py        the board's own commands (status, board, fen, pgn, mode, new, ...), and
#                           the dialect that streams the board's events in the words of tools/replay.py
#   link/engine_command.py  ... the `engine` command, loaded when first typed
#   link/ble_command.py     ... the `ble` command, loaded when first typed
#   link/cpp.py             the Chess Peripheral Protocol of the CPP apps: the session and the board's side,
#   link/cpp_commands.py    ... the central's commands (begin, move, feature, ...)
#   link/cpp_terms.py       ... and what both use
#   link/chesslink.py       Millennium ChessLink (V, S, L, X, W, R, T, I) of BearChess, Lucas Chess, ...
#   link/dgt.py             DGT's board protocol (dgtbrd.h) of picochess, LiveChess, Rabbit, on the USB port
#   link/dgt_bus.py         ... its bus mode (LiveChess), loaded with the first bus frame
#   link/pieces.py          what stands on each square, as far as the board can tell (CPP, ChessLink, DGT)
#   link/ble.py             a second Link over Bluetooth LE on a Pico W, for phone apps (CPP, ChessLink)
# CPP, ChessLink and DGT are imported when the PC first speaks them, so a board that never meets
# them keeps their bytecode out of RAM. The Link is `from link.link import Link`.
#
# Here, and nothing else: what the lines may carry, for the Link and the dialects alike. This file
# imports nothing, so no module of the package imports back into one that imports it. (A module of
# its own would cost the boot heap another module's dictionary: tools/bench/bench_board.py.)


def short(text):
    """At most 24 characters: a word quoted back in an `err` line."""
    return text if len(text) <= 24 else text[:21] + "..."


def ascii_only(text):
    # Lines must stay ASCII (docs/spec.md section 6): an exception's text could carry anything.
    for ch in text:
        if not 32 <= ord(ch) < 127:
            break
    else:
        return text
    out = ""
    for ch in text:
        out += ch if 32 <= ord(ch) < 127 else "?"
    return out
