"""The twoply/sampler evaluation and search: a position's line analysis, its threats, candidates, and 2-ply matrix games."""
import json
import os

from engine import Game, BLACK, WHITE, EMPTY, ONGOING, BLACK_WON, WHITE_WON, EV_PLACE
from tools.tournament.outsiders import lines as L
from tools.tournament.outsiders.matrix import solve

WIN = 100000.0  # a won game (black's view); every other value stays well inside it

# Threat weights (tuned on seeds 1-4 only, see the report of issue 29).
PARAMS = {
    "force": 400.0,  # one winning cell: the opponent must answer it next turn
    "mutual": 300.0,  # both sides have winning cells: per cell more
    "sure": 0.92,  # share of (1 - 1/n) of a win kept for n winning cells (captures may still break the line)
    "broken": 0.15,  # share of that kept when the opponent can capture a turtle of the four
    "fork": 1500.0,  # a cell that would make two winning cells next turn
    "fork2": 12000.0,  # two or more such cells (the opponent cannot cover both)
    "clamp": 35.0,  # per clamp one could close next turn
    "egg_armed": 6000.0,  # the oldest egg completes a five for its hatcher, who has no clamp yet
    "egg_next": 2000.0,  # the second-oldest egg completes a five for its hatcher
    "egg_later": 500.0,  # a younger egg does
    "gamma": 0.7,
    "purify": 0.06,  # root moves the equilibrium plays less often than this are dropped (twoply.purified)
    # threat quiescence: one more turn played out at leaves where both sides can win (1), also where one side
    # can win and the other can capture (2), wherever a side can win (3); 0: the formula only
    "quiesce": 1,  # candidate order: weight of the opponent's gain on a cell (taking its key cell)
}


# Tuning aid: OUTSIDER_PARAMS='{"fork": 2000}' overrides weights for a run (the record prints the command, not the
# environment: say so when you use it).
if os.environ.get("OUTSIDER_PARAMS"):
    PARAMS.update(json.loads(os.environ["OUTSIDER_PARAMS"]))


def _popcount(x):
    return x.bit_count()


