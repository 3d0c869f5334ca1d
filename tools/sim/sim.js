// The browser simulator: loads MicroPython (WebAssembly), copies the firmware in, and plays a virtual board.
//
// The firmware runs unmodified: sim/board_sim.py builds its App on hardware/fake.py's reed matrix
// and LED strips, and this page calls it once per batch of 5 ms scans. The page keeps its own map
// of which piece stands where, only to draw them: what it tells the firmware is `lift SQUARE` and
// `place SQUARE`, the reed switches' view. Drag and drop produce those transitions:
//   pointer down on a piece  -> lift its square;
//   pointer up on a square   -> place (on an occupied square: the piece there is pushed off first,
//                               a capture by swapping; outside the board: the piece leaves it);
//   dragging with Shift held -> the piece slides on the board, closing each empty square it crosses.
// Transitions go out at least GAP ms apart in simulated time, so even a machine-fast click is a
// lift and a place that the debouncer sees, as a hand's would be.
import { loadMicroPython } from "/mp/micropython.mjs";

const GAP = 30; // ms between two transitions: over the 10 ms debounce plus a scan either side
const MAX_CATCHUP = 250; // ms of simulated time per tick at most (a hidden tab does not replay minutes)
const TICK = 5; // ms between ticks: the firmware's scan period
const FILES = "abcdefgh";
const START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
// Filled glyphs for both colours: the colour comes from CSS (font glyphs for white pieces are outlines).
const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };

const $ = (id) => document.getElementById(id);
const sqName = (sq) => FILES[sq & 7] + ((sq >> 3) + 1);

let mp = null;
let signalTable = null; // [{char, name, rgb}] from hardware/leds.py
let pieces = new Array(64).fill(""); // "P" white pawn ... "k" black king, "" empty
let trays = { w: [], b: [] }; // pieces off the board
let held = null; // {piece, from, slideSq} while the pointer holds a piece
let queue = []; // [t_ms, occupied 0/1, square] transitions waiting for their time
let lastQueued = -1e9;
let clock = 0; // simulated ms the page has reached
let lastReal = 0;
let running = false;
let view = "rgb";
let knockArmed = false;
let st = null; // the last state the firmware reported
let logShown = 0;

// ------------------------------------------------------------------ MicroPython

function py(code) {
  try {
    mp.runPython(code);
  } catch (error) {
    fatal(error);
    throw error;
  }
}

function pyGet(code, name) {
  py(code);
  return mp.globals.get(name);
}

function fatal(error) {
  running = false;
  const box = $("fatal");
  box.hidden = false;
  box.textContent = "The simulator stopped: " + (error && error.message ? error.message : String(error));
  console.error(error);
}

