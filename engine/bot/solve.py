"""The matrix game of the candidate moves: its payoffs (each candidate's line changes alone, phase DELTA; every pair played on the trial Game and scored, PAIRS), its solve by fictitious play over the rows no candidate reply beats at once (FP), the dominant row's cell as a collision column, and the pick from the mixed strategy (PICK)."""
from engine._compat import const
from engine import Game, BLACK, ONGOING, PAD
from engine.bot.evaluate import cell_delta, quiet, rescore, rough

_MAXK = const(10)  # most candidates per side; the matrix's row stride (tables.py)
# Units (see __init__.py) of one item here
_U_DELTA = const(5)  # one candidate's score change: 4 line walks
_U_PLAY = const(10)  # one pair's play() + undo(), and its score if quiet
_U_EVAL = const(20)  # a capture turn's rescoring of every line through a changed cell
_U_FP = const(10)  # _FP_BATCH iterations of fictitious play
# Units for the pairs of one move: beyond it the remaining rows are dropped
# (it bounds hard's worst move; tools.bench --only bot prints it).
_PAIR_BUDGET = const(800)
_FP_BATCH = const(10)
_GAP = const(8)  # fictitious play stops once its strategy is within this many points of the game's value
_LOSS = const(29000)  # a payoff at or below -_LOSS is a lost game (noise is a few points)
_OUT = const(-0x20000000)  # a row's running payoff when it is left out of the solve (never the best)
_TOL = const(24)  # moves within this many points of the best may be mixed in (see pick) ...
_VAR = const(4)  # ... if the mixture then guarantees at most this much less

_PLAY = Game.play  # plain functions in module globals: no attribute lookup per pair
_UNDO = Game.undo


# --- the payoffs: phases DELTA and PAIRS -------------------------------------------------
def deltas(b, left, first):
    """DELTA: per candidate from b._cand (rows, then columns), its score and fours change alone,
    per direction, one candidate per item. Returns the units left when all are done, None when
    the next does not fit in this slice."""
    w = b._w
    k = b._cand
    nr = b._nr
    nc = b._nc
    color = b._color
    pad = PAD  # (globals in locals: one lookup per call, not per use)
    delta = cell_delta
    while k < nr + nc and (first or left >= _U_DELTA):
        if k < nr:
            delta(b, pad[w.rows[k]], color, w.sr, w.s4r, w.dr, w.d4r, k)
        else:
            j = k - nr
            delta(b, pad[w.cols[j]], 3 - color, w.sc, w.s4c, w.dc, w.d4c, j)
        k += 1
        left -= _U_DELTA
        first = False
    b._cand = k
    return left if k == nr + nc else None


def pairs(b, left, first):
    """PAIRS: the payoff (our point of view) of each candidate pair from b._pair (row * _MAXK +
    column; columns from b._j0 on), by playing it on the trial Game. Returns the units left when
    the matrix is done, None when the slice ends (the next pair does not fit, or a capture turn's
    rescoring waits).

    Most pairs are quiet (both turtles land, nothing captured), and then
    the evaluation is the sum of each cell's own change, corrected only
    on the one line the two cells may share. Pairs that capture, hatch
    or collide are scored by rescoring every line through a changed cell
    (hard) or by their material only (medium).
    """
    w = b._w
    g = w.g
    rows = w.rows
    cols = w.cols
    m = w.m
    black = b._color == BLACK
    nr = b._nr
    nc = b._nc
    j0 = b._j0
    noise = b._lv["noise"]
    span = 2 * noise + 1
    # plain functions in locals: no lookup per pair
    play = _PLAY
    undo = _UNDO
    ev = rescore
    qu = quiet
    exact = b._threats  # hard: exact rescoring of capture turns
    q = b._pair
    end = (nr - 1) * _MAXK + nc
    spent = b._spent
    while q < end:
        i = q // _MAXK
        j = q - i * _MAXK
        if j == j0 and i and not j0 and spent >= _PAIR_BUDGET and not b._half:
            # Out of thinking time (a fixed budget of units, so the same
            # whatever the slicing): the rows left (the weakest, and
            # the anticipatory captures added last) are dropped. (Not
            # while a capture turn waits for its rescoring: the trial
            # game is still played, and the later passes use it.)
            nr = b._nr = i
            break
        r = rows[i]
        c = cols[j]
        if b._half:
            # the second half of a capture turn played in an earlier item
            if not first and left < _U_EVAL:
                break
            v = ev(b, g)
            left -= _U_EVAL
            spent += _U_EVAL
            b._half = 0
        else:
            if not first and left < _U_PLAY:
                break
            if black:
                play(g, r, c)
            else:
                play(g, c, r)
            left -= _U_PLAY
            spent += _U_PLAY
            if g.result != ONGOING:
                v = ev(b, g)  # a decided game: its value
            elif g.log_len == 3 and r != c:
                v = qu(b, i, j)  # both landed, nothing else happened
            elif exact:
                if left < _U_EVAL:
                    b._half = 1  # rescore in the next item: g stays played
                    break
                v = ev(b, g)
                left -= _U_EVAL
                spent += _U_EVAL
            else:
                v = rough(b, g, i, j)
        undo(g)
        if not black:
            v = -v
        if noise:
            v += b._below(span) - noise
        m[q] = v
        q += 1
        if j + 1 >= nc:
            q = (i + 1) * _MAXK + j0
        first = False
    b._pair = q
    b._spent = spent
    return left if q >= end or nr == i else None


