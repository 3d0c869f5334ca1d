// The browser simulator: loads MicroPython (WebAssembly), copies the firmware in, and plays a virtual board.
//
// The firmware runs unmodified: sim/board_sim.py builds its App on hardware/fake.py's reed matrix
// and LED strips, and this page calls it once per batch of 5 ms scans. The page keeps its own map
// of which piece stands where, only to draw them: what it tells the firmware is `lift SQUARE` and
// `place SQUARE`, the reed switches' view. The hand makes those transitions:
//   pointer down on a piece  -> lift its square (the LEDs react at once, as on the board);
//   a click (no drag)        -> the piece stays in the air, as in a hand, until the next click:
//                               on a square it is put down there, on the tray it leaves the board,
//                               anywhere else (or Escape) it goes back where it came from;
//   a drag, then release     -> put down where released (on an occupied square: the piece there is
//                               pushed off first, a capture by swapping; outside the board: the
//                               piece leaves it);
//   dragging with Shift held -> the piece slides on the board, closing each empty square it crosses.
// A click on a just-promoted piece is a tap (lift and put back: the next promotion piece).
// Transitions go out at least GAP ms apart in simulated time, so even a machine-fast click is a
// lift and a place that the debouncer sees, as a hand's would be; pieces knocked over fall
// KNOCK_GAP ms apart, as pieces a sleeve sweeps over do.
import { loadMicroPython } from "/mp/micropython.mjs";

const GAP = 30; // ms between two transitions: over the 10 ms debounce plus a scan either side
const KNOCK_GAP = 2; // ms between pieces falling together: well inside the referee's knock_ms
const DRAG_PX = 6; // a press that moves further than this is a drag, not a click
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
let held = null; // {piece, from, slideSq, how: "press"|"drag"|"air", x0, y0, tap, touch} while a piece is in the hand
let queue = []; // [t_ms, occupied 0/1, square] transitions waiting for their time
let lastQueued = -1e9;
let clock = 0; // simulated ms the page has reached
let lastReal = 0;
let running = false;
let view = "rgb";
let knockArmed = false;
let st = null; // the last state the firmware reported
let logShown = 0;
let flipped = false; // black at the bottom
let lookBack = -1; // the ply shown while looking back at the game, or -1 for the board itself
let pendingSeen = null; // the last pending move drawn (for tests: it lasts only the commit delay)

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
  readSignalWords(files.find((f) => f[0] === "/firmware/hardware/leds.py")[1]);
  buildLegend();
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

function enqueue(occupied, sq, gap = GAP) {
  const t = Math.ceil(Math.max(clock, lastQueued + gap));
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
  drawClocks();
}

// ------------------------------------------------------------------ the clock