class Node:
    """A position seen through its lines: codes, entries, summed score and the union of each pattern mask."""

    __slots__ = ("codes", "ents", "d", "nz", "empties", "e0", "e1", "sudden", "masks", "hw", "vals")

    def __init__(self, codes, game):
        self.codes = codes
        ents = [L.entry(l, codes[l]) for l in range(L.NLINES)]
        self.ents = ents
        d = 0
        nz = []
        for l in range(L.NLINES):
            e = ents[l]
            d += e[0]
            if e[22]:
                nz.append((l, e[21]))
        self.d = d
        self.nz = nz
        vals = self.vals = [game.cell(i) for i in range(81)]
        self.empties = [i for i in range(81) if vals[i] == EMPTY]
        n = game.egg_count
        self.e0 = game.egg(0) if n > 0 else -1
        self.e1 = game.egg(1) if n > 1 else -1
        self.sudden = game.sudden_death
        m = self.masks = _masks([pk for _, pk in nz])
        self.hw = (0, 0)
        if self.e0 >= 0 and (m[2] or m[3]):
            self.hw = _played_hatch_wins(game, m, self.empties)

    def leaf(self, g):
        """Black's value of g, one turn after this node (the turn is g's last play)."""
        r = g.result
        if r != ONGOING:
            return WIN if r == BLACK_WON else (-WIN if r == WHITE_WON else 0.0)
        codes = self.codes
        log = g.log
        if g.log_len == 3 and log[0] == EV_PLACE:
            # a quiet turn (nothing captured): two cells changed
            nc = {}
            for l, pw in L.CELL_LINES[log[1]]:
                nc[l] = codes[l] + pw
            for l, pw in L.CELL_LINES[log[2]]:
                x = nc.get(l)
                nc[l] = (codes[l] if x is None else x) + 2 * pw
        else:
            touched = {}
            L.apply_log(g, codes, touched)
            nc = {}
            for l, c in touched.items():
                nc[l] = codes[l]
                codes[l] = c
        d = self.d
        ents = self.ents
        memo = L.MEMO
        ms = [pk for l, pk in self.nz if l not in nc]
        for l, code in nc.items():
            e = memo[l].get(code)
            if e is None:
                e = L.entry(l, code)
            d += e[0] - ents[l][0]
            if e[22]:
                ms.append(e[21])
        n = g.egg_count
        e0 = g.egg(0) if n > 0 else -1
        e1 = g.egg(1) if n > 1 else -1
        e2 = g.egg(2) if n > 2 else -1
        m = _masks(ms)
        hw = (0, 0)
        if e0 >= 0 and (m[2] or m[3]):
            hw = hatch_wins(codes, nc, m, e0)
            if e0 == self.e0:
                # the node's played-out hatch wins (chains included) still stand where the clamp does
                hw = (hw[0] | (self.hw[0] & m[2]), hw[1] | (self.hw[1] & m[3]))
        qz = PARAMS["quiesce"]
        if qz:
            hot_b = m[0] | hw[0]
            hot_w = m[1] | hw[1]
            if (hot_b and hot_w) or (qz >= 2 and ((hot_b and (qz == 3 or m[3])) or (hot_w and (qz == 3 or m[2])))):
                return self._quiesce(g, nc, d, m, hw)
        return d + threat(m, hw, e0, e1, e2)

    def _quiesce(self, g, nc, d, m, hw):
        """Black's value of a leaf where both sides can win next turn: one more turn played out over each side's
        winning cells and its collisions on the other's (a matrix game), then the static value. How the two threats
        meet (a win that captures the other's line, a collision, a five each) is not a formula's guess."""
        full = list(self.codes)
        for l, c in nc.items():
            full[l] = c
        lp = {}
        for l, pk in self.nz:
            if l not in nc:
                lp[l] = pk
        for l, code in nc.items():
            e = L.entry(l, code)
            if e[22]:
                lp[l] = e[21]
        wb = m[0] | hw[0]
        ww = m[1] | hw[1]
        rows = _options(m[0], hw[0], ww, m[2])
        cols = _options(m[1], hw[1], wb, m[3])
        q = _quiet_game
        q.copy_from(g)
        QUIESCED[0] += len(rows) * len(cols)
        entry = L.entry
        mat = []
        for x in rows:
            row = []
            for y in cols:
                q.play(x, y)
                if q.result != ONGOING:
                    row.append(terminal(q))
                    q.undo()
                    continue
                touched = {}
                L.apply_log(q, full, touched)
                dd = d
                packs = [pk for l, pk in lp.items() if l not in touched]
                for l, old in touched.items():
                    e = entry(l, full[l])
                    dd += e[0] - entry(l, old)[0]
                    if e[22]:
                        packs.append(e[21])
                mm = _masks(packs)
                n = q.egg_count
                e0 = q.egg(0) if n > 0 else -1
                h2 = hatch_wins(full, {}, mm, e0) if e0 >= 0 and (mm[2] or mm[3]) else (0, 0)
                for l, old in touched.items():
                    full[l] = old
                row.append(dd + threat(mm, h2, e0, q.egg(1) if n > 1 else -1, q.egg(2) if n > 2 else -1))
                q.undo()
            mat.append(row)
        return solve(mat)[0]

    def value(self):
        """Black's static value of this node's own position."""
        return self.d + threat(self.masks, self.hw, self.e0, self.e1, -1)

    def scores(self):
        """{cell: (black's gain there, white's gain there)} in black's view of the line scores."""
        codes = self.codes
        ents = self.ents
        out = {}
        entry = L.entry
        for c in self.empties:
            gb = 0
            gw = 0
            for l, pw in L.CELL_LINES[c]:
                code = codes[l]
                base = ents[l][0]
                gb += entry(l, code + pw)[0] - base
                gw += base - entry(l, code + 2 * pw)[0]
            out[c] = (gb, gw)
        return out

    def candidates(self, k_black, k_white, extra=8):
        """(black's candidates, white's candidates): tactical cells first, then the best by score.

        Tactical for both sides: every winning cell (to play or to block by
        collision), every clamp cell of either side (a capture hatches the
        oldest egg, and colliding on the other's clamp cell stops it), every
        fork cell (makes two winning cells). When there are more than
        k + extra of them, the best scored are kept.
        """
        sc = self.scores()
        m = self.masks
        gamma = PARAMS["gamma"]
        winB, winW, clB, clW, forkB, forkW = m[0] | self.hw[0], m[1] | self.hw[1], m[2], m[3], m[6], m[7]
        # anticipatory clamps: a side's winning cell is where the other must block, so a cell that would clamp
        # that blocking turtle takes it (and hatches an egg) in the same turn
        antB = _anticipation(self.vals, winB, BLACK)
        antW = _anticipation(self.vals, winW, WHITE)
        must = winB | winW | clB | clW | forkB | forkW | antB | antW
        out = []
        for me, k, own_w, opp_w, own_cl, opp_cl, own_fk, opp_fk in (
                (0, k_black, winB, winW, clB, clW, forkB, forkW),
                (1, k_white, winW, winB, clW, clB, forkW, forkB)):
            ranked = []
            for c, (gb, gw) in sc.items():
                own, opp = (gb, gw) if me == 0 else (gw, gb)
                s = own + gamma * opp
                bit = 1 << c
                if bit & must:
                    if own_w & bit:
                        s += 1e7
                    if opp_w & bit:
                        s += 1e6
                    if own_cl & bit:
                        s += 1000
                    if opp_cl & bit:
                        s += 500
                    if own_fk & bit:
                        s += 800
                    if opp_fk & bit:
                        s += 600
                    if (antB if me == 0 else antW) & bit:
                        s += 700
                ranked.append((-s, c))
            ranked.sort()
            n_must = 0
            for _, c in ranked:
                if (must >> c) & 1:
                    n_must += 1
            k = max(k, min(n_must, k + extra))
            out.append([c for _, c in ranked[:k]])
        return out[0], out[1]


