// Page glue of the browser edition: loads the MicroPython webassembly port, writes the device files into its filesystem, runs webhw.Page once per animation frame and draws the strip's wire bytes on the canvas.
import { loadMicroPython } from "./micropython.mjs";

const T0 = performance.now();
const params = new URLSearchParams(location.search);
// window.wts: what tests, the benchmark and curious teachers can read: public facts only (what the LEDs, the buzzer
// and the panels show), nothing that depends on a pending move. The hooks that could read one (the page's Python,
// the manual clock) exist only in a site built for the tests (python -m tools.web build --test-hooks).
const wts = (window.wts = { ready: false, firstFrameMs: null, frames: 0, sounds: [], narration: [] });

function fail(msg) {
  document.getElementById("status").textContent = msg;
  console.error(msg);
}
function fill(text, values) {
  // A table's text with its {name} placeholders filled in.
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}

const marks = (wts.marks = { module: Math.round(T0) }); // ms since navigation at each boot stage (tools/bench/web.py)
const site = await (await fetch("site.json")).json();
marks.site = Math.round(performance.now());
const hooks = site.testHooks === true;
const notices = []; // [word key, values]: bad page options, each said once the firmware runs (in the page's language)

// ---------------------------------------------------------------- language
// Every word the page shows comes from site.json, one table per language (tools.web PAGE_WORDS, and the simulator's
// narrate.py tables for the narration, mode titles and menu). Chosen by ?lang= (then kept), else the choice kept in
// localStorage "wts:lang" (a known code, else ignored and removed), else the browser's languages in its order of
// preference (navigator.languages: "nl-NL" -> nl), else English. Never in the device's settings.json (no device has words).
const LANG_KEY = "wts:lang";
const store = {
  get: (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } },
  set: (k, v) => { try { localStorage.setItem(k, v); return true; } catch (e) { return false; } },
  remove: (k) => { try { localStorage.removeItem(k); } catch (e) { /* nothing to do */ } },
};
function chooseLang() {
  const asked = params.get("lang");
  if (asked !== null) {
    if (site.langs.includes(asked)) {
      store.set(LANG_KEY, asked);
      return asked;
    }
    notices.push(["badLang", { lang: JSON.stringify(asked), langs: site.langs.join(", ") }]);
  }
  const kept = store.get(LANG_KEY);
  if (kept !== null) {
    if (site.langs.includes(kept)) return kept;
    store.remove(LANG_KEY); // junk: ignored, and not read again
  }
  for (const tag of navigator.languages || [navigator.language]) {
    const code = String(tag).toLowerCase().split(/[-_]/)[0];
    if (site.langs.includes(code)) return code;
  }
  return "en";
}
let lang = chooseLang();
let WORDS = site.words[lang]; // every word the page itself shows, in the page's language
wts.lang = lang;
document.documentElement.lang = lang;
document.getElementById("status").textContent = WORDS.loading;

wts.manual = params.get("clock") === "manual";
if (wts.manual && !hooks) {
  notices.push(["noManualClock", {}]);
  wts.manual = false;
}
// Bad page options get one line on the page and change nothing: the device's defaults are used.
let mode = params.get("mode") || "attract";
let seed = params.get("seed");
if (!site.modes.includes(mode)) {
  notices.push(["badMode", { mode: JSON.stringify(mode), modes: site.modes.join(", ") }]);
  mode = "attract";
}
if (seed !== null && !/^[0-9]{1,9}$/.test(seed)) {
  notices.push(["badSeed", { seed: JSON.stringify(seed) }]);
  seed = null;
}

