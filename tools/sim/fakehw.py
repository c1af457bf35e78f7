"""Host fakes of machine.Pin, neopixel.NeoPixel and time (virtual clock) with pin-level keypad emulation; runs on CPython and MicroPython."""
# This file is uploaded into the MicroPython guest too (tools/sim/
# --runtime micropython), so it sticks to the common subset: no f-strings,
# no dataclasses, no typing.

TICKS_PERIOD = 1 << 30  # MicroPython's ticks wrap here; the clock starts near it on purpose
_TICKS_MASK = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD >> 1


class Clock:
    """A virtual millisecond clock with MicroPython's time.ticks_* API; sleep_ms advances it instantly.

    `now` is milliseconds since "power-up" (what tests and frames use); the
    ticks it reports start `lead` ms before the 2**30 wrap, so every run
    crosses it. All arithmetic stays inside MicroPython's small-int range
    (|x| < 2**30), so the clock itself never allocates on the device build.
    """

    def __init__(self, lead=10000):
        self.now = 0
        self.lead = lead

    def ticks_ms(self):
        t = self.now - self.lead
        if t < 0:
            t = (t + _TICKS_MASK) + 1
        return t

    def ticks_add(self, t, delta):
        if delta >= 0:
            r = (t - _TICKS_MASK) + (delta - 1)  # t + delta - PERIOD, without leaving small ints
        else:
            r = t + delta
        if r < 0:
            r = (r + _TICKS_MASK) + 1
        return r

    def ticks_diff(self, a, b):
        d = a - b
        if d >= _TICKS_HALF:
            d = (d - _TICKS_MASK) - 1
        elif d < -_TICKS_HALF:
            d = (d + _TICKS_MASK) + 1
        return d

    def sleep_ms(self, ms):
        if ms > 0:
            self.now += ms

    def elapsed(self):
        """Milliseconds since the clock was made (for frame timestamps)."""
        return self.now


class FakePin:
    """One GPIO: output pins remember their level; input pins ask the board (pull-up, keypads)."""

    def __init__(self, board, pin_id, mode, pull, value):
        self.board = board
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.level = 1 if value is None else (1 if value else 0)
        board.pins[pin_id] = self

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self.mode == PinFactory.OUT:
                return self.level
            return self.board.read(self.id)
        self.level = 1 if v else 0
        if self.board.on_pin is not None:
            self.board.on_pin(self.id, self.level)
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)


