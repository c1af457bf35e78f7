"""Computer opponent (easy/medium/hard): picks a move from the board alone, seeded, allocation-free; device + CPython."""
from array import array

from engine._compat import const
from engine import Game, EMPTY, BLACK, WHITE, EGG, ONGOING, BLACK_WON, WHITE_WON
import engine as _engine

# Turn-record opcodes, taken by name so a renumbering in the engine cannot
# silently break the bot's incremental evaluation.
_OP_PLACE = _engine.EV_PLACE
_OP_EGG = _engine.EV_EGG
_OP_CAPTURED = _engine.EV_CAPTURED
_OP_VANISH = _engine.EV_VANISH
_OP_HATCH = _engine.EV_HATCH

LEVELS = ("easy", "medium", "hard")

# --- static tables, built once at import (allocation here is fine) ----------
#
# A "window" is 5 cells in a row/column/diagonal: a potential line of five.
# A "segment" is 4 cells in a line: a potential clamp N x y A (either end N).
# Every structure is scored on its own, so the evaluation after a trial turn
# only rescans the structures that contain a cell the turn changed.


def _build():
    wc = bytearray()
    sc = bytearray()
    for length, out in ((5, wc), (4, sc)):
        for r in range(9):
            for c in range(9):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    er = r + (length - 1) * dr
                    ec = c + (length - 1) * dc
                    if 0 <= er < 9 and 0 <= ec < 9:
                        for t in range(length):
                            out.append((r + t * dr) * 9 + c + t * dc)
    nw = len(wc) // 5
    ns = len(sc) // 4
    wl = [[] for _ in range(81)]
    sl = [[] for _ in range(81)]
    for w in range(nw):
        for t in range(5):
            wl[wc[w * 5 + t]].append(w)
    for s in range(ns):
        for t in range(4):
            sl[sc[s * 4 + t]].append(s)
    wst = array("H", [0] * 82)
    wd = array("H")
    sst = array("H", [0] * 82)
    sd = array("H")
    for i in range(81):
        wst[i] = len(wd)
        for w in wl[i]:
            wd.append(w)
        sst[i] = len(sd)
        for s in sl[i]:
            sd.append(s)
    wst[81] = len(wd)
    sst[81] = len(sd)
    # clamp rays: for each cell and each of 8 directions the next 3 cells
    # (x, y, anchor), or 255 when the ray leaves the board.
    cl = bytearray(b"\xff" * (81 * 24))
    for i in range(81):
        r = i // 9
        c = i % 9
        k = 0
        for dr, dc in ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)):
            if 0 <= r + 3 * dr < 9 and 0 <= c + 3 * dc < 9:
                for t in range(3):
                    cl[i * 24 + k * 3 + t] = (r + (t + 1) * dr) * 9 + c + (t + 1) * dc
            k += 1
    cen = bytearray(81)
    for i in range(81):
        cen[i] = 4 - max(abs(i // 9 - 4), abs(i % 9 - 4))
    return bytes(wc), bytes(sc), nw, ns, wst, wd, sst, sd, bytes(cl), bytes(cen)


_WC, _SC, _NW, _NS, _WST, _WD, _SST, _SD, _CL, _CEN = _build()

# Evaluation weights (black's point of view; the bot flips the sign).
# Line windows: value of a window holding n turtles of one colour and
# nothing else but empty cells.
_LW = (0, 2, 12, 70, 450, 6000)
# Marginal value of adding one turtle to such a window (heuristic attack).
_LWD = (2, 10, 58, 380, 5550, 0)
_MAT = const(30)  # one turtle of material
_THREAT = const(22)  # one open clamp threat (N empty, x y enemy, A own)
_WIN = const(30000)
_CLIP = const(20000)

_MAXK = const(8)

# Level parameters: own candidates, opponent candidates, fictitious-play
# iterations, payoff noise (+-), clamp-threat terms in the evaluation.
_PARAMS = {
    "easy": (0, 0, 0, 0, 0),
    "medium": (4, 3, 60, 3, 0),
    "hard": (7, 6, 240, 4, 1),
}


class Bot:
    """A computer player. `Bot(level, seed).choose(game, color)` -> empty cell 0..80."""

    def __init__(self, level="hard", seed=0):
        if level not in _PARAMS:
            raise ValueError("unknown level %r (easy, medium, hard)" % (level,))
        self.level = level
        self._kr, self._kc, self._iters, self._noise, self._threats = _PARAMS[level]
        seed = int(seed)
        self._hi = (seed >> 16) & 0xFFFF
        self._lo = seed & 0xFFFF
        if self._hi == 0 and self._lo == 0:
            self._lo = 0x2545
        self._hi ^= 0x9E37  # so seeds 0, 1, 2 start far apart
        for _ in range(6):
            self._rand()
        self._g = Game()  # private copy for trial turns (allocated once)
        self._bd = bytearray(81)
        self._cb = bytearray(_NW)  # black turtles per window
        self._cw = bytearray(_NW)  # white turtles per window
        self._ce = bytearray(_NW)  # eggs per window
        self._base = array("i", [0] * (_NW + _NS))  # structure scores at the root
        self._stamp = array("H", [0] * (_NW + _NS))
        self._st = 0
        self._hb = array("i", [0] * 81)  # heuristic score of each cell for black
        self._hw = array("i", [0] * 81)
        self._rows = bytearray(_MAXK)
        self._cols = bytearray(_MAXK)
        self._m = array("i", [0] * (_MAXK * _MAXK))
        self._racc = array("i", [0] * _MAXK)
        self._cacc = array("i", [0] * _MAXK)
        self._rcnt = array("i", [0] * _MAXK)
        self._ccnt = array("i", [0] * _MAXK)
        # Cells changed by a trial turn and what they held before. A turn
        # changes at most 2 placed + 81 captured + 79 hatched/vanished cells.
        self._chg = bytearray(192)
        self._old = bytearray(192)
        self._tv = _THREAT
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
        bd = self._bd
        for i in range(81):
            bd[i] = game.cell(i)
        self._scan(game.egg_count)
        self._heuristic(game.egg_count)
        if color == BLACK:
            hm = self._hb
            ho = self._hw
        else:
            hm = self._hw
            ho = self._hb
        kr = self._kr
        if kr == 0:
            return self._easy(hm)
        rows = self._rows
        cols = self._cols
        kr = self._top(hm, kr, rows)
        kc = self._top(ho, self._kc, cols)
        self._matrix(game, color, kr, kc)
        return rows[self._solve(kr, kc)]

    def _scan(self, eggs):
        """Score every structure of the root position (its base) and count window contents."""
        bd = self._bd
        cb = self._cb
        cw = self._cw
        ce = self._ce
        base = self._base
        wc = _WC
        lw = _LW
        total = 0
        p = 0
        for w in range(_NW):
            nb = 0
            nw = 0
            ne = 0
            for t in range(5):
                v = bd[wc[p + t]]
                if v == 1:
                    nb += 1
                elif v == 2:
                    nw += 1
                elif v == 3:
                    ne += 1
            p += 5
            cb[w] = nb
            cw[w] = nw
            ce[w] = ne
            s = 0
            if ne == 0:
                if nw == 0:
                    s = lw[nb]
                elif nb == 0:
                    s = -lw[nw]
            base[w] = s
            total += s
        mat = 0
        for i in range(81):
            v = bd[i]
            if v == 1:
                mat += 1
            elif v == 2:
                mat -= 1
        self._mat = mat
        if self._threats:
            sc = _SC
            tv = _THREAT + (8 if eggs else 0)
            self._tv = tv
            p = 0
            for s in range(_NS):
                a = bd[sc[p]]
                b = bd[sc[p + 1]]
                c = bd[sc[p + 2]]
                d = bd[sc[p + 3]]
                p += 4
                v = 0
                if b and c:
                    if b >= 2 and c >= 2:  # both white or egg: black may clamp
                        if (a == 0 and d == 1) or (d == 0 and a == 1):
                            v += tv
                    if (b & 1) and (c & 1):  # both black or egg: white may clamp
                        if (a == 0 and d == 2) or (d == 0 and a == 2):
                            v -= tv
                base[_NW + s] = v
                total += v
        self._total = total

    def _heuristic(self, eggs):
        """Fast per-cell scores for both colours: own lines, blocking, clamps made and clamps denied."""
        bd = self._bd
        cb = self._cb
        cw = self._cw
        ce = self._ce
        hb = self._hb
        hw = self._hw
        wst = _WST
        wd = _WD
        cl = _CL
        cen = _CEN
        lwd = _LWD
        capv = 90 + (40 if eggs else 0)  # a capture, more when it hatches an egg
        capd = 60  # denying the opponent's capture by taking the cell
        for c in range(81):
            if bd[c]:
                hb[c] = -1
                hw[c] = -1
                continue
            ab = 0
            aw = 0
            for q in range(wst[c], wst[c + 1]):
                w = wd[q]
                if ce[w]:
                    continue
                nb = cb[w]
                nw = cw[w]
                if nw == 0:
                    ab += lwd[nb]
                if nb == 0:
                    aw += lwd[nw]
            kb = 0
            kw = 0
            p = c * 24
            for k in range(8):
                x = cl[p]
                if x != 255:
                    bx = bd[x]
                    by = bd[cl[p + 1]]
                    ba = bd[cl[p + 2]]
                    if ba == 1:
                        if bx >= 2 and by >= 2:
                            kb += 1
                    elif ba == 2:
                        if (bx & 1) and (by & 1):
                            kw += 1
                p += 3
            e = cen[c]
            # Blocking is worth a bit less than building (x 13/16).
            hb[c] = ab + ((aw * 13) >> 4) + kb * capv + kw * capd + e
            hw[c] = aw + ((ab * 13) >> 4) + kw * capv + kb * capd + e

    def _top(self, h, k, out):
        """The k best cells by score h into out (ties: lower index); returns how many."""
        n = 0
        for c in range(81):
            v = h[c]
            if v < 0:
                continue
            if n < k:
                j = n
                n += 1
            elif v > h[out[n - 1]]:
                j = n - 1
            else:
                continue
            while j > 0 and h[out[j - 1]] < v:
                out[j] = out[j - 1]
                j -= 1
            out[j] = c
        return n

    def _easy(self, hm):
        """Easy: one of the heuristic's top cells, picked with noise (weights 8:4:2:1)."""
        rows = self._rows
        n = self._top(hm, 4, rows)
        best = hm[rows[0]]
        # a win on the board is always taken: even easy is not silly
        if best >= _LWD[4]:
            return rows[0]
        r = self._below(15)
        if r < 8 or n == 1:
            return rows[0]
        if r < 12 or n == 2:
            return rows[1]
        if r < 14 or n == 3:
            return rows[2]
        return rows[3]

    def _matrix(self, game, color, kr, kc):
        """Payoff (our point of view) of every candidate pair, by playing it on a private copy."""
        g = self._g
        g.copy_from(game)  # once per move; each pair is play() + undo()
        rows = self._rows
        cols = self._cols
        m = self._m
        noise = self._noise
        span = 2 * noise + 1
        black = color == BLACK
        q = 0
        for i in range(kr):
            r = rows[i]
            for j in range(kc):
                c = cols[j]
                if black:
                    g.play(r, c)
                else:
                    g.play(c, r)
                v = self._eval(g)
                g.undo()
                if not black:
                    v = -v
                if noise:
                    v += self._below(span) - noise
                m[q + j] = v
            q += _MAXK

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
        log = g.log
        n = g.log_len
        k = 0
        dm = 0
        p = 0
        while p < n:
            op = log[p]
            a = log[p + 1]
            if op == _OP_PLACE:
                b = log[p + 2]
                chg[k] = a
                old[k] = bd[a]
                bd[a] = 1
                chg[k + 1] = b
                old[k + 1] = bd[b]
                bd[b] = 2
                k += 2  # both gain a turtle: no material change
            elif op == _OP_EGG:
                chg[k] = a
                old[k] = bd[a]
                bd[a] = 3
                k += 1
            elif op == _OP_CAPTURED or op == _OP_VANISH:
                v = bd[a]
                if v == 1:
                    dm -= 1
                elif v == 2:
                    dm += 1
                chg[k] = a
                old[k] = v
                k += 1
                bd[a] = 0
            elif op == _OP_HATCH:
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
        # Rescore the structures touching a changed cell, each once (stamp).
        st = self._st + 1
        if st > 65000:
            stamp = self._stamp
            for i in range(_NW + _NS):
                stamp[i] = 0
            st = 1
        self._st = st
        stamp = self._stamp
        base = self._base
        wst = _WST
        wd = _WD
        wc = _WC
        lw = _LW
        delta = 0
        for t in range(k):
            cell = chg[t]
            for q in range(wst[cell], wst[cell + 1]):
                w = wd[q]
                if stamp[w] == st:
                    continue
                stamp[w] = st
                nb = 0
                nw = 0
                ne = 0
                p = w * 5
                for u in range(5):
                    v = bd[wc[p + u]]
                    if v == 1:
                        nb += 1
                    elif v == 2:
                        nw += 1
                    elif v == 3:
                        ne += 1
                s = 0
                if ne == 0:
                    if nw == 0:
                        s = lw[nb]
                    elif nb == 0:
                        s = -lw[nw]
                delta += s - base[w]
        if self._threats:
            sst = _SST
            sd = _SD
            sc = _SC
            tv = self._tv
            for t in range(k):
                cell = chg[t]
                for q in range(sst[cell], sst[cell + 1]):
                    s = sd[q]
                    if stamp[_NW + s] == st:
                        continue
                    stamp[_NW + s] = st
                    p = s * 4
                    a = bd[sc[p]]
                    b = bd[sc[p + 1]]
                    c = bd[sc[p + 2]]
                    d = bd[sc[p + 3]]
                    v = 0
                    if b and c:
                        if b >= 2 and c >= 2:
                            if (a == 0 and d == 1) or (d == 0 and a == 1):
                                v += tv
                        if (b & 1) and (c & 1):
                            if (a == 0 and d == 2) or (d == 0 and a == 2):
                                v -= tv
                    delta += v - base[_NW + s]
        # put the root board back
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

    def _solve(self, kr, kc):
        """Mixed strategy of the kr x kc zero-sum game by fictitious play, then sample a row.

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
        for _ in range(self._iters):
            rcnt[i] += 1
            ccnt[j] += 1
            q = i * _MAXK
            for jj in range(kc):
                cacc[jj] += m[q + jj]
            q = j
            for ii in range(kr):
                racc[ii] += m[q]
                q += _MAXK
            # best responses to the opponent's empirical mixture so far
            bi = 0
            bv = racc[0]
            for ii in range(1, kr):
                if racc[ii] > bv:
                    bv = racc[ii]
                    bi = ii
            bj = 0
            bv = cacc[0]
            for jj in range(1, kc):
                if cacc[jj] < bv:
                    bv = cacc[jj]
                    bj = jj
            i = bi
            j = bj
        # Rows whose payoff against the column mixture is within a small
        # margin of the best also get weight: near-equal moves are mixed so a
        # human cannot farm one fixed reply. racc holds exactly those sums.
        iters = self._iters
        best = racc[0]
        for ii in range(1, kr):
            if racc[ii] > best:
                best = racc[ii]
        tol = (self._noise + 2) * iters
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
