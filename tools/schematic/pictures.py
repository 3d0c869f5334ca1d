"""Pictures a builder can follow, as SVG: the wiring of one rank, of one file, and one square in section.

The two wiring pictures are drawn with schemdraw from the same pin tables as the SKiDL circuit
(circuit.py), so a GPIO or Pico pin in a picture is the one in the netlist. The cross-section is
plain SVG written here, to scale (1 mm = 8 px), with the depths hardware/build-notes.md states.
"""
import schemdraw
import schemdraw.elements as elm

import circuit as board

FILES = board.FILES
# Physical Pico pin of each net, and the GPIO (both from circuit.py's tables).
PIN_OF = {name: pin for pin, name in board.MATRIX_NETS.items()}


def _gpio(net):
    return board.PICO_PINS[PIN_OF[net]]


def _svg(drawing):
    return drawing.get_imagedata("svg").decode("utf-8") + "\n"


def one_rank(rank=1):
    """Rank `rank`: its row wire and the 8 squares on it, each column with its pull-up."""
    row = "ROW%d" % rank
    d = schemdraw.Drawing(canvas="svg", show=False)
    d.config(fontsize=11, unit=2.0, margin=1.5)
    step = 3.2
    top = 9.5
    d += elm.Line().at((-1.5, top)).to((7 * step + 1.0, top)).label("3V3 (Pico pin 36)", loc="top", halign="left")
    row_y = 0.0
    for f in range(8):
        x = f * step
        col = "COL" + FILES[f].upper()
        sq = "%s%d" % (FILES[f], rank)
        d += elm.Dot().at((x, top))
        d += elm.Resistor().down().at((x, top)).to((x, top - 2.5)).label("R%d\n10k" % (f + 1), loc="bottom", fontsize=9)
        d += elm.Dot().at((x, top - 2.5))
        d += elm.Line().at((x, top - 2.5)).to((x - 0.9, top - 2.5))
        d += elm.Label().at((x - 1.0, top - 2.1)).label("%s\n%s pin %d" % (col, _gpio(col), PIN_OF[col]), fontsize=8, halign="right")
        d += elm.Diode().down().at((x, top - 2.5)).to((x, top - 4.8)).label("D_%s\nband\ndown" % sq, loc="bottom", fontsize=8)
        d += elm.SwitchReed().down().at((x, top - 4.8)).to((x, top - 7.6)).label("S_%s" % sq, loc="bottom", fontsize=8)
        d += elm.Line().at((x, top - 7.6)).to((x, row_y))
        d += elm.Dot().at((x, row_y))
    d += elm.Line().at((-1.5, row_y)).to((7 * step + 1.0, row_y)).label(
        "%s: %s, Pico pin %d (driven low while rank %d is read)" % (row, _gpio(row), PIN_OF[row], rank),
        loc="bottom",
        halign="left",
    )
    return _svg(d)


def one_file(f=0):
    """File `f`: its column wire with the pull-up and the 8 squares on it, one per row."""
    col = "COL" + FILES[f].upper()
    d = schemdraw.Drawing(canvas="svg", show=False)
    d.config(fontsize=11, unit=2.0, margin=2.5)
    x = 0.0
    step = 2.6
    top = 8 * step + 3.0
    d += elm.Line().at((x - 1.0, top)).to((x + 1.0, top)).label("3V3 (Pico pin 36)", loc="top")
    d += elm.Resistor().down().at((x, top)).to((x, top - 2.4)).label("R%d 10k" % (f + 1), loc="bottom")
    d += elm.Dot().at((x, top - 2.4))
    d += elm.Line().at((x, top - 2.4)).to((x - 2.5, top - 2.4)).label("%s: %s, Pico pin %d" % (col, _gpio(col), PIN_OF[col]), loc="top", halign="right")
    for rank in range(8, 0, -1):
        y = (rank - 1) * step + 0.6
        sq = "%s%d" % (FILES[f], rank)
        row = "ROW%d" % rank
        d += elm.Dot().at((x, y))
        d += elm.Diode().right().at((x, y)).to((x + 2.6, y)).label("D_" + sq, loc="top", fontsize=8)
        d += elm.SwitchReed().right().at((x + 2.6, y)).to((x + 5.4, y)).label("S_" + sq, loc="top", fontsize=8)
        d += elm.Line().at((x + 5.4, y)).to((x + 9.0, y)).label("%s: %s, pin %d" % (row, _gpio(row), PIN_OF[row]), loc="right", halign="left")
    d += elm.Line().at((x, top - 2.4)).to((x, 0.6))
    return _svg(d)