async function fetchText(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

function writeFile(path, text) {
  // mkdir -p for every folder of the path, then the file.
  const parts = path.split("/").filter(Boolean);
  let dir = "";
  for (const part of parts.slice(0, -1)) {
    dir += "/" + part;
    try {
      mp.FS.mkdir(dir);
    } catch (e) {
      // exists already
    }
  }
  mp.FS.writeFile(path, text);
}

async function boot() {
  const manifest = JSON.parse(await fetchText("/sim/manifest.json"));
  const files = await Promise.all(
    manifest.firmware.map((f) => fetchText("/firmware/" + f).then((text) => ["/firmware/" + f, text])),
  );
  const simFiles = await Promise.all(
    manifest.sim.map((f) => fetchText("/sim/" + f).then((text) => ["/sim/" + f, text])),
  );
  mp = await loadMicroPython({
    stdout: (line) => console.log("[mpy] " + line),
    stderr: (line) => console.warn("[mpy] " + line),
  });
  for (const [path, text] of files.concat(simFiles)) writeFile(path, text);
  // firmware/ is the Pico's root: the working folder and the first place imports look.
  mp.FS.chdir("/firmware");
  const table = pyGet(
    "import sys\n" +
      "sys.path.insert(0, '/sim')\n" +
      "sys.path.insert(0, '/firmware')\n" +
      "import board_sim\n" +
      "sim = board_sim.BoardSim()\n" +
      "_o = board_sim.signal_table_json()",
    "_o",
  );
  signalTable = JSON.parse(table);
  setPiecesFromFen(START_FEN);
  drawPieces();
  const first = pyGet("_o = sim.state_json()", "_o");
  clock = 0;
  lastQueued = -1e9;
  applyState(JSON.parse(first));
  running = true;
  lastReal = performance.now();
  setInterval(tick, TICK);
  $("loading").hidden = true;
  document.body.classList.add("ready");
  window.simReady = true;
}

// ------------------------------------------------------------------ time

function enqueue(occupied, sq) {
  const t = Math.ceil(Math.max(clock, lastQueued + GAP));
  lastQueued = t;
  queue.push([t, occupied, sq]);
}

function tick() {
  if (!running) return;
  const real = performance.now();
  clock += Math.min(real - lastReal, MAX_CATCHUP);
  lastReal = real;
  const until = Math.floor(clock);
  const due = [];
  while (queue.length && queue[0][0] <= until) due.push(queue.shift());
  const actions = due.map((a) => `(${a[0]},${a[1]},${a[2]}),`).join("");
  let out;
  try {
    out = pyGet(`_o = sim.advance(${until}, (${actions}))`, "_o");
  } catch (error) {
    return;
  }
  if (out) applyState(JSON.parse(out));
}

// ------------------------------------------------------------------ pieces

function setPiecesFromFen(fen) {
  pieces = new Array(64).fill("");
  const rows = fen.trim().split(/\s+/)[0].split("/");
  for (let r = 0; r < 8 && r < rows.length; r++) {
    let f = 0;
    for (const c of rows[r]) {
      if (c >= "1" && c <= "8") f += Number(c);
      else pieces[8 * (7 - r) + f++] = c;
    }
  }
  trays = { w: [], b: [] };
}

function colourOf(piece) {
  return piece === piece.toUpperCase() ? "w" : "b";
}

function toTray(piece) {
  trays[colourOf(piece)].push(piece);
}

function clearQueue() {
  queue = [];
  lastQueued = -1e9;
}

function occupancyString() {
  return pieces.map((p) => (p ? "1" : "0")).join("");
}

// ------------------------------------------------------------------ drawing

const squares = [];

function buildBoard() {
  const board = $("board");
  for (let row = 0; row < 8; row++) {
    for (let f = 0; f < 8; f++) {
      const sq = 8 * (7 - row) + f;
      const el = document.createElement("div");
      el.className = "sq " + (((sq >> 3) + f) % 2 ? "light" : "dark");
      el.dataset.sq = sq;
      el.dataset.name = sqName(sq);
      el.innerHTML = '<div class="led"></div><div class="piece"></div>';
      if (f === 0) el.insertAdjacentHTML("beforeend", `<span class="rank-label">${(sq >> 3) + 1}</span>`);
      board.appendChild(el);
      squares[sq] = el;
    }
  }
}

function pieceHtml(piece) {
  return `<span class="glyph ${colourOf(piece) === "w" ? "white" : "black"}">${GLYPHS[piece.toLowerCase()]}</span>`;
}

function drawPieces() {
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const p = pieces[sq];
    if (el.dataset.piece !== p) {
      el.dataset.piece = p;
      el.querySelector(".piece").innerHTML = p ? pieceHtml(p) : "";
    }
  }
  for (const colour of ["w", "b"]) {
    const tray = $("tray-" + colour);
    tray.innerHTML = trays[colour]
      .map((p, i) => `<span class="tray-piece" data-piece="${p}" data-index="${i}">${pieceHtml(p)}</span>`)
      .join("");
  }
  window.simPieces = pieces.map((p) => p || ".").join("");
}

// An LED's light is linear in its PWM value and a screen's numbers are not (sRGB): a dim LED
// (last move, 48 of 255) looks brighter to the eye than the same number on a screen.
function screenColour(rgb) {
  let out = "#";
  for (let i = 0; i < 6; i += 2) {
    const v = Math.round(255 * Math.pow(parseInt(rgb.substr(i, 2), 16) / 255, 1 / 2.2));
    out += v.toString(16).padStart(2, "0");
  }
  return out;
}

function drawLeds() {
  if (!st) return;
  const names = {};
  for (const s of signalTable) names[s.char] = s.name;
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const rgb = st.pixels.substr(6 * sq, 6);
    const lit = st.mono[sq] === "1";
    el.dataset.rgb = rgb;
    el.dataset.mono = st.mono[sq];
    el.dataset.signal = names[st.frame[sq]] || "off";
    const led = el.querySelector(".led");
    if (view === "rgb") {
      if (rgb === "000000") {
        led.style.background = "";
        led.classList.remove("on");
      } else {
        const c = screenColour(rgb);
        led.style.background = `radial-gradient(circle, ${c} 0%, ${c}cc 30%, ${c}55 55%, transparent 72%)`;
        led.classList.add("on");
      }
    } else {
      led.style.background = lit ? "radial-gradient(circle, #ff5040 0%, #ff2a1acc 28%, #ff2a1a44 52%, transparent 70%)" : "";
      led.classList.toggle("on", lit);
    }
  }
}

