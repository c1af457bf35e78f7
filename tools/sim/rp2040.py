"""`--runtime rp2040` for the simulator: the exact firmware image (MicroPython UF2 + tools.deploy) on the emulated Pico, seeded and narrated over its USB serial; keys go in as pin levels, the picture is the decoded LED stream."""
import os
import queue
import sys
import threading

from tools import rp2040
from tools.rp2040 import Pico, Rp2040Error, classify
from tools.sim.interface import SimDevice
from tools.sim.keyscript import KEY_HOLD_MS as HOLD_MS, KEY_GAP_MS as GAP_MS, run_script  # a deliberate tap, as in every simulator

STILL_MS = 500   # sync: the picture's colours unchanged this long = the firmware waits for input
LINE_LIMIT = 1 << 16   # serial bytes without a newline: not the narrator's (its sentences are short), dropped
SYNC_LIMIT_MS = 60000

# What the chip runs instead of main.py's last lines: the same hardware from the same board file, but the
# computer players' entropy seeded from --seed (tools/sim/fakehw.py SeededEntropy, as in the other runtimes, so
# one seed is one game everywhere) and the narrator (tools/sim/narrate.py, executed from source in RAM: nothing
# is added to the flash) printing each sentence on the USB serial for the host.
LAUNCH = """
import gc, sys, time, machine, neopixel, board_config
from firmware.hw import build
from firmware.app import App
%(entropy)s
_nar = {}
exec(%(narrate)r, _nar)
gc.collect()
hw = build(board_config, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=SeededEntropy(%(seed)d))
app = App(hw, board_config, mode=%(mode)r, store_dir=getattr(board_config, 'STORAGE_DIR', '/'))
def _say(kind, text):
    print('@N', time.ticks_ms(), kind, text)
_nar['watch'](app, _say)
print('@READY')
app.run()
"""


def _progress(text):
    """One line on a terminal while the emulated Pico starts (scripts, whose stderr is no terminal, see none)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[Ktools.sim: --runtime rp2040: %s" % text)
        sys.stderr.flush()


def split_lines(buf, chunk):
    """(the bytes after the last newline, [the complete lines as text]) of buf + chunk. A line still without its
    newline past LINE_LIMIT bytes is dropped, so a guest that never ends a line cannot grow the reader's buffer."""
    buf += chunk
    *lines, rest = buf.split(b"\n")
    if len(rest) > LINE_LIMIT:
        rest = b""
    return rest, [line.decode("utf-8", "replace").rstrip("\r") for line in lines]


