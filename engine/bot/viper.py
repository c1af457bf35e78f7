"""The bot's hottest loops as machine code (MicroPython's viper emitter): the line walk, one cell's line changes, a quiet pair's value, a trial turn's play, undo and rescoring, batches of fictitious play and the clamp test, the same results as evaluate.walk, evaluate.cell_delta, evaluate.quiet, Game.play, Game.undo, evaluate.rescore, solve.fp_batch and solve._clamps; only where the port compiles viper."""
# Imported inside a try by evaluate.py (solve.py takes its functions from there, play and undo too): CPython has no
# `micropython` module, the webassembly port and CircuitPython refuse the decorator (SyntaxError), and a
# deploy that compiles bytecode only leaves this file out (tools/devicefiles.py, MACHINE_CODE); the bytecode
# stays in use there. Same results: host_tests/test_rp2040_cores.py on the emulated Pico; what it saves:
# python -m tools.bench --only rp2040. Viper ints are machine words: every value here stays far inside
# 32 bits, as in the bytecode, and a ptr32 load reads back a negative value only where a word is 32 bits.
import micropython
from engine._compat import const
from engine import PAD as _PAD, UNPAD as _UNPAD
from engine.bot.linetables import LS as _LS, LST as _LST, WK as _WK, SEG as _SEG, LINE_AT as _LAT


@micropython.viper
def _word() -> int:
    # 0 where a machine word is 32 bits (1 << 32 wraps), 2 ** 32 where it is 64
    x = int(1) << 16
    return x << 16


if _word():
    # A 64-bit port (MicroPython's unix port on a PC): there a ptr32 load does not sign-extend, so a negative
    # payoff read from an array("i") comes back 2 ** 32 larger and the moves differ. The bytecode runs instead
    # (host_tests/test_unix_port.py); every board this game runs on has 32-bit words.
    raise ImportError("viper.py's machine code needs 32-bit words; this port's are 64 bits")
del _word

_T = None  # per window class k: score at k, fours at 11 + k, heuristic gains at 22 + k (black), 33 + k (white):
# evaluate's weights, handed over by walker() (this module imports nothing of evaluate's: evaluate imports it)

# evaluate's consts (host_tests/test_bot.py checks that they are the same values)
_MAT = const(30)
_DOUBLE = const(3000)
_CLIP = const(20000)
_SQUASH = const(4000)
_WIN = const(30000)
_BLACK_WON = const(1)  # the engine's results and turn-record opcodes (test_bot checks them)
_WHITE_WON = const(2)
_DRAW = const(3)
_OP_PLACE = const(1)
_OP_EGG = const(2)
_OP_STEP = const(3)
_OP_CLAMP_BLACK = const(4)
_OP_CLAMP_WHITE = const(5)
_OP_CAPTURED = const(6)
_OP_VANISH = const(7)
_OP_HATCH = const(8)


def walker(table):
    """evaluate.walk with these window weights (an array("i") of 44 entries, see _T), as machine code;
    cell_delta reads them too."""
    global _T
    _T = table
    return walk


@micropython.viper
def walk(b, li_o, heur_o) -> int:
    """evaluate.walk (its docstring says what it computes), as machine code."""
    w = b._w
    bd = ptr8(w.bd)
    wk = ptr8(_WK)
    seg = ptr8(_SEG)
    t = ptr32(_T)
    li = int(li_o)
    heur = int(heur_o)
    st = int(ptr8(_LST)[li])
    p = int(ptr8(_LS)[li])
    code = 192 | (bd[p] << 4) | (bd[p + st] << 2) | bd[p + st + st]
    p += 3 * st
    v = bd[p]
    lt = 0
    f4 = 0
    thr = int(b._threats)
    # (stand-ins at address 0, never read: each array is fetched only where it is read, an attribute and a
    # buffer lookup each)
    tsc = ptr16(0)  # only a level with threats reads it, and only its Work has w.tsc ...
    if thr:
        tsc = ptr16(w.tsc)  # ... array("h"): read unsigned, sign-extended below
    hb = ptr32(0)
    hw = ptr32(0)
    cap = ptr32(0)
    if heur:
        hb = ptr32(w.hb)
        hw = ptr32(w.hw)
        cap = ptr32(w.cap)
    while v != 4:  # the padded board's WALL
        code = ((code << 2) | v) & 1023
        f = seg[code & 255]
        if f:
            if thr:
                x = tsc[f >> 4]
                if x & 0x8000:
                    x -= 0x10000
                lt += x
            if heur and (f & 15):
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
            lt += t[k]
            f4 += t[11 + k]
            if heur:
                a = t[22 + k]
                if a:
                    bb = t[33 + k]
                    q = p
                    n = 0
                    while n < 5:
                        if bd[q] == 0:
                            hb[q] += a
                            hw[q] += bb
                        q -= st
                        n += 1
        p += st
        v = bd[p]
    b._lf = f4
    return lt


