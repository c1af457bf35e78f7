"""The device application: non-blocking tick loop over pads, secret entry, turn animation, modes (attract, menu, 2 players, vs computer, tutorial) and scores."""
from engine._compat import const
from engine import Game, BLACK, WHITE, ONGOING, DRAW, IllegalMove
from firmware.display import Display, STATUS_A, STATUS_B
from firmware.scene import Scene, tri, LIGHT
from firmware.display import GRID, BLUE, WARM, AMBER, RED, FLASH, GREEN
from firmware.entry import Entry, IDLE, ENTERING, LOCKED, FB_ERROR
from firmware.keypad import EventRing, DOWN, PAD_B

TICK_MS = const(10)  # key scan period: 2 agreeing scans debounce a key (10-20 ms)
FRAME_MS = const(20)  # 50 frames/s; one strip write of 83 LEDs takes 2.5 ms
_COUNT_BEAT = const(300)  # countdown: 3 beats, then the reveal
_COUNT_MS = const(900)
_ERR_MS = const(600)  # the error blink, identical for every refused entry
_THINK_MS = const(700)  # computer-vs-computer: minimum time a turn stays open
_SUDDEN_MS = const(900)  # sudden death announced (red), then each status LED blinks its player's count
_COUNT_BLINK = const(250)
_OVER_MIN_MS = const(1500)
_OVER_MAX_MS = const(10000)
_SCORE_MS = const(3000)
_MENU_HOLD_MS = const(2000)  # hold * on pad A this long (while idle) for the menu
_MENU_IDLE_MS = const(60000)
_IDLE_MS = const(300000)  # no key for 5 minutes while a turn waits: back to attract mode
_T_SHOW_MS = const(1800)
_T_HOLD_MS = const(2500)

from firmware.modes import M_ATTRACT, M_MENU, M_2P, M_EASY, M_MEDIUM, M_HARD, M_DEMO, M_TUTORIAL
from firmware.modes import MODE_NAMES, BOT_LEVELS as _LEVELS, mode_number

# Play states
S_TURN = const(0)
S_COUNT = const(1)
S_ANIM = const(2)
S_SUDDEN = const(3)
S_OVER = const(4)
S_SCORE = const(5)
S_SHOW = const(6)  # tutorial: the position before the demonstrated turn
S_HOLD = const(7)  # tutorial: the result after it

