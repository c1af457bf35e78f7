"""The device application: a non-blocking tick loop over pads, sound and frames, and the turn flow of every mode (attract, 2 players, vs computer, demo, tutorial); menu, status LEDs, key test and sounds live in their own modules."""
from engine._compat import const
from engine import Game, BLACK, WHITE, ONGOING, DRAW, IllegalMove, EV_CAPTURED, EV_HATCH
from firmware.display import Display, STATUS_A, STATUS_B, BLUE, WARM, GREEN
from firmware.scene import Scene
from firmware.entry import Entry, IDLE, FB_ERROR
from firmware.keypad import EventRing, DOWN, PAD_B
from firmware.modes import MODE_NAMES, BOT_LEVELS, SCORED, mode_number
from firmware.modes import S_TURN  # noqa: F401  (re-exported: tools/rp2040/probe.py imports it from here)
from firmware.settings import BRIGHTNESS_LEVELS, SAFE_BRIGHTNESS, SETTINGS_DEFAULTS, SCORE_DEFAULTS
from firmware.settings import SETTINGS_FILE, SCORES_FILE, setting_ok, score_ok, settings_defaults
from firmware.sound import Sound, VOLUMES, KEY, REFUSE, BEAT, REVEAL, CAPTURE, HATCH, WIN, DRAW as SND_DRAW, SUDDEN
from firmware.status import Status, render_score, COUNT_BEAT, COUNT_BLINK

# Mode and phase numbers. Their home is firmware/modes.py; they are copied here as
# folded consts because an imported name costs a global lookup at every use and the
# frame path tests them many times (`python -m tools.bench --only firmware` prints the
# frame's cost). host_tests/test_modes.py checks every copy against modes.py.
_M_ATTRACT = const(0)
_M_MENU = const(1)
_M_2P = const(2)
_M_EASY = const(3)
_M_HARD = const(5)
_M_DEMO = const(6)
_M_TUTORIAL = const(7)
_M_KEYTEST = const(8)
_S_TURN = const(0)
_S_COUNT = const(1)
_S_ANIM = const(2)
_S_SUDDEN = const(3)
_S_OVER = const(4)
_S_SCORE = const(5)
_S_SHOW = const(6)
_S_HOLD = const(7)

TICK_MS = const(10)  # one pad scan per tick: 2 agreeing scans debounce a key (10-20 ms)
_TICK_US = const(10000)  # TICK_MS in microseconds, for run()'s grid
FRAME_MS = const(20)  # 50 frames/s; one strip write of 83 LEDs takes 2.5 ms
# While a computer thinks (or searches deeper) in the ticks (the sliced path: no second core), the next frame is due
# this long after the tick that drew the last one (drawn before that tick's slice): in every tick
# that outlasts TICK_MS (a slice makes it long), in every other one when they keep to the grid. On the FRAME_MS schedule a frame
# came only at the first tick after it was due, up to a long tick late (and at 25 frames/s while
# thinking, before, 40 ms plus a tick). `python -m tools.bench --only rp2040` prints the longest
# gap between two frames on the data pin, for both paths.
_THINK_FRAME_MS = const(11)
# The deeper search in the ticks (App._deepen): slices until this much of a tick is spent, at most this many.
_DEEP_MS = const(6)
_DEEP_SLICES = const(64)
_COUNT_MS = const(900)  # countdown: 3 beats of COUNT_BEAT, then the reveal
# ...or, against hard, once its deeper answer is ready, at most this much later: a person who locks at once
# still faces it (on a Pico it is ready soon after the countdown: `python -m tools.bench --only rp2040`).
_WAIT_MS = const(1000)
_THINK_MS = const(700)  # computer-vs-computer: minimum time a turn stays open
_SUDDEN_MS = const(900)  # sudden death announced (red), then each status LED blinks its player's count
_OVER_MIN_MS = const(1500)
_OVER_MAX_MS = const(10000)
_SCORE_MS = const(3000)
_MENU_HOLD_MS = const(2000)  # hold * on pad A this long (while idle) for the menu
_IDLE_MS = const(300000)  # no key for 5 minutes while a turn or a tutorial lesson waits: back to attract mode
# Tutorial: a lesson shows its position (the two coming moves blink) this long, plays its turn once,
# then waits for the learner's key (# next, * back, any other key: again).
_T_SHOW_MS = const(1800)
# ...and meanwhile both status LEDs blink the lesson's number (n green blinks, a pause, again):
# a device has no words, and a class can count along.
_NUM_BLINK = const(300)
_NUM_ON = const(150)
_NUM_PAUSE = const(1200)


