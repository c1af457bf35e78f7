"""Terminal simulator: plays the real firmware (any tools/sim/interface.py SimDevice) in a terminal, LEDs in 24-bit colour, both pads on one keyboard."""
import atexit
import os
import re
import select
import signal
import sys
import time

from firmware.display import PAL, BLUE, WARM, AMBER, RED
from firmware.modes import BOT_LEVELS
from tools.sim import narrate
from tools.sim.interface import SimDevice
from tools.sim.screen import board_exposure, board_gamma, perceived

# ---------------------------------------------------------------- keys

# Both hands rest on the same 3x3 shape the pads have, so "top-left key" is
# top-left on the keyboard too. The row above gives * 0 # (back, zero, lock)
# like the pad's bottom row mirrored up — there is no usable key row *below*
# z x c / m , . on a keyboard. (0 only does something in the menu: the volume.)
PAD_A_KEYS = {
    "q": "1", "w": "2", "e": "3",
    "a": "4", "s": "5", "d": "6",
    "z": "7", "x": "8", "c": "9",
    "1": "*", "2": "0", "3": "#",
}
PAD_B_KEYS = {
    "u": "1", "i": "2", "o": "3",
    "j": "4", "k": "5", "l": "6",
    "m": "7", ",": "8", ".": "9",
    "7": "*", "8": "0", "9": "#",
}
# The number pad in application mode (we switch it on with ESC =; xterm and
# most terminals then send SS3 codes when NumLock is off). Mapped by
# *position*, so the numpad's top row (7 8 9) is the pad's top row (1 2 3):
# the grid is what players think in, not the printed digits.
NUMPAD_B = {
    "w": "1", "x": "2", "y": "3",
    "t": "4", "u": "5", "v": "6",
    "q": "7", "r": "8", "s": "9",
    "p": "*", "M": "#", "n": "#",
}
MENU = "\t"                # Tab: hold * on pad A for the menu (a terminal has no key-up events)
QUIT = ("\x03", "\x04")   # Ctrl-C, Ctrl-D (ISIG is off, so they arrive as bytes)
SUSPEND = "\x1a"          # Ctrl-Z
REDRAW = "\x0c"           # Ctrl-L

SINGLE_PLAYER = BOT_LEVELS    # the modes where pad B's seat is the computer (firmware/modes.py)
# The terminal starts as `./wts play` does (tools/play.py): you against the computer, medium. Two players on one
# keyboard: --mode 2p, or menu key 1. (The headless runner keeps 2p: its key scripts type for both pads.)
DEFAULT_MODE = "medium"


