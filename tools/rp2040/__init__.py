"""The emulated Raspberry Pi Pico (rp2040js under Node running a MicroPython UF2): Python API for tools, tests, the simulator and the bench.

    from tools.rp2040 import Pico
    with Pico() as pico:                       # tools/rp2040/firmware's UF2 + boot ROM, a fresh flash image
        print(pico.url)                        # socket://127.0.0.1:PORT for mpremote / tools.deploy
        pico.tap("A", "5")                     # key contacts closed/opened at pin level, emulated time
        pico.frames()                          # decoded WS2812 frames with emulated timestamps
        pico.power_cut()                       # kill the chip, boot again from the same flash image

Everything is in emulated time (`t_ns`: nanoseconds of the simulated clock since
this chip powered up: 125 MHz, or what machine.freq() set); waits synchronise on the guest's clock or
its serial output, never on host sleeps. See DEVELOPERS.md "tools/rp2040".
"""
import base64
import collections
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from tools import stop_child

__all__ = ["Pico", "Rp2040Error", "Frame", "default_uf2", "default_bootrom", "uf2_problem", "bundled_problem",
           "BUNDLED", "SHARED_RP2", "NODE_DIR", "PACKAGE"]

ROOT = Path(__file__).resolve().parent.parent.parent
NODE_DIR = ROOT / "tools" / "node"
SCRIPT = NODE_DIR / "rp2040.mjs"
PACKAGE = NODE_DIR / "node_modules" / "rp2040js" / "package.json"
# The UF2 and the boot ROM are kept in the repository (tools/rp2040/firmware/, with their licences and
# SHA256SUMS), so a fresh clone runs the emulated Pico with no download; ../shared/rp2 is a fallback.
BUNDLED = Path(__file__).resolve().parent / "firmware"
SHARED_RP2 = ROOT.parent / "shared" / "rp2"
UF2_NAME = "RPI_PICO-v1.27.0.uf2"
BOOTROM_NAME = "bootrom-b1.bin"
WHERE = ("tools/rp2040/firmware/ holds both (restore them with git checkout -- tools/rp2040/firmware); the official "
         "MicroPython UF2 is at https://micropython.org/download/RPI_PICO/ and the RP2040 boot ROM in "
         "github.com/raspberrypi/pico-bootrom (also wokwi/rp2040js demo/bootrom.ts)")
GND = 30  # the Node side's pseudo-net for a direct button's other contact
NS_PER_MS = 1000000

# One decoded WS2812 frame: seq number, emulated ns of its first rising edge
# and of its last falling edge, the bytes in wire order (GRB… for WS2812B).
Frame = collections.namedtuple("Frame", "seq t0_ns t1_ns data")


class Rp2040Error(RuntimeError):
    """The emulated Pico could not start, died, or did not get where it was asked to in time; str() is one line."""


_bundled_ok = {}


def bundled_problem(directory=None):
    """None when tools/rp2040/firmware's UF2 and boot ROM are there and match its SHA256SUMS, else why not (one line)."""
    import hashlib

    d = Path(directory or BUNDLED)
    if d in _bundled_ok:
        return _bundled_ok[d]
    why = None
    try:
        sums = (d / "SHA256SUMS").read_text().split("\n")
    except OSError:
        sums = []
        why = "%s/SHA256SUMS is missing" % d
    for line in sums:
        if not line.strip():
            continue
        digest, name = line.split()
        try:
            got = hashlib.sha256((d / name).read_bytes()).hexdigest()
        except OSError:
            why = "%s is missing" % (d / name)
            break
        if got != digest:
            why = "%s is damaged (SHA-256 %s..., not %s... as SHA256SUMS says)" % (d / name, got[:12], digest[:12])
            break
    _bundled_ok[d] = why
    return why


def _bundled(name):
    p = BUNDLED / name
    return p if p.is_file() and bundled_problem() is None else None


def default_uf2():
    """The UF2 to run when none is named: env WTS_RP2_UF2, else the repository's (checked), else ../shared/rp2's, else None."""
    env = os.environ.get("WTS_RP2_UF2")
    if env:
        return Path(env)
    p = _bundled(UF2_NAME)
    if p is not None:
        return p
    p = SHARED_RP2 / UF2_NAME
    return p if p.is_file() else None