def _masks(packs):
    """[winB, winW, clampB, clampW, eggfiveB, eggfiveW, forkB, forkW, nclampB, nclampW, captureB, captureW,
    fourB, fourW, fiveB, fiveW] over the lines' packed masks (lines.PACKED)."""
    w = c = eg = f = m1 = tw = k = o = n = fv = 0
    for pk in packs:
        w |= pk[0]
        c |= pk[1]
        eg |= pk[2]
        f |= pk[3]
        x = pk[4]
        if x:
            tw |= m1 & x
            m1 |= x
        k |= pk[5]
        o |= pk[6]
        n += pk[7]
        fv |= pk[8]
    f |= tw
    low = L.LOW
    sh = L.SHIFT
    return (w & low, w >> sh, c & low, c >> sh, eg & low, eg >> sh, f & low, f >> sh, n & 1023, n >> 10,
            k & low, k >> sh, o & low, o >> sh, fv & low, fv >> sh)


_trial = Game()
_quiet_game = Game()
QUIESCED = [0]  # turns played in quiescence so far (the search counts them as leaves against its budget)


def _options(wins, hatch, theirs, clamps):
    """A side's cells in a threat quiescence: its direct winning cells (3 at most), its hatch wins (2),
    collisions on the other side's winning cells (3) and, while room is left, its clamps (a capture can break
    a line or make the oldest egg vanish): 7 at most."""
    out = L.bits(wins)[:3]
    for c in L.bits(hatch & ~wins)[:2]:
        out.append(c)
    for c in L.bits(theirs)[:3]:
        if c not in out:
            out.append(c)
    for c in L.bits(clamps):
        if len(out) >= 7:
            break
        if c not in out:
            out.append(c)
    return out
