// upy.mjs — one long-lived MicroPython (official webassembly port) driven by tools/upy over a JSON-lines pipe.
//
// Protocol (one JSON object per line each way, so code and data can hold any
// bytes without framing trouble; binary file data travels base64-encoded):
//   -> {"op":"put","path":"engine/__init__.py","data":"<base64>"}   <- {"ok":true}
//   -> {"op":"exec","code":"print(1)"}        <- {"ok":true,"out":"1\n"}
//                                             <- {"ok":false,"out":"…","error":"Traceback …"}
//   -> {"op":"reset"}   fresh interpreter, files kept                <- {"ok":true}
// The guest's stdout is collected per request instead of written to our
// stdout, because our stdout is the protocol channel.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";
import readline from "node:readline";

const args = process.argv.slice(2);
let heapsize = 256 * 1024;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--heapsize") heapsize = parseInt(args[++i], 10);
}
if (!(heapsize > 0)) {
  process.stderr.write("upy.mjs: --heapsize must be a positive integer\n");
  process.exit(2);
}

let outChunks = [];
const collect = (b) => { outChunks.push(Buffer.from(b)); };

// Files live in a plain JS map too, so that a reset (fresh interpreter with a
// fresh emscripten FS) can write them back.
const files = new Map();
let mp = null;

function mkdirs(FS, path) {
  const parts = path.split("/").filter((p) => p.length);
  let cur = "";
  for (let i = 0; i < parts.length - 1; i++) {
    cur += "/" + parts[i];
    try { FS.mkdir(cur); } catch (e) { /* exists already */ }
  }
}

function writeFile(path, data) {
  const abs = path.startsWith("/") ? path : "/" + path;
  mkdirs(mp.FS, abs);
  mp.FS.writeFile(abs, data);
}

async function boot() {
  mp = await loadMicroPython({ heapsize, linebuffer: false, stdout: collect, stderr: collect });
  for (const [path, data] of files) writeFile(path, data);
}

function reply(obj) { process.stdout.write(JSON.stringify(obj) + "\n"); }

function takeOut() {
  const s = Buffer.concat(outChunks).toString("utf8");
  outChunks = [];
  return s;
}

await boot();
reply({ ok: true, ready: true });

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
// Requests are handled strictly one after another: a reset awaits the new
// module before the next line is looked at.
const queue = [];
let busy = false;
async function pump() {
  if (busy) return;
  busy = true;
  while (queue.length) {
    const line = queue.shift();
    let req;
    try { req = JSON.parse(line); } catch (e) { reply({ ok: false, error: "bad request line: " + e.message }); continue; }
    try {
      if (req.op === "put") {
        const data = Buffer.from(req.data, "base64");
        const key = req.path.startsWith("/") ? req.path : "/" + req.path;
        files.set(key, data);
        writeFile(key, data);
        reply({ ok: true });
      } else if (req.op === "exec") {
        outChunks = [];
        try {
          mp.runPython(req.code);
          reply({ ok: true, out: takeOut() });
        } catch (e) {
          // PythonError carries the guest traceback as its message; anything
          // else is a crash of the port itself and is reported the same way.
          reply({ ok: false, out: takeOut(), error: String(e && e.message !== undefined ? e.message : e), type: e && e.type });
        }
      } else if (req.op === "reset") {
        await boot();
        reply({ ok: true });
      } else {
        reply({ ok: false, error: "unknown op " + JSON.stringify(req.op) });
      }
    } catch (e) {
      reply({ ok: false, error: "host error: " + (e && e.stack ? e.stack : String(e)) });
    }
  }
  busy = false;
}
rl.on("line", (line) => { queue.push(line); pump(); });
rl.on("close", () => { const wait = () => (busy ? setTimeout(wait, 5) : process.exit(0)); wait(); });
