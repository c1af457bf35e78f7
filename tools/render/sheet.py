"""The printed classroom kit: a one-page rule sheet and a key card per language and paper, from docs/sheet/<lang>.toml (`python -m tools.render sheet`)."""
import argparse
import hashlib
import os
import tomllib

from tools import ROOT
from tools.render.common import COLS, RenderError
from tools.render.page import MM, PT, Canvas, blocks, draw_runs, fonts_id, rasterize, wrap
from tools.render.pdf import PAPER_PT, write_pdf

SOURCE = ROOT / "docs" / "sheet"
OUT_DIR = ROOT / "docs" / "print"
PAPERS = tuple(PAPER_PT)
KINDS = ("rules", "keycard")
PREVIEW_DPI = 150            # the PNGs the docs show (the PDFs are 300 dpi)

INK = (30, 33, 40)
GREY = (95, 100, 108)
RULE = (200, 196, 186)
PAPER = (255, 255, 255)
BLACK_PIECE = (36, 39, 48)
WHITE_PIECE = (255, 255, 255)
EGG_FILL = (245, 170, 60)
EGG_EDGE = (150, 90, 20)
NEW = (20, 150, 80)          # green: a piece new this turn, the row of five
CAPTURED = (215, 40, 40)
CELL_LIGHT = (246, 243, 236)
CELL_DARK = (232, 228, 218)
BLOCK_HUES = ((231, 76, 60), (230, 126, 34), (241, 196, 15), (46, 204, 113), (26, 188, 156),
              (52, 152, 219), (155, 89, 182), (236, 112, 160), (149, 165, 166))

MARGIN = 10 * MM
MIN_PT = 7.5                 # the smallest body type the layouts shrink to; a text needing less is refused


def type_sizes(top):
    """Body sizes in points to try, largest first: top, top - 0.2, ... down to MIN_PT."""
    out, k = [], 0
    while round(top - 0.2 * k, 1) >= MIN_PT:
        out.append(round(top - 0.2 * k, 1))
        k += 1
    return out


# ---------------------------------------------------------------- the message tables

def languages():
    """The languages with a message table: the stems of docs/sheet/*.toml."""
    return sorted(p.stem for p in SOURCE.glob("*.toml"))


class Table(dict):
    """One table of a message file; a missing key is a RenderError naming the file, and every key read is noted."""

    def __init__(self, path, name, items):
        super().__init__(items)
        self.where = "%s [%s]" % (path, name)
        self.used = set()

    def __getitem__(self, key):
        if key not in self:
            raise RenderError("%s has no message %r" % (self.where, key))
        self.used.add(key)
        return dict.__getitem__(self, key)


def messages(lang):
    """{"rules": Table, "card": Table} for one language, or a RenderError naming the choices."""
    p = SOURCE / ("%s.toml" % lang)
    if not p.is_file():
        raise RenderError("no message table for language %r (have: %s)" % (lang, ", ".join(languages())))
    try:
        with p.open("rb") as f:
            m = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise RenderError("%s: %s" % (p, e))
    for table in ("rules", "card"):
        if not isinstance(m.get(table), dict):
            raise RenderError("%s: no [%s] table" % (p, table))
        for k, v in m[table].items():
            if not isinstance(v, str):
                raise RenderError("%s [%s] %s: a message is a string, not %s" % (p, table, k, type(v).__name__))
    return {t: Table(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p, t, m[t]) for t in ("rules", "card")}


def message_keys(lang):
    m = messages(lang)
    return {"%s.%s" % (t, k) for t in ("rules", "card") for k in m[t]}


# ---------------------------------------------------------------- the example positions, played on the engine

# (name, rows top to bottom in RULES.md board text, eggs oldest first, black's move, white's move,
#  window: first column, first row, columns, rows). The captions in the message tables describe these.
EXAMPLES = (
    ("egg", (".........", ".........", ".........", "..e......", "...B.W...", ".........", ".........",
             ".........", "........."), ("c4",), "e5", "e5", (1, 3, 6, 3)),
    ("capture", (".........", ".........", ".........", ".........", ".BWW.....", "...B.WB..", ".........",
                 ".........", "........."), (), "e5", "e6", (1, 4, 6, 3)),
    ("hatch", (".........", ".BWW.....", ".....e...", "..e......", ".........", ".........", ".........",
               ".........", "........."), ("c4", "f3"), "e2", "g4", (1, 1, 6, 3)),
    ("five", (".........", ".........", ".........", ".........", ".........", "..W.W....", ".BBB.B...",
              "...W.....", "........."), (), "e7", "g6", (1, 5, 6, 3)),
)
FIGURE_OF = {"egg": "fig_egg", "capture": "fig_capture", "hatch": "fig_hatch", "five": "fig_five"}