def decode(data, single_player=False):
    """Raw terminal bytes -> list of events: ("key", pad, key) | ("hold", pad, key) | ("quit",) | ("suspend",) | ("redraw",).

    Unknown keys and escape sequences (arrows, mouse, focus) are dropped.
    single_player=True drops pad B's keys too (the simulator itself passes
    every key on and lets the firmware ignore the computer's pad).
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\x1b":
            if i + 2 < n and text[i + 1] == "O":
                k = NUMPAD_B.get(text[i + 2])
                if k and not single_player:
                    out.append(("key", "B", k))
                i += 3
                continue
            if i + 1 < n and text[i + 1] == "[":
                j = i + 2
                while j < n and not ("\x40" <= text[j] <= "\x7e"):
                    j += 1
                i = j + 1
                continue
            i += 1          # a lone ESC (or ESC + other): ignore, never quit by accident
            continue
        if ch in QUIT:
            out.append(("quit",))
        elif ch == SUSPEND:
            out.append(("suspend",))
        elif ch == REDRAW:
            out.append(("redraw",))
        elif ch == MENU:
            out.append(("hold", "A", "*"))
        else:
            low = ch.lower()   # Caps Lock must not make keys dead
            if low in PAD_A_KEYS:
                out.append(("key", "A", PAD_A_KEYS[low]))
            elif low in PAD_B_KEYS and not single_player:
                out.append(("key", "B", PAD_B_KEYS[low]))
        i += 1
    return out


class KeyFeeder:
    """Turns key events into press/release pairs on the device's clock, as a finger would.

    The firmware debounces over 3 scans of its 5 ms tick (10-15 ms), so a key
    is held HOLD_MS and the next key on the same pad waits GAP_MS after the
    release; typing faster than that queues, up to QUEUED keys a pad (more
    than anyone types ahead: a paste into the terminal must not queue minutes
    of key presses), and a key beyond that is dropped.
    """

    HOLD_MS = 60
    GAP_MS = 50
    LONG_MS = 2300      # the firmware opens the menu after * is held 2000 ms
    QUEUED = 32

    def __init__(self):
        self.queue = {"A": [], "B": []}        # (key, hold_ms)
        self.held = {"A": None, "B": None}     # (key, release_at)
        self.ready_at = {"A": 0, "B": 0}

    def push(self, pad, key, now=None, hold_ms=None):
        """Queue a tap (or a long press). A key that arrives again while it is still down
        is the terminal's auto-repeat of a key being held: keep it down instead of tapping."""
        h = self.held[pad]
        if hold_ms is None and now is not None and h and h[0] == key and not self.queue[pad]:
            self.held[pad] = (key, max(h[1], now + self.HOLD_MS))
            return
        if len(self.queue[pad]) < self.QUEUED:
            self.queue[pad].append((key, hold_ms or self.HOLD_MS))

    def next_time(self, now):
        """Device time of the next press or release (or None)."""
        best = None
        for pad in ("A", "B"):
            h = self.held[pad]
            t = h[1] if h else (max(now, self.ready_at[pad]) if self.queue[pad] else None)
            if t is not None and (best is None or t < best):
                best = t
        return best

    def fire(self, device, now):
        """Do every press/release due at `now`."""
        for pad in ("A", "B"):
            h = self.held[pad]
            if h and h[1] <= now:
                device.release(pad, h[0])
                self.held[pad] = None
                self.ready_at[pad] = now + self.GAP_MS
            if self.held[pad] is None and self.queue[pad] and self.ready_at[pad] <= now:
                k, hold = self.queue[pad].pop(0)
                device.press(pad, k)
                self.held[pad] = (k, now + hold)

    def idle(self):
        return not any(self.queue.values()) and not any(self.held.values())


def advance(device, feeder, now, ms):
    """Run the device ms milliseconds from `now`, stopping at each key event on the way; returns the new time."""
    end = now + ms
    while True:
        feeder.fire(device, now)
        t = feeder.next_time(now)
        if t is None or t > end:
            break
        if t > now:
            device.advance(t - now)
            now = t
    if end > now:
        device.advance(end - now)
        now = end
    feeder.fire(device, now)
    return now


# ---------------------------------------------------------------- drawing

RESET = "\x1b[0m"
PANEL_BG = (12, 15, 14)       # the PCB: the matrix looks the same on light and dark terminal themes
UNLIT = (34, 37, 36)          # an unlit LED package
LABEL = (105, 120, 112)


def _truecolour():
    """24-bit colour unless the terminal is known not to have it (macOS Terminal.app before 2023
    garbles 24-bit escapes) or WTS_COLOR=256 asks for the 256-colour palette."""
    want = os.environ.get("WTS_COLOR", "").lower()
    if want in ("256", "8bit"):
        return False
    if want in ("truecolor", "24bit"):
        return True
    if os.environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return True
    return os.environ.get("TERM_PROGRAM") != "Apple_Terminal"


TRUECOLOUR = _truecolour()


