"""Pictures made by the project's own tools: recorded LED frames -> PNG/GIF of the panel, plus wiring and keypad diagrams."""
import argparse
import importlib
import io
import json
import math
import sys
from pathlib import Path

from tools import ROOT
N_CELLS = 81
N_PIXELS = 83
COLS = "abcdefghi"


class RenderError(Exception):
    """A problem with the input that the user can fix; main() prints it without a traceback."""


# ---------------------------------------------------------------- inputs

def load_board(name):
    """The board config module boards/<name>.py (through boards.load), or a RenderError naming the valid boards."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import boards
    try:
        return boards.load(name)
    except ValueError as e:
        raise RenderError(str(e))


def load_frames(path):
    """Read a frames file (JSON lines {"t": ms, "pixels": [[r,g,b]*83]}) into a list of (t, pixels)."""
    p = Path(path)
    if not p.is_file():
        raise RenderError("frames file not found: %s (record one with: python -m tools.sim --headless --frames %s ...)" % (path, path))
    frames = []
    with p.open("r", encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            where = "%s line %d" % (path, lineno)
            try:
                rec = json.loads(line)
            except ValueError as e:
                raise RenderError("%s: not JSON (%s)" % (where, e))
            if not isinstance(rec, dict) or "t" not in rec or "pixels" not in rec:
                raise RenderError('%s: expected {"t": ms, "pixels": [[r,g,b], ...]}' % where)
            t, px = rec["t"], rec["pixels"]
            if not isinstance(t, (int, float)) or isinstance(t, bool):
                raise RenderError("%s: t must be a number of milliseconds, got %r" % (where, t))
            if not isinstance(px, list) or len(px) != N_PIXELS:
                raise RenderError("%s: expected %d pixels (81 cells + 2 status LEDs), got %s"
                                  % (where, N_PIXELS, len(px) if isinstance(px, list) else type(px).__name__))
            pixels = []
            for k, c in enumerate(px):
                if (not isinstance(c, (list, tuple)) or len(c) != 3
                        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 255 for v in c)):
                    raise RenderError("%s: pixel %d must be [r, g, b] with integers 0..255, got %r" % (where, k, c))
                pixels.append((c[0], c[1], c[2]))
            if frames and t < frames[-1][0]:
                raise RenderError("%s: time goes backwards (%s after %s)" % (where, t, frames[-1][0]))
            frames.append((t, pixels))
    if not frames:
        raise RenderError("frames file is empty: %s" % path)
    return frames


def cell_mapper(board_name):
    """A function strip-ordered pixels -> (81 cell colours in board order, (pad A status, pad B status)).

    The strip-to-cell layout (serpentine, origin, rotation) is the firmware's
    business; we ask the firmware instead of re-deriving it, so a picture can
    never disagree with what the device shows.
    """
    board = load_board(board_name)
    try:
        from firmware.display import strip_map
    except ImportError as e:
        raise RenderError("the firmware's layout code is missing (firmware/display.py strip_map): %s" % e)
    try:
        cell_to_strip = strip_map(getattr(board, "MATRIX_LAYOUT", "serpentine"), getattr(board, "MATRIX_ORIGIN", "top-left"),
                                  getattr(board, "MATRIX_ROTATION", 0), getattr(board, "STATUS_LEDS", (81, 82)))
    except ValueError as e:
        raise RenderError("board %s: %s" % (board_name, e))
    status = (cell_to_strip[81], cell_to_strip[82])

    def mapper(pixels):
        return [pixels[cell_to_strip[i]] for i in range(N_CELLS)], (pixels[status[0]], pixels[status[1]])
    return mapper


# ---------------------------------------------------------------- colour

def exposure_for(frames, gamma):
    """One exposure for a whole recording, so the GIF does not flicker.

    The strip gets gamma-encoded values (v = 255 * level^GAMMA) scaled down by
    the brightness setting and the power cap. A screen shows sRGB, which is
    already roughly perceptual, so we take the 1/GAMMA root to get back to the
    level the firmware meant, then stretch so the brightest channel of the
    whole recording reaches full scale: a real LED at 25 % PWM still looks
    bright to the eye, while a dim picture of it looks broken.
    """
    peak = 0
    for _, px in frames:
        for c in px:
            m = max(c)
            if m > peak:
                peak = m
    if peak == 0:
        return 1.0
    return min(8.0, 1.0 / ((peak / 255.0) ** (1.0 / gamma)))


def perceived(rgb, gamma, exposure):
    """Strip value -> screen sRGB value (see exposure_for for why)."""
    out = []
    for v in rgb:
        x = (v / 255.0) ** (1.0 / gamma) * exposure if v else 0.0
        out.append(min(255, int(round(x * 255))))
    return tuple(out)


# ---------------------------------------------------------------- fonts

_FONTS = {}


def font(size, bold=False, mono=False):
    """DejaVu (Sans or Sans Mono) when the system has it, else Pillow's built-in scalable font."""
    from PIL import ImageFont
    key = (size, bold, mono)
    if key not in _FONTS:
        name = "DejaVuSans" + ("Mono" if mono else "") + ("-Bold" if bold else "") + ".ttf"
        try:
            _FONTS[key] = ImageFont.truetype(name, size)
        except OSError:
            _FONTS[key] = ImageFont.load_default(size=size)
    return _FONTS[key]


def mono(size, bold=False):
    return font(size, bold, mono=True)


def _text_c(draw, xy, text, fnt, fill):
    """Text centred on xy (Pillow's 'mm' anchor)."""
    draw.text(xy, text, font=fnt, fill=fill, anchor="mm")


# ---------------------------------------------------------------- the LED panel

