"""The board picture: colour-blind-safe palette, block grid, and the turn animation driven step by step by the engine's turn record."""
from engine._compat import const
from engine import EMPTY, BLACK, WHITE, EGG, DIR_DELTA
from engine import EV_PLACE, EV_EGG, EV_STEP, EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_CAPTURED, EV_VANISH, EV_HATCH

# Palette, 3 bytes per colour, chosen for colour-blind players: black's turtles
# are a deep blue (dim), white's a warm white (about 3x brighter after gamma),
# eggs amber and always pulsing; blue/white/amber stay apart for protan, deuteran
# and tritan vision, and brightness/motion separate them even in greyscale.
C_OFF = const(0)
C_GRID = const(3)
C_BLACK = const(6)
C_WHITE = const(9)
C_EGG = const(12)
C_RED = const(15)
C_FLASH = const(18)
C_MENU = const(21)
PAL = bytes((
    0, 0, 0,        # off
    14, 14, 18,     # faint grid on empty cells of the light blocks
    0, 60, 255,     # black's turtles: blue
    255, 190, 110,  # white's turtles: warm white
    255, 100, 0,    # eggs: amber (pulsing)
    255, 0, 0,      # error / captured pieces inside a clamp
    255, 255, 255,  # flash
    0, 200, 60,     # menu / tutorial accents: green
))
PIECE_COLOUR = bytes((C_GRID, C_BLACK, C_WHITE, C_EGG))