def xterm256(c):
    """Nearest colour of the xterm 256-colour palette (6x6x6 cube or grey ramp)."""
    levels = (0, 95, 135, 175, 215, 255)

    def near(v):
        return min(range(6), key=lambda i: abs(levels[i] - v))
    r, g, b = (near(v) for v in c)
    cube = 16 + 36 * r + 6 * g + b
    cd = sum((levels[k] - v) ** 2 for k, v in zip((r, g, b), c))
    grey = max(0, min(23, int(round((sum(c) / 3.0 - 8) / 10.0))))
    gv = 8 + 10 * grey
    gd = sum((gv - v) ** 2 for v in c)
    return 232 + grey if gd < cd else cube


def fg(c):
    if TRUECOLOUR:
        return "\x1b[38;2;%d;%d;%dm" % c
    return "\x1b[38;5;%dm" % xterm256(c)


def bg(c):
    if TRUECOLOUR:
        return "\x1b[48;2;%d;%d;%dm" % c
    return "\x1b[48;5;%dm" % xterm256(c)


def screen_colour(rgb, gamma, exposure):
    """Strip value -> terminal colour (tools/sim/screen.py decodes it); unlit LEDs are drawn as a dark package so the matrix is readable."""
    if rgb[0] == 0 and rgb[1] == 0 and rgb[2] == 0:
        return UNLIT
    out = perceived(rgb, gamma, exposure)
    # Very dim LEDs (the block grid on empty cells) must still differ from unlit ones.
    m = max(out)
    if m < 72:
        k = 72.0 / max(m, 1)
        out = tuple(min(255, int(v * k)) for v in out)
    return out


COLS = "abcdefghi"


def matrix_lines(cells, status, gamma, exposure, led="●", oldest=-1):
    """The panel as lines of text: 9x9 LEDs with coordinates, B's status LED on the far edge, A's on the near.

    `oldest` is the cell of the oldest egg (the next to hatch): a mark left of it, or -1 for none.
    """
    pb, lab = bg(PANEL_BG), fg(LABEL)
    width = 25   # " 1 " + 9 LEDs of 2 columns + " 1 " + margin: every line padded to it so the panel is a clean rectangle

    def panel(content, used):
        return pb + lab + content + " " * (width - used) + RESET

    def status_line(rgb, text):
        c = screen_colour(rgb, gamma, exposure)
        left = " " * 10
        return panel(left + fg(c) + led + lab + " " + text, len(left) + 2 + len(text))

    head = "    " + " ".join(COLS)
    lines = [panel("", 0), status_line(status[1], narrate.word("status.b")), panel("", 0), panel(head, len(head))]
    for r in range(9):
        s = " %d " % (r + 1)
        for c in range(9):
            i = r * 9 + c
            s += (fg(EGG_MARK) + OLDEST_MARK if i == oldest else " ") + fg(screen_colour(cells[i], gamma, exposure)) + led
        lines.append(panel(s + lab + "  %d" % (r + 1), 3 + 18 + 3))
    lines += [panel(head, len(head)), panel("", 0), status_line(status[0], narrate.word("status.a")), panel("", 0)]
    return lines


OLDEST_MARK = ">"                 # left of the oldest egg (ASCII: every terminal font has it)
NOTE = (255, 120, 90)             # what the screen says about a student's bot that broke the protocol
EGG_MARK = (255, 170, 60)


def pal(colour):
    """A palette colour of the firmware (display.PAL, logical RGB before gamma) as a screen colour."""
    return (PAL[colour * 3], PAL[colour * 3 + 1], PAL[colour * 3 + 2])


def legend_lines(led="●"):
    """What the colours mean, under the matrix (colours from the firmware's own palette)."""
    w = narrate.word

    def item(colour, text):
        return fg(pal(colour)) + led + RESET + " " + text
    return [item(BLUE, "%-7s" % w("black")) + " " + item(WARM, "%-7s" % w("white")) + " " + item(AMBER, w("egg")),
            fg(EGG_MARK) + OLDEST_MARK + RESET + " " + w("legend.oldest") + " " + item(RED, w("legend.caught"))]


