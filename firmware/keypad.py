"""Keypad parts, wiring and scanning (matrix: open-drain rows pulled low one at a time, columns pulled up; or direct buttons), debounced into a preallocated event ring."""
from engine._compat import const

# Key layouts, row-major: the one home (fakes, the virtual board and tools import them).
KEYS_3X4 = "123456789*0#"
KEYS_4X4 = "123A456B789C*0#D"
KEYS_DIRECT = "123456789*#"
KINDS = ("matrix3x4", "matrix4x4", "direct")

# Keypad parts: name -> (kind, connector pins of rows R1.., connector pins of columns C1..).
# Connector pins are numbered as printed on the part, 1 at the left seen from the front.
# - adafruit-1824 (phone-style 3x4): rows and columns alternate. Adafruit's
#   CircuitPython example wires connector pin n to D(n-1) and scans
#   rows = D1, D6, D5, D3 and cols = D2, D0, D4, i.e. rows = pins 2, 7, 6, 4 and
#   cols = pins 3, 1, 5 (github.com/adafruit/Adafruit_CircuitPython_MatrixKeypad
#   examples/matrixkeypad_simpletest.py; learn.adafruit.com/matrix-keypad).
# - membrane-3x4 / membrane-4x4 (the common flat membrane pads, e.g. Adafruit
#   419/3844): pins 1-4 are rows R1-R4, then the columns.
PARTS = {
    "adafruit-1824": ("matrix3x4", (2, 7, 6, 4), (3, 1, 5)),
    "membrane-3x4": ("matrix3x4", (1, 2, 3, 4), (5, 6, 7)),
    "membrane-4x4": ("matrix4x4", (1, 2, 3, 4), (5, 6, 7, 8)),
}

# A new level must be seen on this many consecutive scans before it counts.
# Scans run every firmware tick (10 ms), so that is 10-20 ms: longer than a
# membrane key's bounce (1-5 ms), far shorter than the quickest deliberate
# press (~60 ms).
_DEBOUNCE = const(2)
_RING = const(128)  # events; 64 presses: more than anyone types during the longest animation
_RING_MASK = const(127)

# Event byte: bit 7 pad (0 = A, 1 = B), bit 6 down (1) / up (0), bits 0-5 key index.
DOWN = const(64)
PAD_B = const(128)


class EventRing:
    """Fixed-size FIFO of key events shared by both pads; nothing is allocated when events come and go."""

    def __init__(self):
        self.buf = bytearray(_RING)
        self.head = 0  # next to read
        self.tail = 0  # next to write
        self.lost = 0  # events dropped because the ring was full (tests check it stays 0)
        self.downs = 0  # key-down events ever queued: the app clicks when this moves

    def put(self, ev):
        t = self.tail
        if ((t + 1) & _RING_MASK) == self.head:
            self.lost += 1
            return
        self.buf[t] = ev
        self.tail = (t + 1) & _RING_MASK
        if ev & DOWN:
            self.downs += 1

    def get(self):
        """Next event byte, or -1 when empty."""
        h = self.head
        if h == self.tail:
            return -1
        self.head = (h + 1) & _RING_MASK
        return self.buf[h]

    def peek(self, i):
        """The i-th queued event (0 = next) without taking it, or -1."""
        if i >= ((self.tail - self.head) & _RING_MASK):
            return -1
        return self.buf[(self.head + i) & _RING_MASK]

    def __len__(self):
        return (self.tail - self.head) & _RING_MASK

    def clear(self):
        self.head = self.tail


