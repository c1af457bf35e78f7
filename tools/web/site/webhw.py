"""Browser hardware layer, run inside the MicroPython webassembly port in the page: page clock, pin-level pads, canvas strip, Web Audio buzzer, localStorage storage."""
# This is to the page what main.py + board_config are to a device: it builds
# the same firmware.hw bundle from the board file, with stand-ins for
# machine.Pin / neopixel.NeoPixel / machine.PWM / the clock / entropy, and
# runs the unchanged firmware.app.App. The firmware's own keypad scanning
# (rows driven low, columns pulled up, debounce) runs on emulated contacts.
#
# The webassembly port frees garbage only when control returns to JS, so the
# page calls step() once per animation frame and step() always returns: the
# firmware's endless loop (App.run) is never used here.
# MicroPython subset only: no f-strings, no typing, no dataclasses.
import js
import time

import board_config as cfg  # the board file, copied in as on a device (tools/web build --board)
from firmware import launcher
from firmware.keypad import contacts, wiring
from firmware.launcher import aside_name

STORE_DIR = "/store"  # settings.json, scores.json, error.log: mirrored to localStorage
STORE_KEY = "wts:"  # localStorage key prefix
_PERSIST_MS = 250  # how often the store directory is compared with localStorage
MIN_HOLD_MS = 60  # a click is held at least this long: the firmware debounces over 2 scans of 10 ms
MIN_GAP_MS = 50  # and the same key is let go this long before it is pressed again
MAX_CATCH_UP_MS = 250  # a frame never runs more firmware time than this (a hidden tab does not replay minutes)
# A crash is handled as firmware/launcher.py handles it on a device, with its functions and constants (one home):
# the same log, red status LEDs, pause (launcher.pause_ms), count that a healthy run starts again (launcher.ran_well)
# and, at the launcher.SET_ASIDE_AT-th crash in a row, the stored settings and scores set aside (launcher.set_aside).
# One difference, because a page has no chip: after launcher.MAX_RESTARTS crashes a device's main.py resets the chip,
# whose next boot starts the count (and the short pauses) again; the page cannot reset and a reload brings nothing
# new, so it never stops restarting and keeps launcher.PAUSE_MAX_MS between restarts (issue 30: the page used to stop
# for six days after five crashes).
IN = 0
OUT = 1


class PageClock:
    """time.ticks_* over a millisecond count the page advances; sleep_ms only moves it (nothing blocks in a page); work_ms: real ms."""

    def __init__(self):
        self.now = 0  # ms since the firmware started (the page's time)
        self.t = 0  # ticks at `now`, wrapped as the port wraps them; 0 at "power-up", as on a device
        self.ticks_add = time.ticks_add
        self.ticks_diff = time.ticks_diff
        # The page's time stands still inside a tick, so the App measures the work of one (its deeper
        # search's share) on the port's real clock: firmware/app.py, App._deepen.
        self.work_ms = time.ticks_ms

    def ticks_ms(self):
        return self.t

    def set(self, now):
        if now > self.now:
            self.t = time.ticks_add(self.t, now - self.now)
            self.now = now

    def sleep_ms(self, ms):
        if ms > 0:
            self.set(self.now + ms)


class Board:
    """The pins of the emulated board: output levels, and which pad contacts are closed (key char -> (row pin, col pin))."""

    def __init__(self, clock):
        self.clock = clock
        self.pins = {}
        self.wiring = (_contacts(0), _contacts(1))
        self.closed = ({}, {})
        self.sched = []  # (t, pad, key, closed) in time order
        self.last = ({}, {})  # key -> (pressed at, released at) as scheduled
        self.np = None

    def read(self, pin_id):
        # Pulled up unless a closed contact joins this column to a row driven low (or to ground).
        pins = self.pins
        for pad in (0, 1):
            w = self.wiring[pad]
            for key in self.closed[pad]:
                row, col = w[key]
                if col != pin_id:
                    continue
                if row is None:
                    return 0
                rp = pins.get(row)
                if rp is not None and rp.mode != IN and rp.level == 0:  # an output or open-drain row pulled low
                    return 0
        return 1

    def key(self, pad, key, down):
        """A page key event: contacts close at once and stay closed at least MIN_HOLD_MS, so even an instant click is seen."""
        if key not in self.wiring[pad]:
            return
        now = self.clock.now
        held = self.last[pad].get(key, (-1, -MIN_GAP_MS))
        if down:
            at = max(now, held[1] + MIN_GAP_MS)
            self.last[pad][key] = (at, at + MIN_HOLD_MS)
        else:
            if held[0] < 0:
                return
            at = max(now, held[0] + MIN_HOLD_MS)
            self.last[pad][key] = (held[0], at)
        ev = (at, pad, key, down)
        s = self.sched
        i = len(s)
        while i > 0 and s[i - 1][0] > at:
            i -= 1
        s.insert(i, ev)

    def due(self, now):
        s = self.sched
        while s and s[0][0] <= now:
            _, pad, key, down = s.pop(0)
            if down:
                self.closed[pad][key] = True
            elif key in self.closed[pad]:
                del self.closed[pad][key]

    def next_event(self):
        return self.sched[0][0] if self.sched else -1


