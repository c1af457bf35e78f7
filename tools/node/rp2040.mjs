// rp2040.mjs — the project's emulated Raspberry Pi Pico: rp2040js running a MicroPython UF2, USB CDC on a loopback socket, flash in an image file, and the board's electrics (switch-matrix keypads, WS2812 decoder, buzzer) around the chip.
//
// Driven by tools/rp2040/__init__.py over JSON lines on stdin/stdout: every
// request carries an "id" and gets exactly one reply with that id; things the
// guest does on its own (a reset, a power cut reached) come as {"event": …}
// lines. Emulated time (the simulated clock: 8 ns a cycle at 125 MHz, 5 ns at 200 MHz) is the
// only time here; host time only paces the optional real-time mode.
import fs from "node:fs";
import net from "node:net";
import readline from "node:readline";
import { RP2040, USBCDC, GPIOPinState } from "rp2040js";

// stdout is the control channel: nothing else may print there.
console.log = console.info = console.debug = (...a) => process.stderr.write(a.join(" ") + "\n");
let warnCount = 0;
console.warn = (...a) => { if (warnCount++ < 20) process.stderr.write(a.join(" ") + "\n"); };

const args = parseArgs(process.argv.slice(2));
// A cycle's length follows clk_sys as rp2040js works it out from the PLL and CLOCKS registers
// (machine.freq()); its own Simulator keeps 125 MHz whatever the firmware sets.
let cycleNs = 8;
const FLASH_SIZE = 2 * 1024 * 1024; // the Pico's W25Q16JV; MicroPython RPI_PICO is built for 2 MiB
// Flash operations take no emulated time (a W25Q16JV needs ~45 ms per 4 KiB
// erase and ~0.4 ms per 256 B page): saving scores is quicker here than on a Pico.

// WS2812B datasheet (Worldsemi, rev. 1.0): each ±150 ns.
const SPEC = { T0H: [250, 550], T1H: [650, 950], T0L: [700, 1000], T1L: [300, 600] };
const RESET_NS = 50000;        // WS2812B: reset (latch) when low > 50 µs
const RESET_NEW_NS = 280000;   // newer parts (WS2812B-V5 and later): > 280 µs

function parseArgs(argv) {
  const o = { uf2: null, bootrom: null, flash: null, port: 0, board: null, paused: false, pace: 0, maxFrames: 5000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--uf2") o.uf2 = argv[++i];
    else if (a === "--bootrom") o.bootrom = argv[++i];
    else if (a === "--flash") o.flash = argv[++i];
    else if (a === "--port") o.port = parseInt(argv[++i], 10);
    else if (a === "--board") o.board = JSON.parse(argv[++i]);
    else if (a === "--paused") o.paused = true;
    else if (a === "--pace") o.pace = parseFloat(argv[++i]);
    else if (a === "--max-frames") o.maxFrames = parseInt(argv[++i], 10);
    else fatal("unknown argument " + a);
  }
  if (!o.bootrom || !o.flash || !o.board) fatal("--bootrom, --flash and --board are required");
  return o;
}

function fatal(msg) {
  process.stdout.write(JSON.stringify({ event: "fatal", error: msg }) + "\n");
  process.exit(2);
}

function send(obj) { process.stdout.write(JSON.stringify(obj) + "\n"); }

// ------------------------------------------------------------------ flash image
// The image file *is* the flash: every erase/program the guest makes is written
// through at once, so killing this process at any moment leaves the file as a
// power cut would leave the chip.
function readUf2(file) {
  const data = fs.readFileSync(file);
  if (data.length === 0 || data.length % 512 !== 0) throw new Error(file + " is not a UF2 file (size " + data.length + " is not a multiple of 512)");
  const blocks = [];
  for (let off = 0; off < data.length; off += 512) {
    const b = data.subarray(off, off + 512);
    if (b.readUInt32LE(0) !== 0x0a324655 || b.readUInt32LE(4) !== 0x9e5d5157 || b.readUInt32LE(508) !== 0x0ab16f30)
      throw new Error(file + " is not a UF2 file (bad magic in block " + off / 512 + ")");
    const flags = b.readUInt32LE(8), addr = b.readUInt32LE(12), len = b.readUInt32LE(16);
    if (flags & 1) continue; // "not main flash"
    if (flags & 0x2000 && b.readUInt32LE(28) !== 0xe48bff56) throw new Error(file + " is a UF2 for another chip (family id " + b.readUInt32LE(28).toString(16) + "), not the RP2040");
    if (len > 476 || addr < 0x10000000 || addr + len > 0x10000000 + FLASH_SIZE) throw new Error(file + ": block " + off / 512 + " targets 0x" + addr.toString(16) + ", outside the Pico's 2 MiB flash");
    blocks.push([addr - 0x10000000, b.subarray(32, 32 + len)]);
  }
  if (!blocks.length) throw new Error(file + " holds no RP2040 flash blocks");
  return blocks;
}