// ---------------------------------------------------------------- sound (contract 3: PWM freq/duty -> Web Audio)
let audio = null;
function audioOn() {
  // Browsers start audio only after a user gesture; until then sounds are logged, not played.
  if (audio || !window.AudioContext) return;
  const ctx = new AudioContext();
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "square"; // a piezo driven by PWM
  gain.gain.value = 0;
  osc.connect(gain).connect(ctx.destination);
  osc.start();
  audio = { ctx, osc, gain };
}
window.wtsSound = (t, hz, duty) => {
  wts.sounds.push([t, hz, duty]);
  if (wts.sounds.length > 2000) wts.sounds.splice(0, 1000);
  if (!audio) return;
  const now = audio.ctx.currentTime;
  if (hz > 0) audio.osc.frequency.setValueAtTime(hz, now);
  // duty_u16 0..65535: a square wave's fundamental grows with sin(pi * duty), as on the piezo (firmware/sound.py VOLUMES);
  // the top level is kept gentle for a room of children.
  const level = hz > 0 ? 0.15 * Math.sin((Math.PI * Math.min(duty, 65535)) / 65536) : 0;
  audio.gain.gain.setValueAtTime(level, now);
};
window.wtsEntropy = () => crypto.getRandomValues(new Uint32Array(1))[0] & 0x3fffffff;
// localStorage for webhw.py: a refusal (full, switched off) is a null or false here, never an exception (a JS exception
// unwinds straight through the port's Python frames: Python's try/except does not see it).
window.wtsStore = {
  ...store,
  prune: (prefix, keepJSON) => {
    // Remove every key under `prefix` but prefix + a kept name. Done here, on the keys as JS strings: a key that went
    // through Python and back is not always the same string (one with a NUL in it was not, and was never removed).
    try {
      const keep = new Set(JSON.parse(keepJSON).map((n) => prefix + n));
      for (const k of Object.keys(localStorage)) if (k.startsWith(prefix) && !keep.has(k)) localStorage.removeItem(k);
    } catch (e) { /* localStorage switched off: nothing to prune */ }
  },
};

// ---------------------------------------------------------------- a student's bot in the computer's seat
// Only in a page served by `python -m tools.web serve --player cmd:COMMAND`: that server adds the bot's name to its
// site.json and runs the command itself (tools/web/relay.py); a static copy of the site has no such seat. The page
// only ever sends the board the computer is asked about (webbot.py's request, made before any key of the turn is
// read), and learns the answer: {"cell": "e5"}, or why the bot broke the protocol.
const player = site.player && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(site.player.name) ? site.player.name : null;
wts.player = player;
const relay = { session: "", game: -1, ticket: 0, answer: "", ctrl: null, live: false };
function botUrl(path, game) {
  return path + "?session=" + relay.session + (game === undefined ? "" : "&game=" + game);
}
if (player) {
  relay.session = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  const failed = (why) => JSON.stringify({ error: { reason: "relay", why: fill(WORDS.botRelay, { error: why }) } });
  window.wtsBot = {
    // webbot.WebSeat.ask: post the request line of game number `game`; returns its ticket (the last one wins).
    ask: (game, line) => {
      if (relay.ctrl) relay.ctrl.abort();
      const ticket = ++relay.ticket;
      const ctrl = (relay.ctrl = new AbortController());
      relay.answer = "";
      relay.game = game;
      relay.live = true;
      fetch(botUrl("bot", game), { method: "POST", headers: { "Content-Type": "application/json" }, body: line,
        signal: ctrl.signal, cache: "no-store" })
        .then(async (res) => {
          let body = null;
          try { body = await res.json(); } catch (e) { /* not JSON: said below */ }
          if (res.ok && body && (typeof body.cell === "string" || body.error)) return JSON.stringify(body);
          return failed("HTTP " + res.status + (body && body.error && body.error.why ? ": " + body.error.why : ""));
        }, (e) => failed(String(e.message || e)))
        .then((text) => {
          if (ticket !== relay.ticket || ctrl.signal.aborted) return; // a newer request, or the game is gone
          relay.answer = text;
          relay.ctrl = null;
        });
      return ticket;
    },
    // webbot.WebSeat.answer: the answer to request `ticket` (JSON text) once it is there, else "" (never waits).
    poll: (ticket) => {
      if (ticket !== relay.ticket || !relay.answer) return "";
      const text = relay.answer;
      relay.answer = "";
      return text;
    },
  };
}
function botEnd() {
  // The game the bot played is over and no other followed (another mode): its process ends now, not at the next one.
  if (!relay.live) return;
  relay.live = false;
  relay.ticket++;
  if (relay.ctrl) { relay.ctrl.abort(); relay.ctrl = null; }
  fetch(botUrl("bot/end", relay.game), { method: "POST", keepalive: true }).catch(() => {});
}
if (player) {
  // A closed (or reloaded) page ends its bot's process.
  addEventListener("pagehide", () => { relay.live = false; fetch(botUrl("bot/close"), { method: "POST", keepalive: true }).catch(() => {}); });
}