class PinFactory:
    """Stands in for the machine.Pin class: Pin(id, mode, pull, value=...) plus the mode constants."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, board):
        self.board = board

    def __call__(self, pin_id, mode=-1, pull=-1, value=None):
        return FakePin(self.board, pin_id, mode, pull, value)


class FakeNeoPixel:
    """Stands in for neopixel.NeoPixel: a wire-order .buf and write(), which records the frame."""

    ORDER = (1, 0, 2, 3)  # MicroPython's NeoPixel: GRB on the wire

    def __init__(self, board, pin, n, bpp=3, timing=1):
        self.board = board
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        board.np = self

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        off = i * self.bpp
        for k in range(self.bpp):
            self.buf[off + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        off = i * self.bpp
        return tuple(self.buf[off + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        self.writes += 1
        self.board.frame_written(self.buf)


class NeoPixelFactory:
    """Stands in for the neopixel.NeoPixel class, bound to one FakeBoard."""

    def __init__(self, board):
        self.board = board

    def __call__(self, pin, n, bpp=3, timing=1):
        return FakeNeoPixel(self.board, pin, n, bpp, timing)


KEYS_3X4 = "123456789*0#"
KEYS_4X4 = "123A456B789C*0#D"
KEYS_DIRECT = "123456789*#"


class PadModel:
    """Which keys of one pad are physically closed, and which pins they connect (matrix or direct)."""

    def __init__(self, kind, spec):
        self.kind = kind
        self.closed = {}  # key char -> True while the contact is closed
        self.where = {}  # key char -> (row pin, col pin) or (None, pin)
        if kind == "direct":
            pins = spec["pins"]
            for i in range(len(KEYS_DIRECT)):
                self.where[KEYS_DIRECT[i]] = (None, pins[i])
        else:
            rows = spec["rows"]
            cols = spec["cols"]
            keys = spec.get("keys") or (KEYS_4X4 if len(cols) == 4 else KEYS_3X4)
            for r in range(len(rows)):
                for c in range(len(cols)):
                    self.where[keys[r * len(cols) + c]] = (rows[r], cols[c])

    def set(self, key, closed):
        if key not in self.where:
            raise ValueError("pad has no key %r (keys: %s)" % (key, "".join(sorted(self.where))))
        if closed:
            self.closed[key] = True
        elif key in self.closed:
            del self.closed[key]


class FakeBoard:
    """The virtual board: pins, LED strip, clock and both pads, wired as a board config says."""

    def __init__(self, cfg, clock=None):
        self.cfg = cfg
        self.clock = clock or Clock()
        self.pins = {}
        self.np = None
        self.on_pin = None  # callback(pin_id, level) for output pins (buzzer checks)
        self.on_frame = None  # callback(t_ms, wire_bytes)
        self.Pin = PinFactory(self)
        self.NeoPixel = NeoPixelFactory(self)
        kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
        self.pads = (
            PadModel(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A),
            PadModel(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B),
        )
        self.events = []  # pending (t, seq, pad, key, closed), kept sorted
        self._seq = 0

    # -- pins -------------------------------------------------------------
    def read(self, pin_id):
        """Level of an input pin: pulled up unless a closed key connects it to a row driven low (or to ground)."""
        for pad in self.pads:
            for key in pad.closed:
                row, col = pad.where[key]
                if col != pin_id:
                    continue
                if row is None:
                    return 0
                rp = self.pins.get(row)
                if rp is not None and rp.mode == PinFactory.OUT and rp.level == 0:
                    return 0
        p = self.pins.get(pin_id)
        if p is not None and p.pull == PinFactory.PULL_DOWN:
            return 0
        return 1

    def frame_written(self, buf):
        if self.on_frame is not None:
            self.on_frame(self.clock.elapsed(), buf)

    # -- keys ---------------------------------------------------------------
    def set_key(self, pad, key, closed):
        """Close or open one contact right now (pad 0 = A, 1 = B)."""
        self.pads[pad].set(key, closed)

    def schedule(self, at, pad, key, closed):
        """Close/open a contact at virtual time `at` (clock.now units)."""
        self.pads[pad].set(key, self.pads[pad].closed.get(key, False))  # validates the key now
        self._seq += 1
        ev = (at, self._seq, pad, key, closed)
        i = len(self.events)
        while i > 0 and self.events[i - 1][:2] > ev[:2]:
            i -= 1
        self.events.insert(i, ev)

    def bounce(self, pad, key, closed, at=None, bounces=3):
        """A realistic contact: it chatters for a few ms (1 ms per edge) before settling."""
        t = self.clock.now if at is None else at
        for _ in range(bounces):
            self.schedule(t, pad, key, closed)
            self.schedule(t + 1, pad, key, not closed)
            t += 2
        self.schedule(t, pad, key, closed)
        return t

    def due(self):
        """Apply every scheduled contact change whose time has come."""
        ev = self.events
        now = self.clock.now
        while ev and ev[0][0] <= now:
            _, _, pad, key, closed = ev.pop(0)
            self.pads[pad].set(key, closed)

    def decode(self, buf):
        """Wire bytes -> list of (r, g, b) in strip order, using the board's colour order."""
        order = getattr(self.cfg, "COLOR_ORDER", "GRB")
        ri = order.index("R")
        gi = order.index("G")
        bi = order.index("B")
        out = []
        for i in range(0, len(buf) - 2, 3):
            out.append((buf[i + ri], buf[i + gi], buf[i + bi]))
        return out


# -- the whole virtual device: firmware + fake board + scripted keys -----------

KEY_HOLD_MS = 70  # a deliberate press
KEY_GAP_MS = 60  # between two presses


