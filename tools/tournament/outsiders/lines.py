"""Line analysis for the outsider searchers: every row, column and diagonal as a base-4 code, its patterns memoised."""
from engine import EMPTY, BLACK, WHITE, EGG, EV_PLACE, EV_EGG, EV_CAPTURED, EV_VANISH, EV_HATCH

# Written from RULES.md and the engine API only: a five is five turtles of one
# colour in a straight line; a clamp is "newcomer, two enemy pieces (turtles or
# eggs), own turtle" on four cells in a line; each capture hatches the oldest
# egg for the capturer (contested captures make it vanish). Every one of those
# patterns lives on one line, so a line's contents (a base-4 number, one digit
# per cell) decide them, and a dictionary remembers each line once seen.


def _build_lines():
    lines = []
    for r in range(9):
        lines.append([r * 9 + c for c in range(9)])
    for c in range(9):
        lines.append([r * 9 + c for r in range(9)])
    # diagonals (down-right) and anti-diagonals (down-left) of 4+ cells: clamps need 4, fives 5
    for start in range(-5, 6):
        cells = [r * 9 + r + start for r in range(9) if 0 <= r + start < 9]
        lines.append(cells)
    for start in range(3, 14):
        cells = [r * 9 + start - r for r in range(9) if 0 <= start - r < 9]
        lines.append(cells)
    return lines


LINES = _build_lines()
NLINES = len(LINES)
# CELL_LINES[c]: ((line, 4**position), ...) for the lines through cell c
CELL_LINES = [[] for _ in range(81)]
for _l, _cells in enumerate(LINES):
    for _k, _c in enumerate(_cells):
        CELL_LINES[_c].append((_l, 4 ** _k))
CELL_LINES = [tuple(x) for x in CELL_LINES]
BIT = [1 << c for c in range(81)]
# SHARED[c * 81 + e]: (line, 4**pos(c), 4**pos(e)) when c and e lie on one line at most 4 apart, else None
SHARED = [None] * (81 * 81)
for _c in range(81):
    for _l, _pc in CELL_LINES[_c]:
        _cells = LINES[_l]
        _kc = _cells.index(_c)
        for _ke, _e in enumerate(_cells):
            if _e != _c and abs(_ke - _kc) <= 4:
                SHARED[_c * 81 + _e] = (_l, _pc, 4 ** _ke)