_STEPS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _anticipation(vals, wins, colour):
    """Empty cells where a turtle of `colour` clamps a turtle the other side places on one of `wins` this turn."""
    out = 0
    enemy = 3 - colour
    for h in L.bits(wins):
        r, c = divmod(h, 9)
        for dr, dc in _STEPS:
            # h as the first middle piece: N = h - d, y = h + d, A = h + 2d
            # h as the second middle piece: x = h - d, N = h - 2d, A = h + d
            for back, fwd_mid, fwd_own in ((1, 1, 2), (2, -1, 1)):
                rn, cn = r - back * dr, c - back * dc
                rm, cm = r + fwd_mid * dr, c + fwd_mid * dc
                ra, ca = r + fwd_own * dr, c + fwd_own * dc
                if not (0 <= rn < 9 and 0 <= cn < 9 and 0 <= ra < 9 and 0 <= ca < 9):
                    continue
                n = rn * 9 + cn
                m = rm * 9 + cm
                if vals[n] == EMPTY and (vals[m] == enemy or vals[m] == 3) and vals[ra * 9 + ca] == colour:
                    out |= 1 << n
    return out


def _played_hatch_wins(game, m, empties):
    """(black's, white's) clamp cells that win the game at once when played against a quiet cell: exact, chains of
    hatches included (the engine plays each)."""
    # the other side's quiet cell: the empty cell with the fewest pieces around it
    quiet = []
    for c in empties:
        r0, c0 = divmod(c, 9)
        n = 0
        for r in range(max(0, r0 - 2), min(9, r0 + 3)):
            for k in range(max(0, c0 - 2), min(9, c0 + 3)):
                if game.cell(r * 9 + k) != EMPTY:
                    n += 1
        quiet.append((n, c))
    quiet.sort()
    quiet = [c for _, c in quiet[:2]]
    g = _trial
    out = [0, 0]
    for side, cl in ((0, m[2]), (1, m[3])):
        won = BLACK_WON if side == 0 else WHITE_WON
        for c in L.bits(cl):
            q = quiet[0] if quiet[0] != c else quiet[-1]
            if q == c:
                continue
            g.copy_from(game)
            if side == 0:
                g.play(c, q)
            else:
                g.play(q, c)
            if g.result == won:
                out[side] |= 1 << c
    return out[0], out[1]


def hatch_wins(codes, nc, m, e0):
    """(black's, white's) clamp cells from which a lone capture hatches the oldest egg e0 into a five.

    Either e0 completes a five by itself, or together with the clamping
    turtle on the same line.
    """
    out = [0, 0]
    for side, cl, eg, five in ((0, m[2], m[4], L.FIVEB), (1, m[3], m[5], L.FIVEW)):
        if not cl:
            continue
        if (eg >> e0) & 1:
            out[side] = cl
            continue
        colour = side + 1
        x = 0
        for c in L.bits(cl):
            sh = L.SHARED[c * 81 + e0]
            if sh is not None:
                l, pc, pe = sh
                code = nc.get(l)
                if code is None:
                    code = codes[l]
                if L.entry(l, code + colour * pc + (colour - 3) * pe)[five]:
                    x |= 1 << c
        out[side] = x
    return out[0], out[1]