def default_bootrom(uf2=None):
    """The boot ROM: env WTS_RP2_BOOTROM, else beside the UF2, else the repository's, else ../shared/rp2's, else None."""
    env = os.environ.get("WTS_RP2_BOOTROM")
    if env:
        return Path(env)
    for d in ([Path(uf2).parent] if uf2 else []):
        p = d / BOOTROM_NAME
        if p.is_file():
            return p
    p = _bundled(BOOTROM_NAME)
    if p is not None:
        return p
    p = SHARED_RP2 / BOOTROM_NAME
    return p if p.is_file() else None


def uf2_problem():
    """None when the emulated Pico can run here, else why not (one line): tests skip or fail with it."""
    if shutil.which("node") is None:
        return "node is not installed (Node 20 is needed for the emulated Pico)"
    if not PACKAGE.is_file():
        return "rp2040js is not installed: run `npm ci --prefix tools/node`"
    uf2 = default_uf2()
    if uf2 is None or not uf2.is_file():
        if os.environ.get("WTS_RP2_UF2"):
            return "no MicroPython RPI_PICO UF2 (env WTS_RP2_UF2 names %s, which is not there); %s" % (uf2, WHERE)
        return "no MicroPython RPI_PICO UF2 (%s); %s" % (bundled_problem() or "%s is missing" % (BUNDLED / UF2_NAME), WHERE)
    rom = default_bootrom(uf2)
    if rom is None or not rom.is_file():
        return "no RP2040 boot ROM (%s beside the UF2, or env WTS_RP2_BOOTROM); %s" % (BOOTROM_NAME, WHERE)
    return None


