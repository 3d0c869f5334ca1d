// The emulated Pico as a process: JSON requests on stdin, one JSON answer line each on stdout.
//
//   node tools/emu/server.mjs [--uf2 PATH] [--bootrom PATH]
//
// tools/emu/chip.py starts it and speaks for Python (tests, bench, tools/emu/run.py). Requests:
//   {"op": "boot", "fs": PATH | "flash": PATH, "wait": TEXT, "limit_ms": N}
//       power on a new chip with the littlefs image PATH at 0xa0000 (or a whole flash dump), run
//       until the USB console printed TEXT (default: the MicroPython banner or the firmware's ready line)
//   {"op": "run", "ms": N, "until": TEXT, "events": [[T_MS, CLOSED, SQ], ...]}
//       run N ms of emulated time (or until the console prints TEXT), moving magnets at T_MS
//       (relative to now) on the way; answers the console lines and LED frames since the last answer;
//   {"op": "squares", "closed": [64 x 0/1]}       the magnets on the board now
//   {"op": "write", "text": TEXT}                  bytes to the board's USB serial
//   {"op": "exec", "code": TEXT, "limit_ms": N}    run a snippet in the raw REPL: {out, err, ms}
//       with "events" and "go": magnets moved at T_MS after the snippet prints the line `go`
//   {"op": "soft_reset"}                           leave the raw REPL, main.py starts again
//       with "cut": K, "keep": FRACTION: the power fails during the K-th flash erase/program
//       from now, with FRACTION of it done, and comes back (answers "cut": true)
//   {"op": "power_cycle"}                          cut the power now and restore it: only the flash survives
//   {"op": "flash_ops"}                            flash erases + programs since power-on
//   {"op": "flash_busy", "since_ms": T}            [start, ms] of each flash wait from T on
//   {"op": "dump_flash", "path": PATH}             the 2 MB flash to a file (a later boot's "flash")
//   {"op": "quit"}
// Answers with console lines carry "frames" (WS2812B: [ms, GRB hex in chain order]) and "mono"
// (MAX7219: [ms, 8 digit bytes, lit]), both since the last answer.
// Every answer carries "now_ms" (emulated), "cpu_ms" and "flash_ms" (time the core ran and the
// time it waited for the flash since boot), "resets", and "error" when a request failed.
import fs from 'fs';
import readline from 'readline';
import { Pico } from './pico.mjs';
import { ReedMatrix } from './matrix.mjs';
import { Ws2812Decoder } from './ws2812.mjs';
import { Max7219 } from './max7219.mjs';
import { execRaw, softReset } from './repl.mjs';
import { FLASH_SIZE } from './flash.mjs';


function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

// The two inputs a user downloads (tools/emu/chip.py checks them and says where from).
const uf2Path = option('--uf2', process.env.PICO_UF2 || '');
const bootromPath = option('--bootrom', process.env.PICO_BOOTROM || '');
// The pins of firmware/config.py's defaults (the server is told others with --pins).
const pins = JSON.parse(option('--pins', '{"rows":[14,15,16,17,18,19,20,21],"columns":[2,3,4,5,6,7,8,9],"led":22,"spi":1,"cs":13}'));

let pico = null;
let matrix = null;
let leds = null;
let mono = null;
let sentMono = 0;
let sentLines = 0;
let sentFrames = 0;

function newPico(request) {
  const uf2 = fs.readFileSync(uf2Path);
  const bootrom = fs.readFileSync(bootromPath);
  const options = { uf2, bootrom, flashTimings: request.flash_timings !== false };
  if (request.flash) options.flash = fs.readFileSync(request.flash);
  else if (request.fs) options.fsImage = fs.readFileSync(request.fs);
  pico = new Pico(options);
  matrix = pico.add(new ReedMatrix(pins.rows, pins.columns));
  leds = pico.add(new Ws2812Decoder(pins.led));
  mono = pico.add(new Max7219(pins.spi, pins.cs));
  if (request.closed) matrix.setAll(request.closed);
  pico.boot();
  resetTracking();
}

// Console lines and LED frames not yet sent.
function news() {
  const lines = pico.usb.lines.slice(sentLines).map(([t, s]) => [Math.round(t * 1000) / 1000, s]);
  sentLines = pico.usb.lines.length;
  const frames = leds.frames.slice(sentFrames).map((f) => [Math.round(f.t * 1000) / 1000, Buffer.from(f.bytes).toString('hex')]);
  sentFrames = leds.frames.length;
  const monoFrames = mono.frames.slice(sentMono).map((f) => [Math.round(f.t * 1000) / 1000, f.rows, f.on]);
  sentMono = mono.frames.length;
  return { lines, frames, mono: monoFrames };
}

