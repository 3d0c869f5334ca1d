// The board's 64 reed switches as the Pico's GPIOs see them (hardware/schematic.md).
//
// Each square's switch sits in series with a diode from its file's column to its rank's row.
// Columns are inputs with pull-ups; rows are open-drain outputs. A row the firmware drives low
// pulls low every column whose switch on that rank is closed; the diodes keep other rows out of
// it, so no ghosting. A released row (output disabled, or driven high) pulls nothing.
// Square numbering as config.py: rows[r] = rank r+1, columns[f] = file a+f, square 8*r + f.
import { GPIOPinState } from 'rp2040js';

export class ReedMatrix {
  constructor(rowPins, columnPins) {
    this.rowPins = rowPins;
    this.columnPins = columnPins;
    this.closed = new Uint8Array(64); // 1 = a magnet holds the switch closed
    this.rp2040 = null;
    this._unlisten = [];
  }

  /** Wire to an RP2040 (again after a power cycle). */
  attach(rp2040) {
    for (const off of this._unlisten) off();
    this.rp2040 = rp2040;
    this._unlisten = this.rowPins.map((n) => rp2040.gpio[n].addListener(() => this.update()));
    this.update();
  }

  set(square, closed) {
    this.closed[square] = closed ? 1 : 0;
    this.update();
  }

  setAll(squares) {
    this.closed.set(squares);
    this.update();
  }

  // Recompute every column's level from the rows driven low now.
  update() {
    const { rp2040 } = this;
    if (!rp2040) return;
    let low = 0;
    for (let r = 0; r < 8; r++) {
      if (rp2040.gpio[this.rowPins[r]].value !== GPIOPinState.Low) continue;
      for (let f = 0; f < 8; f++) if (this.closed[8 * r + f]) low |= 1 << f;
    }
    for (let f = 0; f < 8; f++) {
      const pin = rp2040.gpio[this.columnPins[f]];
      const level = !(low & (1 << f));
      if (pin._level !== level) {
        pin._level = level;
        pin.setInputValue(level);
      }
    }
  }
}
