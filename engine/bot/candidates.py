"""What the bot considers: the root scan (every line's score and fours, each empty cell's heuristic for both colours, egg timing), the candidate moves drawn from it, and easy's pick."""
from engine._compat import const
from engine import PAD, UNPAD
from engine.bot.evaluate import DIRS, KHB, walk
from engine.bot.linetables import CEN, LINE_AT

_BLACK = const(1)  # the engine's values (test_bot checks them)
_WHITE = const(2)
_MAXK = const(10)  # most candidates per side (tables.py)
_P_ANT = const(5)  # a field of the level's record (tables.py)
_NLINES = const(40)  # lines of 4+ cells (evaluate.py)
_U_LINE = const(3)  # units for one line of the root scan (__init__.py), heuristics too
# Heuristic values of an empty cell, and of clamp threats in the evaluation
_THREAT = const(22)  # one open clamp threat (N empty, x y enemy, A own) ...
_THREAT_EGG = const(8)  # ... worth more while eggs wait to hatch for the capturer
_CAPV = const(90)  # a capture available on this cell
_CAPV_EGG = const(40)  # ... plus this when an egg would hatch for us
_CAPD = const(60)  # taking the cell denies the opponent's capture
_HOT = const(3000)  # a line change this big is a five (the egg's hatch here; solve.py too)
_EARLY = const(3)  # candidates added after the heuristic's (captures) are inserted here, not appended