def _pad_kind(pad):
    return getattr(cfg, "PAD_%s_TYPE" % "AB"[pad], getattr(cfg, "KEYPAD_TYPE", "matrix3x4"))


def _contacts(pad):
    # key char -> (row pin or None for a direct button, column pin): firmware.keypad's reading of the board file.
    return contacts(_pad_kind(pad), getattr(cfg, "PAD_" + "AB"[pad]))


def pad_keys(pad):
    """The key characters of pad 0/1 in row-major order (for the on-screen keypad)."""
    return wiring(_pad_kind(pad), getattr(cfg, "PAD_" + "AB"[pad]))[2]


class WebPin:
    """machine.Pin stand-in: outputs (and open-drain rows) keep a level, inputs read the emulated contacts."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, board, pin_id, mode=-1, pull=-1, value=None):
        self.board = board
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.level = 1 if value is None else (1 if value else 0)
        board.pins[pin_id] = self

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self.mode == OUT:
                return self.level
            return self.board.read(self.id)
        self.level = 1 if v else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    def high(self):
        self.value(1)

    def low(self):
        self.value(0)


def pin_class(board):
    """A Pin "class" bound to one board: Pin(id, mode, pull, value=...) plus the constants, as machine.Pin."""

    class Pin(WebPin):
        def __init__(self, pin_id, mode=-1, pull=-1, value=None):
            WebPin.__init__(self, board, pin_id, mode, pull, value)

    return Pin


class WebNeoPixel:
    """neopixel.NeoPixel stand-in: the firmware fills .buf in wire order; write() hands the bytes to the canvas."""

    def __init__(self, board, pin, n, bpp=3, timing=1):
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        board.np = self

    def __len__(self):
        return self.n

    def write(self):
        # The page reads .buf straight from wasm memory after the frame (no copy, no FFI per byte).
        self.writes += 1


def neopixel_class(board):
    def NeoPixel(pin, n, bpp=3, timing=1):
        return WebNeoPixel(board, pin, n, bpp, timing)

    return NeoPixel


def sound(t, hz, duty):
    js.wtsSound(t, hz, duty)


class WebPWM:
    """machine.PWM stand-in (contract 3): freq/duty_u16 go to one Web Audio square-wave oscillator."""

    def __init__(self, pin, freq=0, duty_u16=0, clock=None):
        self.clock = clock
        self._f = freq
        self._d = duty_u16
        self._sent = (-1, -1)

    def _send(self):
        if (self._f, self._d) != self._sent:
            self._sent = (self._f, self._d)
            sound(self.clock.now, self._f, self._d)

    def freq(self, hz=None):
        if hz is None:
            return self._f
        self._f = int(hz)
        self._send()

    def duty_u16(self, d=None):
        if d is None:
            return self._d
        self._d = int(d)
        self._send()

    def deinit(self):
        self._d = 0
        self._send()


def pwm_class(clock):
    def PWM(pin, freq=0, duty_u16=0, **kw):
        return WebPWM(pin, freq, duty_u16, clock)

    return PWM


class Entropy:
    """Small non-negative ints (< 2**30): crypto.getRandomValues, or a fixed LCG sequence when the page asks for a seed."""

    def __init__(self, seed=None):
        self.seed = seed

    def __call__(self):
        if self.seed is None:
            return js.wtsEntropy()
        self.seed = (self.seed * 1103515245 + 12345) & 0x3FFFFFFF
        return self.seed


# ---------------------------------------------------------------- storage
# The only files the page keeps (localStorage key STORE_KEY + name). A stored name is never used as a path:
# only these fixed names are read, written or removed (issue 30: "a/b.json", "." or "../lib/firmware/app.mpy" in the
# old "wts:files" index stopped the page or overwrote firmware files). A firmware file not listed here is not kept
# (host_tests/test_web_store.py changes settings, crashes the firmware and checks every file it wrote is listed).
STORE_FILES = ("settings.json", "scores.json", "error.log")
# ... and the settings and scores the launcher sets aside after crashes (kept for a look, never read by the firmware).
STORE_NAMES = STORE_FILES + tuple(aside_name(n) for n in STORE_FILES if n.endswith(".json"))
PAGE_KEYS = ("lang",)  # page.mjs's own localStorage keys ("wts:lang": the language chosen), kept beside the files
MAX_STORED = 16384  # characters: a longer value is no file the firmware wrote (its error.log is bounded far below)


def _valid_stored(name, v):
    """A localStorage value the page may hand to the firmware: a string of bounded length; for a .json file a JSON object
    (what Store writes). Its meaning (keys, types, ranges) is for the firmware's Store to check, as on a device."""
    if not isinstance(v, str) or len(v) > MAX_STORED:
        return False
    if name.endswith(".json"):
        import json

        from firmware.storage import json_ok

        try:
            # The grammar first, as the firmware's Store checks it: the port's json.loads also takes text that is no
            # JSON ('{"seating"0}' read as seating 0).
            return json_ok(v.encode()) and isinstance(json.loads(v), dict)
        except Exception:  # too deep, or a string the port cannot encode or decode
            return False
    return True


