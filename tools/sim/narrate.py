"""Words for what the LEDs show: the engine's turn record (g.log) as sentences; runs unchanged under MicroPython (the browser edition imports it)."""
# Plain functions taking the Game, no f-strings, no typing: the webassembly
# port imports this file as it is. It allocates (it builds strings): it is for
# the simulator's panel and logs, never for the device's hot paths.
from engine import (BLACK, WHITE, EGG, ONGOING, BLACK_WON, WHITE_WON, DRAW, EV_PLACE, EV_EGG, EV_STEP,
                    EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_CAPTURED, EV_VANISH, EV_HATCH, DIR_DELTA, square_name)

COLOUR = {BLACK: "black", WHITE: "white", EGG: "egg"}
DASH = "\u2013"   # en dash between scores: "5–5"

# What each kind of line is about (the tests cross-check them against g.log).
K_PLACE = "place"
K_EGG = "egg"
K_CLAMP = "clamp"
K_HATCH = "hatch"
K_VANISH = "vanish"
K_NO_EGG = "no-egg"
K_SUDDEN = "sudden"
K_RESULT = "result"


def entries(g):
    """The last turn's record as a list of (op, a, b)."""
    log = g.log
    out = []
    for i in range(0, g.log_len, 3):
        out.append((log[i], log[i + 1], log[i + 2]))
    return out


def clamped(n, mask):
    """[(middle1, middle2)] of the clamps a newcomer on n closed: one per set bit of the direction mask."""
    out = []
    for k in range(8):
        if mask & (1 << k):
            d = DIR_DELTA[k]
            out.append((n + d, n + 2 * d))
    return out


def _names(cells):
    return " ".join(square_name(c) for c in cells)


def turn_events(g):
    """The last turn as [(kind, sentence)], in the order it happened (placement, then each step's clamps, hatches)."""
    out = []
    step = []          # this step's clamp sentences, joined into one line with its hatches
    hatches = []
    vanished = []
    colours_clamped = [0, 0]
    step_no = 0

    def close_step():
        if not step:
            return
        line = "; ".join(step)
        if step_no > 1:
            line = "chain, step %d: %s" % (step_no, line)
        out.append((K_CLAMP, line))
        if vanished:
            who = "both captured" if colours_clamped[0] and colours_clamped[1] else "captured"
            out.append((K_VANISH, "%s: egg %s vanish%s" % (who, _names(vanished), "es" if len(vanished) == 1 else "")))
        for cell, colour in hatches:
            out.append((K_HATCH, "egg %s hatches %s" % (square_name(cell), COLOUR.get(colour, "?"))))
        # Each capture takes the oldest egg (a black and a white capture in one step share one, which
        # vanishes): max(black's, white's) eggs wanted; fewer taken means the eggs ran out.
        short = max(colours_clamped[0], colours_clamped[1]) - len(hatches) - len(vanished)
        if short > 0:
            if hatches or vanished:
                out.append((K_NO_EGG, "no egg left for the other %d capture%s" % (short, "" if short == 1 else "s")))
            else:
                out.append((K_NO_EGG, "no egg left to hatch"))

    for op, a, b in entries(g):
        if op == EV_PLACE:
            out.append((K_PLACE, "black %s, white %s" % (square_name(a), square_name(b))))
        elif op == EV_EGG:
            out.append((K_EGG, "both chose %s: egg #%d laid" % (square_name(a), g.egg_count)))
        elif op == EV_STEP:
            close_step()
            step, hatches, vanished, colours_clamped = [], [], [], [0, 0]
            step_no = a
        elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
            who = "black" if op == EV_CLAMP_BLACK else "white"
            pairs = clamped(a, b)
            colours_clamped[0 if op == EV_CLAMP_BLACK else 1] += len(pairs)
            step.append("%s %s clamps %s: captured" % (who, square_name(a), " and ".join(_names(p) for p in pairs)))
        elif op == EV_CAPTURED:
            pass   # the clamp sentence names the captured cells
        elif op == EV_VANISH:
            vanished.append(a)
        elif op == EV_HATCH:
            hatches.append((a, b))
    close_step()
    return out


def score(g):
    return "%d%s%d" % (g.winning_black, DASH, g.winning_white)


def sudden_score(g):
    """(black, white) winning counts while in sudden death, else None: what a sudden-death change is measured on."""
    return (g.winning_black, g.winning_white) if g.sudden_death else None


def after_turn(g, before=None):
    """[(kind, sentence)] for how the game stands after the turn: sudden death starting or its counts changing
    (`before` is sudden_score() of the turn before), or the result."""
    out = []
    if g.result == ONGOING:
        now = sudden_score(g)
        if now is not None and now != before:
            if before is None:
                out.append((K_SUDDEN, "sudden death %s: play on until the counts differ" % score(g)))
            else:
                out.append((K_SUDDEN, "sudden death, now %s" % score(g)))
        return out
    out.append((K_RESULT, result_line(g)))
    return out


def result_line(g):
    """'black wins 6–5', 'white wins: five in a row', 'draw: the board is full'."""
    r = g.result
    if r == DRAW:
        return "draw: the board is full, no five in a row"
    if r == BLACK_WON or r == WHITE_WON:
        who = "black" if r == BLACK_WON else "white"
        if g.winning_black and g.winning_white:
            return "%s wins %s" % (who, score(g))   # both have lines: more winning turtles wins
        n = g.winning_black if r == BLACK_WON else g.winning_white
        return "%s wins: %d in a row" % (who, n)
    return ""


