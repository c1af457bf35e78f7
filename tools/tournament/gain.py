"""Host tool: how much a reader of a player's mixed strategy gains, position by position, valued by the sampler's 2-ply search (the figure behind the sampler aim of docs/strength.md)."""
import argparse
import json
import statistics
import sys
import time

from engine import Game, BLACK, ONGOING, square_name, parse_square
from engine.bot import Bot, SLICE_UNITS
from engine.bot.deepen import Deepen
from tools.tournament import read_records
from tools.tournament.outsiders import lines as L
from tools.tournament.outsiders.matrix import solve
from tools.tournament.outsiders.search import Node, TwoPly, RootGame
from tools.tournament.outsiders.twoply import TwoPlyPlayer, purified, widths

# The players whose strategy can be read exactly (no sampling): what each plays, {cell: probability}.
# The `*_tv` ones are diagnostics, not players: deep's own rows and columns with each pair valued by
# twoply's child search instead of a hard search (so the only difference from deep is the values).
STRATEGIES = ("hard", "medium", "deep", "twoply", "deep_tv")
LEAVES = 200000  # the valuation's leaf budget a position: wider than the sampler's own (30,000 at 1 s) so that
# every entry a player's strategy meets is searched 2 ply, not estimated


def _spread(cells, weights):
    """{cell: summed weight} over the cells with a weight (a cell may stand twice in a candidate list)."""
    out = {}
    for c, x in zip(cells, weights):
        if x > 1e-12:
            out[c] = out.get(c, 0.0) + x
    return out


def _bot_counts(w, rows, n):
    # the counts a level's pick draws from (solve.pick adds its bonus to them before drawing; their sum is the total)
    tot = sum(w.rcnt[i] for i in range(n))
    return _spread(rows[:n], [w.rcnt[i] / tot for i in range(n)])


def strategy(name, game, color):
    """{cell: probability} of player `name` (one of STRATEGIES) to move for `color` in `game`: read from its
    search, exactly what its seeded draw samples from (every level's randomness is in that draw alone)."""
    if name in ("hard", "medium"):
        b = Bot(name, 1)
        c = b.choose(game, color)
        if b._nr == 0:
            return {c: 1.0}
        return _bot_counts(b._w, b._w.rows, b._nr)
    if name in ("deep", "deep_tv"):
        b = Bot("hard", 1)
        c = b.choose(game, color)
        d = Deepen(b)
        d.begin(game, color)
        if d.done():
            return {c: 1.0}  # a single move
        if name == "deep_tv":
            return _twoply_valued(game, color, bytes(d.rows[:d.n]), bytes(d.cols[:d.nc]))
        while d.step(SLICE_UNITS) < 0:
            pass
        return _bot_counts(b._w, d.rows, d.n)
    if name == "twoply":
        mine, _, p, _ = TwoPlyPlayer(0).strategy(game, color)
        return _spread(mine, purified(p))
    raise ValueError("unknown strategy %r (one of %s)" % (name, ", ".join(STRATEGIES)))


def _twoply_valued(game, color, rows, cols):
    # the matrix of rows x cols, each pair valued by twoply's child search (colour's view), solved exactly
    search = TwoPly(*widths(1.0)[:2])
    if color == BLACK:
        m = search.root_matrix(game, rows, cols)
    else:
        m = [[-v for v in col] for col in zip(*search.root_matrix(game, cols, rows))]
    return _spread(rows, solve(m)[1])


