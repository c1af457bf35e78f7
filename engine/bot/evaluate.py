"""How the bot scores a position (black's point of view): the window weights (the padded board's lines and window classes: engine/bot/linetables.py), the line walk, one cell's line changes, a quiet pair by formula, a trial turn by rescoring its lines (or roughly, medium), and the payoff every score passes through (fours, squash)."""
from engine._compat import const
from engine import PAD
# the board's lines, the window classes, the clamp segments and the cells' order from the centre: geometry
# and rules, written as constants by tools/bottables.py (the derivation is there)
from engine.bot.linetables import LS, LST, WK, SEG, LINE_AT

_NLINES = const(40)  # lines of 4+ cells: 9 rows, 9 columns, 11 diagonals each way (test_bot checks)

# The bot works on the engine's padded 11 x 11 board (Game.copy_padded: a
# WALL ring around the 9 x 9), so line walks stop at the wall without bounds
# checks. Cell i (0..80) is padded cell PAD[i].
DIRS = (-11, -10, 1, 12, 11, 10, -1, -12)  # the 8 clamp directions in padded space


def _build():
    """The window weights' tables (built once at import; allocation here is fine). Its inputs are
    lists, built when it runs: a tuple of constants would stay on the heap with the module's
    constants."""
    # Window weights (black's point of view; the bot flips the sign for white).
    # lw[n]: a 5-cell window holding n turtles of one colour and otherwise only
    # empty cells (a potential line of five). lwd[n]: gain of adding a turtle
    # (the heuristic's; KHB[4], completing a five, is what easy never misses).
    lw = [0, 2, 12, 250, 450, 6000]
    lwd = [0, 10, 58, 380, 5550, 0]
    # Per window class (linetables.WK: 0 dead, 1..5 black alone, 6..10 white alone): black's score of
    # the window, and the heuristic gain of an empty cell in it for black and for white (blocking is
    # worth a bit less than building: x 13/16).
    kws = tuple(lw[k] if k < 6 else -lw[k - 5] for k in range(11))
    khb = tuple(lwd[k] if k < 5 else (0 if k < 6 else (lwd[k - 5] * 13) >> 4) for k in range(11))
    khw = tuple((lwd[k] * 13) >> 4 if k < 5 else (0 if k < 6 else lwd[k - 5]) for k in range(11))
    return kws, khb, khw


(KWS, KHB, KHW) = _build()
KF = (0, 0, 0, 0, 1024, 0, 0, 0, 0, 1, 0)  # per window class: a black four counts 1024, a white one 1
del _build  # the builder's bytecode would stay on the heap for nothing


# The engine's values as consts (folded away: no globals, no heap), among
# them the turn-record opcodes, equal to its EV_* names: host_tests/test_bot.py
# checks them, so a renumbering there cannot silently break the evaluation.
_WALL = const(4)
_ONGOING = const(0)
_BLACK_WON = const(1)
_WHITE_WON = const(2)
_OP_PLACE = const(1)
_OP_EGG = const(2)
_OP_CAPTURED = const(6)
_OP_VANISH = const(7)
_OP_HATCH = const(8)

_MAT = const(30)  # one turtle of material
# Two or more fours (five-completions) against none: a five next turn unless
# the opponent guesses the cell, collides there or captures, so worth far
# less than a won game (docs/bot-experiments.md).
_DOUBLE = const(3000)
_WIN = const(30000)
_CLIP = const(20000)
# Payoffs are squashed, v * _SQUASH / (_SQUASH + |v|): close to v in an even
# position, flattening as it grows, the way hard's own value predicts game
# outcomes (the calibration and the tournaments that chose 4000 are in
# docs/bot-experiments.md). Much stronger squashing was much worse: the
# search needs big line values to see threats.
_SQUASH = const(4000)


def payoff(v, f4):
    """The payoff of black's value v with the packed fours count f4 (black * 1024 + white; every
    scoring path ends here): two fours against none win next turn (_DOUBLE); then clipped to
    +-_CLIP, so |v * _SQUASH| < 2 ** 27 stays a small int, and flattened like a win chance
    (see _SQUASH)."""
    fb = f4 >> 10  # both counts are >= 0 here (a real position's)
    fw = f4 & 1023
    if fb >= 2 and fw <= 0:
        v += _DOUBLE
    elif fw >= 2 and fb <= 0:
        v -= _DOUBLE
    if v > _CLIP:
        v = _CLIP
    elif v < -_CLIP:
        v = -_CLIP
    return v * _SQUASH // (_SQUASH + abs(v))


