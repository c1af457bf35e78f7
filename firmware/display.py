"""LED output: colour codes per pixel -> strip buffer through a wire-order table (layout, colour order, gamma, brightness, whole-board power cap); one write() per frame. The home of the strip map and colour-order decoding."""
from array import array

from engine._compat import const

NPIX = const(83)  # 81 matrix cells (row*9+col seen from black's seat) + status A + status B
STATUS_A = const(81)
STATUS_B = const(82)
NCODES = const(128)  # colour code = palette colour (0..7) << 4 | level (0..15)

# Palette (logical RGB before gamma), 3 bytes per colour, chosen for colour-blind
# players: black's turtles deep blue (dim), white's warm white (~3x brighter after
# gamma), eggs amber and always pulsing: blue/white/amber stay apart for protan,
# deuteran and tritan vision, and brightness/motion separate them even in greyscale.
OFF = const(0)
GRID = const(1)
BLUE = const(2)  # black's turtles
WARM = const(3)  # white's turtles
AMBER = const(4)  # eggs
RED = const(5)
FLASH = const(6)
GREEN = const(7)
PAL = bytes((
    0, 0, 0,        # off
    14, 14, 18,     # faint grid on the empty cells of light blocks
    0, 60, 255,     # black's turtles: blue
    255, 190, 110,  # white's turtles: warm white
    255, 100, 0,    # eggs: amber (pulsing)
    255, 0, 0,      # errors, pieces caught in a clamp
    255, 255, 255,  # flash
    0, 200, 60,     # menu / tutorial accents
))