class Keypad:
    """One pad. `rows` are open-drain output pins (None for direct), `cols` input pins with pull-up; `keys` names the contacts row-major.

    Rows are open drain (Pin.OPEN_DRAIN: value(0) pulls low, value(1) lets go),
    so a row is never driven high: two keys held in one column join two rows,
    and with push-pull rows that would short a high output to a low one.
    MicroPython's rp2 port simulates open drain by switching the pin's output
    enable (ports/rp2/machine_pin.c); the esp32 port has it in hardware.
    """

    def __init__(self, rows, cols, keys, pad_bit):
        self.rows = rows
        self.cols = cols
        self.keys = keys
        self.pad_bit = pad_bit
        n = len(keys)
        self.n = n
        self.stable = bytearray(n)  # debounced state, 1 = pressed
        self.count = bytearray(n)  # consecutive scans that disagreed with `stable`
        self.raw = bytearray(n)  # this scan's raw reading (ghost check)
        self.active = False  # a key is down or still settling: scan every row
        for i in range(n):
            # The app reads a key's name as keys[k]; MicroPython interns each
            # one-character string the first time it is made, so make them all
            # now: otherwise the first press of a key no code names costs more
            # (a qstr is added) than one that exists, and the tick's timing
            # would tell which key it was.
            keys[i]
        if rows is not None:
            for r in rows:
                r.value(0)  # between scans all rows rest low: any press pulls its column low

    def _seen(self, k, raw, ring):
        # Debounce one key: accept a new level after _DEBOUNCE agreeing scans.
        st = self.stable
        if raw == st[k]:
            self.count[k] = 0
            return
        c = self.count[k] + 1
        if c >= _DEBOUNCE:
            st[k] = raw
            self.count[k] = 0
            ring.put(self.pad_bit | (DOWN if raw else 0) | k)
        else:
            self.count[k] = c

    def scan(self, ring):
        """Read the pad once and queue debounced edges. No allocation.

        Between scans every row rests low, so "is anything pressed?" is one
        read per column; only then (or while a key is down or settling) are
        the rows pulled low one at a time, the others released, to find the
        key. A released row is pulled back up through the key and the
        column's pull-up (~50 kohm x ~20 pF: about 1 us, less than one pin call).
        Idle cost: 3 pin reads instead of 20 pin calls (the firmware's share
        of a scan: `python -m tools.bench --only firmware`, stub pins). The
        work is the same whichever key is down (secrecy: no timing tells it).

        Ghosting: three keys held in an L (two in one row, two in one column)
        make the fourth corner of that rectangle read pressed too; no scan
        can tell which of the four is not held, so while a rectangle shows,
        its four keys keep their debounced state (a ghost is never reported,
        and the held keys stay held).
        """
        cols = self.cols
        nc = len(cols)
        rows = self.rows
        st = self.stable
        cnt = self.count
        if rows is None:
            for k in range(nc):
                raw = 1 - cols[k].value()
                if raw != st[k] or cnt[k]:
                    self._seen(k, raw, ring)
            return
        if not self.active:
            # Every column is read, never stopping at the first low one: which
            # column a key is on must not change how long a scan takes (the
            # tick grid, and so the frames' timing, would tell the secret key).
            up = 1
            for c in range(nc):
                up &= cols[c].value()
            if up:
                return  # nothing pressed, nothing settling
        nr = len(rows)
        raw = self.raw
        for r in range(nr):
            rows[r].value(1)  # let every row go
        k = 0
        down = 0
        for r in range(nr):
            row = rows[r]
            row.value(0)  # only this row is pulled low
            for c in range(nc):
                v = 1 - cols[c].value()  # pulled up: 0 = a pressed key joins this column to the low row
                raw[k] = v
                down += v
                k += 1
            row.value(1)
        for r in range(nr):
            rows[r].value(0)  # rest low again
        if down >= 3:
            self._ghosts(nr, nc)
        act = False
        for k in range(nr * nc):
            v = raw[k]
            if v > 1:  # part of a rectangle: hold the debounced state
                cnt[k] = 0
            elif v != st[k] or cnt[k]:
                self._seen(k, v, ring)
            if st[k] or cnt[k] or v:
                act = True
        self.active = act

    def _ghosts(self, nr, nc):
        # Mark (raw = 2) every key on a rectangle of pressed readings: rows a, b
        # sharing two pressed columns. Runs only with 3+ keys read down (rare).
        raw = self.raw
        for a in range(nr - 1):
            for b in range(a + 1, nr):
                shared = 0
                for c in range(nc):
                    if raw[a * nc + c] and raw[b * nc + c]:
                        shared += 1
                if shared >= 2:
                    for c in range(nc):
                        if raw[a * nc + c] and raw[b * nc + c]:
                            raw[a * nc + c] = 2
                            raw[b * nc + c] = 2

    def held(self, ch):
        """True while key `ch` is (debounced) down."""
        k = self.keys.find(ch)
        return k >= 0 and self.stable[k] == 1