def bits(x):
    """The cells of board mask x."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out

# Pattern weights of a five-cell window holding n turtles of one colour and no
# enemy turtle: WINDOW[eggs][n]. Eggs are nobody's until they hatch, so they
# count for little; a window with an enemy turtle is dead.
WINDOW = (
    (0, 2, 9, 40, 150, 0),
    (0, 1, 3, 10, 55, 0),
    (0, 0, 1, 3, 0, 0),
    (0, 0, 0, 0, 0, 0),
    (0, 0, 0, 0, 0, 0),
    (0, 0, 0, 0, 0, 0),
)

# Entry fields (one tuple per line content):
D = 0  # black's pattern score minus white's
SB = 1
SW = 2
WINB = 3  # empty cells where a black turtle makes five (or more) on this line
WINW = 4
CLB = 5  # empty cells where a black newcomer closes a clamp on this line
CLW = 6
EGB = 7  # eggs that would complete a black five here if they hatched for black
EGW = 8
FIVEB = 9  # black turtles in runs of five or more
FIVEW = 10
MK2B = 11  # empty cells where a black turtle makes two winning cells on this line (an open four)
MK2W = 12
MK1B = 13  # empty cells where a black turtle makes at least one winning cell on this line
MK1W = 14
NCLB = 15  # clamps black could close on this line (a cell closing two counts two)
NCLW = 16
CAPB = 17  # pieces black's clamps on this line would capture
CAPW = 18
FOURB = 19  # black turtles of a four (a window of four black turtles and an empty cell)
FOURW = 20
NFIELDS = 21
# The same masks packed two to an int (black's in the low 81 bits, white's above), for fast unions:
# (win, clamp, eggfive, mk2, mk1, capture, four, nclampB + 1024 * nclampW, five)
PACKED = 21
SHIFT = 81
LOW = (1 << 81) - 1

_memo = MEMO = [dict() for _ in range(NLINES)]  # MEMO[line][code] -> entry (read directly in hot loops)
_MEMO_LIMIT = 400000
_memo_size = [0]


def _analyse(vals, cells):
    """The entry for one line: vals are the cell values along it, cells the board cells."""
    n = len(vals)
    out = [0] * NFIELDS
    for p, q, si, wi, ci, ei, fi, m2, m1, nc, cp, fo in (
            (BLACK, WHITE, SB, WINB, CLB, EGB, FIVEB, MK2B, MK1B, NCLB, CAPB, FOURB),
            (WHITE, BLACK, SW, WINW, CLW, EGW, FIVEW, MK2W, MK1W, NCLW, CAPW, FOURW)):
        score = 0
        win = 0
        egg5 = 0
        four = 0
        for i in range(n - 4):
            np = ne = nq = 0
            hole = -1
            for j in range(i, i + 5):
                v = vals[j]
                if v == p:
                    np += 1
                elif v == q:
                    nq += 1
                    break
                elif v == EGG:
                    ne += 1
                    hole = j
                else:
                    if ne == 0:
                        hole = j
            if nq:
                continue
            score += WINDOW[ne][np]
            if np == 4:
                if ne == 0:
                    win |= BIT[cells[hole]]
                    for j in range(i, i + 5):
                        if j != hole:
                            four |= BIT[cells[j]]
                else:
                    egg5 |= BIT[cells[hole]]
        # runs of five or more
        five = 0
        i = 0
        while i < n:
            if vals[i] == p:
                j = i
                while j < n and vals[j] == p:
                    j += 1
                if j - i >= 5:
                    for k in range(i, j):
                        five |= BIT[cells[k]]
                i = j
            else:
                i += 1
        # clamps: empty, enemy, enemy, own (either way along the line)
        clamp = 0
        ncl = 0
        cap = 0
        for i in range(n):
            if vals[i] != EMPTY:
                continue
            for s in (1, -1):
                k = i + 3 * s
                if 0 <= k < n and vals[k] == p:
                    a = vals[i + s]
                    b = vals[i + 2 * s]
                    if (a == q or a == EGG) and (b == q or b == EGG):
                        clamp |= BIT[cells[i]]
                        ncl += 1
                        cap |= BIT[cells[i + s]] | BIT[cells[i + 2 * s]]
        # cells that would make winning cells (fours) on this line
        mk2 = 0
        mk1 = 0
        if score >= WINDOW[0][3]:
            for i in range(n):
                if vals[i] != EMPTY:
                    continue
                trial = list(vals)
                trial[i] = p
                cnt = 0
                seen = 0
                for a in range(n - 4):
                    npp = 0
                    hole = -1
                    ok = True
                    for j in range(a, a + 5):
                        v = trial[j]
                        if v == p:
                            npp += 1
                        elif v == EMPTY:
                            hole = j
                        else:
                            ok = False
                            break
                    if ok and npp == 4 and not (seen >> hole) & 1:
                        seen |= 1 << hole
                        cnt += 1
                if cnt >= 2:
                    mk2 |= BIT[cells[i]]
                if cnt >= 1:
                    mk1 |= BIT[cells[i]]
        out[si] = score
        out[wi] = win
        out[ci] = clamp
        out[ei] = egg5
        out[fi] = five
        out[m2] = mk2
        out[m1] = mk1
        out[nc] = ncl
        out[cp] = cap
        out[fo] = four
    out[D] = out[SB] - out[SW]
    packed = (out[WINB] | out[WINW] << SHIFT, out[CLB] | out[CLW] << SHIFT, out[EGB] | out[EGW] << SHIFT,
              out[MK2B] | out[MK2W] << SHIFT, out[MK1B] | out[MK1W] << SHIFT, out[CAPB] | out[CAPW] << SHIFT,
              out[FOURB] | out[FOURW] << SHIFT, out[NCLB] + 1024 * out[NCLW], out[FIVEB] | out[FIVEW] << SHIFT)
    any_mask = 0
    for x in packed:
        any_mask |= x
    return tuple(out) + (packed, any_mask != 0)


def entry(l, code):
    """The memoised analysis of line l holding `code` (base 4, digit k = the line's k-th cell)."""
    m = _memo[l]
    e = m.get(code)
    if e is None:
        if _memo_size[0] > _MEMO_LIMIT:
            for x in _memo:
                x.clear()
            _memo_size[0] = 0
        cells = LINES[l]
        vals = [(code >> (2 * k)) & 3 for k in range(len(cells))]
        e = _analyse(vals, cells)
        m[code] = e
        _memo_size[0] += 1
    return e


def codes_of(game):
    """The code of every line of `game`."""
    vals = [game.cell(i) for i in range(81)]
    out = []
    for cells in LINES:
        c = 0
        for k in range(len(cells) - 1, -1, -1):
            c = c * 4 + vals[cells[k]]
        out.append(c)
    return out


def apply_log(game, codes, touched):
    """Add the last turn's changes (game.log) to `codes` in place; the lines changed go into dict `touched`.

    touched maps line -> its code before the turn (first change wins), so the
    caller can put the codes back.
    """
    log = game.log
    n = game.log_len
    j = 0
    while j < n:
        op = log[j]
        a = log[j + 1]
        b = log[j + 2]
        j += 3
        if op == EV_PLACE:
            _change(codes, touched, a, BLACK)
            _change(codes, touched, b, WHITE)
        elif op == EV_EGG:
            _change(codes, touched, a, EGG)
        elif op == EV_CAPTURED:
            _change(codes, touched, a, -b)
        elif op == EV_VANISH:
            _change(codes, touched, a, -EGG)
        elif op == EV_HATCH:
            _change(codes, touched, a, b - EGG)


def _change(codes, touched, cell, delta):
    for l, pw in CELL_LINES[cell]:
        if l not in touched:
            touched[l] = codes[l]
        codes[l] += delta * pw


def restore(codes, touched):
    for l, c in touched.items():
        codes[l] = c


def popcount(x):
    return x.bit_count()