// What a clock face shows: m:ss, h:mm:ss from an hour, s.t under ten seconds (core/clock.py short_text).
function clockFace(ms) {
  if (ms <= 0) return "0.0";
  if (ms < 10000) return `${Math.floor(ms / 1000)}.${Math.floor(ms / 100) % 10}`;
  const s = Math.ceil(ms / 1000);
  const mm = String(Math.floor(s / 60) % 60).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm}:${ss}` : `${Math.floor(s / 60)}:${ss}`;
}

// Both clocks from the firmware's last state, the running one counted down by the page's own time
// since (the firmware reports only when something changes; its flag falls on its own).
function drawClocks() {
  const c = st && st.game.clock;
  for (const side of ["w", "b"]) {
    const el = $(`clock-${side}`);
    el.hidden = !c;
    if (!c) continue;
    let ms = side === "w" ? c.white : c.black;
    if (c.running === side) ms = Math.max(0, ms - (clock - st.now));
    const text = clockFace(ms);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle("running", c.running === side);
    el.classList.toggle("low", ms < 10000);
    el.classList.toggle("flag", c.state === `flag-${side}`);
  }
  const pause = $("clockpause");
  pause.disabled = !c || !(c.state === "running" || c.state === "paused");
  pause.textContent = c && c.state === "paused" ? "Resume" : "Pause";
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
const PROMOTION_NAMES = { q: "queen", r: "rook", b: "bishop", n: "knight" };
const NEXT_PROMOTION = { q: "r", r: "b", b: "n", n: "q" };

function buildBoard() {
  const board = $("board");
  for (let sq = 0; sq < 64; sq++) {
    const el = document.createElement("div");
    el.className = "sq " + (((sq >> 3) + (sq & 7)) % 2 ? "light" : "dark");
    el.dataset.sq = sq;
    el.dataset.name = sqName(sq);
    el.innerHTML =
      '<div class="led"></div><div class="piece"></div>' +
      `<span class="rank-label">${(sq >> 3) + 1}</span><span class="file-label">${FILES[sq & 7]}</span>`;
    board.appendChild(el);
    squares[sq] = el;
  }
  placeSquares();
}

// Where each square sits on the screen: white at the bottom, or black when the board is flipped.
function placeSquares() {
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const row = flipped ? sq >> 3 : 7 - (sq >> 3);
    const col = flipped ? 7 - (sq & 7) : sq & 7;
    el.style.gridRow = String(row + 1);
    el.style.gridColumn = String(col + 1);
    el.classList.toggle("left-edge", col === 0);
    el.classList.toggle("bottom-edge", row === 7);
  }
  document.body.classList.toggle("flipped", flipped);
  $("flip").setAttribute("aria-pressed", String(flipped));
}

function pieceHtml(piece) {
  return `<span class="glyph ${colourOf(piece) === "w" ? "white" : "black"}">${GLYPHS[piece.toLowerCase()]}</span>`;
}

function drawPieces() {
  const shown = lookBack >= 0 ? lookBackPieces : pieces;
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const p = shown[sq];
    if (el.dataset.piece !== p) {
      el.dataset.piece = p;
      el.querySelector(".piece").innerHTML = p ? pieceHtml(p) : "";
    }
    el.classList.toggle("origin", held !== null && held.from === sq);
  }
  for (const colour of ["w", "b"]) {
    $("tray-" + colour + "-pieces").innerHTML = trays[colour]
      .map((p, i) => `<span class="tray-piece" data-piece="${p}" data-index="${i}">${pieceHtml(p)}</span>`)
      .join("");
  }
  window.simPieces = pieces.map((p) => p || ".").join("");
}

// An LED's light adds to the board's: a dim LED (the last move, 48 of 255) is its hue, faint, not
// a grey. The screen shows the hue at full strength with an opacity for the brightness; the eye's
// response (about a 2.2 power, as sRGB) makes a 48/255 LED look about half as bright as a full one.
function ledLook(rgb) {
  const v = [0, 2, 4].map((i) => parseInt(rgb.substr(i, 2), 16));
  const m = Math.max(...v);
  if (!m) return null;
  const colour = "#" + v.map((x) => Math.round((255 * x) / m).toString(16).padStart(2, "0")).join("");
  return { colour, alpha: Math.pow(m / 255, 1 / 2.2) };
}

function screenColour(rgb) {
  const look = ledLook(rgb);
  return look ? look.colour : "transparent";
}

function drawLeds() {
  if (!st) return;
  const names = {};
  for (const s of signalTable) names[s.char] = s.name;
  const pending = st.game.pending;
  const pendingSquares = pending ? [pending.substr(0, 2), pending.substr(2, 2)] : [];
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const rgb = st.pixels.substr(6 * sq, 6);
    const lit = st.mono[sq] === "1";
    el.dataset.rgb = rgb;
    el.dataset.mono = st.mono[sq];
    el.dataset.signal = names[st.frame[sq]] || "off";
    el.classList.toggle("pending", pendingSquares.includes(sqName(sq)));
    const led = el.querySelector(".led");
    if (lookBack >= 0) {
      led.style.background = "";
      led.style.opacity = "";
      led.classList.remove("on");
    } else if (view === "rgb") {
      const look = ledLook(rgb);
      if (!look) {
        led.style.background = "";
        led.classList.remove("on");
      } else {
        const c = look.colour;
        led.style.background = `radial-gradient(circle, ${c} 0%, ${c}cc 30%, ${c}55 55%, transparent 72%)`;
        led.style.opacity = (0.95 * look.alpha).toFixed(2);
        led.classList.add("on");
      }
    } else {
      led.style.background = lit ? "radial-gradient(circle, #ff5040 0%, #ff2a1acc 28%, #ff2a1a44 52%, transparent 70%)" : "";
      led.style.opacity = "";
      led.classList.toggle("on", lit);
    }
  }
  if (pending) pendingSeen = pending;
}

function sanWithNumbers(g) {
  // [{ply, number, text}] for the move list: ply = moves made after this one.
  const out = [];
  for (let i = 0; i < g.san.length; i++) {
    const ply = i + 1;
    const black = (i + (g.start_black ? 1 : 0)) % 2 === 1;
    const number = g.start_move + Math.floor((i + (g.start_black ? 1 : 0)) / 2);
    out.push({ ply, number, black, text: g.san[i] });
  }
  return out;
}

function drawGame() {
  const g = st.game;
  drawStatus();
  $("fen").textContent = g.fen;
  if ($("mode").value !== g.mode) $("mode").value = g.mode;
  // Who the board plays: the kings' gesture on the board chooses it too (engine/opponent.py).
  const plays = g.engine ? g.engine[0] : "none";
  if ($("opponent").value !== plays) $("opponent").value = plays;
  if (g.engine && $("level").value !== String(g.engine[1])) $("level").value = String(g.engine[1]);
  $("takeback").disabled = !g.takeback || held !== null;
  $("takeback").title = g.mode === "casual" ? "Set the previous position up on the board, as a player would" : "Takebacks are for casual mode";
  // The move list: one line per move number, each half-move a button to look back at it.
  const rows = [];
  let row = null;
  for (const m of sanWithNumbers(g)) {
    if (!m.black || row === null) {
      row = { number: m.number, w: null, b: null };
      rows.push(row);
    }
    row[m.black ? "b" : "w"] = m;
  }
  const cell = (m, cls) =>
    m ? `<button type="button" class="mv ${cls}${m.ply === lookBack ? " shown" : ""}" data-ply="${m.ply}">${m.text}</button>` : `<span class="${cls}">…</span>`;
  const html = rows.map((r) => `<li value="${r.number}">${cell(r.w, "w")} ${r.b ? cell(r.b, "b") : ""}</li>`).join("");
  const moves = $("moves");
  if (moves.innerHTML !== html) {
    moves.innerHTML = html;
    moves.scrollTop = moves.scrollHeight;
  }
  drawLit();
}

function drawStatus() {
  const g = st.game;
  const status = $("status");
  status.textContent = g.status;
  status.className = g.error ? "error" : g.result !== "*" ? "over" : "";
  // What the hand can do next, in words under the board.
  let hint = "";
  let cls = "";
  if (lookBack >= 0) {
    hint = `Looking back at the position after ${describePly(lookBack)}. The board itself is unchanged.`;
    cls = "lookback";
  } else if (held && held.how === "air") {
    hint = document.body.classList.contains("touch")
      ? "The piece is in the air: tap a square to put it down (a tap anywhere else puts it back)."
      : "The piece is in the air: click a square to put it down (anywhere else, or Escape, puts it back).";
  } else if (g.pending) {
    hint = `${g.pending.substr(0, 2)}-${g.pending.substr(2, 2)} pending: the board commits it once it has been still for a moment.`;
    cls = "pending";
  } else if (g.promotion && g.result === "*") {
    const now = g.promotion[1];
    const next = NEXT_PROMOTION[now];
    const other = g.turn === "w" ? "White" : "Black";
    hint = `Promoted to a ${PROMOTION_NAMES[now]}: click (tap) it on ${sqName(g.promotion[0])} to make it a ${PROMOTION_NAMES[next]}. Final when ${other} lifts a piece.`;
    cls = "promotion";
  } else if (knockArmed) {
    hint = "Click a piece: it and the pieces beside it on its rank are knocked over.";
  }
  $("hint").textContent = hint;
  $("hint").className = cls;
  $("hint").hidden = !hint;
  for (let sq = 0; sq < 64; sq++) {
    const el = squares[sq];
    const promo = g.promotion && g.result === "*" && g.promotion[0] === sq && lookBack < 0;
    let badge = el.querySelector(".promo-hint");
    if (promo) {
      const next = NEXT_PROMOTION[g.promotion[1]];
      const text = `tap: ${GLYPHS[next]}`;
      if (!badge) {
        badge = document.createElement("span");
        badge.className = "promo-hint";
        el.appendChild(badge);
      }
      if (badge.textContent !== text) badge.textContent = text;
    } else if (badge) {
      badge.remove();
    }
  }
}

function describePly(ply) {
  if (ply === 0) return "no move (the start)";
  const m = sanWithNumbers(st.game)[ply - 1];
  return `${m.number}${m.black ? "…" : "."} ${m.text}`;
}

// The words of firmware/hardware/leds.py's signal table (docs/leds.md's): "RGB blink" and "mono look" by name.
function readSignalWords(source) {
  for (const line of source.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 8 || !line.startsWith("| ")) continue;
    const s = signalTable.find((x) => x.name === cells[1]);
    if (s) {
      s.rgbWords = cells[4];
      s.look = cells[6];
    }
  }
}

function rgbBlinkWords(s) {
  return s.rgbWords || "";
}

function slotsHtml(pattern) {
  let out = '<span class="slots" aria-hidden="true">';
  for (let k = 0; k < 16; k++) out += `<i class="${(pattern >> k) & 1 ? "on" : ""}"></i>`;
  return out + "</span>";
}

function drawLit() {
  // What is lit, grouped by meaning; in the MAX7219 view with its blink pattern in words.
  const groups = {};
  for (let sq = 0; sq < 64; sq++) {
    const c = st.frame[sq];
    if (c === ".") continue;
    (groups[c] = groups[c] || []).push(sqName(sq));
  }
  const lit = [];
  for (const s of signalTable) {
    if (!groups[s.char]) continue;
    const how = view === "mono" ? `${slotsHtml(s.mono)} <i>${s.look}</i>` : `<i>${rgbBlinkWords(s)}</i>`;
    lit.push(
      `<li data-signal="${s.name}"><span class="swatch" style="background:${screenColour(s.rgb)}"></span><b>${s.name}</b> ${groups[s.char].join(" ")} ${how}</li>`,
    );
  }
  const html = lit.join("") || "<li>nothing</li>";
  if ($("lit").innerHTML !== html) $("lit").innerHTML = html;
}

function buildLegend() {
  // Every signal: its colour and blink on a WS2812B, its blink pattern on a MAX7219 (16 slots of 128 ms).
  const rows = signalTable
    .filter((s) => s.name !== "off")
    .map(
      (s) =>
        `<tr data-signal="${s.name}"><td><span class="swatch" style="background:${screenColour(s.rgb)}"></span>${s.name}</td>` +
        `<td>${rgbBlinkWords(s)}</td><td>${slotsHtml(s.mono)}</td><td>${s.look}</td></tr>`,
    );
  $("legend-body").innerHTML = rows.join("");
}

function drawLog(said) {
  // Each event in a player's words (board_sim.py: the plain words of core/messages.py, a move's
  // SAN); "" where the event's words were said with the line before it.
  const log = $("log");
  for (const words of said) {
    if (!words) continue;
    const li = document.createElement("li");
    const t = document.createElement("span");
    t.className = "t";
    t.textContent = `${(st.now / 1000).toFixed(1)} s`;
    li.append(t, " " + words);
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
  if (lookBack > st.game.san.length) endLookBack();
  if (redraw) drawPieces();
  drawLeds();
  drawGame();
  drawLog(st.said);
}

// ------------------------------------------------------------------ the hand

function squareAt(x, y) {
  const r = $("board").getBoundingClientRect();
  if (x < r.left || x >= r.right || y < r.top || y >= r.bottom) return -1;
  const col = Math.floor(((x - r.left) / r.width) * 8);
  const row = Math.floor(((y - r.top) / r.height) * 8);
  return flipped ? 8 * row + (7 - col) : 8 * (7 - row) + col;
}

function showHeld(x, y) {
  const el = $("held");
  el.style.left = `${x}px`;
  el.style.top = `${y}px`;
  let target = held && held.how !== "press" ? squareAt(x, y) : -1;
  for (let sq = 0; sq < 64; sq++) squares[sq].classList.toggle("target", sq === target);
}

function sliding(ev) {
  return ev.shiftKey || $("slide").checked;
}

function onDown(ev) {
  if (!running || ev.button !== 0) return;
  if (held && held.how === "air") {
    // The second click: put the piece in the air down.
    ev.preventDefault();
    const sq = squareAt(ev.clientX, ev.clientY);
    if (sq >= 0) drop(sq);
    else if (ev.target.closest(".tray")) drop(-1);
    else drop(held.from); // a click elsewhere: back where it came from
    return;
  }
  if (held) return;
  if (lookBack >= 0) {
    if (ev.target.closest("#board")) endLookBack();
    return;
  }
  const trayPiece = ev.target.closest(".tray-piece");
  const sqEl = ev.target.closest(".sq");
  const touch = ev.pointerType === "touch" || ev.pointerType === "pen";
  if (sqEl) {
    const sq = Number(sqEl.dataset.sq);
    if (!pieces[sq]) return;
    ev.preventDefault();
    if (knockArmed) {
      knock(sq);
      return;
    }
    const promo = st && st.game.promotion;
    held = { piece: pieces[sq], from: sq, slideSq: -1, how: "press", x0: ev.clientX, y0: ev.clientY, touch };
    held.tap = Boolean(promo && promo[0] === sq);
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
    held = { piece, from: -1, slideSq: -1, how: "press", x0: ev.clientX, y0: ev.clientY, touch };
  } else {
    return;
  }
  const el = $("held");
  el.innerHTML = pieceHtml(held.piece);
  el.classList.toggle("touch", touch); // drawn above the finger, which would hide it
  el.hidden = false;
  showHeld(ev.clientX, ev.clientY);
  document.body.classList.add("holding");
  try {
    ev.target.setPointerCapture(ev.pointerId);
  } catch (e) {
    // not every target can capture (a node replaced meanwhile): document listeners still work
  }
  drawPieces();
  if (st) drawGame();
}

function onMove(ev) {
  if (!held) return;
  if (held.how === "press" && Math.hypot(ev.clientX - held.x0, ev.clientY - held.y0) > DRAG_PX) held.how = "drag";
  showHeld(ev.clientX, ev.clientY);
  if (held.how !== "drag") return;
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
  if (held.how === "press") {
    if (held.tap) {
      drop(held.from); // a click on the promoted piece: lift and put back, the next choice
    } else {
      held.how = "air"; // a click: the piece stays in the hand until the next click
      drawGame();
    }
    return;
  }
  if (held.how === "drag") drop(squareAt(ev.clientX, ev.clientY));
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
  for (let i = 0; i < 64; i++) squares[i].classList.remove("target");
  document.body.classList.remove("holding");
  drawPieces();
  if (st) drawGame();
}

function putBack() {
  if (held) drop(held.from);
}

// A sleeve sweeping along a rank knocks the piece over and the pieces beside it: they fall
// within a few ms, which the board tells from a hand lifting pieces (core/referee.py knock_ms).
function knock(sq) {
  const fallen = [sq];
  for (const n of [sq - 1, sq + 1]) {
    if (n >> 3 === sq >> 3 && n >= 0 && n < 64 && pieces[n]) fallen.push(n);
  }
  fallen.forEach((n, i) => {
    toTray(pieces[n]);
    pieces[n] = "";
    enqueue(0, n, i ? KNOCK_GAP : GAP);
  });
  armKnock(false);
  drawPieces();
}

function armKnock(on) {
  knockArmed = on;
  $("knock").classList.toggle("armed", on);
  document.body.classList.toggle("knocking", on);
  if (st) drawStatus();
}

// ------------------------------------------------------------------ looking back

let lookBackPieces = [];

function placementPieces(placement) {
  const out = new Array(64).fill("");
  const rows = placement.split("/");
  for (let r = 0; r < 8 && r < rows.length; r++) {
    let f = 0;
    for (const c of rows[r]) {
      if (c >= "1" && c <= "8") f += Number(c);
      else out[8 * (7 - r) + f++] = c;
    }
  }
  return out;
}

function showPly(ply) {
  // The board itself is not touched: only the picture shows an earlier position.
  if (!st || ply < 0 || ply > st.game.san.length) return;
  putBack();
  if (ply === st.game.san.length) return endLookBack();
  lookBackPieces = placementPieces(pyGet(`_e = sim.position_at(${ply})`, "_e"));
  lookBack = ply;
  window.simLookBack = ply;
  document.body.classList.add("looking-back");
  const uci = ply > 0 ? st.game.uci[ply - 1] : "";
  for (let sq = 0; sq < 64; sq++) squares[sq].classList.toggle("was-move", uci.includes(sqName(sq)));
  drawPieces();
  drawLeds();
  drawGame();
}

function endLookBack() {
  lookBack = -1;
  window.simLookBack = -1;
  document.body.classList.remove("looking-back");
  for (let sq = 0; sq < 64; sq++) squares[sq].classList.remove("was-move");
  drawPieces();
  if (st) {
    drawLeds();
    drawGame();
  }
}

// ------------------------------------------------------------------ buttons

function layOut() {
  // Every square at once, as a person setting the pieces up; pending transitions are moot.
  clearQueue();
  py(`sim.lay_out(${JSON.stringify(occupancyString())})`);
}

function newGame() {
  putBack();
  endLookBack();
  $("log").innerHTML = ""; // a new game: the old game's events are gone from view
  setPiecesFromFen(START_FEN);
  layOut();
  drawPieces();
}

function setFen(fen) {
  putBack();
  endLookBack();
  const err = pyGet(`_e = sim.set_fen(${JSON.stringify(fen)})`, "_e");
  $("fenerror").hidden = !err;
  $("fenerror").textContent = err || "";
  if (err) return;
  clearQueue();
  setPiecesFromFen(fen);
  drawPieces();
}

// Casual mode's takeback, made as a player makes it: the previous position set up on the board by
// hand (the pieces that moved lifted, then put back where they were, a captured piece from the tray).
function takeBack() {
  if (!st || !st.game.takeback) return;
  putBack();
  endLookBack();
  const before = placementPieces(pyGet(`_e = sim.position_at(${st.game.san.length - 1})`, "_e"));
  const hand = [];
  const lifts = [];
  const places = [];
  for (let sq = 0; sq < 64; sq++) {
    if (pieces[sq] && pieces[sq] !== before[sq]) lifts.push(sq);
    if (before[sq] && pieces[sq] !== before[sq]) places.push(sq);
  }
  for (const sq of lifts) {
    hand.push(pieces[sq]);
    pieces[sq] = "";
    enqueue(0, sq);
  }
  for (const sq of places) {
    const want = before[sq];
    let i = hand.indexOf(want);
    if (i >= 0) hand.splice(i, 1);
    else if ((i = trays[colourOf(want)].indexOf(want)) >= 0) trays[colourOf(want)].splice(i, 1);
    else if ((i = hand.findIndex((p) => colourOf(p) === colourOf(want))) >= 0) hand.splice(i, 1); // the promoted piece becomes a pawn again
    pieces[sq] = want;
    enqueue(1, sq);
  }
  for (const p of hand) toTray(p);
  drawPieces();
}

function downloadPgn() {
  const d = new Date();
  const date = `${d.getFullYear()}.${String(d.getMonth() + 1).padStart(2, "0")}.${String(d.getDate()).padStart(2, "0")}`;
  const text = pyGet(`_e = sim.pgn(${JSON.stringify(date)})`, "_e");
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
  // A touch screen gets the words for fingers (no Shift key there).
  const touch = navigator.maxTouchPoints > 0 && window.matchMedia("(pointer: coarse)").matches;
  document.body.classList.toggle("touch", touch);
  buildBoard();
  drawPieces();
  const board = $("board");
  board.addEventListener("pointerdown", onDown);
  $("tray-w").addEventListener("pointerdown", onDown);
  $("tray-b").addEventListener("pointerdown", onDown);
  document.addEventListener("pointerdown", (ev) => {
    // A click anywhere else while a piece is in the air puts it back where it came from.
    if (held && held.how === "air" && !ev.target.closest("#board, .tray")) onDown(ev);
  });
  document.addEventListener("pointermove", onMove);
  document.addEventListener("pointerup", onUp);
  document.addEventListener("pointercancel", () => held && drop(held.from));
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape") return;
    armKnock(false);
    putBack();
    endLookBack();
  });
  $("knock").addEventListener("click", () => armKnock(!knockArmed));
  $("newgame").addEventListener("click", newGame);
  $("pgn").addEventListener("click", downloadPgn);
  $("takeback").addEventListener("click", takeBack);
  $("flip").addEventListener("click", () => {
    flipped = !flipped;
    placeSquares();
  });
  $("moves").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.mv");
    if (b) showPly(Number(b.dataset.ply));
  });
  $("back-to-game").addEventListener("click", endLookBack);
  $("mode").addEventListener("change", (ev) => {
    const err = pyGet(`_e = sim.set_mode(${JSON.stringify(ev.target.value)})`, "_e");
    if (err) $("status").textContent = err;
  });
  $("clockform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const err = pyGet(`_e = sim.set_clock(${JSON.stringify($("clockin").value)})`, "_e");
    $("clockerror").hidden = !err;
    $("clockerror").textContent = err || "";
  });
  $("clockpause").addEventListener("click", () => {
    const word = st && st.game.clock && st.game.clock.state === "paused" ? "resume" : "pause";
    const err = pyGet(`_e = sim.clock_action(${JSON.stringify(word)})`, "_e");
    $("clockerror").hidden = !err;
    $("clockerror").textContent = err || "";
  });
  const setEngine = () => {
    const err = pyGet(`_e = sim.set_engine(${JSON.stringify($("opponent").value)}, ${Number($("level").value)})`, "_e");
    if (err) $("status").textContent = err;
  };
  $("opponent").addEventListener("change", setEngine);
  $("level").addEventListener("change", () => $("opponent").value !== "none" && setEngine());
  $("fenform").addEventListener("submit", (ev) => {
    ev.preventDefault();
    setFen($("fenin").value);
  });
  for (const radio of document.querySelectorAll('input[name="view"]')) {
    radio.addEventListener("change", () => {
      view = document.querySelector('input[name="view"]:checked').value;
      document.body.classList.toggle("mono", view === "mono");
      drawLeds();
      if (st) drawLit();
    });
  }
  // For tests and the curious: the page's own view of the board.
  window.simIdle = () => queue.length === 0 && held === null;
  window.simClock = () => clock;
  window.simPendingSeen = () => pendingSeen;
  window.simHeld = () => (held ? held.how : null);
  window.simLookBack = -1;
}

wire();
boot().catch(fatal);
