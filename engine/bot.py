"""Computer opponent (easy/medium/hard): picks a move from the board alone, seeded, allocation-free; device + CPython."""
from array import array

from engine._compat import const
from engine import Game, BLACK, WHITE, ONGOING, BLACK_WON, WHITE_WON
import engine as _engine

# Turn-record opcodes, taken by name so a renumbering in the engine cannot
# silently break the bot's incremental evaluation.
_OP_PLACE = _engine.EV_PLACE
_OP_EGG = _engine.EV_EGG
_OP_CAPTURED = _engine.EV_CAPTURED
_OP_VANISH = _engine.EV_VANISH
_OP_HATCH = _engine.EV_HATCH

LEVELS = ("easy", "medium", "hard")

# The bot works on a padded 11 x 11 board (a wall ring around the 9 x 9), the
# same layout as the engine's, so line walks stop at the wall without bounds
# checks. Cell i (0..80) is padded cell _P81[i].
_WALL = const(4)
_STEPS = (1, 11, 12, 10)  # E, S, SE, SW in padded space: the 4 line directions

# Evaluation weights (black's point of view; the bot flips the sign for white).
# _LW[n]: a 5-cell window holding n turtles of one colour and otherwise only
# empty cells (a potential line of five). _LWD[n]: gain of adding a turtle.
_LW = (0, 2, 12, 70, 450, 6000)
_LWD = (0, 10, 58, 380, 5550, 0)
_MAT = const(30)  # one turtle of material
_THREAT = const(22)  # one open clamp threat (N empty, x y enemy, A own) ...
_THREAT_EGG = const(8)  # ... worth more while eggs wait to hatch for the capturer
_CAPV = const(90)  # heuristic: a capture available on this cell
_CAPV_EGG = const(40)  # ... plus this when an egg would hatch for us
_CAPD = const(60)  # heuristic: taking the cell denies the opponent's capture
_WIN = const(30000)
_CLIP = const(20000)
_MAXK = const(8)
# Moves within this many points (per opponent move, on average) of the best
# are mixed in too (under one turtle, 30): a human cannot farm one fixed reply, and
# the strength cost is small (tournament in the README).
_TOL = const(24)