let flashFd = null;
const flashImage = new Uint8Array(FLASH_SIZE);
function openFlash() {
  let fresh = false;
  try {
    const st = fs.statSync(args.flash);
    if (st.size !== FLASH_SIZE) throw new Error(args.flash + " is " + st.size + " bytes, not a 2 MiB Pico flash image");
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
    fresh = true;
  }
  if (fresh) {
    if (!args.uf2) throw new Error("no flash image at " + args.flash + " and no UF2 to start one from");
    flashImage.fill(0xff);
    const tmp = args.flash + ".tmp";
    fs.writeFileSync(tmp, flashImage);
    fs.renameSync(tmp, args.flash);
  }
  flashFd = fs.openSync(args.flash, "r+");
  fs.readSync(flashFd, flashImage, 0, FLASH_SIZE, 0);
  if (args.uf2) {
    // As copying the UF2 onto the BOOTSEL drive: its blocks replace those
    // bytes, the rest (the littlefs filesystem) stays.
    for (const [off, payload] of readUf2(args.uf2)) {
      flashImage.set(payload, off);
      fs.writeSync(flashFd, payload, 0, payload.length, off);
    }
    args.uf2 = null; // a later reset boots what is in flash, as a real one does
  }
}

function flashWrite(off, len) {
  fs.writeSync(flashFd, mcu.flash, off, len, off);
}

// ---------------------------------------------------------------- the chip
const bootromBytes = fs.readFileSync(args.bootrom);
if (bootromBytes.length !== 16384) fatal(args.bootrom + " is " + bootromBytes.length + " bytes, not the 16 KiB RP2040 boot ROM");

let mcu = null, cdc = null;
let boots = 0;
let halted = false;         // power cut reached or chip held: no more instructions
let pausedUntil = args.paused ? 0 : Infinity;  // run only while clock < pausedUntil
let pauseWaiters = [];      // run_until requests waiting for the clock
const flashOps = { count: 0, erased: 0, programmed: 0 };
let cutArm = null;          // {left, fraction}
let conflicts = [], conflictCount = 0, undefinedCount = 0;
let frames = [], frameSeq = 0;
let buzzer = [], buzzerState = null;
const ws = newDecoder();
let serialOut = [];         // bytes from the guest while no TCP client is connected are dropped, as on USB
const hostIn = [];          // bytes from the host not yet given to the guest
let pendingRead = null;     // the guest's OUT endpoint read waiting for host bytes
let connected = false;
const keyAlarms = new Set();   // scheduled key changes not yet fired (each leaves when it fires, all at a reset)
let switchLog = [];         // [t_ns, net a, net b, closed] for every contact change, the latest 10000

function patchBootrom(rom32) {
  // The boot ROM's flash functions talk to a flash chip rp2040js does not
  // emulate: replace 'RE' (flash_range_erase) and 'RP' (flash_range_program)
  // with BKPT #n; BX LR and carry them out in onBreak.
  const rom16 = new Uint16Array(rom32.buffer);
  let p = rom16[0x14 / 2];
  const found = {};
  for (; rom16[p / 2] !== 0; p += 4) {
    const code = rom16[p / 2], fn = rom16[p / 2 + 1] & ~1;
    if (code === (0x52 | (0x45 << 8))) found.RE = fn;
    if (code === (0x52 | (0x50 << 8))) found.RP = fn;
  }
  if (!found.RE || !found.RP) fatal("boot ROM has no flash_range_erase/program entries: is " + args.bootrom + " the RP2040 B1 boot ROM?");
  rom16[found.RE / 2] = 0xbe00 | 0x52; rom16[found.RE / 2 + 1] = 0x4770;
  rom16[found.RP / 2] = 0xbe00 | 0x50; rom16[found.RP / 2 + 1] = 0x4770;
}

function boot() {
  boots += 1;
  keyAlarms.clear();              // (they were on the old chip's clock: they never fire now)
  mcu = new RP2040();
  mcu.logger = { debug() {}, info(c, m) { if (m === "SEV") sev(); }, warn(c, m) { if (warnCount++ < 20) process.stderr.write(c + ": " + m + "\n"); }, error(c, m) { process.stderr.write(c + ": " + m + "\n"); } };
  const rom = new Uint32Array(bootromBytes.buffer.slice(bootromBytes.byteOffset, bootromBytes.byteOffset + 16384));
  patchBootrom(rom);
  mcu.loadBootrom(rom);           // also fills flash with 0xFF
  mcu.flash.set(flashImage);      // then the image: this chip sees exactly the file
  mcu.onBreak = onBreak;
  // rp2040js re-arms the watchdog's alarm after it fires, zero cycles ahead (its Decrement-mode schedule
  // wraps to 0), so a timeout fired again and again inside one clock step and froze Node: disarm it,
  // the chip is reset anyway (a TRIGGER write, i.e. machine.reset(), never went through the alarm).
  mcu.peripherals[0x40058].onWatchdogTrigger = () => { mcu.peripherals[0x40058].alarm.enable = false; scheduleReset("watchdog"); };
  const ppbWrite = mcu.ppb.writeUint32.bind(mcu.ppb);
  mcu.ppb.writeUint32 = (off, v) => {
    // AIRCR with VECTKEY and SYSRESETREQ: a software reset of the whole chip
    if (off === 0xd0c && (v >>> 16) === 0x05fa && (v & 4)) { scheduleReset("sysresetreq"); return; }
    ppbWrite(off, v);
  };
  cycleNs = 1e9 / mcu.clkSys;
  mcu.addClockListener((hz) => { cycleNs = 1e9 / hz; });
  setupVreg();
  setupUsb();
  setupPins();
  setupCore1();
  mcu.core.PC = 0x10000000;
  ws.reset(mcu.clock.nanos);
}

