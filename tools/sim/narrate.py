"""The simulator's words, in English and Dutch: the engine's turn record (g.log) as sentences, the tutorial's and the modes' titles, the menu's labels and the terminal's texts; runs unchanged under MicroPython (the browser edition imports it)."""
# Plain functions taking the Game, no f-strings, no typing: the webassembly
# port imports this file as it is. It allocates (it builds strings): it is for
# the simulator's panel and logs, never for the device's hot paths. The device
# itself has no words (its menu draws blocks, its status LEDs blink).
from engine import (BLACK, WHITE, EGG, ONGOING, BLACK_WON, WHITE_WON, DRAW, EV_PLACE, EV_EGG, EV_STEP,
                    EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_CAPTURED, EV_VANISH, EV_HATCH, DIR_DELTA, square_name)

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
K_GAME = "game"          # a new game began (the last one's result is no longer on the board)
K_REFUSED = "refused"    # a pad's entry was refused (its status LED blinks red): why, for that pad only


# ---------------------------------------------------------------- languages

LANGS = ("en", "nl")     # the message tables at the end of this file: EN, NL (one per language, the same keys)
_lang = ["en"]           # the current language (a list: set_lang() changes it without `global`)
_table = [None]


def set_lang(code):
    """Speak `code` ("en" or "nl") from now on: every sentence, title and label after this call. An unknown code is
    a ValueError naming the valid ones, and nothing changes (the browser calls this for ?lang=)."""
    if code not in LANGS:
        raise ValueError("unknown language %r; valid languages: %s" % (code, ", ".join(LANGS)))
    _lang[0] = code
    _table[0] = TABLES[code]


def get_lang():
    """The current language's code."""
    return _lang[0]


def word(key, **values):
    """The current language's text for `key`, its {placeholders} filled from `values`."""
    text = _table[0][key]
    return text.format(**values) if values else text


def table(code=None):
    """The whole message table of a language (default: the current one): {key: text}."""
    return TABLES[code or _lang[0]]


def colour(c):
    """BLACK/WHITE/EGG -> its word."""
    return word("black" if c == BLACK else "white" if c == WHITE else "egg" if c == EGG else "unknown")


# ---------------------------------------------------------------- turns

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
            line = word("chain", n=step_no, what=line)
        out.append((K_CLAMP, line))
        if vanished:
            who = word("both_captured" if colours_clamped[0] and colours_clamped[1] else "captured")
            out.append((K_VANISH, word("vanish1" if len(vanished) == 1 else "vanish", who=who, cells=_names(vanished))))
        for cell, c in hatches:
            out.append((K_HATCH, word("hatch", cell=square_name(cell), colour=colour(c))))
        # Each capture takes the oldest egg (a black and a white capture in one step share one, which
        # vanishes): max(black's, white's) eggs wanted; fewer taken means the eggs ran out.
        short = max(colours_clamped[0], colours_clamped[1]) - len(hatches) - len(vanished)
        if short > 0:
            if hatches or vanished:
                out.append((K_NO_EGG, word("no_egg_other1" if short == 1 else "no_egg_other", n=short)))
            else:
                out.append((K_NO_EGG, word("no_egg")))

    for op, a, b in entries(g):
        if op == EV_PLACE:
            out.append((K_PLACE, word("place", black=square_name(a), white=square_name(b))))
        elif op == EV_EGG:
            out.append((K_EGG, word("collide", cell=square_name(a), n=g.egg_count)))
        elif op == EV_STEP:
            close_step()
            step, hatches, vanished, colours_clamped = [], [], [], [0, 0]
            step_no = a
        elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
            pairs = clamped(a, b)
            colours_clamped[0 if op == EV_CLAMP_BLACK else 1] += len(pairs)
            step.append(word("clamp", who=colour(BLACK if op == EV_CLAMP_BLACK else WHITE), cell=square_name(a),
                             cells=(" %s " % word("and")).join(_names(p) for p in pairs)))
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
            out.append((K_SUDDEN, word("sudden" if before is None else "sudden_now", score=score(g))))
        return out
    out.append((K_RESULT, result_line(g)))
    return out


def result_line(g):
    """'black wins 6–5', 'white wins: five in a row', 'draw: the board is full'."""
    r = g.result
    if r == DRAW:
        return word("draw")
    if r == BLACK_WON or r == WHITE_WON:
        who = colour(BLACK if r == BLACK_WON else WHITE)
        if g.winning_black and g.winning_white:
            return word("wins_score", who=who, score=score(g))   # both have lines: more winning turtles wins
        return word("wins_row", who=who, n=g.winning_black if r == BLACK_WON else g.winning_white)
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