BRIGHTNESS_LEVELS = (0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
SAFE_BRIGHTNESS = 0.02

SETTINGS_DEFAULTS = {"brightness": 3, "seating": 1, "mode": "2p"}
SCORE_DEFAULTS = {"2p": [0, 0, 0], "easy": [0, 0, 0], "medium": [0, 0, 0], "hard": [0, 0, 0]}


def bot_class():
    """engine.bot.Bot if it is there, else the placeholder."""
    try:
        from engine.bot import Bot

        return Bot
    except ImportError:
        from firmware.placeholder import PlaceholderBot

        return PlaceholderBot


class App:
    """Call tick() every TICK_MS ms (it returns the delay wanted); everything else is driven from there."""

    def __init__(self, hw, cfg, mode="attract", seed=0, store_dir=None, bots=None, trace=None, safe=False):
        self.hw = hw
        self.cfg = cfg
        self.clock = hw.clock
        self.pads = hw.pads
        self.buzzer = hw.buzzer
        self.disp = Display(hw.np, cfg)
        self.scene = Scene(self.disp)
        self.drawn = False  # menu/score picture drawn since the mode/state began
        self.ring = EventRing()
        self.t_poll = self.clock.ticks_ms()  # last pad scan made from inside a thinking bot (see _poll)
        self.game = Game()
        self.scratch = Game()  # what a computer player gets to look at: a copy, never the live game
        self.last_game = None  # the last finished game (for the simulator's final board)
        self.seed = seed
        self.trace = trace  # list to log ("bot", ...) / ("key", ...) events into (tests), or None
        self.bot_cls = bots  # None: engine.bot, imported only when a mode needs it (it is the biggest module)
        self.bots = [None, None]  # type: list
        self.settings = None
        self.scores = None
        if store_dir is not None:
            from firmware.storage import Store

            self.settings = Store(store_dir, "settings.json", SETTINGS_DEFAULTS)
            self.scores = Store(store_dir, "scores.json", SCORE_DEFAULTS)
        rotated = getattr(cfg, "PAD_B_ROTATED", True)
        if self.settings is not None:
            st = self.settings.data
            rotated = bool(st["seating"])
            b = st["brightness"]
            if 0 <= b < len(BRIGHTNESS_LEVELS):
                self.disp.set_brightness(BRIGHTNESS_LEVELS[b])
        if safe:
            self.disp.set_brightness(SAFE_BRIGHTNESS)
        self.entries = (Entry(False), Entry(rotated))
        self.err_until = [0, 0]
        self.err_on = [False, False]
        self.bz_until = 0
        self.bz_on = False
        self.bz_tone = False
        self.star_since = 0
        self.star_on = False
        now = self.clock.ticks_ms()
        self.next_frame = now
        self.t_state = now
        self.t_key = now
        self.state = S_TURN
        self.was_sudden = False
        self.lesson = 0
        self.frames = 0
        self.heavy = False
        self.downs = 0
        self.mode = M_ATTRACT
        self.set_mode(mode_number(mode) if isinstance(mode, str) else mode)

    # ---- modes ---------------------------------------------------------------
    def set_mode(self, m):
        self.mode = m
        now = self.clock.ticks_ms()
        self.t_state = now
        self.t_key = now
        self.ring.clear()
        self.bots[0] = None
        self.bots[1] = None
        cls = self.bot_cls
        if cls is None and (m == M_ATTRACT or m == M_DEMO or M_EASY <= m <= M_HARD):
            cls = self.bot_cls = bot_class()
        if m == M_ATTRACT or m == M_DEMO:
            self.bots[0] = self._make_bot(cls, "medium", self.seed)
            self.bots[1] = self._make_bot(cls, "medium", self.seed + 1)
        elif M_EASY <= m <= M_HARD:
            self.bots[1] = self._make_bot(cls, _LEVELS[m - M_EASY], self.seed)
        if m == M_MENU:
            self.drawn = False
            self.scene.hidden = True
            return
        if m == M_TUTORIAL:
            self.lesson = 0
            self._lesson_start(now)
            return
        if self.settings is not None and M_2P <= m <= M_HARD:
            self.settings.data["mode"] = MODE_NAMES[m]
            self.settings.save()
        self._new_game(now)

    def _make_bot(self, cls, level, seed):
        try:
            bot = cls(level, seed)
        except (TypeError, ValueError):
            bot = cls(1 + _LEVELS.index(level), seed)
        if hasattr(bot, "poll"):
            bot.poll = self._poll  # bound once here, not per call
        return bot

    def _poll(self):
        """Called by a thinking bot between its evaluations (hard: up to ~0.65 s on an
        RP2040): keep scanning both pads into the ring, which the bot cannot reach,
        so a short press during its thinking is not lost."""
        clock = self.clock
        now = clock.ticks_ms()
        if clock.ticks_diff(now, self.t_poll) >= TICK_MS:
            self.t_poll = now
            self.pads[0].scan(self.ring)
            self.pads[1].scan(self.ring)

    def _new_game(self, now):
        self.game.reset()
        self.was_sudden = False
        self.scene.set_board(self.game)
        self._new_turn(now)

    def _new_turn(self, now):
        """Open a turn. Honesty: every computer seat chooses HERE, before any key of
        this turn is taken from the ring into an Entry (keys stay queued until the
        next update), and it only ever sees `scratch`, a copy of the board."""
        e = self.entries
        e[0].clear()
        e[1].clear()
        for seat in range(2):
            bot = self.bots[seat]
            if bot is not None:
                self.scratch.copy_from(self.game)
                if self.trace is not None:
                    self.trace.append(("bot", seat, self.game.turns, e[0].state(), e[1].state(), len(self.ring)))
                cell = -1
                try:
                    cell = bot.choose(self.scratch, BLACK if seat == 0 else WHITE)
                except Exception:
                    cell = -1
                if type(cell) is not int or not self.game.legal(cell):
                    from firmware.placeholder import PlaceholderBot

                    cell = PlaceholderBot("easy", self.game.turns).choose(self.game, seat + 1)
                e[seat].lock_cell(cell)
        self.state = S_TURN
        self.t_state = now

    def _lesson_start(self, now):
        from firmware.tutorial import LESSONS, setup

        if self.lesson >= len(LESSONS):
            self.lesson = 0
        setup(self.game, LESSONS[self.lesson], [0] * 81)
        self.scene.set_board(self.game)
        self.entries[0].lock_cell(LESSONS[self.lesson][3])
        self.entries[1].lock_cell(LESSONS[self.lesson][4])
        self.state = S_SHOW
        self.t_state = now

    # ---- the loop ---------------------------------------------------------------
    def tick(self):
        """Scan both pads, drive the buzzer, and once per FRAME_MS update + draw + write one frame."""
        clock = self.clock
        now = clock.ticks_ms()
        ring = self.ring
        pads = self.pads
        pads[0].scan(ring)
        pads[1].scan(ring)
        if ring.downs != self.downs:
            # The click is given at the press itself, for every key alike,
            # even when the key waits in the ring until an animation ends.
            self.downs = ring.downs
            self._beep(now, 5, False)
        if self.bz_on:
            self._buzz(now)
        if clock.ticks_diff(now, self.next_frame) >= 0:
            self.frame(now)
            nf = clock.ticks_add(self.next_frame, FRAME_MS)
            if clock.ticks_diff(now, nf) >= 0:
                nf = clock.ticks_add(now, FRAME_MS)  # fell behind (a slow bot move): no burst of catch-up frames
            self.next_frame = nf
        return TICK_MS

    def frame(self, now):
        """One frame: update the state, redraw what moved, write the strip once.
        Measured (tools/bench/firmware.py, warm): median ~131k fuel (1.7 ms on an RP2040)
        on a quiet board, ~160k mid-animation, <= 300k for the frame that resolves a turn."""
        self.update(now)
        if self.heavy:
            # This frame resolved a turn (engine play(): ~50-220k fuel, more for long
            # chain reactions): no drawing and no write, the LEDs keep the last picture.
            self.heavy = False
            return
        self.render(now)
        self.disp.show()
        self.frames += 1

    def run(self, stop=None):
        """Loop forever on a device (stop() -> True ends it, for tests)."""
        sleep = self.clock.sleep_ms
        while stop is None or not stop():
            sleep(self.tick())

    # ---- feedback -------------------------------------------------------------
    def _beep(self, now, ms, tone):
        if self.buzzer is None:
            return
        self.bz_until = self.clock.ticks_add(now, ms)
        self.bz_on = True
        self.bz_tone = tone
        self.buzzer.value(1)

    def _buzz(self, now):
        if self.clock.ticks_diff(self.bz_until, now) <= 0:
            self.bz_on = False
            self.buzzer.value(0)
        elif self.bz_tone:
            self.buzzer.value(1 - self.buzzer.value())  # 50 Hz buzz at the 10 ms tick

    def _feedback(self, pad, fb, now):
        # Every key gets the same click; a refused entry the same blink + buzz.
        if fb == FB_ERROR:
            self.err_until[pad] = self.clock.ticks_add(now, _ERR_MS)
            self.err_on[pad] = True
            self._beep(now, 200, True)

    # ---- update -----------------------------------------------------------------
    def update(self, now):
        m = self.mode
        if m == M_MENU:
            self._menu(now)
        elif m == M_TUTORIAL:
            self._tutorial(now)
        else:
            self._play(now)

    def _next_key(self):
        """Next key-down event from the ring as (pad << 8 | char code), or -1. Key-ups are dropped."""
        ring = self.ring
        while True:
            ev = ring.get()
            if ev < 0:
                return -1
            if ev & DOWN:
                pad = 1 if ev & PAD_B else 0
                return (pad << 8) | ord(self.pads[pad].keys[ev & 63])

    def _play(self, now):
        clock = self.clock
        st = self.state
        m = self.mode
        el = clock.ticks_diff(now, self.t_state)
        if m == M_ATTRACT and len(self.ring):
            k = self._next_key()
            if k >= 0:
                self._to_menu_or_last(chr(k & 255))
                return
        if st == S_TURN or st == S_COUNT:
            e = self.entries
            if m != M_ATTRACT and (st == S_TURN or self._star_queued()):
                # During the countdown keys stay queued for the next turn,
                # unless a `*` is among them (it takes a move back).
                while True:
                    k = self._next_key()
                    if k < 0:
                        break
                    pad = k >> 8
                    self.t_key = now
                    if self.bots[pad] is not None:
                        continue  # the computer's seat: its pad is not used
                    if self.trace is not None:
                        self.trace.append(("key", pad, chr(k & 255), self.game.turns))
                    self._feedback(pad, e[pad].key(chr(k & 255), self.game), now)
                self._menu_hold(now)
                if self.mode != m:
                    return
            both = e[0].locked and e[1].locked
            if st == S_TURN and m != M_ATTRACT and m != M_DEMO and clock.ticks_diff(now, self.t_key) >= _IDLE_MS:
                self.set_mode(M_ATTRACT)
                return
            if st == S_TURN:
                if both and (self.bots[0] is None or el >= _THINK_MS):
                    self.state = S_COUNT
                    self.t_state = now
                    self._beep(now, 40, True)
            elif not both:
                self.state = S_TURN  # a `*` took a move back before the reveal
                self.t_state = now
            elif el >= _COUNT_MS:
                self._reveal(now)
            elif el // _COUNT_BEAT != (el - FRAME_MS) // _COUNT_BEAT and el >= FRAME_MS:
                self._beep(now, 40, True)
        elif st == S_ANIM:
            if not self.scene.advance(now, clock):
                self._settled(now)
        elif st == S_SUDDEN:
            g = self.game
            n = g.winning_black if g.winning_black > g.winning_white else g.winning_white
            if el >= _SUDDEN_MS + n * _COUNT_BLINK:
                self._new_turn(now)
        elif st == S_OVER:
            k = self._next_key()
            if (k >= 0 and el >= _OVER_MIN_MS) or el >= _OVER_MAX_MS:
                self.state = S_SCORE
                self.drawn = False
                self.t_state = now
        elif st == S_SCORE:
            self._next_key()
            if el >= _SCORE_MS:
                self._new_game(now)

    def _star_queued(self):
        ring = self.ring
        i = 0
        while True:
            ev = ring.peek(i)
            if ev < 0:
                return False
            if ev & DOWN and self.pads[1 if ev & PAD_B else 0].keys[ev & 63] == "*":
                return True
            i += 1

    def _to_menu_or_last(self, ch):
        if ch == "#" and self.settings is not None:
            self.set_mode(mode_number(self.settings.data["mode"]))
        else:
            self.set_mode(M_MENU)

    def _menu_hold(self, now):
        if self.pads[0].held("*") and self.entries[0].state() == IDLE:
            if not self.star_on:
                self.star_on = True
                self.star_since = now
            elif self.clock.ticks_diff(now, self.star_since) >= _MENU_HOLD_MS:
                self.star_on = False
                self.set_mode(M_MENU)
        else:
            self.star_on = False

    def _reveal(self, now):
        g = self.game
        b = self.entries[0].move
        w = self.entries[1].move
        try:
            g.play(b, w)
        except IllegalMove:
            # Cannot happen (both were checked when locked); recover, never crash.
            self.entries[0].clear()
            self.entries[1].clear()
            self.state = S_TURN
            self.t_state = now
            return
        self.scene.start_turn(g, now)
        self.heavy = True
        self.state = S_ANIM
        self.t_state = now

    def _settled(self, now):
        g = self.game
        self.scene.update_win(g)
        if self.mode == M_TUTORIAL:
            self.state = S_HOLD
            self.t_state = now
            return
        if g.result != ONGOING:
            self.state = S_OVER
            self.t_state = now
            self._score(g.result)
            return
        sd = g.sudden_death
        if sd and not self.was_sudden:
            self.state = S_SUDDEN
            self.t_state = now
            self.was_sudden = sd
            return
        self.was_sudden = sd
        self._new_turn(now)

    def _score(self, result):
        # The finished game is kept for the simulator; a fresh Game takes its place.
        self.last_game = self.game
        fresh = Game()
        fresh.copy_from(self.game)
        self.game = fresh
        name = MODE_NAMES[self.mode]
        if self.scores is not None and name in self.scores.data:
            self.scores.data[name][result - 1] += 1
            self.scores.save()

    def _menu(self, now):
        k = self._next_key()
        el = self.clock.ticks_diff(now, self.t_key)
        if k < 0:
            if el >= _MENU_IDLE_MS:
                self.set_mode(M_ATTRACT)
            return
        self.t_key = now
        ch = chr(k & 255)
        self._feedback(0, 1, now)
        if "1" <= ch <= "6":
            self.set_mode((M_2P, M_EASY, M_MEDIUM, M_HARD, M_TUTORIAL, M_ATTRACT)[ord(ch) - 49])
        elif ch == "7" or ch == "8":
            self.drawn = False
            b = self._brightness_index() + (1 if ch == "8" else -1)
            if 0 <= b < len(BRIGHTNESS_LEVELS):
                self.disp.set_brightness(BRIGHTNESS_LEVELS[b])
                if self.settings is not None:
                    self.settings.data["brightness"] = b
                    self.settings.save()
        elif ch == "9":
            self.drawn = False
            e = self.entries[1]
            e.rotated = not e.rotated
            if self.settings is not None:
                self.settings.data["seating"] = 1 if e.rotated else 0
                self.settings.save()
        elif ch == "*":
            self.set_mode(M_ATTRACT)

    def _brightness_index(self):
        b = self.disp.brightness
        best = 0
        for i in range(len(BRIGHTNESS_LEVELS)):
            if abs(BRIGHTNESS_LEVELS[i] - b) < abs(BRIGHTNESS_LEVELS[best] - b):
                best = i
        return best

    def _tutorial(self, now):
        from firmware.tutorial import LESSONS

        k = self._next_key()
        ch = chr(k & 255) if k >= 0 else ""
        if ch == "*":
            self.set_mode(M_MENU)
            return
        st = self.state
        el = self.clock.ticks_diff(now, self.t_state)
        if st == S_SHOW:
            if el >= _T_SHOW_MS or ch == "#":
                self._reveal(now)
        elif st == S_ANIM:
            if not self.scene.advance(now, self.clock):
                self._settled(now)
        elif st == S_HOLD:
            if el >= _T_HOLD_MS or ch == "#":
                self.lesson = (self.lesson + 1) % len(LESSONS)
                self._lesson_start(now)

    # ---- drawing --------------------------------------------------------------
    def render(self, now):
        """Bring the strip buffer up to date: only what moves is redrawn each frame."""
        m = self.mode
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        if m == M_MENU:
            self._render_menu(now)
        elif self.state == S_SCORE:
            if not self.drawn:
                self._render_score()
        else:
            sc = self.scene
            if sc.hidden:
                sc.redraw()
            sc.render(now, self.clock)
            if self.state == S_SHOW:
                # Tutorial: the two coming moves blink faintly where they will land.
                a = self.entries[0].move
                b = self.entries[1].move
                if (now >> 8) & 1:
                    dp.put(a, BLUE << 4 | 6)
                    dp.put(b, WARM << 4 | 6)
                else:
                    dp.put(a, sc.static_code(a))
                    dp.put(b, sc.static_code(b))
        dp.put(STATUS_A, self._status_code(now, 0))
        dp.put(STATUS_B, self._status_code(now, 1))

    def _status_code(self, now, pad):
        # Depends only on the entry's state (idle/entering/locked), the error
        # blink and the game phase: never on the digits typed.
        clock = self.clock
        st = self.state
        own = (BLUE if pad == 0 else WARM) << 4
        if self.err_on[pad]:
            if clock.ticks_diff(self.err_until[pad], now) > 0:
                el = clock.ticks_diff(now, self.err_until[pad]) + _ERR_MS
                return (RED << 4 | 15) if (el // 100) & 1 == 0 else 0
            self.err_on[pad] = False
        el = clock.ticks_diff(now, self.t_state)
        if self.mode == M_MENU:
            return GREEN << 4 | 8
        if st == S_TURN:
            s = self.entries[pad].state()
            if s == LOCKED:
                return own | 15
            if s == ENTERING:
                return own | (4 + (tri(now, 0) >> 5))  # breathing: typing in progress
            return own | 2
        if st == S_COUNT:
            return (FLASH << 4 | 15) if el % _COUNT_BEAT < 120 else own | 15
        if st == S_ANIM and self.scene.step >= 2 and self.scene.op == 3:
            return GREEN << 4 | 15  # a chain reaction goes on to its next step
        if st == S_SUDDEN:
            if el < 400:
                return (RED << 4 | 15) if (el // 100) & 1 == 0 else 0
            # Then the counts: this LED blinks once per winning turtle of its player.
            g = self.game
            n = g.winning_black if pad == 0 else g.winning_white
            k = el - 400
            if k // _COUNT_BLINK < n and k % _COUNT_BLINK < 150:
                return own | 15
            return own | 1
        if st == S_OVER:
            r = self.game.result
            if r == DRAW:
                return AMBER << 4 | 8
            if r == pad + 1:
                return own | (4 + ((tri(now, 0) * 11) >> 8))
            return 0
        if st == S_SHOW or st == S_HOLD:
            return GREEN << 4 | 8
        return own | 2

    def _render_score(self):
        # Tallies for this mode: black's wins fill from the top-left, white's from the bottom-right, draws on the middle row.
        self.drawn = True
        self.scene.hidden = True
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        for i in range(81):
            dp.put(i, 0)
        name = MODE_NAMES[self.mode]
        if self.scores is None or name not in self.scores.data:
            return
        s = self.scores.data[name]
        for i in range(min(s[0], 36)):
            dp.put(i, BLUE << 4 | 15)
        for i in range(min(s[1], 36)):
            dp.put(80 - i, WARM << 4 | 15)
        for i in range(min(s[2], 9)):
            dp.put(36 + i, AMBER << 4 | 12)

    def _render_menu(self, now):
        # Block k shows option k (key k on pad A): 1 two players (blue + white),
        # 2-4 computer easy/medium/hard (1-3 green dots), 5 tutorial (amber),
        # 6 attract (pulsing white), 7/8 brightness down/up (dots = level),
        # 9 seating (white dot low: pad B opposite and rotated; high: side by side).
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        if not self.drawn:
            self.drawn = True
            for i in range(81):
                dp.put(i, (GRID << 4 | 15) if LIGHT[i] else 0)
            dp.put(_centre(1) - 1, BLUE << 4 | 15)
            dp.put(_centre(1) + 1, WARM << 4 | 15)
            for k in range(3):
                c = _centre(2 + k)
                for j in range(k + 1):
                    dp.put(c - 1 + j, GREEN << 4 | 15)
            dp.put(_centre(5), AMBER << 4 | 15)
            dp.put(_centre(7), FLASH << 4 | 3)
            b = self._brightness_index()
            c = _centre(8) - 10
            for j in range(6):
                dp.put(c + (j // 3) * 9 + j % 3, (FLASH << 4 | 15) if j <= b else 0)
            rot = self.entries[1].rotated
            dp.put(_centre(9) + 9, (WARM << 4 | 15) if rot else 0)
            dp.put(_centre(9) - 9, 0 if rot else (WARM << 4 | 15))
        dp.put(_centre(6), FLASH << 4 | (4 + (tri(now, 1) >> 5)))


def _centre(k):
    """Board index of the centre cell of block k (1-9)."""
    return (((k - 1) // 3) * 3 + 1) * 9 + ((k - 1) % 3) * 3 + 1
