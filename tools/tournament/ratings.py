"""Tournament statistics: Wilson intervals for win rates, Bradley-Terry ratings (Elo scale) with bootstrap intervals."""
import math
import random


def wilson(k, n, z=1.96):
    """Wilson score 95% interval for k successes out of n (as fractions)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(games, players, iters=300):
    """Elo-scale ratings from [(a, b, outcome for a: 1 win, 0 draw, -1 loss)], mean 0.

    Bradley-Terry by the MM algorithm; a draw is half a win each, and every
    pair that met gets one virtual draw (a weak prior), so a player who won
    or lost everything still has a finite rating.
    """
    idx = {p: k for k, p in enumerate(players)}
    n = len(players)
    wins = [0.0] * n
    meet = {}
    for a, b, out in games:
        i, j = idx[a], idx[b]
        wins[i] += (out + 1) / 2.0
        wins[j] += (1 - out) / 2.0
        key = (min(i, j), max(i, j))
        meet[key] = meet.get(key, 0) + 1
    for (i, j) in list(meet):
        meet[(i, j)] += 1  # the virtual draw
        wins[i] += 0.5
        wins[j] += 0.5
    s = [1.0] * n
    for _ in range(iters):
        new = []
        for i in range(n):
            den = 0.0
            for (a, b), m in meet.items():
                if a == i:
                    den += m / (s[i] + s[b])
                elif b == i:
                    den += m / (s[i] + s[a])
            new.append(wins[i] / den if den > 0 else s[i])
        g = math.exp(sum(math.log(x) for x in new) / n)
        s = [x / g for x in new]
    return {p: 400.0 * math.log10(s[idx[p]]) for p in players}


def ratings_with_intervals(games, players, resamples=200, seed=1):
    """{player: (rating, low, high)}: Bradley-Terry (Elo scale) and a 95% bootstrap interval (games resampled per pairing)."""
    point = bradley_terry(games, players)
    by_pair = {}
    for g in games:
        by_pair.setdefault((g[0], g[1]), []).append(g)
    rng = random.Random(seed)
    samples = {p: [] for p in players}
    for _ in range(resamples):
        boot = []
        for lst in by_pair.values():
            boot.extend(rng.choice(lst) for _ in lst)
        r = bradley_terry(boot, players, iters=100)
        for p in players:
            samples[p].append(r[p])
    out = {}
    for p in players:
        xs = sorted(samples[p])
        lo = xs[int(0.025 * (len(xs) - 1))]
        hi = xs[int(round(0.975 * (len(xs) - 1)))]
        out[p] = (point[p], lo, hi)
    return out