def strip_map(layout, origin, rotation, status=(81, 82)):
    """Board cell (and the two status LEDs) -> strip index, as a bytearray of 83 (allocates; setup only).

    Strip LED k sits on the panel at (k // 9, k % 9) for a progressive panel
    wired from the top-left, every odd row reversed for a serpentine one; the
    origin corner mirrors that, then the panel is rotated clockwise (as seen
    from black's seat) by `rotation` degrees.
    """
    if layout not in ("progressive", "serpentine"):
        raise ValueError("MATRIX_LAYOUT must be 'progressive' or 'serpentine', not %r" % (layout,))
    if origin not in ("top-left", "top-right", "bottom-left", "bottom-right"):
        raise ValueError("MATRIX_ORIGIN must be top-left, top-right, bottom-left or bottom-right, not %r" % (origin,))
    if rotation not in (0, 90, 180, 270):
        raise ValueError("MATRIX_ROTATION must be 0, 90, 180 or 270, not %r" % (rotation,))
    m = bytearray(NPIX)
    for k in range(81):
        r = k // 9
        c = k % 9
        if layout == "serpentine" and r % 2 == 1:
            c = 8 - c
        if origin.startswith("bottom"):
            r = 8 - r
        if origin.endswith("right"):
            c = 8 - c
        for _ in range(rotation // 90):
            r, c = c, 8 - r  # 90 deg clockwise
        m[r * 9 + c] = k
    if len(status) != 2 or status[0] == status[1] or min(status) < 81 or max(status) > 82:
        raise ValueError("STATUS_LEDS must be (81, 82) or (82, 81), after the 81 matrix LEDs")
    m[STATUS_A] = status[0]
    m[STATUS_B] = status[1]
    return m


def color_offsets(order):
    """(r, g, b) byte offsets within one pixel's wire bytes for a COLOR_ORDER such as "GRB" (ValueError if not a permutation of RGB)."""
    if not isinstance(order, str) or len(order) != 3 or sorted(order) != ["B", "G", "R"]:
        raise ValueError("COLOR_ORDER must be a permutation of RGB, not %r" % (order,))
    return (order.index("R"), order.index("G"), order.index("B"))


def led_share_ma(cfg):
    """The current the LEDs may draw when lit: the board's budget minus every LED's idle draw and the controller's (ValueError if none is left)."""
    budget = getattr(cfg, "CURRENT_BUDGET_MA", 500)
    idle = getattr(cfg, "LED_COUNT", NPIX) * getattr(cfg, "IDLE_MA_PER_LED", 1)
    ctrl = getattr(cfg, "CONTROLLER_MA", 100)
    share = budget - idle - ctrl
    if share <= 0:
        raise ValueError("CURRENT_BUDGET_MA %d leaves nothing for the LEDs after %d mA idle (LED_COUNT x IDLE_MA_PER_LED) "
                         "and %d mA for the controller (CONTROLLER_MA)" % (budget, idle, ctrl))
    return share


class Display:
    """Keeps the strip buffer up to date pixel by pixel (put) and writes it once per frame (show).

    Only changed pixels cost anything: put() compares with the code already
    in the buffer. The running channel sum makes the power estimate free.
    """

    def __init__(self, np, cfg):
        self.np = np
        # Bytes go into np.buf in wire order (COLOR_ORDER), unless the strip object says its buf
        # takes another (BUF_ORDER: the CircuitPython layer's is "RGB", reordered by Adafruit's library).
        self.pos = bytes(color_offsets(getattr(np, "BUF_ORDER", None) or getattr(cfg, "COLOR_ORDER", "GRB")))
        m = strip_map(
            getattr(cfg, "MATRIX_LAYOUT", "serpentine"),
            getattr(cfg, "MATRIX_ORIGIN", "top-left"),
            getattr(cfg, "MATRIX_ROTATION", 0),
            getattr(cfg, "STATUS_LEDS", (81, 82)),
        )
        if len(np.buf) < NPIX * 3:
            raise ValueError("the LED strip must have at least 83 RGB pixels")
        self.m3 = bytearray(NPIX)  # strip byte offset of each logical pixel (<= 246: fits a byte)
        for i in range(NPIX):
            self.m3[i] = m[i] * 3
        self.gamma = getattr(cfg, "GAMMA", 2.2)
        self.ma_per_channel = getattr(cfg, "MA_PER_CHANNEL", 20)
        if self.ma_per_channel <= 0:
            raise ValueError("MA_PER_CHANNEL must be positive")
        # The whole board stays inside CURRENT_BUDGET_MA: every WS2812B draws
        # ~1 mA even when dark and the controller its own, so the lit LEDs get
        # only what is left (500 - 83 - 60 = 357 mA on a Pico over USB).
        self.budget_ma = getattr(cfg, "CURRENT_BUDGET_MA", 500)
        self.share_ma = led_share_ma(cfg)
        self.base_ma = self.budget_ma - self.share_ma  # idle LEDs + controller, drawn whatever is shown
        # Channel-sum limit: sum(v) * mA/255 <= share  <=>  sum(v) * mA <= share * 255.
        self.limit = self.share_ma * 255
        self.cur = bytearray(NPIX)  # code of each pixel now in the buffer (0 = off)
        self.wire = bytearray(NCODES * 3)  # code -> 3 bytes in wire order
        self.csum = array("H", [0] * NCODES)  # code -> channel sum of its wire bytes (<= 765)
        self.lut = bytearray(256)  # logical value -> gamma + brightness
        self.sum = 0  # channel sum of the whole buffer
        self.q = 256  # power-cap scale (256 = none)
        self.brightness = 0.0
        self.last_ma = 0  # estimated current of the lit LEDs in the last frame written (add base_ma for the board)
        self.capped = 0  # frames written with the cap active (q < 256)
        self.rescales = 0  # table rebuilds forced by the cap
        buf = np.buf
        for j in range(NPIX * 3):
            buf[j] = 0
        self.set_brightness(getattr(cfg, "BRIGHTNESS", 0.25))

    def set_brightness(self, b):
        """Rebuild the gamma+brightness table (floats: setup only, never per frame)."""
        if b < 0.01:
            b = 0.01
        if b > 1.0:
            b = 1.0
        self.brightness = b
        g = self.gamma
        lut = self.lut
        lut[0] = 0
        for v in range(1, 256):
            x = int(255.0 * ((v / 255.0) ** g) * b + 0.5)
            # Keep every lit logical value lit: the faint block grid must not vanish.
            lut[v] = x if x > 0 else 1
        self.q = 256
        self._table()
        self._rewrite()

    def _table(self):
        # code -> wire bytes at the current cap scale q (~400 entries: only on brightness or cap changes).
        lut = self.lut
        wire = self.wire
        csum = self.csum
        pos = self.pos
        q = self.q
        for c in range(8):
            for lv in range(16):
                k = ((c << 4) | lv)
                s = 0
                for ch in range(3):
                    v = lut[(PAL[c * 3 + ch] * lv * 17) // 255]
                    if q < 256:
                        v = (v * q) >> 8
                    wire[k * 3 + pos[ch]] = v
                    s += v
                csum[k] = s
        wire[0] = wire[1] = wire[2] = 0
        csum[0] = 0

    def _rewrite(self):
        # Every pixel again from the table (after a table change).
        buf = self.np.buf
        wire = self.wire
        cur = self.cur
        m3 = self.m3
        s = 0
        for i in range(NPIX):
            j = m3[i]
            k = cur[i] * 3
            buf[j] = wire[k]
            buf[j + 1] = wire[k + 1]
            buf[j + 2] = wire[k + 2]
            s += self.csum[cur[i]]
        self.sum = s

    def put(self, i, c):
        """Set logical pixel i to colour code c; an unchanged pixel costs a compare only (a frame's cost: `python -m tools.bench --only firmware`)."""
        cur = self.cur
        old = cur[i]
        if old != c:
            cur[i] = c
            w = self.wire
            buf = self.np.buf
            j = self.m3[i]
            k = c * 3
            buf[j] = w[k]
            buf[j + 1] = w[k + 1]
            buf[j + 2] = w[k + 2]
            self.sum += self.csum[c] - self.csum[old]

    def show(self):
        """Power cap, then one write() (part of every frame's cost: `python -m tools.bench --only firmware`). The cap keeps sum * mA/255 within the budget on every frame:
        over it, the table is rebuilt at a lower scale (rare: the sum changes a few pixels at a time);
        far under it, the scale creeps back up."""
        mpc = self.ma_per_channel
        lim = self.limit
        if self.sum * mpc > lim:
            while self.sum * mpc > lim:
                q = (self.q * lim * 15) // (self.sum * mpc * 16)  # aim 6% under, so small changes don't flap
                self.q = q if q < self.q else self.q - 1
                self._table()
                self._rewrite()
                self.rescales += 1
        elif self.q < 256 and self.sum * mpc * 4 < lim * 3:
            old = self.q
            q = (old * lim * 7) // (self.sum * mpc * 8 + 1)
            self.q = q if q < 256 else 256
            if self.q > old:
                self._table()
                self._rewrite()
                if self.sum * mpc > lim:  # rounding: step back to the old scale
                    self.q = old
                    self._table()
                    self._rewrite()
        if self.q < 256:
            self.capped += 1
        self.last_ma = (self.sum * mpc) // 255
        self.np.write()