@micropython.viper
def fp_batch(w, m_o, s) -> int:
    """solve.fp_batch (its docstring says what it computes; m_o an array("i")), as machine code."""
    m = ptr32(m_o)
    racc = ptr32(w.racc)
    cacc = ptr32(w.cacc)
    rcnt = ptr32(w.rcnt)
    st = ptr32(s)
    i = st[0]
    it = st[1]
    stop = st[2]
    kr = st[3]
    kc = st[4]
    limit = st[5]
    gap = st[6]
    while it < stop:
        rcnt[i] += 1
        q = i * 10
        j = 0
        lo = 0x3FFFFFFF
        jj = 0
        while jj < kc:
            x = cacc[jj] + m[q + jj]
            cacc[jj] = x
            if x < lo:
                lo = x
                j = jj
            jj += 1
        q = j
        hi = -0x3FFFFFFF
        ii = 0
        while ii < kr:
            x = racc[ii] + m[q]
            racc[ii] = x
            if x > hi:
                hi = x
                i = ii
            q += 10
            ii += 1
        it += 1
        gap = hi - lo
        if limit >= 0 and gap <= limit * it:
            break
    st[0] = i
    st[1] = it
    st[6] = gap
    return gap


@micropython.viper
def cell_delta(b, c_o, v_o, tot_o, tot4_o, out_o, out4_o, i_o):
    """evaluate.cell_delta (its docstring says what it computes), as machine code: walk's loop without the
    heuristic, inline (b._lf, walk's scratch, is left as it was). tot: array("i"), tot4: array("h"), out: 32-bit
    entries; out4 is either size (a row's or a column's), written as an object."""
    w = b._w
    bd = ptr8(w.bd)
    lat = ptr8(_LAT)
    ls = ptr8(_LS)
    lst = ptr8(_LST)
    wk = ptr8(_WK)
    seg = ptr8(_SEG)
    t = ptr32(_T)
    lbase = ptr32(w.lbase)
    lf4 = ptr16(w.lf4)
    out = ptr32(out_o)
    thr = int(b._threats)
    tsc = ptr16(0)  # (as in walk)
    if thr:
        tsc = ptr16(w.tsc)
    c = int(c_o)
    o = int(i_o) * 4
    bd[c] = int(v_o)
    s = 0
    s4 = 0
    d = 0
    while d < 4:
        li = int(lat[d * 121 + c])
        x = 0
        y = 0
        if li != 255:  # a line of under 4 cells: no segment, no window
            st = int(lst[li])
            p = int(ls[li])
            code = 192 | (bd[p] << 4) | (bd[p + st] << 2) | bd[p + st + st]
            p += 3 * st
            v = bd[p]
            while v != 4:
                code = ((code << 2) | v) & 1023
                if thr:
                    f = seg[code & 255]
                    if f:
                        x += ((tsc[f >> 4] ^ 0x8000) - 0x8000)
                k = wk[code]
                if k:
                    x += t[k]
                    y += t[11 + k]
                p += st
                v = bd[p]
            x -= lbase[li]
            y -= (lf4[li] ^ 0x8000) - 0x8000
        out[o + d] = x
        out4_o[o + d] = y
        s += x
        s4 += y
        d += 1
    bd[c] = 0
    ptr32(tot_o)[int(i_o)] = s
    ptr16(tot4_o)[int(i_o)] = s4