function setupVreg() {
  // rp2040js leaves VREG_AND_CHIP_RESET unmodelled (reads 0xffffffff). Its VREG register (offset 0) is kept
  // here, so firmware/cpufreq.py can raise the core voltage before 200 MHz and read it back (RP2040 datasheet
  // 2.10.7: EN bit 0, HIZ bit 1, VSEL bits 7:4 with 0b1011 = 1.10 V at reset, ROK bit 12 read only).
  const blk = mcu.peripherals[0x40064];
  const read = blk.readUint32.bind(blk), write = blk.writeUint32.bind(blk);
  blk.vreg = 0x10b1;
  blk.readUint32 = (off) => (off === 0 ? blk.vreg : read(off));
  blk.writeUint32 = (off, v) => { if (off === 0) blk.vreg = 0x1000 | (v & 0xf3); else write(off, v); };
}

let resetReason = null, bkptCount = 0;
function clockNanos() { return mcu.clock.nanos; }
function scheduleReset(why) { resetReason = why; }

function doReset() {
  // A hard reset: the flash (already in the file) survives, nothing else does.
  const why = resetReason;
  resetReason = null;
  fs.readSync(flashFd, flashImage, 0, FLASH_SIZE, 0);
  finishFrame(true);
  const t = mcu.clock.nanos;
  // A watchdog reset leaves the watchdog block itself alone on a real RP2040:
  // its REASON and scratch registers tell the new boot why it happened.
  const wd = mcu.peripherals[0x40058];
  const keep = why === "watchdog" ? { reason: wd.reason, scratch: Uint32Array.from(wd.scratchData) } : null;
  dropClient();
  boot();
  if (keep) { const nw = mcu.peripherals[0x40058]; nw.reason = keep.reason; nw.scratchData.set(keep.scratch); }
  send({ event: "reset", reason: why, boots, t_prev_ns: t });
}

function onBreak(code) {
  const core = mcu.core, r = core.registers;
  if (code !== 0x52 && code !== 0x50) {
    if (bkptCount++ < 3) process.stderr.write("rp2040: BKPT #" + code + " at 0x" + (core.PC >>> 0).toString(16) + " lr 0x" + (r[14] >>> 0).toString(16) + " t " + clockNanos() + " ns\n");
    return;
  }
  let off = r[0] >>> 0, len = (code === 0x52 ? r[1] : r[2]) >>> 0;
  if (off + len > FLASH_SIZE) { process.stderr.write("rp2040: flash op beyond 2 MiB ignored\n"); return; }
  let cut = false;
  if (cutArm && cutArm.left-- <= 0) {
    // Power fails during this operation: only part of it reaches the flash.
    cut = true;
    len = Math.floor(len * cutArm.fraction);
  }
  if (code === 0x52) {
    mcu.flash.fill(0xff, off, off + len);
    flashOps.erased += len;
  } else {
    const src = r[1] >>> 0;
    for (let i = 0; i < len; i++) mcu.flash[off + i] &= mcu.readUint8(src + i); // NOR: program only clears bits
    flashOps.programmed += len;
  }
  if (len) flashWrite(off, len);
  flashImage.set(mcu.flash.subarray(off, off + len), off);
  flashOps.count += 1;
  if (cut) {
    halted = true;
    cutArm = null;
    send({ event: "cut", op: code === 0x52 ? "erase" : "program", offset: off, bytes: len, t_ns: mcu.clock.nanos, ops: flashOps.count });
  }
}

// ---------------------------------------------------------------- the second core
// rp2040js models one Cortex-M0+ (its core 0). Core 1 is a second CortexM0Core
// on the same buses, run here: it starts in the boot ROM (which parks it,
// waiting for its launch sequence on the inter-core FIFO), the PSM holds it in
// reset while FRCE_OFF.PROC1 is set (multicore_reset_core1), and MicroPython's
// `_thread` launches it with the SDK's FIFO handshake. What each core has of its
// own is switched by `active`: SIO CPUID, the FIFOs (to each core, 8 deep,
// with VLD/RDY/WOF/ROE and the SIO_IRQ_PROCn levels), the hardware divider, and
// the PPB (NVIC, VTOR: rp2040js's PPB reads them from `mcu.core`, which points
// at the core executing). Other IRQs reach both cores' NVICs. SEV wakes the
// other core from WFE (or sets its event flag). Cores interleave by cycles:
// after each core-0 instruction core 1 runs until its own clock catches up
// (while core 0 sleeps, the clock moves in small steps for core 1).
let core0 = null, core1 = null;
let active = 0;             // the core whose instruction is executing (or 0 outside one)
let t1 = 0;                 // core 1's own clock, ns
let core1Instr = 0, core1Starts = 0;
let core1Top = 0, core1Low = 0;  // core 1's SP when it first left the boot ROM (its stack's top), and its lowest since
const fifo = [[], []];      // fifo[k]: words on their way to core k
const fifoErr = [0, 0];     // sticky WOF (bit 2) / ROE (bit 3), as core k sees its FIFO_ST
const divs = [newDiv(), newDiv()];
const PROC1_BIT = 1 << 16;  // PSM FRCE_OFF.PROC1
const CORE1_STEP_NS = 2000; // while core 0 sleeps, the clock moves in steps this long for core 1
const HW_IRQS = (1 << 26) - 1;
const SIO_IRQ_PROC0 = 15, SIO_IRQ_PROC1 = 16;

