"""VirtualDevice: the real firmware (firmware.app.App) on a FakeBoard, stepped on the virtual clock as fast as the CPU allows, keys scripted or pressed one by one; runs on CPython and MicroPython."""
# Uploaded into MicroPython guests as a plain top-level module beside fakehw and
# keyscript (tools/sim/guest.py); on the host they are modules of tools.sim.
try:
    from tools.sim.fakehw import FakeBoard, SeededEntropy, keep_last
    from tools.sim.keyscript import KEY_HOLD_MS, KEY_GAP_MS, run_script
except ImportError:  # a MicroPython guest: no tools package, the modules sit at its root
    from fakehw import FakeBoard, SeededEntropy, keep_last
    from keyscript import KEY_HOLD_MS, KEY_GAP_MS, run_script


class VirtualDevice:
    """The real firmware (firmware.app.App) on a FakeBoard, stepped on the virtual clock as fast as the CPU allows.

    Keys: press/release (contacts bounce unless bounce=False), tap, move (pads 0/1, cell 0..80),
    run(parse_script() actions); time: advance(ms), sync(); reading back: board_rows(),
    result_name(), report(). `app` is the App, `board` the FakeBoard, `clock` its Clock.
    `seed=None` takes entropy from os.urandom, as the device does. `frames` holds the latest
    FRAMES_KEPT (t_ms, wire bytes) when `keep_frames`; `on_frame(t_ms, wire bytes)` gets every one."""

    FRAMES_KEPT = 20000   # wire bytes are small: a whole scripted game fits, a run of any length stays this size

    def __init__(self, cfg, mode="2p", seed=0, store_dir=None, on_frame=None, keep_frames=True, bots=None, trace=None):
        from firmware.hw import build
        from firmware.app import App

        self.cfg = cfg
        self.board = FakeBoard(cfg)
        self.clock = self.board.clock
        self.keep_frames = keep_frames
        self.frames = []  # (t_ms, wire bytes): the latest FRAMES_KEPT
        self.on_frame = on_frame
        self.board.on_frame = self._frame
        entropy = None if seed is None else SeededEntropy(seed)  # None: os.urandom, as on the device
        if getattr(cfg, "PLATFORM", None) in ("circuitpython", "linux"):
            # CircuitPython / Raspberry Pi boards: firmware/hw_circuitpython.py over Adafruit's real neopixel
            # and fakes of CircuitPython's built-in modules (CPython only).
            from tools.sim.circuitpython import hardware

            self.cp, self.hw = hardware(cfg, self.board, entropy)
        else:
            self.hw = build(cfg, self.board.Pin, self.board.NeoPixel, self.clock, PWM=self.board.PWM, entropy=entropy)
        self.app = App(self.hw, cfg, mode=mode, store_dir=store_dir, bots=bots, trace=trace)
        self.next_tick = self.clock.now

    def _frame(self, t, buf):
        if not self.keep_frames and self.on_frame is None:
            return  # nobody looks: no copy (keeps allocation measurements about the firmware)
        raw = bytes(buf)
        if self.keep_frames:
            keep_last(self.frames, (t, raw), self.FRAMES_KEPT)
        if self.on_frame is not None:
            self.on_frame(t, raw)

    # -- keys ---------------------------------------------------------------
    def press(self, pad, key, bounce=True):
        if bounce:
            self.board.bounce(pad, key, True)
        else:
            self.board.schedule(self.clock.now, pad, key, True)

    def release(self, pad, key, bounce=True):
        if bounce:
            self.board.bounce(pad, key, False)
        else:
            self.board.schedule(self.clock.now, pad, key, False)

    def tap(self, pad, key):
        """Press, hold KEY_HOLD_MS, release, pause KEY_GAP_MS (contacts bounce both ways)."""
        self.press(pad, key)
        self.advance(KEY_HOLD_MS)
        self.release(pad, key)
        self.advance(KEY_GAP_MS)

    def keys_for(self, pad, cell):
        from firmware.entry import keys_for

        return keys_for(cell, self.app.entries[pad].rotated)

    def move(self, pad, cell):
        for k in self.keys_for(pad, cell):
            self.tap(pad, k)

    # -- time -----------------------------------------------------------------
    def advance(self, ms):
        """Run the firmware for `ms` virtual milliseconds: contact changes land at their exact times, ticks at theirs."""
        clock = self.clock
        board = self.board
        app = self.app
        end = clock.now + ms
        while True:
            board.due()
            if clock.now >= self.next_tick:
                wait = app.tick()   # (the wait counts from the tick's end: a tick may take virtual time)
                self.next_tick = clock.now + wait
            if clock.now >= end:
                return
            t = self.next_tick
            if board.events and board.events[0][0] < t:
                t = board.events[0][0]
            if t > end:
                t = end
            clock.now = t

    def ready(self):
        """True when the firmware waits for moves: a turn is open and no human has typed anything."""
        app = self.app
        if app.mode < 2 or app.mode == 7 or app.state != 0:
            return False
        for seat in range(2):
            if app.bots[seat] is None and app.entries[seat].state() != 0:
                return False
        return len(app.ring) == 0

    def sync(self, limit_ms=60000):
        """Advance in 20 ms steps until ready() (or the limit): scripts need no guessed waits after a turn."""
        waited = 0
        self.advance(20)
        while not self.ready() and waited < limit_ms:
            self.advance(20)
            waited += 20
        return waited

    def run(self, actions):
        run_script(self, actions)

    # -- reading back ---------------------------------------------------------
    def final_game(self):
        """The game to report: the current one, or the last finished one if a fresh game has replaced it."""
        app = self.app
        g = app.game
        if app.last_game is not None and g.turns == 0:
            return app.last_game
        return g

    def board_rows(self):
        g = self.final_game()
        rows = []
        for r in range(9):
            s = ""
            for c in range(9):
                s += ".BWe"[g.cell(r * 9 + c)]
            rows.append(s)
        return rows

    def result_name(self):
        return ("ongoing", "black", "white", "draw")[self.final_game().result]

    def report(self):
        """The headless simulator's output: 9 board rows, then `result: NAME`."""
        return "\n".join(self.board_rows()) + "\nresult: " + self.result_name()