# Light blocks of the 3x3-of-3x3 grid (checkerboard of blocks: 1, 3, 5, 7, 9).
LIGHT = bytes(1 if ((i // 27) + (i % 9) // 3) % 2 == 0 else 0 for i in range(81))

# Segment durations (ms), indexed by op (0 unused).
_DUR = (0, 700, 900, 250, 800, 800, 700, 500, 900)
_DIR = DIR_DELTA

WIN_NONE = const(0)
WIN_SUDDEN = const(1)  # sudden death: both lines pulse, play goes on
WIN_OVER = const(2)  # game over: winners pulse, the other pieces dim


def paint(fr, i, c, lvl):
    """Set logical pixel i to palette colour c (offset) at level lvl (0..256)."""
    k = i * 3
    fr[k] = (PAL[c] * lvl) >> 8
    fr[k + 1] = (PAL[c + 1] * lvl) >> 8
    fr[k + 2] = (PAL[c + 2] * lvl) >> 8


def tri(now, shift):
    """Triangle wave 0..255..0 with period 2 ** (shift + 9) ms (no allocation, no floats)."""
    x = (now >> shift) & 511
    return 511 - x if x > 255 else x


class Scene:
    """What the matrix shows: `shown` is the board as displayed (it lags the game during an animation)."""

    def __init__(self):
        self.shown = bytearray(81)
        self.fx = bytearray(81)
        self.win = bytearray(81)  # 1 for turtles in a winning line (cached once per turn)
        self.win_mode = WIN_NONE
        self.log = bytearray(0)  # the game's turn record while animating
        self.log_len = 0
        self.pos = 0  # start of the current segment in the log
        self.end = 0  # end of the current segment
        self.op = 0  # op of the current segment; 0 = no animation running
        self.t0 = 0
        self.dur = 0
        self.dim = 0  # 1 while a chain-reaction step >= 2 is announced
        self.step = 0

    # -- static picture ---------------------------------------------------
    def set_board(self, game):
        """Show the game as it stands now (no animation)."""
        sh = self.shown
        for i in range(81):
            sh[i] = game.cell(i)
            self.fx[i] = 0
        self.op = 0
        self.dim = 0
        self.update_win(game)

    def update_win(self, game):
        """Cache which turtles are in winning lines (81 is_winning calls: once per turn, not per frame)."""
        w = self.win
        any_win = 0
        for i in range(81):
            x = 1 if game.is_winning(i) else 0
            w[i] = x
            any_win |= x
        if game.result != 0 and game.result != 3:
            self.win_mode = WIN_OVER
        elif game.result == 3:
            self.win_mode = WIN_OVER if any_win else WIN_NONE
        elif game.sudden_death:
            self.win_mode = WIN_SUDDEN
        else:
            self.win_mode = WIN_NONE

    def clear_win(self):
        w = self.win
        for i in range(81):
            w[i] = 0
        self.win_mode = WIN_NONE

    # -- animation of one turn ----------------------------------------------
    def start_turn(self, game, now):
        """Begin animating game.log. `shown` must still hold the board from before play()."""
        self.log = game.log
        self.log_len = game.log_len
        self.pos = 0
        self.t0 = now
        self.win_mode = WIN_NONE  # lines are re-judged after the turn settles
        self._begin()

    def busy(self):
        return self.op != 0

    def _begin(self):
        log = self.log
        n = self.log_len
        p = self.pos
        fx = self.fx
        for i in range(81):
            fx[i] = 0
        self.dim = 0
        if p >= n:
            self.op = 0
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
                fx[a] = BLACK
                fx[b] = WHITE
            elif op == EV_EGG:
                fx[a] = 1
            elif op == EV_STEP:
                self.step = a
                if a < 2:
                    self.dur = 0  # step 1 needs no announcement; later steps are the chain
                else:
                    self.dim = 1
            elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
                k = 0
                while b:
                    if b & 1:
                        d = _DIR[k]
                        fx[a] = 2
                        fx[a + d] = 1
                        fx[a + d + d] = 1
                        fx[a + 3 * d] = 2
                    b >>= 1
                    k += 1
            elif op == EV_HATCH:
                fx[a] = b
            else:
                fx[a] = 1
            j += 3

    def _apply(self):
        # The segment is over: make `shown` catch up with it.
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
            elif op == EV_CAPTURED or op == EV_VANISH:
                sh[a] = EMPTY
            elif op == EV_HATCH:
                sh[a] = log[j + 2]
            j += 3

    def advance(self, now, clock):
        """Move the animation on to `now`; returns True while it still runs."""
        while self.op:
            if clock.ticks_diff(now, self.t0) < self.dur:
                return True
            self._apply()
            self.t0 = clock.ticks_add(self.t0, self.dur)  # exact segment grid, whatever the frame phase
            self.pos = self.end
            self._begin()
        return False

    # -- drawing --------------------------------------------------------------
    def render(self, fr, now, clock):
        """Draw the 81 cells into logical frame `fr`. Hot path: no allocation."""
        sh = self.shown
        fx = self.fx
        win = self.win
        wm = self.win_mode
        op = self.op
        e = clock.ticks_diff(now, self.t0) if op else 0
        dur = self.dur
        pulse = tri(now, 2)  # 2 s period
        egg_lvl = 100 + ((pulse * 156) >> 8)
        win_lvl = 90 + ((tri(now, 0) * 166) >> 8)  # winners: fast 0.5 s pulse
        for i in range(81):
            v = sh[i]
            if v == EMPTY:
                c = C_GRID if LIGHT[i] else C_OFF
                lvl = 256
            elif v == EGG:
                c = C_EGG
                lvl = egg_lvl
            else:
                c = PIECE_COLOUR[v]
                lvl = 256
            if wm:
                if win[i]:
                    lvl = win_lvl
                elif wm == WIN_OVER and v != EMPTY:
                    lvl = lvl >> 2  # losers (and eggs) dim
            f = fx[i]
            if f:
                if op == EV_PLACE:
                    if e < 150:
                        c = C_FLASH
                        lvl = 80 + e
                    else:
                        c = PIECE_COLOUR[f]
                elif op == EV_EGG:
                    if e < 600:
                        c = C_BLACK if (e // 100) & 1 == 0 else C_WHITE
                    else:
                        c = C_EGG
                        lvl = ((e - 600) * 256) // 300
                elif op == EV_CLAMP_BLACK or op == EV_CLAMP_WHITE:
                    if f == 1:
                        if (e // 100) & 1:
                            c = C_RED
                    else:
                        lvl = 256 if (e // 80) & 1 else 110
                elif op == EV_CAPTURED:
                    if e < 150:
                        c = C_FLASH
                    else:
                        lvl = (lvl * (dur - e)) // (dur - 150)  # sink
                elif op == EV_VANISH:
                    lvl = (lvl * (dur - e)) // dur
                elif op == EV_HATCH:
                    # The shell cracks: egg and hatchling colours alternate ever faster.
                    if e > dur - 200 or ((e * e) >> 14) & 1:
                        c = PIECE_COLOUR[f]
                        lvl = 256
            if self.dim:
                lvl = lvl >> 1
            if lvl < 0:
                lvl = 0
            paint(fr, i, c, lvl)