def play_example(ex):
    """One example on the engine -> {"before", "after": 81 values, "eggs_before"/"eggs_after": cells oldest first,
    "new_before"/"new_after": cells new this turn, "captured", "winning": cells, "collision": cell or None}."""
    from engine import EGG, EV_CAPTURED, EV_EGG, EV_HATCH, EV_PLACE, EV_VANISH, Game, parse_square
    name, rows, eggs, mb, mw, _ = ex
    cells = [".BWe".index(ch) for row in rows for ch in row]
    g = Game()
    g.set_position(cells, [parse_square(e) for e in eggs])
    b, w = parse_square(mb), parse_square(mw)
    g.play(b, w)
    out = {"before": list(cells), "eggs_before": [parse_square(e) for e in eggs], "captured": [],
           "new_after": [], "collision": None, "vanished": []}
    log = [(g.log[i], g.log[i + 1], g.log[i + 2]) for i in range(0, g.log_len, 3)]
    for op, a, c in log:
        if op == EV_PLACE:
            out["new_after"] += [a, c]
        elif op == EV_EGG:
            out["collision"] = a
            out["new_after"].append(a)
        elif op == EV_CAPTURED:
            out["captured"].append(a)
        elif op == EV_HATCH:
            out["new_after"].append(a)
        elif op == EV_VANISH:
            out["vanished"].append(a)
    if out["collision"] is None:
        out["before"][b], out["before"][w] = 1, 2
    out["new_before"] = [b] if b == w else [b, w]
    out["after"] = [g.cell(i) for i in range(81)]
    out["eggs_after"] = [g.egg(k) for k in range(g.egg_count)]
    out["winning"] = [i for i in range(81) if g.is_winning(i)]
    out["new_after"] = [i for i in out["new_after"] if out["after"][i] != 0]
    out["result"] = g.result
    if any(v == EGG for v in out["after"]) != bool(out["eggs_after"]):
        raise RenderError("example %s: the egg order does not match the board" % name)
    return out


def window_cells(ex):
    c0, r0, nc, nr = ex[5]
    return [(r0 + r) * 9 + c0 + c for r in range(nr) for c in range(nc)]


# ---------------------------------------------------------------- drawing pieces and boards

def draw_piece(cv, cx, cy, r, v, egg_no=None, split=False):
    """v: 1 black turtle, 2 white turtle, 3 egg (numbered by its place in the egg order)."""
    lw = max(2.0, r * 0.12)
    if split:   # both chose this cell: half black, half white
        cv.pieslice((cx - r, cy - r, cx + r, cy + r), 90, 270, BLACK_PIECE)
        cv.pieslice((cx - r, cy - r, cx + r, cy + r), 270, 90, WHITE_PIECE)
        cv.ellipse((cx - r, cy - r, cx + r, cy + r), None, BLACK_PIECE, lw)
    elif v == 1:
        cv.ellipse((cx - r, cy - r, cx + r, cy + r), BLACK_PIECE, BLACK_PIECE, lw)
    elif v == 2:
        cv.ellipse((cx - r, cy - r, cx + r, cy + r), WHITE_PIECE, BLACK_PIECE, lw)
    elif v == 3:
        rx, ry = r * 0.78, r * 0.98
        cv.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), EGG_FILL, EGG_EDGE, lw)
        if egg_no is not None:
            cv.text((cx, cy + r * 0.06), str(egg_no), "bold", r * 1.05, INK, "mm")


def draw_ring(cv, cx, cy, r):
    cv.ellipse((cx - r, cy - r, cx + r, cy + r), None, NEW, max(3.0, r * 0.16))


def draw_cross(cv, cx, cy, r):
    w = max(3.0, r * 0.22)
    cv.line(((cx - r, cy - r), (cx + r, cy + r)), CAPTURED, w)
    cv.line(((cx - r, cy + r), (cx + r, cy - r)), CAPTURED, w)


def board_size(ex, cell):
    """(width, height) of one cropped board with its coordinate labels."""
    _, _, nc, nr = ex[5]
    return cell * (nc + 0.7), cell * (nr + 0.7)


