"""The `twoply` outsider: a 2-ply simultaneous-move matrix-game search, its root played as a seeded mixed strategy."""
import random

from engine import BLACK
from tools.tournament.outsiders import lines as L
from tools.tournament.outsiders.matrix import sample
from tools.tournament.outsiders.search import Node, TwoPly, RootGame, PARAMS

# Leaves searched per second of budget: a fixed calibration, not a clock, so
# a seed always gives the same game (`python -m tools.tournament.outsiders.timing`
# prints the seconds a move really takes on this host).
LEAVES_PER_SECOND = 30000
def purified(p, floor=None):
    """p without the entries below floor (PARAMS["purify"]), renormalised (the largest kept if none reaches it).

    A rare gamble of the equilibrium only pays against an opponent who forgets its own win, and costs more
    against real bots than it saves in exploitability.
    """
    if floor is None:
        floor = PARAMS["purify"]
    q = [x if x >= floor else 0.0 for x in p]
    s = sum(q)
    if s <= 0:
        q = [0.0] * len(p)
        q[max(range(len(p)), key=lambda i: p[i])] = 1.0
        return q
    return [x / s for x in q]


def widths(budget):
    """(root candidates a side, child candidates a side, leaf budget) for a budget in seconds."""
    leaves = int(budget * LEAVES_PER_SECOND)
    if budget >= 0.8:
        return 24, 20, leaves
    if budget >= 0.4:
        return 20, 14, leaves
    return max(6, min(16, int(40 * budget))), 10, leaves


class TwoPlyPlayer:
    """Root: 24 candidates a side (at 1 s) plus every winning, blocking, clamp and fork cell; each pair played on
    the engine and its child valued as a matrix game (20 cells a side) over the static evaluation of search.py;
    both games solved exactly by double oracle (only the entries that matter are searched); the root's mixed
    strategy sampled with the player's seed."""

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
        return mine[sample(purified(p), self.rng)]
