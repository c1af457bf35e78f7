"""`--runtime rp2040` for the simulator: the exact firmware image (MicroPython UF2 + tools.deploy) on the emulated Pico; keys go in as pin levels, the picture is the decoded LED stream."""
import os

from tools import rp2040
from tools.rp2040 import Pico, Rp2040Error, classify
from tools.sim.interface import SimDevice
from tools.sim.keyscript import KEY_HOLD_MS as HOLD_MS, KEY_GAP_MS as GAP_MS, run_script  # a deliberate tap, as in every simulator

STILL_MS = 500   # sync: the picture's colours unchanged this long = the firmware waits for input
SYNC_LIMIT_MS = 60000


class Rp2040Device(SimDevice):
    """A SimDevice (tools/sim/interface.py) driving the real firmware on an emulated RP2040. Time is the
    chip's emulated clock (ms since power-up).

    The flash image is `store_dir`/rp2040-<board>.img when a store folder is given (scores and settings
    persist there, as on a real board), else a temporary one. Each start deploys with tools.deploy (only
    changed files are copied), then `mode` is put in settings.json and started from attract mode with #, as a
    player would. The seed cannot be chosen: main.py seeds from the chip's clock. No narration (so
    `mode_now` stays the start mode), no seating, scores or Game to report: all stay inside the chip."""

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
        flash = None
        if store_dir:
            os.makedirs(store_dir, exist_ok=True)
            flash = os.path.join(store_dir, "rp2040-%s.img" % board)
        try:
            fresh = flash is None or not os.path.exists(flash)
            self.pico = Pico(uf2=rp2040.default_uf2() if fresh else None, flash=flash, board=board)
            n = len(self.pico.events())
            rp2040.quiet_deploy(board, self.pico.url)
            self.pico.wait_event("reset", since=n, timeout=60)
            if mode != "attract":
                self.pico.exec(
                    "from firmware.storage import Store\nfrom firmware.app import SETTINGS_DEFAULTS\n"
                    "s = Store(%r, 'settings.json', SETTINGS_DEFAULTS)\ns.data['mode'] = %r\ns.save()"
                    % (getattr(self.pico.cfg, "STORAGE_DIR", "/"), mode))
                self.pico.hard_reset()       # main.py again, in attract mode ...
            self.seq = self.pico.stats()["frames"]
            self.pico.wait_frames(1, since=self.seq)
            if mode != "attract":
                self._tap(0, "#")            # ... where # starts the mode in the settings
        except (Rp2040Error, deploy.DeployError) as e:
            self.close()
            raise SystemExit("tools.sim: --runtime rp2040: %s" % e) from None
        self.rotated = (False, bool(getattr(self.pico.cfg, "PAD_B_ROTATED", True)))
        self.last = None
        # The terminal UI advances by wall-clock time: the chip must not run ahead of it
        # (when idle it could run ~100x faster). Scripts (run()) go flat out.
        self.pico.set_pace(1.0)

    def _flush(self):
        for f in self.pico.frames(since=self.seq):
            self.seq = f.seq + 1
            self.last = f
            self._frame(f.t0_ns // 1000000, f.data)

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
        p = self.pico
        if p is not None:
            p.close()
            self.pico = None
