"""Host fakes as strict as the chips: machine.Pin (pin table, open drain, pulls), switch-matrix keypads as nets (shorts and floating reads are errors), neopixel.NeoPixel, machine.PWM, seeded entropy and a virtual clock, wired into one FakeBoard; runs on CPython and MicroPython."""
# Uploaded into MicroPython guests as a plain module (tools/sim/guest.py lists
# who does), so it sticks to the common subset: no f-strings, no dataclasses,
# no typing, and no import of the other simulator modules.

TICKS_PERIOD = 1 << 30  # MicroPython's ticks wrap here; the clock starts near it on purpose
_TICKS_MASK = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD >> 1


def keep_last(items, item, keep):
    """Append `item` to the record list `items`, first dropping its oldest entries when it holds `keep`:
    a full record loses its oldest quarter at once (so trimming costs a constant per entry, not a shift of
    the whole list each time), so it always holds at most `keep` and at least the latest three quarters.

    Every record the simulator keeps goes through this, so a run of any length holds the same memory (a
    tool that wants every entry takes it from a callback as it happens: on_frame, on_say). `keep` < 1 keeps
    nothing."""
    if len(items) >= keep:
        del items[:len(items) - keep + 1 + keep // 4]
    if keep > 0:
        items.append(item)


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


class ShortCircuit(RuntimeError):
    """Two outputs drive one net to opposite levels (on a real board: a short through the keys, a reading between levels)."""


class FloatingRead(RuntimeError):
    """An input was read while nothing drives or pulls its net (a real pin would read noise)."""


class FakePin:
    """One GPIO as the chip has it: a mode (IN, OUT push-pull, OPEN_DRAIN), a pull, an output latch; reads return its net's level."""

    def __init__(self, board, pin_id, mode, pull, value):
        why = board.pin_problem(pin_id)
        if why is not None:
            raise ValueError("invalid pin %r: %s" % (pin_id, why))
        self.board = board
        self.id = pin_id
        self.mode = PinFactory.IN
        self.pull = None
        self.level = 0
        board.pins[pin_id] = self
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None):
        if value is not None:
            self.level = 1 if value else 0  # the latch is set before the pin starts driving, as on the chips
        if mode != -1:
            if mode not in (PinFactory.IN, PinFactory.OUT, PinFactory.OPEN_DRAIN):
                raise ValueError("invalid pin mode %r" % (mode,))
            self.mode = mode
        if pull != -1:
            if pull not in (None, PinFactory.PULL_UP, PinFactory.PULL_DOWN):
                raise ValueError("invalid pull %r" % (pull,))
            self.pull = pull
        self.board.driven(self)

    def drive(self):
        """The level this pin forces on its net: 0/1, or -1 when it only listens (input, released open drain)."""
        if self.mode == PinFactory.OUT:
            return self.level
        if self.mode == PinFactory.OPEN_DRAIN and self.level == 0:
            return 0
        return -1

    def value(self, v=None):
        if v is None:
            return self.board.read(self.id)
        self.level = 1 if v else 0
        self.board.driven(self)
        if self.board.on_pin is not None and self.mode == PinFactory.OUT:
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
    """Stands in for the machine.Pin class: Pin(id, mode, pull, value=...) plus the mode constants (rp2's numbers)."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, board):
        self.board = board

    def __call__(self, pin_id, mode=-1, pull=-1, value=None):
        old = self.board.pins.get(pin_id)
        if old is not None:  # machine.Pin(n) is the same GPIO again: reconfigure it
            old.init(mode, pull, value)
            return old
        return FakePin(self.board, pin_id, mode, pull, value)


class FakeNeoPixel:
    """Stands in for neopixel.NeoPixel: a wire-order .buf and write(). The one fake strip: the virtual board's guest subclasses it (tools/node/vboard_guest.py)."""

    ORDER = (1, 0, 2, 3)  # MicroPython's NeoPixel: GRB on the wire

    def __init__(self, pin, n, bpp=3, timing=1, board=None):
        self.board = board
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        if board is not None:
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
        """Records the frame on the board (the buffer itself, no copy: nothing allocated per frame)."""
        self.writes += 1
        if self.board is not None:
            self.board.frame_written(self.buf)


class NeoPixelFactory:
    """Stands in for the neopixel.NeoPixel class, bound to one FakeBoard."""

    def __init__(self, board):
        self.board = board

    def __call__(self, pin, n, bpp=3, timing=1):
        return FakeNeoPixel(pin, n, bpp, timing, board=self.board)


# -- buzzer and entropy (firmware.hw.Hardware's `buzzer` and `entropy`) ---------