// ---------------------------------------------------------------- MicroPython
const mp = await loadMicroPython({
  heapsize: site.heapsize,
  linebuffer: true,
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
});
marks.port = Math.round(performance.now());
const made = new Set(); // (a failing FS.mkdir throws: ~1 ms each, so each folder is made once)
site.files.forEach((p) => {
  const parts = p.split("/");
  let dir = "";
  for (const part of parts.slice(0, -1)) {
    dir += "/" + part;
    if (!made.has(dir)) { made.add(dir); try { mp.FS.mkdir(dir); } catch (e) { /* exists */ } }
  }
  mp.FS.writeFile("/" + p, Uint8Array.from(atob(site.device[p]), (c) => c.charCodeAt(0)));
});

marks.files = Math.round(performance.now());
try {
  mp.runPython(
    "import sys\nsys.path.insert(0, '/lib')\nsys.path.insert(0, '/')\nimport webhw\n" +
    "page = webhw.Page(mode=" + JSON.stringify(mode) + ", seed=" + (seed === null ? "None" : String(parseInt(seed, 10))) +
    ", lang=" + JSON.stringify(lang) + ", player=" + (player ? JSON.stringify(player) : "None") + ")\n" +
    "facts = webhw.setup_facts()\nkeys = webhw.pad_keys(0) + '|' + webhw.pad_keys(1)\n"
  );
} catch (e) {
  // A board file the firmware refuses, a broken module: the device would print this on its REPL.
  fail(WORDS.notStarted + " " + String(e.message || e).trim().split("\n").pop());
  throw e;
}
const page = mp.globals.get("page");
marks.firmware = Math.round(performance.now());
const [mapText, orderText] = mp.globals.get("facts").split(";");
const smap = mapText.split(",").map(Number); // board cell (and status A, B) -> strip index
const [RI, GI, BI] = orderText.split(",").map(Number); // byte offsets of r, g, b on the wire (COLOR_ORDER)
const padKeys = mp.globals.get("keys").split("|");
const getValue = mp._module.getValue;
// Each `page.x` lookup makes a Python bound method that a JS proxy keeps alive until the JS GC finalizes it:
// look the per-frame methods up once (measured: the MicroPython heap then stays flat instead of growing ~7 KB/s).
const py = { step: page.step, info: page.info, narration: page.narration, key: page.key, bufAddress: page.buf_address,
  setLang: page.set_lang };
let bufAddr = py.bufAddress();

// ---------------------------------------------------------------- drawing
const canvas = document.getElementById("matrix");
const boardBox = document.getElementById("board");
const g = canvas.getContext("2d");
// The picture is 10 x 12 pitches: 9 cells and their labels across; 9 rows, the labels and each player's status LED
// down (B, white, across the table; A, black, near).
const COLS_P = 10, ROWS_P = 12;
let W = canvas.width, H = canvas.height, PITCH = W / COLS_P, R = PITCH * 0.36, X0 = PITCH, Y0 = PITCH * 1.95;
const LUT = site.screen.lut, UNLIT = site.screen.unlit, FLOOR = site.screen.floor;
const wire = new Uint8Array(site.npix * 3);

function fit() {
  // The largest 10:12 box that fits the matrix's place in the layout, drawn at the screen's pixel density.
  const w = boardBox.clientWidth, h = boardBox.clientHeight;
  const p = Math.max(1, Math.min(w / COLS_P, h / ROWS_P));
  const cw = Math.floor(p * COLS_P), ch = Math.floor(p * ROWS_P);
  canvas.style.width = cw + "px";
  canvas.style.height = ch + "px";
  const dpr = Math.min(window.devicePixelRatio || 1, 3);
  const bw = Math.round(cw * dpr), bh = Math.round(ch * dpr);
  if (bw !== canvas.width || bh !== canvas.height) {
    canvas.width = bw;
    canvas.height = bh;
  }
  W = canvas.width; H = canvas.height;
  PITCH = Math.min(W / COLS_P, H / ROWS_P); R = PITCH * 0.36; X0 = (W - 8 * PITCH) / 2; Y0 = (H - 8 * PITCH) / 2;
}

