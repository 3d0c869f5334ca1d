// The MAX7219 LED driver on the Pico's SPI pins (config.py: spi_id 1, SCK 10, MOSI 11, MISO 12, CS 13).
//
// The chip is a 16-bit shift register clocked by SCK; LOAD (the CS pin) rising latches the last 16
// bits as register (high byte) and data (low byte). Registers 1-8 are the digits - one rank each,
// bit f lit = file f as the firmware maps it - 9 decode mode, 10 intensity, 11 scan limit,
// 12 shutdown (1 = on), 15 display test. DOUT is what went in 16 clocks earlier: the firmware's
// self-test sends a word and a no-op and reads the word back on MISO.
// A frame {t: emulated ms, rows: [8 bytes, digit 1 first], on: not shut down nor in test} is
// recorded at every latch that changes what the LEDs show.
export class Max7219 {
  constructor(spiIndex, csPin) {
    this.spiIndex = spiIndex;
    this.csPin = csPin;
    this.frames = [];
    this.registers = new Uint8Array(16);
    this._shift = []; // bytes shifted in since the last latch
    this._unlisten = null;
  }

  attach(rp2040) {
    if (this._unlisten) this._unlisten();
    this.rp2040 = rp2040;
    this.registers.fill(0);
    const spi = rp2040.spi[this.spiIndex];
    const history = [0, 0]; // the last two bytes in: DOUT shifts them out again
    spi.onTransmit = (value) => {
      const out = history.shift();
      history.push(value & 0xff);
      this._shift.push(value & 0xff);
      spi.completeTransmit(out);
    };
    const cs = rp2040.gpio[this.csPin];
    let high = true;
    this._unlisten = cs.addListener(() => {
      const level = cs.outputEnable ? cs.outputValue : true;
      if (level && !high) this._latch();
      high = level;
    });
  }

  _latch() {
    const bytes = this._shift;
    this._shift = [];
    if (bytes.length < 2) return;
    const register = bytes[bytes.length - 2] & 0x0f;
    const data = bytes[bytes.length - 1];
    if (register === 0) return; // no-op
    const before = this.look();
    this.registers[register] = data;
    const after = this.look();
    if (JSON.stringify(before) !== JSON.stringify(after)) this.frames.push({ t: this.rp2040.clock.nanos / 1e6, ...after });
  }

  look() {
    const r = this.registers;
    return { rows: Array.from(r.subarray(1, 9)), on: r[12] === 1 && r[15] === 0 };
  }
}
