"""The browser edition's app icons: a small lit 9x9 board as PNG bytes, drawn in pure Python (zlib + struct) at build time."""
import struct
import zlib

# A few turtles and an egg on the grid, in the colours the page shows them (index: row * 9 + col).
BLACKS = (30, 40, 50, 49)
WHITES = (31, 41, 32, 39)
EGGS = (58,)
BACK = (27, 32, 29)  # the page's background (style.css)
PANEL = (16, 20, 18)  # the matrix's background
UNLIT = (44, 50, 47)


def _colour(i, lit):
    if i in BLACKS:
        return lit["black"]
    if i in WHITES:
        return lit["white"]
    if i in EGGS:
        return lit["egg"]
    return UNLIT


def lit_colours():
    """Screen colours of black's, white's turtles and an egg at full level, as the page draws them (tools/sim/screen.py)."""
    from firmware.display import PAL, BLUE, WARM, AMBER

    out = {}
    for name, c in (("black", BLUE), ("white", WARM), ("egg", AMBER)):
        r, g, b = PAL[c * 3], PAL[c * 3 + 1], PAL[c * 3 + 2]
        m = max(r, g, b, 1)
        out[name] = tuple(min(255, v * 255 // m) for v in (r, g, b))
    return out


def png(size, maskable=False):
    """A size x size RGB PNG. maskable: the board inside the central 80% safe zone, the background to the edges."""
    lit = lit_colours()
    n = size
    inset = n * (0.14 if maskable else 0.04)  # the rounded panel's margin
    span = n - 2 * inset
    pitch = span / 9.6
    x0 = inset + pitch * 0.8
    rad = pitch * 0.38
    corner = span * 0.12
    rows = []
    for y in range(n):
        row = bytearray(b"\x00")  # filter: none
        py = y + 0.5
        for x in range(n):
            px = x + 0.5
            c = BACK
            # The panel: a rounded square (coverage by distance to the rounded corner, 1 px of anti-aliasing).
            dx = max(inset + corner - px, px - (n - inset - corner), 0)
            dy = max(inset + corner - py, py - (n - inset - corner), 0)
            a = min(1.0, max(0.0, corner - (dx * dx + dy * dy) ** 0.5 + 0.5))
            if a > 0:
                c = _mix(c, PANEL, a)
                col = int((px - x0 + pitch / 2) // pitch)
                rw = int((py - x0 + pitch / 2) // pitch)
                if 0 <= col < 9 and 0 <= rw < 9:
                    cx = x0 + col * pitch
                    cy = x0 + rw * pitch
                    d = ((px - cx) ** 2 + (py - cy) ** 2) ** 0.5
                    k = min(1.0, max(0.0, rad - d + 0.5))
                    if k > 0:
                        c = _mix(c, _colour(rw * 9 + col, lit), k)
            row += bytes(c)
        rows.append(bytes(row))
    return _encode(n, n, b"".join(rows))


def _mix(a, b, k):
    return (int(a[0] + (b[0] - a[0]) * k + 0.5), int(a[1] + (b[1] - a[1]) * k + 0.5), int(a[2] + (b[2] - a[2]) * k + 0.5))


def _encode(w, h, raw):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
