// The heap a board with Bluetooth LE on uses, on MicroPython's official 32-bit WebAssembly build:
// tools/bench/bench_ble.py's stages (the board wired by main.py with the `ble` setting "both" on a fake
// radio, an app in a CPP round, the engine loaded and answering 1. e4), each in its own call from
// JavaScript, with gc.mem_alloc() read after a collection between them. That build collects only
// between calls from JavaScript (host_tests/helpers/run_portable.py, Runner), so each figure is taken in
// calls of its own. 32-bit objects are the RP2040's sizes; the code is compiled from .py (the
// bytecode a Pico keeps from .mpy files takes about the same RAM once loaded).
//
// Usage (from the repository root, after `npm ci`): node tools/wasm/ble_heap.mjs [--no-ble]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const MOUNT = "/repo";
const TREES = ["firmware", "tools/shims"];
const FILES = ["tools/bench/bench_ble.py"];
const ble = !process.argv.includes("--no-ble");

function mkdirs(FS, dir) {
  let made = "";
  for (const part of dir.split("/").filter(Boolean)) {
    made += `/${part}`;
    if (!FS.analyzePath(made).exists) FS.mkdir(made);
  }
}

function copyTree(FS, rel) {
  const hostDir = path.join(ROOT, rel);
  mkdirs(FS, `${MOUNT}/${rel}`);
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    if (entry.name === "__pycache__") continue;
    const childRel = `${rel}/${entry.name}`;
    if (entry.isDirectory()) copyTree(FS, childRel);
    else if (entry.name.endsWith(".py")) FS.writeFile(`${MOUNT}/${childRel}`, fs.readFileSync(path.join(ROOT, childRel)));
  }
}

const mp = await loadMicroPython({ heapsize: 1024 * 1024, stdout: (l) => process.stdout.write(l + "\n") });
for (const tree of TREES) copyTree(mp.FS, tree);
for (const file of FILES) {
  mkdirs(mp.FS, `${MOUNT}/${path.dirname(file)}`);
  mp.FS.writeFile(`${MOUNT}/${file}`, fs.readFileSync(path.join(ROOT, file)));
}
mp.FS.chdir(MOUNT);

const py = (code) => mp.runPython(code);
function used() {
  py("import gc\ngc.collect()");
  py("_used = gc.mem_alloc()");
  return mp.globals.get("_used");
}

py(`import sys\n_bits = 32 if sys.maxsize == 2**31 - 1 else 64\nsys.path.insert(0, "${MOUNT}/firmware")\nsys.path.insert(0, "${MOUNT}/tools")`);
const figures = [["at_start", used()]];
py(`import bench_ble\n_bench = bench_ble.Bench(${ble ? "True" : "False"})`);
figures.push(["bench_loaded", used()]);
py("_bench.wire()");
figures.push(["board_wired", used()]);
py("_bench.cpp_round()");
figures.push(["in_a_cpp_round", used()]);
py("_shown = _bench.engine()");
figures.push(["engine_after_its_move", used()]);
console.log(`wasm build: ${mp.globals.get("_bits")}-bit, code from .py, ble ${ble ? "both" : "off"}`);
for (const [name, bytes] of figures) console.log(`used_${name}: ${bytes} bytes`);
console.log(`engine_move_shown: ${mp.globals.get("_shown") ? "yes" : "no"}`);
py("_notes = _bench.notifications()");
console.log(`ble_cpp_notifications: ${mp.globals.get("_notes")}`);