function waitFor(text, limitMs) {
  const usb = pico.usb;
  const from = usb.text.length;
  return pico.runUntil(() => usb.text.indexOf(text, from) >= 0, limitMs);
}

// After a reset the models and USB host are new: the console starts over.
function resetTracking() {
  sentLines = 0;
  sentFrames = 0;
  sentMono = 0;
}

const ops = {
  boot(r) {
    newPico(r);
    const usb = pico.usb;
    const wanted = r.wait || null;
    const ok = pico.runUntil(
      () => (wanted ? usb.text.includes(wanted) : usb.connected && pico.uptimeMs > 300),
      r.limit_ms || 20000,
    );
    return { ok, text: usb.text, ...news() };
  },
  run(r) {
    const events = r.events || [];
    const { clock } = pico.rp2040;
    const start = clock.nanos;
    for (const [t, closed, sq] of events) {
      // Scheduled on the emulated clock, so each lands at its exact instant (bounce is 1-4 ms).
      clock.createAlarm(() => matrix.set(sq, closed)).schedule(Math.max(0, t * 1e6 - (clock.nanos - start)));
    }
    let cut = false;
    if (r.cut != null) {
      // A power cut during the K-th flash erase/program from now, with `keep` of it done.
      let seen = 0;
      pico.hooks.onWrite = (kind, offset, count, undo) => {
        if (seen++ === r.cut) {
          undo(r.keep == null ? 0.5 : r.keep);
          cut = true;
          pico.stop();
        }
      };
    }
    const resetsBefore = pico.resets;
    // `until` must be printed and its line finished; after a reset (machine.reset()) the console
    // starts over on the new USB connection.
    let usb = pico.usb;
    let from = usb.text.length;
    const printed = () => {
      if (pico.usb !== usb) {
        usb = pico.usb;
        from = 0;
      }
      const at = usb.text.indexOf(r.until, from);
      return at >= 0 && usb.text.indexOf('\n', at) >= 0;
    };
    const matched = pico.runUntil(() => cut || (r.until != null && printed()), r.ms);
    pico.hooks.onWrite = null;
    if (!cut && pico.resets !== resetsBefore) resetTracking();
    const out = news();
    if (cut) {
      pico.powerCycle();
      resetTracking();
    }
    return { matched: r.until != null && matched && !cut, cut, ...out };
  },
  flash_ops() {
    return { ops: pico.hooks.operations };
  },
  flash_busy(r) {
    // The flash waits that began at or after since_ms (emulated), as [start ms, ms].
    return { busy: pico.flashBusy.filter(([t]) => t >= (r.since_ms || 0)) };
  },
  squares(r) {
    matrix.setAll(r.closed);
    return {};
  },
  write(r) {
    pico.usb.write(r.text);
    return {};
  },
  exec(r) {
    if (r.events) {
      // Magnets move at their times counted from the instant the snippet prints r.go alone on a
      // line, so a snippet can time what the board does with them.
      const usb = pico.usb;
      usb.onLine = (line) => {
        if (line !== r.go) return;
        usb.onLine = null;
        const { clock } = pico.rp2040;
        for (const [t, closed, sq] of r.events) clock.createAlarm(() => matrix.set(sq, closed)).schedule(t * 1e6);
      };
    }
    const result = execRaw(pico, r.code, r.limit_ms || 600000);
    pico.usb.onLine = null;
    return { ...result, ...news() };
  },
  soft_reset() {
    softReset(pico);
    return {};
  },
  power_cycle() {
    const out = news();
    pico.powerCycle();
    resetTracking();
    return out;
  },
  dump_flash(r) {
    fs.writeFileSync(r.path, pico.flash.subarray(0, FLASH_SIZE));
    return {};
  },
  quit() {
    process.exit(0);
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    const op = ops[request.op];
    if (!op) throw new Error(`unknown op ${request.op}`);
    if (!pico && request.op !== 'boot' && request.op !== 'quit') throw new Error('boot first');
    answer = op(request);
  } catch (e) {
    answer = { error: String(e && e.stack ? e.stack : e) };
  }
  if (pico) {
    answer.now_ms = pico.nowMs;
    answer.cpu_ms = pico.cpuNanos / 1e6;
    answer.flash_ms = pico.flashNanos / 1e6;
    answer.resets = pico.resets;
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