function screen(i) {
  // Strip value -> screen colour, as the terminal simulator and the rendered pictures show LEDs (tools/sim/screen.py).
  const j = smap[i] * 3;
  const r = wire[j + RI], gg = wire[j + GI], b = wire[j + BI];
  if (r === 0 && gg === 0 && b === 0) return UNLIT;
  let out = [LUT[r], LUT[gg], LUT[b]];
  const m = Math.max(out[0], out[1], out[2]);
  if (m < FLOOR) { const k = FLOOR / Math.max(m, 1); out = out.map((v) => Math.min(255, Math.floor(v * k))); }
  return out;
}

function led(x, y, c) {
  g.fillStyle = "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";
  g.beginPath();
  g.arc(x, y, R, 0, 2 * Math.PI);
  g.fill();
}

function draw() {
  for (let k = 0; k < wire.length; k++) wire[k] = getValue(bufAddr + k, "i8") & 255;
  g.fillStyle = "#101412";
  g.fillRect(0, 0, W, H);
  g.fillStyle = "#69786f";
  g.font = Math.round(PITCH * 0.32) + "px sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  for (let c = 0; c < 9; c++) {
    g.fillText("abcdefghi"[c], X0 + c * PITCH, Y0 - PITCH * 0.72);
    g.fillText("abcdefghi"[c], X0 + c * PITCH, Y0 + 8 * PITCH + PITCH * 0.72);
  }
  for (let r = 0; r < 9; r++) {
    g.fillText(String(r + 1), X0 - PITCH * 0.72, Y0 + r * PITCH);
    g.fillText(String(r + 1), X0 + 8 * PITCH + PITCH * 0.72, Y0 + r * PITCH);
    for (let c = 0; c < 9; c++) led(X0 + c * PITCH, Y0 + r * PITCH, screen(r * 9 + c));
  }
  // The status LEDs sit at their players' edges: B (white) across the table, A (black) near.
  led(W / 2, Y0 - PITCH * 1.5, screen(82));
  led(W / 2, Y0 + 8 * PITCH + PITCH * 1.5, screen(81));
}

wts.pixels = () => {
  // The strip as the LEDs show it, decoded with the board's colour order: 81 cells (row*9+col), status A, status B.
  const out = [];
  for (let i = 0; i < site.npix; i++) { const j = smap[i] * 3; out.push([wire[j + RI], wire[j + GI], wire[j + BI]]); }
  return out;
};
wts.wire = () => Array.from(wire);

// ---------------------------------------------------------------- narration and public state
const story = document.getElementById("narration");
const echo = document.querySelector("#panelB .echo"); // the same sentences, turned for pad B's player
const table = document.getElementById("table");
const modeLines = document.querySelectorAll(".modeline");
const scoreLines = document.querySelectorAll(".score");
const labelB = document.querySelector("#padB .padlabel");
let lastInfo = "";
function scoreText(score) {
  // "b-w-d" from the firmware's scores.json counts for the mode being played (webhw.Page.info), or "".
  if (!score) return "";
  const [b, w, d] = score.split("-");
  return fill(WORDS.score, { black: b, white: w, draws: d });
}
function publicState() {
  const info = py.info();
  if (info !== lastInfo) {
    lastInfo = info;
    const [m, rot, , score] = info.split(",");
    const title = site.modeTitles[lang][m] || m;
    modeLines.forEach((el) => { el.textContent = title; });
    const st = scoreText(score);
    scoreLines.forEach((el) => { el.textContent = st; });
    table.classList.toggle("opposite", rot === "1");
    table.classList.toggle("side", rot !== "1");
    const computer = site.computerModes.includes(m); // pad B is the computer's seat: its keys are ignored
    table.classList.toggle("computer", computer);
    labelB.textContent = !computer ? WORDS.padB : player ? fill(WORDS.padBBot, { name: player }) : WORDS.padBComputer;
    if (!computer) botEnd();
    document.getElementById("menuhelp").hidden = m !== "menu";
  }
  const lines = py.narration();
  if (lines) {
    for (const line of lines.split("\n")) {
      if (line === "\f") { story.textContent = ""; echo.textContent = ""; wts.narration = []; continue; }
      for (const list of [story, echo]) {
        const li = document.createElement("li");
        li.textContent = line;
        if (line.startsWith("| ")) li.className = "stderr"; // what a student's bot wrote on stderr (webbot.py)
        list.appendChild(li);
      }
      wts.narration.push(line);
    }
    latest();
  }
}
function latest() {
  // The newest sentence in view (also after the layout changed size).
  story.scrollTop = story.scrollHeight;
  echo.scrollTop = echo.scrollHeight;
}

