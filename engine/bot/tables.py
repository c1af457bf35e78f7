"""What the bot knows and where it works: each level's parameters, the window weights, the padded board's lines and the tables built from them at import, and the scratch memory every Bot shares (Work, board())."""
from array import array

from engine._compat import const
from engine import Game, PAD, WALL

LEVELS = ("easy", "medium", "hard")


# Each level's parameters, by name (Bot copies them into its attributes):
#   rows     own candidate moves: the payoff matrix's rows (0: easy, no matrix)
#   cols     the opponent's candidate moves: its columns
#   iters    fictitious-play iterations for the whole move (solve.py)
#   noise    payoff noise, +- points
#   threats  clamp-threat terms in the evaluation, and exact rescoring of capture turns
#   ant      anticipatory captures added to the candidates, per side, at most
#   replies  rounds of the opponent's best-reply search over the whole board (replies.py)
# Chosen by tournaments against the exploiter and matrix1 baselines: the
# rounds, their figures and the commands are in docs/bot-experiments.md.
PARAMS = {
    "easy": {"rows": 0, "cols": 0, "iters": 0, "noise": 0, "threats": 0, "ant": 0, "replies": 0},
    "medium": {"rows": 3, "cols": 3, "iters": 40, "noise": 3, "threats": 0, "ant": 1, "replies": 0},
    "hard": {"rows": 8, "cols": 6, "iters": 400, "noise": 4, "threats": 1, "ant": 1, "replies": 2},
}

# The bot works on the engine's padded 11 x 11 board (Game.copy_padded: a
# WALL ring around the 9 x 9), so line walks stop at the wall without bounds
# checks. Cell i (0..80) is padded cell PAD[i].
_STEPS = (1, 11, 12, 10)  # E, S, SE, SW in padded space: the 4 line directions
DIRS = (-11, -10, 1, 12, 11, 10, -1, -12)  # the 8 clamp directions in padded space
_NLINES = const(40)  # lines of 4+ cells: 9 rows, 9 columns, 11 diagonals each way

# Window weights (black's point of view; the bot flips the sign for white).
# _LW[n]: a 5-cell window holding n turtles of one colour and otherwise only
# empty cells (a potential line of five). _LWD[n]: gain of adding a turtle
# (the heuristic's; KHB[4], completing a five, is what easy never misses).
_LW = (0, 2, 12, 70, 450, 6000)
_LWD = (0, 10, 58, 380, 5550, 0)