function drawGame() {
  const g = st.game;
  $("status").textContent = g.status;
  $("status").className = g.error ? "error" : g.result !== "*" ? "over" : "";
  $("fen").textContent = g.fen;
  if ($("mode").value !== g.mode) $("mode").value = g.mode;
  const moves = $("moves");
  const items = [];
  const start = g.start_black ? 1 : 0;
  const san = (start ? ["…"] : []).concat(g.san);
  for (let i = 0; i < san.length; i += 2) {
    const n = g.start_move + i / 2;
    const w = san[i];
    const b = san[i + 1] || "";
    items.push(`<li value="${n}"><span class="w">${w}</span> <span class="b">${b}</span></li>`);
  }
  const html = items.join("");
  if (moves.innerHTML !== html) {
    moves.innerHTML = html;
    moves.scrollTop = moves.scrollHeight;
  }
  // What is lit, grouped by meaning.
  const groups = {};
  for (let sq = 0; sq < 64; sq++) {
    const c = st.frame[sq];
    if (c === ".") continue;
    (groups[c] = groups[c] || []).push(sqName(sq));
  }
  const lit = [];
  for (const s of signalTable) {
    if (!groups[s.char]) continue;
    lit.push(
      `<li><span class="swatch" style="background:${screenColour(s.rgb)}"></span><b>${s.name}</b> ${groups[s.char].join(" ")}</li>`,
    );
  }
  $("lit").innerHTML = lit.join("") || "<li>nothing</li>";
}

function drawLog(lines) {
  const log = $("log");
  for (const line of lines) {
    const li = document.createElement("li");
    li.textContent = `${(st.now / 1000).toFixed(2)} s  ${line}`;
    log.appendChild(li);
    logShown++;
  }
  while (log.children.length > 200) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
}

function applyState(next) {
  st = next;
  window.simState = st;
  let redraw = false;
  for (const line of st.log) {
    // A takeback of a promotion: the player puts a pawn back, not the promoted piece.
    const m = /^undo ([a-h][1-8])([a-h][1-8])[qrbn]$/.exec(line);
    if (m) {
      const from = FILES.indexOf(m[1][0]) + 8 * (Number(m[1][1]) - 1);
      const p = pieces[from];
      if (p && p.toLowerCase() !== "p") {
        pieces[from] = colourOf(p) === "w" ? "P" : "p";
        redraw = true;
      }
    }
  }
  // A promotion: the player swaps the pawn for the piece the firmware says it became.
  const promo = st.game.promotion;
  if (promo) {
    const p = pieces[promo[0]];
    if (p) {
      const want = colourOf(p) === "w" ? promo[1].toUpperCase() : promo[1];
      if (p !== want) {
        pieces[promo[0]] = want;
        redraw = true;
      }
    }
  }
  if (redraw) drawPieces();
  drawLeds();
  drawGame();
  drawLog(st.log);
}

// ------------------------------------------------------------------ the hand

function squareAt(x, y) {
  const r = $("board").getBoundingClientRect();
  if (x < r.left || x >= r.right || y < r.top || y >= r.bottom) return -1;
  const f = Math.floor(((x - r.left) / r.width) * 8);
  const row = Math.floor(((y - r.top) / r.height) * 8);
  return 8 * (7 - row) + f;
}

function moveHeld(x, y) {
  const el = $("held");
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
}

function sliding(ev) {
  return ev.shiftKey || $("slide").checked;
}

function onDown(ev) {
  if (!running || ev.button !== 0 || held) return;
  const trayPiece = ev.target.closest(".tray-piece");
  const sqEl = ev.target.closest(".sq");
  if (sqEl) {
    const sq = Number(sqEl.dataset.sq);
    if (!pieces[sq]) return;
    ev.preventDefault();
    if (knockArmed) {
      knock(sq);
      return;
    }
    held = { piece: pieces[sq], from: sq, slideSq: -1 };
    pieces[sq] = "";
    enqueue(0, sq);
    if (sliding(ev)) {
      // The piece stays on the board while it slides: its own square is still closed.
      held.slideSq = sq;
      enqueue(1, sq);
    }
  } else if (trayPiece) {
    ev.preventDefault();
    const colour = colourOf(trayPiece.dataset.piece);
    const [piece] = trays[colour].splice(Number(trayPiece.dataset.index), 1);
    held = { piece, from: -1, slideSq: -1 };
  } else {
    return;
  }
  const el = $("held");
  el.innerHTML = pieceHtml(held.piece);
  el.hidden = false;
  moveHeld(ev.clientX, ev.clientY);
  document.body.classList.add("holding");
  try {
    ev.target.setPointerCapture(ev.pointerId);
  } catch (e) {
    // not every target can capture (a node replaced meanwhile): document listeners still work
  }
  drawPieces();
}

