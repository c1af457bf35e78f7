"""The opponent's best reply over the whole board against the solved strategy (hard, phase REPLIES): every empty cell outside the columns, in three passes, and the two best join the columns if they beat the strategy."""
from engine._compat import const
from engine import Game, BLACK, PAD
from engine.bot.tables import DIRS, ORDER
from engine.bot.evaluate import cell_delta, quiet, rescore

_MAXK = const(10)  # most candidates per side (tables.py)
_HOT = const(3000)  # a cell's line change this big (a five) is played exactly (candidates.py too)
_REPLY_GAIN = const(30)  # a reply outside the columns must beat the strategy by this much (one turtle) to join them
_REPLY_BUDGET = const(300)  # units for one round of the search (clamps first: the budget cuts the quiet far cells)
# Units (__init__.py) of one item here
_U_DELTA = const(5)  # a cell's line changes (solve.py)
_U_PLAY = const(10)  # (solve.py: what an exact pair counts against the budget)
_U_EVAL = const(20)
_U_OQ = const(2)  # one quiet pair (evaluate.quiet)
_U_OEX = const(40)  # an exact pair (play + rescoring), a slice of its own
_U_TIER = const(3)  # one cell's pass (_tier: up to 9 clamp tests)
_CELLS = const(243)  # three passes over the 81 cells: b._cell // 81 is the pass

_PLAY = Game.play
_UNDO = Game.undo


def begin(b):
    """After a solve: start a round of the search (b._rounds left, a column free for the reply
    tried); False if there is none to run."""
    if not b._rounds or b._nc >= _MAXK:
        return False
    b._rounds -= 1
    cacc = b._w.cacc
    lo = 0x3FFFFFFF
    for jj in range(b._nc):
        if cacc[jj] < lo:
            lo = cacc[jj]
    b._vmin = lo  # what the strategy guarantees against the columns (times its iterations)
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
    black = color == BLACK
    k = b._cell
    i = b._oi
    spent = b._rspent
    tier = w.tier
    round1 = b._rounds == b._lv["replies"] - 1
    # globals in locals: one lookup per call, not per use (names that other
    # modules look up too would keep missing the interpreter's lookup cache)
    pad = PAD
    order = ORDER
    clamps = _clamps
    qu = quiet
    ev = rescore
    play = _PLAY
    undo = _UNDO
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
                # kept for the next round. A cell this pass does not reach
                # (the budget ran out) keeps an earlier move's tier, so the
                # second round's order can depend on the moves before this one.
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
    lim = b._vmin - _REPLY_GAIN * b._fpit
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
