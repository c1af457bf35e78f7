"""What every picture shares: the error type the CLI prints, board loading, fonts, ink colours."""
from tools.sim.screen import perceived, recording_exposure  # noqa: F401  (one home: tools/sim/screen.py)

N_CELLS = 81
N_PIXELS = 83
COLS = "abcdefghi"

INK = (34, 38, 44)
PAPER = (250, 248, 242)


class RenderError(Exception):
    """A problem with the input that the user can fix; the CLI prints it without a traceback."""


def load_board(name):
    """The board config module boards/<name>.py (through boards.load), or a RenderError naming the valid boards."""
    import boards
    from firmware.boardcheck import check
    try:
        return check(boards.load(name)) or boards.load(name)   # the one board-file check (firmware/boardcheck.py)
    except ValueError as e:
        raise RenderError(str(e))


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


def text_c(draw, xy, text, fnt, fill):
    """Text centred on xy (Pillow's 'mm' anchor)."""
    draw.text(xy, text, font=fnt, fill=fill, anchor="mm")