def lesson_text(key):
    """(title, caption) of a tutorial lesson's rule key (firmware/tutorial.py LESSONS); an unknown key gets its own
    name and no caption."""
    t = _table[0]
    return t.get("title." + key, key), t.get("caption." + key, "")


def mode_title(name):
    """A mode's name (firmware.modes.MODE_NAMES) as words for a title line."""
    return _table[0].get("mode." + name, name)


# The device's menu keys in the order the menus list them (what each does: firmware/menu.py; their words: "menu.K").
MENU_KEYS = "1234567890#*"


def menu_items():
    """[(key, label)] of the device's menu in the current language (the terminal's and the browser's menu panels)."""
    return [(k, word("menu." + k)) for k in MENU_KEYS]


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
        self.mode = -1             # mode, lesson and tutorial phase last told
        self.lesson = -1
        self.phase = -1
        self.refused = app.refused      # the app's last refusal (pad, reason, a count that moves with each)
        self.animating = modes.S_ANIM   # the play state that animates a turn's record
        self.showing = modes.S_SHOW     # a tutorial lesson (or its replay) begins in this one

    def tick(self):
        delay = self.inner()
        app = self.app
        m = app.mode
        new_game = False
        # A turn is told once its animation is over (the LEDs show it first, as in the browser edition).
        if app.state != self.animating:
            nr = self.narrator
            last = nr.turns
            told = nr.see(app.game)
            if told:                    # (no loop between turns: a MicroPython iterator is a heap object)
                for kind, text in told:
                    self.say(kind, text)
            new_game = nr.turns < last
        if m != self.mode:
            self.mode = m
            self.lesson = -1
            self.say("mode", self.modes.MODE_NAMES[m])
        if m == self.modes.M_TUTORIAL:
            st = app.state
            if app.lesson != self.lesson or (st == self.showing and self.phase != st):
                # A new lesson, or the same one again (its position is set up anew).
                self.lesson = app.lesson
                title, caption = lesson_text(self.lessons[app.lesson][0])
                self.say("lesson", word("lesson", n=app.lesson + 1, total=len(self.lessons), title=title,
                                        caption=caption))
            self.phase = st
        elif new_game:
            self.say(K_GAME, word("new_game"))
        r = app.refused
        if r != self.refused:
            # Only the refused pad's own entry, and only what its status LED shows to everyone: refused,
            # because the cell it chose is taken (on the board) or because # came before a block and a cell.
            self.refused = r
            self.say(K_REFUSED, word("taken" if r & 2 else "too_soon", pad="B" if r & 1 else "A"))
        return delay


def watch(app, say):
    """Make a firmware App tell what happens: say(kind, sentence) after the tick that did it (each turn; each mode
    change, as ("mode", its MODE_NAMES name); each tutorial lesson and its replays; each new game; each refused
    entry, as ("refused", which pad and why)). Wraps app.tick on this one object, so the
    firmware itself stays words-free (the device shows LEDs only). A tick that tells nothing allocates nothing."""
    w = Watcher(app, say)
    app.tick = w.tick
    return w


# ---------------------------------------------------------------- the message tables
# One per language, the same keys in each (host_tests/test_sim_lang.py checks the keys and the {placeholders}).
# Plain dicts of str: the MicroPython guests and the browser import this file as it is. The Dutch words follow
# the designer's own rule sheet (docs/original-nl.txt): schildpad, ei, veld, slaan, inklemmen, uitkomen.

