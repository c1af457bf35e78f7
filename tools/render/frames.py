"""Recorded LED frames -> a PNG of the lit panel and/or an animated GIF (`python -m tools.render frames`)."""
import argparse
import io
import json
import math
from pathlib import Path

from tools.render.common import (COLS, N_CELLS, N_PIXELS, RenderError, font, load_board, perceived,
                                 recording_exposure, text_c)


def load_frames(path):
    """Read a frames file (JSON lines {"t": ms, "pixels": [[r,g,b]*83]}) into a list of (t, pixels)."""
    p = Path(path)
    if not p.is_file():
        raise RenderError("frames file not found: %s (record one with: .venv/bin/python -m tools.sim --headless --script FILE --frames %s)" % (path, path))
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
            text_c(d, (cx, y0 - m * 0.45), COLS[i], lf, self.LABEL)
            text_c(d, (cx, y0 + 9 * p + m * 0.45), COLS[i], lf, self.LABEL)
            cy = y0 + i * p + p / 2
            text_c(d, (x0 - m * 0.5, cy), str(i + 1), lf, self.LABEL)
            text_c(d, (x0 + 9 * p + m * 0.5, cy), str(i + 1), lf, self.LABEL)
        # Each player's status LED sits on their own edge: B (white) far side, A (black) near side.
        sf = font(max(8, int(p * 0.24)))
        hb = self.h - self.band
        self.status_xy = ((self.w / 2, hb - sb * 0.55), (self.w / 2, sb * 0.55))
        text_c(d, (self.w / 2 + p * 1.3, hb - sb * 0.55), "A · black", sf, self.LABEL)
        text_c(d, (self.w / 2 + p * 1.3, sb * 0.55), "B · white", sf, self.LABEL)
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
            text_c(d, (self.w / 2, y + i * lh), line, f, (214, 220, 214))


class FrameRenderer:
    """Strip-ordered frames of one recording -> panel images, with one exposure for the whole recording."""

    def __init__(self, board_name, frames, pitch=56, mapper=None):
        board = load_board(board_name)
        self.gamma = float(getattr(board, "GAMMA", 2.2)) or 1.0
        self.mapper = mapper or cell_mapper(board_name)
        self.exposure = recording_exposure(frames, self.gamma)
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




# ---------------------------------------------------------------- `frames` subcommand

def add_parser(sub):
    p = sub.add_parser(
        "frames", help="recorded LED frames -> PNG of the panel and/or animated GIF",
        description="Render recorded LED frames (from `python -m tools.sim --headless --frames F.jsonl`) "
                    "to a PNG of the LED panel and/or an animated GIF.",
        epilog="example:\n"
               "  .venv/bin/python -m tools.sim --headless --mode 2p --script docs/demo-game.txt --frames /tmp/game.jsonl\n"
               "  .venv/bin/python -m tools.render frames /tmp/game.jsonl --gif /tmp/game.gif --png /tmp/board.png --at 25500",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("frames", help="JSON lines file: {\"t\": ms, \"pixels\": [[r,g,b] x 83]} in strip order")
    p.add_argument("--board", default="pico", help="board config the frames were recorded with (default pico)")
    p.add_argument("--png", metavar="OUT.png", help="write one frame as a PNG")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--at", type=float, metavar="MS", help="the frame on the LEDs at this time (ms)")
    g.add_argument("--last", action="store_true", help="the last frame (default)")
    p.add_argument("--gif", metavar="OUT.gif", help="write an animated GIF")
    p.add_argument("--fps", type=float, default=10.0, help="GIF sampling rate on the recording's clock (default 10)")
    p.add_argument("--max-seconds", type=float, help="only the first S seconds of the recording")
    p.add_argument("--max-bytes", type=int, default=1_500_000, help="shrink the GIF until it fits (default 1500000)")
    p.add_argument("--pitch", type=int, default=56, help="pixels between LED centres (default 56)")
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    if not a.png and not a.gif:
        a.parser.error("nothing to do: give --png OUT.png and/or --gif OUT.gif")
    if a.pitch < 12:
        a.parser.error("--pitch must be at least 12")
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
