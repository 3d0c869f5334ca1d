// Runs the RP2040's PIO state machines in step with the emulated clock.
//
// rp2040js steps PIO from setTimeout, one instruction a step whatever the clock divider, and
// counts an instruction's delay cycles without waiting them out: a WS2812B program then sends its
// pulses at the speed of the JavaScript event loop, not at 800 kHz, and a harness that runs the
// core in a synchronous loop never runs PIO at all. Here each state machine executes one
// instruction per (divider) system clock cycles, and waits its delay cycles, as the datasheet's
// section 3.5 has it, so hardware/ws2812_pio.py's frames come out at their real timing.
//
// Use: const pio = new PioClock(rp2040); then pio.advance(ns) after every clock.tick(ns), and
// while pio.busy, tick a sleeping core's clock in steps of at most PIO_STEP_NS.
export const PIO_STEP_NS = 64;
const CYCLE_NS = 8; // 125 MHz

export class PioClock {
  constructor(rp2040) {
    this.rp2040 = rp2040;
    this.cycle = 0; // system clock cycles seen
    this.rest = 0; // nanoseconds not yet a whole cycle
    this.next = new Map(); // state machine -> the cycle of its next instruction
    for (const pio of rp2040.pio) pio.run = () => {}; // no unsynchronised stepping
  }

  /** True while a state machine runs (is not stalled on its FIFO, a pin or an IRQ): then the
   * clock must move in small steps, or the pin edges it makes get the wrong times. */
  get busy() {
    for (const pio of this.rp2040.pio) {
      if (pio.stopped) continue;
      for (const sm of pio.machines) if (sm.enabled && !sm.waiting) return true;
    }
    return false;
  }

  advance(ns) {
    const pios = this.rp2040.pio;
    if (pios[0].stopped && pios[1].stopped) {
      this.rest = 0;
      this.next.clear();
      return;
    }
    this.rest += ns;
    const cycles = Math.floor(this.rest / CYCLE_NS);
    this.rest -= cycles * CYCLE_NS;
    const end = this.cycle + cycles;
    for (const pio of pios) {
      if (pio.stopped) continue;
      for (const sm of pio.machines) {
        if (!sm.enabled) continue;
        const div = Math.max(1, sm.clockDivInt + sm.clockDivFrac / 256);
        let at = this.next.get(sm);
        if (at === undefined || at < this.cycle) at = this.cycle;
        while (at < end) {
          if (sm.waiting) {
            sm.step(); // checks the wait (a FIFO, a pin, an IRQ); executes on when it clears
            if (sm.waiting) {
              // Nothing changes until the core or a DMA acts: skip the rest of this advance.
              at = end;
              break;
            }
            at += div;
            continue;
          }
          const before = sm.cycles;
          sm.step();
          at += div * Math.max(1, sm.cycles - before); // the instruction and its delay cycles
        }
        this.next.set(sm, at);
      }
      pio.checkChangedPins();
    }
    this.cycle = end;
  }
}