function newDiv() { return { dividend: 0, divisor: 1, quotient: 0, remainder: 0, csr: 0 }; }

function divide(d, signed) {
  if (d.divisor === 0) {
    d.quotient = (signed ? (d.dividend | 0) < 0 : false) ? 1 : 0xffffffff;
    d.remainder = d.dividend >>> 0;
  } else if (signed) {
    const a = d.dividend | 0, b = d.divisor | 0;
    d.quotient = Math.trunc(a / b) >>> 0;
    d.remainder = (a % b) >>> 0;
  } else {
    const a = d.dividend >>> 0, b = d.divisor >>> 0;
    d.quotient = Math.floor(a / b) >>> 0;
    d.remainder = (a % b) >>> 0;
  }
  d.csr = 3;
}

function fifoIrqs() {
  const l0 = fifo[0].length > 0 || fifoErr[0] !== 0;
  core0.setInterrupt(SIO_IRQ_PROC0, l0);
  if (core1) core1.setInterrupt(SIO_IRQ_PROC1, fifo[1].length > 0 || fifoErr[1] !== 0);
}

function isWfe(core) { return mcu.readUint16((core.PC - 2) >>> 0) === 0xbf20; }

function sev() {
  // SEV on `active`: the other core's event. Asleep in WFE it wakes; otherwise its next WFE falls through.
  const other = active ? core0 : core1;
  if (!other) return;
  if (other.waiting && isWfe(other)) other.waiting = false;
  else other.eventRegistered = true;
}

function makeCore1() {
  const c = new (core0.constructor)(mcu);
  c.VTOR = 0;
  c.reset();                 // SP and PC from the boot ROM's vector table: it parks core 1
  // hardware IRQ lines are levels: core 1 sees the ones already high
  c.pendingInterrupts = core0.pendingInterrupts & HW_IRQS & ~(1 << SIO_IRQ_PROC0) & ~(1 << SIO_IRQ_PROC1);
  if (fifo[1].length || fifoErr[1]) c.pendingInterrupts |= 1 << SIO_IRQ_PROC1;
  core1Starts += 1;
  core1Top = 0;
  core1Low = 0;
  return c;
}

function syncCore1() {
  const off = (mcu.peripherals[0x40010].frceOff & PROC1_BIT) !== 0;
  if (off && core1) { core1 = null; fifoErr[1] = 0; }
  else if (!off && !core1) { core1 = makeCore1(); t1 = mcu.clock.nanos; }
}

function setupCore1() {
  core0 = mcu.core;
  active = 0;
  fifo[0].length = 0; fifo[1].length = 0; fifoErr[0] = fifoErr[1] = 0;
  divs[0] = newDiv(); divs[1] = newDiv();
  mcu.setInterrupt = (irq, value) => {
    if (irq === SIO_IRQ_PROC0) return;       // the FIFO IRQs are driven by fifoIrqs() alone
    if (irq === SIO_IRQ_PROC1) return;
    core0.setInterrupt(irq, value);
    if (core1) core1.setInterrupt(irq, value);
  };
  const sio = mcu.sio;
  const sioRead = sio.readUint32.bind(sio), sioWrite = sio.writeUint32.bind(sio);
  sio.readUint32 = (off) => {
    switch (off) {
      case 0x000: return active;                                   // CPUID
      case 0x050: {                                                // FIFO_ST
        const tx = fifo[1 - active];
        return (fifo[active].length ? 1 : 0) | (tx.length < 8 ? 2 : 0) | fifoErr[active];
      }
      case 0x054: return 0;                                        // FIFO_WR (write-only)
      case 0x058: {                                                // FIFO_RD
        const rx = fifo[active];
        let v = 0;
        if (rx.length) v = rx.shift(); else fifoErr[active] |= 8;  // ROE
        fifoIrqs();
        return v;
      }
      case 0x060: case 0x068: return divs[active].dividend;
      case 0x064: case 0x06c: return divs[active].divisor;
      case 0x070: { const d = divs[active]; d.csr &= ~2; return d.quotient; }
      case 0x074: return divs[active].remainder;
      case 0x078: return divs[active].csr;
    }
    return sioRead(off);
  };
  sio.writeUint32 = (off, value) => {
    const d = divs[active];
    switch (off) {
      case 0x050: fifoErr[active] &= ~value; fifoIrqs(); return;  // FIFO_ST: WOF/ROE clear on write
      case 0x054: {                                                // FIFO_WR
        const tx = fifo[1 - active];
        if (tx.length < 8) tx.push(value >>> 0); else fifoErr[active] |= 4;  // WOF
        fifoIrqs();
        return;
      }
      case 0x058: return;
      case 0x060: d.dividend = value; divide(d, false); return;
      case 0x064: d.divisor = value; divide(d, false); return;
      case 0x068: d.dividend = value; divide(d, true); return;
      case 0x06c: d.divisor = value; divide(d, true); return;
      case 0x070: d.quotient = value >>> 0; d.csr = 3; return;
      case 0x074: d.remainder = value >>> 0; d.csr = 3; return;
    }
    sioWrite(off, value);
  };
  const psm = mcu.peripherals[0x40010];
  const psmWrite = psm.writeUint32.bind(psm);
  psm.writeUint32 = (off, value) => { psmWrite(off, value); if (off === 0x04) syncCore1(); };
  core1 = null;
  syncCore1();               // both cores come out of reset at power-up
}

