"""The `twoply` outsider: a 2-ply simultaneous-move matrix-game search, its root played as a seeded mixed strategy."""
import random

from engine import BLACK
from tools.tournament.outsiders import lines as L
from tools.tournament.outsiders.matrix import sample
from tools.tournament.outsiders.search import Node, TwoPly, RootGame

# Leaves searched per second of budget: a fixed calibration, not a clock, so
# a seed always gives the same game (`python -m tools.tournament.outsiders.timing`
# prints the seconds a move really takes on this host).
LEAVES_PER_SECOND = 25000


def widths(budget):
    """(root candidates a side, child candidates a side, leaf budget) for a budget in seconds."""
    leaves = int(budget * LEAVES_PER_SECOND)
    k_child = 10 if budget >= 0.5 else 8
    k_root = int((2.0 * leaves / (k_child * k_child)) ** 0.5)
    return max(6, min(20, k_root)), k_child, leaves


class TwoPlyPlayer:
    """Root: up to 20 candidates a side plus every winning, blocking, clamp and fork cell; each pair played on the
    engine and its child valued as a matrix game (10 cells a side) over the static evaluation of search.py; the root
    game solved exactly (double oracle, so only the entries that matter are searched) and its mixed strategy
    sampled with the player's seed."""

    def __init__(self, seed, budget=1.0):
        self.rng = random.Random(seed)
        self.k_root, self.k_child, self.max_leaves = widths(budget)
        self.search = TwoPly(self.k_root, self.k_child)
        self.last = None  # (my cells, their cells, my strategy) of the last move, for tests

    def strategy(self, game, color):
        """(my cells, their cells, my mixed strategy over my cells, the RootGame)."""
        root = Node(L.codes_of(game), game)
        cb, cw = root.candidates(self.k_root, self.k_root)
        rg = RootGame(self.search, game, cb, cw, self.max_leaves)
        _, p, q = rg.solve()
        if color == BLACK:
            return cb, cw, p, rg
        return cw, cb, q, rg

    def choose(self, game, color):
        mine, theirs, p, _ = self.strategy(game, color)
        self.last = (mine, theirs, p)
        return mine[sample(p, self.rng)]
