// An emulated Raspberry Pi Pico: rp2040js booting the official MicroPython rp2 build from flash.
//
//   const pico = new Pico({ uf2, bootrom, fsImage });   // bytes of the three files
//   pico.boot();  pico.runMs(2000);  pico.usb.write('help\n');  pico.runUntil(() => ..., 5000);
//
// Power: powerCycle() is a cut and a restart - a new chip, every register and peripheral back to
// its reset state, only the flash kept (as on a Pico). The watchdog reset that machine.reset()
// and mpremote's `reset` fire, which rp2040js only logs, does the same here.
//
// Time: the core counts cycles at 125 MHz. While it sleeps (WFI/WFE: MicroPython idling in
// time.sleep or asyncio) the clock jumps to the next timer alarm, so a transcript of a minute of
// play runs in seconds. Flash erase/program time (flash.mjs) is added to the clock as well.
// Nothing here waits for the wall clock: the host side (the tests) is this same program, so it
// never times out.
import { PioClock, PIO_STEP_NS } from './pio.mjs';
import { ConsoleLogger, LogLevel, RP2040 } from 'rp2040js';
import { FLASH_BASE, FS_OFFSET, FlashHooks, loadUf2 } from './flash.mjs';
import { UsbSerial } from './usb.mjs';

const CYCLE_NS = 8; // 125 MHz

export class Pico {
  /**
   * uf2: the MicroPython .uf2 bytes; bootrom: the B1 boot ROM bytes (16384);
   * fsImage: a littlefs image for flash offset 0xa0000 (tools/emu/image.py), or none;
   * flash: a whole flash to start from instead (a Uint8Array kept from an earlier run).
   */
  constructor({ uf2, bootrom, fsImage = null, flash = null, flashTimings = true }) {
    this.bootrom = new Uint32Array(bootrom.buffer.slice(bootrom.byteOffset, bootrom.byteOffset + bootrom.length));
    this.flashTimings = flashTimings;
    if (flash) {
      this.flash = new Uint8Array(flash);
    } else {
      this.flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);
      loadUf2(uf2, this.flash);
      if (fsImage) this.flash.set(fsImage, FS_OFFSET);
    }
    this.models = []; // things with attach(rp2040): the reed matrix, the LED decoders
    this.resets = 0;
    this.stopped = false;
    this.cpuNanos = 0; // time the core spent executing, not sleeping nor waiting for the flash
    this.flashNanos = 0; // time the chip spent waiting for the flash
    // [emulated ms at its start, ms it lasted] of each wait for a flash erase or program: when the
    // CPU ran no code (the firmware runs from that flash), so a test can set transitions there.
    this.flashBusy = [];
  }

  /** Add a model of the board's hardware (re-attached after every reset). */
  add(model) {
    this.models.push(model);
    if (this.rp2040) model.attach(this.rp2040);
    return model;
  }

  /** Power on (or again, after a cut): a fresh chip on the same flash. */
  boot() {
    const clockNanos = this.rp2040 ? this.rp2040.clock.nanos : 0;
    const rp2040 = new RP2040();
    // Emulated time keeps running across resets, as a wall clock would.
    if (clockNanos) rp2040.clock.tick(clockNanos);
    rp2040.logger = new ConsoleLogger(LogLevel.Error); // rp2040js logs every unimplemented register (QSPI pads, the 2nd core) as a warning
    rp2040.loadBootrom(this.bootrom);
    rp2040.flash.set(this.flash.subarray(0, rp2040.flash.length));
    this.flash = rp2040.flash; // one flash array: writes land here and survive power cycles
    this.hooks = new FlashHooks(rp2040, { timings: this.flashTimings });
    this.usb = new UsbSerial(rp2040);
    // PIO in step with the clock (pio.mjs): the WS2812B driver's pulses come out at their timing.
    this.pio = new PioClock(rp2040);
    const watchdog = Object.values(rp2040.peripherals).find((p) => 'onWatchdogTrigger' in p);
    watchdog.onWatchdogTrigger = () => {
      this._resetRequested = true;
      this.stopped = true;
    };
    this.rp2040 = rp2040;
    rp2040.core.PC = FLASH_BASE; // boot2, which then vectors into the image (LR = 0)
    rp2040.core.LR = 0;
    for (const model of this.models) model.attach(rp2040);
    this.bootedAt = rp2040.clock.nanos;
    return this;
  }

  /** Cut the power and restore it: only the flash survives. */
  powerCycle() {
    this.resets++;
    this.boot();
  }

  get nowMs() {
    return this.rp2040.clock.nanos / 1e6;
  }

  /** Emulated ms since the last boot. */
  get uptimeMs() {
    return (this.rp2040.clock.nanos - this.bootedAt) / 1e6;
  }

  /** Run until `done()` is true (checked about every 100 us of emulated time) or `limitMs` pass.
   * Returns true when done() ended it. */
  runUntil(done, limitMs) {
    const end = this.rp2040.clock.nanos + limitMs * 1e6;
    for (;;) {
      if (done()) return true;
      const { clock } = this.rp2040;
      if (clock.nanos >= end) return false;
      this.runSlice(Math.min(end, clock.nanos + 100000));
    }
  }

  /** Run for `ms` of emulated time. */
  runMs(ms) {
    this.runUntil(() => false, ms);
  }

  // The instruction loop, up to emulated time `until` (ns) or stop().
  runSlice(until) {
    let rp2040 = this.rp2040;
    let { core, clock } = rp2040;
    const hooks = this.hooks;
    const pio = this.pio;
    this.stopped = false;
    while (clock.nanos < until && !this.stopped) {
      if (core.waiting) {
        const next = clock.nanosToNextAlarm;
        let ns = Math.max(1, Math.min(next > 0 ? next : until - clock.nanos, until - clock.nanos));
        // A running state machine's pin edges need small steps while the core sleeps.
        if (ns > PIO_STEP_NS && pio.busy) ns = PIO_STEP_NS;
        clock.tick(ns);
        pio.advance(ns);
      } else {
        const ns = core.executeInstruction() * CYCLE_NS;
        this.cpuNanos += ns;
        clock.tick(ns);
        pio.advance(ns);
        if (hooks.busyNanos) {
          const busy = hooks.busyNanos;
          hooks.busyNanos = 0;
          this.flashNanos += busy;
          if (this.flashBusy.length < 100000) this.flashBusy.push([clock.nanos / 1e6, busy / 1e6]);
          clock.tick(busy);
          pio.advance(busy);
        }
      }
    }
    this.usb.poll();
    if (this._resetRequested) {
      this._resetRequested = false;
      this.resets++;
      this.boot();
    }
  }

  stop() {
    this.stopped = true;
  }
}