def narrate_turn(g, before=None):
    """Every sentence for the turn just played: what happened, then how the game stands. Plain strings."""
    return [s for _, s in turn_events(g) + after_turn(g, before)]


NOTHING = ()     # what see() returns between turns: a shared empty tuple, so a tick that plays no turn allocates nothing


class Narrator:
    """Watches a Game (call see() after every firmware tick): the sentences of each turn, once, as it is played."""

    def __init__(self):
        self.turns = -1
        self.sudden = None     # sudden_score() after the last turn seen

    def see(self, g):
        """[(kind, sentence)] if exactly one turn was played since the last call, else () (first look, new game,
        or the same position in a fresh Game object, as the firmware makes when a game ends)."""
        last = self.turns
        self.turns = g.turns
        if g.turns < last:
            self.sudden = None             # a new game
        if last < 0 or g.turns != last + 1:
            return NOTHING
        out = turn_events(g) + after_turn(g, self.sudden)
        self.sudden = sudden_score(g)
        return out


def oldest_egg(g):
    """The cell of the egg that hatches next (it gets a mark on screen), or -1 if there is none."""
    return g.egg(0) if g.egg_count else -1


LEGEND = (
    ("black", "blue turtles: black, pad A"),
    ("white", "warm turtles: white, pad B"),
    ("egg", "amber: an egg (^ marks the oldest: it hatches next)"),
    ("grid", "faint: the 3x3 blocks of the keys"),
)


# Tutorial lessons (firmware/tutorial.py LESSONS, by their rule key): a title and a caption for the screen.
LESSONS = {
    "place": ("Placing", "Both choose a cell in secret; the two turtles land together."),
    "collision": ("Collision", "Both chose the same cell: no turtle lands, an egg is laid there instead."),
    "safe": ("Stepping into a trap is safe", "Only a newcomer closes a clamp: landing between two enemies captures nothing."),
    "capture": ("Capture", "New turtle, exactly two enemy pieces, then your old turtle: the two are captured."),
    "hatch": ("Hatching", "Every capture hatches the oldest egg into a turtle of the capturer's colour."),
    "chain": ("Chain reaction", "A hatchling is a newcomer too: it can capture again, and hatch the next egg."),
    "vanish": ("Contested egg", "Both captured in the same step: the oldest egg vanishes instead of hatching."),
    "win": ("Five in a row", "Five or more in a line, in any direction, once the turn has settled, wins."),
    "sudden": ("Sudden death", "Both made a line with equal counts: play on until the counts differ."),
    "draw": ("Draw", "A full board without five in a row is a draw."),
}


def lesson_text(key):
    """(title, caption) of a tutorial lesson's rule key; an unknown key gets its own name and no caption."""
    return LESSONS.get(key, (key, ""))


def mode_title(name):
    """A mode's name (firmware.modes.MODE_NAMES) as words for a title line."""
    return MODE_TITLES.get(name, name)


MODE_TITLES = {
    "attract": "attract mode (the computer plays itself; any key: menu, # : the last mode)",
    "menu": "menu",
    "2p": "two players",
    "easy": "you vs the computer (easy)",
    "medium": "you vs the computer (medium)",
    "hard": "you vs the computer (hard)",
    "demo": "demo (computer vs computer)",
    "tutorial": "tutorial",
    "keytest": "key test",
}


class Watcher:
    """Tells what one firmware App does (see watch()). A class, not a closure: MicroPython allocates on
    every call of a closure over more than 5 variables, and this runs on every firmware tick."""

    def __init__(self, app, say):
        from firmware import modes
        from firmware.tutorial import LESSONS as FW_LESSONS
        self.app = app
        self.say = say
        self.modes = modes
        self.lessons = FW_LESSONS
        self.narrator = Narrator()
        self.inner = app.tick
        self.mode = -1             # mode and lesson last told
        self.lesson = -1
        self.animating = getattr(modes, "S_ANIM", -1)   # the play state that animates a turn's record

    def tick(self):
        delay = self.inner()
        app = self.app
        # A turn is told once its animation is over (the LEDs show it first, as in the browser edition).
        if app.state != self.animating:
            told = self.narrator.see(app.game)
            if told:                    # (no loop between turns: a MicroPython iterator is a heap object)
                for kind, text in told:
                    self.say(kind, text)
        m = app.mode
        if m != self.mode:
            self.mode = m
            self.lesson = -1
            self.say("mode", self.modes.MODE_NAMES[m])
        if m == self.modes.M_TUTORIAL and app.lesson != self.lesson:
            self.lesson = app.lesson
            title, caption = lesson_text(self.lessons[app.lesson][0])
            self.say("lesson", "lesson %d of %d: %s. %s" % (app.lesson + 1, len(self.lessons), title, caption))
        return delay


def watch(app, say):
    """Make a firmware App tell what happens: say(kind, sentence) after the tick that did it (each turn; each mode
    change, as ("mode", its MODE_NAMES name); each tutorial lesson). Wraps app.tick on this one object, so the
    firmware itself stays words-free (the device shows LEDs only). A tick that tells nothing allocates nothing."""
    w = Watcher(app, say)
    app.tick = w.tick
    return w