# --- the root scan: phases PRE and SCAN -------------------------------------------
def pre(b):
    """Capture and threat values for this move (a capture hatches the oldest egg for the capturer);
    the root scan's sums start at zero."""
    w = b._w
    # Clear the heuristic arrays unless top() left them zeroed: the matrix
    # arrays of the last move share them (see Work.grow), or an abandoned
    # move left its sums there (easy skips the clearing).
    if not w.clean:
        hb = w.hb
        hw = w.hw
        for p in range(121):
            hb[p] = 0
            hw[p] = 0
    w.clean = False
    capvb = _CAPV
    capvw = _CAPV
    capdb = 0
    capdw = 0
    if b._kr:
        capdb = _CAPD
        capdw = _CAPD
    tvb = _THREAT
    tvw = _THREAT
    e0 = b._egg
    if b._threats:
        tsc = w.tsc
        for i in range(9):
            tsc[i] = 0  # no clamp threats inside _egg_gain's walks (windows only)
    if e0 >= 0:
        capvb += _CAPV_EGG
        capvw += _CAPV_EGG
        tvb += _THREAT_EGG
        tvw += _THREAT_EGG
        if b._kr:
            # what that hatchling would do to the lines (a hatch into a
            # five is as good as a win threat)
            gb = _egg_gain(b, e0, _BLACK)
            gw = -_egg_gain(b, e0, _WHITE)
            if gb > 0:
                gb = (gb * 3) >> 2
                capvb += gb
                capdw += (gb * 13) >> 4
                tvb += min(gb >> 1, 4000)
            if gw > 0:
                gw = (gw * 3) >> 2
                capvw += gw
                capdb += (gw * 13) >> 4
                tvw += min(gw >> 1, 4000)
            # A capture anywhere in the same turn as the opponent's makes
            # the oldest egg vanish instead of hatching for them (RULES.md,
            # steps): against a hatch into their five (the scaled gain at
            # _HOT or more), every capture of ours is a defence too.
            if gw >= _HOT:
                capvb += (gw * 13) >> 4
            if gb >= _HOT:
                capvw += (gb * 13) >> 4
    cap = w.cap
    cap[0] = capvb
    cap[1] = capvw
    cap[2] = capdb
    cap[3] = capdw
    if b._kr:
        tsc = w.tsc
        for i in range(9):
            tsc[i] = (i // 3) * tvb - (i % 3) * tvw
    b._total = 0
    b._f4 = 0


def _egg_gain(b, c, v):
    """Change of black's line score if the egg on padded cell c hatched into colour v."""
    bd = b._w.bd
    tot = 0
    for d in range(0, 484, 121):
        li = LINE_AT[d + c]
        if li == 255:
            continue
        bd[c] = v
        tot += walk(b, li, 0)
        bd[c] = 3
        tot -= walk(b, li, 0)
    return tot


def scan(b, left, first):
    """Root scan from line b._line, one line per item (_U_LINE): each line's score and fours,
    heuristics into hb/hw, and at the end the material. Returns the units left when every line
    is done, None when the next line does not fit in this slice."""
    full = b._kr
    w = b._w
    li = b._line
    total = b._total
    f4 = b._f4
    lbase = w.lbase if full else None
    lf4 = w.lf4 if full else None
    wk = walk  # (globals in locals: one lookup per call, not per use)
    while li < _NLINES and (first or left >= _U_LINE):
        t = wk(b, li, 1)
        if full:
            lbase[li] = t
            lf4[li] = b._lf
        total += t
        f4 += b._lf
        li += 1
        left -= _U_LINE
        first = False
    b._line = li
    b._total = total
    b._f4 = f4
    if li < _NLINES:
        return None
    if full:
        bd = w.bd
        mat = 0
        for p in PAD:
            v = bd[p]
            if v == 1:
                mat += 1
            elif v == 2:
                mat -= 1
        b._mat = mat
    return left


# --- candidates: phases TOP, ANT_OPP, ANT_OWN, BRK ---------------------------------
def top(b, color, kr, kc):
    """Best kr cells for us into rows and kc for the opponent into cols; clears the heuristic.

    Sets b._nr, b._nc (how many were found).
    """
    w = b._w
    bd = w.bd
    cen = CEN
    if color == _BLACK:
        hm = w.hb
        ho = w.hw
    else:
        hm = w.hw
        ho = w.hb
    rows = w.rows
    cols = w.cols
    rv = w.rv
    cv = w.cv
    pad = PAD
    nr = 0
    nc = 0
    for i in range(81):
        p = pad[i]
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
    b._nr = nr
    b._nc = nc
    w.clean = True  # every cell read was zeroed, the others were never written


def anticipate(b, own):
    """ANT_OPP (own False): the opponent's clamps of our candidates once they have landed, appended
    to the columns; ANT_OWN (own True): ours of the opponent's, into the rows at _EARLY (rows
    added after the heuristic's go in there: the pair budget drops the last rows first, and a
    capture added for a reason should outlive the weakest cells). At most the level's "ant" cells each.

    A clamp needs the newcomer, two middles (enemy turtles or eggs) and
    an own turtle: with the target as the first middle, the newcomer is
    one step back; as the second middle, two steps back. The root scan
    cannot see these (the target is still empty), the matrix plays them
    exactly once they are candidates.
    """
    w = b._w
    bd = w.bd
    if own:
        targets = w.cols
        nt = b._nc
        out = w.rows
        n = b._nr
        who = b._color
        at = _EARLY
    else:
        targets = w.rows
        nt = b._nr
        out = w.cols
        n = b._nc
        who = 3 - b._color
        at = _MAXK
    most = b._lv[_P_ANT]
    pad = PAD
    unpad = UNPAD
    dirs = DIRS
    mine = 3 - who  # the target's colour once it has landed
    added = 0
    t = 0
    while t < nt and added < most and n < _MAXK:
        pt = pad[targets[t]]
        for dd in dirs:
            for back in range(2):
                # back 0: the target is the first middle (newcomer one step
                # back, the other middle and the own end ahead); back 1: the
                # second middle. The other middle is tested first: it is on
                # the board, so the cells two steps out are inside the array.
                if back == 0:
                    x = bd[pt + dd]
                    nn = pt - dd
                    a = pt + 2 * dd
                else:
                    x = bd[pt - dd]
                    nn = pt - 2 * dd
                    a = pt + dd
                if (x != mine and x != 3) or bd[a] != who or bd[nn] != 0:
                    continue
                cell = unpad[nn]
                j = 0
                while j < n and out[j] != cell:
                    j += 1
                if j == n and added < most and n < _MAXK:
                    while j > at:  # insert at index at (or last), shifting the rest up
                        out[j] = out[j - 1]
                        j -= 1
                    out[j] = cell
                    n += 1
                    added += 1
        t += 1
    if own:
        b._nr = n
    else:
        b._nc = n


def breaks(b, out, n, who, most):
    """Add to out[:n] up to `most` cells where `who` captures now, best first by how many lines
    holding one of the opponent's fours run through the turtles it takes; returns the new count.

    The heuristic prices a capture at _CAPV whatever it takes, so the
    one capture that breaks two fours at once could miss the rows (it was
    the missing move in most of hard's moves that lost at once although
    one that did not existed: docs/bot-experiments.md).
    """
    f4 = b._f4
    if who == _BLACK:
        sh = 0  # white's fours: the low bits of the packed count
    else:
        sh = 10
    if not (f4 >> sh) & 1023:
        return n
    w = b._w
    bd = w.bd
    lf4 = w.lf4
    enemy = 3 - who
    dirs = DIRS
    line_at = LINE_AT
    added = 0
    while added < most and n < _MAXK:
        best = -1
        bestv = 0
        for p in PAD:
            if bd[p]:
                continue
            v = 0
            for dd in dirs:
                x1 = bd[p + dd]
                if x1 != enemy and x1 != 3:
                    continue
                x2 = bd[p + dd + dd]
                if (x2 != enemy and x2 != 3) or bd[p + 3 * dd] != who:
                    continue
                q = p + dd
                for _ in range(2):  # the two middles (no tuple: nothing is allocated in a move)
                    if bd[q] == enemy:
                        for d in range(0, 484, 121):
                            li = line_at[d + q]
                            if li != 255 and (lf4[li] >> sh) & 1023:
                                v += 1
                    q += dd
            if v > bestv:
                cell = UNPAD[p]
                j = 0
                while j < n and out[j] != cell:
                    j += 1
                if j == n:
                    bestv = v
                    best = cell
        if best < 0:
            break
        j = n
        while j > _EARLY:  # insert at _EARLY (see anticipate)
            out[j] = out[j - 1]
            j -= 1
        out[j] = best
        n += 1
        added += 1
    return n


# --- easy -----------------------------------------------------------------------------
def easy(b):
    """Easy: one of the heuristic's top 4 cells, picked with noise (weights 8:4:2:1)."""
    top(b, b._color, 4, 0)
    n = b._nr
    rows = b._w.rows
    # a win on the board (a cell worth completing a five) is always taken: even easy is not silly
    if n == 1 or b._w.rv[0] >= KHB[4]:
        return rows[0]
    r = b._rand() % 15
    if r < 8:
        return rows[0]
    if r < 12 or n == 2:
        return rows[1]
    if r < 14 or n == 3:
        return rows[2]
    return rows[3]
