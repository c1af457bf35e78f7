"""Emulated-Pico profile of hard's move and the deeper answer: per phase (one item per step(1)) and, with
--wrap, per bot function (wrappers timing each call). python profile.py IMAGE [--wrap] [--idx 150,300,...]"""
import json, shutil, sys, tempfile, time
from pathlib import Path

from tools.bench.rp2040 import position_turns
from tools.rp2040 import Pico
from tools.rp2040.probe import guest_json

GUEST = r"""
import gc, json, time
from array import array
from engine import Game
from engine.bot import Bot, evaluate, solve, candidates
from engine.bot.deepen import Deepen
P = %r
WRAP = %r
us = time.ticks_us
df = time.ticks_diff
PH = array('i', bytes(4 * 64))   # per phase: us (0..31 move phases, 32..63 deepen: 32+dph, child: 48+cph)
PN = array('i', bytes(4 * 64))
F = array('i', bytes(4 * 32))    # per wrapped function: us, calls at 16+k
NAMES = []
_q = solve.quiet
_r = solve.rescore
_cd = solve.cell_delta
_cl = solve._clamps
_ti = solve._tier
# the bot's trial turn: solve's (machine code on the Pico) once it has one, else Game's
TRIAL = hasattr(solve, "_play")
_pl = solve._play if TRIAL else Game.play
_un = solve._undo if TRIAL else Game.undo
def wq(a, b, c):
    t = us(); r = _q(a, b, c); F[0] += df(us(), t); F[16] += 1; return r
def wr(a, b):
    t = us(); r = _r(a, b); F[1] += df(us(), t); F[17] += 1; return r
def wcd(a, b, c, d, e, f, g, h):
    t = us(); _cd(a, b, c, d, e, f, g, h); F[2] += df(us(), t); F[18] += 1
def wcl(a, b, c, d):
    t = us(); r = _cl(a, b, c, d); F[3] += df(us(), t); F[19] += 1; return r
def wti(a, b, c):
    t = us(); r = _ti(a, b, c); F[4] += df(us(), t); F[20] += 1; return r
def wpl(a, b, c):
    t = us(); r = _pl(a, b, c); F[5] += df(us(), t); F[21] += 1; return r
def wun(a):
    t = us(); r = _un(a); F[6] += df(us(), t); F[22] += 1; return r
def wnop(a):
    t = us(); F[7] += df(us(), t); F[23] += 1
NAMES = ["quiet", "rescore", "cell_delta", "_clamps", "_tier", "play", "undo", "(wrapper)"]
if WRAP:
    solve.quiet = wq
    solve.rescore = wr
    solve.cell_delta = wcd
    solve._clamps = wcl
    solve._tier = wti
    if TRIAL:
        solve._play = wpl
        solve._undo = wun
    else:
        Game.play = wpl
        Game.undo = wun
    for _ in range(1000):
        wnop(0)
def main():
    g = Game()
    b = Bot("hard", 1)
    d = Deepen(b)
    out = []
    for k in range(len(P)):
        turns, c = P[k]
        g.reset()
        for x, y in turns:
            g.play(x, y)
        b.reseed(k)
        gc.collect()
        t0 = us()
        b.start(g, c)
        r = -1
        while r < 0:
            ph = b._ph
            t = us()
            r = b.step(1)
            PH[ph] += df(us(), t)
            PN[ph] += 1
        tm = df(us(), t0)
        gc.collect()
        t0 = us()
        d.begin(g, c)
        r = -1
        while r < 0:
            ph = d._ph
            if ph == 2:
                ph = 16 + d.child._ph
            t = us()
            r = d.step(1)
            PH[32 + ph] += df(us(), t)
            PN[32 + ph] += 1
        out.append([tm, df(us(), t0), d.children])
    return out
o = main()
print('@J', json.dumps({"moves": o, "ph": list(PH), "pn": list(PN), "f": list(F), "names": NAMES}))
"""

PHN = {1: "PRE", 2: "SCAN", 3: "TOP", 4: "ANT_OPP", 5: "ANT_OWN", 6: "BRK", 7: "DELTA", 8: "PAIRS", 9: "FP",
       10: "REPLIES", 11: "PICK"}
DPN = {1: "D_NEXT", 3: "D_FP"}


def positions(idx):
    reach = position_turns()
    return [(reach[i], 1 + (k & 1)) for k, i in enumerate(idx)]


def main():
    img = sys.argv[1]
    wrapf = "--wrap" in sys.argv
    idx = [150, 300, 500, 700, 900, 1100]
    if "--idx" in sys.argv:
        idx = [int(x) for x in sys.argv[sys.argv.index("--idx") + 1].split(",")]
    P = positions(idx)
    tmp = Path(tempfile.mkdtemp(prefix="v2prof-"))
    shutil.copy(img, tmp / "f.img")
    t = time.time()
    with Pico(flash=tmp / "f.img") as pico:
        pico.wait_usb()
        r = guest_json(pico, GUEST % (P, wrapf), timeout=3000)
    print("host %.0f s" % (time.time() - t))
    for m in r["moves"]:
        print("move %.1f ms  deeper %.1f ms  children %d" % (m[0] / 1e3, m[1] / 1e3, m[2]))
    tm = sum(m[0] for m in r["moves"])
    td = sum(m[1] for m in r["moves"])
    print("total move %.1f ms, deeper %.1f ms" % (tm / 1e3, td / 1e3))
    ph, pn = r["ph"], r["pn"]
    print("hard move phases (ms total over positions, items):")
    for k in range(32):
        if pn[k]:
            print("  %-8s %9.1f ms %5.1f%%  %d" % (PHN.get(k, k), ph[k] / 1e3, 100 * ph[k] / tm, pn[k]))
    print("deeper answer phases:")
    for k in range(32, 64):
        if pn[k]:
            name = DPN.get(k - 32) or ("child " + PHN.get(k - 48, str(k - 48)))
            print("  %-14s %9.1f ms %5.1f%%  %d" % (name, ph[k] / 1e3, 100 * ph[k] / td, pn[k]))
    if wrapf:
        print("wrapped functions (whole run, incl. wrapper overhead):")
        for k, n in enumerate(r["names"]):
            if r["f"][16 + k]:
                print("  %-10s %9.1f ms  %7d calls  %.1f us/call" % (n, r["f"][k] / 1e3, r["f"][16 + k],
                                                                  r["f"][k] / r["f"][16 + k]))
    print(json.dumps(r))


if __name__ == "__main__":
    main()