def parse_script(text):
    """Script text -> list of actions; raises ValueError naming the line on anything unknown (nothing runs then).

    Lines: `A 5` / `B #` (tap a key), `A move e5` (that pad's keys for e5, then #),
    `A press 5` / `A release 5` (hold/let go), `wait 300` (ms), `sync` (run until
    the device waits for both players' next moves, at most 60 s); `;` starts a comment.
    """
    out = []
    n = 0
    for raw in text.split("\n"):
        n += 1
        line = raw.split(";")[0].strip()
        if not line:
            continue
        parts = line.split()
        head = parts[0]
        if head == "sync":
            if len(parts) != 1:
                raise ValueError("line %d: %r: `sync` takes nothing" % (n, raw))
            out.append(("sync",))
        elif head == "wait":
            if len(parts) != 2:
                raise ValueError("line %d: %r: use `wait MS`" % (n, raw))
            try:
                ms = int(parts[1])
            except ValueError:
                raise ValueError("line %d: %r: wait needs whole milliseconds" % (n, raw))
            if ms < 0:
                raise ValueError("line %d: %r: wait must not be negative" % (n, raw))
            out.append(("wait", ms))
        elif head in ("A", "B"):
            pad = 0 if head == "A" else 1
            if len(parts) == 2 and len(parts[1]) == 1:
                out.append(("tap", pad, parts[1]))
            elif len(parts) == 3 and parts[1] == "move":
                cell = _parse_cell(parts[2])
                if cell < 0:
                    raise ValueError("line %d: %r: %r is not a cell a1..i9" % (n, raw, parts[2]))
                out.append(("move", pad, cell))
            elif len(parts) == 3 and parts[1] in ("press", "release") and len(parts[2]) == 1:
                out.append((parts[1], pad, parts[2]))
            else:
                raise ValueError("line %d: %r: use `%s KEY`, `%s move CELL`, `%s press KEY` or `%s release KEY`" % (n, raw, head, head, head, head))
        else:
            raise ValueError("line %d: %r: a line starts with A, B or wait" % (n, raw))
    return out


def _parse_cell(t):
    if len(t) != 2:
        return -1
    c = "abcdefghi".find(t[0].lower())
    r = "123456789".find(t[1])
    if c < 0 or r < 0:
        return -1
    return r * 9 + c


class VirtualDevice:
    """The real firmware (firmware.app.App) on a FakeBoard, stepped on the virtual clock as fast as the CPU allows."""

    def __init__(self, cfg, mode="2p", seed=0, store_dir=None, on_frame=None, keep_frames=True, bots=None, trace=None):
        from firmware.hw import build
        from firmware.app import App

        self.cfg = cfg
        self.board = FakeBoard(cfg)
        self.clock = self.board.clock
        self.keep_frames = keep_frames
        self.frames = []  # (t_ms, wire bytes)
        self.on_frame = on_frame
        self.board.on_frame = self._frame
        self.hw = build(cfg, self.board.Pin, self.board.NeoPixel, self.clock)
        self.app = App(self.hw, cfg, mode=mode, seed=seed, store_dir=store_dir, bots=bots, trace=trace)
        self.next_tick = self.clock.now

    def _frame(self, t, buf):
        if not self.keep_frames and self.on_frame is None:
            return  # nobody looks: no copy (keeps allocation measurements about the firmware)
        raw = bytes(buf)
        if self.keep_frames:
            self.frames.append((t, raw))
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
                self.next_tick = clock.now + app.tick()
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
        for a in actions:
            kind = a[0]
            if kind == "wait":
                self.advance(a[1])
            elif kind == "tap":
                self.tap(a[1], a[2])
            elif kind == "move":
                self.move(a[1], a[2])
            elif kind == "sync":
                self.sync()
            elif kind == "press":
                self.press(a[1], a[2])
                self.advance(KEY_HOLD_MS)
            elif kind == "release":
                self.release(a[1], a[2])
                self.advance(KEY_GAP_MS)

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