def wiring(kind, spec):
    """(rows, cols, keys) of one pad spec from a board file, checked; rows is None for direct buttons (allocates; setup only).

    Matrix: {"rows": GPIOs of R1.., "cols": GPIOs of C1.., optional "part":
    a name in PARTS, optional "keys": row-major key string}. Direct:
    {"pins": 11 GPIOs for 1-9, *, #}. Bad specs raise ValueError in one line.
    """
    if kind not in KINDS:
        raise ValueError("unknown KEYPAD_TYPE %r; use %s" % (kind, ", ".join(KINDS)))
    if kind == "direct":
        pins = spec.get("pins")
        if pins is None or len(pins) != len(KEYS_DIRECT):
            raise ValueError("direct pad needs %d pins (1-9, *, #), got %d" % (len(KEYS_DIRECT), len(pins or ())))
        return None, tuple(pins), KEYS_DIRECT
    ncols = 4 if kind == "matrix4x4" else 3
    part = spec.get("part")
    if part is not None:
        if part not in PARTS:
            raise ValueError("unknown keypad part %r; known parts: %s" % (part, ", ".join(sorted(PARTS))))
        if PARTS[part][0] != kind:
            raise ValueError("keypad part %s is a %s pad, but the board says %s" % (part, PARTS[part][0], kind))
    rows = spec.get("rows") or ()
    cols = spec.get("cols") or ()
    if len(rows) != 4 or len(cols) != ncols:
        raise ValueError("%s pad needs 4 row pins and %d column pins" % (kind, ncols))
    keys = spec.get("keys") or (KEYS_4X4 if ncols == 4 else KEYS_3X4)
    if len(keys) != 4 * ncols:
        raise ValueError("%s pad needs %d keys, got %r" % (kind, 4 * ncols, keys))
    return tuple(rows), tuple(cols), keys


def contacts(kind, spec):
    """{key char: (row GPIO or None for a direct button, column GPIO)}: which pins each key joins (host fakes, tools)."""
    rows, cols, keys = wiring(kind, spec)
    out = {}
    if rows is None:
        for i in range(len(keys)):
            out[keys[i]] = (None, cols[i])
        return out
    nc = len(cols)
    for i in range(len(keys)):
        out[keys[i]] = (rows[i // nc], cols[i % nc])
    return out


def connector(kind, spec):
    """[(connector pin, GPIO, "R1".."C4")] in connector order for a pad that names its part, else [] (README tables, diagrams)."""
    part = spec.get("part")
    if part is None or kind == "direct":
        return []
    rows, cols, _ = wiring(kind, spec)
    _, prow, pcol = PARTS[part]
    out = []
    for i in range(len(prow)):
        out.append((prow[i], rows[i], "R%d" % (i + 1)))
    for i in range(len(pcol)):
        out.append((pcol[i], cols[i], "C%d" % (i + 1)))
    out.sort()
    return out


def make_keypad(kind, spec, Pin, pad_bit):
    """Build a Keypad from a board's pad spec; `Pin` is machine.Pin (or the host fake)."""
    rows, cols, keys = wiring(kind, spec)
    if rows is None:
        return Keypad(None, [Pin(p, Pin.IN, Pin.PULL_UP) for p in cols], keys, pad_bit)
    # value=0 first: the rows rest low between scans (see Keypad.scan).
    rows = [Pin(p, Pin.OPEN_DRAIN, value=0) for p in rows]
    cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in cols]
    return Keypad(rows, cols, keys, pad_bit)