def menu_items():
    """[(key, label)] of the firmware's menu in the current language (tools/sim/narrate.py holds the words,
    firmware/menu.py what the keys do; the browser edition lists them too)."""
    return narrate.menu_items()


def _hand_keys(keys):
    """'1 = * back  2 = 0  3 = # lock': which keyboard keys of one hand are the pad's *, 0 and #."""
    by = {v: k for k, v in keys.items()}
    return narrate.word("help.keys", star=by["*"], zero=by["0"], hash=by["#"])


def help_lines(mode, numpad_hint=True, b_turned=True, menu=None, bot=None):
    """The key map (or, in the menu, the menu's items: `menu` [(key, label)], default menu_items()), drawn next to the
    matrix. `bot`: the name of a student's bot in the computer's seat (--player), or None."""
    w = narrate.word
    single = mode in SINGLE_PLAYER
    dim, bold, rst = "\x1b[2m", "\x1b[1m", RESET
    if mode == "menu":
        out = [bold + w("help.menu") + rst]
        for key, label in (menu if menu is not None else menu_items()):
            out.append("  %s  %s" % (key, label))
        out.append(dim + "  " + w("help.menu_keys") + rst)
        out.append(dim + "  " + w("help.menu_keys2") + rst)
        return out
    tail = [dim + w("help.tab") + rst, dim + w("help.ctrl") + rst]
    if mode == "tutorial":
        a, b = ({v: k for k, v in keys.items()} for keys in (PAD_A_KEYS, PAD_B_KEYS))
        return [bold + w("help.tutorial") + rst, w("help.tutorial2", a=a["#"], b=b["#"]),
                w("help.tutorial3", a=a["*"], b=b["*"]), w("help.tutorial4"), dim + w("help.tutorial5") + rst, ""] + tail
    a = [bold + w("help.pad_a") + rst,
         "  q w e      1 2 3",
         "  a s d  ->  4 5 6",
         "  z x c      7 8 9",
         "  " + _hand_keys(PAD_A_KEYS)]
    if single:
        b = [bold + (w("bot.pad_b", name=bot) if bot else w("help.pad_b_cpu", level=w("level." + mode))) + rst,
             dim + "  " + w("help.cpu") + rst,
             dim + "  " + w("help.cpu2") + rst]
    else:
        b = [bold + w("help.pad_b") + rst,
             "  u i o      1 2 3",
             "  j k l  ->  4 5 6",
             "  m , .      7 8 9",
             "  " + _hand_keys(PAD_B_KEYS)]
        if b_turned is not None:
            # Two students on one keyboard: pad B's grid is turned 180° by default (its player sits
            # opposite), so the keyboard's top-left key is the board's bottom right. Said plainly,
            # with the menu key that changes it (firmware/menu.py: 9).
            b += ["  " + w("help.turned" if b_turned else "help.flat"),
                  "  " + w("help.seating", cell="i9" if b_turned else "a1")]
        if numpad_hint:
            b.append(dim + "  " + w("help.numpad") + rst)
            b.append(dim + "  " + w("help.numpad2") + rst)
    head = []
    if mode == "keytest":
        head = [bold + w("help.keytest") + rst, w("help.keytest2"), w("help.keytest3"), ""]
    if mode in ("attract", "demo"):
        head = [bold + w("help.attract") + rst, w("help.attract2"), ""]
    tail = ["", w("help.entry"), dim + w("help.secret") + rst] + tail
    return head + a + [""] + b + tail


def wrap(text, width):
    """Plain text -> lines of at most `width` columns, broken at spaces."""
    lines, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word) if cur else word
    return lines + ([cur] if cur else [])