def restore_store():
    """localStorage -> the firmware's store directory (before the app starts). Returns {name: text} as restored.
    Only STORE_NAMES are read; a bad value and any other "wts:" key (such as the old "wts:files" index) but the
    page's own (PAGE_KEYS) are removed from localStorage, so a damaged entry costs one load, not every load."""
    import json
    import os

    ls = js.wtsStore  # page.mjs: localStorage calls that never throw
    # Stray keys are removed by page.mjs itself, which compares the keys as JS strings: a key handed to Python and
    # back is not always the same key (one with a NUL in it was never found again, and stayed).
    ls.prune(STORE_KEY, json.dumps(STORE_NAMES + PAGE_KEYS))

    try:
        os.mkdir(STORE_DIR)
    except OSError:
        pass
    saved = {}
    for name in STORE_NAMES:
        v = ls.get(STORE_KEY + name)
        if v is None:
            continue
        ok = False
        if _valid_stored(name, v):
            try:
                with open(STORE_DIR + "/" + name, "w") as f:
                    f.write(v)
                ok = True
            except Exception:  # a string the port cannot encode: the file is left out, as if never stored
                _remove(STORE_DIR + "/" + name)
        if ok:
            saved[name] = v
        else:
            js.console.warn("stored %s was damaged: dropped (the firmware uses its defaults)" % name)
            ls.remove(STORE_KEY + name)
    return saved


def _remove(path):
    import os

    try:
        os.remove(path)
    except OSError:
        pass


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except Exception:  # missing or unreadable
        return None


def persist_store(saved):
    """The store directory -> localStorage for every STORE_NAMES file that changed since the last call (a file that
    is gone is removed). A full or refused localStorage leaves the game playing: it is tried again next time."""
    ls = js.wtsStore
    for name in STORE_NAMES:
        v = _read(STORE_DIR + "/" + name)
        if saved.get(name) == v:
            continue
        if v is None:
            ls.remove(STORE_KEY + name)
            del saved[name]
        elif ls.set(STORE_KEY + name, v):
            saved[name] = v


# ---------------------------------------------------------------- the page's device
def build_hw(board, clock, entropy):
    from firmware.hw import build

    return build(cfg, pin_class(board), neopixel_class(board), clock, PWM=pwm_class(clock), entropy=entropy)