class App:
    """Call tick() again after the delay it returns (run() does); everything else is driven from there.

    `hw` is a firmware.hw.Hardware bundle; its `entropy()` reseeds every
    computer player at the start of every game (a test or the simulator
    passes a seeded one). With `hw.thinker` (firmware.thinker.Thinker, made
    by main.py where the chip has a second core for it) a computer's search
    runs there while the ticks go on; without, a slice of it runs in each
    tick. `bots` replaces engine.bot.Bot (tests); `trace` is
    a list that receives ("bot", seat, turn, entry A state, entry B state,
    keys queued) when a computer has chosen and ("key", pad, key, turn) when
    a human key is taken into an entry (tests), or None.
    """

    def __init__(self, hw, cfg, mode="attract", store_dir=None, bots=None, trace=None, safe=False):
        self.clock = hw.clock
        # How long work inside a tick takes, in real ms: the clock's own, unless it stands still in a tick (the
        # browser page's, whose time moves between ticks only) and gives a real one as work_ms.
        self.work_ms = getattr(hw.clock, "work_ms", hw.clock.ticks_ms)
        self.pads = hw.pads
        self.entropy = hw.entropy
        self.disp = Display(hw.np, cfg)
        self.scene = Scene(self.disp)
        self.menu = None  # firmware.menu.Menu, imported when the menu first opens (its code is heap a game never needs)
        self.keytest = None  # firmware.keytest.KeyTest, the same way
        self.ring = EventRing()
        self.game = Game()
        self.scratch = None  # what a computer player gets to look at: a copy, never the live game (see _make_bot)
        self.last_game = None  # the last finished game (for the simulator's final board)
        self.trace = trace
        self.bot_cls = bots  # None: engine.bot, imported only when a mode needs it (it is the biggest module)
        self.bots = [None, None]  # type: list
        self.units = 0  # bot work units per tick (engine.bot.SLICE_UNITS: one tick's share of a move)
        self.thinking = -1  # seat whose computer is choosing (a slice per tick, or on core 1); -1: none
        t = getattr(hw, "thinker", None)  # firmware.thinker.Thinker, or None: the sliced path
        self.thinker = t if t is None or t.failed is None else None  # (failed: a search crashed there this boot)
        self.job = 0  # the thinker's job for the seat thinking; 0: not posted yet
        # Hard against a person: its answer searched deeper while the person enters their move
        # (engine.bot.deepen.Deepen, made once; it reads self.game, which stays as it is until the reveal), and
        # that search's state: -1 none, 0 begun (with core 1: posted when it is free; without: a slice in each
        # tick no computer thinks in), > 0 posted to core 1; the reveal plays its best() (docs/bot.md).
        self.deep = None
        self.ponder = -1
        self.early = False  # the computers began the next turn at the reveal (_reveal): _new_turn leaves them be
        self.settings = None
        self.scores = None
        rotated = getattr(cfg, "PAD_B_ROTATED", True)
        volume = SETTINGS_DEFAULTS["volume"]
        if store_dir is not None:
            from firmware.storage import Store

            self.settings = Store(store_dir, SETTINGS_FILE, settings_defaults(cfg), setting_ok)
            self.scores = Store(store_dir, SCORES_FILE, SCORE_DEFAULTS, score_ok)
            st = self.settings.data
            rotated = bool(st["seating"])
            b = st["brightness"]
            if 0 <= b < len(BRIGHTNESS_LEVELS):
                self.disp.set_brightness(BRIGHTNESS_LEVELS[b])
            if 0 <= st["volume"] < len(VOLUMES):
                volume = st["volume"]
        if safe:
            self.disp.set_brightness(SAFE_BRIGHTNESS)
        self.sound = Sound(hw.buzzer, self.clock, volume)
        self.entries = (Entry(False), Entry(rotated))
        self.status = Status(self.clock, self.entries, self.scene, self.sound)
        self.star_since = 0  # when * on pad A went down (held for the menu)
        self.star_on = False
        self.drawn = False  # the score picture is drawn
        now = self.clock.ticks_ms()
        self.t_tick = now  # when this tick was due (ticks run on a TICK_MS grid)
        self.next_frame = now
        self.t_state = now
        self.t_key = now
        self.state = _S_TURN
        self.was_sudden = False
        self.lesson = 0  # the tutorial's lesson (index into firmware.tutorial.LESSONS)
        # The last refused entry, for the simulator's words (the device has none): bit 0 its pad, bit 1 set when
        # the cell chosen is taken (else # came too soon), bits 2-9 a count that changes with every refusal.
        # (One attribute, not three: each name is a qstr kept for good, and three crossed the end of a qstr
        # pool, which makes the next, twice as big; `python -m tools.bench --only firmware` prints the names.)
        self.refused = 0
        self.frames = 0
        self.heavy = False
        self.downs = 0
        self.mode = _M_ATTRACT
        self.set_mode(mode_number(mode) if isinstance(mode, str) else mode)

    # ---- modes ---------------------------------------------------------------
    def set_mode(self, m):
        self.mode = m
        now = self.clock.ticks_ms()
        self.t_state = now
        self.t_key = now
        self.ring.clear()  # (a sound playing goes on: the click of the key that chose this mode)
        self._stop_thinking()
        self.bots[0] = None
        self.bots[1] = None
        if m == _M_ATTRACT or m == _M_DEMO:
            self.bots[0] = self._make_bot("medium")
            self.bots[1] = self._make_bot("medium")
        elif _M_EASY <= m <= _M_HARD:
            self.bots[1] = self._make_bot(BOT_LEVELS[m - _M_EASY])
            if m == _M_HARD and getattr(self.bots[1], "_w", None) is not None:
                if self.deep is None:
                    from engine.bot.deepen import Deepen

                    self.deep = Deepen(self.bots[1])
                self.deep.bot = self.bots[1]
        if m == _M_MENU:
            if self.menu is None:
                from firmware.menu import Menu

                self.menu = Menu(self.disp, self.entries[1], self.sound, self.save_setting)
            self.menu.drawn = False
            self.scene.hidden = True
            return
        if m == _M_KEYTEST:
            if self.keytest is None:
                from firmware.keytest import KeyTest

                self.keytest = KeyTest(self.pads)
            self.keytest.start(now, self.entries[1].rotated)
            self.scene.hidden = True
            return
        if m == _M_TUTORIAL:
            self.lesson = 0
            self.star_on = False
            self._lesson_start(now)
            return
        if _M_2P <= m <= _M_HARD:
            self.save_setting("mode", MODE_NAMES[m])
        self._new_game(now)

    def _make_bot(self, level):
        if self.bot_cls is None:
            from engine.bot import Bot, board

            self.bot_cls = Bot
            # the engine's bots play their trial turns on a Game of their own:
            # it doubles as the copy they are shown (one Game fewer on the heap)
            self.scratch = board()
        if self.scratch is None:
            self.scratch = Game()  # a plug-in bot class (bots=...): a copy of our own
        if not self.units:
            from engine.bot import SLICE_UNITS

            self.units = SLICE_UNITS
        return self.bot_cls(level)  # seeded per game in _new_game

    def save_setting(self, name, value):
        """Change one setting and write settings.json (no-op without storage)."""
        if self.settings is not None:
            self.settings.data[name] = value
            self.settings.save()

    def _new_game(self, now):
        self._stop_thinking()  # (the bots are reseeded below: no search may be using them)
        self.game.reset()
        self.was_sudden = False
        for bot in self.bots:
            if bot is not None:
                bot.reseed(self.entropy())  # a fresh game every time: nothing to replay (issue 12)
        self.scene.set_board(self.game)
        self._new_turn(now)

    def _new_turn(self, now):
        """Open a turn. Honesty: every computer seat chooses first, a slice per tick, before any key of
        this turn is taken from the ring into an Entry (keys stay queued meanwhile), and it only ever
        sees `scratch`, a copy of the board."""
        self.state = _S_TURN
        self.t_state = now
        if self.early:
            # They began at the reveal (the entries were cleared then): a cell chosen is locked in already, a
            # computer still choosing goes on. No key of this turn has been read (none is in an animation).
            self.early = False
            return
        e = self.entries
        e[0].clear()
        e[1].clear()
        self._start_bot(0)

    def _start_bot(self, seat):
        # The next computer seat from `seat` on starts thinking; none left: thinking = -1.
        while seat < 2:
            bot = self.bots[seat]
            if bot is not None:
                self.thinking = seat
                if self.thinker is None:
                    self.scratch.copy_from(self.game)
                    bot.start(self.scratch, BLACK if seat == 0 else WHITE)
                else:
                    self._post()
                return
            seat += 1
        self.thinking = -1

    def _post(self):
        # Core 1 gets the thinking seat's move once it has let go of the last one (a stopped search
        # finishes its step() first: the scratch and the bots' shared memory are its until then).
        t = self.thinker
        if not t.idle():
            return
        seat = self.thinking
        bot = self.bots[seat]
        self.scratch.copy_from(self.game)
        bot.start(self.scratch, BLACK if seat == 0 else WHITE)
        self.job = t.post(bot, self.units)

    def _stop_thinking(self):
        # No search may go on with what is about to change (a mode, a game): its answer is never taken.
        if self.thinker is not None:
            self.thinker.stop(self.clock)
        self.job = 0
        self.thinking = -1
        self.ponder = -1
        self.early = False

    def _pondered(self):
        # The reveal: core 1 is told to let go, and the turn waits for it (at most one step() of the deeper
        # search, which reads the live game); then the deeper answer if it is ready, else the computer's own
        # stands. False while core 1 still holds it (the reveal tries again next tick). Without core 1 the
        # deeper search simply gets no more slices.
        t = self.thinker
        if t is not None:
            t.live = 0
            if not t.idle():
                return False
        c = self.deep.best()
        e = self.entries[1]
        if c >= 0 and c != e.move and self.game.legal(c):
            e.lock_cell(c)
            if self.trace is not None:
                self.trace.append(("deep", 1, self.game.turns, c))
        self.ponder = -1
        return True

    def _deepening(self):
        # The deeper search runs in the ticks (no core 1): begun, not done, and no computer thinks.
        return self.ponder == 0 and self.thinker is None and self.thinking < 0 and not self.deep.done()

    def _deepen(self):
        """The deeper search in the ticks (the sliced path: no core 1): another slice while the slices so far
        took under a millisecond each and _DEEP_MS is not spent, at most _DEEP_SLICES. A microcontroller's
        slice takes several ms, so it gets one a tick as a move does (its longest tick: `python -m tools.bench
        --only rp2040`, sliced); a PC gets many, so the simulator has the deeper answer within about a
        second, not the twenty that one slice a tick would take."""
        clock = self.clock
        ms = self.work_ms
        t0 = ms()
        d = self.deep
        n = 0
        while n < _DEEP_SLICES:
            if d.step(self.units) >= 0:
                return
            n += 1
            e = clock.ticks_diff(ms(), t0)
            if e >= n or e >= _DEEP_MS:
                return

    def _think(self):
        """One slice of the thinking computer's search, or (with a thinker) a look at core 1's answer.
        The longest tick: `python -m tools.bench --only firmware` (sliced), `--only rp2040` (both)."""
        seat = self.thinking
        t = self.thinker
        if t is None:
            cell = self.bots[seat].step(self.units)
        elif self.job:
            try:
                cell = t.answer(self.job)
            except RuntimeError as e:
                # The search failed on core 1 (its stack overflowed, say): the move starts again in the
                # ticks, and core 1 is not used again this boot. A bug in the search fails there too, on
                # core 0, and the launcher handles it as any crash.
                t.stop(self.clock)
                t.failed = str(e)
                self.thinker = None
                self.job = 0
                self._start_bot(seat)
                return
        else:
            self._post()
            return
        if cell < 0:
            return
        self.job = 0
        if not self.game.legal(cell):
            raise ValueError("the computer chose cell %r, which is not free" % (cell,))
        if self.trace is not None:
            e = self.entries
            self.trace.append(("bot", seat, self.game.turns, e[0].state(), e[1].state(), len(self.ring)))
        self.entries[seat].lock_cell(cell)
        if seat == 1 and self.deep is not None and self.mode == _M_HARD:
            self.deep.begin(self.game, WHITE)  # (posted once core 1 lets go of this move, or sliced: see tick)
            self.ponder = 0
        self._start_bot(seat + 1)

    def _lesson_start(self, now):
        """Show lesson self.lesson's position with its two moves locked; the turn plays after _T_SHOW_MS.
        A lesson starts on a key (or the mode's start): t_key, the idle clock, is also its number's blink clock."""
        from firmware.tutorial import LESSONS, setup

        if not 0 <= self.lesson < len(LESSONS):
            self.lesson = 0
        lesson = LESSONS[self.lesson]
        setup(self.game, lesson, [0] * 81)
        self.scene.set_board(self.game)
        self.entries[0].lock_cell(lesson[3])
        self.entries[1].lock_cell(lesson[4])
        self.state = _S_SHOW
        self.t_state = now
        self.t_key = now

    # ---- the loop ---------------------------------------------------------------
    def tick(self):
        """Scan both pads, drive the buzzer, once per FRAME_MS update + draw + write one frame, and give a
        thinking computer one slice. Returns the ms to wait until the next tick is due.

        Worst tick (python -m tools.bench --only firmware): a frame plus a bot
        slice while the hard computer thinks."""
        clock = self.clock
        now = clock.ticks_ms()
        ring = self.ring
        pads = self.pads
        pads[0].scan(ring)
        pads[1].scan(ring)
        if ring.downs != self.downs:
            # The click sounds at the press itself, the same for every key,
            # even while the key waits in the ring until an animation ends.
            self.downs = ring.downs
            self.sound.play(KEY, now)
        self.sound.tick(now)
        # The frame comes before the slice: it is then as late as its tick's start, whatever the slices
        # cost (after them it was late by this tick's slice and early by the last frame's). A computer
        # the frame sets thinking gets its first slice in the next tick (this one carried a frame's work).
        th = self.thinking
        t = self.next_frame
        if clock.ticks_diff(now, t) >= 0:
            # The frame is drawn for its scheduled time, not for the ms the tick happened to
            # start in: a key scan that costs a few us more (it stops at the first low column)
            # must not move a breathing LED by one level (secrecy; the emulated Pico saw it).
            self.frame(t)
            if self.thinker is not None or (self.thinking < 0 and not self._deepening()):
                nf = clock.ticks_add(t, FRAME_MS)
                if clock.ticks_diff(now, nf) >= 0:
                    nf = clock.ticks_add(now, FRAME_MS)  # fell behind: no burst of catch-up frames
            else:
                nf = clock.ticks_add(now, _THINK_FRAME_MS)
            self.next_frame = nf
        if th >= 0 and self.thinking >= 0:
            self._think()
        elif self.ponder == 0:
            if self.thinker is not None:
                if self.thinker.idle():
                    self.ponder = self.thinker.post(self.deep, self.units)
            elif self._deepening():
                self._deepen()
        # Tick to a deadline: the next tick is due TICK_MS after this one was,
        # whatever this one cost; an overrun starts the next one at once.
        nt = clock.ticks_add(self.t_tick, TICK_MS)
        wait = clock.ticks_diff(nt, clock.ticks_ms())
        if wait < 0:
            nt = clock.ticks_ms()
            wait = 0
        self.t_tick = nt
        return wait

    def frame(self, now):
        """One frame: update the state, redraw what moved, write the strip once.
        Its cost on a quiet board, mid-animation and with the power cap on is printed by
        `python -m tools.bench --only firmware`, against the frame budget there."""
        self.update(now)
        if self.heavy:
            # This frame resolved a turn (engine play() is the frame's work, longest for
            # chain reactions): no drawing and no write, the LEDs keep the last picture.
            self.heavy = False
            return
        self.render(now)
        self.disp.show()
        self.frames += 1

    def run(self, stop=None):
        """Loop forever on a device (stop() -> True ends it, for tests).

        With a microsecond clock (MicroPython's time: ticks_us + sleep_us) each tick starts on an
        exact TICK_MS grid. With sleep_ms alone it did not: rp2's sleep_ms(n) wakes n ms after the
        call, so a tick began at the sub-ms phase where the one before it ended, and that depends
        on what it did, i.e. on which key is pending. On the emulated Pico that drift (under a
        millisecond) moved a key's status-LED feedback by one frame for a different secret move.
        On the grid the pads are scanned at the same microsecond whatever the pending moves.
        The whole ms are slept with sleep_ms (it serves USB and Ctrl-C and, on FreeRTOS, yields;
        ESP32's sleep_us is a busy loop that does neither), only the last < 1 ms with sleep_us.
        CircuitPython's clock has no microseconds: ms sleeps there."""
        clock = self.clock
        us = getattr(clock, "ticks_us", None)
        if us is None:
            sleep = clock.sleep_ms
            while stop is None or not stop():
                sleep(self.tick())
            return
        sleep_ms = clock.sleep_ms
        sleep_us = clock.sleep_us
        add = clock.ticks_add
        diff = clock.ticks_diff
        due = us()
        while stop is None or not stop():
            if self.tick() > 0:
                due = add(due, _TICK_US)
                d = diff(due, us())
                if d > 0:
                    if d >= 1000:
                        sleep_ms(d // 1000)
                        d = diff(due, us())
                    if d > 0:
                        sleep_us(d)
                    continue
            due = us()  # overran: the grid starts again from now, as tick()'s own does

    # ---- update -----------------------------------------------------------------
    def update(self, now):
        m = self.mode
        if m == _M_MENU:
            self._menu(now)
        elif m == _M_KEYTEST:
            self._keytest(now)
        elif m == _M_TUTORIAL:
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
        if m == _M_ATTRACT and len(self.ring):
            k = self._next_key()
            if k >= 0:
                self._to_menu_or_last(chr(k & 255))
                return
        if st == _S_TURN or st == _S_COUNT:
            e = self.entries
            if m != _M_ATTRACT and (st == _S_TURN or self._star_queued()):
                # While a computer thinks, and during the countdown, keys stay
                # queued for later, unless a `*` is among them in the countdown
                # (it takes a move back).
                while self.thinking < 0:
                    k = self._next_key()
                    if k < 0:
                        break
                    pad = k >> 8
                    self.t_key = now
                    if self.bots[pad] is not None:
                        continue  # the computer's seat: its pad is not used
                    if self.trace is not None:
                        self.trace.append(("key", pad, chr(k & 255), self.game.turns))
                    ent = e[pad]
                    d = ent.digits
                    if ent.key(chr(k & 255), self.game) == FB_ERROR:
                        # The same blink and sound for every refused entry.
                        self.status.error(pad, now)
                        self.sound.play(REFUSE, now)
                        # Why, for the simulator's words: a # after a block and a cell can only be
                        # refused for a taken cell (public: the board shows it); otherwise # came too
                        # soon. The count of digits may be shown (firmware/entry.py), never the digits.
                        self.refused = (((self.refused >> 2) + 1) & 255) << 2 | pad | (2 if d >= 2 else 0)
                self._menu_hold(now)
                if self.mode != m:
                    return
            both = e[0].locked and e[1].locked
            if st == _S_TURN and m != _M_ATTRACT and m != _M_DEMO and clock.ticks_diff(now, self.t_key) >= _IDLE_MS:
                self.set_mode(_M_ATTRACT)
                return
            if st == _S_TURN:
                if both and (self.bots[0] is None or el >= _THINK_MS):
                    self.state = _S_COUNT
                    self.t_state = now
                    self.sound.play(BEAT, now)
            elif not both:
                self.state = _S_TURN  # a `*` took a move back before the reveal
                self.t_state = now
            elif el >= _COUNT_MS and (self.ponder < 0 or el >= _COUNT_MS + _WAIT_MS or self.deep.done()):
                self._reveal(now)
            elif el // COUNT_BEAT != (el - FRAME_MS) // COUNT_BEAT and el >= FRAME_MS:
                self.sound.play(BEAT, now)
        elif st == _S_ANIM:
            sc = self.scene
            if not sc.advance(now, clock):
                self._settled(now)
            elif sc.began:
                self._segment_sound(now)
        elif st == _S_SUDDEN:
            g = self.game
            n = g.winning_black if g.winning_black > g.winning_white else g.winning_white
            if el >= _SUDDEN_MS + n * COUNT_BLINK:
                self._new_turn(now)
        elif st == _S_OVER:
            k = self._next_key()
            if (k >= 0 and el >= _OVER_MIN_MS) or el >= _OVER_MAX_MS:
                self.state = _S_SCORE
                self.drawn = False
                self.t_state = now
        elif st == _S_SCORE:
            self._next_key()
            if el >= _SCORE_MS:
                self._new_game(now)

    def _segment_sound(self, now):
        # A capture or hatch segment of the turn animation starts with its sound.
        op = self.scene.op
        if op == EV_CAPTURED:
            self.sound.play(CAPTURE, now)
        elif op == EV_HATCH:
            self.sound.play(HATCH, now)

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
            self.set_mode(_M_MENU)

    def _menu_hold(self, now):
        if self.pads[0].held("*") and self.entries[0].state() == IDLE:
            if not self.star_on:
                self.star_on = True
                self.star_since = now
            elif self.clock.ticks_diff(now, self.star_since) >= _MENU_HOLD_MS:
                self.star_on = False
                self.set_mode(_M_MENU)
        else:
            self.star_on = False

    def _reveal(self, now):
        if self.ponder >= 0 and not self._pondered():
            return
        g = self.game
        b = self.entries[0].move
        w = self.entries[1].move
        try:
            g.play(b, w)
        except IllegalMove:
            # Cannot happen (both were checked when locked); recover, never crash.
            self.entries[0].clear()
            self.entries[1].clear()
            self.state = _S_TURN
            self.t_state = now
            return
        self.sound.play(REVEAL, now)
        self.scene.start_turn(g, now)
        self.heavy = True
        self.state = _S_ANIM
        self.t_state = now
        if g.result == ONGOING and (self.bots[0] is not None or self.bots[1] is not None):
            # The next turn's board is known now: the computers choose it while this one animates (on a copy;
            # the entries, whose moves are played, cleared for it), so hard's deeper answer is ready that much
            # sooner for the person (docs/bot.md).
            self.entries[0].clear()
            self.entries[1].clear()
            self.early = True
            self._start_bot(0)

    def _settled(self, now):
        g = self.game
        self.scene.update_win(g)
        if self.mode == _M_TUTORIAL:
            self.state = _S_HOLD
            self.t_state = now
            return
        if g.result != ONGOING:
            self.state = _S_OVER
            self.t_state = now
            self.sound.play(SND_DRAW if g.result == DRAW else WIN, now)
            self._score(g.result)
            return
        sd = g.sudden_death
        if sd and not self.was_sudden:
            self.state = _S_SUDDEN
            self.t_state = now
            self.was_sudden = sd
            self.sound.play(SUDDEN, now)
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
        if self.scores is not None and name in SCORED:
            self.scores.data[name][result - 1] += 1
            self.scores.save()

    def _menu(self, now):
        k = self._next_key()
        if k >= 0:
            self.t_key = now
            to = self.menu.key(chr(k & 255), now)
            if to >= 0:
                self.set_mode(to)
        elif self.menu.idle(now, self.clock, self.t_key):
            self.set_mode(_M_ATTRACT)

    def _keytest(self, now):
        kt = self.keytest
        ring = self.ring
        while True:
            ev = ring.get()
            if ev < 0:
                break
            kt.event(ev, now)
        to = kt.update(now, self.clock)
        if to >= 0:
            self.set_mode(to)

    def _tutorial(self, now):
        """The learner paces the lessons: each plays its turn once, then waits. Keys on either pad: # next lesson,
        * back one (on release: holding * on pad A opens the menu instead, as in every mode), any other key
        plays the lesson again. Five minutes without a key: attract mode, as a waiting game does."""
        clock = self.clock
        ring = self.ring
        pads = self.pads
        go = 0  # 0: no key; 1 next, 2 back, 3 again
        while True:
            ev = ring.get()
            if ev < 0:
                break
            ch = pads[1 if ev & PAD_B else 0].keys[ev & 63]
            if ev & DOWN:
                self.t_key = now
                if ch == "#":
                    go = 1
                elif ch != "*":
                    go = 3
            elif ch == "*":
                # (Only the tutorial's own * comes up here: the menu, the one way in, takes every key down.)
                go = 2
        if pads[0].held("*"):
            if not self.star_on:
                self.star_on = True
                self.star_since = now
            elif clock.ticks_diff(now, self.star_since) >= _MENU_HOLD_MS:
                self.star_on = False
                self.set_mode(_M_MENU)
                return
        else:
            self.star_on = False
        if go:
            if go < 3:
                from firmware.tutorial import LESSONS

                n = len(LESSONS)
                self.lesson = (self.lesson + (1 if go == 1 else n - 1)) % n
            self._lesson_start(now)
            return
        if clock.ticks_diff(now, self.t_key) >= _IDLE_MS:
            self.set_mode(_M_ATTRACT)
            return
        st = self.state
        if st == _S_SHOW:
            if clock.ticks_diff(now, self.t_state) >= _T_SHOW_MS:
                self._reveal(now)
        elif st == _S_ANIM:
            sc = self.scene
            if not sc.advance(now, clock):
                self._settled(now)
            elif sc.began:
                self._segment_sound(now)
        # _S_HOLD: the lesson's result stays until a key

    def _lesson_code(self, now):
        """Status LED code while a lesson shows or waits: its number as green blinks, then a pause, over and over."""
        k = self.lesson + 1
        e = self.clock.ticks_diff(now, self.t_key) % (k * _NUM_BLINK + _NUM_PAUSE)
        if e < k * _NUM_BLINK and e % _NUM_BLINK < _NUM_ON:
            return GREEN << 4 | 15
        return GREEN << 4 | 2

    # ---- drawing --------------------------------------------------------------
    def render(self, now):
        """Bring the strip buffer up to date: only what moves is redrawn each frame."""
        m = self.mode
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        if m == _M_KEYTEST:
            self.keytest.render(dp)
            return
        if m == _M_MENU:
            self.menu.render(now)
        elif self.state == _S_SCORE:
            if not self.drawn:
                self.drawn = True  # (drawn once: nothing on it moves)
                self.scene.hidden = True
                name = MODE_NAMES[m]
                render_score(dp, self.scores.data[name] if self.scores is not None and name in SCORED else None)
        else:
            sc = self.scene
            if sc.hidden:
                sc.redraw()
            sc.render(now, self.clock)
            if self.state == _S_SHOW:
                # Tutorial: the two coming moves blink faintly where they will land.
                a = self.entries[0].move
                b = self.entries[1].move
                if (now >> 8) & 1:
                    dp.put(a, BLUE << 4 | 6)
                    dp.put(b, WARM << 4 | 6)
                else:
                    dp.put(a, sc.static_code(a))
                    dp.put(b, sc.static_code(b))
        if m == _M_TUTORIAL and self.state != _S_ANIM:
            c = self._lesson_code(now)
            dp.put(STATUS_A, c)
            dp.put(STATUS_B, c)
            return
        st = self.status
        el = self.clock.ticks_diff(now, self.t_state)
        dp.put(STATUS_A, st.code(now, 0, m, self.state, el, self.thinking, self.game))
        dp.put(STATUS_B, st.code(now, 1, m, self.state, el, self.thinking, self.game))
