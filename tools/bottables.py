"""Host tool: writes engine/bot/linetables.py, the bot's board-geometry and rule tables as constants (a frozen firmware keeps constants in flash, tables built at import on the heap); `--check` says whether the file is up to date."""
import argparse
import sys
from pathlib import Path

from engine import PAD

TARGET = Path(__file__).resolve().parents[1] / "engine" / "bot" / "linetables.py"
STEPS = (1, 11, 12, 10)  # E, S, SE, SW in the padded 11 x 11 space: the 4 line directions
WIDTH = 96  # characters of a bytes literal's line in the written file


def build():
    """{name: bytes} of every table, from the board's geometry and the rules alone (no weights: those
    are evaluate.py's)."""
    onb = bytearray(121)
    for p in PAD:
        onb[p] = 1
    # LS, LST: each line of 4+ cells in each direction (its first padded cell, its step);
    # LINE_AT[d * 121 + p]: the line through padded cell p in direction d (255: none of 4+ cells).
    ls = bytearray()
    lst = bytearray()
    line_at = bytearray(b"\xff" * 484)
    for d, st in enumerate(STEPS):
        for p in PAD:
            if onb[p - st]:
                continue
            n = 0
            q = p
            while onb[q]:
                n += 1
                q += st
            if n < 4:
                continue
            q = p
            while onb[q]:
                line_at[d * 121 + q] = len(ls)
                q += st
            ls.append(p)
            lst.append(st)
    # WK[code]: the class of a 5-cell window, code 2 bits a cell (newest, last, cell in the low bits;
    # 0 empty, 1 black, 2 white, 3 egg): 0 dead (both colours, or an egg), 1..5 black alone (its
    # count), 6..10 white alone (5 + count). evaluate.py scores a window by its class alone.
    wk = bytearray(1024)
    for code in range(1024):
        cells = [(code >> (2 * k)) & 3 for k in range(5)]
        nb, nw, ne = cells.count(1), cells.count(2), cells.count(3)
        if ne == 0 and nw == 0:
            wk[code] = nb
        elif ne == 0 and nb == 0:
            wk[code] = 5 + nw
    # SEG[code]: a 4-cell segment (first, oldest, cell in bits 6-7, last in bits 0-1). Bits 0-3: 1
    # black can clamp by playing the first cell, 2 ... the last cell, 4 / 8 the same for white (two
    # enemy turtles or eggs between); bits 4-7: 3 * black's clamps + white's (the threat table's index).
    seg = bytearray(256)
    for code in range(256):
        a = (code >> 6) & 3
        b = (code >> 4) & 3
        c = (code >> 2) & 3
        d = code & 3
        f = 0
        if b >= 2 and c >= 2:  # white or egg in the middle: black's clamp
            if a == 0 and d == 1:
                f |= 1
            if d == 0 and a == 1:
                f |= 2
        if (b & 1) and (c & 1):  # black or egg: white's clamp
            if a == 0 and d == 2:
                f |= 4
            if d == 0 and a == 2:
                f |= 8
        seg[code] = f | (3 * ((f & 1) + ((f >> 1) & 1)) + (((f >> 2) & 1) + ((f >> 3) & 1))) << 4
    # CEN: 4 at the centre cell down to 0 on the edge ring; ORDER: the cells from the centre out (ring
    # by ring, row-major in a ring), the order of the reply search.
    cen = bytearray(121)
    for i in range(81):
        cen[PAD[i]] = 4 - max(abs(i // 9 - 4), abs(i % 9 - 4))
    order = bytes(sorted(range(81), key=lambda i: max(abs(i // 9 - 4), abs(i % 9 - 4)) * 81 + i))
    return {"LS": bytes(ls), "LST": bytes(lst), "WK": bytes(wk), "SEG": bytes(seg), "CEN": bytes(cen),
            "LINE_AT": bytes(line_at), "ORDER": order}


def _literal(data):
    # bytes as adjacent literals of WIDTH characters (the compiler joins them into one constant)
    text = "".join("\\x%02x" % v for v in data)
    n = WIDTH - WIDTH % 4
    parts = [text[k:k + n] for k in range(0, len(text), n)]
    return "(\n" + "".join('    b"%s"\n' % p for p in parts) + ")"


def source():
    """The text of engine/bot/linetables.py."""
    out = ['"""The bot\'s line and window tables as constants, written by `python -m tools.bottables` '
           '(the derivation and its why are there; do not edit): constants stay in flash in a frozen '
           'firmware, where tables built at import took heap."""\n']
    for name, data in build().items():
        out.append("%s = %s\n" % (name, _literal(data)))
    return "".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.bottables", description=__doc__.split(":")[0])
    ap.add_argument("--check", action="store_true", help="only say whether the file is up to date (exit 1 if not)")
    args = ap.parse_args(argv)
    text = source()
    if args.check:
        same = TARGET.exists() and TARGET.read_text() == text
        print("bottables: %s is %s" % (TARGET.name, "up to date" if same else "out of date: run python -m tools.bottables"))
        return 0 if same else 1
    TARGET.write_text(text)
    print("bottables: wrote %s" % TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())
