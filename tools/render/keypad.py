"""The key scheme picture: keys 1-9 -> blocks and cells, # locks, * steps back, pad B turned (`python -m tools.render keypad`)."""
from firmware.keypad import KEYS_3X4
from tools import ROOT
from tools.render.common import COLS, INK, PAPER, font, mono

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
    for k, ch in enumerate(KEYS_3X4):
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


def add_parser(sub):
    p = sub.add_parser("keypad", help="the key scheme picture",
                       description="Draw the key scheme picture (keys 1-9 -> blocks and cells, # lock, * back).")
    p.add_argument("--out", metavar="OUT.png", help="where to write the PNG (default docs/keypad.png)")
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    img = draw_keypad()
    out = a.out or str(ROOT / "docs" / "keypad.png")
    img.save(out, optimize=True)
    print("wrote %s: %dx%d key scheme" % (out, img.width, img.height))
