"""The board picture: block grid, pieces, and the turn animation driven step by step by the engine's turn record; only changing cells are touched per frame."""
from engine._compat import const
from engine import EMPTY, BLACK, WHITE, EGG, DIR_DELTA
from engine import EV_PLACE, EV_EGG, EV_STEP, EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_CAPTURED, EV_VANISH, EV_HATCH
from firmware.display import OFF, GRID, BLUE, WARM, AMBER, RED, FLASH

# Colour of each piece value (empty, black, white, egg).
PIECE = bytes((GRID, BLUE, WARM, AMBER))

# Light blocks of the 3x3-of-3x3 grid (checkerboard of blocks 1, 3, 5, 7, 9):
# their empty cells glow faintly so players can read coordinates.
LIGHT = bytes(1 if ((i // 27) + (i % 9) // 3) % 2 == 0 else 0 for i in range(81))

# Segment durations (ms), indexed by turn-record op (0 unused).
_DUR = (0, 700, 900, 0, 800, 800, 700, 500, 900)
_DIR = DIR_DELTA

# Scene.op besides a turn-record op: no animation running, or a segment to begin on the next advance().
OP_NONE = const(0)
OP_PENDING = const(255)

WIN_NONE = const(0)
WIN_SUDDEN = const(1)  # sudden death: both lines pulse, play goes on
WIN_OVER = const(2)  # game over: winners pulse, every other piece dims


def tri(now, shift):
    """Triangle wave 0..255..0 with period 2 ** (shift + 9) ms (no allocation, no floats)."""
    x = (now >> shift) & 511
    return 511 - x if x > 255 else x


class Scene:
    """What the matrix shows. `shown` is the board as displayed: it lags the game during an animation.

    Per frame only three short lists are redrawn: the cells of the running
    animation segment, the eggs (one shared pulse level, redrawn when it
    changes) and, when lines are shown, the winning turtles. Everything else
    is drawn once, when it changes (frame costs: `python -m tools.bench --only firmware`).
    """

    def __init__(self, disp):
        self.disp = disp
        self.shown = bytearray(81)
        self.fx = bytearray(81)  # effect per cell during the current segment (0 = none)
        self.fxl = bytearray(81)  # the cells with an effect
        self.nfx = 0
        self.eggs = bytearray(81)  # cells showing an egg (any order)
        self.neggs = 0
        self.win = bytearray(81)  # 1 for turtles in a winning line
        self.wins = bytearray(81)
        self.nwins = 0
        self.win_mode = WIN_NONE
        self.egg_code = 255  # code last drawn on the eggs (255: redraw)
        self.log = bytearray(0)  # the game's turn record while animating
        self.log_len = 0
        self.pos = 0  # start of the current segment in the log
        self.end = 0  # end of the current segment
        self.op = OP_NONE  # op of the current segment (a turn-record op), OP_NONE or OP_PENDING
        self.t0 = 0
        self.dur = 0
        self.step = 0  # chain-reaction step being shown (1, 2, ...)
        self.hidden = False  # True while another picture (menu, score) owns the matrix
        self.began = False  # the last advance() began a segment (its op is in `op`): the app's cue for a sound

    # -- static picture ---------------------------------------------------
    def static_code(self, i):
        """The code cell i shows when nothing animates it (eggs: at the last pulse level)."""
        v = self.shown[i]
        if v == EMPTY:
            return (GRID << 4 | 15) if LIGHT[i] else 0
        if self.win_mode == WIN_OVER and not self.win[i]:
            return (PIECE[v] << 4) | 3  # losers and eggs dim
        if v == EGG:
            c = self.egg_code
            return c if c != 255 else (AMBER << 4 | 10)
        return (PIECE[v] << 4) | 15

    def set_board(self, game):
        """Show `game` as it stands (no animation). Draws all 81 cells: new game / lesson / mode change only."""
        sh = self.shown
        fx = self.fx
        n = 0
        for i in range(81):
            v = game.cell(i)
            sh[i] = v
            fx[i] = 0
            if v == EGG:
                self.eggs[n] = i
                n += 1
        self.neggs = n
        self.nfx = 0
        self.op = OP_NONE
        self.hidden = False
        self.update_win(game)
        self.redraw()

    def redraw(self):
        """Draw every cell from `shown` (after the matrix showed something else)."""
        self.hidden = False
        self.egg_code = 255
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        for i in range(81):
            dp.put(i, self.static_code(i))

    def update_win(self, game):
        """Cache the turtles in winning lines: 81 is_winning calls, skipped when nobody has a line."""
        w = self.win
        old_mode = self.win_mode
        n = 0
        if game.winning_black or game.winning_white:
            for i in range(81):
                x = 1 if game.is_winning(i) else 0
                w[i] = x
                if x:
                    self.wins[n] = i
                    n += 1
        elif self.nwins:
            for i in range(81):
                w[i] = 0
        was = self.nwins
        self.nwins = n
        if game.result != 0:
            self.win_mode = WIN_OVER
        elif game.sudden_death:
            self.win_mode = WIN_SUDDEN
        else:
            self.win_mode = WIN_NONE
        if self.win_mode == WIN_OVER or old_mode == WIN_OVER:
            self.redraw()  # game over (or a new game): every piece changes level
        elif was:
            self.redraw()  # lines changed or broke: turtles no longer in one stop pulsing

    # -- animation of one turn ----------------------------------------------
    def start_turn(self, game, now):
        """Begin animating game.log; `shown` still holds the board from before play().
        The first segment is set up by the next advance(): play() already had this frame."""
        self.log = game.log
        self.log_len = game.log_len
        self.pos = 0
        self.t0 = now
        self.op = OP_PENDING  # begin the segment at pos on the next advance()
        self.nfx = 0

    def _mark(self, i, v):
        if not self.fx[i]:
            self.fxl[self.nfx] = i
            self.nfx += 1
        self.fx[i] = v

    def _begin(self):
        log = self.log
        n = self.log_len
        p = self.pos
        if p >= n:
            self.op = OP_NONE
            return
        op = log[p]
        e = p + 3
        if op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
            while e < n and (log[e] == EV_CLAMP_BLACK or log[e] == EV_CLAMP_WHITE):
                e += 3
        elif op != EV_PLACE and op != EV_EGG and op != EV_STEP:
            while e < n and log[e] == op:
                e += 3
        self.op = op
        self.end = e
        self.dur = _DUR[op] if op < len(_DUR) else 300
        j = p
        while j < e:
            a = log[j + 1]
            b = log[j + 2]
            if op == EV_PLACE:
                self._mark(a, BLACK)
                self._mark(b, WHITE)
            elif op == EV_EGG:
                self._mark(a, 1)
            elif op == EV_STEP:
                self.step = a
                if a >= 2:
                    self.dur = 300  # a chain reaction's next step: the status LEDs flash green
            elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
                k = 0
                while b:
                    if b & 1:
                        d = _DIR[k]
                        self._mark(a, 2)
                        self._mark(a + d, 1)
                        self._mark(a + d + d, 1)
                        self._mark(a + 3 * d, 2)
                    b >>= 1
                    k += 1
            elif op == EV_HATCH:
                self._mark(a, b)
            else:
                self._mark(a, 1)
            j += 3

    def _apply(self):
        # The segment is over: `shown` catches up, its cells go back to their still picture.
        log = self.log
        sh = self.shown
        op = self.op
        j = self.pos
        while j < self.end:
            a = log[j + 1]
            if op == EV_PLACE:
                sh[a] = BLACK
                sh[log[j + 2]] = WHITE
            elif op == EV_EGG:
                sh[a] = EGG
                self.eggs[self.neggs] = a
                self.neggs += 1
            elif op == EV_CAPTURED or op == EV_VANISH or op == EV_HATCH:
                if sh[a] == EGG:
                    self._drop_egg(a)
                sh[a] = EMPTY if op != EV_HATCH else log[j + 2]
            j += 3
        fx = self.fx
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        for n in range(self.nfx):
            i = self.fxl[n]
            fx[i] = 0
            dp.put(i, self.static_code(i))
        self.nfx = 0

    def _drop_egg(self, a):
        eggs = self.eggs
        n = self.neggs
        for k in range(n):
            if eggs[k] == a:
                eggs[k] = eggs[n - 1]
                self.neggs = n - 1
                return

    def advance(self, now, clock):
        """Move the animation on to `now`; returns True while it still runs.

        Ending a segment and starting the next one happen in different frames
        (each redraws a handful of cells): no frame pays for both."""
        if self.op == OP_PENDING:
            self._begin()
            self.began = True
            return self.op != OP_NONE
        self.began = False
        if self.op == OP_NONE:
            return False
        if clock.ticks_diff(now, self.t0) < self.dur:
            return True
        self._apply()
        self.t0 = clock.ticks_add(self.t0, self.dur)  # exact segment grid, whatever the frame phase
        self.pos = self.end
        self.op = OP_PENDING
        return True

    # -- drawing --------------------------------------------------------------
    def render(self, now, clock):
        """Redraw the moving cells. Hot path: no allocation (heap-locked in `python -m tools.bench --only firmware`, which prints a frame's cost)."""
        if self.hidden:
            return
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        fx = self.fx
        wm = self.win_mode
        # Eggs: one shared pulse (2 s), redrawn only when its level changes.
        if wm != WIN_OVER:
            c = (AMBER << 4) | (6 + ((tri(now, 2) * 10) >> 8))
            if c != self.egg_code:
                self.egg_code = c
                eggs = self.eggs
                for k in range(self.neggs):
                    i = eggs[k]
                    if not fx[i]:
                        dp.put(i, c)
        # Winning lines pulse (0.5 s): in sudden death deeply (5..15), so both
        # lines are seen to pulse among full-bright turtles; after a win only
        # 9..15, so the winners stay far above the dimmed rest (level 3).
        if wm and self.nwins:
            if wm == WIN_OVER:
                lv = 9 + ((tri(now, 0) * 7) >> 8)
            else:
                lv = 5 + ((tri(now, 0) * 11) >> 8)
            sh = self.shown
            wins = self.wins
            for k in range(self.nwins):
                i = wins[k]
                v = sh[i]
                if not fx[i] and (v == BLACK or v == WHITE):  # (a captured one stays captured)
                    dp.put(i, (PIECE[v] << 4) | lv)
        op = self.op
        if not self.nfx:
            return
        e = clock.ticks_diff(now, self.t0)
        dur = self.dur
        sh = self.shown
        fxl = self.fxl
        for n in range(self.nfx):
            i = fxl[n]
            f = fx[i]
            v = sh[i]
            c = PIECE[v]
            lv = 15
            if op == EV_PLACE:
                # A white flash, then the new turtle.
                if e < 150:
                    c = FLASH
                    lv = 5 + e // 15
                else:
                    c = PIECE[f]
            elif op == EV_EGG:
                # Collision: both colours fight over the cell, then an egg appears.
                if e < 600:
                    c = BLUE if (e // 100) & 1 == 0 else WARM
                else:
                    c = AMBER
                    lv = (e - 600) // 20
            elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
                # The clamp: its ends blink in their colour, the caught pieces flash red.
                if f == 1:
                    if (e // 100) & 1:
                        c = RED
                elif (e // 80) & 1 == 0:
                    lv = 6
            elif op == EV_CAPTURED:
                # Flash, then sink away.
                if e < 150:
                    c = FLASH
                else:
                    lv = (15 * (dur - e)) // (dur - 150)
            elif op == EV_VANISH:
                lv = (15 * (dur - e)) // dur
            elif op == EV_HATCH:
                # The shell cracks: egg and hatchling colours alternate ever faster.
                if e > dur - 200 or ((e * e) >> 14) & 1:
                    c = PIECE[f]
                else:
                    lv = 12
            if v == EMPTY and c == GRID:
                c = OFF
            if lv < 0:
                lv = 0
            elif lv > 15:
                lv = 15
            dp.put(i, (c << 4) | lv)
