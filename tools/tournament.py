"""Host tool: play bot levels and baselines (random, greedy) against each other; print win/draw/loss with Wilson 95% CIs."""
import argparse
import math
import random
import sys
import time

from engine import Game, BLACK, WHITE, EMPTY, EGG, ONGOING, BLACK_WON, WHITE_WON
from engine.bot import Bot, LEVELS

PLAYERS = ("random",) + ("greedy",) + LEVELS
DEFAULT_PAIRINGS = (
    "hard-greedy",
    "medium-greedy",
    "easy-greedy",
    "hard-medium",
    "hard-easy",
    "medium-easy",
    "hard-random",
    "medium-random",
    "easy-random",
    "greedy-random",
)
MAX_TURNS = 200  # a game still running after this many turns counts as a draw

_LINE_DIRS = ((0, 1), (1, 0), (1, 1), (1, -1))
_RAY_DIRS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _empties(game):
    return [i for i in range(81) if game.cell(i) == EMPTY]


class RandomPlayer:
    """Uniformly random empty cell."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, game, color):
        return self.rng.choice(_empties(game))


def _run_len(game, i, color):
    """Longest line of `color` through empty cell i if `color` played there."""
    r0, c0 = divmod(i, 9)
    best = 0
    for dr, dc in _LINE_DIRS:
        n = 1
        for s in (1, -1):
            r, c = r0 + s * dr, c0 + s * dc
            while 0 <= r < 9 and 0 <= c < 9 and game.cell(r * 9 + c) == color:
                n += 1
                r += s * dr
                c += s * dc
        best = max(best, n)
    return best


def _clamps(game, i, color):
    """Clamps `color` would close by placing a newcomer on empty cell i."""
    enemy = WHITE if color == BLACK else BLACK
    r0, c0 = divmod(i, 9)
    n = 0
    for dr, dc in _RAY_DIRS:
        r3, c3 = r0 + 3 * dr, c0 + 3 * dc
        if not (0 <= r3 < 9 and 0 <= c3 < 9):
            continue
        x = game.cell((r0 + dr) * 9 + c0 + dc)
        y = game.cell((r0 + 2 * dr) * 9 + c0 + 2 * dc)
        a = game.cell(r3 * 9 + c3)
        if a == color and x in (enemy, EGG) and y in (enemy, EGG):
            n += 1
    return n


class GreedyPlayer:
    """Baseline: win now, else block a win, else capture most, else extend the longest own line."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, game, color):
        enemy = WHITE if color == BLACK else BLACK
        cells = _empties(game)
        self.rng.shuffle(cells)  # random tie-breaking
        for c in cells:
            if _run_len(game, c, color) >= 5:
                return c
        for c in cells:
            if _run_len(game, c, enemy) >= 5:
                return c
        best, bestc = 0, None
        for c in cells:
            k = _clamps(game, c, color)
            if k > best:
                best, bestc = k, c
        if bestc is not None:
            return bestc
        return max(cells, key=lambda c: (_run_len(game, c, color), -abs(c // 9 - 4) - abs(c % 9 - 4)))


def make_player(name, seed):
    if name == "random":
        return RandomPlayer(seed)
    if name == "greedy":
        return GreedyPlayer(seed)
    if name in LEVELS:
        return Bot(name, seed)
    raise ValueError("unknown player %r (one of %s)" % (name, ", ".join(PLAYERS)))


def play_game(black, white, max_turns=MAX_TURNS):
    """Play one game; returns the final Game (result ONGOING after max_turns means a draw)."""
    g = Game()
    for _ in range(max_turns):
        # Both choose on the same position before either move is played (honest).
        b = black.choose(g, BLACK)
        w = white.choose(g, WHITE)
        g.play(b, w)
        if g.result != ONGOING:
            break
    return g


def run_one(args):
    """Game i of pairing a-b: a is black on even i. Returns (pairing, i, outcome for a: 1/0/-1, turns)."""
    a, b, i, seed = args
    sa = seed * 1000003 + i * 2 + 1
    sb = seed * 1000003 + i * 2 + 2
    pa = make_player(a, sa)
    pb = make_player(b, sb)
    if i % 2 == 0:
        g = play_game(pa, pb)
        a_color = BLACK
    else:
        g = play_game(pb, pa)
        a_color = WHITE
    if g.result == BLACK_WON:
        out = 1 if a_color == BLACK else -1
    elif g.result == WHITE_WON:
        out = 1 if a_color == WHITE else -1
    else:
        out = 0
    return (a, b, i, out, g.turns)


def wilson(k, n, z=1.96):
    """Wilson score 95% interval for k successes out of n (as fractions)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def _pct(k, n):
    lo, hi = wilson(k, n)
    p = 100.0 * k / n if n else 0.0
    return "%5.1f%% [%5.1f,%5.1f]" % (p, 100 * lo, 100 * hi)


def table(results):
    """results: {(a, b): [outcomes]} -> printable table lines."""
    lines = [
        "| pairing (A vs B) | games | A wins | draws | A losses | A wins of decided | mean turns |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (a, b), outs in results.items():
        n = len(outs)
        w = sum(1 for o, _ in outs if o == 1)
        d = sum(1 for o, _ in outs if o == 0)
        l = sum(1 for o, _ in outs if o == -1)
        turns = sum(t for _, t in outs) / n if n else 0
        lines.append(
            "| %s vs %s | %d | %s | %s | %s | %s (%d) | %.1f |"
            % (a, b, n, _pct(w, n), _pct(d, n), _pct(l, n), _pct(w, w + l), w + l, turns)
        )
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament", description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="games per pairing (colours alternate)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (every game's seeds derive from it)")
    ap.add_argument(
        "--pairings",
        default=",".join(DEFAULT_PAIRINGS),
        help="comma-separated A-B pairs of: " + ", ".join(PLAYERS),
    )
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = ap.parse_args(argv)
    pairs = []
    for item in args.pairings.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split("-")
        if len(parts) != 2 or parts[0] not in PLAYERS or parts[1] not in PLAYERS:
            ap.error("bad pairing %r (use A-B with A, B in %s)" % (item, ", ".join(PLAYERS)))
        pairs.append((parts[0], parts[1]))
    jobs = [(a, b, i, args.seed) for a, b in pairs for i in range(args.games)]
    results = {p: [] for p in pairs}
    t0 = time.time()
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(args.jobs) as pool:
            done = pool.imap_unordered(run_one, jobs, chunksize=2)
            for a, b, i, out, turns in done:
                results[(a, b)].append((out, turns))
    else:
        for job in jobs:
            a, b, i, out, turns = run_one(job)
            results[(a, b)].append((out, turns))
    print(
        "tournament: %d games per pairing, seed %d, colours alternate, max %d turns (then a draw), %.0f s"
        % (args.games, args.seed, MAX_TURNS, time.time() - t0)
    )
    for line in table(results):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