function runCore1() {
  // Core 1 catches up with the clock (core 0's time), instruction by instruction.
  if (!core1) return;
  const now = mcu.clock.nanos;
  if (core1.waiting) { t1 = now; return; }
  if (t1 >= now) return;
  const c = core1;
  mcu.core = c; active = 1;
  try {
    while (t1 < now && !c.waiting && core1 === c && !halted) {
      t1 += c.executeInstruction() * cycleNs;
      core1Instr += 1;
      const sp = c.registers[13];
      if (sp < core1Low) core1Low = sp;
      else if (core1Top === 0 && c.registers[15] >= 0x4000) core1Top = core1Low = sp;  // launched: off the ROM's stack
    }
  } finally { mcu.core = core0; active = 0; }
  if (c.waiting) t1 = now;
}

// ---------------------------------------------------------------- USB CDC <-> TCP
function setupUsb() {
  cdc = new USBCDC(mcu.usbCtrl);
  pendingRead = null;
  cdc.onDeviceConnected = () => { connected = true; };
  cdc.onSerialData = (buf) => { if (client) client.write(Buffer.from(buf)); };
  // Answer the guest's OUT reads only when the host has bytes: an empty
  // answer makes TinyUSB ask again at once and the REPL stalls.
  mcu.usbCtrl.onEndpointRead = (ep, size) => {
    if (ep !== cdc.outEndpoint) return; // as USBCDC: control-endpoint reads are not answered
    pendingRead = { ep, size };
    feedUsb();
  };
}

function feedUsb() {
  if (!pendingRead || !hostIn.length || halted) return;
  const n = Math.min(pendingRead.size, hostIn.length);
  const buf = new Uint8Array(hostIn.splice(0, n));
  const ep = pendingRead.ep;
  pendingRead = null;
  mcu.usbCtrl.endpointReadDone(ep, buf);
}

let client = null;
const server = net.createServer((sock) => {
  if (client) { sock.end("rp2040: another program already has this serial port open\r\n"); return; }
  client = sock;
  sock.setNoDelay(true);
  sock.on("data", (d) => { for (const b of d) hostIn.push(b); feedUsb(); kick(); });
  sock.on("close", () => { if (client === sock) { client = null; hostIn.length = 0; } });
  sock.on("error", () => {});
});
function dropClient() {
  // The USB device vanishes on a reset: the host's serial port closes.
  if (client) { client.destroy(); client = null; }
  hostIn.length = 0;
}

// ---------------------------------------------------------------- pins: the board's electrics
// Every GPIO is a net of its own; a closed key joins two nets (or a net to
// GND for a direct button). A net's level comes from all its drivers:
// outputs (push-pull, or an open-drain low, which is an enabled output at 0)
// are strong; pull-ups/downs are weak; with neither it keeps its last level
// (the wire's capacitance). Two strong drivers at opposite levels are an
// electrical conflict: recorded, and the net reads low (undefined on a real
// board; a short between a high and a low output).
const GND = 30;            // pseudo-net for direct buttons
const switches = new Map(); // "a,b" -> true when closed
let parent = [];
let netLevel = new Array(31).fill(0);
let netConflict = new Array(31).fill(false);
let updating = false;

function find(x) { while (parent[x] !== x) x = parent[x] = parent[parent[x]]; return x; }
function rebuildNets() {
  parent = Array.from({ length: 31 }, (_, i) => i);
  for (const k of switches.keys()) {
    const [a, b] = k.split(",").map(Number);
    parent[find(a)] = find(b);
  }
}

