"""The matrix game of the candidate moves: its payoffs (each candidate's line changes alone, phase DELTA; every pair scored, played on the trial Game unless it is quiet, PAIRS), its solve by fictitious play over the rows no candidate reply beats at once (FP), the columns it gains (the dominant row's cell as a collision; the opponent's best replies over the whole board, REPLIES, hard) and the pick from the mixed strategy (PICK)."""
from array import array as _array

from engine._compat import const
from engine import PAD, Game
from engine.bot.evaluate import DIRS, cell_delta, quiet, rescore, rough
from engine.bot import evaluate
from engine.bot.linetables import ORDER

_BLACK = const(1)  # the engine's values (test_bot checks them)
_ONGOING = const(0)
_MAXK = const(10)  # most candidates per side; the matrix's row stride (tables.py)
_P_ITERS = const(2)  # fields of the level's record (tables.py)
_P_NOISE = const(3)
_P_REPLIES = const(6)
# Units (see __init__.py) of one item here
_U_DELTA = const(5)  # one candidate's score change: 4 line walks
_U_PLAY = const(10)  # one pair's play() + undo(), and its score if quiet
_U_PQ = const(4)  # one quiet pair known without playing it: its tests and the formula
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
# The reply search (REPLIES)
_HOT = const(3000)  # a cell's line change this big (a five) is played exactly (candidates.py too)
_REPLY_GAIN = const(30)  # a reply outside the columns must beat the strategy by this much (one turtle) to join them
_REPLY_BUDGET = const(300)  # units for one round of the search (clamps first: the budget cuts the quiet far cells)
_U_OQ = const(2)  # one quiet pair (evaluate.quiet)
_U_OEX = const(40)  # an exact pair (play + rescoring), a slice of its own
_U_TIER = const(3)  # one cell's pass (_tier: up to 9 clamp tests)
_CELLS = const(243)  # three passes over the 81 cells: b._cell // 81 is the pass


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
    on the one line the two cells may share; such a pair is known before
    it is played (no clamp closes, neither makes a run of five, the board
    not filled: then even sudden death goes on as it was), so it is not
    played at all: play() and undo() cost the Pico several times the
    formula. Pairs that capture, hatch, collide or win
    are played and scored by rescoring every line through a changed cell
    (hard) or by their material only (medium). The budget counts every
    pair alike, so it cuts the same rows however the pairs were scored.
    """
    w = b._w
    g = w.g
    rows = w.rows
    cols = w.cols
    m = w.m
    black = b._color == _BLACK
    nr = b._nr
    nc = b._nc
    j0 = b._j0
    noise = b._lv[_P_NOISE]
    span = 2 * noise + 1
    # plain functions in locals (not bound methods: nothing is allocated): no lookup per pair
    play = _play
    undo = _undo
    ev = rescore
    qu = quiet
    clamps = _clamps
    five = _five
    bd = w.bd
    color = b._color
    opp = 3 - color
    pad = PAD
    ri = -1  # the row whose five test rfive holds
    rfive = False
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
            undo(g)
        else:
            if not first and left < _U_PLAY:
                break
            spent += _U_PLAY  # (the budget counts a pair alike, played or not: it cuts the same rows)
            pr = pad[r]
            pc = pad[c]
            if i != ri:
                ri = i
                rfive = five(bd, pr, color)
            if (r != c and not rfive and g.empty > 2 and not five(bd, pc, opp)
                    and not clamps(b, pr, color, pc) and not clamps(b, pc, opp, pr)):
                v = qu(b, i, j)  # quiet, as play() would find it: its turn record the placement alone
                left -= _U_PQ
            else:
                left -= _U_PLAY
                if black:
                    play(g, r, c)
                else:
                    play(g, c, r)
                if g.result != _ONGOING:
                    v = ev(b, g)  # a decided game: its value
                elif g.log_len == 3 and r != c:
                    v = qu(b, i, j)  # both landed, nothing else happened (two fives: sudden death)
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
            v += b._rand() % span - noise
        m[q] = v
        q += 1
        if j + 1 >= nc:
            q = (i + 1) * _MAXK + j0
        first = False
    b._pair = q
    b._spent = spent
    return left if q >= end or nr == i else None


# --- the solve: phase FP, and the collision column --------------------------------------
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


def fp_batch(w, m, s):
    """Fictitious play's iterations from s[1] up to s[2] on the matrix m (stride _MAXK) with s[3] rows and s[4]
    columns, in w's running sums and counts, playing row s[0] next; stopping early once the duality gap is at
    most s[5] per iteration (fp), or never if s[5] < 0 (deepen.Deepen's final solve); writes back the row
    (s[0]), the iterations done (s[1]) and the last gap (s[6], kept if none ran), returned. The bot's hot loop:
    machine code where evaluate found viper (engine/bot/viper.py, the same contract), this bytecode elsewhere."""
    racc = w.racc
    cacc = w.cacc
    rcnt = w.rcnt
    i = s[0]
    it = s[1]
    stop = s[2]
    kr = s[3]
    kc = s[4]
    limit = s[5]
    gap = s[6]
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
        if limit >= 0 and gap <= limit * it:
            break
    s[0] = i
    s[1] = it
    s[6] = gap
    return gap


if evaluate._viper is not None:
    fp_batch = evaluate._viper.fp_batch  # noqa: F811 (the same contract as machine code)
_FS = _array("i", bytes(28))  # fp's state for fp_batch: row, iterations, stop, rows, columns, gap bound, gap

# The trial turn (play, then undo): Game's own, or the same turn as machine code where evaluate found viper
# (engine/bot/viper.py: the Game left in the same state, so either undoes the other's play)
_play = Game.play
_undo = Game.undo
if evaluate._viper is not None:
    _play = evaluate._viper.play
    _undo = evaluate._viper.undo


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
    # The level's iterations are for the whole move: a re-solve (a new
    # column) gets what the solves before it left, and at least a quarter.
    level = b._lv[_P_ITERS] * 10
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
    s = _FS
    s[3] = b._nr
    s[4] = b._nc
    s[5] = limit
    while it < iters and gap > limit * it and (first or left >= _U_FP):
        stop = it + _FP_BATCH
        if stop > iters:
            stop = iters
        s[0] = i
        s[1] = it
        s[2] = stop
        s[6] = gap
        gap = fp_batch(w, w.m, s)
        i = s[0]
        it = s[1]
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


# --- the opponent's best replies over the whole board: phase REPLIES (hard) ---------------
# Every empty cell outside the columns, in three passes, as the opponent's
# move against the solved strategy; the two best join the columns if they
# beat the strategy, and the game is solved again.
def begin(b):
    """After a solve: start a round of the search (b._rounds left, a column free for the reply
    tried); False if there is none to run."""
    if not b._rounds or b._nc >= _MAXK:
        return False
    b._rounds -= 1
    if b._rounds == b._lv[_P_REPLIES] - 1:
        # the move's first round: no cell has a pass yet (255: none; a cell the
        # budget does not reach is not searched in the later rounds either)
        tier = b._w.tier
        for c in range(81):
            tier[c] = 255
    b._ob1 = b._ob2 = -1  # the two best replies so far, and their values
    b._ob1v = b._ob2v = 0x3FFFFFFF
    b._oi = -1  # the row a reply's evaluation is at (-1: the next cell first)
    b._cell = 0
    b._rspent = 0
    return True


def search(b, left, first):
    """REPLIES: every empty cell outside the columns, from b._cell on, as the opponent's move
    against the solved strategy (its rows weighted by rcnt). Returns the units left when the round
    is done, None when the next item does not fit in this slice.

    The candidate heuristic misses replies that only work against the
    moves the bot actually plays (such a reply gave a reader of the bot
    large gains: docs/bot-experiments.md). Quiet pairs cost one formula
    (evaluate.quiet); collisions, clamps and big line changes (a five) are
    played exactly. Items: a cell's pass (_U_TIER) and line changes
    (_U_DELTA), then one pair each (_U_OQ quiet, _U_OEX exact); cells
    skipped (taken, a column, another pass) cost nothing.
    """
    if not first and left < _U_OQ:
        return None
    w = b._w
    g = w.g
    bd = w.bd
    rows = w.rows
    cols = w.cols
    rcnt = w.rcnt
    nr = b._nr
    nc = b._nc
    color = b._color
    opp = 3 - color
    black = color == _BLACK
    k = b._cell
    i = b._oi
    spent = b._rspent
    tier = w.tier
    round1 = b._rounds == b._lv[_P_REPLIES] - 1
    # globals in locals: one lookup per call, not per use (names that other
    # modules look up too would keep missing the interpreter's lookup cache)
    pad = PAD
    order = ORDER
    clamps = _clamps
    qu = quiet
    ev = rescore
    play = _play  # (plain functions: nothing is allocated)
    undo = _undo
    # Three passes over the cells, centre out: replies that clamp, then
    # the ones near our moves, then the rest (see _tier), so the budget
    # cuts the quiet far cells (the edge captures it used to cut were
    # the biggest gains left to a reader of the bot).
    while k < _CELLS:
        if i < 0:
            if spent >= _REPLY_BUDGET:
                k = _CELLS  # out of thinking time: the rest stays unsearched
                break
            c = order[k % 81]
            # Skips cost no units, so they must be cheap: the pass's tier
            # first (255: taken or a column in the first pass), then the
            # board, then the column scan (with the column scan first, a
            # slice of skips cost far more than its units: tools.bench
            # --only bot prints the worst slice).
            if (k >= 81 or not round1) and tier[c] != k // 81:
                k += 1
                continue
            p = pad[c]
            if bd[p]:
                tier[c] = 255
                k += 1
                continue
            jj = 0
            while jj < nc and cols[jj] != c:
                jj += 1
            if jj < nc:
                tier[c] = 255
                k += 1
                continue
            if k < 81 and round1:
                # first pass of the first round: every cell's tier (w.tier),
                # kept for the next round (a cell this pass does not reach
                # keeps the 255 begin() gave it: it is searched in no round).
                if not first and left < _U_TIER + _U_DELTA:
                    break  # the slice ends here
                t = _tier(b, p, opp)
                tier[c] = t
                left -= _U_TIER
                first = False
                if t:
                    k += 1
                    continue
                # (a clamp: its line changes are part of this item)
            elif not first and left < _U_DELTA:
                break  # the slice ends here
            cols[nc] = c  # a scratch column: quiet() reads it there
            cell_delta(b, p, opp, w.sc, w.s4c, w.dc, w.d4c, nc)
            left -= _U_DELTA
            spent += _U_DELTA
            b._ov = 0
            i = 0
            first = False
            continue
        if i >= nr:
            v = b._ov
            if v < b._ob2v:
                if v < b._ob1v:
                    b._ob2 = b._ob1
                    b._ob2v = b._ob1v
                    b._ob1 = cols[nc]
                    b._ob1v = v
                else:
                    b._ob2 = cols[nc]
                    b._ob2v = v
            k += 1
            i = -1
            continue
        n = rcnt[i]
        if n == 0:
            i += 1
            continue
        r = rows[i]
        c = cols[nc]
        pr = pad[r]
        pc = pad[c]
        # (a five of ours is left to the formula: it scores the five's
        # window, under a won game's value, but it ranks the replies the
        # same, and it would make every pair of that row exact)
        if (r == c or abs(w.sc[nc]) >= _HOT  # their five: a won game, not a window sum
                or clamps(b, pr, color, pc) or clamps(b, pc, opp, pr)):
            if not first and left < _U_OEX:
                break  # the slice ends here
            if black:
                play(g, r, c)
            else:
                play(g, c, r)
            v = ev(b, g)
            undo(g)
            left -= _U_OEX
            spent += _U_PLAY + _U_EVAL  # (the budget counts the work, not the slot)
        else:
            if not first and left < _U_OQ:
                break  # the slice ends here
            v = qu(b, i, nc)
            left -= _U_OQ
            spent += _U_OQ
        if not black:
            v = -v
        b._ov += n * v
        i += 1
        first = False
    b._cell = k
    b._oi = i
    b._rspent = spent
    return left if k >= _CELLS else None


def join(b):
    """After a round: the two best replies join the columns if they beat the strategy by more than
    _REPLY_GAIN points (per unit of rcnt). True when one did: the game is to be solved again."""
    cols = b._w.cols
    nc = b._nc
    j0 = nc
    cacc = b._w.cacc
    lo = 0x3FFFFFFF
    for jj in range(nc):
        if cacc[jj] < lo:
            lo = cacc[jj]  # what the strategy guarantees against the columns (times its iterations)
    lim = lo - _REPLY_GAIN * b._fpit
    if b._ob1v < lim:
        cols[nc] = b._ob1
        nc += 1
        if b._ob2v < lim and nc < _MAXK:
            cols[nc] = b._ob2
            nc += 1
    if nc == j0:
        return False
    b._nc = nc
    b._j0 = j0
    return True


def _tier(b, p, who):
    """The search's pass for `who` on empty padded cell p: 0 if it would clamp (on the root
    board, or with one of the moves the solved strategy plays as the other newcomer), 1 if it
    is within two cells of one of those moves, else 2."""
    w = b._w
    rows = w.rows
    rcnt = w.rcnt
    clamps = _clamps
    pad = PAD
    if clamps(b, p, who, -1):
        return 0
    t = 2
    for i in range(b._nr):
        if rcnt[i]:
            q = pad[rows[i]]
            dr = q // 11 - p // 11
            dc = q % 11 - p % 11
            if -3 <= dr <= 3 and -3 <= dc <= 3 and q != p:
                if clamps(b, p, who, q):
                    return 0
                if -2 <= dr <= 2 and -2 <= dc <= 2:
                    t = 1
    return t


def _five(bd, p, who):
    """True if a turtle of `who` on empty padded cell p would complete a run of five or more (on the
    root board bd; what Game decides a win by)."""
    for d in (1, 11, 12, 10):
        n = 1
        x = p + d
        while bd[x] == who:
            n += 1
            x += d
        x = p - d
        while bd[x] == who:
            n += 1
            x -= d
        if n >= 5:
            return True
    return False


def _clamps(b, pn, who, pother):
    """True if a newcomer of `who` on padded cell pn closes a clamp, the other side's newcomer
    being on pother (-1: none; both placed for the test; the root board is restored)."""
    bd = b._w.bd
    bd[pn] = who
    if pother >= 0:
        bd[pother] = 3 - who
    hit = False
    for dd in DIRS:
        # middles first: while they are pieces (not the wall), the next
        # cell out is inside the padded array
        x = bd[pn + dd]
        if x == 3 - who or x == 3:
            y = bd[pn + 2 * dd]
            if (y == 3 - who or y == 3) and bd[pn + 3 * dd] == who:
                hit = True
                break
    bd[pn] = 0
    if pother >= 0:
        bd[pother] = 0
    return hit


if evaluate._viper is not None:
    _clamps = evaluate._viper.clamps  # the same test as machine code (engine/bot/viper.py)


# --- the pick: phase PICK ------------------------------------------------------------------
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
    r = b._rand() % tot
    for ii in range(kr):
        r -= rcnt[ii]
        if r < 0:
            return ii
    return 0
