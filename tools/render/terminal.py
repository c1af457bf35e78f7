"""A captured terminal screen (`tmux capture-pane -e -p`) -> a window screenshot PNG (`python -m tools.render terminal`)."""
from pathlib import Path

from tools.render.common import RenderError, font, mono

def parse_ansi(text, default_fg=(204, 204, 204), default_bg=(24, 24, 28)):
    """A captured screen (`tmux capture-pane -e -p`) -> rows of (char, fg, bg, bold) cells; only SGR colour codes matter.

    Not pyte: pyte 0.8.2 drops SGR 2 (dim), which the simulator's hints use, and
    tmux has already done the terminal emulation; this is only SGR decoding.
    """
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


def draw_terminal(text, cols=None, font_size=18, title="./wts play"):
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
    d.text((W / 2, bar / 2), title, font=font(15), fill=(200, 200, 205), anchor="mm")
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


def add_parser(sub):
    p = sub.add_parser("terminal", help="a captured terminal screen -> PNG",
                       description="Draw a captured terminal screen (tmux capture-pane -e -p > FILE) as a PNG.")
    p.add_argument("capture", help="text with ANSI colour escapes")
    p.add_argument("--out", required=True, metavar="OUT.png")
    p.add_argument("--font-size", type=int, default=18)
    p.add_argument("--title", default="./wts play", help="the window's title bar (default: ./wts play)")
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    try:
        text = Path(a.capture).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise RenderError("cannot read %s: %s" % (a.capture, e.strerror))
    img = draw_terminal(text, font_size=a.font_size, title=a.title)
    img.save(a.out, optimize=True)
    print("%s: %dx%d terminal screenshot" % (a.out, img.width, img.height))