function recomputeNet(pin) {
  const root = find(pin);
  let hi = [], lo = [], pullUp = false, pullDown = false, gnd = false;
  const members = [];
  for (let i = 0; i <= GND; i++) if (find(i) === root) members.push(i);
  for (const i of members) {
    if (i === GND) { gnd = true; lo.push("GND"); continue; }
    const g = mcu.gpio[i];
    if (g.outputEnable) (g.outputValue ? hi : lo).push("GP" + i);
    else if (g.pullupEnabled && !g.pulldownEnabled) pullUp = true;
    else if (g.pulldownEnabled && !g.pullupEnabled) pullDown = true;
  }
  let level;
  const conflict = hi.length > 0 && lo.length > 0;
  if (conflict) {
    level = 0;
    if (!netConflict[root]) {
      conflictCount += 1;
      if (conflicts.length < 100) conflicts.push({ t_ns: mcu.clock.nanos, high: hi, low: lo, pins: members.filter((i) => i !== GND) });
    }
  } else if (hi.length) level = 1;
  else if (lo.length) level = 0;
  else if (pullUp && pullDown) { undefinedCount += 1; level = netLevel[root]; }
  else if (pullUp) level = 1;
  else if (pullDown) level = 0;
  else level = netLevel[root];
  for (const i of members) { netConflict[i] = conflict; netLevel[i] = level; }
  updating = true;
  try {
    for (const i of members) {
      if (i === GND) continue;
      const g = mcu.gpio[i];
      if (g.rawInputValue !== !!level) g.setInputValue(!!level);
    }
  } finally { updating = false; }
}

function setupPins() {
  rebuildNets();
  netLevel.fill(0); netConflict.fill(false);
  const b = args.board;
  for (let i = 0; i < 30; i++) {
    const g = mcu.gpio[i];
    g.addListener(() => {
      if (!updating) recomputeNet(i);
      if (i === b.led_pin) ws.edge(g.value === GPIOPinState.High, mcu.clock.nanos);
      if (i === b.buzzer_pin) sampleBuzzer();
    });
  }
  for (let i = 0; i < 30; i++) recomputeNet(i);
  if (b.buzzer_pin != null) {
    const ch = mcu.pwm.channels[(b.buzzer_pin >> 1) & 7];
    const orig = ch.writeRegister.bind(ch);
    ch.writeRegister = (off, v) => { orig(off, v); sampleBuzzer(); };
    const pwmWrite = mcu.pwm.writeUint32.bind(mcu.pwm);
    mcu.pwm.writeUint32 = (off, v) => { pwmWrite(off, v); if (off === 0xa0) sampleBuzzer(); };
  }
  buzzerState = null;
  sampleBuzzer();
}

function setSwitch(a, b, closed) {
  const key = Math.min(a, b) + "," + Math.max(a, b);
  const was = switches.has(key);
  if (closed === was) return;
  if (closed) switches.set(key, true); else switches.delete(key);
  switchLog.push([mcu.clock.nanos, a, b, closed]);
  if (switchLog.length > 10000) switchLog.shift();
  rebuildNets();
  recomputeNet(a);
  recomputeNet(b);
}

// ---------------------------------------------------------------- buzzer: level or PWM
function sampleBuzzer() {
  const p = args.board.buzzer_pin;
  if (p == null) return;
  const g = mcu.gpio[p];
  let st;
  if (g.functionSelect === 4) {
    const ch = mcu.pwm.channels[(p >> 1) & 7];
    const top = ch.top, div = ch.div;
    const divf = ((div >> 4) & 0xff || 256) + (div & 0xf) / 16;
    const cc = p & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
    const phase = ch.csr & 2 ? 2 : 1;
    const on = !!(ch.csr & 1);
    const freq = on ? mcu.clkSys / divf / ((top + 1) * phase) : 0;
    const duty = on ? Math.min(1, cc / (top + 1)) : 0;
    st = { mode: "pwm", freq: Math.round(freq * 100) / 100, duty: Math.round(duty * 10000) / 10000, level: null };
  } else {
    st = { mode: "gpio", freq: 0, duty: 0, level: g.outputEnable ? (g.outputValue ? 1 : 0) : null };
  }
  const prev = buzzerState;
  if (prev && prev.mode === st.mode && prev.freq === st.freq && prev.duty === st.duty && prev.level === st.level) return;
  buzzerState = st;
  buzzer.push([mcu.clock.nanos, st.mode, st.freq, st.duty, st.level]);
  if (buzzer.length > 20000) buzzer.splice(0, buzzer.length - 20000);
}