def walk(b, li, heur):
    """Black's score of line li on the root board (windows, and clamp threats at hard); the line's
    fours, packed black * 1024 + white, go to b._lf. heur: also add every empty cell's heuristic.

    The one line walk of the bot: a 2-bit-per-cell code of the last 5
    cells slides along the line; each new cell completes a 4-cell segment
    (clamp threats) and, from the 5th cell on, a 5-cell window.
    """
    w = b._w
    bd = w.bd
    wk = WK
    kws = KWS
    seg = SEG
    kf = KF
    st = LST[li]
    p = LS[li]
    # The oldest slot starts as an egg (3): the first, 4-cell step's
    # window is dead (class 0, scores nothing), so no cell counter.
    code = 192 | (bd[p] << 4) | (bd[p + st] << 2) | bd[p + st + st]
    p += 3 * st
    v = bd[p]
    lt = 0
    f4 = 0
    thr = b._threats
    tsc = w.tsc if thr else None
    if heur:
        hb = w.hb
        hw = w.hw
        khb = KHB
        khw = KHW
        cap = w.cap  # (read where a clamp is found: rare, and an array read costs)
    # Empty, dead and mixed windows and segments (code 0 in the tables)
    # are skipped by one test each: most of them on any board (it saves
    # much of easy's fuel, which only needs the heuristic).
    while v != _WALL:
        code = ((code << 2) | v) & 1023
        f = seg[code & 255]
        if f:
            if thr:
                lt += tsc[f >> 4]
            if heur and f & 15:
                q = p - 3 * st
                if f & 1:
                    hb[q] += cap[0]
                    hw[q] += cap[3]
                if f & 2:
                    hb[p] += cap[0]
                    hw[p] += cap[3]
                if f & 4:
                    hw[q] += cap[1]
                    hb[q] += cap[2]
                if f & 8:
                    hw[p] += cap[1]
                    hb[p] += cap[2]
        k = wk[code]
        if k:
            lt += kws[k]
            f4 += kf[k]
            if heur:
                a = khb[k]
                if a:
                    bb = khw[k]
                    q = p
                    for _ in range(5):
                        if bd[q] == 0:
                            hb[q] += a
                            hw[q] += bb
                        q -= st
        p += st
        v = bd[p]
    b._lf = f4
    return lt


# Where the port compiles viper (the RP2040, ESP32-S3) the walk runs as machine code: engine/bot/viper.py, the same
# sums and heuristic. Elsewhere the import fails (no `micropython` module on CPython; the webassembly port and
# CircuitPython refuse the decorator; a bytecode-only deploy leaves the file out) and the walk above stays. So
# does it where the board cannot compile viper.py's source in the heap it has (a mip install of .py files on a
# board with less free heap than a Pico: the `memory` section of docs/performance.md says how much it takes).
EMITTER = "bytecode"  # what the bot's hot loops run as here (tools.bench prints it)
try:
    from engine.bot import viper as _viper
    from array import array as _array

    walk = _viper.walker(_array("i", KWS + KF + KHB + KHW))
    EMITTER = "viper"
except (ImportError, SyntaxError, MemoryError):
    _viper = None


def cell_delta(b, c, v, tot, tot4, out, out4, i):
    """Change of the root score and fours (black's view) if padded cell c alone held v: the sum
    into tot[i] and tot4[i], per line direction into out[4 * i + d] and out4[4 * i + d]."""
    w = b._w
    bd = w.bd
    lbase = w.lbase
    lf4 = w.lf4
    line_at = LINE_AT
    wk = walk  # (globals in locals: one lookup per call, not per use)
    bd[c] = v
    s = 0
    s4 = 0
    o = i * 4
    for d in range(4):
        li = line_at[d * 121 + c]
        if li == 255:  # a line of under 4 cells: no segment, no window
            out[o + d] = 0
            out4[o + d] = 0
            continue
        x = wk(b, li, 0) - lbase[li]
        y = b._lf - lf4[li]
        out[o + d] = x
        out4[o + d] = y
        s += x
        s4 += y
    bd[c] = 0
    tot[i] = s
    tot4[i] = s4


if _viper is not None:
    cell_delta = _viper.cell_delta  # noqa: F811 (the same values as machine code: engine/bot/viper.py)


def quiet(b, i, j):
    """Black's evaluation of quiet pair (row i, column j): both turtles land, nothing is captured.

    The sum of each cell's own change, corrected only on the one line
    the two cells may share within a window.
    """
    w = b._w
    bd = w.bd
    dr = w.dr
    dc = w.dc
    d4r = w.d4r
    d4c = w.d4c
    v = w.sr[i] + w.sc[j]
    f4 = b._f4 + w.s4r[i] + w.s4c[j]
    pad = PAD
    pr = pad[w.rows[i]]
    pc = pad[w.cols[j]]
    if pr < pc:
        a = pr
        c = pc
    else:
        a = pc
        c = pr
    ddr = c // 11 - a // 11  # padded rows and columns
    ddc = c % 11 - a % 11
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
        # both on line li within a window: rescore that line with both set
        li = LINE_AT[d * 121 + a]
        if li != 255:
            v -= dr[i * 4 + d] + dc[j * 4 + d]
            f4 -= d4r[i * 4 + d] + d4c[j * 4 + d]
            color = b._color
            bd[pr] = color
            bd[pc] = 3 - color
            v += walk(b, li, 0) - w.lbase[li]
            f4 += b._lf - w.lf4[li]
            bd[pr] = 0
            bd[pc] = 0
    return payoff(v + b._total + b._mat * _MAT, f4)  # black's view, like rescore