class Rp2040Device(SimDevice):
    """A SimDevice (tools/sim/interface.py) driving the real firmware on an emulated RP2040. Time is the
    chip's emulated clock (ms since power-up).

    The flash image is `store_dir`/rp2040-<board>.img when a store folder is given (scores and settings
    persist there, as on a real board), else a temporary one. Each start deploys with tools.deploy (only
    changed files are copied); then the game is started over the USB serial as main.py starts it, in `mode`,
    with the computer players seeded from `seed` (the same game as the other runtimes) and the narrator's
    sentences coming back over the serial (`said`, `mode_now`). No seating, scores or Game to report: those
    stay inside the chip."""

    def __init__(self, cfg, board, mode, seed, store_dir=None, keep_frames=True, on_frame=None, on_say=None):
        from tools import deploy

        why = rp2040.uf2_problem()
        if why is not None:
            # SystemExit: one line, the same from the headless run and the terminal UI
            raise SystemExit("tools.sim: --runtime rp2040: " + why + " (or name a UF2 with WTS_RP2_UF2=FILE)")
        SimDevice.__init__(self, cfg, board, mode, "rp2040", seed, keep_frames, on_frame, on_say)
        self.pico = None
        self.last = None  # the last frame read from the chip
        self.seq = 0
        self.t0_ms = 0
        self.heard = queue.Queue()     # narrator lines read from the USB serial, handed over in _flush
        self.serial = None
        flash = None
        if store_dir:
            os.makedirs(store_dir, exist_ok=True)
            flash = os.path.join(store_dir, "rp2040-%s.img" % board)
        try:
            fresh = flash is None or not os.path.exists(flash)
            _progress("booting the emulated Pico%s" % (" (a new flash: MicroPython formats it)" if fresh else ""))
            self.pico = Pico(uf2=rp2040.default_uf2() if fresh else None, flash=flash, board=board)
            n = len(self.pico.events())
            copied = []
            _progress("deploying the game with tools.deploy (only what changed is copied)")

            def log(line):
                if line.startswith("copy"):
                    copied.append(line)
                    _progress("deploying the game with tools.deploy: %d files copied" % len(copied))
            rp2040.quiet_deploy(board, self.pico.url, log, self.pico)
            self.pico.wait_event("reset", since=n, timeout=60)
            _progress("starting %s (seed %d)" % (mode, seed))
            self._launch(mode, seed)
            self.seq = self.pico.stats()["frames"]
            self.pico.wait_frames(1, since=self.seq)
        except (Rp2040Error, deploy.DeployError) as e:
            self.close()
            raise SystemExit("tools.sim: --runtime rp2040: %s" % e) from None
        finally:
            if sys.stderr.isatty():
                sys.stderr.write("\r\x1b[K")
        self.rotated = (False, bool(getattr(self.pico.cfg, "PAD_B_ROTATED", True)))
        self.last = None
        # The terminal UI advances by wall-clock time: the chip must not run ahead of it
        # (when idle it could run ~100x faster). Scripts (run()) go flat out.
        self.pico.set_pace(1.0)

    def _launch(self, mode, seed):
        """Interrupt main.py's game and start it again over the raw REPL, seeded and narrated (LAUNCH)."""
        import inspect

        from mpremote.transport import TransportError

        from tools.sim import fakehw

        code = LAUNCH % {"entropy": inspect.getsource(fakehw.SeededEntropy), "seed": seed, "mode": mode,
                         "narrate": open(os.path.join(os.path.dirname(__file__), "narrate.py")).read()}
        self.pico.wait_usb()
        t = self.serial = self.pico.serial()
        try:
            t.enter_raw_repl(soft_reset=True, timeout_overall=60)
            t.exec_raw_no_follow(code)
            out = t.read_until(1, b"@READY", timeout=120)
        except TransportError as e:
            raise Rp2040Error("the emulated Pico's REPL did not answer: %s" % e) from None
        if not out.endswith(b"@READY"):
            raise Rp2040Error("the game did not start on the emulated Pico: %s"
                              % out.decode("utf-8", "replace").strip().splitlines()[-1:])
        threading.Thread(target=self._read_serial, args=(t,), daemon=True).start()

    def _read_serial(self, t):
        """The narrator's lines from the USB serial ('@N ms kind sentence'), queued for the main thread."""
        buf = b""
        ser = t.serial
        while self.serial is t:
            try:
                chunk = ser.read(ser.in_waiting or 1)
            except Exception:
                return
            if not chunk:
                continue
            buf, lines = split_lines(buf, chunk)
            for text in lines:
                if text.startswith("@N "):
                    parts = text.split(" ", 3)
                    if len(parts) == 4 and parts[1].isdigit():
                        self.heard.put((int(parts[1]), parts[2], parts[3]))

    def _flush(self):
        for f in self.pico.frames(since=self.seq):
            self.seq = f.seq + 1
            self.last = f
            self._frame(f.t0_ns // 1000000, f.data)
        while not self.heard.empty():
            self._say(*self.heard.get())

    @staticmethod
    def _pad(pad):
        return "AB"[pad]

    def _press(self, pad, key):
        self.pico.press(self._pad(pad), key)

    def _release(self, pad, key):
        self.pico.release(self._pad(pad), key)

    def _tap(self, pad, key):
        self.pico.tap(self._pad(pad), key, hold_ms=HOLD_MS, gap_ms=GAP_MS)
        self._flush()

    def _move(self, pad, cell):
        from firmware.entry import keys_for

        end = self.pico.type_keys(self._pad(pad), keys_for(cell, self.rotated[pad]), hold_ms=HOLD_MS, gap_ms=GAP_MS)
        self.pico.run_until(end)
        self._flush()

    def _advance(self, ms):
        self.pico.run_for(ms)
        self._flush()

    def _look(self):
        if self.last is None:
            return None
        return [classify(p) for p in self.pico.cells(self.last)]

    def sync(self):
        """Run until the LEDs' colours (not their brightness: eggs and winners pulse) stay the same for
        STILL_MS: the firmware then waits for input. Heuristic (the chip's state is not visible from
        outside): a still stretch inside a long animation ends it early, which only makes the next keys
        wait in the firmware's queue. Returns the ms waited."""
        waited, still, look = 0, 0, self._look()
        while waited < SYNC_LIMIT_MS:
            self._advance(20)
            waited += 20
            now = self._look()
            still = still + 20 if now == look else 0
            look = now
            if still >= STILL_MS:
                break
        return waited

    def run(self, actions):
        self.pico.set_pace(0)
        try:
            run_script(self, actions)
        finally:
            self.pico.set_pace(1.0)

    def board_rows(self):
        """The board as the LEDs show it (9 rows, row 1 first as in tools.sim's report)."""
        if self.last is None:
            return ["." * 9] * 9
        return [r.replace("?", ".") for r in self.pico.board_rows(self.last)]

    def result_name(self):
        """From the status LEDs (firmware/status.py Status.code): only at game over is one of them fully dark
        (the loser's; the winner's pulses), a draw shows both amber; during play both are lit."""
        if self.last is None:
            return "ongoing"
        a, b = self.pico.cells(self.last)[81:83]
        if a == (0, 0, 0) and b != (0, 0, 0):
            return "white"
        if b == (0, 0, 0) and a != (0, 0, 0):
            return "black"
        if classify(a) == "e" and classify(b) == "e":
            return "draw"
        return "ongoing"

    def close(self):
        t, self.serial = self.serial, None
        if t is not None:
            try:
                t.close()
            except Exception:
                pass
        p = self.pico
        if p is not None:
            p.close()
            self.pico = None