EN = {
    # colours and pieces
    "black": "black",
    "white": "white",
    "egg": "egg",
    "unknown": "?",
    # a turn, as the engine's record tells it
    "place": "black {black}, white {white}",
    "collide": "both chose {cell}: egg #{n} laid",
    "chain": "chain, step {n}: {what}",
    "clamp": "{who} {cell} clamps {cells}: captured",
    "and": "and",
    "captured": "captured",
    "both_captured": "both captured",
    "vanish1": "{who}: egg {cells} vanishes",
    "vanish": "{who}: egg {cells} vanish",
    "hatch": "egg {cell} hatches {colour}",
    "no_egg": "no egg left to hatch",
    "no_egg_other1": "no egg left for the other {n} capture",
    "no_egg_other": "no egg left for the other {n} captures",
    "sudden": "sudden death {score}: play on until the counts differ",
    "sudden_now": "sudden death, now {score}",
    "draw": "draw: the board is full, no five in a row",
    "wins_score": "{who} wins {score}",
    "wins_row": "{who} wins: {n} in a row",
    "new_game": "new game",
    "taken": "pad {pad}: that cell is taken, choose another",
    "too_soon": "pad {pad}: first a block and a cell, then #",
    # the tutorial (firmware/tutorial.py LESSONS, by rule key)
    "lesson": "lesson {n} of {total}: {title}. {caption}",
    "title.place": "Placing",
    "caption.place": "Both choose a cell in secret; the two turtles land together.",
    "title.collision": "Collision",
    "caption.collision": "Both chose the same cell: no turtle lands, an egg is laid there instead.",
    "title.safe": "Stepping into a trap is safe",
    "caption.safe": "Only a newcomer closes a clamp: landing between two enemies captures nothing.",
    "title.capture": "Capture",
    "caption.capture": "New turtle, exactly two enemy pieces, then your old turtle: the two are captured.",
    "title.hatch": "Hatching",
    "caption.hatch": "Every capture hatches the oldest egg into a turtle of the capturer's colour.",
    "title.chain": "Chain reaction",
    "caption.chain": "A hatchling is a newcomer too: it can capture again, and hatch the next egg.",
    "title.vanish": "Contested egg",
    "caption.vanish": "Both captured in the same step: the oldest egg vanishes instead of hatching.",
    "title.win": "Five in a row",
    "caption.win": "Five or more in a line, in any direction, once the turn has settled, wins.",
    "title.sudden": "Sudden death",
    "caption.sudden": "Both made a line with equal counts: play on until the counts differ.",
    "title.draw": "Draw",
    "caption.draw": "A full board without five in a row is a draw.",
    # the modes (firmware/modes.py MODE_NAMES) and the computer's levels
    "mode.attract": "attract mode (the computer plays itself; any key: menu, # : the last mode)",
    "mode.menu": "menu",
    "mode.2p": "two players",
    "mode.easy": "you vs the computer (easy)",
    "mode.medium": "you vs the computer (medium)",
    "mode.hard": "you vs the computer (hard)",
    "mode.demo": "demo (computer vs computer)",
    "mode.tutorial": "tutorial",
    "mode.keytest": "key test",
    "level.easy": "easy",
    "level.medium": "medium",
    "level.hard": "hard",
    # the device's menu, key by key (what the keys do: firmware/menu.py)
    "menu.1": "two players",
    "menu.2": "vs computer: easy",
    "menu.3": "vs computer: medium",
    "menu.4": "vs computer: hard",
    "menu.5": "tutorial",
    "menu.6": "attract mode",
    "menu.7": "brightness down",
    "menu.8": "brightness up",
    "menu.9": "seating: pad B turned or not",
    "menu.0": "volume",
    "menu.#": "key test",
    "menu.*": "leave the menu",
    # the terminal simulator (tools/sim/terminal.py, tools/sim/cli.py)
    "title": "What the Shell \u2014 board {board}, seed {seed}",
    "starting": "starting the firmware...",
    "status.a": "A black",
    "status.b": "B white",
    "legend.oldest": "oldest egg",
    "legend.caught": "caught",
    "help.menu": "Menu: press a key on either pad",
    "help.menu_keys": "(keys: q w e / a s d / z x c = 1-9,",
    "help.menu_keys2": " 1 2 3 = * 0 #; the same on the right hand)",
    "help.pad_a": "Pad A (black): left hand",
    "help.keys": "{star} = * back  {zero} = 0  {hash} = # lock",
    "help.pad_b": "Pad B (white): right hand",
    "help.pad_b_cpu": "Pad B (white): the computer ({level})",
    "help.cpu": "(u i o / j k l / m , .  work in",
    "help.cpu2": " the menu and in 2-player games)",
    "help.turned": "turned 180\u00b0 (white sits opposite):",
    "help.flat": "not turned (side by side):",
    "help.seating": "u u # plays {cell}; menu key 9 changes it",
    "help.numpad": "or the number pad by position",
    "help.numpad2": "(NumLock off, 0 = *, Enter = #)",
    "help.keytest": "Key test: each key lights its place.",
    "help.keytest2": "Pad A top left, pad B bottom right (turned).",
    "help.keytest3": "Hold * (Tab) for the menu.",
    "help.attract": "The computer plays itself.",
    "help.attract2": "Any key: the menu; # : the last mode.",
    "help.tutorial": "Tutorial: you set the pace.",
    "help.tutorial2": "# ({a} or {b}): the next lesson",
    "help.tutorial3": "* ({a} or {b}): one lesson back",
    "help.tutorial4": "any other key: play it again",
    "help.tutorial5": "The status LEDs blink its number.",
    "help.entry": "First key: block, second: cell, # locks.",
    "help.secret": "Typed keys are never shown.",
    "help.tab": "Tab menu (holds * on pad A)",
    "help.ctrl": "Ctrl-C quit  Ctrl-L redraw  Ctrl-Z suspend",
    "game_over": "Game over: {result}",
    "so_far": " (so far: black {black}, white {white}, draws {draws})",
    "happened": "What happened (newest last):",
    "too_small": "terminal too small: {cols}x{rows}, need at least {need_cols}x{need_rows}",
    "mode_line": "mode: {title}",
    "seed_note": "tools.sim: seed {seed} (--seed {seed} plays the same game again)",
    "kept": "; settings and scores kept in {folder}",
    # a student's bot in the computer's seat (tools/cmdbot.py) and in tournaments (tools/tournament/):
    # why it broke the protocol (tools/botproc.py reasons), the report, and --watch
    "bot.title": "your bot {name} plays white",
    "bot.pad_b": "Pad B (white): your bot {name}",
    "bot.broke": "{name} broke the protocol on turn {turn}: {why}",
    "bot.fallback": "The computer ({level}) plays white for the rest of this game; {name} starts again with the next game.",
    "bot.stderr": "{name} wrote on stderr (the last lines):",
    "bot.why.cannot_run": "cannot run {command}: {error}",
    "bot.why.exited_before": "exited before the move (code {code})",
    "bot.why.exited": "exited without answering (code {code})",
    "bot.why.timeout": "no answer within {seconds} s",
    "bot.why.too_long": "a reply longer than {limit} bytes",
    "bot.why.not_utf8": "answered {reply}: not UTF-8 text",
    "bot.why.error_answer": "answered {reply}",
    "bot.why.not_cell": "answered {reply}, not a cell name like e5",
    "bot.why.taken": "chose {cell}, which is not empty",
    "bot.report": "{name} broke the protocol in game {i} of {pairing} (seed {seed}), on turn {turn} as {colour}: {why}",
    "bot.position": "The position it was asked about ({colour} to move):",
    "bot.eggs": "eggs, oldest first: {eggs}",
    "bot.no_eggs": "no eggs",
    "bot.request": "The request line it got:",
    "bot.no_stderr": "It wrote nothing on stderr.",
    "bot.more": "{name} broke the protocol in {n} more game(s); --results FILE keeps each one.",
    "bot.watch_it": "Watch that game turn by turn:",
    "watch.game": "{pairing}, game {i}, seed {seed}: black {black}, white {white}",
    "watch.replayed": "(replayed from {file})",
    "watch.turn": "turn {n}:",
    "watch.legend": "B black, W white, e egg; * placed this turn, > the oldest egg",
    "watch.enter": "Enter: the next turn; q and Enter: stop",
    "watch.forfeit": "{name} ({colour}) loses the game: it broke the protocol",
    "watch.unfinished": "no result after {n} turns: counted as a draw",
    "watch.result": "result: {result}",
}