// ---------------------------------------------------------------- the loop: one firmware step per animation frame
let writes = -1;
// Cost per animation frame (tools/bench/web.py reports it): the firmware's step in Python, the canvas in JS.
const cost = (wts.cost = { frames: 0, stepMs: 0, stepMaxMs: 0, drawMs: 0 });
let broken = false;
function frame(now) {
  const t0 = performance.now();
  let w;
  try {
    w = py.step(now);
  } catch (e) {
    // A fault outside the firmware (the firmware's own crashes restart inside step): said once, the loop goes on.
    if (!broken) { broken = true; fail(WORDS.pageFault + " " + String(e.message || e).trim().split("\n").pop()); }
    return;
  }
  const t1 = performance.now();
  cost.frames++;
  cost.stepMs += t1 - t0;
  if (t1 - t0 > cost.stepMaxMs) cost.stepMaxMs = t1 - t0;
  if (w !== writes) {
    writes = w;
    bufAddr = py.bufAddress(); // the bytearray never moves, but a restarted firmware has a new one
    draw();
    cost.drawMs += performance.now() - t1;
    wts.frames++;
    if (wts.firstFrameMs === null) {
      wts.firstFrameMs = performance.now(); // since navigation start
      wts.bootMs = performance.now() - T0; // since this module began
      document.documentElement.dataset.booted = "1";
    }
  }
  publicState();
}

const startedAt = performance.now();
function loop() {
  frame(Math.floor(performance.now() - startedAt));
  requestAnimationFrame(loop);
}
if (hooks) {
  // Test hooks (a site built with --test-hooks, never the one players get): the page's Python, the manual clock.
  let clockMs = 0; // manual clock (?clock=manual): time moves only in wts.advance()
  wts.waiting = () => page.waiting();
  wts.python = (code) => mp.runPython(code); // the page's interpreter, like a device's REPL (page = the running webhw.Page)
  wts.heap = () => page.heap().split(",").map(Number); // [live, total] bytes of the MicroPython heap, after a collection
  wts.advance = (ms) => {
    // Run the firmware `ms` further in 20 ms steps, each its own call into Python (garbage is freed between them).
    const end = clockMs + ms;
    while (clockMs < end) {
      clockMs = Math.min(end, clockMs + 20);
      frame(clockMs);
    }
    return clockMs;
  };
}

// ---------------------------------------------------------------- pads: on screen and as keyboard halves
function key(pad, ch, down) {
  if (down) audioOn();
  py.key(pad, ch, down);
}
for (const pad of [0, 1]) {
  const el = document.getElementById(pad ? "padB" : "padA");
  const grid = el.querySelector(".keys");
  const keys = padKeys[pad];
  grid.classList.toggle("wide", keys.length === 16); // a 4x4 pad (boards/sim.py)
  for (const ch of keys) {
    const k = document.createElement("div");
    k.className = "key";
    k.textContent = ch;
    k.dataset.key = ch;
    grid.appendChild(k);
  }
  const down = new Map(); // pointerId -> key
  el.addEventListener("pointerdown", (e) => {
    const k = e.target.closest(".key");
    if (!k) return;
    e.preventDefault(); // no focus ring, no text selection: nothing on screen changes with the key touched
    down.set(e.pointerId, k.dataset.key);
    key(pad, k.dataset.key, true);
  });
  const up = (e) => {
    const ch = down.get(e.pointerId);
    if (ch === undefined) return;
    down.delete(e.pointerId);
    key(pad, ch, false);
  };
  for (const t of ["pointerup", "pointercancel", "pointerleave"]) el.addEventListener(t, up);
  el.addEventListener("contextmenu", (e) => e.preventDefault());
}
const keymap = site.keymap; // tools/sim/terminal.py's two keyboard halves
function keyEvent(e, isDown) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const c = e.key.length === 1 ? e.key.toLowerCase() : "";
  for (const pad of [0, 1]) {
    const ch = keymap[pad][c];
    if (ch === undefined) continue;
    e.preventDefault();
    if (!e.repeat) key(pad, ch, isDown);
  }
}
document.addEventListener("keydown", (e) => keyEvent(e, true));
const helpText = document.getElementById("helptext");
// The narration and the help fold away (a phone's panel is small); they share the panel, so opening one folds the other.
const storyBox = document.getElementById("story"), helpBox = document.getElementById("help");
const storyBtn = document.getElementById("storytoggle"), helpBtn = document.getElementById("helptoggle");
function show(storyOpen, helpOpen) {
  storyBox.classList.toggle("closed", !storyOpen);
  storyBtn.setAttribute("aria-expanded", String(storyOpen));
  helpBox.classList.toggle("open", helpOpen);
  helpText.hidden = !helpOpen;
  helpBtn.setAttribute("aria-expanded", String(helpOpen));
}
storyBtn.addEventListener("click", () => show(storyBox.classList.contains("closed"), false));
helpBtn.addEventListener("click", () => { const open = helpText.hidden; show(!open, open); });
document.addEventListener("keyup", (e) => keyEvent(e, false));

