// vboard.mjs — virtual board: the official MicroPython webassembly port's REPL on a loopback TCP socket, with fake pads and a recorded LED strip.
//
// Threads: the main thread owns the TCP socket (the "USB serial" mpremote
// talks to) and a JSON-lines control channel on stdin/stdout (tools/upy/vboard.py:
// press/release keys, fetch frames). A worker thread runs MicroPython. The
// guest may block forever (a firmware main loop), so the two sides share
// memory: serial input goes through a ring buffer, key states through a byte
// table; the guest's fake Pin/time/NeoPixel call back into the worker's JS,
// which reads that memory synchronously (and turns a Ctrl-C in the input
// into a KeyboardInterrupt, as a board's UART interrupt would).
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import path from "node:path";
import fs from "node:fs";

const RING = 1 << 20;
// ctrl Int32 slots
const SEQ = 0, HEAD = 1, TAIL = 2, KGEN = 3, READS = 4, FRAMES = 5, BOOTS = 6, BUSY = 7, HEAPPEAK = 8;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

if (isMainThread) await mainThread(); else await workerThread();

// ---------------------------------------------------------------- main thread
async function mainThread() {
  const net = await import("node:net");
  const readline = await import("node:readline");
  const args = process.argv.slice(2);
  const opt = { port: 0, heapsize: 256 * 1024, maxFrames: 20000, files: null, fsSize: 0, heapLimit: -1 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--port") opt.port = parseInt(args[++i], 10);
    else if (a === "--heapsize") opt.heapsize = parseInt(args[++i], 10);
    else if (a === "--max-frames") opt.maxFrames = parseInt(args[++i], 10);
    else if (a === "--files") opt.files = args[++i];
    else if (a === "--fs-size") opt.fsSize = parseInt(args[++i], 10);
    else if (a === "--heap-limit") opt.heapLimit = parseInt(args[++i], 10);
    else { process.stderr.write("vboard.mjs: unknown argument " + a + "\n"); process.exit(2); }
  }
  if (!(opt.port >= 0 && opt.port < 65536) || !(opt.heapsize >= 16384) || !(opt.maxFrames > 0) || !(opt.fsSize >= 0)) {
    process.stderr.write("vboard.mjs: bad --port/--heapsize/--max-frames/--fs-size\n");
    process.exit(2);
  }

  const sab = new SharedArrayBuffer(64 + RING + 256);
  const ctrl = new Int32Array(sab, 0, 16);
  const ring = new Uint8Array(sab, 64, RING);
  const keys = new Uint8Array(sab, 64 + RING, 256);
  const pending = [];  // input that did not fit in the ring yet

  function pushInput(buf) {
    let i = 0;
    while (i < buf.length) {
      const head = Atomics.load(ctrl, HEAD), tail = Atomics.load(ctrl, TAIL);
      if (((tail + 1) % RING) === head) break;  // full: keep the rest for later
      ring[tail] = buf[i++];
      Atomics.store(ctrl, TAIL, (tail + 1) % RING);
    }
    if (i < buf.length) pending.push(buf.subarray(i));
    Atomics.add(ctrl, SEQ, 1);
    Atomics.notify(ctrl, SEQ);
  }
  setInterval(() => { if (pending.length) { const b = Buffer.concat(pending.splice(0)); pushInput(b); } }, 5).unref();

  const frames = [];      // [seq, ms, pin, Buffer]
  let frameSeq = 0;
  let client = null;
  let booted = false;
  const t0 = Date.now();

  const worker = new Worker(fileURLToPath(import.meta.url), {
    workerData: { sab, heapsize: opt.heapsize, files: opt.files, t0, fsSize: opt.fsSize, heapLimit: opt.heapLimit },
  });
  worker.on("message", (m) => {
    if (m.t === "out") { if (client) client.write(Buffer.from(m.data)); }
    else if (m.t === "frame") {
      frames.push([frameSeq++, m.ms, m.pin, Buffer.from(m.data)]);
      if (frames.length > opt.maxFrames) frames.splice(0, frames.length - opt.maxFrames);
    } else if (m.t === "booted" && !booted) { booted = true; maybeReady(); }
    else if (m.t === "log") process.stderr.write("vboard: " + m.text + "\n");
  });
  worker.on("error", (e) => { process.stderr.write("vboard worker died: " + (e && e.stack || e) + "\n"); process.exit(1); });
  worker.on("exit", (code) => { process.stderr.write("vboard worker exited " + code + "\n"); process.exit(1); });

  const server = net.createServer((sock) => {
    // One "USB" connection at a time, like a serial port: a newcomer takes
    // over (mpremote reconnects per command; a dead client must not block).
    if (client) client.destroy();
    client = sock;
    sock.setNoDelay(true);
    sock.on("data", (d) => pushInput(d));
    sock.on("close", () => { if (client === sock) client = null; });
    sock.on("error", () => {});
  });
  let listening = false;
  server.on("error", (e) => {
    reply({ ok: false, error: "cannot listen on 127.0.0.1:" + opt.port + ": " + e.code });
    process.exit(3);
  });
  server.listen(opt.port, "127.0.0.1", () => { listening = true; maybeReady(); });

  function maybeReady() {
    if (listening && booted) reply({ ok: true, ready: true, port: server.address().port });
  }
  function reply(o) { process.stdout.write(JSON.stringify(o) + "\n"); }

  // Control channel: one JSON request per line on stdin, one reply per line.
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on("line", (line) => {
    let req;
    try { req = JSON.parse(line); } catch (e) { reply({ ok: false, error: "bad json" }); return; }
    const op = req.op;
    if (op === "press" || op === "release") {
      const pad = req.pad, key = req.key;
      if ((pad !== "A" && pad !== "B") || typeof key !== "string" || key.length !== 1 || key.charCodeAt(0) > 127) {
        reply({ ok: false, error: "pad must be A or B and key one ASCII character" });
        return;
      }
      keys[(pad === "A" ? 0 : 128) + key.charCodeAt(0)] = op === "press" ? 1 : 0;
      Atomics.add(ctrl, KGEN, 1);
      reply({ ok: true, reads: Atomics.load(ctrl, READS) });
    } else if (op === "release_all") {
      keys.fill(0);
      Atomics.add(ctrl, KGEN, 1);
      reply({ ok: true, reads: Atomics.load(ctrl, READS) });
    } else if (op === "frames") {
      const since = req.since | 0;
      const out = [];
      for (const f of frames) if (f[0] >= since) out.push([f[0], f[1], f[2], f[3].toString("hex")]);
      reply({ ok: true, frames: out, next: frameSeq });
    } else if (op === "stats") {
      reply({ ok: true, reads: Atomics.load(ctrl, READS), frames: frameSeq, boots: Atomics.load(ctrl, BOOTS),
              busy: Atomics.load(ctrl, BUSY), client: client !== null, uptime_ms: Date.now() - t0,
              heap_peak: Atomics.load(ctrl, HEAPPEAK) });
    } else {
      reply({ ok: false, error: "unknown op " + JSON.stringify(op) });
    }
  });
  rl.on("close", () => process.exit(0));
}