NL = {
    "black": "zwart",
    "white": "wit",
    "egg": "ei",
    "unknown": "?",
    "place": "zwart {black}, wit {white}",
    "collide": "beiden kozen {cell}: ei #{n} gelegd",
    "chain": "kettingreactie, stap {n}: {what}",
    "clamp": "{who} {cell} klemt {cells} in: geslagen",
    "and": "en",
    "captured": "geslagen",
    "both_captured": "beiden sloegen",
    "vanish1": "{who}: ei {cells} verdwijnt",
    "vanish": "{who}: eieren {cells} verdwijnen",
    "hatch": "ei {cell} komt uit als {colour}",
    "no_egg": "geen ei om uit te komen",
    "no_egg_other1": "geen ei meer voor de andere {n} slag",
    "no_egg_other": "geen ei meer voor de andere {n} slagen",
    "sudden": "sudden death {score}: speel door tot de aantallen verschillen",
    "sudden_now": "sudden death, nu {score}",
    "draw": "gelijkspel: het bord is vol, geen vijf op een rij",
    "wins_score": "{who} wint {score}",
    "wins_row": "{who} wint: {n} op een rij",
    "new_game": "nieuw spel",
    "taken": "toetsenblok {pad}: dat veld is bezet, kies een ander",
    "too_soon": "toetsenblok {pad}: eerst een blok en een veld, dan #",
    "lesson": "les {n} van {total}: {title}. {caption}",
    "title.place": "Plaatsen",
    "caption.place": "Beiden kiezen in het geheim een veld; de twee schildpadden landen tegelijk.",
    "title.collision": "Botsing",
    "caption.collision": "Beiden kozen hetzelfde veld: er landt geen schildpad, er komt een ei.",
    "title.safe": "In een val stappen is veilig",
    "caption.safe": "Alleen een nieuwkomer sluit een klem: landen tussen twee vijanden slaat niets.",
    "title.capture": "Slaan",
    "caption.capture": "Nieuwe schildpad, precies twee vijandelijke stukken, dan je eigen schildpad: die twee zijn geslagen.",
    "title.hatch": "Uitkomen",
    "caption.hatch": "Elke slag laat het oudste ei uitkomen als schildpad van de slaande speler.",
    "title.chain": "Kettingreactie",
    "caption.chain": "Een uitgekomen schildpad is ook een nieuwkomer: ze kan weer slaan en het volgende ei laten uitkomen.",
    "title.vanish": "Betwist ei",
    "caption.vanish": "Beiden sloegen in dezelfde stap: het oudste ei verdwijnt in plaats van uit te komen.",
    "title.win": "Vijf op een rij",
    "caption.win": "Vijf of meer op een lijn, in elke richting, als de beurt tot rust is gekomen: gewonnen.",
    "title.sudden": "Sudden Death",
    "caption.sudden": "Beiden maakten een rij met evenveel schildpadden: speel door tot de aantallen verschillen.",
    "title.draw": "Gelijkspel",
    "caption.draw": "Een vol bord zonder vijf op een rij is gelijkspel.",
    "mode.attract": "etalage (de computer speelt tegen zichzelf; een toets: menu, # : de laatste modus)",
    "mode.menu": "menu",
    "mode.2p": "twee spelers",
    "mode.easy": "jij tegen de computer (makkelijk)",
    "mode.medium": "jij tegen de computer (gemiddeld)",
    "mode.hard": "jij tegen de computer (moeilijk)",
    "mode.demo": "demo (computer tegen computer)",
    "mode.tutorial": "uitleg",
    "mode.keytest": "toetsentest",
    "level.easy": "makkelijk",
    "level.medium": "gemiddeld",
    "level.hard": "moeilijk",
    "menu.1": "twee spelers",
    "menu.2": "tegen de computer: makkelijk",
    "menu.3": "tegen de computer: gemiddeld",
    "menu.4": "tegen de computer: moeilijk",
    "menu.5": "uitleg",
    "menu.6": "etalage",
    "menu.7": "minder helder",
    "menu.8": "helderder",
    "menu.9": "zitplaatsen: toetsenblok B gedraaid of niet",
    "menu.0": "volume",
    "menu.#": "toetsentest",
    "menu.*": "menu verlaten",
    "title": "What the Shell \u2014 bord {board}, seed {seed}",
    "starting": "de firmware start...",
    "status.a": "A zwart",
    "status.b": "B wit",
    "legend.oldest": "oudste ei",
    "legend.caught": "geslagen",
    "help.menu": "Menu: een toets op een van beide toetsenblokken",
    "help.menu_keys": "(toetsen: q w e / a s d / z x c = 1-9,",
    "help.menu_keys2": " 1 2 3 = * 0 #; rechts net zo)",
    "help.pad_a": "Toetsenblok A (zwart): linkerhand",
    "help.keys": "{star} = * terug  {zero} = 0  {hash} = # vast",
    "help.pad_b": "Toetsenblok B (wit): rechterhand",
    "help.pad_b_cpu": "Toetsenblok B (wit): de computer ({level})",
    "help.cpu": "(u i o / j k l / m , .  werken in",
    "help.cpu2": " het menu en met twee spelers)",
    "help.turned": "180\u00b0 gedraaid (wit zit tegenover):",
    "help.flat": "niet gedraaid (naast elkaar):",
    "help.seating": "u u # speelt {cell}; menutoets 9 wisselt",
    "help.numpad": "of het numerieke blok, op plaats",
    "help.numpad2": "(NumLock uit, 0 = *, Enter = #)",
    "help.keytest": "Toetsentest: elke toets licht op zijn plek op.",
    "help.keytest2": "Toetsenblok A linksboven, B rechtsonder (gedraaid).",
    "help.keytest3": "Houd * (Tab) vast voor het menu.",
    "help.attract": "De computer speelt tegen zichzelf.",
    "help.attract2": "Een toets: het menu; # : de laatste modus.",
    "help.tutorial": "Uitleg: jij bepaalt het tempo.",
    "help.tutorial2": "# ({a} of {b}): de volgende les",
    "help.tutorial3": "* ({a} of {b}): een les terug",
    "help.tutorial4": "elke andere toets: nog een keer",
    "help.tutorial5": "De status-LEDs knipperen het lesnummer.",
    "help.entry": "Eerste toets: blok, tweede: veld, # zet vast.",
    "help.secret": "Getypte toetsen worden nooit getoond.",
    "help.tab": "Tab menu (houdt * op toetsenblok A vast)",
    "help.ctrl": "Ctrl-C stop  Ctrl-L opnieuw tekenen  Ctrl-Z pauze",
    "game_over": "Spel voorbij: {result}",
    "so_far": " (tot nu toe: zwart {black}, wit {white}, gelijk {draws})",
    "happened": "Wat er gebeurde (nieuwste onderaan):",
    "too_small": "terminal te klein: {cols}x{rows}, minstens {need_cols}x{need_rows} nodig",
    "mode_line": "modus: {title}",
    "seed_note": "tools.sim: seed {seed} (--seed {seed} speelt hetzelfde spel opnieuw)",
    "kept": "; instellingen en scores bewaard in {folder}",
    "bot.title": "jouw bot {name} speelt wit",
    "bot.pad_b": "Toetsenblok B (wit): jouw bot {name}",
    "bot.broke": "{name} hield zich niet aan het protocol in beurt {turn}: {why}",
    "bot.fallback": "De computer ({level}) speelt wit voor de rest van dit spel; {name} start opnieuw bij het volgende spel.",
    "bot.stderr": "{name} schreef op stderr (de laatste regels):",
    "bot.why.cannot_run": "kan {command} niet starten: {error}",
    "bot.why.exited_before": "stopte v\u00f3\u00f3r de zet (code {code})",
    "bot.why.exited": "stopte zonder te antwoorden (code {code})",
    "bot.why.timeout": "geen antwoord binnen {seconds} s",
    "bot.why.too_long": "een antwoord langer dan {limit} bytes",
    "bot.why.not_utf8": "antwoordde {reply}: geen UTF-8-tekst",
    "bot.why.error_answer": "antwoordde {reply}",
    "bot.why.not_cell": "antwoordde {reply}, geen veldnaam zoals e5",
    "bot.why.taken": "koos {cell}, en dat veld is niet leeg",
    "bot.report": "{name} hield zich niet aan het protocol in spel {i} van {pairing} (seed {seed}), in beurt {turn} als {colour}: {why}",
    "bot.position": "De stelling die het kreeg ({colour} aan zet):",
    "bot.eggs": "eieren, oudste eerst: {eggs}",
    "bot.no_eggs": "geen eieren",
    "bot.request": "De vraagregel die het kreeg:",
    "bot.no_stderr": "Het schreef niets op stderr.",
    "bot.more": "{name} hield zich in nog {n} spel(len) niet aan het protocol; --results BESTAND bewaart elk.",
    "bot.watch_it": "Bekijk dat spel beurt voor beurt:",
    "watch.game": "{pairing}, spel {i}, seed {seed}: zwart {black}, wit {white}",
    "watch.replayed": "(opnieuw afgespeeld uit {file})",
    "watch.turn": "beurt {n}:",
    "watch.legend": "B zwart, W wit, e ei; * deze beurt geplaatst, > het oudste ei",
    "watch.enter": "Enter: de volgende beurt; q en Enter: stoppen",
    "watch.forfeit": "{name} ({colour}) verliest het spel: het hield zich niet aan het protocol",
    "watch.unfinished": "geen uitslag na {n} beurten: telt als gelijkspel",
    "watch.result": "uitslag: {result}",
}

TABLES = {"en": EN, "nl": NL}
set_lang("en")
