// Runs the portable tests on MicroPython's official 32-bit WebAssembly build, the closest thing to the Pico on a PC.
//
// Usage (from the repository root, after `npm ci`):
//   node tools/wasm/run.mjs [--heapsize BYTES] [MODULE | MODULE.FUNCTION ...]
// firmware/, host_tests/, tools/sim/ (the simulator glue the transcript test drives) and the recorded test data in build/ are copied into the emscripten file
// system under /repo (the working directory there, as the repository root is on the host), the build is
// checked to be 32-bit (sys.maxsize == 2**31-1, so ints of 2**30 and more are heap objects as on
// the RP2040), then host_tests/helpers/run_portable.py runs the selected tests (default: all). The exit
// status is run_portable's: 0 ok, 1 failures, 2 bad arguments; 3 when the runtime is not 32-bit.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const MOUNT = "/repo";
// build/ holds data recorded on CPython for the portable tests (see PORTABLE_DATA in the Makefile).
const TREES = ["firmware", "host_tests", "build", "tools/sim"];
// Build products and caches are not part of the tree the tests read.
const SKIP_DIRS = new Set(["__pycache__", ".pytest_cache"]);
const SKIP_PATHS = new Set(["build/mpy"]);
const SKIP_EXTS = new Set([".pyc", ".pyo", ".mpy"]);

function usage(message) {
  process.stderr.write(`run.mjs: ${message}\nusage: node tools/wasm/run.mjs [--heapsize BYTES] [MODULE | MODULE.FUNCTION ...]\n`);
  process.exit(2);
}

function parseArgs(argv) {
  // The pyscript build grows its heap on demand, so --heapsize is only the starting size.
  const options = { heapsize: 1024 * 1024, tests: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--heapsize") {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value <= 0) usage("--heapsize needs a positive number of bytes");
      options.heapsize = value;
    } else if (argv[i] === "-h" || argv[i] === "--help") {
      usage("help");
    } else {
      options.tests.push(argv[i]);
    }
  }
  return options;
}

function copyTree(FS, rel) {
  // Copies ROOT/rel to MOUNT/rel; returns [files, bytes] copied. A missing tree copies nothing.
  let files = 0;
  let bytes = 0;
  const hostDir = path.join(ROOT, rel);
  if (!fs.existsSync(hostDir)) return [0, 0];
  let made = MOUNT;
  for (const part of rel.split("/")) {
    made += `/${part}`;
    if (!FS.analyzePath(made).exists) FS.mkdir(made);
  }
  for (const entry of fs.readdirSync(hostDir, { withFileTypes: true })) {
    const childRel = `${rel}/${entry.name}`;
    if (entry.name.startsWith(".") || SKIP_DIRS.has(entry.name) || SKIP_PATHS.has(childRel)) continue;
    const hostPath = path.join(hostDir, entry.name);
    const fsPath = `${MOUNT}/${childRel}`;
    if (entry.isDirectory()) {
      const [f, b] = copyTree(FS, childRel);
      files += f;
      bytes += b;
    } else if (entry.isFile() && !SKIP_EXTS.has(path.extname(entry.name))) {
      const data = fs.readFileSync(hostPath);
      FS.writeFile(fsPath, data);
      files += 1;
      bytes += data.length;
    }
  }
  return [files, bytes];
}

// A Python literal for a JS string or list of strings: JSON's escapes are valid Python escapes.
const pyStr = (s) => JSON.stringify(s);

const options = parseArgs(process.argv.slice(2));
const mp = await loadMicroPython({
  heapsize: options.heapsize,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

mp.FS.mkdir(MOUNT);
let files = 0;
let bytes = 0;
for (const tree of TREES) {
  const [f, b] = copyTree(mp.FS, tree);
  files += f;
  bytes += b;
}
mp.FS.chdir(MOUNT);
console.log(`run.mjs: copied ${files} files (${bytes} bytes) of ${TREES.join(", ")} into ${MOUNT}`);

// Each step is its own runPython call: this build collects garbage only between calls (see
// Runner in run_portable.py), so one call for the whole run would keep every test's garbage.
const py = (code) => mp.runPython(code);
const get = (name) => mp.globals.get(name);

let status;
try {
  py("import sys\n_wasm_maxsize = sys.maxsize");
  const maxsize = get("_wasm_maxsize");
  if (maxsize !== 2 ** 31 - 1) {
    console.error(`run.mjs: expected a 32-bit build (sys.maxsize == 2**31-1), got sys.maxsize = ${maxsize}`);
    process.exit(3);
  }
  py(
    `sys.path.insert(0, ${pyStr(MOUNT + "/host_tests/helpers")})\n` +
      "import run_portable\n" +
      `_run = run_portable.Runner(${pyStr(options.tests)})\n` +
      "_wasm_modules = len(_run.plan)",
  );
  const modules = get("_wasm_modules");
  for (let i = 0; i < modules; i++) {
    py(`_wasm_tests = _run.begin(${i})`);
    const tests = get("_wasm_tests");
    for (let j = 0; j < tests; j++) py(`_run.run_test(${j})`);
    py("_run.end()");
  }
  // run_portable reports the status instead of raising SystemExit, which runPython would turn
  // into a JS exception carrying only the traceback text.
  py("_wasm_status = _run.finish()");
  status = get("_wasm_status");
} catch (error) {
  if (error.name !== "PythonError") throw error;
  // An exception escaped the runner itself (a bug in run_portable.py or in the runtime).
  process.stderr.write(`run.mjs: Python raised ${error.type}\n${error.message}`);
  status = 1;
}
process.exit(Number.isInteger(status) ? status : 1);