function onMove(ev) {
  if (!held) return;
  moveHeld(ev.clientX, ev.clientY);
  const sq = squareAt(ev.clientX, ev.clientY);
  if (sliding(ev)) {
    if (sq !== held.slideSq) {
      if (held.slideSq >= 0) enqueue(0, held.slideSq); // the magnet leaves that square
      held.slideSq = -1;
      if (sq >= 0 && !pieces[sq]) {
        enqueue(1, sq); // ... and closes the empty square it slides onto
        held.slideSq = sq;
      }
    }
  } else if (held.slideSq >= 0) {
    enqueue(0, held.slideSq); // Shift released: the piece is lifted off the board
    held.slideSq = -1;
  }
}

function onUp(ev) {
  if (!held) return;
  const sq = squareAt(ev.clientX, ev.clientY);
  drop(sq);
}

function drop(sq) {
  const h = held;
  held = null;
  if (h.slideSq >= 0 && h.slideSq !== sq) enqueue(0, h.slideSq);
  if (sq < 0) {
    toTray(h.piece); // put down beside the board
  } else if (pieces[sq]) {
    // Onto an occupied square: the piece standing there is pushed off as this one lands.
    toTray(pieces[sq]);
    enqueue(0, sq);
    enqueue(1, sq);
    pieces[sq] = h.piece;
  } else {
    pieces[sq] = h.piece;
    if (h.slideSq !== sq) enqueue(1, sq);
  }
  $("held").hidden = true;
  document.body.classList.remove("holding");
  drawPieces();
}

function knock(sq) {
  toTray(pieces[sq]);
  pieces[sq] = "";
  enqueue(0, sq);
  armKnock(false);
  drawPieces();
}

function armKnock(on) {
  knockArmed = on;
  $("knock").classList.toggle("armed", on);
  document.body.classList.toggle("knocking", on);
}

// ------------------------------------------------------------------ buttons

function layOut() {
  // Every square at once, as a person setting the pieces up; pending transitions are moot.
  clearQueue();
  py(`sim.lay_out(${JSON.stringify(occupancyString())})`);
}

function newGame() {
  if (held) drop(held.from);
  setPiecesFromFen(START_FEN);
  layOut();
  drawPieces();
}

function setFen(fen) {
  if (held) drop(held.from);
  const err = pyGet(`_e = sim.set_fen(${JSON.stringify(fen)})`, "_e");
  $("fenerror").hidden = !err;
  $("fenerror").textContent = err || "";
  if (err) return;
  clearQueue();
  setPiecesFromFen(fen);
  drawPieces();
}

function downloadPgn() {
  const text = pyGet("_e = sim.pgn()", "_e");
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-chess-pgn" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "game.pgn";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function wire() {
  buildBoard();
  drawPieces();
  const board = $("board");
  board.addEventListener("pointerdown", onDown);
  $("tray-w").addEventListener("pointerdown", onDown);
  $("tray-b").addEventListener("pointerdown", onDown);
  document.addEventListener("pointermove", onMove);
  document.addEventListener("pointerup", onUp);
  document.addEventListener("pointercancel", () => held && drop(held.from));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") armKnock(false);
  });
  $("knock").addEventListener("click", () => armKnock(!knockArmed));
  $("newgame").addEventListener("click", newGame);
  $("pgn").addEventListener("click", downloadPgn);
  $("mode").addEventListener("change", (ev) => {
    const err = pyGet(`_e = sim.set_mode(${JSON.stringify(ev.target.value)})`, "_e");
    if (err) $("status").textContent = err;
  });
  $("fenform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    setFen($("fenin").value);
  });
  for (const radio of document.querySelectorAll('input[name="view"]')) {
    radio.addEventListener("change", () => {
      view = document.querySelector('input[name="view"]:checked').value;
      document.body.classList.toggle("mono", view === "mono");
      drawLeds();
    });
  }
  // For tests and the curious: the page's own view of the board.
  window.simIdle = () => queue.length === 0 && held === null;
  window.simClock = () => clock;
}

wire();
boot().catch(fatal);