def story_lines(said, width, height, over=None, lesson=None, note=()):
    """The narration panel: a student's bot's trouble (`note`: lines, "| " ones are its stderr, dim), a lesson
    caption or the game-over line (`over`, whole) in bold, then the newest sentences that fit. Read from the
    newest back, only as far as the panel has room (and, in the tutorial, back to the lesson's start): the
    same work per frame however much has been said."""
    bold, dim, rst = "\x1b[1m", "\x1b[2m", RESET
    out = []
    for text in note:
        if text.startswith("| "):
            out.append(dim + "  " + text + rst)
        else:
            out += [bold + fg(NOTE) + x + rst for x in wrap(text, max(10, width))]
    for text in ([lesson] if lesson else []) + ([over] if over else []):
        out += [bold + x + rst for x in wrap(text, max(10, width))]
    room = height - len(out) - 1
    lines = []
    if room > 0:
        for _, kind, text in reversed(said):
            if kind == "lesson" and lesson:     # in the tutorial, only what this lesson's turn did
                break
            if kind not in ("mode", "lesson", narrate.K_GAME):
                lines.append(text)
                if len(lines) == room:
                    break
    if lines:
        out.append(dim + narrate.word("happened") + rst)
        out += ["  " + x for x in reversed(lines)]
    return [clip(x, width) for x in out[:max(0, height)]]


# An escape sequence: CSI (ESC [ parameters final-byte) or ESC + one character.
_ESC = re.compile(r"\x1b(?:\[[^\x40-\x7e]*[\x40-\x7e]?|.?)", re.S)


def visible_len(s):
    """Printed width of a line with ANSI escapes (all our glyphs are one column wide)."""
    return len(_ESC.sub("", s))


def clip(s, width):
    """Cut a line with ANSI escapes to `width` printed columns (escapes are kept, so colours still reset)."""
    out, n, pos = [], 0, 0
    for m in _ESC.finditer(s):
        text = s[pos:m.start()]
        out.append(text[:max(0, width - n)])
        n += len(text)
        out.append(m.group())
        pos = m.end()
    out.append(s[pos:][:max(0, width - n)])
    return "".join(out)


class View:
    """What one screen shows; compose() draws it, View.of() reads it from a device.

    `cells`: 81 strip values (r, g, b) in board order; `status`: status LED A's and B's;
    `mode`: the firmware's mode name (the key map follows it); `title`: the top line;
    `gamma`, `exposure`: how strip values look on screen (tools/sim/screen.py); `led`: the
    LED glyph; `said`: the narration so far [(t, kind, sentence)] (tools/sim/narrate.py),
    shown under the board; `oldest`: the oldest egg's cell (marked), or -1; `b_turned`:
    pad B's grid turned 180° (True/False), None when unknown (no hint); `tally`: [black
    wins, white wins, draws] for the game-over line, or None; `menu`: [(key, label)] the
    menu lists (None: menu_items()); `bot`: a student's bot in the computer's seat (its
    name), `note`: what the screen says about it (tools/cmdbot.py Seat.note lines).
    """

    def __init__(self, cells=None, status=None, mode="2p", title="", gamma=2.2, exposure=1.0, led="●", said=(),
                 oldest=-1, b_turned=True, tally=None, menu=None, bot=None, note=()):
        self.cells = cells if cells is not None else [(0, 0, 0)] * 81
        self.status = status if status is not None else [(0, 0, 0)] * 2
        self.mode = mode
        self.title = title
        self.gamma = gamma
        self.exposure = exposure
        self.led = led
        self.said = said
        self.oldest = oldest
        self.b_turned = b_turned
        self.tally = tally
        self.menu = menu
        self.bot = bot
        self.note = note

    @classmethod
    def of(cls, device, title, led="●", seat=None):
        """The screen of a SimDevice now: its last frame, mode, words and what it can report; the title
        gets the current mode's name (the firmware changes mode itself: menu, attract). `seat`: the
        tools.cmdbot.Seat of a student's bot (--player), or None."""
        px = device.cell_pixels(device.last_pixels)
        mode = device.mode_now
        return cls(cells=px[:81], status=px[81:83], mode=mode, title=title + " · " + narrate.mode_title(mode),
                   gamma=board_gamma(device.cfg), exposure=board_exposure(device.cfg), led=led, said=device.said,
                   oldest=oldest_egg(device), b_turned=device.pad_b_turned(), tally=device.tally(),
                   menu=device.menu_labels(), bot=seat and seat.name, note=list(seat.note) if seat else ())