def _key_layout(cfg):
    """{(pad, key char): (net a, net b)} for both pads, from the board file: which two nets each key joins."""
    from firmware.keypad import KEYS_3X4, KEYS_4X4, KEYS_DIRECT

    out = {}
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    for pad, attr in (("A", "PAD_A"), ("B", "PAD_B")):
        spec = getattr(cfg, attr)
        k = getattr(cfg, attr + "_TYPE", kind)
        if k == "direct":
            for i, ch in enumerate(KEYS_DIRECT):
                out[(pad, ch)] = (spec["pins"][i], GND)
            continue
        rows, cols = spec["rows"], spec["cols"]
        keys = spec.get("keys") or (KEYS_4X4 if k == "matrix4x4" else KEYS_3X4)
        for i, ch in enumerate(keys):
            out[(pad, ch)] = (rows[i // len(cols)], cols[i % len(cols)])
    return out


def classify(rgb):
    """What one LED shows, by the palette's hue (firmware/display.py PAL): '.' empty/grid, 'B' blue turtle,
    'W' warm-white turtle, 'e' amber egg, 'r' red, 'g' green, 'f' white flash, '?' other. Works at any
    brightness and power cap: gamma and scaling keep each colour's channel order."""
    r, g, b = rgb
    if r == g == b == 0:
        return "."
    if r == g and b >= r and b < 40:
        return "."                      # the faint block grid (14, 14, 18)
    if r == 0 and g > b:
        return "g"
    if b > r:
        return "B"
    if b == 0 and g == 0:
        return "r"
    if b == 0 and g < r:
        return "e"
    if r == g == b:
        return "f"
    if r >= g >= b > 0:
        return "W"
    return "?"


def strip_order(cfg):
    """Board cell (row*9+col, black's view; then status A, B) -> strip index, from the firmware's own map."""
    from firmware.display import strip_map

    return strip_map(getattr(cfg, "MATRIX_LAYOUT", "serpentine"), getattr(cfg, "MATRIX_ORIGIN", "top-left"),
                     getattr(cfg, "MATRIX_ROTATION", 0), getattr(cfg, "STATUS_LEDS", (81, 82)))


def deployed_image(dest, board="pico", uf2=None, log=None):
    """Make `dest`: a fresh flash image from the UF2 with the game installed by tools.deploy (over the USB
    serial, as on a board), after the reset deploy ends with. Returns dest as a Path."""
    dest = Path(dest)
    if dest.exists():
        dest.unlink()
    with Pico(uf2=uf2 or default_uf2(), flash=dest, board=board) as pico:
        n = len(pico.events())
        quiet_deploy(board, pico.url, log, pico)
        pico.wait_event("reset", since=n, timeout=60)
    return dest


def quiet_deploy(board, url, log=None, pico=None):
    """tools.deploy to the emulated Pico; mpremote's own prints (its raw-REPL retries print the bytes seen) are dropped.
    With `pico`, first wait until its USB serial is up, as a host sees the port only then."""
    import contextlib
    import io

    from tools import deploy

    if pico is not None:
        pico.wait_usb()
    with contextlib.redirect_stdout(io.StringIO()):
        # emulated=True: this chip is wired from the board file itself, so any RP2040 board file fits it
        return deploy.deploy(board, port=url, log=log or (lambda *a: None), emulated=True)


class Pico:
    """One emulated Pico (a Node process). Context manager; .close() stops it, keeping the flash image file.

    uf2: MicroPython UF2 written over the flash at power-up, as BOOTSEL copying
    does (None: the default one when the flash image is new, else boot what is
    in the image). flash: image file path (None: a temporary one, deleted on
    close). port: TCP port of the USB serial (0: any free). paused: hold the
    clock at 0 until run_until()/resume(), so key events can be scheduled at
    exact emulated times from power-up. pace: emulated/host speed limit
    (1.0 = real time for a human at the terminal; 0 = as fast as it goes).
    pty: also offer the USB serial as a pseudo-terminal, `.tty` (/dev/pts/N): mpremote's REPL and any
    serial program need a real file descriptor, which a socket:// URL is not.
    cfg: the wiring to build around the chip instead of boards/<board>.py (an object with a board file's
    constants, e.g. the board_config.py a test wrote onto the board's filesystem).
    """

    def __init__(self, uf2=None, flash=None, port=0, board="pico", bootrom=None, paused=False, pace=0.0,
                 max_frames=5000, timeout=30.0, pty=False, cfg=None):
        import boards

        from firmware.boardcheck import check

        self.cfg = cfg if cfg is not None else boards.load(board)   # ValueError listing the boards
        check(self.cfg)                         # the one board-file check (a BoardError, a ValueError, naming each problem)
        if getattr(self.cfg, "CHIP", "rp2040") != "rp2040":
            raise ValueError("board %s is not wired to an RP2040 (CHIP %r): the emulated Pico needs an RP2040 board file"
                             % (board, self.cfg.CHIP))
        self.board = board
        self.keys = _key_layout(self.cfg)
        self._order = strip_order(self.cfg)
        if shutil.which("node") is None:
            raise Rp2040Error("node is not installed (Node 20 is needed for the emulated Pico)")
        if not PACKAGE.is_file():
            raise Rp2040Error("rp2040js is not installed: run `npm ci --prefix tools/node`")
        if not isinstance(port, int) or not 0 <= port < 65536:
            raise ValueError("port must be 0..65535 (0 = any free port)")
        self._tmpdir = None
        if flash is None:
            self._tmpdir = tempfile.mkdtemp(prefix="rp2040-")
            flash = os.path.join(self._tmpdir, "flash.img")
        self.flash = Path(flash).resolve()  # the Node child runs in tools/node: a relative name means the caller's folder
        if uf2 is None and not self.flash.exists():
            uf2 = default_uf2()
            if uf2 is None:
                raise Rp2040Error("no UF2 to start from: name one with --uf2 (%s)" % WHERE)
        if uf2 is not None and not Path(uf2).is_file():
            raise Rp2040Error("no UF2 file at %s" % uf2)
        bootrom = bootrom or default_bootrom(uf2)
        if bootrom is None or not Path(bootrom).is_file():
            raise Rp2040Error("no RP2040 boot ROM (%s): name one with --bootrom (%s)" % (bootrom or BOOTROM_NAME, WHERE))
        self.bootrom = Path(bootrom).resolve()
        self.timeout = timeout
        self.max_frames = max_frames
        self.pace = pace
        self._proc = None
        self._err = None
        self.boots = 0          # chip power-ups/resets seen, all processes together
        self.cuts = 0
        self.tty = None          # with pty=True: /dev/pts/N, the USB serial as a serial device (mpremote connect it repl)
        self._pty = None
        self._start(uf2, port, paused)
        if pty:
            from tools.rp2040.ptybridge import PtyBridge

            self._pty = PtyBridge(self.port)
            self.tty = self._pty.path

    # -- process ---------------------------------------------------------------
    def _start(self, uf2, port, paused):
        cfg = self.cfg
        board = {"led_pin": cfg.LED_PIN, "buzzer_pin": getattr(cfg, "BUZZER_PIN", None)}
        cmd = ["node", str(SCRIPT), "--bootrom", str(self.bootrom), "--flash", str(self.flash),
               "--port", str(port), "--board", json.dumps(board), "--max-frames", str(self.max_frames)]
        if uf2 is not None:
            cmd += ["--uf2", str(Path(uf2).resolve())]   # the Node side runs in tools/node
        if paused:
            cmd.append("--paused")
        if self.pace:
            cmd += ["--pace", str(self.pace)]
        self._err = tempfile.TemporaryFile()
        self._replies = {}
        self._events = []
        self._cond = threading.Condition()
        self._next_id = 0
        self._dead = None
        self._proc = subprocess.Popen(cmd, cwd=str(NODE_DIR), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._err, start_new_session=True)
        self._reader = threading.Thread(target=self._read_loop, args=(self._proc,), daemon=True)
        self._reader.start()
        try:
            ev = self.wait_event(("ready", "fatal"), timeout=self.timeout)
        except BaseException:
            self._stop()
            raise
        if ev["event"] == "fatal":
            self._stop()
            raise Rp2040Error(ev["error"])
        self.port = ev["port"]
        self.url = "socket://127.0.0.1:%d" % self.port
        self.boots += 1

    def _read_loop(self, proc):
        try:
            for line in proc.stdout:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                with self._cond:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        if msg.get("event") == "reset":
                            self.boots += 1
                        self._events.append(msg)
                    self._cond.notify_all()
        except (ValueError, OSError):
            pass
        with self._cond:
            if self._proc is proc:
                self._dead = "the emulated Pico's process ended: " + self._stderr(400)
            self._cond.notify_all()

    def _stderr(self, n=2000):
        try:
            self._err.seek(0)
            text = self._err.read().decode("utf-8", "replace")
        except (ValueError, AttributeError, OSError):
            return ""
        lines = [l for l in text.splitlines() if "Unimplemented peripheral" not in l and "invalid SIO" not in l]
        return "\n".join(lines)[-n:]

    def _stop(self, kill=False):
        proc, self._proc = self._proc, None
        if proc is not None:
            if kill:
                proc.kill()   # a power cut: no goodbye, whatever the chip was doing
            stop_child(proc)
        if self._err is not None:
            self._err.close()
            self._err = None

    def call(self, op, timeout=None, **kw):
        """One request to the Node side; returns its reply dict (Rp2040Error on failure)."""
        with self._cond:
            if self._proc is None:
                raise Rp2040Error("the emulated Pico is closed")
            self._next_id += 1
            rid = self._next_id
        req = dict(kw, op=op, id=rid)
        try:
            self._proc.stdin.write((json.dumps(req) + "\n").encode())
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, AttributeError):
            raise Rp2040Error("the emulated Pico's process ended: " + self._stderr(400)) from None
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while rid not in self._replies:
                if self._dead:
                    raise Rp2040Error(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Rp2040Error("the emulated Pico did not answer %r within %.0f s (host time)" % (op, timeout or self.timeout))
                self._cond.wait(left)
            rep = self._replies.pop(rid)
        if not rep.get("ok"):
            raise Rp2040Error(rep.get("error", "%s failed" % op))
        return rep

    def wait_event(self, kinds, timeout=None, since=0):
        """Block until the Node side reports an event of one of `kinds` (index >= since); return it."""
        if isinstance(kinds, str):
            kinds = (kinds,)
        deadline = time.monotonic() + (timeout or self.timeout)
        with self._cond:
            while True:
                for ev in self._events[since:]:
                    if ev.get("event") in kinds:
                        return ev
                if self._dead:
                    raise Rp2040Error(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Rp2040Error("no %s from the emulated Pico within %.0f s (host time)" % ("/".join(kinds), timeout or self.timeout))
                self._cond.wait(left)

    def events(self):
        with self._cond:
            return list(self._events)

    # -- time --------------------------------------------------------------------
    def stats(self):
        """Counters: t_ns, boots, frames, flash_ops, conflicts, ws_errors, ws_stats (min/max per WS2812 timing), buzzer, ..."""
        return self.call("stats")

    def now_ns(self):
        return self.call("stats")["t_ns"]

    def run_until(self, t_ns, pause=False, timeout=120.0):
        """Let the chip run until its clock reads t_ns (pause=True: then hold it there); returns the clock."""
        return self.call("run_until", t_ns=int(t_ns), pause=bool(pause), timeout=timeout)["t_ns"]

    def run_for(self, ms, pause=False, timeout=120.0):
        """Let at least `ms` emulated milliseconds pass (from now)."""
        return self.run_until(self.now_ns() + int(ms * NS_PER_MS), pause=pause, timeout=timeout)

    def set_pace(self, pace):
        """Limit emulated/host speed from now on (1.0: never ahead of the wall clock; 0: as fast as it goes)."""
        self.pace = float(pace)
        self.call("pace", pace=self.pace)

    def resume(self):
        return self.call("resume")["t_ns"]

    def wait_usb(self, timeout=60.0):
        """Block until the chip's USB serial is up (enumerated), as a host only sees /dev/ttyACM0 from then on."""
        deadline = time.monotonic() + timeout
        while not self.stats()["usb_configured"]:
            if time.monotonic() > deadline:
                raise Rp2040Error("the emulated Pico's USB serial did not come up within %.0f s (host time)" % timeout)
            time.sleep(0.02)

    # -- keys ----------------------------------------------------------------------
    def _nets(self, pad, key):
        try:
            return self.keys[(pad, key)]
        except KeyError:
            raise ValueError("no key %r on pad %r of board %s (pads A, B; keys %s)"
                             % (key, pad, self.board, "".join(sorted({k for p, k in self.keys if p == pad})))) from None

    def press(self, pad, key):
        """Close a key's contact now (it joins its row and column nets until release)."""
        a, b = self._nets(pad, key)
        return self.call("switch", a=a, b=b, closed=True)["t_ns"]

    def release(self, pad, key):
        a, b = self._nets(pad, key)
        return self.call("switch", a=a, b=b, closed=False)["t_ns"]

    def switches(self, since_ns=0):
        """Key contact changes as the chip saw them: [(t_ns, net a, net b, closed)], the latest 10000."""
        return [tuple(e) for e in self.call("switches", since_ns=since_ns)["events"]]

    def release_all(self):
        self.call("release_all")

    def schedule(self, events, at_ns=None):
        """Key changes at exact emulated times: events = [(ms, pad, key, closed)], ms after `at_ns` (default:
        the chip's clock when the request reaches it). Returns the emulated ns the offsets count from.

        The default base is taken on the Node side, in the same step that arms the alarms: a base read
        first (one round trip) is stale by however long the host takes to send the schedule while the
        chip runs on. CI's click-latency check read 42 ms from such a base; a host stall of 0.4 s put
        the press 55 emulated ms late, and a longer one would fire a tap's press and release at once."""
        evs = []
        for ms, pad, key, closed in events:
            a, b = self._nets(pad, key)
            ev = {"a": a, "b": b, "closed": bool(closed)}
            off = int(round(ms * NS_PER_MS))
            if at_ns is None:
                ev["delay_ns"] = off
            else:
                ev["at_ns"] = int(at_ns) + off
            evs.append(ev)
        now = self.call("schedule", events=evs)["t_ns"]
        return now if at_ns is None else int(at_ns)

    def tap(self, pad, key, hold_ms=80, gap_ms=80):
        """Press for hold_ms, release, and let gap_ms more pass (emulated); a human's firm tap."""
        base = self.schedule([(0, pad, key, True), (hold_ms, pad, key, False)])
        self.run_until(base + int((hold_ms + gap_ms) * NS_PER_MS))

    def type_keys(self, pad, keys, hold_ms=80, gap_ms=80, at_ns=None):
        """Schedule taps of each key in `keys` one after another; returns the emulated ns they end."""
        evs, t = [], 0
        for ch in keys:
            evs += [(t, pad, ch, True), (t + hold_ms, pad, ch, False)]
            t += hold_ms + gap_ms
        base = self.schedule(evs, at_ns)
        return base + t * NS_PER_MS

    # -- what the board shows --------------------------------------------------------
    def frames(self, since=0):
        """Decoded WS2812 frames with seq >= since (the oldest dropped beyond max_frames)."""
        rep = self.call("frames", since=since)
        return [Frame(s, t0, t1, bytes.fromhex(h)) for s, t0, t1, h in rep["frames"]]

    def pixels(self, frame):
        """A frame's bytes as [(r, g, b)] in strip order, by the board's COLOR_ORDER."""
        order = getattr(self.cfg, "COLOR_ORDER", "GRB")
        d = frame.data if isinstance(frame, Frame) else frame
        out = []
        for i in range(0, len(d) - 2, 3):
            px = dict(zip(order, d[i:i + 3]))
            out.append((px["R"], px["G"], px["B"]))
        return out

    def cells(self, frame):
        """A frame as 83 (r, g, b) in board order: the 81 cells (row*9+col, black's view), status A, status B."""
        px = self.pixels(frame)
        m = self._order
        return [px[m[i]] for i in range(83)]

    def board_rows(self, frame):
        """The 9 board rows the LEDs show, in RULES.md text ('.', 'B', 'W', 'e'; other colours as classify())."""
        c = [classify(p) for p in self.cells(frame)[:81]]
        return ["".join(c[r * 9:r * 9 + 9]) for r in range(9)]

    def wait_frames(self, count, since=0, timeout=120.0, step_ms=50):
        """Run the chip until at least `count` frames with seq >= since exist; return them."""
        deadline = time.monotonic() + timeout
        while True:
            fr = self.frames(since)
            if len(fr) >= count:
                return fr
            if time.monotonic() > deadline:
                raise Rp2040Error("only %d of %d LED frames within %.0f s (host time)" % (len(fr), count, timeout))
            self.run_for(step_ms)

    def buzzer(self, since_ns=0):
        """Buzzer pin changes: [(t_ns, mode 'gpio'|'pwm', freq Hz, duty 0..1, level 0/1/None)]."""
        return [tuple(e) for e in self.call("buzzer", since_ns=since_ns)["events"]]

    def conflicts(self):
        """Electrical conflicts so far: {"count", "conflicts": [{t_ns, high: [pins], low: [pins], pins}], "undefined_levels"}."""
        rep = self.call("conflicts")
        rep.pop("ok", None)
        rep.pop("id", None)
        return rep

    def ws_errors(self):
        """WS2812 timing errors (out of the WS2812B datasheet's ±150 ns windows): {"count", "errors": [...]}."""
        rep = self.call("ws_errors")
        return {"count": rep["count"], "errors": rep["errors"]}

    # -- serial ------------------------------------------------------------------------
    def serial(self):
        """An mpremote SerialTransport on the USB serial (caller closes it)."""
        from mpremote.transport_serial import SerialTransport

        return SerialTransport(self.url, baudrate=115200, timeout=10)

    def exec(self, code, timeout=120.0):
        """Run code at the raw REPL (interrupting main.py, no soft reset) and return its output; guest errors raise."""
        from mpremote.transport import TransportError

        t = self.serial()
        try:
            try:
                t.enter_raw_repl(soft_reset=False, timeout_overall=timeout)
                out, err = t.exec_raw(code, timeout=timeout)
            except TransportError as e:
                raise Rp2040Error("the emulated Pico's REPL did not answer: %s" % e) from None
            if err:
                raise Rp2040Error("guest error: " + err.decode("utf-8", "replace").strip().splitlines()[-1])
            return out.decode("utf-8", "replace")
        finally:
            try:
                t.exit_raw_repl()
            except Exception:
                pass
            t.close()

    def type_serial(self, data):
        """Bytes into the USB serial as if the host sent them (no TCP client needed)."""
        if isinstance(data, str):
            data = data.encode()
        self.call("input", data=base64.b64encode(data).decode())

    # -- power ---------------------------------------------------------------------------
    def hard_reset(self):
        """The RUN pin: the chip restarts in this process from the flash (image file); the serial port drops."""
        n = len(self.events())
        self.call("reset")
        self.wait_event("reset", since=n)

    def arm_power_cut(self, after_ops, fraction=0.5):
        """Cut the power during the flash operation `after_ops` operations from now (0 = the next one),
        letting only `fraction` of its bytes reach the flash; the chip halts there (event "cut")."""
        self.call("arm_cut", after_ops=int(after_ops), fraction=float(fraction))

    def power_cut(self, paused=False):
        """Power off now (the process is killed, the image file keeps what the flash held) and on again."""
        port = self.port
        self._stop(kill=True)
        self.cuts += 1
        self._start(None, port, paused)

    def close(self):
        if self._pty is not None:
            self._pty.close()
            self._pty = None
        self._stop()
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