# --- the solve: phases FP and PICK ---------------------------------------------------------
def _safe_rows(b):
    """Mark the rows the solve may play: racc[i] = 0, or _OUT for a row left out; returns the first
    row it may play.

    Safe rows: no candidate reply wins against them at once. With two or
    more, only they are solved (mixing them is unpredictable enough). With
    fewer, a reply that wins against most rows is a threat already on the
    board (the opponent's four): answering it is the matrix game's
    business, since a block played for certain is the most predictable move
    there is. Such a reply (cacc[j] = 1, zeroed below) is then ignored, and
    a second pass leaves out only the rows that another reply beats: a new
    weakness, such as a turtle whose capture hatches an egg into the
    opponent's five. If every row loses to something, all are solved.
    """
    w = b._w
    m = w.m
    racc = w.racc
    cacc = w.cacc
    rcnt = w.rcnt
    kr = b._nr
    kc = b._nc
    for jj in range(kc):
        cacc[jj] = 0
    threats = 0
    while True:
        safe = 0
        for ii in range(kr):
            q = ii * _MAXK
            jj = 0
            while jj < kc and (m[q + jj] > -_LOSS or cacc[jj]):
                jj += 1
            racc[ii] = 0 if jj == kc else _OUT
            if jj == kc:
                safe += 1
        if threats or safe >= 2:
            break
        for jj in range(kc):
            nb = 0
            q = jj
            for ii in range(kr):
                if m[q] <= -_LOSS:
                    nb += 1
                q += _MAXK
            if nb + nb > kr:
                cacc[jj] = 1
                threats += 1
        if not threats:
            break
    i = -1
    for ii in range(kr):
        if safe == 0:
            racc[ii] = 0  # every row loses to something: solve them all
        if i < 0 and racc[ii] == 0:
            i = ii  # the first row the solver may play
        rcnt[ii] = 0
    for jj in range(kc):
        cacc[jj] = 0
    return i