// ---------------------------------------------------------------- WS2812 decoder
function newDecoder() {
  const d = {
    level: false, tRise: 0, tFall: 0, bits: [], t0: 0, lastBit: -1, errors: [], errorCount: 0,
    stats: { T0H: [Infinity, 0], T1H: [Infinity, 0], T0L: [Infinity, 0], T1L: [Infinity, 0] },
    minGap: Infinity, // shortest low between two frames (the reset/latch time actually given)
    reset(t) { this.level = false; this.tRise = t; this.tFall = t; this.bits = []; this.lastBit = -1; this.lastEnd = null; },
    err(t, text) { this.errorCount += 1; if (this.errors.length < 100) this.errors.push({ t_ns: t, error: text }); },
    note(name, v) { const s = this.stats[name]; if (v < s[0]) s[0] = v; if (v > s[1]) s[1] = v; const [lo, hi] = SPEC[name]; return v >= lo && v <= hi; },
    edge(high, t) {
      if (high === this.level) return;
      this.level = high;
      if (high) {
        const low = t - this.tFall;
        if (this.bits.length && low >= RESET_NS) finishFrame(false);
        if (this.bits.length) {
          const name = this.lastBit ? "T1L" : "T0L";
          if (!this.note(name, low)) this.err(t, name + " " + low + " ns outside " + SPEC[name][0] + ".." + SPEC[name][1] + " ns (bit " + this.bits.length + ")");
        } else {
          if (this.lastEnd != null) { const gap = t - this.lastEnd; if (gap < this.minGap) this.minGap = gap; }
          this.t0 = t;
        }
        this.tRise = t;
      } else {
        const hi = t - this.tRise;
        const bit = hi >= 600 ? 1 : 0;
        const name = bit ? "T1H" : "T0H";
        if (!this.note(name, hi)) this.err(t, "high " + hi + " ns fits neither T0H 250..550 nor T1H 650..950 ns (bit " + this.bits.length + ")");
        this.bits.push(bit);
        this.lastBit = bit;
        this.tFall = t;
      }
    },
  };
  return d;
}

function finishFrame(force) {
  const d = ws;
  if (!d.bits.length) return;
  if (!force && !(mcu.clock.nanos - d.tFall >= RESET_NS) && d.level === false) return;
  if (d.bits.length % 8) d.err(d.tFall, "frame of " + d.bits.length + " bits is not whole bytes");
  const n = d.bits.length >> 3, bytes = Buffer.alloc(n);
  for (let i = 0; i < n * 8; i++) if (d.bits[i]) bytes[i >> 3] |= 0x80 >> (i & 7);
  frames.push([frameSeq++, d.t0, d.tFall, bytes.toString("hex")]);
  if (frames.length > args.maxFrames) frames.splice(0, frames.length - args.maxFrames);
  d.lastEnd = d.tFall;
  d.bits = [];
}

// ---------------------------------------------------------------- running
let running = false;
let hostT0 = performance.now(), emuT0 = 0;
function kick() { if (!running) { running = true; setImmediate(runSlice); } }

function runSlice() {
  running = false;
  if (resetReason) doReset();
  if (halted) { settleWaiters(); return; }
  const core = core0, clock = mcu.clock;
  const until = Math.min(pausedUntil, paceLimit());
  const hostEnd = performance.now() + 15;
  let idleStuck = false;
  outer:
  while (performance.now() < hostEnd) {
    for (let i = 0; i < 20000; i++) {
      if (clock.nanos >= until || halted || resetReason) break outer;
      if (!core.waiting) {
        clock.tick(core.executeInstruction() * cycleNs);
        if (core1) runCore1();
      } else if (core1 && !core1.waiting) {
        // core 0 asleep, core 1 running: time moves in short steps (never past an alarm or the target)
        let dt = CORE1_STEP_NS;
        const n = clock.nanosToNextAlarm;
        if (n > 0 && n < dt) dt = n;
        if (until - clock.nanos < dt) dt = until - clock.nanos;
        clock.tick(dt);
        runCore1();
      } else {
        const n = clock.nanosToNextAlarm;
        if (n <= 0) {
          // Asleep with no timer armed: only the host (USB) can wake it. Time
          // still passes on a real chip, so a run_until (or real-time pacing)
          // moves the clock on; free-running, we just wait for the host.
          const target = Math.min(until, earliestWaiter());
          if (isFinite(target) && target > clock.nanos) { clock.tick(target - clock.nanos); t1 = clock.nanos; continue; }
          idleStuck = true;
          break outer;
        }
        clock.tick(Math.min(n, until - clock.nanos));
        t1 = clock.nanos;    // (core 1 slept too; an alarm's IRQ may have woken it just now)
      }
    }
  }
  if (ws.bits.length && !ws.level && clock.nanos - ws.tFall >= RESET_NS) finishFrame(false);
  settleWaiters();
  if (resetReason) { running = true; setImmediate(runSlice); return; }
  if (halted) return;
  if (clock.nanos >= pausedUntil) return; // paused: a request will kick us
  if (idleStuck) { running = true; setTimeout(runSlice, 2); return; }
  if (clock.nanos >= paceLimit()) { running = true; setTimeout(runSlice, 2); return; }
  running = true;
  setImmediate(runSlice);
}

function earliestWaiter() {
  let t = Infinity;
  for (const w of pauseWaiters) if (w.t < t) t = w.t;
  return t;
}

function paceLimit() {
  if (!(args.pace > 0)) return Infinity;
  return emuT0 + (performance.now() - hostT0) * 1e6 * args.pace;
}

function settleWaiters() {
  const now = mcu.clock.nanos;
  pauseWaiters = pauseWaiters.filter((w) => {
    if (now >= w.t || halted) { send({ id: w.id, ok: !halted || now >= w.t, t_ns: now, halted, error: halted && now < w.t ? "the chip is halted (power cut reached)" : undefined }); return false; }
    return true;
  });
}