def compose(view, cols, rows):
    """The whole screen of a View for a terminal of cols x rows, as one string (cursor home, every line cleared to its end)."""
    led, said, mode = view.led, view.said, view.mode
    m = matrix_lines(view.cells, view.status, view.gamma, view.exposure, led, view.oldest) + [""] + \
        ["  " + x for x in legend_lines(led)]
    h = help_lines(mode, b_turned=view.b_turned, menu=view.menu, bot=view.bot)
    mw = max(visible_len(x) for x in m)
    hw = max(visible_len(x) for x in h)
    body = []
    if cols >= mw + 4 + hw and rows >= max(len(m), len(h)) + 2:
        # Side by side.
        for i in range(max(len(m), len(h))):
            left = m[i] if i < len(m) else ""
            right = h[i] if i < len(h) else ""
            body.append("  " + left + " " * (mw - visible_len(left)) + "  " + right)
    elif cols >= mw + 2 and rows >= len(m) + 2 + 5:
        # Stacked: the matrix, then as much of the key map as fits.
        body = ["  " + x for x in m] + [""] + ["  " + x for x in h][: rows - len(m) - 3]
    else:
        need = narrate.word("too_small", cols=cols, rows=rows, need_cols=mw + 2, need_rows=len(m) + 7)
        return "\x1b[H\x1b[2J" + need[:max(1, cols)]
    over, lesson = game_over(said, mode), lesson_caption(said, mode)
    if over:
        over = narrate.word("game_over", result=over)
        if view.tally:
            t = view.tally
            over += narrate.word("so_far", black=t[0], white=t[1], draws=t[2])
    story = story_lines(said, cols - 3, rows - 1 - len(body) - 1, over, lesson, view.note)
    lines = ["\x1b[1m" + view.title + RESET] + body + ([""] + ["  " + x for x in story] if story else [])
    # Never let a line wrap (auto-wrap is off, but a clipped line is also cheaper to send).
    lines = [clip(x, cols - 1) for x in lines[:rows]]
    return "\x1b[H" + "\x1b[K\r\n".join(lines) + "\x1b[K\x1b[J"


def game_over(said, mode):
    """The result sentence while the finished game is still on the board (until a new game, a turn or a mode
    change), else None."""
    if mode in ("menu", "tutorial"):
        return None
    for _, kind, text in reversed(said):
        if kind == "result":
            return text
        if kind in ("place", "egg", "mode", narrate.K_GAME):
            return None
    return None


def lesson_caption(said, mode):
    """In the tutorial: the current lesson's title and caption (narrate.py's words for firmware/tutorial.py)."""
    if mode != "tutorial":
        return None
    for _, kind, text in reversed(said):
        if kind == "lesson":
            return text[0].upper() + text[1:]
    return None


# ---------------------------------------------------------------- the terminal