class FakePWM:
    """Stands in for machine.PWM on the buzzer pin: freq(hz), duty_u16(d), deinit(); every change of
    (freq, duty) is recorded on the board as (t_ms, freq, duty) in `board.tones` (the latest
    FakeBoard.TONES_KEPT)."""

    def __init__(self, board, pin, freq=0, duty_u16=0):
        self.board = board
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        board.tone(freq, duty_u16)

    def freq(self, hz=None):
        if hz is None:
            return self._freq
        if not 8 <= hz <= 62500000:
            raise ValueError("freq %r out of range" % (hz,))  # (the rp2 port's limits at 125 MHz)
        self._freq = hz
        self.board.tone(hz, self._duty)
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        if not 0 <= d <= 65535:
            raise ValueError("duty_u16 must be 0..65535, not %r" % (d,))
        self._duty = d
        self.board.tone(self._freq, d)
        return None

    def deinit(self):
        self._duty = 0
        self.board.tone(self._freq, 0)


class PWMFactory:
    """Stands in for the machine.PWM class, bound to one FakeBoard: PWM(pin, freq=..., duty_u16=...)."""

    def __init__(self, board):
        self.board = board

    def __call__(self, pin, freq=0, duty_u16=0):
        return FakePWM(self.board, pin, freq, duty_u16)


class SeededEntropy:
    """A seeded stand-in for the device's os.urandom entropy (firmware.hw.Hardware.entropy): each call
    returns the next int 0 <= x < 2**30 of a fixed sequence, so the same seed plays the same games.
    Small ints only (no allocation on MicroPython)."""

    def __init__(self, seed):
        self.x = (seed * 7 + 1) & 0x7FFFF

    def _next(self):
        self.x = (self.x * 1029 + 12345) & 0x7FFFF  # LCG mod 2**19, full period (1029 % 4 == 1, odd increment)
        return self.x

    def __call__(self):
        return ((self._next() << 11) ^ self._next()) & 0x3FFFFFFF


GND = "GND"  # the net a direct button closes to


class PadModel:
    """Which keys of one pad are physically closed, and which two nets each joins (firmware/keypad.py contacts())."""

    def __init__(self, kind, spec):
        from firmware.keypad import contacts

        self.kind = kind
        self.closed = {}  # key char -> True while the contact is closed
        self.where = {}  # key char -> (row pin or GND, col pin)
        for key, (row, col) in contacts(kind, spec).items():
            self.where[key] = (GND if row is None else row, col)

    def set(self, key, closed):
        if key not in self.where:
            raise ValueError("pad has no key %r (keys: %s)" % (key, "".join(sorted(self.where))))
        if closed:
            self.closed[key] = True
        elif key in self.closed:
            del self.closed[key]