def fp(b, left, first):
    """FP: alternating fictitious play on the nr x nc zero-sum game from iteration b._fpit,
    _FP_BATCH iterations per item, until the duality gap is under _GAP points or the level's
    iteration cap. Returns the units left when solved (b._fpit: the iterations it took), None when
    the next item does not fit in this slice.

    Running payoff sums make one iteration O(k), not O(k^2): the row
    player adds the row it played to the columns' sums (cacc[j] is then
    exactly sum_i rcnt[i] * m[i][j]), the column player best-responds to
    that, and the row player adds that column to the rows' sums and
    best-responds in turn. min(cacc) / it is what the rows' frequencies
    guarantee against every column and max(racc) / it bounds what any
    row mixture could, so their difference bounds how far the bot's
    strategy is from the game's value: stop when it is small (alternating
    play to a small gap gives a reader of the bot far less than a fixed
    number of simultaneous iterations: docs/bot-experiments.md). Rows left
    out by _safe_rows start at _OUT, so they are never played.
    """
    if not first and left < _U_FP:
        return None
    w = b._w
    m = w.m
    racc = w.racc
    cacc = w.cacc
    rcnt = w.rcnt
    kr = b._nr
    kc = b._nc
    # The level's iterations are for the whole move: a re-solve (a new
    # column) gets what the solves before it left, and at least a quarter.
    level = b._lv["iters"]
    iters = level - b._fpused
    if iters < level >> 2:
        iters = level >> 2
    it = b._fpit
    if it == 0:
        b._fi = _safe_rows(b)
        b._gap = 0x3FFFFFFF
    i = b._fi
    gap = b._gap
    limit = _GAP
    while it < iters and gap > limit * it and (first or left >= _U_FP):
        stop = it + _FP_BATCH
        if stop > iters:
            stop = iters
        while it < stop:
            rcnt[i] += 1
            q = i * _MAXK
            j = 0
            lo = 0x3FFFFFFF
            for jj in range(kc):
                x = cacc[jj] + m[q + jj]
                cacc[jj] = x
                if x < lo:
                    lo = x
                    j = jj
            q = j
            hi = -0x3FFFFFFF
            for ii in range(kr):
                x = racc[ii] + m[q]
                racc[ii] = x
                if x > hi:
                    hi = x
                    i = ii
                q += _MAXK
            it += 1
            gap = hi - lo
            if gap <= limit * it:
                break
        left -= _U_FP
        first = False
    b._fi = i
    b._gap = gap
    b._fpit = it
    if it < iters and gap > limit * it:
        return None
    b._fpused += it
    return left


def collide(b):
    """After a solve: if one row dominates (played in all but two iterations), a human who reads
    the bot would play there too (the collision lays an egg), so unless the opponent model already
    has that cell it joins the columns (or replaces the last one when they are full). Once per
    move. True when a column was added: the game is to be solved again from its deltas."""
    if b._redo:
        return False
    w = b._w
    rcnt = w.rcnt
    kr = b._nr
    kc = b._nc
    bi = 0
    for ii in range(1, kr):
        if rcnt[ii] > rcnt[bi]:
            bi = ii
    if rcnt[bi] < b._fpit - 2:
        return False
    b._redo = 1
    cols = w.cols
    cell = w.rows[bi]
    jj = 0
    while jj < kc and cols[jj] != cell:
        jj += 1
    if jj < kc:
        return False
    if kc < _MAXK:
        kc += 1
        b._nc = kc
    cols[kc - 1] = cell
    b._j0 = kc - 1
    return True


def pick(b):
    """PICK: sample a row from the fictitious-play frequencies, near-equal moves mixed in when that
    is safe; returns the row's index.

    Rows whose payoff against the column mixture is within _TOL of the
    best also get a share, so the same position does not always get
    the same answer, but only if the mixture still guarantees within
    _VAR points of what the solved one does against every column
    (mixing them in unconditionally handed a reader of the bot far more:
    docs/bot-experiments.md). A row is mixable when it is near the best
    against the column mixture and has under a quarter of the weight.
    """
    w = b._w
    racc = w.racc
    rcnt = w.rcnt
    cacc = w.cacc
    m = w.m
    kr = b._nr
    kc = b._nc
    it = b._fpit
    best = racc[0]
    for ii in range(1, kr):
        if racc[ii] > best:
            best = racc[ii]
    near = best - _TOL * it
    bonus = (it >> 2) + 1
    tot = it
    n = 0
    for ii in range(kr):
        if racc[ii] >= near and rcnt[ii] * 4 < it:
            n += 1
    if n:
        # guaranteed value (per unit of weight) before and after
        lo0 = 0x3FFFFFFF
        lo1 = 0x3FFFFFFF
        for jj in range(kc):
            x = cacc[jj]
            if x // it < lo0:
                lo0 = x // it
            for ii in range(kr):
                if racc[ii] >= near and rcnt[ii] * 4 < it:
                    x += bonus * m[ii * _MAXK + jj]
            if x // (it + n * bonus) < lo1:
                lo1 = x // (it + n * bonus)
        if lo1 >= lo0 - _VAR:
            for ii in range(kr):
                if racc[ii] >= near and rcnt[ii] * 4 < it:
                    rcnt[ii] += bonus
            tot = it + n * bonus
    r = b._below(tot)
    for ii in range(kr):
        r -= rcnt[ii]
        if r < 0:
            return ii
    return 0
