// The PC end of the Pico's USB serial port (CDC), without rp2040js's interrupt storm.
//
// rp2040js's USBCDC plays the host: it enumerates the device and moves bytes. Out of the box it
// completes every OUT transfer the device arms at once, with no data, so the chip takes an endless
// stream of USB interrupts a real host never causes (a real host NAKs until it has data), and the
// interpreter runs 3.4x slower than on a Pico. Here an armed OUT transfer is held until there is
// a byte to send, which makes the emulated chip as fast as a real one (docs/emulated-pico.md).
import { USBCDC } from 'rp2040js';

export class UsbSerial {
  constructor(rp2040) {
    this.cdc = new USBCDC(rp2040.usbCtrl);
    this.rp2040 = rp2040;
    this.connected = false;
    this.text = ''; // everything the board printed since start-up
    this.lines = []; // [emulated ms, line] of every complete line
    this._partial = '';
    this._pending = []; // bytes for the board not yet in the CDC FIFO
    this._held = null; // size of the OUT transfer the device armed, held until there is data
    const usb = rp2040.usbCtrl;
    const complete = usb.onEndpointRead; // USBCDC's: hands over what its txFIFO holds
    this._complete = complete;
    usb.onEndpointRead = (endpoint, size) => {
      if (endpoint === this.cdc.outEndpoint && this.cdc.txFIFO.empty) {
        this._held = size;
        return;
      }
      complete(endpoint, size);
    };
    this.cdc.onDeviceConnected = () => {
      this.connected = true;
    };
    this.cdc.onSerialData = (buffer) => {
      const s = Buffer.from(buffer).toString('latin1');
      this.text += s;
      this._partial += s;
      let nl;
      while ((nl = this._partial.indexOf('\n')) >= 0) {
        const line = this._partial.slice(0, nl).replace(/\r$/, '');
        this._partial = this._partial.slice(nl + 1);
        this.lines.push([this.rp2040.clock.nanos / 1e6, line]);
        if (this.onLine) this.onLine(line);
      }
    };
  }

  /** Queue bytes (a string or bytes) for the board; a held OUT transfer takes them at once. */
  write(data) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    for (const b of bytes) this._pending.push(b);
    this._feed();
  }

  // The CDC FIFO holds 512 bytes: feed it as it drains.
  _feed() {
    const fifo = this.cdc.txFIFO;
    while (this._pending.length && !fifo.full) fifo.push(this._pending.shift());
    if (this._held !== null && !fifo.empty) {
      const size = this._held;
      this._held = null;
      this._complete(this.cdc.outEndpoint, size);
    }
  }

  /** Called by the run loop now and then: keeps a long write flowing. */
  poll() {
    if (this._pending.length) this._feed();
  }
}