class FakeBoard:
    """The virtual board: pins (refused as the board's chip would), LED strip, clock and both pads as switch matrices, wired as a board config says.

    Electrically: every closed key joins two nets (a row and a column pin, or a
    direct button's pin and GND). A net's level comes from what drives it
    (push-pull outputs, open-drain outputs pulled low, GND), else from pulls;
    two drivers at opposite levels are a short (`shorts`, and ShortCircuit
    raised when `strict`), an input on a net nothing drives or pulls reads
    as FloatingRead.
    """

    GND = GND  # the ground net's name, for models built on a board (tools/sim/circuitpython.py) without importing this module
    # How much of its history the board keeps (keep_last): enough for a test to look back over a few games,
    # and a fixed size however long the board runs (tools.sim.soak prints these lengths over many games).
    TONES_KEPT = 2000
    SHORTS_KEPT = 100

    def __init__(self, cfg, clock=None, strict=True):
        self.cfg = cfg
        self.clock = clock or Clock()
        self.strict = strict
        self.pins = {}
        self.np = None
        self.shorts = []  # (t_ms, description) of the latest SHORTS_KEPT shorts seen
        self.on_pin = None  # callback(pin_id, level) for push-pull output pins (buzzer checks)
        self.on_frame = None  # callback(t_ms, wire_bytes)
        self.Pin = PinFactory(self)
        self.NeoPixel = NeoPixelFactory(self)
        self.PWM = PWMFactory(self)
        self.tones = []  # (t_ms, freq, duty) each time the buzzer's PWM changes: the latest TONES_KEPT
        kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
        self.pads = (
            PadModel(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A),
            PadModel(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B),
        )
        self._net = {}  # pin (or GND) -> tuple of every member of its net, for pins joined by closed keys
        self.events = []  # pending (t, seq, pad, key, closed), kept sorted
        self._seq = 0

    # -- pins -------------------------------------------------------------
    def pin_problem(self, pin_id):
        """Why the board's chip would refuse this pin (firmware/boardcheck.py), or None."""
        from firmware.boardcheck import board_pin_problem

        return board_pin_problem(self.cfg, pin_id)

    def _rejoin(self):
        # Nets after a key change: union-find over the closed contacts (allocates; only on key changes).
        parent = {}

        for pad in self.pads:
            for key in pad.closed:
                a, b = pad.where[key]
                ra = _root(parent, a)
                rb = _root(parent, b)
                if ra != rb:
                    parent[ra] = rb
        groups = {}
        for x in parent:
            r = _root(parent, x)
            if r in groups:
                groups[r].append(x)
            else:
                groups[r] = [x]
        net = {}
        for r in groups:
            members = tuple(groups[r])
            for x in members:
                net[x] = members
        self._net = net
        for members in groups.values():
            self._level(tuple(members), False)

    def _level(self, members, reading=True):
        # Level of one net: drivers first, then pulls. Shorts are recorded (and raised if strict).
        lo = None
        hi = None
        up = False
        down = False
        for m in members:
            if m == GND:
                lo = GND
                continue
            p = self.pins.get(m)
            if p is None:
                continue
            d = p.drive()
            if d == 0 and lo is None:
                lo = m
            elif d == 1 and hi is None:
                hi = m
            if p.pull == PinFactory.PULL_UP:
                up = True
            elif p.pull == PinFactory.PULL_DOWN:
                down = True
        if lo is not None and hi is not None:
            self._short(hi, lo, members)
            return 0
        if lo is not None:
            return 0
        if hi is not None:
            return 1
        if up and not down:
            return 1
        if down and not up:
            return 0
        if reading:
            raise FloatingRead("GPIO%s read while nothing drives or pulls its net (%s): give it a pull" % (
                members[0], ", ".join(_pin_name(m) for m in members)))
        return 0

    def _short(self, hi, lo, members):
        keys = []
        for n in range(2):
            pad = self.pads[n]
            for key in sorted(pad.closed):
                if pad.where[key][0] in members or pad.where[key][1] in members:
                    keys.append("%s%s" % ("AB"[n], key))
        text = "short: %s drives high and %s drives low on one net (keys held: %s)" % (
            _pin_name(hi), _pin_name(lo), " ".join(keys))
        keep_last(self.shorts, (self.clock.now, text), self.SHORTS_KEPT)
        if self.strict:
            raise ShortCircuit(text)

    def driven(self, pin):
        """A pin changed what it drives: check its net (no allocation unless keys join it to others)."""
        members = self._net.get(pin.id)
        if members is not None:
            self._level(members, False)

    def read(self, pin_id):
        """Level of a pin: its net's (joined by closed keys to others) or its own drive/pull."""
        members = self._net.get(pin_id)
        if members is not None:
            return self._level(members)
        p = self.pins.get(pin_id)
        d = p.drive()
        if d >= 0:
            return d
        if p.pull == PinFactory.PULL_UP:
            return 1
        if p.pull == PinFactory.PULL_DOWN:
            return 0
        raise FloatingRead("%s read while nothing drives or pulls it: give it a pull" % _pin_name(pin_id))

    def tone(self, freq, duty):
        """Record a buzzer change (FakePWM)."""
        if not self.tones or self.tones[-1][1] != freq or self.tones[-1][2] != duty:
            keep_last(self.tones, (self.clock.elapsed(), freq, duty), self.TONES_KEPT)

    def frame_written(self, buf):
        if self.on_frame is not None:
            self.on_frame(self.clock.elapsed(), buf)

    # -- keys ---------------------------------------------------------------
    def set_key(self, pad, key, closed):
        """Close or open one contact right now (pad 0 = A, 1 = B)."""
        self.pads[pad].set(key, closed)
        self._rejoin()

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
        changed = False
        while ev and ev[0][0] <= now:
            _, _, pad, key, closed = ev.pop(0)
            self.pads[pad].set(key, closed)
            changed = True
        if changed:
            self._rejoin()

    def decode(self, buf):
        """Wire bytes -> list of (r, g, b) in strip order, using the board's colour order."""
        from firmware.display import color_offsets

        ri, gi, bi = color_offsets(getattr(self.cfg, "COLOR_ORDER", "GRB"))
        out = []
        for i in range(0, len(buf) - 2, 3):
            out.append((buf[i + ri], buf[i + gi], buf[i + bi]))
        return out


def _root(parent, x):
    # union-find root of x (adds x as its own root the first time)
    while True:
        p = parent.get(x, x)
        if p == x:
            parent[x] = x
            return x
        x = p


def _pin_name(m):
    return m if m == GND else "GPIO%s" % (m,)