def threat(m, hw, e0, e1, e2):
    """Black's value of the threats in masks m, hw the hatch-win clamp cells (hatch_wins), e0, e1, e2 the three
    oldest eggs (-1: none)."""
    P = PARAMS
    wb, ww, cb, cw, eb, ew, fb, fw, nb_cl, nw_cl, kb, kw, ob, ow, vb, vw = m
    t = P["clamp"] * (nb_cl - nw_cl)
    # eggs lying in a four hatch into a five for whoever captures alone once they are the oldest
    if eb | ew:
        if e0 >= 0:
            if (eb >> e0) & 1 and not cb:
                t += P["egg_armed"]
            if (ew >> e0) & 1 and not cw:
                t -= P["egg_armed"]
        if e1 >= 0:
            if (eb >> e1) & 1:
                t += P["egg_next"]
            if (ew >> e1) & 1:
                t -= P["egg_next"]
        later = (eb, ew)
        for e in (e0, e1, e2):
            if e >= 0:
                later = (later[0] & ~(1 << e), later[1] & ~(1 << e))
        t += P["egg_later"] * (_popcount(later[0]) - _popcount(later[1]))
    # Threat groups: each direct winning cell is one; the hatch threat (the clamp cells whose lone capture hatches
    # the oldest egg into a five) is one more if the opponent has a clamp of its own (any clamp of its makes the
    # oldest egg vanish instead), else each of its cells is one. The opponent's move answers one group.
    hb, hwh = hw
    if hb:
        nb = _popcount(wb & ~hb) + (1 if cw else _popcount(hb))
    else:
        nb = _popcount(wb)
    if hwh:
        nw = _popcount(ww & ~hwh) + (1 if cb else _popcount(hwh))
    else:
        nw = _popcount(ww)
    if vb and vw:
        # sudden death (a five each): a capture out of the other's line wins outright
        if kb & vw:
            nb += 1
        if kw & vb:
            nw += 1
    if nb and not nw:
        # a four the opponent can break with a capture is no sure thing
        sure = P["sure"] * (P["broken"] if ob & kw else 1.0)
        return t + P["force"] + (WIN * sure * (1.0 - 1.0 / nb) if nb > 1 else 0.0)
    if nw and not nb:
        sure = P["sure"] * (P["broken"] if ow & kb else 1.0)
        return t - P["force"] - (WIN * sure * (1.0 - 1.0 / nw) if nw > 1 else 0.0)
    if nb:
        return t + P["mutual"] * (nb - nw)
    nfb = _popcount(fb)
    nfw = _popcount(fw)
    if nfb:
        t += P["fork2"] if nfb > 1 else P["fork"]
    if nfw:
        t -= P["fork2"] if nfw > 1 else P["fork"]
    return t


def terminal(g):
    r = g.result
    return WIN if r == BLACK_WON else (-WIN if r == WHITE_WON else 0.0)


class TwoPly:
    """2-ply simultaneous-move search: root pairs played on the engine, each child a matrix game over leaf values."""

    def __init__(self, k_root=14, k_child=9):
        self.k_root = k_root
        self.k_child = k_child
        self.g1 = Game()
        self.leaves = 0

    def child_value(self, g, codes):
        """Black's value of the position in g (its last play applied to `codes`) as a matrix game one turn deep,
        solved by double oracle over k_child candidates a side (only the leaves it needs are evaluated)."""
        child = Node(codes, g)
        cb, cw = child.candidates(self.k_child, self.k_child, extra=4)
        cache = {}
        leaf = child.leaf
        play = g.play
        undo = g.undo

        def value(i, j):
            key = i * 256 + j
            v = cache.get(key)
            if v is None:
                play(cb[i], cw[j])
                v = cache[key] = leaf(g)
                undo()
            return v

        init = min(3, len(cb)), min(3, len(cw))
        q0 = QUIESCED[0]
        v, _, _ = double_oracle(len(cb), len(cw), value, range(init[0]), range(init[1]))
        self.leaves += len(cache) + QUIESCED[0] - q0
        return v

    def root_matrix(self, game, mine_b, mine_w):
        """Black's value of every root pair (rows: black's cells, columns: white's)."""
        root_codes = L.codes_of(game)
        g = self.g1
        m = []
        for a in mine_b:
            row = []
            for b in mine_w:
                g.copy_from(game)
                g.play(a, b)
                if g.result != ONGOING:
                    row.append(terminal(g))
                    continue
                codes = list(root_codes)
                L.apply_log(g, codes, {})
                row.append(self.child_value(g, codes))
            m.append(row)
        return m