if _viper is not None:
    quiet = _viper.quiet  # noqa: F811 (the same values as machine code: engine/bot/viper.py)


def rescore(b, g):
    """Black's evaluation after a trial turn on g: root scores plus the change in the touched lines
    (a decided game: its value)."""
    res = g.result
    if res != _ONGOING:
        if res == _BLACK_WON:
            return _WIN
        if res == _WHITE_WON:
            return -_WIN
        return 0
    w = b._w
    bd = w.bd
    p81 = PAD
    log = g.log
    n = g.log_len
    dm = 0
    p = 0
    # (module globals hoisted into locals: a global lookup per use was
    # measured to matter, and its cost depends on heap layout)
    op_place = _OP_PLACE
    op_egg = _OP_EGG
    op_cap = _OP_CAPTURED
    op_van = _OP_VANISH
    op_hatch = _OP_HATCH
    # Apply the turn record to the root board (cells are 0..80). The
    # record itself says what each change replaced (a captured piece's
    # value is logged; a vanished or hatched cell held an egg), so it
    # also serves to put the board back, newest first, below.
    while p < n:
        op = log[p]
        a = p81[log[p + 1]]
        if op == op_place:
            bd[a] = 1
            bd[p81[log[p + 2]]] = 2  # both gain a turtle: no material change
        elif op == op_egg:
            bd[a] = 3
        elif op == op_cap or op == op_van:
            v = bd[a]
            if v == 1:
                dm -= 1
            elif v == 2:
                dm += 1
            bd[a] = 0
        elif op == op_hatch:
            v = log[p + 2]
            if v == 1:
                dm += 1
            else:
                dm -= 1
            bd[a] = v
        p += 3
    # Rescore every line through a changed cell, each once (stamp). A
    # capture turn changes several cells, often on shared lines, so
    # whole lines are cheaper than the windows around each cell.
    stamp = w.lstamp
    st = stamp[_NLINES] + 1  # the stamp counter is shared with the array
    if st > 255:
        for i in range(_NLINES):
            stamp[i] = 0
        st = 1
    stamp[_NLINES] = st
    lbase = w.lbase
    lf4 = w.lf4
    line_at = LINE_AT
    wk = walk
    delta = 0
    f4 = b._f4
    p = 0
    while p < n:
        # every changed cell: each event's, and a placement's second turtle
        # (steps and clamps change none)
        op = log[p]
        c = p81[log[p + 1]] if op <= op_egg or op >= op_cap else -1
        c2 = p81[log[p + 2]] if op == op_place else -1
        while c >= 0:
            for d in range(0, 484, 121):
                li = line_at[d + c]
                if li == 255 or stamp[li] == st:
                    continue
                stamp[li] = st
                delta += wk(b, li, 0) - lbase[li]
                f4 += b._lf - lf4[li]
            c = c2
            c2 = -1
        p += 3
    # put the root board back (newest change first)
    while p > 0:
        p -= 3
        op = log[p]
        a = p81[log[p + 1]]
        if op == op_place:
            bd[a] = 0
            bd[p81[log[p + 2]]] = 0
        elif op == op_egg:
            bd[a] = 0
        elif op == op_cap:
            bd[a] = log[p + 2]
        elif op == op_van or op == op_hatch:  # it held an egg
            bd[a] = 3
    return payoff(b._total + delta + (b._mat + dm) * _MAT, f4)


if _viper is not None:
    rescore = _viper.rescore  # noqa: F811 (the same values as machine code: engine/bot/viper.py)


def rough(b, g, i, j):
    """Medium's evaluation of a capture turn on g (row i, column j): the placements' own line
    changes plus material only, no line rescoring (that is what keeps medium cheap)."""
    w = b._w
    v = b._total + b._mat * _MAT
    if w.rows[i] != w.cols[j]:
        v += w.sr[i] + w.sc[j]
        log = g.log
        n = g.log_len
        p = 3
        while p < n:
            op = log[p]
            if op == _OP_CAPTURED:
                x = log[p + 2]
                if x == 1:
                    v -= _MAT
                elif x == 2:
                    v += _MAT
            elif op == _OP_HATCH:
                v += _MAT if log[p + 2] == 1 else -_MAT
            p += 3
    return payoff(v, 0)