// ---------------------------------------------------------------- control channel
function stats() {
  return {
    t_ns: mcu.clock.nanos, boots, halted, connected: !!client, usb_configured: connected,
    frames: frameSeq, flash_ops: flashOps.count, flash_erased: flashOps.erased, flash_programmed: flashOps.programmed,
    conflicts: conflictCount, undefined_levels: undefinedCount, ws_errors: ws.errorCount,
    ws_stats: ws.stats, ws_min_reset_gap_ns: isFinite(ws.minGap) ? ws.minGap : null,
    buzzer: buzzerState, paused_until: isFinite(pausedUntil) ? pausedUntil : null,
    core1: { running: !!core1, waiting: !!(core1 && core1.waiting), starts: core1Starts, instructions: core1Instr,
             stack_used: core1Top ? core1Top - core1Low : 0 },
    key_alarms: keyAlarms.size,
    pcs: [core0.PC >>> 0, core1 ? core1.PC >>> 0 : null], waits: [core0.waiting, core1 ? core1.waiting : null],
  };
}

function handle(req) {
  const id = req.id;
  const reply = (o) => send(Object.assign({ id, ok: true }, o));
  switch (req.op) {
    case "stats": return reply(stats());
    case "switch": setSwitch(req.a, req.b, !!req.closed); return reply({ t_ns: mcu.clock.nanos });
    case "schedule": {
      // Switch changes at exact emulated times (ns after now, or absolute).
      const base = mcu.clock.nanos;
      for (const ev of req.events) {
        const at = ev.at_ns != null ? ev.at_ns : base + ev.delay_ns;
        const alarm = mcu.clock.createAlarm(() => { keyAlarms.delete(alarm); setSwitch(ev.a, ev.b, !!ev.closed); });
        alarm.schedule(Math.max(0, at - mcu.clock.nanos));
        keyAlarms.add(alarm);
      }
      kick();
      return reply({ t_ns: base });
    }
    case "switches": return reply({ events: switchLog.filter((e) => e[0] >= (req.since_ns || 0)) });
    case "release_all": for (const k of [...switches.keys()]) { const [a, b] = k.split(",").map(Number); setSwitch(a, b, false); } return reply({});
    case "frames": return reply({ frames: frames.filter((f) => f[0] >= (req.since || 0)).slice(0, req.limit || 100000) });
    case "buzzer": return reply({ events: buzzer.filter((e) => e[0] >= (req.since_ns || 0)) });
    case "conflicts": return reply({ count: conflictCount, conflicts, undefined_levels: undefinedCount });
    case "ws_errors": return reply({ count: ws.errorCount, errors: ws.errors });
    case "run_until": {
      pausedUntil = req.pause ? req.t_ns : Infinity;
      if (mcu.clock.nanos >= req.t_ns || halted) { reply({ t_ns: mcu.clock.nanos, halted, ok: !halted || mcu.clock.nanos >= req.t_ns }); }
      else pauseWaiters.push({ id, t: req.t_ns });
      kick();
      return;
    }
    case "pause": pausedUntil = mcu.clock.nanos; return reply({ t_ns: mcu.clock.nanos });
    case "resume": pausedUntil = Infinity; emuT0 = mcu.clock.nanos; hostT0 = performance.now(); kick(); return reply({ t_ns: mcu.clock.nanos });
    case "pace": args.pace = req.pace; emuT0 = mcu.clock.nanos; hostT0 = performance.now(); kick(); return reply({});
    case "arm_cut": cutArm = { left: req.after_ops, fraction: req.fraction == null ? 0.5 : req.fraction }; return reply({ flash_ops: flashOps.count });
    case "reset": scheduleReset("host"); kick(); return reply({});
    case "input": for (const b of Buffer.from(req.data, "base64")) hostIn.push(b); feedUsb(); kick(); return reply({});
    case "peek": {
      // Read guest memory (e.g. a RAM symbol); only for diagnostics.
      const out = []; for (let i = 0; i < req.n; i++) out.push(mcu.readUint8(req.addr + i)); return reply({ data: out });
    }
    default: return send({ id, ok: false, error: "unknown op " + req.op });
  }
}

try {
  openFlash();
} catch (e) { fatal(e.message); }
boot();
server.on("error", (e) => fatal(e.code === "EADDRINUSE" ? "port " + args.port + " on 127.0.0.1 is already in use" : "cannot listen on 127.0.0.1:" + args.port + ": " + e.message));
server.listen(args.port, "127.0.0.1", () => {
  send({ event: "ready", port: server.address().port, boots });
  const rl = readline.createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    if (!line.trim()) return;
    let req;
    try { req = JSON.parse(line); } catch (e) { return send({ ok: false, error: "bad JSON: " + e.message }); }
    try { handle(req); } catch (e) { send({ id: req.id, ok: false, error: String(e && e.stack || e) }); }
  });
  // Our parent's end of stdin closing means it is gone: so are we. The flash
  // image needs no saving, every write is in the file already.
  rl.on("close", () => process.exit(0));
  kick();
});