class Panel:
    """Draws the 9x9 matrix and the two status LEDs as a lit PCB; static parts are drawn once."""

    PCB = (16, 21, 19)
    PCB_EDGE = (34, 42, 38)
    SILK = (70, 84, 78)
    LABEL = (96, 112, 104)

    def __init__(self, pitch=56, hot=True, caption_band=False):
        from PIL import Image, ImageDraw, ImageFilter
        self.p = p = int(pitch)
        self.band = int(p * 1.25) if caption_band else 0   # room under the panel for two lines of caption
        # The white-hot centre reads well in a PNG but turns into rings on a
        # 255-colour GIF palette, so GIFs go without it.
        self.hot = hot
        self.margin = m = int(p * 1.05)          # room for labels around the matrix
        self.status_band = sb = int(p * 1.0)     # each player's edge strip with the status LED
        self.w = m * 2 + 9 * p
        self.h = m * 2 + 9 * p + sb * 2 + self.band
        self.x0 = m
        self.y0 = sb + m
        self.lens_r = p * 0.26
        # Anti-aliased masks: drawn 4x larger, then shrunk.
        self.lens_mask = self._disc(self.lens_r)
        self.hot_mask = self._radial(self.lens_r * 1.0)
        bg = Image.new("RGB", (self.w, self.h), (8, 9, 9))
        d = ImageDraw.Draw(bg)
        r = int(p * 0.35)
        d.rounded_rectangle((2, 2, self.w - 3, self.h - 3), radius=r, fill=self.PCB, outline=self.PCB_EDGE, width=2)
        # Mounting holes in the corners: it reads as a board, not a chart.
        for cx in (p * 0.45, self.w - p * 0.45):
            for cy in (p * 0.45, self.h - self.band - p * 0.45):
                d.ellipse((cx - p * 0.16, cy - p * 0.16, cx + p * 0.16, cy + p * 0.16), fill=(6, 7, 7), outline=(120, 110, 70), width=2)
        # Silkscreen: the 3x3 block grid the players read coordinates from.
        x0, y0 = self.x0, self.y0
        for k in range(0, 10, 3):
            w = 2 if k in (0, 9) else 1
            d.line((x0 + k * p, y0, x0 + k * p, y0 + 9 * p), fill=self.SILK, width=w)
            d.line((x0, y0 + k * p, x0 + 9 * p, y0 + k * p), fill=self.SILK, width=w)
        lf = font(max(9, int(p * 0.3)))
        for i in range(9):
            cx = x0 + i * p + p / 2
            _text_c(d, (cx, y0 - m * 0.45), COLS[i], lf, self.LABEL)
            _text_c(d, (cx, y0 + 9 * p + m * 0.45), COLS[i], lf, self.LABEL)
            cy = y0 + i * p + p / 2
            _text_c(d, (x0 - m * 0.5, cy), str(i + 1), lf, self.LABEL)
            _text_c(d, (x0 + 9 * p + m * 0.5, cy), str(i + 1), lf, self.LABEL)
        # Each player's status LED sits on their own edge: B (white) far side, A (black) near side.
        sf = font(max(8, int(p * 0.24)))
        hb = self.h - self.band
        self.status_xy = ((self.w / 2, hb - sb * 0.55), (self.w / 2, sb * 0.55))
        _text_c(d, (self.w / 2 + p * 1.3, hb - sb * 0.55), "A · black", sf, self.LABEL)
        _text_c(d, (self.w / 2 + p * 1.3, sb * 0.55), "B · white", sf, self.LABEL)
        for (cx, cy) in self.led_centres():
            self._package(d, cx, cy)
        self.bg = bg
        self._blur = ImageFilter.GaussianBlur(p * 0.3)

    def led_centres(self):
        """83 centres: cells in board order (row-major, a1 first), then status A, status B."""
        p = self.p
        out = [(self.x0 + (i % 9) * p + p / 2, self.y0 + (i // 9) * p + p / 2) for i in range(N_CELLS)]
        return out + list(self.status_xy)

    def _package(self, d, cx, cy):
        """An unlit WS2812B: a 5050 package with a darker lens."""
        s = self.p * 0.3
        d.rounded_rectangle((cx - s, cy - s, cx + s, cy + s), radius=int(s * 0.25), fill=(44, 46, 45), outline=(58, 60, 59))
        r = self.lens_r
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(24, 25, 25))

    @staticmethod
    def _disc(r):
        from PIL import Image, ImageDraw
        n = int(math.ceil(r * 2)) + 2
        big = Image.new("L", (n * 4, n * 4), 0)
        c = n * 2
        ImageDraw.Draw(big).ellipse((c - r * 4, c - r * 4, c + r * 4, c + r * 4), fill=255)
        return big.resize((n, n), Image.LANCZOS)

    @staticmethod
    def _radial(r):
        """A soft white-hot centre: bright LEDs saturate to white in the middle, as a camera sees them."""
        from PIL import Image
        n = int(math.ceil(r * 2)) + 2
        img = Image.new("L", (n, n), 0)
        c = (n - 1) / 2
        px = img.load()
        for y in range(n):
            for x in range(n):
                q = math.hypot(x - c, y - c) / r
                px[x, y] = int(255 * max(0.0, 1 - q) ** 1.1)
        return img

    def draw(self, colours, caption=None):
        """colours: 83 screen colours (cells in board order, then A, B) -> RGB image (caption under the panel)."""
        from PIL import Image, ImageChops, ImageDraw
        glow = Image.new("RGB", (self.w, self.h), (0, 0, 0))
        gd = ImageDraw.Draw(glow)
        gr = self.p * 0.4
        centres = self.led_centres()
        for (cx, cy), c in zip(centres, colours):
            if c != (0, 0, 0):
                # Glow grows with brightness: the faint block grid should not haze the panel.
                k = max(c) / 255.0
                gd.ellipse((cx - gr, cy - gr, cx + gr, cy + gr), fill=tuple(int(v * k) for v in c))
        img = ImageChops.add(self.bg, glow.filter(self._blur))
        lm, hm = self.lens_mask, self.hot_mask
        for (cx, cy), c in zip(centres, colours):
            if c == (0, 0, 0):
                continue
            img.paste(c, (int(round(cx - lm.width / 2)), int(round(cy - lm.height / 2))), lm)
            if not self.hot:
                continue
            lum = max(c) / 255.0
            hot = tuple(int(v + (255 - v) * 0.45 * lum * lum) for v in c)
            img.paste(hot, (int(round(cx - hm.width / 2)), int(round(cy - hm.height / 2))), hm)
        if self.band and caption:
            self._caption(img, caption)
        return img

    def _caption(self, img, text):
        """Up to two centred lines in the band under the panel, wrapped at word boundaries."""
        from PIL import ImageDraw
        d = ImageDraw.Draw(img)
        f = font(max(9, int(self.p * 0.3)))
        width = self.w - self.p * 0.6
        lines, cur = [], ""
        for word in text.split():
            trial = (cur + " " + word).strip()
            if cur and d.textlength(trial, font=f) > width:
                lines.append(cur)
                cur = word
            else:
                cur = trial
        lines.append(cur)
        lines = lines[:2]
        lh = self.p * 0.42
        y = self.h - self.band / 2 - lh * (len(lines) - 1) / 2 - self.p * 0.1
        for i, line in enumerate(lines):
            _text_c(d, (self.w / 2, y + i * lh), line, f, (214, 220, 214))


class FrameRenderer:
    """Strip-ordered frames of one recording -> panel images, with one exposure for the whole recording."""

    def __init__(self, board_name, frames, pitch=56, mapper=None):
        board = load_board(board_name)
        self.gamma = float(getattr(board, "GAMMA", 2.2)) or 1.0
        self.mapper = mapper or cell_mapper(board_name)
        self.exposure = exposure_for(frames, self.gamma)
        self.panel = Panel(pitch)

    def colours(self, pixels):
        cells, (a, b) = self.mapper(pixels)
        g, e = self.gamma, self.exposure
        return [perceived(c, g, e) for c in cells] + [perceived(a, g, e), perceived(b, g, e)]

    def image(self, pixels):
        """pixels: 83 strip-order colours, or (pixels, caption) from a captioned recording."""
        if isinstance(pixels, tuple):
            return self.panel.draw(self.colours(pixels[0]), pixels[1])
        return self.panel.draw(self.colours(pixels))


# ---------------------------------------------------------------- PNG and GIF

def frame_at(frames, ms):
    """The frame on the LEDs at time ms: the last one written at or before it (LEDs hold their value)."""
    chosen = frames[0]
    for f in frames:
        if f[0] <= ms:
            chosen = f
        else:
            break
    return chosen


def sample(frames, fps, max_seconds=None):
    """Frames sampled every 1000/fps ms of recorded time -> [(payload, duration_ms)], identical neighbours merged.

    A payload is whatever the frame carries: its pixels, or (pixels, caption).
    """
    if fps <= 0:
        raise RenderError("--fps must be positive")
    step = 1000.0 / fps
    t0, t_end = frames[0][0], frames[-1][0]
    if max_seconds is not None:
        t_end = min(t_end, t0 + max_seconds * 1000.0)
    out = []
    k = 0
    n = max(1, int((t_end - t0) // step) + 1)
    acc = 0.0
    for j in range(n):
        t = t0 + j * step
        while k + 1 < len(frames) and frames[k + 1][0] <= t:
            k += 1
        px = frames[k][1]
        # GIF delays are in 10 ms units: carry the rounding so long GIFs keep real time.
        acc += step
        d = int(acc // 10) * 10
        acc -= d
        if out and out[-1][0] == px:
            out[-1][1] += d
        else:
            out.append([px, d])
    # Hold the final position so viewers can read it before the loop restarts.
    out[-1][1] += 2500
    return [(px, max(20, d)) for px, d in out]


def write_gif(renderer, samples, out, max_bytes=None):
    """Save an animated GIF with one shared palette; shrink until it fits max_bytes. Returns (bytes, frames, size)."""
    from PIL import Image
    scale = 1.0
    renderer.panel = Panel(renderer.panel.p, hot=False, caption_band=renderer.panel.band > 0)
    while True:
        def shot(px):
            im = renderer.image(px)
            if scale != 1.0:
                im = im.resize((max(1, int(im.width * scale)), max(1, int(im.height * scale))), Image.LANCZOS)
            return im
        # One adaptive palette from a strip of evenly spread frames: every frame
        # shares it, so unchanged areas stay byte-identical and compress away,
        # and no frame holds on to its RGB copy (a long game stays in memory).
        # 48 frames, so short events (a capture flash) get their colours too;
        # half size is plenty to learn colours and keeps this fast.
        pick = [shot(px) for px, _ in samples[:: max(1, len(samples) // 48)][:48]]
        w, h = pick[0].size
        hw, hh = max(1, w // 2), max(1, h // 2)
        strip = Image.new("RGB", (hw, hh * len(pick)))
        for k, im in enumerate(pick):
            strip.paste(im.resize((hw, hh), Image.BILINEAR), (0, k * hh))
        pal = strip.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        q = [shot(px).quantize(palette=pal, dither=Image.Dither.NONE) for px, _ in samples]
        buf = io.BytesIO()
        q[0].save(buf, format="GIF", save_all=True, append_images=q[1:], duration=[d for _, d in samples],
                  loop=0, optimize=True, disposal=1)   # optimize: unchanged pixels become transparent
        data = buf.getvalue()
        if max_bytes is None or len(data) <= max_bytes or scale < 0.3:
            break
        scale *= max(0.5, min(0.9, math.sqrt(max_bytes / len(data)) * 0.95))
    Path(out).write_bytes(data)
    return len(data), len(samples), (w, h)


# ---------------------------------------------------------------- wiring diagram

# Physical pin numbers of the Pico's GPIOs, so the diagram can say "GP28 (pin 34)".
_PICO_PHYS = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
              13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
              26: 31, 27: 32, 28: 34}

INK = (34, 38, 44)
PAPER = (250, 248, 242)
RED = (206, 48, 40)
BLACK = (30, 30, 30)
DATA = (36, 120, 200)
PAD_COLOURS = ((222, 130, 30), (122, 78, 176))   # pad A wires, pad B wires
BUZZ = (40, 150, 90)


def board_title(board):
    """'Raspberry Pi Pico (RP2040)' from the board file's first line, so new boards need no code here."""
    doc = (board.__doc__ or "").strip().splitlines()
    line = doc[0] if doc else board.NAME
    line = line.split(":", 1)[-1].strip()
    for cut in (" — ", " - ", " reference build", " build"):
        if cut in line:
            line = line.split(cut, 1)[0]
    return line.strip() or board.NAME


def pin_name(board, gpio):
    if board.NAME.startswith("pico"):
        phys = _PICO_PHYS.get(gpio)
        return "GP%d" % gpio + (" (pin %d)" % phys if phys else "")
    return "GPIO%d" % gpio


def power_names(board):
    if board.NAME.startswith("pico"):
        return "VBUS (pin 40)", "GND (pin 38)"
    return "5V", "GND"


def pad_wires(board, which):
    """[(gpio, label)] for pad 'A' or 'B' from the board's pin constants (matrix rows/cols or direct buttons)."""
    pad = getattr(board, "PAD_" + which)
    kind = getattr(board, "PAD_%s_TYPE" % which, getattr(board, "KEYPAD_TYPE", "matrix3x4"))
    if "pins" in pad or kind == "direct":
        keys = "123456789*#"
        return [(g, "key " + keys[i] if i < len(keys) else "key ?") for i, g in enumerate(pad["pins"])], "direct"
    rows, cols = pad["rows"], pad["cols"]
    out = [(g, "R%d" % (i + 1)) for i, g in enumerate(rows)] + [(g, "C%d" % (i + 1)) for i, g in enumerate(cols)]
    return out, "%dx%d" % (len(cols), len(rows))


def _box(d, xy, title, sub=None, fill=(255, 255, 255), outline=INK):
    d.rounded_rectangle(xy, radius=10, fill=fill, outline=outline, width=3)
    x0, y0, x1, _ = xy
    d.text(((x0 + x1) / 2, y0 + 22), title, font=font(22, True), fill=INK, anchor="mm")
    if sub:
        d.text(((x0 + x1) / 2, y0 + 48), sub, font=font(16), fill=(90, 94, 100), anchor="mm")


def _dot(d, x, y, c):
    d.ellipse((x - 5, y - 5, x + 5, y + 5), fill=c)


def _wire(d, pts, c, w=4):
    d.line(pts, fill=c, width=w, joint="curve")


def _resistor(d, x0, y, x1, label, c=DATA):
    """A zig-zag resistor between x0 and x1 on one line, labelled above."""
    n = 6
    pts = [(x0, y)]
    step = (x1 - x0) / (n + 1)
    for i in range(n):
        pts.append((x0 + step * (i + 0.5) + step / 2, y + (-12 if i % 2 == 0 else 12)))
    pts.append((x1, y))
    d.line(pts, fill=c, width=4, joint="curve")
    d.text(((x0 + x1) / 2, y - 28), label, font=font(18, True), fill=INK, anchor="mm")


def _mini_keypad(d, x0, y0, cell, keys="123456789*0#"):
    for k, ch in enumerate(keys):
        r, c = divmod(k, 3)
        x, y = x0 + c * cell, y0 + r * cell
        fill = (236, 238, 240) if ch in "0" else (255, 255, 255)
        d.rounded_rectangle((x + 3, y + 3, x + cell - 3, y + cell - 3), radius=6, fill=fill, outline=(150, 155, 160), width=2)
        d.text((x + cell / 2, y + cell / 2), ch, font=font(int(cell * 0.42), True), fill=INK, anchor="mm")


def draw_wiring(board):
    """A block diagram of the whole build, drawn from the board file's pin constants."""
    from PIL import Image, ImageDraw
    W, H = 1500, 1600   # cropped to what was drawn at the end
    img = Image.new("RGB", (W, H), PAPER)
    d = ImageDraw.Draw(img)
    title = board_title(board)
    d.text((40, 40), "Wiring — %s" % title, font=font(32, True), fill=INK, anchor="lm")
    d.text((40, 76), "generated from boards/%s.py by `python -m tools.render wiring --board %s`" % (board.NAME, board.NAME),
           font=font(17), fill=(110, 114, 120), anchor="lm")

    # The MCU with one labelled pin row per wire, in the order the wires leave it.
    vbus, gnd = power_names(board)
    a_wires, a_kind = pad_wires(board, "A")
    b_wires, b_kind = pad_wires(board, "B")
    rows = [(190, vbus, RED), (236, gnd, BLACK), (340, pin_name(board, board.LED_PIN), DATA)]
    y = 540
    ya = []
    for g, lab in a_wires:
        rows.append((y, pin_name(board, g), PAD_COLOURS[0]))
        ya.append((y, lab))
        y += 32
    y += 90
    yb = []
    for g, lab in b_wires:
        rows.append((y, pin_name(board, g), PAD_COLOURS[1]))
        yb.append((y, lab))
        y += 32
    y_buzz = y + 40
    buzzer = getattr(board, "BUZZER_PIN", None)
    if buzzer is not None:
        rows.append((y_buzz, pin_name(board, buzzer), BUZZ))
    mcu_x0, mcu_x1 = 50, 330
    _box(d, (mcu_x0, 110, mcu_x1, max(y_buzz, y) + 50), title.split(" (")[0], "(" + title.split(" (")[1] if " (" in title else None,
         fill=(232, 244, 236), outline=(40, 110, 70))
    pf = font(17, True)
    for (py, name, c) in rows:
        d.text((mcu_x1 - 16, py), name, font=pf, fill=INK, anchor="rm")
        d.rectangle((mcu_x1 - 8, py - 6, mcu_x1 + 4, py + 6), fill=(200, 170, 60), outline=INK)

    # Power rails: the LEDs draw from 5 V directly, never through the MCU's regulator.
    x_rail_end = 1440
    _wire(d, [(mcu_x1 + 4, 190), (x_rail_end, 190)], RED, 6)
    _wire(d, [(mcu_x1 + 4, 236), (x_rail_end, 236)], BLACK, 6)
    d.text((x_rail_end - 4, 172), "+5 V", font=font(18, True), fill=RED, anchor="rm")
    d.text((x_rail_end - 4, 256), "GND", font=font(18, True), fill=BLACK, anchor="rm")
    d.text((mcu_x1 + 70, 172), "5 V supply: USB into the board, or a 5 V adapter on this rail",
           font=font(16), fill=(120, 60, 50), anchor="lm")

    # Level shifter: the MCU's 3.3 V data is too low a "high" for WS2812s fed with 5 V.
    ls = (490, 272, 740, 450)
    _box(d, ls, "74AHCT125", "level shifter 3.3 V → 5 V", fill=(255, 255, 255))
    _wire(d, [(mcu_x1 + 4, 340), (ls[0], 340)], DATA)
    d.text((ls[0] + 10, 356), "1A", font=font(15), fill=INK, anchor="lm")
    d.text((ls[0] + 10, 392), "1OE → GND", font=font(15), fill=INK, anchor="lm")
    d.text((ls[0] + 10, 416), "2-4OE → 5 V", font=font(15), fill=INK, anchor="lm")
    d.text((ls[2] - 10, 356), "1Y", font=font(15), fill=INK, anchor="rm")
    for x, c, ry in ((560, RED, 190), (670, BLACK, 236)):
        _wire(d, [(x, ry), (x, ls[1])], c)
        _dot(d, x, ry, c)
    d.text((568, 262), "VCC", font=font(14), fill=RED, anchor="lm")
    d.text((678, 262), "GND", font=font(14), fill=INK, anchor="lm")

    # Series resistor right at DIN damps ringing on the data line.
    mx = (960, 272, 1440, 730)
    _wire(d, [(ls[2], 340), (790, 340)], DATA)
    _resistor(d, 790, 340, 900, "330 Ω")
    _wire(d, [(900, 340), (mx[0], 340)], DATA)
    d.text((mx[0] + 10, 358), "DIN", font=font(15, True), fill=INK, anchor="lm")

    # The matrix: 9x9 WS2812B plus the two status LEDs at the end of the chain.
    d.rounded_rectangle(mx, radius=10, fill=(24, 28, 26), outline=INK, width=3)
    d.text(((mx[0] + mx[2]) / 2, mx[1] + 26), "9×9 WS2812B matrix + 2 status LEDs", font=font(20, True),
           fill=(235, 235, 230), anchor="mm")
    layout = "%s, first LED %s, %d°" % (board.MATRIX_LAYOUT, board.MATRIX_ORIGIN, board.MATRIX_ROTATION)
    d.text(((mx[0] + mx[2]) / 2, mx[1] + 52), "%s · %s · %d LEDs" % (layout, board.COLOR_ORDER, board.LED_COUNT),
           font=font(15), fill=(170, 175, 170), anchor="mm")
    gx, gy, gs = mx[0] + 130, mx[1] + 92, 24
    for i in range(81):
        r, c = divmod(i, 9)
        cx, cy = gx + c * gs + gs / 2, gy + r * gs + gs / 2
        d.ellipse((cx - 7, cy - 7, cx + 7, cy + 7), fill=(70, 74, 72))
    sa, sb = board.STATUS_LEDS
    for (cy, lab) in ((gy - 18, "LED %d: pad B (white's edge)" % sb), (gy + 9 * gs + 18, "LED %d: pad A (black's edge)" % sa)):
        cx = gx + 4.5 * gs
        d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=(120, 200, 120))
        d.text((cx + 18, cy), lab, font=font(14), fill=(200, 205, 200), anchor="lm")
    # 5 V / GND into the matrix, with the bulk capacitor across them at its input.
    for x, c, ry, lab in ((mx[0] + 40, RED, 190, "5V"), (mx[0] + 90, BLACK, 236, "GND")):
        _wire(d, [(x, ry), (x, mx[1])], c)
        _dot(d, x, ry, c)
    cxp = 870
    _wire(d, [(cxp, 190), (cxp, 204)], RED)
    d.line((cxp - 18, 205, cxp + 18, 205), fill=INK, width=4)
    d.arc((cxp - 22, 213, cxp + 22, 237), 200, 340, fill=INK, width=4)
    _wire(d, [(cxp, 215), (cxp, 236)], BLACK)
    _dot(d, cxp, 190, RED)
    _dot(d, cxp, 236, BLACK)
    d.text((cxp - 26, 213), "1000 µF", font=font(16, True), fill=INK, anchor="rm")

    # Keypads: plain GPIOs, no power needed (rows driven low in turn, columns pulled up).
    for (wires, kind, lab, col, x0) in ((ya, a_kind, "Pad A — black", PAD_COLOURS[0], 520),
                                        (yb, b_kind, "Pad B — white", PAD_COLOURS[1], 520)):
        top, bot = wires[0][0] - 70, wires[-1][0] + 30
        kp = (x0, top, x0 + 330, max(bot, top + 260))
        d.rounded_rectangle(kp, radius=10, fill=(255, 255, 255), outline=col, width=3)
        d.text((kp[0] + 20, kp[1] + 20), lab, font=font(20, True), fill=INK, anchor="lm")
        d.text((kp[0] + 20, kp[1] + 44), "3×4 keypad" if kind == "3x4" else ("%s keypad" % kind if kind != "direct" else "11 buttons to GND"),
               font=font(15), fill=(100, 104, 110), anchor="lm")
        for (py, plab) in wires:
            _wire(d, [(mcu_x1 + 4, py), (x0, py)], col, 3)
            d.text((x0 + 10, py), plab, font=font(14, True), fill=INK, anchor="lm")
        if kind != "direct":
            _mini_keypad(d, kp[0] + 190, kp[1] + 62, 44 if len(wires) > 6 else 40)

    if buzzer is not None:
        _wire(d, [(mcu_x1 + 4, y_buzz), (560, y_buzz)], BUZZ)
        _resistor(d, 560, y_buzz, 640, "100 Ω", BUZZ)
        _wire(d, [(640, y_buzz), (690, y_buzz)], BUZZ)
        d.ellipse((690, y_buzz - 22, 734, y_buzz + 22), fill=(40, 40, 40), outline=INK, width=2)
        d.ellipse((706, y_buzz - 6, 718, y_buzz + 6), fill=(120, 120, 120))
        d.text((750, y_buzz), "piezo buzzer → GND", font=font(17, True), fill=INK, anchor="lm")

    notes = [
        "Level shifter: 1A ← data pin, 1Y → 330 Ω → DIN; 1OE to GND,",
        "   the unused 2OE-4OE to 5 V; VCC 5 V, 100 nF at its VCC pin.",
        "1000 µF across 5 V / GND where power enters the matrix.",
        "Frames are scaled to CURRENT_BUDGET_MA = %d mA; raise it" % board.CURRENT_BUDGET_MA,
        "   only with a 5 V supply that can deliver more.",
        "All grounds common: MCU, shifter, LEDs, supply.",
        "Keypads: R1-R4 / C1-C3 as printed on the keypad",
        "   (pin order differs between makers; check yours).",
        "Pad B is mounted turned 180° (PAD_B_ROTATED = %s)." % getattr(board, "PAD_B_ROTATED", False),
    ]
    ny = 790
    d.text((960, ny), "Notes", font=font(20, True), fill=INK, anchor="lm")
    for i, t in enumerate(notes):
        d.text((960, ny + 34 + i * 27), t, font=font(16), fill=INK, anchor="lm")
    return img.crop((0, 0, W, max(y_buzz + 90, ny + 34 + len(notes) * 27 + 30)))


def wiring_main(argv):
    ap = argparse.ArgumentParser(prog="python -m tools.render wiring",
                                 description="Draw the wiring diagram of a board config (pins read from boards/NAME.py).")
    ap.add_argument("--board", default="pico", help="board config name (default pico)")
    ap.add_argument("--out", metavar="OUT.png", help="where to write the PNG (default docs/wiring-BOARD.png)")
    a = ap.parse_args(argv)
    img = draw_wiring(load_board(a.board))
    a.out = a.out or str(ROOT / "docs" / ("wiring-%s.png" % a.board))
    img.save(a.out, optimize=True)
    print("%s: %dx%d wiring diagram for %s" % (a.out, img.width, img.height, a.board))


# ---------------------------------------------------------------- keypad picture

BLOCK_HUES = ((231, 76, 60), (230, 126, 34), (241, 196, 15), (46, 204, 113), (26, 188, 156),
              (52, 152, 219), (155, 89, 182), (236, 112, 160), (149, 165, 166))


def _tint(c, k):
    return tuple(int(v * k + 255 * (1 - k)) for v in c)


def draw_keypad():
    """The key scheme: first key picks the 3x3 block, second the cell in it, # locks, * steps back."""
    from PIL import Image, ImageDraw
    W, H = 1400, 1020
    img = Image.new("RGB", (W, H), PAPER)
    d = ImageDraw.Draw(img)
    d.text((40, 44), "Entering a move: two keys and #", font=font(32, True), fill=INK, anchor="lm")
    d.text((40, 80), "the keys 1-9 are laid out like the board's 3×3 blocks, and like the cells inside each block",
           font=font(18), fill=(100, 104, 110), anchor="lm")
    # The keypad, each digit tinted with its block's colour.
    kx, ky, ks = 70, 140, 112
    d.rounded_rectangle((kx - 24, ky - 24, kx + 3 * ks + 24, ky + 4 * ks + 24), radius=22, fill=(40, 44, 50))
    legend = {"*": ("back", (120, 124, 130)), "0": ("", (90, 94, 100)), "#": ("lock", (60, 160, 90))}
    for k, ch in enumerate("123456789*0#"):
        r, c = divmod(k, 3)
        x, y = kx + c * ks, ky + r * ks
        if ch.isdigit() and ch != "0":
            fill, txt = _tint(BLOCK_HUES[int(ch) - 1], 0.55), INK
        else:
            fill, txt = legend[ch][1], (255, 255, 255)
        d.rounded_rectangle((x + 8, y + 8, x + ks - 8, y + ks - 8), radius=14, fill=fill)
        d.text((x + ks / 2, y + ks / 2 - (10 if ch in "*#" else 0)), ch, font=font(46, True), fill=txt, anchor="mm")
        if ch in "*#":
            d.text((x + ks / 2, y + ks / 2 + 28), legend[ch][0], font=font(17, True), fill=txt, anchor="mm")
    d.text((kx + 1.5 * ks, ky + 4 * ks + 56), "your hidden pad", font=font(18, True), fill=INK, anchor="mm")

    # The board: nine blocks in the keys' colours, each cell showing the key that picks it.
    bx, by, cs = 520, 150, 50
    cf, bf = font(20, True), font(130, True)
    for i in range(81):
        r, c = divmod(i, 9)
        blk = (r // 3) * 3 + c // 3
        x, y = bx + c * cs, by + r * cs
        d.rectangle((x, y, x + cs, y + cs), fill=_tint(BLOCK_HUES[blk], 0.22), outline=(210, 206, 198))
    # The block number as a big watermark behind its block, the cell numbers crisp on top.
    for b in range(9):
        r, c = divmod(b, 3)
        d.text((bx + c * 3 * cs + 1.5 * cs, by + r * 3 * cs + 1.5 * cs), str(b + 1), font=bf,
               fill=_tint(BLOCK_HUES[b], 0.45), anchor="mm")
    for i in range(81):
        r, c = divmod(i, 9)
        cell = (r % 3) * 3 + c % 3
        d.text((bx + c * cs + cs / 2, by + r * cs + cs / 2), str(cell + 1), font=cf, fill=(60, 62, 66), anchor="mm")
    for k in range(0, 10, 3):
        d.line((bx + k * cs, by, bx + k * cs, by + 9 * cs), fill=INK, width=3)
        d.line((bx, by + k * cs, bx + 9 * cs, by + k * cs), fill=INK, width=3)
    lf = font(17)
    for i in range(9):
        d.text((bx + i * cs + cs / 2, by - 16), COLS[i], font=lf, fill=(110, 110, 110), anchor="mm")
        d.text((bx - 16, by + i * cs + cs / 2), str(i + 1), font=lf, fill=(110, 110, 110), anchor="mm")
    # Worked examples, ringed on the board.
    ex = (("1 1 #", "a1"), ("1 9 #", "c3"), ("2 1 #", "d1"), ("5 5 #", "e5"), ("9 9 #", "i9"))
    for keys, sq in ex:
        c, r = COLS.index(sq[0]), int(sq[1]) - 1
        x, y = bx + c * cs + cs / 2, by + r * cs + cs / 2
        d.ellipse((x - 19, y - 19, x + 19, y + 19), outline=INK, width=4)
    tx = bx + 9 * cs + 50
    d.text((tx, by + 4), "Examples", font=font(22, True), fill=INK, anchor="lm")
    kf = mono(24, True)
    for i, (keys, sq) in enumerate(ex):
        yy = by + 50 + i * 44
        d.text((tx, yy), keys, font=kf, fill=INK, anchor="lm")
        d.text((tx + 110, yy), "→  %s" % sq, font=font(22, True), fill=INK, anchor="lm")
    rules = ["1st key: the block (big faint digit)", "2nd key: the cell in it (small digit)",
             "#  locks the move", "*  steps back one key,", "    or unlocks before the reveal"]
    for i, t in enumerate(rules):
        d.text((tx, by + 300 + i * 30), t, font=font(18), fill=INK, anchor="lm")
    # White sits opposite: the same scheme from white's seat is the board turned 180 degrees.
    y0 = 720
    d.line((40, y0 - 30, W - 40, y0 - 30), fill=(214, 210, 200), width=2)
    d.text((40, y0 + 10), "Pad B (white) sits opposite", font=font(24, True), fill=INK, anchor="lm")
    for i, t in enumerate(["Its 3×3 grid is turned 180° (PAD_B_ROTATED), so for",
                           "each player key 1 is the top-left block as seen",
                           "from their own seat. Seen from black's side,",
                           "white's blocks are numbered like this  →",
                           "",
                           "e5 is 5 5 # on both pads;",
                           "black's a1 (1 1 #) is white's 9 9 #."]):
        d.text((40, y0 + 50 + i * 28), t, font=font(18), fill=INK, anchor="lm")
    mx, my, ms = 640, y0 - 6, 28
    for i in range(81):
        r, c = divmod(i, 9)
        blk = 8 - ((r // 3) * 3 + c // 3)          # white's key for this block, seen from black's side
        x, y = mx + c * ms, my + r * ms
        d.rectangle((x, y, x + ms, y + ms), fill=_tint(BLOCK_HUES[blk], 0.22), outline=(210, 206, 198))
    for b in range(9):
        r, c = divmod(b, 3)
        k = 9 - b
        d.text((mx + c * 3 * ms + 1.5 * ms, my + r * 3 * ms + 1.5 * ms), str(k), font=font(40, True),
               fill=_tint(BLOCK_HUES[k - 1], 0.8), anchor="mm")
    for k in range(0, 10, 3):
        d.line((mx + k * ms, my, mx + k * ms, my + 9 * ms), fill=INK, width=2)
        d.line((mx, my + k * ms, mx + 9 * ms, my + k * ms), fill=INK, width=2)
    d.text((mx + 4.5 * ms, my - 14), "black's side", font=font(15), fill=(110, 110, 110), anchor="mm")
    d.text((mx + 4.5 * ms, my + 9 * ms + 16), "white's seat", font=font(15, True), fill=INK, anchor="mm")
    d.text((mx + 9 * ms + 20, my + 7.5 * ms), "← white's key 1", font=font(17, True), fill=INK, anchor="lm")
    return img


def keypad_main(argv):
    ap = argparse.ArgumentParser(prog="python -m tools.render keypad",
                                 description="Draw the key scheme picture (keys 1-9 -> blocks and cells, # lock, * back).")
    ap.add_argument("--out", metavar="OUT.png", help="where to write the PNG (default docs/keypad.png)")
    a = ap.parse_args(argv)
    img = draw_keypad()
    a.out = a.out or str(ROOT / "docs" / "keypad.png")
    img.save(a.out, optimize=True)
    print("%s: %dx%d key scheme" % (a.out, img.width, img.height))


# ---------------------------------------------------------------- terminal screenshot

def parse_ansi(text, default_fg=(204, 204, 204), default_bg=(24, 24, 28)):
    """A captured screen (`tmux capture-pane -e -p`) -> rows of (char, fg, bg, bold) cells; only SGR colour codes matter."""
    rows = []
    fgc, bgc, bold, dim = default_fg, default_bg, False, False
    for line in text.split("\n"):
        row = []
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "\x1b" and i + 1 < len(line) and line[i + 1] == "[":
                j = i + 2
                while j < len(line) and not ("\x40" <= line[j] <= "\x7e"):
                    j += 1
                if j < len(line) and line[j] == "m":
                    codes = [int(c) if c.isdigit() else 0 for c in line[i + 2:j].split(";")] or [0]
                    k = 0
                    while k < len(codes):
                        c = codes[k]
                        if c == 0:
                            fgc, bgc, bold, dim = default_fg, default_bg, False, False
                        elif c == 1:
                            bold = True
                        elif c == 2:
                            dim = True
                        elif c == 22:
                            bold = dim = False
                        elif c == 39:
                            fgc = default_fg
                        elif c == 49:
                            bgc = default_bg
                        elif c in (38, 48) and k + 4 < len(codes) and codes[k + 1] == 2:
                            rgb = tuple(codes[k + 2:k + 5])
                            if c == 38:
                                fgc = rgb
                            else:
                                bgc = rgb
                            k += 4
                        k += 1
                i = j + 1
                continue
            if ch == "\x1b":
                i += 2
                continue
            f = tuple(int(v * 0.6 + bgc[n] * 0.4) for n, v in enumerate(fgc)) if dim else fgc
            row.append((ch, f, bgc, bold))
            i += 1
        rows.append(row)
    while rows and not any(c[0].strip() or c[2] != default_bg for c in rows[-1]):
        rows.pop()
    return rows


def draw_terminal(text, cols=None, font_size=18):
    """Draw a captured terminal screen as a window screenshot (for the README)."""
    from PIL import Image, ImageDraw
    default_bg = (24, 24, 28)
    rows = parse_ansi(text, default_bg=default_bg)
    f, fb = mono(font_size), mono(font_size, True)
    cw = int(round(f.getlength("M")))
    ch = int(font_size * 1.32)
    ncols = cols or max(len(r) for r in rows)
    pad, bar = 16, 34
    W, H = ncols * cw + 2 * pad, len(rows) * ch + 2 * pad + bar
    img = Image.new("RGB", (W, H), default_bg)
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, W, bar), fill=(52, 52, 58))
    for k, c in enumerate(((237, 106, 94), (245, 191, 79), (98, 197, 84))):
        d.ellipse((14 + k * 22, bar / 2 - 6, 26 + k * 22, bar / 2 + 6), fill=c)
    d.text((W / 2, bar / 2), "python -m tools.sim", font=font(15), fill=(200, 200, 205), anchor="mm")
    for y, row in enumerate(rows):
        for x, (c, fgc, bgc, bold) in enumerate(row[:ncols]):
            px, py = pad + x * cw, bar + pad + y * ch
            if bgc != default_bg:
                d.rectangle((px, py, px + cw, py + ch), fill=bgc)
            if c.strip():
                if c == "●":
                    # Draw LEDs as discs: font glyphs for U+25CF vary a lot between systems.
                    r = cw * 0.42
                    cx, cy = px + cw / 2, py + ch / 2
                    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fgc)
                else:
                    d.text((px, py + ch / 2), c, font=fb if bold else f, fill=fgc, anchor="lm")
    return img


def terminal_main(argv):
    ap = argparse.ArgumentParser(prog="python -m tools.render terminal",
                                 description="Draw a captured terminal screen (tmux capture-pane -e -p > FILE) as a PNG.")
    ap.add_argument("capture", help="text with ANSI colour escapes")
    ap.add_argument("--out", required=True, metavar="OUT.png")
    ap.add_argument("--font-size", type=int, default=18)
    a = ap.parse_args(argv)
    try:
        text = Path(a.capture).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise RenderError("cannot read %s: %s" % (a.capture, e.strerror))
    img = draw_terminal(text, font_size=a.font_size)
    img.save(a.out, optimize=True)
    print("%s: %dx%d terminal screenshot" % (a.out, img.width, img.height))


# ---------------------------------------------------------------- a captioned game, straight from a key script

def record_script(path, board="pico", mode="2p", seed=0):
    """Play a key script on the firmware (tools.sim.Device) -> (frames [(t, pixels)], captions [(t, text)]).

    Lines starting with `;;` are captions (comments to the simulator): each
    shows from the moment the script reaches it, so captions stay in step with
    the game however the firmware's timing changes.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RenderError("cannot read script %s: %s" % (path, e.strerror))
    from tools.sim import fakehw
    from tools.sim import Device
    try:
        fakehw.parse_script(text)          # all errors up front, with the file's own line numbers
    except ValueError as e:
        raise RenderError("script %s: %s" % (path, e))
    frames, captions = [], []
    try:
        dev = Device(board=board, mode=mode, seed=seed, keep_frames=False,
                     on_frame=lambda t, px: frames.append((t, [tuple(c) for c in px])))
    except ValueError as e:
        raise RenderError(str(e))
    try:
        chunk = []
        for line in text.split("\n") + [";;"]:
            if line.strip().startswith(";;"):
                if chunk:
                    dev.run_script("\n".join(chunk))
                    chunk = []
                captions.append((frames[-1][0] if frames else 0, line.strip()[2:].strip()))
            else:
                chunk.append(line)
    finally:
        dev.close()
    if not frames:
        raise RenderError("script %s: the firmware wrote no frames" % path)
    return frames, captions[:-1]


def caption_frames(frames, captions):
    """[(t, pixels)] -> [(t, (pixels, caption))]: the caption last reached at each frame's time."""
    out, k, cap = [], 0, None
    for t, px in frames:
        while k < len(captions) and captions[k][0] <= t:
            cap = captions[k][1] or None
            k += 1
        out.append((t, (px, cap)))
    return out


def demo_main(argv):
    ap = argparse.ArgumentParser(
        prog="python -m tools.render demo",
        description="Play a key script on the real firmware (tools.sim.Device) and render it: a captioned GIF "
                    "(`;;` lines of the script are the captions) and/or a PNG of one moment.")
    ap.add_argument("script", help="key script, as for `python -m tools.sim --headless --script`")
    ap.add_argument("--board", default="pico")
    ap.add_argument("--mode", default="2p")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gif", metavar="OUT.gif")
    ap.add_argument("--png", metavar="OUT.png", help="one moment, without caption (see --at)")
    ap.add_argument("--at", type=float, metavar="MS", help="time of the PNG (default: the last frame)")
    ap.add_argument("--frames", metavar="OUT.jsonl", help="also save the recorded frames")
    ap.add_argument("--fps", type=float, default=8.0)
    ap.add_argument("--pitch", type=int, default=44)
    ap.add_argument("--png-pitch", type=int, default=56)
    ap.add_argument("--max-bytes", type=int, default=1_500_000)
    a = ap.parse_args(argv)
    if not (a.gif or a.png or a.frames):
        ap.error("nothing to do: give --gif, --png and/or --frames")
    load_board(a.board)
    frames, captions = record_script(a.script, a.board, a.mode, a.seed)
    print("%s: %d frames, %.1f s, %d captions" % (a.script, len(frames), frames[-1][0] / 1000.0, len(captions)))
    if a.frames:
        with open(a.frames, "w") as f:
            for t, px in frames:
                f.write(json.dumps({"t": t, "pixels": [list(c) for c in px]}, separators=(",", ":")) + "\n")
        print("%s: frames saved" % a.frames)
    if a.png:
        r = FrameRenderer(a.board, frames, pitch=a.png_pitch)
        t, px = frame_at(frames, a.at) if a.at is not None else frames[-1]
        r.image(px).save(a.png, optimize=True)
        print("%s: frame at t=%s ms" % (a.png, t))
    if a.gif:
        r = FrameRenderer(a.board, frames, pitch=a.pitch)
        r.panel = Panel(a.pitch, caption_band=True)
        s = sample(caption_frames(frames, captions), a.fps)
        size, n, dims = write_gif(r, s, a.gif, a.max_bytes)
        print("%s: %d distinct frames, %dx%d, %.1f s, %d bytes"
              % (a.gif, n, dims[0], dims[1], sum(d for _, d in s) / 1000.0, size))


# ---------------------------------------------------------------- CLI

def _frames_main(argv):
    ap = argparse.ArgumentParser(
        prog="python -m tools.render",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Render recorded LED frames (from `python -m tools.sim --headless --frames F.jsonl`)\n"
                    "to a PNG of the LED panel and/or an animated GIF.",
        epilog="other pictures:\n"
               "  python -m tools.render demo docs/demo-game.txt --gif docs/game.gif      a key script, played and captioned\n"
               "  python -m tools.render wiring --board pico --out docs/wiring-pico.png   wiring diagram from the board's pins\n"
               "  python -m tools.render keypad --out docs/keypad.png                     the key scheme\n"
               "  python -m tools.render terminal CAPTURE.txt --out OUT.png               a `tmux capture-pane -e -p` screen\n"
               "example:\n"
               "  python -m tools.sim --headless --mode 2p --script docs/demo-game.txt --frames /tmp/game.jsonl\n"
               "  python -m tools.render /tmp/game.jsonl --gif /tmp/game.gif --png /tmp/board.png --at 25500")
    ap.add_argument("frames", help="JSON lines file: {\"t\": ms, \"pixels\": [[r,g,b] x 83]} in strip order")
    ap.add_argument("--board", default="pico", help="board config the frames were recorded with (default pico)")
    ap.add_argument("--png", metavar="OUT.png", help="write one frame as a PNG")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--at", type=float, metavar="MS", help="the frame on the LEDs at this time (ms)")
    g.add_argument("--last", action="store_true", help="the last frame (default)")
    ap.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF")
    ap.add_argument("--fps", type=float, default=10.0, help="GIF sampling rate on the recording's clock (default 10)")
    ap.add_argument("--max-seconds", type=float, help="only the first S seconds of the recording")
    ap.add_argument("--max-bytes", type=int, default=1_500_000, help="shrink the GIF until it fits (default 1500000)")
    ap.add_argument("--pitch", type=int, default=56, help="pixels between LED centres (default 56)")
    a = ap.parse_args(argv)
    if not a.png and not a.gif:
        ap.error("nothing to do: give --png OUT.png and/or --gif OUT.gif")
    if a.pitch < 12:
        ap.error("--pitch must be at least 12")
    load_board(a.board)
    frames = load_frames(a.frames)
    r = FrameRenderer(a.board, frames, pitch=a.pitch)
    if a.png:
        t, px = frame_at(frames, a.at) if a.at is not None else frames[-1]
        r.image(px).save(a.png, optimize=True)
        print("%s: frame at t=%s ms of %d frames" % (a.png, t, len(frames)))
    if a.gif:
        s = sample(frames, a.fps, a.max_seconds)
        size, n, dims = write_gif(r, s, a.gif, a.max_bytes)
        print("%s: %d distinct frames, %dx%d, %.1f s, %d bytes"
              % (a.gif, n, dims[0], dims[1], sum(d for _, d in s) / 1000.0, size))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "wiring":
            wiring_main(argv[1:])
        elif argv and argv[0] == "keypad":
            keypad_main(argv[1:])
        elif argv and argv[0] == "terminal":
            terminal_main(argv[1:])
        elif argv and argv[0] == "demo":
            demo_main(argv[1:])
        else:
            _frames_main(argv)
    except RenderError as e:
        print("render: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:   # an output path that cannot be written
        print("render: error: cannot write %s: %s" % (e.filename or "output", e.strerror or e), file=sys.stderr)
        return 2
    return 0