@micropython.viper
def quiet(b, i_o, j_o) -> int:
    """evaluate.quiet (its docstring says what it computes), as machine code."""
    w = b._w
    i = int(i_o)
    j = int(j_o)
    pad = ptr8(_PAD)
    pr = int(pad[ptr8(w.rows)[i]])
    pc = int(pad[ptr8(w.cols)[j]])
    v = int(ptr32(w.sr)[i]) + int(ptr32(w.sc)[j]) + int(b._total) + int(b._mat) * _MAT
    # array("h") entries read unsigned: (x ^ 0x8000) - 0x8000 sign-extends them
    f4 = int(b._f4) + ((ptr16(w.s4r)[i] ^ 0x8000) - 0x8000) + ((ptr16(w.s4c)[j] ^ 0x8000) - 0x8000)
    if pr < pc:
        a = pr
        c = pc
    else:
        a = pc
        c = pr
    # padded row (x * 373) >> 12 == x // 11 for every padded cell: no call to the division helper
    ra = (a * 373) >> 12
    rc = (c * 373) >> 12
    ddr = rc - ra
    ddc = (c - 11 * rc) - (a - 11 * ra)
    d = -1
    if ddr <= 4 and -4 <= ddc and ddc <= 4:
        if ddr == 0:
            d = 0
        elif ddc == 0:
            d = 1
        elif ddr == ddc:
            d = 2
        elif ddr == -ddc:
            d = 3
    if d >= 0:
        li = int(ptr8(_LAT)[d * 121 + a])
        if li != 255:
            k = i * 4 + d
            kk = j * 4 + d
            v -= int(ptr32(w.dr)[k]) + int(ptr32(w.dc)[kk])
            f4 -= int(ptr32(w.d4r)[k]) + ((ptr16(w.d4c)[kk] ^ 0x8000) - 0x8000)
            color = int(b._color)
            bd = ptr8(w.bd)
            bd[pr] = color
            bd[pc] = 3 - color
            v += int(walk(b, li, 0)) - int(ptr32(w.lbase)[li])
            f4 += int(b._lf) - ((ptr16(w.lf4)[li] ^ 0x8000) - 0x8000)
            bd[pr] = 0
            bd[pc] = 0
    # evaluate.payoff; viper's // is Python's floor division (a call to the runtime's small-int helper)
    fb = f4 >> 10
    fw = f4 & 1023
    if fb >= 2 and fw <= 0:
        v += _DOUBLE
    elif fw >= 2 and fb <= 0:
        v -= _DOUBLE
    if v > _CLIP:
        v = _CLIP
    elif v < -_CLIP:
        v = -_CLIP
    if v < 0:
        return v * _SQUASH // (_SQUASH - v)
    return v * _SQUASH // (_SQUASH + v)


@micropython.viper
def rescore(b, g) -> int:
    """evaluate.rescore (its docstring says what it computes), as machine code: walk's loop without the heuristic,
    inline (b._lf is left as it was); each line once by two bit masks (the bytecode's w.lstamp is left as it was)."""
    res = int(g.result)
    if res:
        if res == _BLACK_WON:
            return _WIN
        if res == _WHITE_WON:
            return -_WIN
        return 0  # a draw
    w = b._w
    bd = ptr8(w.bd)
    log = ptr8(g.log)
    pad = ptr8(_PAD)
    n = int(g.log_len)
    # apply the turn record to the root board (the opcodes between _OP_EGG and _OP_CAPTURED, clamps and steps,
    # change no cell)
    dm = 0
    p = 0
    while p < n:
        op = log[p]
        if op == _OP_PLACE:
            bd[pad[log[p + 1]]] = 1
            bd[pad[log[p + 2]]] = 2
        elif op == _OP_EGG:
            bd[pad[log[p + 1]]] = 3
        elif op == _OP_CAPTURED or op == _OP_VANISH:
            a = pad[log[p + 1]]
            x = bd[a]
            if x == 1:
                dm -= 1
            elif x == 2:
                dm += 1
            bd[a] = 0
        elif op == _OP_HATCH:
            x = log[p + 2]
            if x == 1:
                dm += 1
            else:
                dm -= 1
            bd[pad[log[p + 1]]] = x
        p += 3
    lat = ptr8(_LAT)
    ls = ptr8(_LS)
    lst = ptr8(_LST)
    wk = ptr8(_WK)
    seg = ptr8(_SEG)
    t = ptr32(_T)
    lbase = ptr32(w.lbase)
    lf4 = ptr16(w.lf4)
    thr = int(b._threats)
    tsc = ptr16(0)  # (as in walk)
    if thr:
        tsc = ptr16(w.tsc)
    v = int(b._total) + (int(b._mat) + dm) * _MAT
    f4 = int(b._f4)
    lo = 0  # lines 0..31 and 32..39 walked so far
    hi = 0
    p = 0
    while p < n:
        op = log[p]
        c = -1
        c2 = -1
        if op <= _OP_EGG or op >= _OP_CAPTURED:
            c = pad[log[p + 1]]
            if op == _OP_PLACE:
                c2 = pad[log[p + 2]]
        while c >= 0:
            d = 0
            while d < 484:
                li = lat[d + c]
                d += 121
                if li == 255:
                    continue
                if li < 32:
                    m = 1 << li
                    if lo & m:
                        continue
                    lo |= m
                else:
                    m = 1 << (li - 32)
                    if hi & m:
                        continue
                    hi |= m
                st = int(lst[li])
                q = int(ls[li])
                code = 192 | (bd[q] << 4) | (bd[q + st] << 2) | bd[q + st + st]
                q += 3 * st
                x = bd[q]
                while x != 4:
                    code = ((code << 2) | x) & 1023
                    if thr:
                        f = seg[code & 255]
                        if f:
                            v += ((tsc[f >> 4] ^ 0x8000) - 0x8000)
                    k = wk[code]
                    if k:
                        v += t[k]
                        f4 += t[11 + k]
                    q += st
                    x = bd[q]
                v -= lbase[li]
                f4 -= (lf4[li] ^ 0x8000) - 0x8000
            c = c2
            c2 = -1
        p += 3
    # put the root board back, newest change first (a captured cell's value is in the record; a vanished or
    # hatched one held an egg)
    while p > 0:
        p -= 3
        op = log[p]
        if op == _OP_PLACE:
            bd[pad[log[p + 1]]] = 0
            bd[pad[log[p + 2]]] = 0
        elif op == _OP_EGG:
            bd[pad[log[p + 1]]] = 0
        elif op == _OP_CAPTURED:
            bd[pad[log[p + 1]]] = log[p + 2]
        elif op == _OP_VANISH or op == _OP_HATCH:
            bd[pad[log[p + 1]]] = 3
    # evaluate.payoff (as in quiet)
    fb = f4 >> 10
    fw = f4 & 1023
    if fb >= 2 and fw <= 0:
        v += _DOUBLE
    elif fw >= 2 and fb <= 0:
        v -= _DOUBLE
    if v > _CLIP:
        v = _CLIP
    elif v < -_CLIP:
        v = -_CLIP
    if v < 0:
        return v * _SQUASH // (_SQUASH - v)
    return v * _SQUASH // (_SQUASH + v)


