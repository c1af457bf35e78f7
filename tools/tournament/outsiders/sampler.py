"""The `sampler` outsider: predicts a bot level (or another outsider) by running it under seeds of its own, then best-responds by 2-ply search."""
import random

from engine import BLACK
from engine.bot import Bot
from tools.tournament.outsiders import lines as L
from tools.tournament.outsiders.search import Node, TwoPly, RootGame
from tools.tournament.outsiders.matrix import sample
from tools.tournament.outsiders.twoply import TwoPlyPlayer, purified, widths

SAMPLES = 48  # runs of the target per move


class SamplerPlayer:
    """It never learns the target's real seed: it draws its own seeds, counts the target's answers, adds those cells
    to the 2-ply search's columns, and plays the row with the best expected value against the prediction. A reply
    never seen in n samples may still come about once in n + 1 moves, so that weight goes to each row's worst
    reply (searched 2 ply where the budget allows, else its 1-ply value): a prediction that misses a win of the
    target's costs little."""

    def __init__(self, seed, target="hard", budget=1.0, samples=SAMPLES):
        self.rng = random.Random(seed)
        self.target = target
        self.samples = samples
        if target == "deep":
            from tools.tournament.deep import DeepPlayer

            self.model = DeepPlayer(0)
        elif target == "twoply":
            # the yardstick: how much reading the opponent gains against the strongest player that does not read
            self.model = TwoPlyPlayer(0)
        else:
            self.model = Bot(target, 0)
        self.k_root, self.k_child, self.max_leaves = widths(budget)
        self.search = TwoPly(self.k_root, self.k_child)
        self.last = None

    def predict(self, game, color):
        """{cell: times chosen} of the target playing `color` here, over our own seeds."""
        counts = {}
        if self.target == "twoply":
            # twoply's mixed strategy depends on the position only; its seed only draws from it, so drawing
            # `samples` times with our own random stream is running it under that many seeds of ours
            mine, _, p, _ = self.model.strategy(game, color)
            q = purified(p)
            for _ in range(self.samples):
                c = mine[sample(q, self.rng)]
                counts[c] = counts.get(c, 0) + 1
            return counts
        for _ in range(self.samples):
            self.model.reseed(self.rng.randrange(1 << 30))
            c = self.model.choose(game, color)
            counts[c] = counts.get(c, 0) + 1
        return counts

    def choose(self, game, color):
        counts = self.predict(game, 3 - color)
        root = Node(L.codes_of(game), game)
        cb, cw = root.candidates(self.k_root, self.k_root)
        theirs = cw if color == BLACK else cb
        for c in sorted(counts):
            if c not in theirs:
                theirs.append(c)
        rg = RootGame(self.search, game, cb, cw, self.max_leaves)
        if color == BLACK:
            mine = cb

            def val(i, j):
                return rg.value(i, j)

            def worst(i):
                return min(rg.exact.get(i * 256 + j, rg.est[i][j]) for j in range(len(cw)))
        else:
            mine = cw

            def val(i, j):
                return -rg.value(j, i)

            def worst(i):
                return -max(rg.exact.get(j * 256 + i, rg.est[j][i]) for j in range(len(cb)))
        total = float(sum(counts.values()))
        eps = 1.0 / (total + 1.0)
        pred = [(j, counts[c] / total) for j, c in enumerate(theirs) if c in counts]
        rows = []
        for i in range(len(mine)):
            rows.append((1.0 - eps) * sum(w * val(i, j) for j, w in pred))
        best = []
        best_v = None
        for i in range(len(mine)):
            v = rows[i] + eps * worst(i)
            if best_v is None or v > best_v + 1e-9:
                best_v = v
                best = [i]
            elif v >= best_v - 1e-9:
                best.append(i)
        self.last = (mine, theirs, counts)
        return mine[best[self.rng.randrange(len(best))]]