def _build():
    """Static tables (built once at import; allocation here is fine)."""
    p81 = bytes((i // 9 + 1) * 11 + i % 9 + 1 for i in range(81))
    onb = bytearray(121)
    for p in p81:
        onb[p] = 1
    # Lines of 4+ cells in each direction (first cell, direction, id of its
    # first segment) and the line through each padded cell, in the same order
    # the root scan meets them. The segment (4 cells) ending at the n-th cell
    # of line li (n >= 4, from 1) is ls0[li] + n - 4, and the window (5 cells)
    # ending there is that minus li + 1 (each line before has one segment
    # more than windows): no per-cell id tables (they were 2 x 484 bytes).
    ls = bytearray()
    ld = bytearray()
    ls0 = bytearray()
    line_at = bytearray(b"\xff" * 484)
    nw = 0
    ns = 0
    for d in range(4):
        st = _STEPS[d]
        for p in p81:
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
            ld.append(d)
            ls0.append(ns)
            ns += n - 3
            nw += n - 4
    # Window code: 5 cells, 2 bits each, newest (last) cell in the low bits.
    # Every score of a window depends only on its class (see _KWS), so one
    # byte per code instead of three int16 tables (6 KB of heap down to 1 KB).
    # Class by recurrence (code >> 2 drops the oldest cell's place for an
    # empty one): 0 dead, 1..5 only black (count), 6..10 only white (5 + count).
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
    # segc bits: 1 black can clamp by playing the first cell, 2 ... the last
    # cell, 4 / 8 the same for white. segi: 3 * black's threats + white's
    # (an index into the per-move threat values). One table: segc | segi << 4.
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
        cen[p81[i]] = 4 - max(abs(i // 9 - 4), abs(i % 9 - 4))
    return (p81, bytes(ls), bytes(ld), bytes(ls0), nw, ns,
            bytes(wk), kws, khb, khw, bytes(seg), bytes(cen), bytes(line_at))


(_P81, _LS, _LD, _LS0, _NWIN, _NSEG,
 _WK, _KWS, _KHB, _KHW, _SEG, _CEN, _LINE_AT) = _build()
_NLINES = len(_LS)
del _build  # its bytecode would stay on the heap for nothing

# Level parameters: own candidates, opponent candidates, fictitious-play
# iterations, payoff noise (+-), clamp-threat terms in the evaluation and
# exact rescoring of capture turns (medium approximates those).
# Measured (200 games): a "tremble" (expecting the opponent to slip 1/8 of
# the time) won more against greedy (94%) but less against medium (74% vs
# 83%), so hard plays the plain equilibrium.
_PARAMS = {
    "easy": (0, 0, 0, 0, 0),
    "medium": (3, 3, 40, 3, 0),
    "hard": (7, 6, 100, 4, 1),
}


# Work arrays, made on first use and shared by every Bot: nothing in them
# outlives one choose() (the root board is reloaded, _top leaves the
# heuristic arrays zeroed, the rest is written before it is read), and two
# moves never overlap (poll only scans pads; it must not call choose()).
_WORK = [None, None]


def _work(full):
    """Every level's work arrays (full=0), or medium's and hard's extra ones (full=1), as a tuple."""
    w = _WORK[full]
    if w is None:
        if full:
            w = (
                Game(),  # private copy for trial turns
                array("h", bytes(2 * (_NWIN + _NSEG))),  # every window's and segment's score at the root (|v| <= 6000)
                array("i", bytes(4 * _MAXK)),  # sr, sc: score change of each candidate alone
                array("i", bytes(4 * _MAXK)),
                array("i", bytes(4 * _MAXK * _MAXK)),  # m: the payoff matrix
                array("i", bytes(16 * _MAXK)),  # dr, dc: per-direction score change of each candidate
                array("i", bytes(16 * _MAXK)),
                array("i", bytes(4 * _MAXK)),  # racc, cacc, rcnt, ccnt: fictitious play
                array("i", bytes(4 * _MAXK)),
                array("i", bytes(4 * _MAXK)),
                array("i", bytes(4 * _MAXK)),
                # Cells changed by a trial turn and what they held before. A turn
                # changes at most 2 placed + 81 captured + 79 hatched/vanished cells.
                bytearray(192),
                bytearray(192),
                array("i", bytes(36)),  # threat score by segi index, set per move
                array("i", bytes(4 * _NLINES)),  # each line's score at the root
                array("H", bytes(2 * _NLINES + 2)),  # line stamps; the last entry is the stamp counter
            )
        else:
            bd = bytearray(121)  # padded root board; trial turns are applied and reverted
            for p in range(121):
                bd[p] = _WALL
            w = (
                bd,
                array("i", bytes(484)),  # hb, hw: heuristic score of each cell for black, white
                array("i", bytes(484)),
                bytearray(_MAXK),  # rows, cols: candidates
                bytearray(_MAXK),
                array("i", bytes(4 * _MAXK)),  # rv, cv: their heuristic scores
                array("i", bytes(4 * _MAXK)),
            )
        _WORK[full] = w
    return w


class Bot:
    """A computer player. `Bot(level, seed).choose(game, color)` -> empty cell 0..80.

    A move (medium, hard):
    1. _scan: one walk along the 40 lines scores every 5-cell window (line
       potential) and 4-cell segment (open clamp threat) of the position and
       gives each empty cell a heuristic score for both colours: own lines,
       blocking, captures made and denied, what the oldest egg would do when
       a capture hatches it.
    2. _top: the best kr cells for us and kc for the opponent.
    3. _matrix: every pair is played on a private Game (copy_from once,
       play/undo per pair) and scored: lines, clamp threats (hard),
       material, win/loss. Quiet pairs reuse per-cell score changes;
       capture turns are rescored line by line (hard) or roughly (medium).
    4. _fp / _pick: fictitious play gives a mixed strategy; sample from it,
       mixing in moves within _TOL of the best. If one move dominates, the
       opponent model gets that cell too (a collision) and is solved again.
    Easy: the heuristic's top 4 with noise.

    Measured (python -m tools.bench --only bot, all 1,236 positions of the shared
    random games, worst over 6 heap layouts / mean, wasm fuel per move):
    easy 2.8 M / 2.2 M, medium 10.7 M / 6.7 M, hard 48.7 M / 23.3 M; no heap
    allocated during a move (heap_lock on the official port). Most of
    medium's and hard's cost is the engine's play()/undo() on capture turns.
    Heap, measured on the official port with .mpy files (gc.mem_alloc):
    importing the module builds the tables (13.4 M fuel) and holds 12.0 KB
    (bytecode and ~2.3 KB of tables; it was 19.4 KB with three int16 window
    tables, two more id tables and the build function kept); the first Bot
    adds 1.6 KB (the work arrays every level uses), the first medium or hard
    Bot 4.6 KB more (its trial Game and evaluation arrays), and any further
    Bot 0.3 KB, as the work arrays are shared (see _work). The firmware's
    game against easy peaked at 64.1 KB before, 52.1 KB after (tools.bench).
    """

    def __init__(self, level="hard", seed=0):
        if level not in _PARAMS:
            raise ValueError("unknown level %r (easy, medium, hard)" % (level,))
        self.level = level
        # Optional: a function of no arguments that the bot calls between
        # the pairs it evaluates (every 5-11 ms of RP2040 time), so the
        # device keeps scanning its pads while the bot thinks. It receives
        # nothing and its result is ignored: no way in for a pending move.
        self.poll = None
        self._kr, self._kc, self._iters, self._noise, self._threats = _PARAMS[level]
        seed = int(seed)
        self._hi = ((seed >> 16) & 0xFFFF) ^ 0x9E37  # so seeds 0, 1, 2 start far apart
        self._lo = seed & 0xFFFF
        if self._lo == 0:
            self._lo = 0x2545
        for _ in range(6):
            self._rand()
        # The work arrays are shared by every Bot (see _work): a second bot
        # (attract mode has two) adds only this instance, and an easy bot
        # never allocates medium's and hard's (a private Game among them).
        (self._bd, self._hb, self._hw, self._rows, self._cols, self._rv,
         self._cv) = _work(0)
        if self._kr:
            (self._g, self._base, self._sr, self._sc, self._m, self._dr, self._dc,
             self._racc, self._cacc, self._rcnt, self._ccnt, self._chg, self._old,
             self._tsc, self._lbase, self._lstamp) = _work(1)
        self._total = 0
        self._mat = 0

    # --- PRNG: xorshift32 on two 16-bit halves, so every int stays small on
    # MicroPython (no big ints, no allocation) and CPython gives the same
    # sequence for the same seed.
    def _rand(self):
        """Next 30-bit pseudo-random number."""
        hi = self._hi
        lo = self._lo
        # x ^= x << 13
        nh = ((hi << 13) | (lo >> 3)) & 0xFFFF
        nl = (lo << 13) & 0xFFFF
        hi ^= nh
        lo ^= nl
        # x ^= x >> 17
        lo ^= hi >> 1
        # x ^= x << 5
        nh = ((hi << 5) | (lo >> 11)) & 0xFFFF
        nl = (lo << 5) & 0xFFFF
        hi ^= nh
        lo ^= nl
        self._hi = hi
        self._lo = lo
        return ((hi & 0x3FFF) << 16) | lo

    def _below(self, n):
        return self._rand() % n

    # --- the move ------------------------------------------------------------
    def choose(self, game, color):
        """An empty cell (0..80) for `color` (BLACK or WHITE) in `game`'s position.

        Honest by construction: the only input is the position on the board;
        there is no parameter through which the opponent's pending move could
        arrive.
        """
        if color != BLACK and color != WHITE:
            raise ValueError("color must be BLACK (1) or WHITE (2)")
        if game.result != ONGOING or game.empty == 0:
            raise ValueError("no move: the game is over")
        self._load(game)
        kr = self._kr
        if kr == 0:
            self._scan_easy()
            return self._easy(color)
        self._scan(game)
        n = self._top(color, kr, self._kc)
        kr = n & 15
        kc = n >> 4
        self._matrix(game, color, kr, kc, 0)
        rows = self._rows
        cols = self._cols
        i = self._fp(kr, kc)
        if i >= 0:
            # One move dominates. A human who reads the bot would play
            # there too (the collision lays an egg), so unless the opponent
            # model already has that cell, it replaces the opponent's last
            # candidate and the game is solved again: 1 column of extra pairs.
            cell = rows[i]
            j = 0
            while j < kc and cols[j] != cell:
                j += 1
            if j == kc:
                cols[kc - 1] = cell
                self._matrix(game, color, kr, kc, kc - 1)
                self._fp(kr, kc)
        return rows[self._pick(kr)]

    def _load(self, game):
        """Copy the position into the padded root board (the engine's own layout)."""
        # One slice copy instead of 81 cell() calls (measured 0.55 M fuel for the calls).
        game.copy_padded(self._bd)

    def _egg_gain(self, c, v):
        """Change of black's window score if the egg on padded cell c hatched into colour v."""
        bd = self._bd
        wk = _WK
        kws = _KWS
        steps = _STEPS
        tot = 0
        for k in range(2):  # (a loop over (v, 3) would allocate a tuple)
            x = v if k == 0 else 3
            bd[c] = x
            sign = 1 if k == 0 else -1
            for d in range(4):
                s = steps[d]
                q = c
                j = 0
                while j < 4 and bd[q - s] != 4:
                    q -= s
                    j += 1
                e = c + 4 * s
                code = 0
                cnt = 0
                while True:
                    y = bd[q]
                    if y == 4:
                        break
                    code = ((code << 2) | y) & 1023
                    cnt += 1
                    if q >= c and cnt >= 5:
                        tot += sign * kws[wk[code]]
                    if q == e:
                        break
                    q += s
        return tot

    def _scan(self, game):
        """One walk along every line: window and segment scores of the root, heuristic per cell."""
        bd = self._bd
        base = self._base
        hb = self._hb
        hw = self._hw
        wk = _WK
        kws = _KWS
        khb = _KHB
        khw = _KHW
        seg = _SEG
        steps = _STEPS
        ls = _LS
        ld = _LD
        threats = self._threats
        # A capture hatches the oldest egg for the capturer: its worth grows
        # with what that hatchling would do to the lines (a hatch into a
        # five is as good as a win threat).
        capvb = _CAPV
        capvw = _CAPV
        capdb = _CAPD
        capdw = _CAPD
        tvb = _THREAT
        tvw = _THREAT
        if game.egg_count:
            capvb += _CAPV_EGG
            capvw += _CAPV_EGG
            tvb += _THREAT_EGG
            tvw += _THREAT_EGG
            if self._kr:
                e0 = _P81[game.egg(0)]
                gb = self._egg_gain(e0, 1)
                gw = -self._egg_gain(e0, 2)
                bd[e0] = 3
                if gb > 0:
                    gb = (gb * 3) >> 2
                    capvb += gb
                    capdw += (gb * 13) >> 4
                    tvb += min(gb >> 2, 1500)
                if gw > 0:
                    gw = (gw * 3) >> 2
                    capvw += gw
                    capdb += (gw * 13) >> 4
                    tvw += min(gw >> 2, 1500)
        tsc = self._tsc
        for i in range(9):
            tsc[i] = (i // 3) * tvb - (i % 3) * tvw
        wid = 0
        sid = _NWIN
        total = 0
        lbase = self._lbase
        # Every line has 4+ cells: start with 3 read, then each further
        # cell completes a segment, and from the 5th on a window as well.
        # Measured ~2.3 M fuel for the whole board (300 cells, 320 structures).
        for li in range(_NLINES):
            p = ls[li]
            st = steps[ld[li]]
            code = (bd[p] << 4) | (bd[p + st] << 2) | bd[p + st + st]
            p += 3 * st
            v = bd[p]
            n = 3
            lt = 0
            while v != 4:
                code = ((code << 2) | v) & 1023
                f = seg[code & 255]
                if threats:
                    t = tsc[f >> 4]
                    base[sid] = t
                    lt += t
                sid += 1
                f &= 15
                if f:
                    q = p - 3 * st
                    if f & 1:
                        hb[q] += capvb
                        hw[q] += capdw
                    if f & 2:
                        hb[p] += capvb
                        hw[p] += capdw
                    if f & 4:
                        hw[q] += capvw
                        hb[q] += capdb
                    if f & 8:
                        hw[p] += capvw
                        hb[p] += capdb
                if n >= 4:
                    k = wk[code]
                    t = kws[k]
                    base[wid] = t
                    lt += t
                    wid += 1
                    a = khb[k]
                    if a:
                        b = khw[k]
                        q = p
                        for _ in range(5):
                            if bd[q] == 0:
                                hb[q] += a
                                hw[q] += b
                            q -= st
                n += 1
                p += st
                v = bd[p]
            lbase[li] = lt
            total += lt
        self._total = total
        if self._kr:
            mat = 0
            for p in _P81:
                v = bd[p]
                if v == 1:
                    mat += 1
                elif v == 2:
                    mat -= 1
            self._mat = mat

    def _scan_easy(self):
        """The heuristic part of _scan only (no evaluation), for easy's 3 M fuel budget.

        A deliberate copy of _scan's heuristic half: a flag tested inside the
        line walk would cost every level, and easy's worst move has only ~6%
        headroom (2.81 M of 3 M fuel).
        """
        bd = self._bd
        hb = self._hb
        hw = self._hw
        wk = _WK
        khb = _KHB
        khw = _KHW
        seg = _SEG
        steps = _STEPS
        ls = _LS
        ld = _LD
        for li in range(_NLINES):
            p = ls[li]
            st = steps[ld[li]]
            code = (bd[p] << 4) | (bd[p + st] << 2) | bd[p + st + st]
            p += 3 * st
            v = bd[p]
            n = 3
            while v != 4:
                code = ((code << 2) | v) & 1023
                f = seg[code & 255] & 15
                if f:
                    q = p - 3 * st
                    if f & 1:
                        hb[q] += _CAPV
                    if f & 2:
                        hb[p] += _CAPV
                    if f & 4:
                        hw[q] += _CAPV
                    if f & 8:
                        hw[p] += _CAPV
                if n >= 4:
                    k = wk[code]
                    a = khb[k]
                    if a:
                        b = khw[k]
                        q = p
                        for _ in range(5):
                            if bd[q] == 0:
                                hb[q] += a
                                hw[q] += b
                            q -= st
                n += 1
                p += st
                v = bd[p]

    def _top(self, color, kr, kc):
        """Best kr cells for us into rows and kc for the opponent into cols; clears the heuristic.

        Returns kr_found | kc_found << 4.
        """
        bd = self._bd
        cen = _CEN
        if color == BLACK:
            hm = self._hb
            ho = self._hw
        else:
            hm = self._hw
            ho = self._hb
        rows = self._rows
        cols = self._cols
        rv = self._rv
        cv = self._cv
        p81 = _P81
        nr = 0
        nc = 0
        for i in range(81):
            p = p81[i]
            if bd[p]:
                continue
            e = cen[p]
            v = hm[p] + e
            hm[p] = 0
            if nr < kr:
                j = nr
                nr += 1
            elif v > rv[nr - 1]:
                j = nr - 1
            else:
                j = -1
            if j >= 0:
                while j > 0 and rv[j - 1] < v:
                    rv[j] = rv[j - 1]
                    rows[j] = rows[j - 1]
                    j -= 1
                rv[j] = v
                rows[j] = i
            v = ho[p] + e
            ho[p] = 0
            if nc < kc:
                j = nc
                nc += 1
            elif kc == 0 or v <= cv[nc - 1]:
                continue
            else:
                j = nc - 1
            while j > 0 and cv[j - 1] < v:
                cv[j] = cv[j - 1]
                cols[j] = cols[j - 1]
                j -= 1
            cv[j] = v
            cols[j] = i
        return nr | (nc << 4)

    def _easy(self, color):
        """Easy: one of the heuristic's top 4 cells, picked with noise (weights 8:4:2:1)."""
        n = self._top(color, 4, 0) & 15
        rows = self._rows
        # a win on the board is always taken: even easy is not silly
        if n == 1 or self._rv[0] >= _LWD[4]:
            return rows[0]
        r = self._below(15)
        if r < 8:
            return rows[0]
        if r < 12 or n == 2:
            return rows[1]
        if r < 14 or n == 3:
            return rows[2]
        return rows[3]

    def _matrix(self, game, color, kr, kc, j0):
        """Payoff (our point of view) of every candidate pair, by playing it on a private copy.

        Most pairs are quiet (both turtles land, nothing captured), and then
        the evaluation is the sum of each cell's own change, precomputed per
        candidate and per line direction, corrected only on the one line the
        two cells may share. Pairs that capture, hatch or collide are scored
        by re-scanning around every changed cell (_eval).
        """
        g = self._g
        rows = self._rows
        cols = self._cols
        dr = self._dr
        dc = self._dc
        sr = self._sr
        sc = self._sc
        p81 = _P81
        opp = 3 - color
        if j0 == 0:
            g.copy_from(game)  # once per move; each pair is play() + undo()
            for i in range(kr):
                sr[i] = self._cell_delta(p81[rows[i]], color, dr, i * 4)
        for j in range(j0, kc):
            sc[j] = self._cell_delta(p81[cols[j]], opp, dc, j * 4)
        m = self._m
        noise = self._noise
        span = 2 * noise + 1
        black = color == BLACK
        bd = self._bd
        # plain functions in locals: no attribute lookup per pair
        play = _PLAY
        undo = _UNDO
        below = _BELOW
        ev = _EVAL
        exact = self._threats  # hard: exact rescoring of capture turns
        op_cap = _OP_CAPTURED
        op_hatch = _OP_HATCH
        total = self._total + self._mat * _MAT
        poll = self.poll
        q = 0
        for i in range(kr):
            r = rows[i]
            pr = p81[r]
            for j in range(j0, kc):
                if poll is not None:
                    poll()
                c = cols[j]
                if black:
                    play(g, r, c)
                else:
                    play(g, c, r)
                res = g.result
                if res != ONGOING:
                    if res == BLACK_WON:
                        v = _WIN
                    elif res == WHITE_WON:
                        v = -_WIN
                    else:
                        v = 0
                elif g.log_len == 3 and r != c:
                    # quiet pair: both landed, nothing else happened
                    v = sr[i] + sc[j]
                    pc = p81[c]
                    if pr < pc:
                        a = pr
                        b = pc
                    else:
                        a = pc
                        b = pr
                    ddr = b // 11 - a // 11  # padded rows and columns
                    ddc = b % 11 - a % 11
                    d = -1
                    if ddr <= 4 and -4 <= ddc <= 4:
                        if ddr == 0:
                            d = 0
                        elif ddc == 0:
                            d = 1
                        elif ddr == ddc:
                            d = 2
                        elif ddr == -ddc:
                            d = 3
                    if d >= 0:
                        v -= dr[i * 4 + d] + dc[j * 4 + d]
                        bd[pr] = color
                        bd[pc] = opp
                        v += self._pair_line(a, b, d)
                        bd[pr] = 0
                        bd[pc] = 0
                    v += total  # black's view, like _eval
                    if v > _CLIP:
                        v = _CLIP
                    elif v < -_CLIP:
                        v = -_CLIP
                elif exact:
                    v = ev(self, g)
                else:
                    # medium: capture turns scored by the placements' own
                    # line changes plus material only (no line rescoring;
                    # that is what keeps medium under 15 M fuel)
                    v = total
                    if r != c:
                        v += sr[i] + sc[j]
                        log = g.log
                        n = g.log_len
                        p = 3
                        while p < n:
                            op = log[p]
                            if op == op_cap:
                                x = log[p + 2]
                                if x == 1:
                                    v -= _MAT
                                elif x == 2:
                                    v += _MAT
                            elif op == op_hatch:
                                v += _MAT if log[p + 2] == 1 else -_MAT
                            p += 3
                undo(g)
                if not black:
                    v = -v
                if noise:
                    v += below(self, span) - noise
                m[q + j] = v
            q += _MAXK

    def _cell_delta(self, c, v, out, off):
        """Change of the root score (black's view) if padded cell c alone held v, per direction into out."""
        bd = self._bd
        base = self._base
        wk = _WK
        kws = _KWS
        seg = _SEG
        line_at = _LINE_AT
        ls = _LS
        ls0 = _LS0
        steps = _STEPS
        threats = self._threats
        tsc = self._tsc
        bd[c] = v
        tot = 0
        for d in range(4):
            s = steps[d]
            li = line_at[d * 121 + c]
            if li == 255:  # a line of under 4 cells: no segment, no window
                out[off + d] = 0
                continue
            q = c
            j = 0
            while j < 4 and bd[q - s] != 4:
                q -= s
                j += 1
            e = c + 4 * s
            code = 0
            cnt = 0
            # ids (see _build): the segment ending at the cnt-th cell walked
            # is sb + cnt, the window ending there sb + cnt - wo
            sb = ls0[li] + (q - ls[li]) // s - 4
            wo = li + 1
            delta = 0
            while True:
                x = bd[q]
                if x == 4:
                    break
                code = ((code << 2) | x) & 1023
                cnt += 1
                if q >= c and cnt >= 4:
                    w = sb + cnt
                    if threats and q < e:
                        delta += tsc[seg[code & 255] >> 4] - base[_NWIN + w]
                    if cnt >= 5:
                        delta += kws[wk[code]] - base[w - wo]
                if q == e:
                    break
                q += s
            out[off + d] = delta
            tot += delta
        bd[c] = 0
        return tot

    def _pair_line(self, a, b, d):
        """Change of every structure on line direction d through padded cells a < b (both already set)."""
        bd = self._bd
        base = self._base
        wk = _WK
        kws = _KWS
        seg = _SEG
        threats = self._threats
        tsc = self._tsc
        s = _STEPS[d]
        li = _LINE_AT[d * 121 + a]
        if li == 255:  # a line of under 4 cells: no segment, no window
            return 0
        q = a
        j = 0
        while j < 4 and bd[q - s] != 4:
            q -= s
            j += 1
        e = b + 4 * s
        e3 = b + 3 * s
        sb = _LS0[li] + (q - _LS[li]) // s - 4  # ids as in _cell_delta
        wo = li + 1
        code = 0
        cnt = 0
        delta = 0
        while True:
            x = bd[q]
            if x == 4:
                break
            code = ((code << 2) | x) & 1023
            cnt += 1
            if q >= a and cnt >= 4:
                w = sb + cnt
                if threats and q <= e3:
                    delta += tsc[seg[code & 255] >> 4] - base[_NWIN + w]
                if cnt >= 5:
                    delta += kws[wk[code]] - base[w - wo]
            if q == e:
                break
            q += s
        return delta

    def _eval(self, g):
        """Black's evaluation after a trial turn: root scores plus the change in the touched structures."""
        res = g.result
        if res != ONGOING:
            if res == BLACK_WON:
                return _WIN
            if res == WHITE_WON:
                return -_WIN
            return 0
        bd = self._bd
        chg = self._chg
        old = self._old
        p81 = _P81
        log = g.log
        n = g.log_len
        k = 0
        dm = 0
        p = 0
        # (module globals hoisted into locals: a global lookup per use was
        # measured to matter, and its cost depends on heap layout)
        op_place = _OP_PLACE
        op_egg = _OP_EGG
        op_cap = _OP_CAPTURED
        op_van = _OP_VANISH
        op_hatch = _OP_HATCH
        # Apply the turn record to the root board (cells are 0..80).
        while p < n:
            op = log[p]
            a = p81[log[p + 1]]
            if op == op_place:
                b = p81[log[p + 2]]
                chg[k] = a
                old[k] = bd[a]
                bd[a] = 1
                chg[k + 1] = b
                old[k + 1] = bd[b]
                bd[b] = 2
                k += 2  # both gain a turtle: no material change
            elif op == op_egg:
                chg[k] = a
                old[k] = bd[a]
                bd[a] = 3
                k += 1
            elif op == op_cap or op == op_van:
                v = bd[a]
                if v == 1:
                    dm -= 1
                elif v == 2:
                    dm += 1
                chg[k] = a
                old[k] = v
                k += 1
                bd[a] = 0
            elif op == op_hatch:
                v = log[p + 2]
                if v == 1:
                    dm += 1
                else:
                    dm -= 1
                chg[k] = a
                old[k] = bd[a]
                k += 1
                bd[a] = v
            p += 3
        # Rescore every line through a changed cell, each once (stamp). A
        # capture turn changes several cells, often on shared lines, so
        # whole lines are cheaper than the windows around each cell.
        stamp = self._lstamp
        st = stamp[_NLINES] + 1  # the stamp counter is shared with the array
        if st > 65000:
            for i in range(_NLINES):
                stamp[i] = 0
            st = 1
        stamp[_NLINES] = st
        lbase = self._lbase
        line_at = _LINE_AT
        ls = _LS
        ld = _LD
        steps = _STEPS
        wk = _WK
        kws = _KWS
        seg = _SEG
        tsc = self._tsc
        threats = self._threats
        delta = 0
        for t in range(k):
            c = chg[t]
            for d in range(0, 484, 121):
                li = line_at[d + c]
                if li == 255 or stamp[li] == st:
                    continue
                stamp[li] = st
                # the line's score now (as in _scan), minus at the root
                s = steps[ld[li]]
                p = ls[li]
                code = (bd[p] << 4) | (bd[p + s] << 2) | bd[p + s + s]
                p += 3 * s
                v = bd[p]
                j = 3
                lt = -lbase[li]
                while v != 4:
                    code = ((code << 2) | v) & 1023
                    if threats:
                        lt += tsc[seg[code & 255] >> 4]
                    if j >= 4:
                        lt += kws[wk[code]]
                    j += 1
                    p += s
                    v = bd[p]
                delta += lt
        # put the root board back (newest change first)
        t = k - 1
        while t >= 0:
            bd[chg[t]] = old[t]
            t -= 1
        v = self._total + delta + (self._mat + dm) * _MAT
        if v > _CLIP:
            return _CLIP
        if v < -_CLIP:
            return -_CLIP
        return v

    def _fp(self, kr, kc):
        """Fictitious play on the kr x kc zero-sum game; returns the row it settled on, or -1 if mixed.

        Fictitious play keeps running payoff sums, so one iteration is O(k)
        (add one row and one column), not O(k^2).
        """
        m = self._m
        racc = self._racc
        cacc = self._cacc
        rcnt = self._rcnt
        ccnt = self._ccnt
        for i in range(_MAXK):
            racc[i] = 0
            cacc[i] = 0
            rcnt[i] = 0
            ccnt[i] = 0
        i = 0
        j = 0
        # One iteration: both sides add the other's last pure strategy to
        # their running payoffs and best-respond (accumulate and argmax in
        # one loop). Measured ~30 k fuel per iteration at 7 x 6.
        for _ in range(self._iters):
            rcnt[i] += 1
            ccnt[j] += 1
            q = i * _MAXK
            bj = 0
            bv = 0x3FFFFFFF
            for jj in range(kc):
                x = cacc[jj] + m[q + jj]
                cacc[jj] = x
                if x < bv:
                    bv = x
                    bj = jj
            q = j
            bi = 0
            bv = -0x3FFFFFFF
            for ii in range(kr):
                x = racc[ii] + m[q]
                racc[ii] = x
                if x > bv:
                    bv = x
                    bi = ii
                q += _MAXK
            i = bi
            j = bj
        iters = self._iters
        bi = 0
        for ii in range(1, kr):
            if rcnt[ii] > rcnt[bi]:
                bi = ii
        return bi if rcnt[bi] >= iters - 2 else -1

    def _pick(self, kr):
        """Sample a row from the fictitious-play frequencies.

        Rows whose payoff against the column mixture is within a small
        margin of the best also get weight: near-equal moves are mixed so a
        human cannot farm one fixed reply. racc holds exactly those sums.
        """
        racc = self._racc
        rcnt = self._rcnt
        iters = self._iters
        best = racc[0]
        for ii in range(1, kr):
            if racc[ii] > best:
                best = racc[ii]
        tol = _TOL * iters
        bonus = iters >> 2
        tot = 0
        for ii in range(kr):
            if racc[ii] >= best - tol:
                rcnt[ii] += bonus
            tot += rcnt[ii]
        r = self._below(tot)
        for ii in range(kr):
            r -= rcnt[ii]
            if r < 0:
                return ii
        return 0


_PLAY = Game.play
_UNDO = Game.undo
_BELOW = Bot._below
_EVAL = Bot._eval
