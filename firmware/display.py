"""LED output: logical 9x9 + 2 status frame -> strip layout, colour order, gamma, brightness and power cap, then one write() per frame."""
from engine._compat import const

NPIX = const(83)  # 81 matrix cells (row*9+col seen from black's seat) + status A + status B
STATUS_A = const(81)
STATUS_B = const(82)


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


class Display:
    """Owns the logical frame (`frame`, 83 x RGB bytes) and pushes it to the strip."""

    def __init__(self, np, cfg):
        self.np = np
        order = getattr(cfg, "COLOR_ORDER", "GRB")
        if len(order) != 3 or sorted(order) != ["B", "G", "R"]:
            raise ValueError("COLOR_ORDER must be a permutation of RGB, not %r" % (order,))
        self.ro = order.index("R")
        self.go = order.index("G")
        self.bo = order.index("B")
        self.map = strip_map(
            getattr(cfg, "MATRIX_LAYOUT", "serpentine"),
            getattr(cfg, "MATRIX_ORIGIN", "top-left"),
            getattr(cfg, "MATRIX_ROTATION", 0),
            getattr(cfg, "STATUS_LEDS", (81, 82)),
        )
        self.gamma = getattr(cfg, "GAMMA", 2.2)
        self.ma_per_channel = getattr(cfg, "MA_PER_CHANNEL", 20)
        self.budget_ma = getattr(cfg, "CURRENT_BUDGET_MA", 500)
        if self.budget_ma <= 0 or self.ma_per_channel <= 0:
            raise ValueError("CURRENT_BUDGET_MA and MA_PER_CHANNEL must be positive")
        # Channel-sum limit: sum(v) * mA/255 <= budget  <=>  sum(v) * mA <= budget * 255.
        self.limit = self.budget_ma * 255
        self.frame = bytearray(NPIX * 3)
        self.lut = bytearray(256)
        self.brightness = 0.0
        self.set_brightness(getattr(cfg, "BRIGHTNESS", 0.25))
        self.last_ma = 0  # estimated current of the last frame written, after the cap
        self.capped = 0  # frames that had to be scaled down

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

    def show(self):
        """Logical frame -> wire buffer (layout, order, gamma) -> power cap -> one write().

        Hot path: no allocation; about 83 x 12 bytecodes plus the optional
        scaling pass.
        """
        fr = self.frame
        buf = self.np.buf
        lut = self.lut
        m = self.map
        ro = self.ro
        go = self.go
        bo = self.bo
        s = 0
        k = 0
        for i in range(NPIX):
            j = m[i] * 3
            r = lut[fr[k]]
            g = lut[fr[k + 1]]
            b = lut[fr[k + 2]]
            buf[j + ro] = r
            buf[j + go] = g
            buf[j + bo] = b
            s += r + g + b
            k += 3
        mpc = self.ma_per_channel
        if s * mpc > self.limit:
            # Scale by sc/256 with sc rounded down, so the result is always inside the budget.
            sc = (self.limit << 8) // (s * mpc)
            s = 0
            for j in range(NPIX * 3):
                v = (buf[j] * sc) >> 8
                buf[j] = v
                s += v
            self.capped += 1
        self.last_ma = (s * mpc) // 255
        self.np.write()

    def clear(self):
        fr = self.frame
        for k in range(NPIX * 3):
            fr[k] = 0