class Page:
    """The firmware on the emulated board; step(now_ms) runs it up to the page's time and returns."""

    def __init__(self, mode="attract", seed=None, lang="en", player=None):
        import narrate

        narrate.set_lang(lang)  # the narration's language (page.mjs chose it: ?lang=, the kept choice, the browser's)
        self.clock = PageClock()
        self.board = Board(self.clock)
        self.entropy = Entropy(seed)
        self.hw = build_hw(self.board, self.clock, self.entropy)
        self.np = self.board.np
        self.mode = mode
        self.saved = restore_store()
        self.t_persist = 0
        self.crashes = 0  # in a row: started again by a healthy run (launcher.ran_well)
        self.rot = 1  # pad B's seating as last seen (kept while the firmware is down)
        self.aside = False  # the stored state was set aside (once per load: later crashes are not the stored state's)
        self.started = 0  # page time of the last start
        self.dead_until = -1
        self.next_tick = 0
        self.app = None
        self.story = Story()
        # A student's bot in the computer's seat (a page served with --player; site.json names it): webbot.py.
        self.seat = None
        if player:
            from webbot import WebSeat

            self.seat = WebSeat(player, self.mode_now, self.story.note)
        self._start()

    def _start(self):
        from firmware.app import App

        self.app = None
        self.started = self.clock.now
        self.next_tick = self.clock.now
        try:
            app = App(self.hw, cfg, mode=self.mode, store_dir=STORE_DIR,  # after a crash too, as firmware.launcher
                      bots=self.seat.bots() if self.seat is not None else None)
            self.story.attach(app)
        except Exception as e:  # a start that fails (a stored value the firmware chokes on) is a crash like any other
            self._crash(e)
            return
        self.app = app

    def mode_now(self):
        """The App's mode number (the mode it starts in while it is being made: its first game asks at once)."""
        from firmware.modes import mode_number

        return self.app.mode if self.app is not None else mode_number(self.mode)

    def buf_address(self):
        import uctypes

        return uctypes.addressof(self.np.buf)

    def key(self, pad, key, down):
        self.board.key(pad, key, down)

    def step(self, now):
        """Run the firmware's ticks at their own times up to `now` (ms). Returns the strip's write count.
        Its cost per animation frame is measured by `python -m tools.bench --only web` (docs/performance.md);
        its garbage (dict walks in Board.read, tuples in the schedule) is freed once the call returns to JS."""
        clock = self.clock
        board = self.board
        if now - clock.now > MAX_CATCH_UP_MS:
            clock.set(now - MAX_CATCH_UP_MS)
            if self.next_tick < clock.now:
                self.next_tick = clock.now
        while True:
            board.due(clock.now)
            if self.dead_until >= 0:
                if clock.now >= self.dead_until:
                    self.dead_until = -1
                    self._start()
            elif clock.now >= self.next_tick:
                try:
                    self.next_tick = clock.now + self.app.tick()
                except Exception as e:  # as firmware.launcher: log, show red, restart after a while
                    self._crash(e)
            if clock.now >= now:
                break
            t = self.next_tick if self.dead_until < 0 else self.dead_until
            ev = board.next_event()
            if 0 <= ev < t:
                t = ev
            if t > now:
                t = now
            if t <= clock.now:
                t = clock.now + 1
            clock.set(t)
        if now - self.t_persist >= _PERSIST_MS:
            self.t_persist = now
            persist_store(self.saved)
        return self.np.writes

    def _crash(self, e):
        # As firmware.launcher's restart loop (its own functions): count, log and show red, set aside, pause.
        if launcher.ran_well(self.app, self.clock.now - self.started):
            self.crashes = 0  # it played well since the last start: an old crash says nothing about this one
        self.crashes += 1
        self.app = None  # the page says "crashed" until the restart
        launcher._crashed(cfg, self.hw, STORE_DIR, self.crashes, e)  # the traceback (console.log), error.log, red
        wait = launcher.pause_ms(self.crashes)
        last = launcher.format_exception(e).strip().split("\n")[-1]
        js.console.error("firmware crashed (%d in a row): %s; restarting in %d s (the traceback is above and in "
                         "error.log)" % (self.crashes, last, wait // 1000))
        if self.crashes >= launcher.SET_ASIDE_AT and not self.aside:
            self.aside = True  # once per load, as once per launch on a device
            done = launcher.set_aside(STORE_DIR)
            if done:
                note = "%d crashes in a row: stored state set aside (%s); starting on defaults" % (self.crashes, done)
                js.console.warn(note)
                launcher._log(STORE_DIR, "--- set aside after %d crashes in a row: %s\n" % (self.crashes, done))
        self.dead_until = self.clock.now + wait

    # -- what the page shows beside the matrix (never anything typed) ---------
    def set_lang(self, code):
        """Tell from now on in language `code` (the page's language switch; an unknown code: ValueError, no change)."""
        import narrate

        narrate.set_lang(code)

    def narration(self):
        """Sentences about the turn just revealed (or "\\f" for a new game), else ""."""
        return self.story.poll()

    def heap(self):
        """'live,total' bytes of the MicroPython heap after a collection (tests: live data must stay flat over a long game)."""
        import gc

        gc.collect()
        return "%d,%d" % (gc.mem_alloc(), gc.mem_alloc() + gc.mem_free())

    def waiting(self):
        """True when a game waits for both players' next moves with nothing typed (what the status LEDs show as idle)."""
        from firmware.modes import M_2P, M_TUTORIAL, M_KEYTEST, S_TURN

        app = self.app
        if app is None or app.mode < M_2P or app.mode in (M_TUTORIAL, M_KEYTEST) or app.state != S_TURN or len(app.ring):
            return False
        for seat in (0, 1):
            if app.bots[seat] is None and app.entries[seat].state() != 0:
                return False
        return True

    def info(self):
        """"mode,seating,turns,score": the mode's name, pad B's seating (1 turned), the game's turn count and the running
        score of a scored mode ("black-white-draws" from the firmware's own scores, as its score picture shows them;
        empty otherwise). Public facts only, as the LEDs show them: nothing typed is in it."""
        from firmware.modes import MODE_NAMES, SCORED

        app = self.app
        if app is None:
            return "crashed,%d,0," % self.rot
        self.rot = 1 if app.entries[1].rotated else 0
        name = MODE_NAMES[app.mode]
        score = ""
        kept = getattr(app, "scores", None)
        if kept is not None and name in SCORED:
            try:
                b, w, d = kept.data[name]
                score = "%d-%d-%d" % (b, w, d)
            except Exception:  # a damaged count the firmware has not caught: shown as no score rather than a crash
                score = ""
        return "%s,%d,%d,%s" % (name, self.rot, app.game.turns, score)


def setup_facts():
    """Board facts the page needs to draw the strip: strip map, colour offsets, status LEDs (from firmware.display)."""
    from firmware.display import strip_map, color_offsets

    m = strip_map(getattr(cfg, "MATRIX_LAYOUT", "serpentine"), getattr(cfg, "MATRIX_ORIGIN", "top-left"),
                  getattr(cfg, "MATRIX_ROTATION", 0), getattr(cfg, "STATUS_LEDS", (81, 82)))
    return ",".join(str(v) for v in m) + ";" + "%d,%d,%d" % color_offsets(getattr(cfg, "COLOR_ORDER", "GRB"))


# ---------------------------------------------------------------- narration panel
class Story:
    """The narration panel's feed. tools/sim/narrate.py (contract 8, copied in as the top-level `narrate`) watches
    the app and tells each turn once its animation is over, and each tutorial lesson; "\\f" starts a fresh panel."""

    def __init__(self):
        self.lines = []
        self.app = None
        self.turns = 0  # the game's turn count at the last sentence: a smaller one means a new game

    def attach(self, app):
        import narrate

        self.app = app
        narrate.watch(app, self.say)

    def say(self, kind, text):
        if kind == "mode":
            return  # the page's mode line shows it
        t = self.app.game.turns
        if kind == "lesson" or t < self.turns:
            self.lines.append("\f")
        self.turns = t
        self.lines.append(text)

    def note(self, lines):
        """Lines about a student's bot (webbot.WebSeat: why it broke, the end of its stderr), told as they come."""
        for line in lines:
            self.lines.append(line)

    def poll(self):
        if not self.lines:
            return ""
        out = "\n".join(self.lines)
        self.lines = []
        return out