def double_oracle(nr, nc, value, rows, cols):
    """(value, {row: weight}, {column: weight}) of the nr x nc game whose entries value(i, j) gives (the row player
    maximises), found by double oracle from the starting rows and columns: solve the game on the rows and columns
    so far, add the row that does best against the column strategy and the column that does best against the row
    strategy if they beat the value, repeat. Exact for the full game; only the entries the checks need are asked."""
    R = list(rows)
    C = list(cols)
    while True:
        sub = [[value(i, j) for j in C] for i in R]
        v, ps, qs = solve(sub)
        tol = 1e-6 * (1.0 + abs(v))
        best_i, best_u = -1, v + tol
        inR = set(R)
        for i in range(nr):
            if i in inR:
                continue
            u = 0.0
            for j, w in zip(C, qs):
                if w > 1e-9:
                    u += w * value(i, j)
            if u > best_u:
                best_i, best_u = i, u
        best_j, best_w = -1, v - tol
        inC = set(C)
        for j in range(nc):
            if j in inC:
                continue
            u = 0.0
            for i, w in zip(R, ps):
                if w > 1e-9:
                    u += w * value(i, j)
            if u < best_w:
                best_j, best_w = j, u
        if best_i < 0 and best_j < 0:
            return v, dict(zip(R, ps)), dict(zip(C, qs))
        if best_i >= 0:
            R.append(best_i)
        if best_j >= 0:
            C.append(best_j)


class RootGame:
    """The root matrix (black's view) filled lazily: a 1-ply estimate everywhere, the 2-ply child value where asked.

    solve() finds the equilibrium of the full candidate matrix by double
    oracle: solve the game on a few rows and columns, add any row or column
    that does better against the other side's strategy, repeat; only the
    entries those checks need are searched. Past `max_leaves` leaves the
    remaining entries keep their estimate (deterministic: a count, no clock).
    """

    def __init__(self, search, game, rows, cols, max_leaves):
        self.search = search
        self.game = game
        self.rows = rows
        self.cols = cols
        self.max_leaves = max_leaves
        self.codes = L.codes_of(game)
        self.root = Node(list(self.codes), game)
        g = search.g1
        g.copy_from(game)
        est = []
        for a in rows:
            r = []
            for b in cols:
                g.play(a, b)
                r.append(self.root.leaf(g))
                g.undo()
            est.append(r)
        self.est = est
        self.exact = {}
        self.start = search.leaves

    def value(self, i, j):
        """Black's value of pair (rows[i], cols[j]): searched 2 ply if the budget allows, else the estimate."""
        key = i * 256 + j
        v = self.exact.get(key)
        if v is not None:
            return v
        if self.search.leaves - self.start >= self.max_leaves:
            return self.est[i][j]
        g = self.search.g1
        g.copy_from(self.game)
        g.play(self.rows[i], self.cols[j])
        if g.result != ONGOING:
            v = terminal(g)
        else:
            codes = list(self.codes)
            L.apply_log(g, codes, {})
            v = self.search.child_value(g, codes)
        self.exact[key] = v
        return v

    def solve(self, seed_rows=3, seed_cols=3):
        """(value, p over rows, q over columns) of black's root game."""
        nr = len(self.rows)
        nc = len(self.cols)
        _, p0, q0 = solve(self.est)
        R = _top(p0, [min(r) for r in self.est], seed_rows)
        C = _top(q0, [-max(self.est[i][j] for i in range(nr)) for j in range(nc)], seed_cols)
        v, pd, qd = double_oracle(nr, nc, self.value, R, C)
        p = [pd.get(i, 0.0) for i in range(nr)]
        q = [qd.get(j, 0.0) for j in range(nc)]
        return v, p, q


def _top(strategy, key, n):
    """Indices in the strategy's support, then the best by key, n or more in all."""
    out = [i for i, w in enumerate(strategy) if w > 1e-9]
    for i in sorted(range(len(key)), key=lambda i: -key[i]):
        if len(out) >= n:
            break
        if i not in out:
            out.append(i)
    return out
