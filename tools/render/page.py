"""Printed pages: a drawing recorded as a list of operations (so tests can measure every text box and fingerprint the content), DejaVu fonts, wrapped rich text, and the raster."""
import hashlib
import json
import os
import re

from tools.render.common import RenderError

DPI = 300
MM = DPI / 25.4          # pixels per millimetre
PT = DPI / 72.0          # pixels per point

# The DejaVu faces of Debian's fonts-dejavu-core (chromium pulls it in through fontconfig), and only those.
FACES = {"sans": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "mono": "DejaVuSansMono-Bold.ttf"}
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/local/share/fonts", "/usr/share/fonts/TTF",
             os.path.expanduser("~/.local/share/fonts"))


def font_path(face):
    """The file of one DejaVu face, or a RenderError saying which package to install."""
    name = FACES[face]
    for d in FONT_DIRS:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise RenderError("the printed sheets need the DejaVu fonts (%s not found in %s): on Debian/Ubuntu "
                      "`sudo apt-get install fonts-dejavu-core`" % (name, ", ".join(FONT_DIRS[:1])))


def fonts_id():
    """SHA-256 over the font files used: pictures are pixel-identical only with the same fonts."""
    h = hashlib.sha256()
    for face in sorted(FACES):
        with open(font_path(face), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


_CACHE = {}


def font(face, size):
    """A DejaVu face at `size` pixels, laid out by Pillow's basic engine (the same on every machine)."""
    from PIL import ImageFont
    key = (face, round(size, 2))
    if key not in _CACHE:
        _CACHE[key] = ImageFont.truetype(font_path(face), key[1], layout_engine=ImageFont.Layout.BASIC)
    return _CACHE[key]


def _r(v):
    return round(float(v), 2)


class Canvas:
    """Drawing operations in pixels at DPI, recorded in order; a group is a canvas placed (and maybe turned 180°) on its parent."""

    def __init__(self, w, h):
        self.w, self.h = w, h
        self.ops = []
        self.frame = (0, 0, w, h)     # where text must stay unless a call names its own frame

    def rect(self, box, fill=None, outline=None, width=1, radius=0):
        self.ops.append(("rect", tuple(_r(v) for v in box), fill, outline, _r(width), _r(radius)))

    def ellipse(self, box, fill=None, outline=None, width=1):
        self.ops.append(("ellipse", tuple(_r(v) for v in box), fill, outline, _r(width)))

    def pieslice(self, box, start, end, fill):
        self.ops.append(("pieslice", tuple(_r(v) for v in box), _r(start), _r(end), fill))

    def line(self, pts, fill, width):
        self.ops.append(("line", tuple((_r(x), _r(y)) for x, y in pts), fill, _r(width)))

    def polygon(self, pts, fill, outline=None):
        self.ops.append(("polygon", tuple((_r(x), _r(y)) for x, y in pts), fill, outline))

    def text(self, xy, s, face, size, fill, anchor="ls", frame=None, under=False):
        """Draw s at xy; returns its box. `frame` is the box it must stay inside (tests check it; default
        self.frame); `under` marks a watermark that other text may sit on."""
        f = font(face, size)
        x, y = _r(xy[0]), _r(xy[1])
        b = f.getbbox(s, anchor=anchor)
        box = (x + b[0], y + b[1], x + b[2], y + b[3])
        frame = tuple(_r(v) for v in (frame or self.frame))
        self.ops.append(("text", (x, y), s, face, _r(size), fill, anchor, frame, tuple(_r(v) for v in box), under))
        return box

    def width(self, s, face, size):
        return font(face, size).getlength(s)

    def group(self, box, rot180=False):
        """A sub-canvas filling box (x0, y0, x1, y1); its own coordinates start at (0, 0)."""
        sub = Canvas(box[2] - box[0], box[3] - box[1])
        self.ops.append(("group", tuple(_r(v) for v in box), bool(rot180), sub))
        return sub

    # ---- what the tests read

    def text_boxes(self):
        """[(text, box, frame, under)] in this canvas's coordinates, groups included (turned ones turned)."""
        out = []
        for op in self.ops:
            if op[0] == "text":
                out.append((op[2], op[8], op[7], op[9]))
            elif op[0] == "group":
                (x0, y0, x1, y1), rot, sub = op[1], op[2], op[3]
                for s, b, fr, u in sub.text_boxes():
                    out.append((s, _place(b, x0, y0, x1, y1, rot), _place(fr, x0, y0, x1, y1, rot), u))
        return out

    def record(self):
        """The drawing as plain data: equal records draw equal pages (given the same fonts)."""
        return [list(op[:3]) + [op[3].record()] if op[0] == "group" else list(op) for op in self.ops]

    def fingerprint(self):
        return hashlib.sha256(json.dumps(self.record(), ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def _place(b, x0, y0, x1, y1, rot):
    if rot:
        return (x1 - b[2], y1 - b[3], x1 - b[0], y1 - b[1])
    return (x0 + b[0], y0 + b[1], x0 + b[2], y0 + b[3])


def rasterize(canvas, paper=(255, 255, 255)):
    """The canvas as an RGB image at DPI."""
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (int(round(canvas.w)), int(round(canvas.h))), paper)
    d = ImageDraw.Draw(img)
    for op in canvas.ops:
        kind = op[0]
        if kind == "rect":
            box, fill, outline, width, radius = op[1:]
            if radius:
                d.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=int(round(width)))
            else:
                d.rectangle(box, fill=fill, outline=outline, width=int(round(width)))
        elif kind == "ellipse":
            d.ellipse(op[1], fill=op[2], outline=op[3], width=int(round(op[4])))
        elif kind == "pieslice":
            d.pieslice(op[1], op[2], op[3], fill=op[4])
        elif kind == "line":
            d.line(op[1], fill=op[2], width=int(round(op[3])), joint="curve")
        elif kind == "polygon":
            d.polygon(op[1], fill=op[2], outline=op[3])
        elif kind == "text":
            d.text(op[1], op[2], font=font(op[3], op[4]), fill=op[5], anchor=op[6])
        elif kind == "group":
            box, rot, sub = op[1], op[2], op[3]
            im = rasterize(sub, paper)
            if rot:
                im = im.rotate(180)
            img.paste(im, (int(round(box[0])), int(round(box[1]))))
    return img


# ---------------------------------------------------------------- rich text

def parse(markup):
    """'**bold** text, \\* a star' -> words, each a list of (text, bold) pieces; a non-breaking space stays inside a word."""
    chars = []
    bold = False
    i = 0
    while i < len(markup):
        if markup.startswith("\\*", i):
            chars.append(("*", bold))
            i += 2
        elif markup.startswith("**", i):
            bold = not bold
            i += 2
        else:
            chars.append((markup[i], bold))
            i += 1
    if bold:
        raise RenderError("unclosed ** in %r" % markup)
    words, cur = [], []
    for ch, b in chars + [(" ", False)]:
        if ch in " \n":
            if cur:
                words.append(_pieces(cur))
                cur = []
        else:
            cur.append((ch, b))
    return words


def _pieces(chars):
    out = []
    for ch, b in chars:
        if out and out[-1][1] == b:
            out[-1][0] += ch
        else:
            out.append([ch, b])
    return [(t, b) for t, b in out]


def _runs(words):
    """Words of one line -> runs [(text, bold)]; the space between two words takes the style of the one before."""
    flat = []
    for k, w in enumerate(words):
        if k:
            flat.append((" ", flat[-1][1]))
        flat.extend(w)
    runs = []
    for t, b in flat:
        if runs and runs[-1][1] == b:
            runs[-1] = (runs[-1][0] + t, b)
        else:
            runs.append((t, b))
    return runs


def run_width(runs, size):
    return sum(font("bold" if b else "sans", size).getlength(t) for t, b in runs)


def wrap(markup, width, size):
    """Rich text -> lines, each a list of runs [(text, bold)] no wider than width (a single longer word gets a line of its own)."""
    lines, cur = [], []
    for w in parse(markup):
        if cur and run_width(_runs(cur + [w]), size) > width:
            lines.append(_runs(cur))
            cur = [w]
        else:
            cur.append(w)
    if cur:
        lines.append(_runs(cur))
    return lines


def draw_runs(canvas, x, baseline, runs, size, fill, frame):
    for t, b in runs:
        canvas.text((x, baseline), t, "bold" if b else "sans", size, fill, "ls", frame)
        x += font("bold" if b else "sans", size).getlength(t)


def blocks(body):
    """A body text -> [("p", markup) | ("li", "-" or "1.", markup)], split at blank lines and list markers."""
    out = []
    para = []
    for line in body.strip().split("\n"):
        st = line.strip()
        m = re.match(r"^(-|\d+\.)\s+(.*)$", st)
        if not st or m:
            if para:
                out.append(("p", " ".join(para)))
                para = []
            if m:
                out.append(("li", m.group(1), m.group(2)))
        else:
            para.append(st)
    if para:
        out.append(("p", " ".join(para)))
    return out