// ---------------------------------------------------------------- the words, in the page's language
const menuList = document.getElementById("menuitems"); // the device's menu, as the terminal simulator lists it
const langBox = document.getElementById("langs");
function applyWords() {
  // Every word on the page from WORDS and the site's tables in `lang` (at the start, and when the switch is used).
  document.documentElement.lang = lang;
  document.title = WORDS.title;
  canvas.setAttribute("aria-label", WORDS.matrixAria);
  for (const pad of [0, 1]) {
    const el = document.getElementById(pad ? "padB" : "padA");
    el.setAttribute("aria-label", pad ? WORDS.padBAria : WORDS.padAAria);
    el.querySelector(".padlabel").textContent = pad ? WORDS.padB : WORDS.padA;
  }
  document.getElementById("menuhead").textContent = WORDS.menu;
  menuList.textContent = "";
  for (const [k, label] of site.menu[lang]) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = label;
    menuList.append(dt, dd);
  }
  const keyHelp = [0, 1].map((pad) => {
    const inv = {};
    for (const [k, ch] of Object.entries(keymap[pad])) inv[ch] = k;
    const grid = ["123", "456", "789"].map((row) => [...row].map((ch) => inv[ch] || "?").join(" ")).join(" / ");
    return fill(WORDS.keyboardPad, { pad: "AB"[pad], grid, star: inv["*"], hash: inv["#"] });
  }).join("; ");
  helpText.textContent = "";
  for (const para of [WORDS.helpText, WORDS.keyboard + " " + keyHelp + "."]) {
    const p = document.createElement("p");
    p.textContent = para;
    helpText.appendChild(p);
  }
  storyBtn.textContent = WORDS.story;
  helpBtn.textContent = WORDS.help;
  langBox.setAttribute("aria-label", WORDS.language);
  for (const b of langBox.children) {
    b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
    b.title = site.words[b.dataset.lang].langName;
  }
  document.getElementById("status").textContent = notices.map(([k, v]) => fill(WORDS[k], v)).join(" \u00b7 ");
  lastInfo = ""; // the mode line, score and pad B's label again, in this language
  publicState();
}
function setLang(code) {
  // The language switch: from now on the page, the narration and the menu speak `code`, and it is kept.
  if (!site.langs.includes(code) || code === lang) return;
  py.setLang(code);
  lang = code;
  WORDS = site.words[lang];
  wts.lang = lang;
  store.set(LANG_KEY, code);
  applyWords();
}
for (const code of site.langs) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.lang = code;
  b.textContent = site.words[code].langCode;
  b.addEventListener("click", () => setLang(code));
  langBox.appendChild(b);
}
applyWords();
wts.ready = true;
// Offline once loaded: the service worker keeps a copy of every file (https or 127.0.0.1 only; file:// cannot run the port anyway).
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("sw.js").then(() => navigator.serviceWorker.ready).then(() => { wts.offlineReady = true; },
    (e) => console.warn("offline copy unavailable: " + e));
}
fit();
new ResizeObserver(() => { fit(); if (writes >= 0) draw(); latest(); }).observe(boardBox);
if (wts.manual) frame(0);
else requestAnimationFrame(loop);