# The cross-section: (x, y, width, height) in mm, y down from the playing surface (y = 0).
SQUARE_MM = 50
TOP_MM = 3.0  # board top: 3 mm opal acrylic, or veneer with a light hole under the LED
FELT_MM = 1.0
MAGNET = (6.35, 3.18)  # K&J D42-N52
REED_GLASS = (2.5, 12.7)  # MDSR-7: 12.7 mm glass, about 2.5 mm across
REED_GAP_MM = 0.5  # between the underside of the top and the glass: surface to glass = 3.5 mm
POCKET_MM = 2.0  # blind hole in the underside of the top for the upper lead's bend
FRAME_MM = 18.0  # the frame under the top that holds the reeds upright (plywood, or printed)


def square_section():
    """One square cut through its centre, to scale: piece, magnet, top, reed, diode, LED, light."""
    k = 8.0  # px per mm
    width_mm = SQUARE_MM + 16
    height_mm = 24 + TOP_MM + FRAME_MM + 22
    ox, oy = 14 * k, 24 * k  # the surface at y = oy, the square from x = ox
    out = []

    def rect(x, y, w, h, fill, stroke="#333", extra=""):
        out.append(
            '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" stroke-width="1"%s/>'
            % (ox + x * k, oy + y * k, w * k, h * k, fill, stroke, extra)
        )

    def text(x, y, s, anchor="start", size=12):
        out.append(
            '<text x="%.1f" y="%.1f" font-family="sans-serif" font-size="%d" text-anchor="%s">%s</text>'
            % (ox + x * k, oy + y * k, size, anchor, s)
        )

    def line(x1, y1, x2, y2, colour="#333", dash=""):
        out.append(
            '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"%s/>'
            % (ox + x1 * k, oy + y1 * k, ox + x2 * k, oy + y2 * k, colour, ' stroke-dasharray="4,3"' if dash else "")
        )

    c = SQUARE_MM / 2
    # The piece: base 28 mm wide, magnet in a pocket at its centre, felt under it.
    base = 28.0
    rect(c - base / 2, -12 - FELT_MM, base, 12, "#d9c7a3")
    rect(c - base / 2, -FELT_MM, base, FELT_MM, "#3a6b35")
    rect(c - MAGNET[0] / 2, -FELT_MM - MAGNET[1], MAGNET[0], MAGNET[1], "#9aa0a6")
    note = SQUARE_MM + 3  # notes to the right of the square, with a leader line

    def label(x, y, y_text, words):
        line(x, y, note - 0.5, y_text - 0.4, "#888")
        text(note, y_text, words)

    label(c + base / 2, -8, -12, "piece base (28 mm here)")
    label(c + MAGNET[0] / 2, -FELT_MM - 1.5, -8, "magnet 6.35 x 3.18 mm N52, axial, flush")
    label(c + base / 2, -FELT_MM / 2, -4, "felt 1 mm")
    # The top and the square's edges.
    rect(0, 0, SQUARE_MM, TOP_MM, "#f2f2f2")
    line(0, -18, 0, TOP_MM + FRAME_MM, dash=True)
    line(SQUARE_MM, -18, SQUARE_MM, TOP_MM + FRAME_MM, dash=True)
    text(c, -20, "one square, %d mm" % SQUARE_MM, "middle", 13)
    text(-1, TOP_MM - 0.6, "top %g mm" % TOP_MM, "end")
    text(-1, TOP_MM + FRAME_MM - 1, "frame %g mm" % FRAME_MM, "end")
    # The frame holding the reed upright, with the reed in its hole at the centre.
    rect(0, TOP_MM, SQUARE_MM, FRAME_MM, "#e8d9b5")
    hole = 4.0
    rect(c - hole / 2, TOP_MM, hole, FRAME_MM, "#ffffff")
    rect(c - hole / 2, TOP_MM - POCKET_MM, hole, POCKET_MM, "#ffffff")  # the pocket in the top
    gy = TOP_MM + REED_GAP_MM
    g = REED_GLASS[0] / 2
    rect(c - g - 0.4, gy, REED_GLASS[0], REED_GLASS[1], "#cfe8f3")
    gc = c - 0.4  # the glass's axis, left of centre to leave the lead room in the hole
    line(gc, gy, gc, gy + REED_GLASS[1] / 2 + 0.6, "#555")  # upper blade
    line(gc, gy + REED_GLASS[1] / 2 - 0.6, gc, gy + REED_GLASS[1], "#555")  # lower blade
    text(c - 3, gy + 4, "reed MDSR-7, upright", "end")
    text(c - 3, gy + 6, "glass top 3.5 mm under the surface", "end")
    text(c - 3, gy + 8, "(4.5 mm under the magnet)", "end")
    # Upper lead: up 2 mm into the pocket (never bent closer to the glass), back down beside the
    # glass to the diode under the frame; lower lead straight down to the row.
    top_bend = gy - POCKET_MM - 0.3
    side = c + g + 0.3
    line(gc, gy, gc, top_bend)
    line(gc, top_bend, side, top_bend)
    line(side, top_bend, side, TOP_MM + FRAME_MM + 3)
    rect(side - 0.9, TOP_MM + FRAME_MM + 3, 1.8, 3.6, "#c94c4c")
    rect(side - 0.9, TOP_MM + FRAME_MM + 3, 1.8, 0.6, "#222")  # the band (cathode) toward the reed
    label(side + 1, TOP_MM + FRAME_MM + 5, TOP_MM + FRAME_MM + 5.5, "BAT85: band (cathode) to the reed")
    line(side, TOP_MM + FRAME_MM + 6.6, side, TOP_MM + FRAME_MM + 9)
    line(side, TOP_MM + FRAME_MM + 9, note - 0.5, TOP_MM + FRAME_MM + 9, "#1f5fbf")
    text(note, TOP_MM + FRAME_MM + 9.4, "column of the file (anode side)")
    line(gc, gy + REED_GLASS[1], gc, TOP_MM + FRAME_MM + 14)
    line(gc, TOP_MM + FRAME_MM + 14, note - 0.5, TOP_MM + FRAME_MM + 14, "#2e8b57")
    text(note, TOP_MM + FRAME_MM + 14.4, "row of the rank")
    text(c - 3, TOP_MM + FRAME_MM + 17, "rows and columns run under the frame", "end", 11)
    label(c + hole / 2, TOP_MM - POCKET_MM / 2, 2.6, "2 mm pocket for the lead's bend, 1 mm of top left")
    # The LED beside the reed, lighting the square through the top.
    lx = c + 13
    rect(lx - 3, TOP_MM + 6, 6, 1.6, "#444")  # WS2812B-5050 on its pixel board
    rect(lx - 5, TOP_MM + 7.6, 10, 1.0, "#2b6e2b")
    rect(lx - 4, TOP_MM, 8, 6, "#fffbe0")  # the light well
    for dx in (-2.5, 0, 2.5):
        line(lx, TOP_MM + 6, lx + dx * 1.6, 0.3, "#e0a800")
    label(lx + 4, TOP_MM + 3, 6, "light well 8 mm, white inside")
    label(lx + 3, TOP_MM + 6.8, 9.5, "WS2812B (or 5 mm LED) 13 mm off centre")
    label(lx + 2, TOP_MM / 2, -0.5, "light through the opal top (or a hole)")
    body = "\n".join(out)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">\n'
        '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
        % (width_mm * k + 330, height_mm * k, width_mm * k + 330, height_mm * k, body)
    )


def drawings():
    """{file name: SVG text} for hardware/schematic/."""
    return {"one-rank.svg": one_rank(1), "one-file.svg": one_file(0), "square-section.svg": square_section()}