class Terminal:
    """Raw, silent, alternate-screen terminal that is always put back, whatever ends the program."""

    ENTER = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b=\x1b[2J"
    LEAVE = "\x1b>\x1b[?7h\x1b[0m\x1b[?25h\x1b[?1049l"

    def __init__(self, in_fd, out_fd):
        import termios
        self.termios = termios
        self.in_fd, self.out_fd = in_fd, out_fd
        if not (os.isatty(in_fd) and os.isatty(out_fd)):
            raise SystemExit("tools.sim: the terminal simulator needs a terminal; "
                             "use --headless --script FILE for scripted runs")
        self.saved = termios.tcgetattr(in_fd)
        self.active = False

    def enter(self):
        t = self.termios
        new = t.tcgetattr(self.in_fd)
        # No echo (keys stay secret), no line buffering, no signals from keys
        # (Ctrl-C arrives as a byte and ends the game cleanly), no flow control
        # (Ctrl-S must not freeze the screen), reads never block.
        new[0] &= ~(t.IXON | t.ICRNL | t.INLCR | t.IGNCR)
        new[3] &= ~(t.ECHO | t.ICANON | t.ISIG | t.IEXTEN | t.ECHONL)
        new[6][t.VMIN] = 0
        new[6][t.VTIME] = 0
        t.tcsetattr(self.in_fd, t.TCSANOW, new)
        self.active = True
        self.write(self.ENTER)

    def leave(self):
        if not self.active:
            return
        self.active = False
        t = self.termios
        # A dropped SSH connection leaves nothing to write to: restore what can be.
        try:
            self.write(self.LEAVE)
        except OSError:
            pass
        try:
            # Unread keys would otherwise show up at the shell prompt: a secret move on screen.
            t.tcflush(self.in_fd, t.TCIFLUSH)
            t.tcsetattr(self.in_fd, t.TCSADRAIN, self.saved)
        except (OSError, t.error):
            pass

    def write(self, s):
        data = s.encode("utf-8")
        while data:
            try:
                n = os.write(self.out_fd, data)
            except BlockingIOError:
                select.select([], [self.out_fd], [], 0.1)
                continue
            data = data[n:]

    def size(self):
        try:
            sz = os.get_terminal_size(self.out_fd)
            return sz.columns, sz.lines
        except OSError:
            return 80, 24

    def read(self, timeout):
        r, _, _ = select.select([self.in_fd], [], [], max(0.0, timeout))
        if not r:
            return b""
        try:
            data = os.read(self.in_fd, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        if not data:
            raise EOFError("terminal closed")
        return data


class Hangup(Exception):
    """SIGTERM / SIGHUP (an SSH connection dropped): unwind so the terminal is restored."""


def _utf8_ok():
    enc = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return enc == "utf8" or "UTF-8" in os.environ.get("LC_ALL", os.environ.get("LC_CTYPE", os.environ.get("LANG", ""))).upper()


def play(make_device, title, in_fd, out_fd, fps=30, clock=time.monotonic, max_seconds=None, seat=None):
    """The real-time loop: keys -> pads, wall time -> device time, frames -> screen. Returns the device time reached.

    `make_device()` returns the SimDevice (tools/sim/interface.py) to play; it is called once the
    terminal is silent, so keys typed while the firmware boots are not echoed. `title` heads the
    screen (the current mode's name is added). `seat`: a student's bot (tools.cmdbot.Seat) whose
    trouble the screen shows, or None.
    """
    term = Terminal(in_fd, out_fd)
    led = "●" if _utf8_ok() else "o"
    feeder = KeyFeeder()
    resized = [True]
    old = {}

    def on_winch(signum, frame):
        resized[0] = True

    def on_hangup(signum, frame):
        raise Hangup()

    atexit.register(term.leave)
    for sig, h in ((signal.SIGWINCH, on_winch), (signal.SIGTERM, on_hangup), (signal.SIGHUP, on_hangup)):
        try:
            old[sig] = signal.signal(sig, h)
        except (ValueError, OSError):   # not the main thread (tests): no signals, still works
            pass
    now = 0
    last_shown = None
    try:
        term.enter()
        term.write("\x1b[H" + title + "\r\n\r\n" + narrate.word("starting"))
        device = make_device()
        if not isinstance(device, SimDevice):
            raise TypeError("the terminal plays a tools.sim.interface.SimDevice, not %r" % (device,))
        start = last = clock()
        tick = 1.0 / fps
        while True:
            # Every key goes to the firmware, as on the real device: in a game against
            # the computer the firmware ignores pad B (the computer's seat) itself,
            # and the menu (Tab) can switch to a two-player game that needs pad B.
            for ev in decode(term.read(tick - (clock() - last))):
                if ev[0] == "quit":
                    return now
                if ev[0] == "key":
                    feeder.push(ev[1], ev[2], now)
                elif ev[0] == "hold":
                    feeder.push(ev[1], ev[2], hold_ms=KeyFeeder.LONG_MS)
                elif ev[0] == "redraw":
                    resized[0] = True
                elif ev[0] == "suspend":
                    term.leave()
                    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
                    os.kill(os.getpid(), signal.SIGTSTP)     # stops here until `fg`
                    term.enter()
                    resized[0] = True
                    last = clock()
            t = clock()
            # Catch up on wall time, but not on a long stall (suspend, laptop lid):
            # the game should resume where it was, not fast-forward.
            if t - last > 0.25:
                last = t - 0.25
            ms = int((t - last) * 1000)
            if ms > 0:
                now = advance(device, feeder, now, ms)
                last += ms / 1000.0     # keep the fraction: device time must not drift from wall time
            cols, rows = term.size()
            if resized[0]:
                term.write("\x1b[2J")
                last_shown = None
                resized[0] = False
            scr = compose(View.of(device, title, led, seat), cols, rows)
            if scr != last_shown:
                term.write(scr)
                last_shown = scr
            if max_seconds is not None and t - start >= max_seconds:
                return now
    except (KeyboardInterrupt, Hangup, EOFError):
        return now
    finally:
        term.leave()
        for sig, h in old.items():
            try:
                signal.signal(sig, h)
            except (ValueError, OSError):
                pass


def oldest_egg(device):
    """The cell of the device's oldest egg (marked on screen), or -1 (none, the menu, or a device that cannot say)."""
    g = device.game()
    if g is None or device.mode_now == "menu":
        return -1
    return narrate.oldest_egg(g)


def run(args):
    """Entry point from tools/sim/ (without --headless): uses args.board, mode, runtime, seed, store."""
    import boards
    from tools.sim.device import Device, fresh_seed
    board_name = getattr(args, "board", None) or "pico"
    mode = getattr(args, "mode", None) or DEFAULT_MODE
    try:
        boards.load(board_name)      # a board file that cannot load is told before the terminal goes raw
    except ValueError as e:
        raise SystemExit("tools.sim: %s" % e)
    seed = getattr(args, "seed", None)
    if seed is None:
        seed = fresh_seed()          # a new game every launch; the title says how to replay it
    kw = {"board": board_name, "mode": mode, "seed": seed, "keep_frames": False}   # a long session must not pile up frames
    for name, key in (("runtime", "runtime"), ("store", "store_dir")):
        if getattr(args, name, None) is not None:
            kw[key] = getattr(args, name)
    seat = None
    if getattr(args, "player", None):
        from tools.cmdbot import seat_for
        seat = seat_for(args.player, getattr(args, "reply_timeout", None))   # answers polled: the clock runs on
        kw["bots"] = seat.bots()
    made = []

    def factory():
        # Called by play() once the terminal is silent (MicroPython takes seconds to boot).
        try:
            made.append(Device(**kw))
        except ValueError as e:
            raise SystemExit("tools.sim: %s" % e)
        return made[0]

    # The firmware changes mode itself (menu): play() adds the current one to this title.
    title = narrate.word("title", board=board_name, seed=seed)
    if seat is not None:
        title += " \u00b7 " + narrate.word("bot.title", name=seat.name)
    try:
        play(factory, title, sys.stdin.fileno(), sys.stdout.fileno(), max_seconds=getattr(args, "max_seconds", None),
             seat=seat)
    finally:
        for d in made:
            d.close()
        if seat is not None:
            seat.close()
    store = kw.get("store_dir")
    print(narrate.word("seed_note", seed=seed) + (narrate.word("kept", folder=store) if store else ""))
    return 0
