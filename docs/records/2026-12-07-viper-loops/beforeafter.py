"""Before/after on the emulated Pico: hard's move and the deeper answer (core 1, as the app runs them:
tools.bench.rp2040.deep_runs) in the same 6 positions, for each flash image named (label=path).
Run from the repository root: PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-viper-loops/beforeafter.py base=build/v/base.img new=build/v/new.img (images from mkimg.py)"""
import json, shutil, sys, tempfile, time
from pathlib import Path

from tools.bench.rp2040 import _CORE1, position_turns
from tools.rp2040.probe import guest_json
from tools.rp2040 import Pico

IDX = [150, 300, 500, 700, 900, 1100]


def main():
    reach = position_turns()
    P = [(reach[i], 1 + (k & 1)) for k, i in enumerate(IDX)]
    res = {}
    for arg in sys.argv[1:]:
        label, img = arg.split("=", 1)
        tmp = Path(tempfile.mkdtemp(prefix="v2ba-"))
        shutil.copy(img, tmp / "f.img")
        t = time.time()
        with Pico(flash=tmp / "f.img") as pico:
            pico.wait_frames(1)
            # per position: [cell by choose() on core 0, cell on core 1, bytes, µs, deeper cell, bytes, µs, children]
            r = guest_json(pico, _CORE1 % (P, True), timeout=3000)
        print("%s: host %.0f s" % (label, time.time() - t), flush=True)
        res[label] = r
    host = []
    from engine import Game
    from engine.bot import Bot, SLICE_UNITS
    from engine.bot.deepen import Deepen
    b = Bot("hard", 1)
    d = Deepen(b)
    for k, (turns, c) in enumerate(P):
        g = Game()
        for x, y in turns:
            g.play(x, y)
        b.reseed(k)
        cell = b.choose(g, c)
        d.begin(g, c)
        r = d.step(SLICE_UNITS)
        while r < 0:
            r = d.step(SLICE_UNITS)
        host.append([cell, r])
    res["host"] = host
    labels = [a.split("=", 1)[0] for a in sys.argv[1:]]
    print("position  " + "  ".join("%s move ms / deeper ms" % l for l in labels) + "   cells (move, deeper) host / each")
    tot = {l: [0, 0] for l in labels}
    for k in range(len(P)):
        row = "%4d c%d   " % (IDX[k], P[k][1])
        cells = []
        for l in labels:
            m = res[l][k]
            tot[l][0] += m[3]
            tot[l][1] += m[6]
            row += "  %8.1f / %8.1f" % (m[3] / 1e3, m[6] / 1e3)
            cells.append((m[1], m[4]) + ((m[0],) if m[0] != m[1] else ()))
            if m[2] or m[5]:
                row += " (alloc %d/%d)" % (m[2], m[5])
        print(row + "   %s / %s" % (tuple(host[k]), cells))
    print("total    " + "  ".join("  %8.1f / %8.1f" % (tot[l][0] / 1e3, tot[l][1] / 1e3) for l in labels))
    a = labels[0]
    for b2 in labels[1:]:
        print("%s vs %s: move %+.1f%%, deeper %+.1f%%" % (b2, a, 100.0 * (tot[b2][0] - tot[a][0]) / tot[a][0],
                                                         100.0 * (tot[b2][1] - tot[a][1]) / tot[a][1]))


if __name__ == "__main__":
    main()
