"""The wiring diagram of a board, drawn from the pin constants in its board file (`python -m tools.render wiring`)."""
import boards
from firmware.keypad import KEYS_3X4
from tools import ROOT
from tools.render.common import INK, PAPER, font, load_board

# Physical pin numbers of the Pico's GPIOs, so the diagram can say "GP28 (pin 34)".
_PICO_PHYS = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
              13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29,
              26: 31, 27: 32, 28: 34}

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
    if isinstance(gpio, str):        # CircuitPython / Blinka boards name their pins ("D5", "MOSI"): shown as named
        return gpio
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
    from firmware.keypad import connector

    con = connector(kind, pad)
    if con:  # a named part (firmware/keypad.py PARTS): wires in keypad-pin order, labelled pin n and its row/column
        return [(g, "pin %d %s" % (n, sig)) for n, g, sig in con], "%dx%d %s" % (len(cols), len(rows), pad["part"])
    out = [(g, "R%d" % (i + 1)) for i, g in enumerate(rows)] + [(g, "C%d" % (i + 1)) for i, g in enumerate(cols)]
    return out, "%dx%d" % (len(cols), len(rows))


def _box(d, xy, title, sub=None, fill=(255, 255, 255), outline=INK):
    d.rounded_rectangle(xy, radius=10, fill=fill, outline=outline, width=3)
    x0, y0, x1, _ = xy
    room = x1 - x0 - 24
    d.text(((x0 + x1) / 2, y0 + 22), fit(title, font(22, True), room), font=font(22, True), fill=INK, anchor="mm")
    if sub:
        d.text(((x0 + x1) / 2, y0 + 48), fit(sub, font(16), room), font=font(16), fill=(90, 94, 100), anchor="mm")


def fit(text, fnt, width):
    """`text`, cut short with an ellipsis if it is wider than `width` pixels in `fnt` (a long board description)."""
    if fnt.getlength(text) <= width:
        return text
    while text and fnt.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


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


def _resistor_v(d, x, y0, y1, label, c=DATA):
    """A zig-zag resistor from y0 down to y1 on one vertical line, labelled to its right."""
    n = 6
    pts = [(x, y0)]
    step = (y1 - y0) / (n + 1)
    for i in range(n):
        pts.append((x + (-10 if i % 2 == 0 else 10), y0 + step * (i + 0.5) + step / 2))
    pts.append((x, y1))
    d.line(pts, fill=c, width=3, joint="curve")
    d.text((x + 16, (y0 + y1) / 2), label, font=font(16, True), fill=INK, anchor="lm")


def _capacitor_h(d, x0, x1, y, label):
    """A non-polarised capacitor on a horizontal wire from x0 to x1 (two plates in the middle), labelled after x1."""
    xm = (x0 + x1) / 2
    d.line((x0, y, xm - 5, y), fill=INK, width=3)
    d.line((xm + 5, y, x1, y), fill=INK, width=3)
    d.line((xm - 5, y - 11, xm - 5, y + 11), fill=INK, width=4)
    d.line((xm + 5, y - 11, xm + 5, y + 11), fill=INK, width=4)
    d.text((x1 + 12, y), label, font=font(15, True), fill=INK, anchor="lm")


def wrap(text, fnt, width, indent="   "):
    """Lines of at most `width` pixels in `fnt`, broken between words; continuation lines indented."""
    lines, line = [], ""
    for word in text.split(" "):
        trial = word if not line else line + " " + word
        if line and fnt.getlength(trial) > width:
            lines.append(line)
            line = indent + word
        else:
            line = trial
    lines.append(line)
    return lines


def _mini_keypad(d, x0, y0, cell, keys=KEYS_3X4):
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
    d.text((40, 40), fit("Wiring — %s" % title, font(32, True), W - 80), font=font(32, True), fill=INK, anchor="lm")
    name = boards.name_of(board)     # the file it came from: a copied board keeps NAME = "pico"
    d.text((40, 76), "generated from boards/%s.py by `.venv/bin/python -m tools.render wiring --board %s`" % (name, name),
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
    d.text((mcu_x1 + 70, 172), getattr(board, "SUPPLY_NOTE", "5 V supply: USB into the board, or a 5 V adapter on this rail"),
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
    d.text((566, 213), "VCC", font=font(14), fill=RED, anchor="lm")
    d.text((678, 213), "GND", font=font(14), fill=INK, anchor="lm")
    # The shifter's own decoupling capacitor, from its VCC to its GND right at the chip.
    _capacitor_h(d, 560, 670, 254, "100 nF")
    _dot(d, 560, 254, RED)
    _dot(d, 670, 254, BLACK)
    # A pull-down on the data line keeps the LEDs dark while the MCU's pin floats (reset, boot).
    xp = 420
    _dot(d, xp, 340, DATA)
    _resistor_v(d, xp, 340, 244, "10 kΩ")
    _dot(d, xp, 236, BLACK)

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

    from firmware.display import led_share_ma

    notes = [
        "Level shifter: 1A ← data pin, with 10 kΩ from it to GND; 1Y → 330 Ω → DIN; 1OE to GND; unused 2A-4A "
        "to GND, 2OE-4OE to 5 V; 100 nF from its VCC to its GND, at the chip.",
        "1000 µF across 5 V / GND where power enters the matrix.",
        "Whole board within CURRENT_BUDGET_MA = %d mA: the lit LEDs get %d mA after idle LEDs and controller "
        "(firmware/display.py)." % (board.CURRENT_BUDGET_MA, led_share_ma(board)),
        "All grounds common: MCU, shifter, LEDs, supply.",
        "Keypads: connector pins 1..7 in order to the pins shown; the board file's part says which are rows "
        "and columns.",
        "Pad B is mounted turned 180° (PAD_B_ROTATED = %s)." % getattr(board, "PAD_B_ROTATED", False),
    ]
    nx, ny, nf = 960, 790, font(16)
    lines = []
    for t in notes:
        lines += wrap(t, nf, W - nx - 30)
    d.text((nx, ny), "Notes", font=font(20, True), fill=INK, anchor="lm")
    for i, t in enumerate(lines):
        d.text((nx, ny + 34 + i * 27), t, font=nf, fill=INK, anchor="lm")
    return img.crop((0, 0, W, max(y_buzz + 90, ny + 34 + len(lines) * 27 + 30)))


def add_parser(sub):
    p = sub.add_parser("wiring", help="wiring diagram of a board (pins read from boards/NAME.py)",
                       description="Draw the wiring diagram of a board config (pins read from boards/NAME.py).")
    p.add_argument("--board", default="pico", help="board config name (default pico)")
    p.add_argument("--out", metavar="OUT.png", help="where to write the PNG (default docs/wiring-BOARD.png)")
    p.set_defaults(run=run, parser=p)
    return p


def run(a):
    img = draw_wiring(load_board(a.board))
    out = a.out or str(ROOT / "docs" / ("wiring-%s.png" % a.board))
    img.save(out, optimize=True)
    print("wrote %s: %dx%d wiring diagram for boards/%s.py" % (out, img.width, img.height, a.board))