// -------------------------------------------------------------- worker thread
async function workerThread() {
  const { loadMicroPython } = await import("@micropython/micropython-webassembly-pyscript");
  const { sab, heapsize, files, t0, fsSize, heapLimit } = workerData;
  const ctrl = new Int32Array(sab, 0, 16);
  const ring = new Uint8Array(sab, 64, RING);
  const keys = new Uint8Array(sab, 64 + RING, 256);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const guestBoot = fs.readFileSync(path.join(here, "vboard_guest.py"), "utf8");

  let mp = null, M = null;
  let out = [];
  let muted = false;
  let rawMode = false, rawEmpty = true, paste = 0;
  let resetReq = 0;          // 1 hard (machine.reset), 2 soft (machine.soft_reset)
  const strips = [];         // [addr, len, pin]

  const log = (text) => parentPort.postMessage({ t: "log", text });
  function flush() {
    if (out.length) { parentPort.postMessage({ t: "out", data: Uint8Array.from(out) }); out = []; }
  }
  function emit(s) { for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 255); flush(); }
  function onOut(b) {
    if (muted) return;
    for (const c of b) out.push(c);
    if (out.length >= 1024 || b[b.length - 1] === 10) flush();
    checkInterrupt();
  }

  // -- serial input ring ------------------------------------------------------
  function readByte() {
    const head = Atomics.load(ctrl, HEAD);
    if (head === Atomics.load(ctrl, TAIL)) return -1;
    const c = ring[head];
    Atomics.store(ctrl, HEAD, (head + 1) % RING);
    return c;
  }
  // A Ctrl-C waiting in the input while Python runs: take it out (the bytes
  // around it stay queued) and schedule KeyboardInterrupt, as a board's
  // UART/USB handler does with the interrupt character.
  function checkInterrupt() {
    if (!M) return;
    const head = Atomics.load(ctrl, HEAD), tail = Atomics.load(ctrl, TAIL);
    for (let i = head; i !== tail; i = (i + 1) % RING) {
      if (ring[i] === 3) {
        for (let j = i; j !== head; j = (j - 1 + RING) % RING) ring[j] = ring[(j - 1 + RING) % RING];
        Atomics.store(ctrl, HEAD, (head + 1) % RING);
        M._mp_sched_keyboard_interrupt();
        return;
      }
    }
  }

  // -- JS side of the fakes ----------------------------------------------------
  const vb = {
    sleep_ms(ms) {
      flush();
      const end = Date.now() + Math.max(0, ms);
      for (;;) {
        checkInterrupt();
        const left = end - Date.now();
        if (left <= 0) return 0;
        const seq = Atomics.load(ctrl, SEQ);
        Atomics.wait(ctrl, SEQ, seq, left);  // wakes early when input arrives
      }
    },
    keys() {
      Atomics.add(ctrl, READS, 1);
      checkInterrupt();
      return Atomics.load(ctrl, KGEN);
    },
    pressed() {
      let s = "";
      for (let i = 0; i < 256; i++) if (keys[i]) s += (i < 128 ? "A" : "B") + String.fromCharCode(i & 127);
      return s;
    },
    np_new(addr, len, pin, bpp) { strips.push([addr, len, pin]); return strips.length - 1; },
    np_write(h) {
      const [addr, len, pin] = strips[h];
      const data = new Uint8Array(len);
      for (let i = 0; i < len; i++) data[i] = M.getValue(addr + i, "i8") & 255;
      Atomics.add(ctrl, FRAMES, 1);
      parentPort.postMessage({ t: "frame", ms: Date.now() - t0, pin, data });
      checkInterrupt();
      return 0;
    },
    request_reset(kind) { resetReq = kind; return 0; },
    // Project files the guest runs as private modules (firmware/keypad.py, firmware/boardcheck.py).
    source(rel) { return fs.readFileSync(path.join(ROOT, rel), "utf8"); },
    heap_limit() { return heapLimit; },
    heap_peak(n) { if (n > Atomics.load(ctrl, HEAPPEAK)) Atomics.store(ctrl, HEAPPEAK, n); return 0; },
    urandom(n) { return Buffer.from(crypto.getRandomValues(new Uint8Array(Math.max(0, n | 0)))).toString("hex"); },
    fs_total() { return fsSize > 0 ? fsSize : -1; },
    fs_free() { return fsSize > 0 ? Math.max(0, fsSize - fsUsed()) : -1; },
  };

  // --fs-size: a flash of that many bytes (file contents only); a write
  // past it fails with ENOSPC like a full littlefs, so "disk full" handling
  // can be tested.
  function fsUsed() {
    let used = 0;
    const walk = (dir) => {
      for (const name of mp.FS.readdir(dir)) {
        if (name === "." || name === "..") continue;
        const p = (dir === "/" ? "" : dir) + "/" + name;
        if (SKIP.has(p)) continue;
        const st = mp.FS.stat(p);
        if (mp.FS.isDir(st.mode)) walk(p); else used += st.size;
      }
    };
    walk("/");
    return used;
  }
  function limitFs(FS) {
    const write = FS.write;
    FS.write = function (stream, buffer, offset, length, position, canOwn) {
      if (stream.path && !stream.path.startsWith("/dev/")) {
        const pos = position === undefined ? stream.position : position;
        const grow = Math.max(0, pos + length - (stream.node.usedBytes || 0));
        // 28 is MicroPython's (Linux) ENOSPC: file-object errors reach the
        // guest unmapped, so use the number a board would show, not
        // emscripten's 51. Files being written count beside their old copy.
        if (grow > 0 && fsUsed() + pendingBytes() + grow > fsSize) throw new FS.ErrnoError(28);
      }
      return write.call(FS, stream, buffer, offset, length, position, canOwn);
    };
  }

  // -- littlefs file semantics ---------------------------------------------------
  // littlefs is copy-on-write: what a file holds changes only when the writer
  // closes it (a reader, a reboot or a power cut in between sees the old
  // contents, never a partial write), and rewriting a file needs room for the
  // new copy beside the old one. MEMFS writes in place, so a stream opened for
  // writing gets a private copy of the node that close() puts in place.
  // (rename over an existing file is atomic in both.)
  const shadows = new Set();
  function littlefs(FS) {
    const open0 = FS.open, close0 = FS.close;
    const MODES = { r: 0, "r+": 2, w: 577, "w+": 578, a: 1089, "a+": 1090 };
    FS.open = function (p, flags, mode) {
      if (typeof flags === "string") flags = MODES[flags];
      flags = flags | 0;
      const writing = (flags & 3) !== 0;
      const stream = open0.call(FS, p, writing ? (flags & ~512) : flags, mode);
      if (!writing || !FS.isFile(stream.node.mode) || String(stream.path).startsWith("/dev/")) return stream;
      const real = stream.node;
      const copy = Object.create(Object.getPrototypeOf(real));
      Object.assign(copy, real);
      const n = (flags & 512) ? 0 : (real.usedBytes || 0);
      copy.contents = new Uint8Array(Math.max(n, 256));
      if (n) copy.contents.set(real.contents.subarray(0, n));
      copy.usedBytes = n;
      stream.node = copy;
      stream.committed = real;
      shadows.add(copy);
      return stream;
    };
    FS.close = function (stream) {
      const real = stream.committed;
      if (real) {
        const copy = stream.node;
        real.contents = copy.contents.slice(0, copy.usedBytes);
        real.usedBytes = copy.usedBytes;
        real.mtime = copy.mtime;
        stream.node = real;
        stream.committed = null;
        shadows.delete(copy);
      }
      return close0.call(FS, stream);
    };
  }
  function pendingBytes() { let n = 0; for (const c of shadows) n += c.usedBytes; return n; }

  // -- filesystem kept across reboots -------------------------------------------
  const SKIP = new Set(["/dev", "/proc", "/tmp", "/home"]);
  function snapshot(FS, dir = "/", acc = []) {
    for (const name of FS.readdir(dir)) {
      if (name === "." || name === "..") continue;
      const p = (dir === "/" ? "" : dir) + "/" + name;
      if (SKIP.has(p)) continue;
      const st = FS.stat(p);
      if (FS.isDir(st.mode)) { acc.push([p, null]); snapshot(FS, p, acc); }
      else acc.push([p, FS.readFile(p)]);
    }
    return acc;
  }
  function restore(FS, entries) {
    for (const [p, data] of entries) {
      if (data === null) { try { FS.mkdir(p); } catch (e) {} }
      else FS.writeFile(p, data);
    }
  }
  function loadFiles(FS, dir) {
    // --files: a host directory copied in at first boot (tests, `--board`).
    const walk = (hostDir, guestDir) => {
      for (const name of fs.readdirSync(hostDir)) {
        const hp = path.join(hostDir, name), gp = guestDir + "/" + name;
        if (fs.statSync(hp).isDirectory()) { try { FS.mkdir(gp); } catch (e) {} walk(hp, gp); }
        else FS.writeFile(gp, fs.readFileSync(hp));
      }
    };
    walk(dir, "");
  }

  function runFile(name) {
    // pyexec_file_if_exists: run it as __main__, print any traceback.
    let src;
    try { src = mp.FS.readFile("/" + name, { encoding: "utf8" }); } catch (e) { return; }
    try { mp.runPython(src); }
    catch (e) { if (e && e.name === "PythonError") { if (e.type !== "SystemExit") emit(e.message.replace(/\r?\n/g, "\r\n")); } else throw e; }
    flush();
  }

  async function boot(kind) {
    // kind: "power" (first start), "soft" (Ctrl-D / soft_reset), "hard" (machine.reset)
    const saved = mp ? snapshot(mp.FS) : null;
    strips.length = 0;
    resetReq = 0;
    mp = await loadMicroPython({ heapsize, linebuffer: false, stdout: onOut, stderr: onOut });
    M = mp._module;
    for (const d of ["/home/web_user", "/home", "/tmp"]) { try { mp.FS.rmdir(d); } catch (e) {} }
    if (saved) restore(mp.FS, saved);
    else if (files) loadFiles(mp.FS, files);
    if (fsSize > 0) limitFs(mp.FS);
    littlefs(mp.FS);
    shadows.clear();
    mp.registerJsModule("_vb", vb);
    muted = false;
    mp.runPython(guestBoot);
    mp.runPython("_vb_rebase()");  // a call starts with a full GC: the heap in use after boot
    Atomics.add(ctrl, BOOTS, 1);
    // The board is "plugged in" now, even if main.py then runs forever.
    if (kind === "power") parentPort.postMessage({ t: "booted" });
    if (kind === "soft") emit("MPY: soft reboot\r\n");
    if (kind === "hard") { rawMode = false; }
    runFile("boot.py");
    if (!rawMode) {
      Atomics.store(ctrl, BUSY, 1);
      runFile("main.py");
      Atomics.store(ctrl, BUSY, 0);
    }
    if (resetReq) return boot(resetReq === 1 ? "hard" : "soft");
    // Start the REPL in the mode we were in; the friendly banner is shown
    // only in friendly mode, as on a board.
    muted = rawMode;
    mp.replInit();
    muted = false;
    if (rawMode) { mp.replProcessChar(1); rawEmpty = true; }
    flush();
  }

  async function feed(c) {
    Atomics.store(ctrl, BUSY, 1);
    const ret = mp.replProcessChar(c);
    Atomics.store(ctrl, BUSY, 0);
    flush();
    if (resetReq) { const k = resetReq; if (k === 1) { drainInput(); } await boot(k === 1 ? "hard" : "soft"); return; }
    if (ret === 256) await boot("soft");  // Ctrl-D on an empty line: soft reset
  }
  function drainInput() { Atomics.store(ctrl, HEAD, Atomics.load(ctrl, TAIL)); }  // a reset drops queued input

  // Raw-paste mode (Ctrl-E A Ctrl-A) hangs this port's event-driven REPL, so
  // the board side of the protocol is done here: "R\x01" + window size,
  // collect the code (granting a new window with \x01 as each one is used),
  // ack the final Ctrl-D with \x04, then run the code through the plain raw
  // REPL and drop its "OK" (raw-paste output has none). Without this,
  // mpremote falls back to 256-byte writes every 10 ms: `fs cp` is 10x slower.
  const WINDOW = 4096;
  let pasteBuf = null, pasteUsed = 0;
  async function pasteByte(c) {
    if (c === 4) {
      const code = pasteBuf;
      pasteBuf = null;
      emit("\x04");
      // One runPython call, not one replProcessChar per byte: every call
      // into the port from JS starts with a full GC, which made a 256-byte
      // command cost ~80 ms.
      let err = "";
      Atomics.store(ctrl, BUSY, 1);
      try { mp.runPython(Buffer.from(code).toString("utf8")); }
      catch (e) {
        if (!(e && e.name === "PythonError")) throw e;
        if (e.type !== "SystemExit") err = e.message.replace(/\r?\n/g, "\r\n");
      }
      Atomics.store(ctrl, BUSY, 0);
      flush();
      rawEmpty = true;
      if (resetReq) { const k = resetReq; if (k === 1) drainInput(); await boot(k === 1 ? "hard" : "soft"); return; }
      emit("\x04" + err + "\x04>");
      return;
    }
    if (c === 3) { pasteBuf = null; emit("\x04"); rawEmpty = true; return; }  // abandoned paste
    pasteBuf.push(c);
    if (++pasteUsed === WINDOW) { pasteUsed = 0; emit("\x01"); }
  }

  async function handle(c) {
    if (pasteBuf !== null) { await pasteByte(c); return; }
    if (rawMode) {
      if (paste === 0 && c === 5 && rawEmpty) { paste = 1; return; }
      if (paste === 1) { paste = 0; if (c === 65) { paste = 2; return; } await feed(5); }
      else if (paste === 2) {
        paste = 0;
        if (c === 1) { pasteBuf = []; pasteUsed = 0; emit("R\x01" + String.fromCharCode(WINDOW & 255, WINDOW >> 8)); return; }
        await feed(5); await feed(65);
      }
      if (c === 2) rawMode = false;
      if (c === 1 || c === 3 || c === 4) rawEmpty = true; else if (c !== 2) rawEmpty = false;
      await feed(c);
      return;
    }
    if (c === 1) { rawMode = true; rawEmpty = true; }
    await feed(c);
  }

  await boot("power");
  for (;;) {
    const c = readByte();
    if (c < 0) {
      const seq = Atomics.load(ctrl, SEQ);
      if (Atomics.load(ctrl, HEAD) === Atomics.load(ctrl, TAIL)) Atomics.wait(ctrl, SEQ, seq, 500);
      continue;
    }
    try { await handle(c); }
    catch (e) { log("internal error: " + (e && e.stack || e)); emit("\r\nvboard internal error\r\n"); await boot("soft"); }
  }
}