_DIRS = b"\x01\x02\x0d\x18\x17\x16\x0b\x00"  # evaluate.DIRS + 12: the 8 clamp directions in padded space


@micropython.viper
def clamps(b, pn_o, who_o, po_o) -> bool:
    """solve._clamps (its docstring says what it tests), as machine code."""
    bd = ptr8(b._w.bd)
    dirs = ptr8(_DIRS)
    pn = int(pn_o)
    who = int(who_o)
    po = int(po_o)
    opp = 3 - who
    bd[pn] = who
    if po >= 0:
        bd[po] = opp
    hit = False
    n = 0
    while n < 8:
        dd = int(dirs[n]) - 12
        x = bd[pn + dd]
        if x == opp or x == 3:
            y = bd[pn + dd + dd]
            if (y == opp or y == 3) and bd[pn + 3 * dd] == who:
                hit = True
                break
        n += 1
    bd[pn] = 0
    if po >= 0:
        bd[po] = 0
    return hit


_AXES = b"\x01\x0b\x0c\x0a"  # the engine's _AXES: E, S, SE, SW in padded space


@micropython.viper
def play(g, black_o, white_o):
    """Game.play(g, black, white) as machine code, for the bot's trial turns (black, white: ints): the same board,
    egg order, turn record, counts, winners and undo state (game.py's play, _settle, _counted, _take, _pop_oldest,
    _unlink and _judge in one); a move the rules refuse is left to Game.play, which raises."""
    b = ptr8(g._b)
    pad = ptr8(_PAD)
    black = int(black_o)
    white = int(white_o)
    res = int(g.result)
    if res or black < 0 or white < 0 or black >= 81 or white >= 81 or b[pad[black]] or b[pad[white]]:
        g.play(black_o, white_o)
        return
    sd = 0
    if g.sudden_death:
        sd = 1
    nwin = int(g._nwin)
    u = ptr8(g._u)
    u[0] = res
    u[1] = sd
    u[2] = int(g.winning_black)
    u[3] = int(g.winning_white)
    u[4] = int(g.captures_black)
    u[5] = int(g.captures_white)
    u[6] = nwin
    log = ptr8(g.log)
    add = ptr8(g._added)
    eggs = ptr8(g._eggs)
    unpad = ptr8(_UNPAD)
    eh = int(g._eh)  # the egg ring's head, its count and the empty cells: in registers, written back at the end
    ec = int(g.egg_count)
    empty = int(g.empty)
    nranks = 0
    tb = 0
    tw = 0
    pb = int(pad[black])
    n = 3
    end = 0  # newcomers of the turn (placed or hatched) in add[0:end], for the win check
    if black == white:
        # a collision: an egg, the newest; nothing can clamp
        b[pb] = 3
        x = eh + ec
        if x >= 81:
            x -= 81
        eggs[x] = pb
        ec += 1
        empty -= 1
        log[0] = _OP_EGG
        log[1] = black
        log[2] = 0
    else:
        pw = int(pad[white])
        b[pb] = 1
        b[pw] = 2
        empty -= 2
        log[0] = _OP_PLACE
        log[1] = black
        log[2] = white
        add[0] = pb
        add[1] = pw
        end = 2
        ranks = ptr8(g._ranks)
        dirs = ptr8(_DIRS)
        start = 0
        step = 0
        while True:
            step += 1
            # 1. the clamps this step's newcomers close, on the board as it stands
            s0 = n
            n += 3
            cb = 0
            cw = 0
            i = start
            while i < end:
                c = int(add[i])
                p = int(b[c])
                e = 3 - p  # v & e: the enemy turtle or an egg (as in game.py)
                mask = 0
                bit = 1
                k = 0
                while k < 8:
                    d = int(dirs[k]) - 12
                    if b[c + d] & e:
                        a = c + 3 * d
                        if b[c + d + d] & e and b[a] == p:
                            dup = False  # _counted: a far end that is a newcomer too counts from the lower cell
                            if a < c:
                                t = start
                                while t < end:
                                    if add[t] == a:
                                        dup = True
                                        break
                                    t += 1
                            if not dup:
                                mask |= bit
                                if p == 1:
                                    cb += 1
                                else:
                                    cw += 1
                    bit <<= 1
                    k += 1
                if mask:
                    if p == 1:
                        log[n] = _OP_CLAMP_BLACK
                    else:
                        log[n] = _OP_CLAMP_WHITE
                    log[n + 1] = unpad[c]
                    log[n + 2] = mask
                    n += 3
                i += 1
            if cb + cw == 0:
                n = s0
                break
            log[s0] = _OP_STEP
            log[s0 + 1] = step
            log[s0 + 2] = 0
            tb += cb
            tw += cw
            # 2. every middle piece at once (_take; an egg leaves the order by _unlink, its rank kept for undo)
            j = s0 + 3
            ce = n
            while j < ce:
                c = int(pad[log[j + 1]])
                mask = int(log[j + 2])
                k = 0
                while mask:
                    if mask & 1:
                        d = int(dirs[k]) - 12
                        x = c + d
                        t = 0
                        while t < 2:
                            v = int(b[x])
                            if v:
                                if v == 3:
                                    r = 0
                                    q = eh
                                    while eggs[q] != x:
                                        r += 1
                                        q += 1
                                        if q >= 81:
                                            q = 0
                                    ranks[nranks] = r
                                    nranks += 1
                                    # the shorter side moves one place: older eggs towards the tail, or newer
                                    # ones towards the head
                                    s = 1
                                    h = ec - 1 - r
                                    if r < h:
                                        s = -1
                                        h = r
                                        eh += 1
                                        if eh >= 81:
                                            eh = 0
                                    while h > 0:
                                        q1 = q + s
                                        if q1 < 0:
                                            q1 = 80
                                        elif q1 >= 81:
                                            q1 = 0
                                        eggs[q] = eggs[q1]
                                        q = q1
                                        h -= 1
                                    ec -= 1
                                b[x] = 0
                                empty += 1
                                log[n] = _OP_CAPTURED
                                log[n + 1] = unpad[x]
                                log[n + 2] = v
                                n += 3
                            x += d
                            t += 1
                    mask >>= 1
                    k += 1
                j += 3
            # 3. contested eggs vanish, then the surplus hatches for the side with more clamps (oldest first)
            mv = cw
            if cb < cw:
                mv = cb
            q = 2
            m = cw - cb
            if cb > cw:
                q = 1
                m = cb - cw
            m += mv
            start = end
            while m > 0 and ec > 0:
                c = int(eggs[eh])
                eh += 1
                if eh >= 81:
                    eh = 0
                ec -= 1
                log[n + 1] = unpad[c]
                if mv > 0:
                    b[c] = 0
                    empty += 1
                    log[n] = _OP_VANISH
                    log[n + 2] = 0
                    mv -= 1
                else:
                    b[c] = q
                    add[end] = c
                    end += 1
                    log[n] = _OP_HATCH
                    log[n + 2] = q
                n += 3
                m -= 1
            # 4. the hatchlings are the next step's only newcomers
            if end == start:
                break
    # the win check (_judge): the newcomers and, in sudden death, the previous winners; each winner marked in the
    # board (8) while counting and listed in the spare list, which becomes the current one
    wo = g._win
    wn = g._wnew
    old = ptr8(wo)
    new = ptr8(wn)
    axes = ptr8(_AXES)
    nold = 0
    if sd:
        nold = nwin
    total = nold + end
    nw = 0
    wb = 0
    ww = 0
    i = 0
    while i < total:
        if i < nold:
            c = int(old[i])
        else:
            c = int(add[i - nold])
        i += 1
        p = b[c] & 7
        if p != 1 and p != 2:
            continue
        k = 0
        while k < 4:
            d = int(axes[k])
            k += 1
            if (b[c + d] & 7) != p and (b[c - d] & 7) != p:
                continue
            x = c + d
            while (b[x] & 7) == p:
                x += d
            y = c - d
            while (b[y] & 7) == p:
                y -= d
            if x - y > 5 * d:
                y += d
                while y != x:
                    v = int(b[y])
                    if v < 8:
                        b[y] = v | 8
                        new[nw] = y
                        nw += 1
                        if p == 1:
                            wb += 1
                        else:
                            ww += 1
                    y += d
    j = 0
    while j < nw:
        x = int(new[j])
        b[x] = b[x] & 7
        j += 1
    g._wnew = wo
    g._win = wn
    g._nwin = nw
    g.winning_black = wb
    g.winning_white = ww
    if wb != ww:
        if wb > ww:
            g.result = _BLACK_WON
        else:
            g.result = _WHITE_WON
        g.sudden_death = False
    elif empty == 0:
        g.result = _DRAW  # also a full board in sudden death
        g.sudden_death = False
    else:
        g.sudden_death = wb > 0
    g.log_len = n
    g.captures_black = tb
    g.captures_white = tw
    g._nranks = nranks
    g._eh = eh
    g.egg_count = ec
    g.empty = empty
    g.turns = int(g.turns) + 1