def draw_board(cv, x, y, cell, ex, values, eggs, new=(), captured=(), winning=(), split=None):
    """A cropped board: light and dark 3x3 blocks as on the LED panel, column letters above, row numbers left."""
    c0, r0, nc, nr = ex[5]
    lab = cell * 0.7
    bx, by = x + lab, y + lab
    lf = cell * 0.42
    for c in range(nc):
        cv.text((bx + (c + 0.5) * cell, by - lab * 0.45), COLS[c0 + c], "sans", lf, GREY, "mm")
    for r in range(nr):
        cv.text((bx - lab * 0.5, by + (r + 0.5) * cell), str(r0 + r + 1), "sans", lf, GREY, "mm")
    from firmware.scene import LIGHT      # the blocks whose empty cells glow faintly on the LED panel
    for r in range(nr):
        for c in range(nc):
            light = LIGHT[(r0 + r) * 9 + c0 + c]
            cv.rect((bx + c * cell, by + r * cell, bx + (c + 1) * cell, by + (r + 1) * cell),
                    CELL_LIGHT if light else CELL_DARK, RULE, 2)
    cv.rect((bx, by, bx + nc * cell, by + nr * cell), None, GREY, 3)

    def centre(i):
        return bx + (i % 9 - c0 + 0.5) * cell, by + (i // 9 - r0 + 0.5) * cell
    if winning:
        ends = sorted(winning)
        step = (ends[-1] - ends[0]) // max(1, len(ends) - 1)
        if ends != list(range(ends[0], ends[-1] + 1, step or 1)):
            raise RenderError("example %s: the winning turtles are not one straight row" % ex[0])
        (xa, ya), (xz, yz) = centre(ends[0]), centre(ends[-1])
        cv.line(((xa, ya), (xz, yz)), NEW, cell * 0.5)
    inside = set(window_cells(ex))
    for i in sorted(inside):
        cx, cy = centre(i)
        r = cell * 0.34
        if i == split:
            draw_piece(cv, cx, cy, r, 0, split=True)
        elif values[i]:
            draw_piece(cv, cx, cy, r, values[i], eggs.index(i) + 1 if values[i] == 3 else None)
        if i in new:
            draw_ring(cv, cx, cy, cell * 0.46)
        if i in captured:
            draw_cross(cv, cx, cy, cell * 0.26)
    missing = [i for i in list(new) + list(captured) + list(winning) if i not in inside]
    if missing:
        raise RenderError("example %s: cells %s lie outside its window" % (ex[0], missing))


def figure(ex, m, width, size):
    """An example as (height, draw(cv, x, y, frame)): the moves -> after the turn, caption under."""
    res = play_example(ex)
    bw, bh = board_size(ex, 1.0)
    arrow = 1.6
    cell = min(5.4 * MM, width / (2 * bw + arrow))
    bw, bh = bw * cell, bh * cell
    head = size * 1.25
    caption = wrap(m["rules"][FIGURE_OF[ex[0]]], width, size * 0.92)
    lead = size * 0.92 * 1.25
    height = head + bh + size * 0.4 + lead * len(caption)

    def draw(cv, x, y, frame):
        x0 = x + (width - 2 * bw - arrow * cell) / 2
        xs = (x0, x0 + bw + arrow * cell)
        for k, key in enumerate(("before", "after")):
            cv.text((xs[k] + bw / 2 + cell * 0.35, y + head * 0.75), m["rules"][key], "bold", size * 0.85, GREY, "ms",
                    frame)
        cv.frame, outer = frame, cv.frame
        yb = y + head
        draw_board(cv, xs[0], yb, cell, ex, res["before"], res["eggs_before"], new=res["new_before"],
                   split=res["collision"])
        draw_board(cv, xs[1], yb, cell, ex, res["after"], res["eggs_after"], new=res["new_after"],
                   captured=res["captured"], winning=res["winning"])
        ax0, ax1 = xs[0] + bw + cell * 0.25, xs[1] - cell * 0.05
        ay = yb + cell * 0.7 + ex[5][3] * cell / 2
        cv.line(((ax0, ay), (ax1 - cell * 0.3, ay)), GREY, cell * 0.12)
        cv.polygon(((ax1, ay), (ax1 - cell * 0.45, ay - cell * 0.25), (ax1 - cell * 0.45, ay + cell * 0.25)), GREY)
        ty = yb + bh + size * 0.4 + lead * 0.8
        for line in caption:
            draw_runs(cv, x, ty, line, size * 0.92, GREY, frame)
            ty += lead
        cv.frame = outer
    return height, draw


# ---------------------------------------------------------------- the rule sheet

SECTIONS = (("goal", None), ("turn", None), ("egg", "egg"), ("capture", "capture"), ("hatch", "hatch"),
            ("win", "five"), ("sudden", None), ("draw", None))


def _units(m, width, size):
    """The sheet's body as flow units: (height, gap before, keep with next, draw(cv, x, y, frame))."""
    lead = size * 1.24
    hsize = size * 1.22
    units = []
    examples = {ex[0]: ex for ex in EXAMPLES}
    for key, fig in SECTIONS:
        def head(cv, x, y, frame, t=m["rules"][key + "_h"]):
            cv.rect((x, y + hsize * 0.22, x + hsize * 0.28, y + hsize * 1.2), NEW)
            cv.text((x + hsize * 0.55, y + hsize * 1.05), t, "bold", hsize, INK, "ls", frame)
        units.append((hsize * 1.45, size * 0.9, True, head))
        for blk in blocks(m["rules"][key]):
            indent = 0 if blk[0] == "p" else size * 1.5
            text = blk[-1]
            lines = wrap(text, width - indent, size)
            for n, line in enumerate(lines):
                def draw(cv, x, y, frame, line=line, blk=blk, n=n, indent=indent):
                    if blk[0] == "li" and n == 0:
                        mark = "•" if blk[1] == "-" else blk[1]
                        cv.text((x + indent * 0.15, y + lead * 0.8), mark, "bold", size, NEW if mark == "•" else INK,
                                "ls", frame)
                    draw_runs(cv, x + indent, y + lead * 0.8, line, size, INK, frame)
                gap = (size * 0.45 if blk[0] == "p" else size * 0.2) if n == 0 else 0
                units.append((lead, gap, n == 0 and len(lines) > 1, draw))
        if fig:
            h, draw = figure(examples[fig], m, width, size)
            units.append((h, size * 0.6, False, draw))
    return units


def _flow(units, cols, top, bottom):
    """Place units into columns [(x, width)] from top to bottom -> [(unit, x, y)] or None if they do not fit."""
    placed = []
    k, y = 0, top
    i = 0
    while i < len(units):
        h, gap, keep, _ = units[i]
        g = gap if y > top else 0
        need = g + h + (units[i + 1][0] + units[i + 1][1] if keep and i + 1 < len(units) else 0)
        if y + need > bottom:
            k += 1
            if k == len(cols):
                return None
            y = top
            continue
        placed.append((units[i], cols[k], y + g))
        y += g + h
        i += 1
    return placed


def legend(cv, m, x, y, width, size, frame):
    """The pieces and marks, in a row (wrapping), then the LED colours. Returns the y under it."""
    r = size * 0.55
    items = (("black", m["rules"]["legend_black"]), ("white", m["rules"]["legend_white"]),
             ("egg", m["rules"]["legend_egg"]), ("new", m["rules"]["legend_move"]),
             ("x", m["rules"]["legend_captured"]), ("line", m["rules"]["legend_line"]))
    cx, lead = x, size * 1.9
    cy = y + lead / 2
    for kind, text in items:
        w = r * 2.6 + cv.width(text, "sans", size) + size * 1.6
        if cx + w > x + width:
            cx, cy = x, cy + lead
        ix = cx + r
        if kind == "black":
            draw_piece(cv, ix, cy, r, 1)
        elif kind == "white":
            draw_piece(cv, ix, cy, r, 2)
        elif kind == "egg":
            draw_piece(cv, ix, cy, r, 3, 1)
        elif kind == "new":
            draw_piece(cv, ix, cy, r * 0.72, 1)
            draw_ring(cv, ix, cy, r)
        elif kind == "x":
            draw_cross(cv, ix, cy, r * 0.7)
        else:
            cv.line(((ix - r * 1.1, cy), (ix + r * 1.1, cy)), NEW, r * 0.9)
        cv.text((cx + r * 2.6, cy + size * 0.36), text, "sans", size, INK, "ls", frame)
        cx += w
    cy += lead * 0.5
    for line in wrap(m["rules"]["leds"], width, size):
        cy += size * 1.3
        draw_runs(cv, x, cy, line, size, GREY, frame)
    return cy + size * 0.6


def page_px(paper):
    pw, ph = PAPER_PT[paper]
    return pw * PT, ph * PT


def rules_canvas(lang, paper, m=None):
    """The one-page rule sheet; the body's type size is the largest that fits the page (RenderError if none does).
    m: the language's messages (default: read them)."""
    m = m or messages(lang)
    W, H = page_px(paper)
    inner = (MARGIN, MARGIN, W - MARGIN, H - MARGIN)
    for pt in type_sizes(9.6):
        size = pt * PT
        cv = Canvas(W, H)
        cv.frame = inner
        x0, y0, x1, y1 = inner
        # Title and subtitle.
        tsize = 20 * PT
        cv.text((x0, y0 + tsize * 0.8), m["rules"]["title"], "bold", tsize, INK, "ls", inner)
        y = y0 + tsize * 1.05
        for line in wrap(m["rules"]["subtitle"], x1 - x0, size * 1.1):
            y += size * 1.1 * 1.3
            draw_runs(cv, x0, y, line, size * 1.1, GREY, inner)
        y += size * 0.7
        cv.line(((x0, y), (x1, y)), NEW, 0.6 * MM)
        y = legend(cv, m, x0, y + size * 0.3, x1 - x0, size * 0.95, inner)
        # Footer, from the bottom up.
        fsize = size * 0.85
        flines = wrap(m["rules"]["footer"], x1 - x0, fsize)
        fy = y1 - fsize * 0.3 - fsize * 1.3 * (len(flines) - 1)
        bottom = fy - fsize * 1.3 - size * 0.8
        gutter = 7 * MM
        cw = (x1 - x0 - gutter) / 2
        cols = ((x0, cw), (x0 + cw + gutter, cw))
        placed = _flow(_units(m, cw, size), cols, y + size * 0.2, bottom)
        if placed is None:
            continue
        for line in flines:
            draw_runs(cv, x0, fy, line, fsize, GREY, inner)
            fy += fsize * 1.3
        cv.line(((x0, bottom + size * 0.4), (x1, bottom + size * 0.4)), RULE, 2)
        for (h, _, _, draw), (cx, cwid), uy in placed:
            draw(cv, cx, uy, (cx, uy, cx + cwid, uy + h))
        cv.size_pt = pt
        return cv
    raise RenderError("the %s rule sheet does not fit on one %s page even at %s pt: shorten docs/sheet/%s.toml"
                      % (lang, paper, MIN_PT, lang))


# ---------------------------------------------------------------- the key card

def cell_for_digits(block, cell, rotated):
    """The board cell a pad types with these two digits (asks the firmware: firmware/entry.py keys_for)."""
    from firmware.entry import keys_for
    want = "%d%d#" % (block, cell)
    for i in range(81):
        if keys_for(i, rotated) == want:
            return i
    raise RenderError("no cell is typed %s" % want)


def _tint(c, k):
    return tuple(int(v * k + 255 * (1 - k)) for v in c)


def keypad_picture(cv, x, y, key, m, frame):
    """The 3x4 pad: digits in their block's colour, * back, # lock."""
    from firmware.keypad import KEYS_3X4
    for k, ch in enumerate(KEYS_3X4):
        r, c = divmod(k, 3)
        bx, by = x + c * key, y + r * key
        if ch in "123456789":
            fill, txt = _tint(BLOCK_HUES[int(ch) - 1], 0.5), INK
        elif ch == "#":
            fill, txt = NEW, PAPER
        else:
            fill, txt = (120, 124, 130) if ch == "*" else (200, 200, 200), PAPER
        cv.rect((bx + key * 0.07, by + key * 0.07, bx + key * 0.93, by + key * 0.93), fill, None, 1, key * 0.14)
        if ch in "*#":
            cv.text((bx + key / 2, by + key * 0.44), ch, "bold", key * 0.42, txt, "mm", frame)
            word = m["card"]["star" if ch == "*" else "hash"]
            cv.text((bx + key / 2, by + key * 0.78), word, "bold", key * 0.17, txt, "mm", frame)
        else:
            cv.text((bx + key / 2, by + key / 2), ch, "bold", key * 0.42, txt, "mm", frame)


def key_board(cv, x, y, cell, rotated, frame):
    """The board from the player's seat: each block in its key's colour with the key as a big digit, each cell's key small."""
    from firmware.entry import keys_for
    lab = cell * 0.55

    def index(r, c):           # display row/col -> board cell (turned 180° for the player opposite)
        return (8 - r) * 9 + (8 - c) if rotated else r * 9 + c
    bx, by = x + lab, y + lab
    for r in range(9):
        for c in range(9):
            blk = int(keys_for(index(r, c), rotated)[0])
            cv.rect((bx + c * cell, by + r * cell, bx + (c + 1) * cell, by + (r + 1) * cell),
                    _tint(BLOCK_HUES[blk - 1], 0.2), (215, 210, 200), 2)
    for br in range(3):
        for bc in range(3):
            blk = keys_for(index(br * 3 + 1, bc * 3 + 1), rotated)[0]
            cv.text((bx + (bc * 3 + 1.5) * cell, by + (br * 3 + 1.5) * cell), blk, "bold", cell * 2.3,
                    _tint(BLOCK_HUES[int(blk) - 1], 0.45), "mm", frame, under=True)
    for r in range(9):
        for c in range(9):
            cv.text((bx + (c + 0.5) * cell, by + (r + 0.5) * cell), keys_for(index(r, c), rotated)[1], "bold",
                    cell * 0.42, (70, 72, 78), "mm", frame)
    for k in range(0, 10, 3):
        cv.line(((bx + k * cell, by), (bx + k * cell, by + 9 * cell)), INK, 4)
        cv.line(((bx, by + k * cell), (bx + 9 * cell, by + k * cell)), INK, 4)
    for k in range(9):
        i = index(0, k)
        cv.text((bx + (k + 0.5) * cell, by - lab * 0.5), COLS[i % 9], "sans", cell * 0.38, GREY, "mm", frame)
        i = index(k, 0)
        cv.text((bx - lab * 0.5, by + (k + 0.5) * cell), str(i // 9 + 1), "sans", cell * 0.38, GREY, "mm", frame)
    return bx, by


def keyboard_picture(cv, x, y, key, width, pad, m, size):
    """The keyboard keys that stand for this pad in the terminal simulator (tools/sim/terminal.py), headed by
    words wrapped to `width`."""
    from tools.sim.terminal import PAD_A_KEYS, PAD_B_KEYS
    keys = {v: k for k, v in (PAD_A_KEYS if pad == "A" else PAD_B_KEYS).items()}
    for text, colour in (("**%s**" % m["card"]["keyboard"], INK), (m["card"]["keyboard_a" if pad == "A" else
                                                                     "keyboard_b"], GREY)):
        for line in wrap(text, width, size):
            y += size * 1.3
            draw_runs(cv, x, y, line, size, colour, cv.frame)
    y += size * 0.6
    rows = (("*", "0", "#"), ("1", "2", "3"), ("4", "5", "6"), ("7", "8", "9"))
    for r, row in enumerate(rows):
        for c, d in enumerate(row):
            if d is None or d not in keys:
                continue
            bx, by = x + c * key, y + r * key
            fill = (_tint(BLOCK_HUES[int(d) - 1], 0.3) if d.isdigit() and d != "0" else
                    (225, 225, 225) if d in "*0" else _tint(NEW, 0.35))
            cv.rect((bx + key * 0.06, by + key * 0.06, bx + key * 0.94, by + key * 0.94), fill, GREY, 2, key * 0.12)
            cv.text((bx + key * 0.5, by + key * 0.5), keys[d], "mono", key * 0.46, INK, "mm")
            cv.text((bx + key * 0.86, by + key * 0.84), d, "bold", key * 0.2, GREY, "rs")
    return y + 4 * key


def card_half(cv, m, pad, size):
    """One player's half of the key card; returns False if its text does not fit."""
    W, H = cv.w, cv.h
    frame = cv.frame = (MARGIN, MARGIN * 0.8, W - MARGIN, H - MARGIN * 0.8)
    x0, y0, x1, y1 = frame
    rotated = pad == "B"
    tsize = size * 1.9
    cv.text((x0, y0 + tsize * 0.85), m["card"]["title"], "bold", tsize, INK, "ls", frame)
    seat = m["card"]["seat_a" if pad == "A" else "seat_b"]
    r = tsize * 0.32
    sw = cv.width(seat, "bold", size * 1.2)
    cv.text((x1, y0 + tsize * 0.85), seat, "bold", size * 1.2, INK, "rs", frame)
    draw_piece(cv, x1 - sw - r * 2, y0 + tsize * 0.85 - size * 0.42, r, 1 if pad == "A" else 2)
    top = y0 + tsize * 1.4
    cv.line(((x0, top), (x1, top)), NEW, 0.5 * MM)
    top += size
    avail = y1 - top
    # Left: the pad and the keyboard keys; middle: the board; right: the words.
    key = min(13 * MM, avail / 9.2)
    keypad_picture(cv, x0, top, key, m, frame)
    kb = keyboard_picture(cv, x0, top + 4 * key + size * 0.2, key * 0.78, 3 * key + 4 * MM, pad, m, size * 0.85)
    cell = min(7.2 * MM, (avail - size * 2.2) / 9.55)
    bx0 = x0 + 3 * key + 7 * MM
    cv.text((bx0 + cell * 0.55 + 4.5 * cell, top + size * 0.8), m["card"]["board_side"], "bold", size * 0.85, GREY,
            "ms", frame)
    key_board(cv, bx0, top + size * 1.4, cell, rotated, frame)
    tx = bx0 + cell * 9.55 + 6 * MM
    tw = x1 - tx
    y = top
    lead = size * 1.3

    def para(text, colour=INK, s=size):
        nonlocal y
        for line in wrap(text, tw, s):
            y += s * 1.3
            draw_runs(cv, tx, y, line, s, colour, frame)
        y += s * 0.45
    for k in ("block", "cell", "lock", "back"):
        para(m["card"][k])
    y += size * 0.3
    cv.text((tx, y + lead), m["card"]["examples"], "bold", size, INK, "ls", frame)
    y += lead * 1.1
    for blk, cl in ((1, 1), (1, 9), (2, 1), (5, 5), (9, 9)):
        i = cell_for_digits(blk, cl, rotated)
        y += lead
        cv.text((tx, y), "%d %d #" % (blk, cl), "mono", size, INK, "ls", frame)
        cv.text((tx + cv.width("0 0 #  ", "mono", size), y), "→ " + COLS[i % 9] + str(i // 9 + 1), "bold", size,
                INK, "ls", frame)
    y += size * 0.8
    notes = ("turned", "side_by_side", "secret") if rotated else ("secret", "menu")
    for k in notes:
        para(m["card"][k], GREY, size * 0.9)
    return y <= y1 and kb <= y1


def keycard_canvas(lang, paper, m=None):
    """Both players' key cards on one page: pad A's half upright at the bottom, pad B's turned 180° at the top,
    so the page lies between the players and each reads their own."""
    m = m or messages(lang)
    W, H = page_px(paper)
    for pt in type_sizes(10.0):
        size = pt * PT
        cv = Canvas(W, H)
        b = cv.group((0, 0, W, H / 2), rot180=True)
        a = cv.group((0, H / 2, W, H))
        if not (card_half(b, m, "B", size) and card_half(a, m, "A", size)):
            continue
        cut = m["card"]["cut"]
        fs = size * 0.75
        tw = cv.width(cut, "sans", fs)
        for x in range(int(MARGIN), int(W - MARGIN), int(4 * MM)):
            if not (W / 2 - tw / 2 - 3 * MM < x < W / 2 + tw / 2 + 2 * MM):
                cv.line(((x, H / 2), (x + 2 * MM, H / 2)), GREY, 2)
        cv.text((W / 2, H / 2), cut, "sans", fs, GREY, "mm", (MARGIN, MARGIN, W - MARGIN, H - MARGIN))
        cv.size_pt = pt
        return cv
    raise RenderError("the %s key card does not fit on a %s page even at %s pt: shorten docs/sheet/%s.toml"
                      % (lang, paper, MIN_PT, lang))


# ---------------------------------------------------------------- output

def canvas(kind, lang, paper):
    if kind not in KINDS:
        raise RenderError("unknown sheet %r (have: %s)" % (kind, ", ".join(KINDS)))
    if paper not in PAPERS:
        raise RenderError("unknown paper %r (have: %s)" % (paper, ", ".join(PAPERS)))
    return rules_canvas(lang, paper) if kind == "rules" else keycard_canvas(lang, paper)


def pillow_version():
    import PIL
    return PIL.__version__


def render(kind, lang, paper):
    """-> (canvas, 300 dpi page image as a palette image, Info dictionary)."""
    cv = canvas(kind, lang, paper)
    img = rasterize(cv, PAPER)
    # 64 colours (fast octree: it keeps the few flat colours exact) make the PDF a third of the RGB size.
    page = img.quantize(colors=64, method=2, dither=0)
    m = messages(lang)
    title = "%s — %s" % (m["rules"]["title"], m["card"]["title"] if kind == "keycard" else m["rules"]["subtitle"])
    info = {"Title": title, "Creator": "python -m tools.render sheet%s --lang %s --paper %s"
                                      % (" --card" if kind == "keycard" else "", lang, paper),
            "WTSContent": cv.fingerprint(), "WTSRaster": hashlib.sha256(page.tobytes()).hexdigest(),
            "WTSFonts": fonts_id(), "WTSPillow": pillow_version()}
    return cv, page, info


def write_preview(path, page, info, paper):
    """A smaller PNG of the page for the docs, carrying the same content fingerprint."""
    from PIL import Image, PngImagePlugin
    W, H = page_px(paper)
    k = PREVIEW_DPI / 300.0
    small = page.convert("RGB").resize((int(round(W * k)), int(round(H * k))), Image.LANCZOS)
    small = small.quantize(colors=64, method=2, dither=0)
    meta = PngImagePlugin.PngInfo()
    for key in ("WTSContent", "WTSFonts", "WTSPillow"):
        meta.add_text(key, info[key])
    small.save(path, optimize=True, pnginfo=meta)


def file_name(kind, lang, paper, ext="pdf"):
    return "%s-%s-%s.%s" % (kind, lang, paper, ext)


def all_outputs():
    """[(kind, lang, paper, preview?)]: every sheet the kit has; A4 pages also get a PNG preview."""
    return [(k, lang, p, p == "a4") for k in KINDS for lang in languages() for p in PAPERS]


def add_parser(sub):
    p = sub.add_parser(
        "sheet", help="the printable rule sheet and key card (PDF, one page) per language and paper",
        description="Render the one-page rule sheet (or with --card the key card) from docs/sheet/LANG.toml as a "
                    "300 dpi one-page PDF; --all writes every language x paper x sheet, with PNG previews of the "
                    "A4 pages, into docs/print (or --out DIR).",
        epilog="examples:\n"
               "  .venv/bin/python -m tools.render sheet --lang nl --paper a4 --out /tmp/regels.pdf\n"
               "  .venv/bin/python -m tools.render sheet --card --lang en --paper letter --out /tmp/card.pdf\n"
               "  .venv/bin/python -m tools.render sheet --all --out docs/print",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lang", default="en", help="language of docs/sheet/LANG.toml (default en)")
    p.add_argument("--paper", default="a4", help="a4 or letter (default a4)")
    p.add_argument("--card", action="store_true", help="the key card instead of the rule sheet")
    p.add_argument("--out", metavar="FILE.pdf|DIR", help="the PDF to write; with --all the folder (default docs/print)")
    p.add_argument("--png", metavar="FILE.png", help="also a %d dpi PNG preview" % PREVIEW_DPI)
    p.add_argument("--all", action="store_true", help="every sheet, language and paper, with previews")
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    if a.lang not in languages():
        a.parser.error("--lang: no docs/sheet/%s.toml (have: %s)" % (a.lang, ", ".join(languages())))
    if a.paper not in PAPERS:
        a.parser.error("--paper must be one of %s, not %r" % (", ".join(PAPERS), a.paper))
    if a.all:
        if a.png:
            a.parser.error("--all writes its own previews: no --png")
        out = a.out or str(OUT_DIR)
        os.makedirs(out, exist_ok=True)
        for kind, lang, paper, preview in all_outputs():
            _write(kind, lang, paper, os.path.join(out, file_name(kind, lang, paper)),
                   os.path.join(out, file_name(kind, lang, paper, "png")) if preview else None)
        return
    if not a.out or not a.out.endswith(".pdf"):
        a.parser.error("give --out FILE.pdf (or --all)")
    _write("keycard" if a.card else "rules", a.lang, a.paper, a.out, a.png)


def _write(kind, lang, paper, out, png):
    cv, page, info = render(kind, lang, paper)
    n = write_pdf(out, page, paper, info)
    w, h = PAPER_PT[paper]
    print("%s: one %s page (%.0f x %.0f mm), body %.1f pt, %d bytes" % (out, paper, w / 72 * 25.4, h / 72 * 25.4,
                                                                       cv.size_pt, n))
    if png:
        write_preview(png, page, info, paper)
        print("%s: preview" % png)