def gain(game, color, strategies, leaves=LEAVES):
    """(value, {name: gain}, equilibrium) for the player of `color` in `game`: value is the reader's equilibrium value of
    the position (the reader plays the other colour; its view, in the sampler's points: a win is 100,000),
    and a strategy's gain is what the reader's best reply to it earns above that value. Every strategy's
    cells join the player's candidates, so all are valued in one matrix. equilibrium: the player's own
    strategy in that matrix game, {cell: probability} (its gain is 0: the measure's zero)."""
    k_root, k_child, _ = widths(1.0)
    search = TwoPly(k_root, k_child)
    root = Node(L.codes_of(game), game)
    cb, cw = root.candidates(k_root, k_root)
    theirs = cb if color == BLACK else cw
    for s in strategies.values():
        for c in sorted(s):
            if c not in theirs:
                theirs.append(c)
    rg = RootGame(search, game, cb, cw, leaves)
    v, p, q = rg.solve()
    eq = _spread(theirs, p if color == BLACK else q)
    sign = -1.0 if color == BLACK else 1.0  # the reader's view of black's values
    out = {}
    for name, s in strategies.items():
        best = None
        for i in range(len(cw if color == BLACK else cb)):
            u = 0.0
            for c, x in s.items():
                j = theirs.index(c)
                u += x * sign * (rg.value(j, i) if color == BLACK else rg.value(i, j))
            if best is None or u > best:
                best = u
        out[name] = best - sign * v
    return sign * v, out, eq


def positions(records, every, limit):
    """(game, colour to read, "game i turn t") for every `every`-th turn of the recorded games, colours
    alternating, at most `limit`."""
    out = []
    for r in records:
        g = Game()
        moves = r["moves"].split()
        for t, mv in enumerate(moves):
            if t and t % every == 0 and g.result == ONGOING and g.empty > 1:  # (the first turn is an opening book)
                q = Game()
                q.copy_from(g)
                out.append((q, BLACK if (t // every) % 2 == 0 else 3 - BLACK, "%s-%s game %d turn %d" % (r["a"], r["b"], r["i"], t + 1)))
                if len(out) >= limit:
                    return out
            g.play(parse_square(mv[:2]), parse_square(mv[2:]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament.gain", description=__doc__)
    ap.add_argument("--results", required=True, help="a tournament results file (--results of tools.tournament) whose games give the positions")
    ap.add_argument("--players", default="hard,deep,twoply", help="comma-separated, of: " + ", ".join(STRATEGIES))
    ap.add_argument("--every", type=int, default=3, help="read every N-th turn of each game (default 3)")
    ap.add_argument("--positions", type=int, default=60, help="at most this many positions (default 60)")
    ap.add_argument("--json", help="also write one JSON line per position here")
    a = ap.parse_args(argv)
    names = [n for n in a.players.split(",") if n]
    for n in names:
        if n not in STRATEGIES:
            ap.error("unknown player %r (one of %s)" % (n, ", ".join(STRATEGIES)))
    recs = [r for r in read_records(a.results).values() if r.get("moves")]
    if not recs:
        ap.error("%s holds no recorded games" % a.results)
    recs.sort(key=lambda r: (r["a"], r["b"], r["seed"], r["i"]))
    pos = positions(recs, a.every, a.positions)
    t0 = time.time()
    gains = {n: [] for n in names}
    out = open(a.json, "w") if a.json else None
    for game, color, where in pos:
        strat = {n: strategy(n, game, color) for n in names}
        v, gs, _ = gain(game, color, strat)
        for n in names:
            gains[n].append(gs[n])
        if out:
            out.write(json.dumps({"where": where, "value": v, "gain": gs,
                                  "strategy": {n: {square_name(c): round(x, 4) for c, x in s.items()} for n, s in strat.items()}}) + "\n")
    if out:
        out.close()
    print("reading gain over %d positions of %s (every %d turns; the reader's 2-ply valuation, a win = 100,000)"
          % (len(pos), a.results, a.every))
    print("| player | mean gain | median | positions with a gain over 1,000 |")
    print("| --- | ---: | ---: | ---: |")
    for n in names:
        x = gains[n]
        print("| %s | %s | %s | %d of %d |" % (n, format(round(statistics.mean(x)), ","), format(round(statistics.median(x)), ","),
                                            sum(1 for y in x if y > 1000), len(x)))
    print("(%.0f s)" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
