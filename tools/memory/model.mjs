// A chip's heap, modelled: MicroPython's official 32-bit WebAssembly build (npm
// @micropython/micropython-webassembly-pyscript, pinned) with the GC pool of the chip's official
// build, the firmware's .mpy files as `make flash` copies them (build/flash/), and one scenario of
// tools/memory/scenarios.py stepped through, one call from JavaScript per step. That build grows its
// heap instead of raising MemoryError and collects garbage only between calls from JavaScript, so:
// each step is small, the heap is measured between steps, after a collection, and a heap that grew
// means the chip would have run out within that step. Between calls that build collects only when
// one was asked for (gc.collect() marks it due; so does an allocation past its threshold, about
// 16 KB): each step ends by asking, as the chip would collect the step's garbage before running out.
//
// Usage (tools/memory/report.py runs it; from the repository root, after `npm ci` and
// `tools/flash.py --prepare-only`):
//   node tools/memory/model.mjs HEAPSIZE SCENARIO_JSON
// HEAPSIZE: the WebAssembly build's `heapsize` that gives the chip's pool (tools/memory/chips.py).
// SCENARIO_JSON: {"name", "settings", "standins", "features", "pool"} for scenarios.Model (pool: the
// chip's GC pool, which the firmware's memory.free() answers from; the model's heap is that and the
// harness's own bytes).
// Prints one JSON object a line: {"step", "label", "alloc", "total", "max_free", "qstrs", "qstr_pools"}
// for each step, then {"end": true, "pool", "initial", "grew", "error", "refused", "standins", "console"}.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const FLASH = path.join(ROOT, "build", "flash");
const HARNESS = path.join(ROOT, "build", "memory");
const MOUNT = "/flash";

function copyTree(FS, hostDir, dst) {
  if (!FS.analyzePath(dst).exists) FS.mkdir(dst);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const host = path.join(hostDir, entry.name);
    const into = `${dst}/${entry.name}`;
    if (entry.isDirectory()) copyTree(FS, host, into);
    else FS.writeFile(into, fs.readFileSync(host));
  }
}

const [heapsize, scenarioJson] = [Number(process.argv[2]), process.argv[3]];
if (!Number.isInteger(heapsize) || !scenarioJson) {
  process.stderr.write("usage: node tools/memory/model.mjs HEAPSIZE SCENARIO_JSON\n");
  process.exit(2);
}

let printed = [];
const mp = await loadMicroPython({ heapsize, stdout: (line) => printed.push(line) });
copyTree(mp.FS, FLASH, MOUNT);
// The harness's own modules (hardware/fake.mpy beside the firmware's hardware package, scenarios.mpy,
// fake_net.mpy: the network for Lichess).
copyTree(mp.FS, path.join(HARNESS, "hardware"), `${MOUNT}/hardware`);
for (const name of ["scenarios.mpy", "fake_net.mpy"]) mp.FS.writeFile(`${MOUNT}/${name}`, fs.readFileSync(path.join(HARNESS, name)));
mp.FS.chdir(MOUNT);

function py(code) {
  printed = [];
  mp.runPython(code);
  return printed;
}

function measure() {
  const out = py("import gc, micropython\n_alloc = gc.mem_alloc()\nmicropython.mem_info()\nmicropython.qstr_info()");
  const gcLine = out.find((l) => l.startsWith("GC:")) || "";
  const freeLine = out.find((l) => l.includes("max free sz")) || "";
  const qstrLine = out.find((l) => l.startsWith("qstr pool:")) || "";
  return {
    alloc: mp.globals.get("_alloc"),
    total: Number((gcLine.match(/total: (\d+)/) || [])[1]),
    max_free: 16 * Number((freeLine.match(/max free sz: (\d+)/) || [])[1]),
    qstrs: Number((qstrLine.match(/n_qstr=(\d+)/) || [])[1]),
    qstr_pools: Number((qstrLine.match(/n_total_bytes=(\d+)/) || [])[1]) - Number((qstrLine.match(/n_str_data_bytes=(\d+)/) || [])[1]),
  };
}

const initial = measure();
const pool = initial.total;
let grew = false;
let error = null;
mp.globals.set("_scenario", scenarioJson);
try {
  py(`import gc, sys, json\nsys.path.insert(0, "${MOUNT}")\n_s = json.loads(_scenario)\n_scenario = None`);
  py(`import scenarios\n_model = scenarios.Model(_s["name"], _s["settings"], _s["standins"], _s["features"], _s["pool"], ${initial.alloc})\n_s = None`);
  for (let step = 0; ; step++) {
    // gc.collect() here only marks a collection due: it runs as this call returns, before measure().
    const out = py("_label = _model.step()\ngc.collect()");
    for (const line of out) process.stderr.write(`python: ${line}\n`);
    const label = mp.globals.get("_label");
    if (label === null || label === undefined) break;
    const m = measure();
    if (m.total > pool) {
      grew = true;
      console.log(JSON.stringify({ step, label, ...m }));
      break;
    }
    if (label !== "") console.log(JSON.stringify({ step, label, ...m }));
  }
  const refused = py("_r = _model.refused").length >= 0 ? mp.globals.get("_r") : null;
  const console_ = py("_c = '\\n'.join(_model.console.lines)").length >= 0 ? mp.globals.get("_c") : "";
  const held = py("_h = _model.standins.total()").length >= 0 ? mp.globals.get("_h") : 0;
  console.log(JSON.stringify({ end: true, pool, initial: initial.alloc, grew, error, refused, standins: held, console: console_ }));
} catch (e) {
  error = String(e.message || e).slice(-2000);
  console.log(JSON.stringify({ end: true, pool, initial: initial.alloc, grew, error }));
}