@micropython.viper
def undo(g):
    """Game.undo(g) as machine code: the last play() taken back exactly, by its turn record (nothing to undo is
    left to Game.undo, which raises)."""
    n = int(g.log_len)
    if n == 0:
        g.undo()
        return
    b = ptr8(g._b)
    log = ptr8(g.log)
    pad = ptr8(_PAD)
    eggs = ptr8(g._eggs)
    ranks = ptr8(g._ranks)
    eh = int(g._eh)
    ec = int(g.egg_count)
    empty = int(g.empty)
    nr = int(g._nranks)
    while n > 0:
        n -= 3
        op = int(log[n])
        if op >= _OP_CAPTURED:
            c = int(pad[log[n + 1]])
            r = 0  # a vanished or hatched egg goes back as the oldest (rank 0)
            if op == _OP_CAPTURED:
                v = int(log[n + 2])
                b[c] = v
                empty -= 1
                if v != 3:
                    continue
                nr -= 1
                r = int(ranks[nr])
            else:
                if op == _OP_VANISH:
                    empty -= 1
                b[c] = 3
            # _relink: back at its rank, the older eggs one place headwards
            eh -= 1
            if eh < 0:
                eh = 80
            q = eh
            while r > 0:
                q1 = q + 1
                if q1 >= 81:
                    q1 = 0
                eggs[q] = eggs[q1]
                q = q1
                r -= 1
            eggs[q] = c
            ec += 1
        elif op == _OP_PLACE:
            b[pad[log[n + 1]]] = 0
            b[pad[log[n + 2]]] = 0
            empty += 2
        elif op == _OP_EGG:
            b[pad[log[n + 1]]] = 0
            ec -= 1
            empty += 1
    u = ptr8(g._u)
    g.result = u[0]
    g.sudden_death = u[1] == 1
    g.winning_black = u[2]
    g.winning_white = u[3]
    g.captures_black = u[4]
    g.captures_white = u[5]
    g._nwin = u[6]
    w = g._win  # the win check swapped the lists: swap back
    g._win = g._wnew
    g._wnew = w
    g.turns = int(g.turns) - 1
    g.log_len = 0
    g._nranks = 0
    g._eh = eh
    g.egg_count = ec
    g.empty = empty
