"""How wide must a twoply-valued child be? deep's rows and columns, each pair valued by twoply's child search with K candidates a side (20 in deep_tv), read by the sampler's valuation (2026-12-03 record)."""
# Usage (repo root): PYTHONPATH=. .venv/bin/python docs/records/2026-12-03-deep-tv/widths.py FILE N K [K ...]
# FILE: a tournament results file (its games give the positions, as tools.tournament.gain takes them).
import statistics
import sys
import time

from engine import BLACK
from tools.tournament import gain as G
from tools.tournament.outsiders.matrix import solve
from tools.tournament.outsiders.search import TwoPly
from tools.tournament.outsiders.twoply import widths


def valued(k):
    def f(game, color, rows, cols):
        search = TwoPly(widths(1.0)[0], k)
        if color == BLACK:
            m = search.root_matrix(game, rows, cols)
        else:
            m = [[-v for v in col] for col in zip(*search.root_matrix(game, cols, rows))]
        return G._spread(rows, solve(m)[1])
    return f


def main(path, n, ks):
    recs = sorted((r for r in G.read_records(path).values() if r.get("moves")), key=lambda r: (r["a"], r["b"], r["seed"], r["i"]))
    pos = G.positions(recs, 3, int(n))
    ks = [int(k) for k in ks]
    gains = {k: [] for k in ["deep"] + ks}
    secs = {k: 0.0 for k in ks}
    for game, color, _ in pos:
        strat = {"deep": G.strategy("deep", game, color)}
        for k in ks:
            G._twoply_valued = valued(k)
            t = time.process_time()
            strat[k] = G.strategy("deep_tv", game, color)
            secs[k] += time.process_time() - t
        _, gs, _ = G.gain(game, color, strat)
        for k in gains:
            gains[k].append(gs[k])
    for k, x in gains.items():
        print("%-6s mean gain %6d  median %6d  over 1,000 in %d of %d%s" % (
            k, statistics.mean(x), statistics.median(x), sum(1 for y in x if y > 1000), len(x),
            "" if k == "deep" else "  (%.1f s of host time)" % secs[k]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
