// Reads the WS2812B chain's data line the way the LEDs do: by pulse width.
//
// Each bit is a high pulse then a low one, 1.25 us in all: high for about 0.8 us is a 1, about
// 0.4 us a 0 (anything over 600 ns counts as a 1). A low gap over 50 us latches the frame.
// 24 bits per LED, green-red-blue, most significant bit first. A frame is reported as
// {t: emulated ms at its last bit, bytes: Uint8Array in chain order (GRB per LED)}.
const ONE_NS = 600;
const LATCH_NS = 50000;

export class Ws2812Decoder {
  constructor(pin) {
    this.pin = pin;
    this.frames = []; // every latched frame
    this.onFrame = null;
    this._bits = [];
    this._riseAt = -1;
    this._lastEdge = 0;
    this._unlisten = null;
    this._timer = null;
  }

  attach(rp2040) {
    if (this._unlisten) this._unlisten();
    this.rp2040 = rp2040;
    this._bits = [];
    this._riseAt = -1;
    const pin = rp2040.gpio[this.pin];
    let high = pin.outputValue && pin.outputEnable;
    // The latch is a silence: an alarm LATCH_NS after the last falling edge ends the frame.
    this._timer = rp2040.clock.createAlarm(() => this._latch());
    this._unlisten = pin.addListener(() => {
      const now = rp2040.clock.nanos;
      const level = pin.outputEnable && pin.outputValue;
      if (level === high) return;
      high = level;
      if (level) {
        this._riseAt = now;
        this._timer.cancel();
      } else if (this._riseAt >= 0) {
        this._bits.push(now - this._riseAt > ONE_NS ? 1 : 0);
        this._riseAt = -1;
        this._lastEdge = now;
        this._timer.schedule(LATCH_NS);
      }
    });
  }

  _latch() {
    const bits = this._bits;
    this._bits = [];
    if (bits.length < 24) return; // a glitch, not a frame
    const bytes = new Uint8Array(bits.length >> 3);
    for (let i = 0; i < bytes.length * 8; i++) bytes[i >> 3] |= bits[i] << (7 - (i & 7));
    const frame = { t: this._lastEdge / 1e6, bytes };
    this.frames.push(frame);
    if (this.onFrame) this.onFrame(frame);
  }
}