def _build():
    """Static tables (built once at import; allocation here is fine)."""
    onb = bytearray(121)
    for p in PAD:
        onb[p] = 1
    # Lines of 4+ cells in each direction (first cell, step) and the
    # line through each padded cell per direction (255: none of 4+ cells).
    ls = bytearray()
    lst = bytearray()
    line_at = bytearray(b"\xff" * 484)
    for d in range(4):
        st = _STEPS[d]
        for p in PAD:
            if onb[p - st]:
                continue
            n = 0
            q = p
            while onb[q]:
                n += 1
                q += st
            if n < 4:
                continue
            q = p
            while onb[q]:
                line_at[d * 121 + q] = len(ls)
                q += st
            ls.append(p)
            lst.append(st)
    # Window code: 5 cells, 2 bits each, newest (last) cell in the low bits.
    # Every score of a window depends only on its class, so one byte per
    # code. Class by recurrence (code >> 2 drops the oldest cell's place for
    # an empty one): 0 dead, 1..5 only black (count), 6..10 only white (5 + count).
    nbt = bytearray(1024)  # counts per code (garbage after import)
    nwt = bytearray(1024)
    net = bytearray(1024)
    for code in range(1, 1024):
        q = code >> 2
        d = code & 3
        nbt[code] = nbt[q] + (1 if d == 1 else 0)
        nwt[code] = nwt[q] + (1 if d == 2 else 0)
        net[code] = net[q] + (1 if d == 3 else 0)
    wk = bytearray(1024)
    for code in range(1024):
        if net[code] == 0:
            if nwt[code] == 0:
                wk[code] = nbt[code]
            elif nbt[code] == 0:
                wk[code] = 5 + nwt[code]
    # Per class: black's score of the window, and the heuristic gain of an
    # empty cell in it for black and for white (blocking is worth a bit less
    # than building: x 13/16).
    kws = tuple(_LW[k] if k < 6 else -_LW[k - 5] for k in range(11))
    khb = tuple(_LWD[k] if k < 5 else (0 if k < 6 else (_LWD[k - 5] * 13) >> 4) for k in range(11))
    khw = tuple((_LWD[k] * 13) >> 4 if k < 5 else (0 if k < 6 else _LWD[k - 5]) for k in range(11))
    # Segment code: 4 cells, first (oldest) cell in bits 6-7, last in bits 0-1.
    # bits 0-3: 1 black can clamp by playing the first cell, 2 ... the last
    # cell, 4 / 8 the same for white; bits 4-7: 3 * black's threats + white's
    # (an index into the per-move threat values).
    seg = bytearray(256)
    for code in range(256):
        a = (code >> 6) & 3
        b = (code >> 4) & 3
        c = (code >> 2) & 3
        d = code & 3
        f = 0
        if b >= 2 and c >= 2:  # white or egg in the middle: black's clamp
            if a == 0 and d == 1:
                f |= 1
            if d == 0 and a == 1:
                f |= 2
        if (b & 1) and (c & 1) and b and c:  # black or egg: white's clamp
            if a == 0 and d == 2:
                f |= 4
            if d == 0 and a == 2:
                f |= 8
        seg[code] = f | (3 * ((f & 1) + ((f >> 1) & 1)) + (((f >> 2) & 1) + ((f >> 3) & 1))) << 4
    cen = bytearray(121)
    for i in range(81):
        cen[PAD[i]] = 4 - max(abs(i // 9 - 4), abs(i % 9 - 4))
    # cells from the centre out (ring by ring, row-major in a ring): the reply search's order
    order = bytes(sorted(range(81), key=lambda i: max(abs(i // 9 - 4), abs(i % 9 - 4)) * 81 + i))
    return (bytes(ls), bytes(lst), bytes(wk), kws, khb, khw, bytes(seg), bytes(cen), bytes(line_at), order)


(LS, LST, WK, KWS, KHB, KHW, SEG, CEN, LINE_AT, ORDER) = _build()
KF = (0, 0, 0, 0, 1024, 0, 0, 0, 0, 1, 0)  # per window class: a black four counts 1024, a white one 1
if len(LS) != _NLINES:
    raise ImportError("engine.bot: %d lines, _NLINES says %d" % (len(LS), _NLINES))
del _build, _STEPS, _LW, _LWD  # the builder's bytecode and inputs would stay on the heap for nothing


# --- the scratch memory ----------------------------------------------------------------
_MAXK = const(10)  # most candidates per side (rows and columns of the matrix)


class Work:
    """The bot's scratch memory, one instance shared by every Bot (see work()).

    The root board is reloaded by start(), top() zeroes the heuristic arrays
    as it reads them, and pre() clears them when that did not happen (the
    matrix arrays live in them: see grow); everything else is written before
    it is read, but for one thing: the reply search's pass of a cell it did
    not reach in a move's first round stays from an earlier move (replies.py).
    Two moves never overlap: start() makes its Bot the owner and another
    Bot's step() then refuses to run.
    """

    def __init__(self):
        bd = bytearray(121)  # padded root board; trial turns are applied and reverted
        for p in range(121):
            bd[p] = WALL
        self.bd = bd
        self.owner = None  # the Bot whose move is in progress
        self.clean = True  # hb and hw are all zero (see candidates.pre)
        self.hb = array("i", bytes(484))  # heuristic score of each cell for black ...
        self.hw = array("i", bytes(484))  # ... and for white (cleared by pre)
        self.rows = bytearray(_MAXK)  # candidates: ours (rows of the matrix) ...
        self.cols = bytearray(_MAXK)  # ... and the opponent's (columns)
        self.rv = array("i", bytes(4 * _MAXK))  # their heuristic scores (read by top() and easy only)
        self.cv = array("i", bytes(4 * _MAXK))
        self.g = None  # the Game for trial turns (see board())
        self.full = False  # the matrix search's arrays (medium, hard) exist: grow()

    def grow(self):
        """Add what medium and hard need (the trial Game among them)."""
        if self.full:
            return
        self.full = True
        if self.g is None:
            self.g = Game()  # trial turns: play/undo per pair
        self.sr = array("i", bytes(4 * _MAXK))  # score change of each candidate alone
        self.sc = array("i", bytes(4 * _MAXK))
        self.s4r = array("h", bytes(2 * _MAXK))  # its change of the fours count (packed, see evaluate.walk)
        self.s4c = array("h", bytes(2 * _MAXK))
        # The per-direction changes, the payoff matrix and the solve's counts
        # are only used after top() has read the heuristic arrays, and pre()
        # clears those before the next scan: they share that memory
        # (memoryviews).
        hw = memoryview(self.hw)
        self.dr = hw[0:4 * _MAXK]  # the same per line direction
        self.dc = hw[4 * _MAXK:8 * _MAXK]
        self.d4r = hw[8 * _MAXK:12 * _MAXK]
        self.d4c = array("h", bytes(8 * _MAXK))
        hb = memoryview(self.hb)
        self.m = hb[0:_MAXK * _MAXK]  # the payoff matrix, row-major, stride _MAXK
        self.rcnt = hb[_MAXK * _MAXK:_MAXK * _MAXK + _MAXK]  # fictitious play: how often each row was played ...
        self.racc = self.rv  # ... and the running payoffs (rv, cv: top() is done with them)
        self.cacc = self.cv
        self.tsc = array("h", bytes(18))  # threat score by segment index, set per move
        self.lbase = array("i", bytes(4 * _NLINES))  # each line's score at the root
        self.lf4 = array("h", bytes(2 * _NLINES))  # each line's fours at the root (packed)
        self.lstamp = array("H", bytes(2 * _NLINES + 2))  # line stamps; the last entry is the counter
        self.tier = bytearray(81)  # each cell's pass in the opponent's best-reply search (replies.py)


_work = None


def work(full):
    """The shared Work (made on first use); full: with medium's and hard's arrays."""
    global _work
    w = _work
    if w is None:
        w = _work = Work()
    if full:
        w.grow()
    return w


def board():
    """The Game medium and hard play their trial turns on (shared like the Work; made on first use).

    A caller that keeps a copy of its game for the bots anyway (the App: a
    plug-in bot must never change the live game) can use this Game as that
    copy: start() on it skips its own copy, so the device holds one Game
    fewer. During a move it holds trial turns; once the answer is ready it
    holds the position again, with its last turn's log cleared (undo()).
    """
    w = work(False)
    if w.g is None:
        w.g = Game()
    return w.g
