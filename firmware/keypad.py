"""Keypad scanning (matrix: rows driven low one at a time, columns pulled up; or direct buttons), debounced into a preallocated event ring."""
from engine._compat import const

KEYS_3X4 = "123456789*0#"
KEYS_4X4 = "123A456B789C*0#D"
KEYS_DIRECT = "123456789*#"

# A new level must be seen on this many consecutive scans before it counts.
# With the 10 ms tick that is 10-20 ms: longer than a membrane key's bounce
# (1-5 ms), far shorter than the quickest deliberate press (~60 ms).
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
    """One pad. `rows` are output pins (None for direct), `cols` input pins with pull-up; `keys` names the contacts row-major."""

    def __init__(self, rows, cols, keys, pad_bit):
        self.rows = rows
        self.cols = cols
        self.keys = keys
        self.pad_bit = pad_bit
        n = len(keys)
        self.n = n
        self.stable = bytearray(n)  # debounced state, 1 = pressed
        self.count = bytearray(n)  # consecutive scans that disagreed with `stable`
        self.active = False  # a key is down or still settling: scan every row
        if rows is not None:
            for r in rows:
                r.value(0)  # between scans all rows rest low: any press pulls its column low

    def index(self, ch):
        """Key index of character `ch`, or -1."""
        return self.keys.find(ch)

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
        the rows driven low one at a time, the others high, to find the key.
        Idle cost: 3 pin reads instead of 20 pin calls (~30k instead of ~75k
        fuel per pad with Python stub pins, tools/bench/firmware.py).
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
            for c in range(nc):
                if cols[c].value() == 0:
                    break
            else:
                return  # nothing pressed, nothing settling
        nr = len(rows)
        for r in range(nr):
            rows[r].value(1)
        act = False
        k = 0
        for r in range(nr):
            row = rows[r]
            row.value(0)  # this row low, the others high
            for c in range(nc):
                raw = 1 - cols[c].value()  # pulled up: 0 = a pressed key joins this column to the low row
                if raw != st[k] or cnt[k]:
                    self._seen(k, raw, ring)
                if st[k] or cnt[k]:
                    act = True
                k += 1
            row.value(1)
        for r in range(nr):
            rows[r].value(0)  # rest low again
        self.active = act

    def held(self, ch):
        """True while key `ch` is (debounced) down."""
        k = self.keys.find(ch)
        return k >= 0 and self.stable[k] == 1


def make_keypad(kind, spec, Pin, pad_bit):
    """Build a Keypad from a board's pad spec; `Pin` is machine.Pin (or the host fake)."""
    if kind == "direct":
        pins = spec["pins"]
        if len(pins) != len(KEYS_DIRECT):
            raise ValueError("direct pad needs %d pins (1-9, *, #), got %d" % (len(KEYS_DIRECT), len(pins)))
        cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in pins]
        return Keypad(None, cols, KEYS_DIRECT, pad_bit)
    if kind not in ("matrix3x4", "matrix4x4"):
        raise ValueError("unknown KEYPAD_TYPE %r; use matrix3x4, matrix4x4 or direct" % (kind,))
    ncols = 4 if kind == "matrix4x4" else 3
    if len(spec["rows"]) != 4 or len(spec["cols"]) != ncols:
        raise ValueError("%s pad needs 4 row pins and %d column pins" % (kind, ncols))
    keys = spec.get("keys") or (KEYS_4X4 if ncols == 4 else KEYS_3X4)
    rows = [Pin(p, Pin.OUT, value=1) for p in spec["rows"]]
    cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in spec["cols"]]
    return Keypad(rows, cols, keys, pad_bit)
