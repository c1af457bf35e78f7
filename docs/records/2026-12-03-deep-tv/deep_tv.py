"""Could better child values meet the sampler aim? deep's rows and columns valued by twoply's child search (`deep_tv` of tools.tournament.gain) as a player, and the sampler reading it (2026-12-03 record)."""
# Usage (repo root): PYTHONPATH=. .venv/bin/python docs/records/2026-12-03-deep-tv/deep_tv.py ARGS...
# ARGS are tools.tournament's; two more player names: `deeptv` (draws from gain.strategy("deep_tv"), the exact
# mixed strategy, with its seed) and `samplertv` (the sampler, predicting deeptv by 48 draws from that strategy,
# as sampler_twoply predicts twoply). A diagnostic, not a device player: its children are twoply's searches.
# TV_K=K: the children K candidates a side (widths.py; deep_tv's 20 when unset).
import os
import random
import sys

import tools.tournament as T
from tools.tournament.gain import strategy
from tools.tournament.outsiders.matrix import sample
from tools.tournament.outsiders.sampler import SamplerPlayer


class DeepTV:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def reseed(self, seed):
        self.rng = random.Random(seed)

    def choose(self, game, color):
        s = strategy("deep_tv", game, color)
        cells = sorted(s)
        return cells[sample([s[c] for c in cells], self.rng)]


class SamplerTV(SamplerPlayer):
    def __init__(self, seed):
        SamplerPlayer.__init__(self, seed, target="twoply")

    def predict(self, game, color):
        s = strategy("deep_tv", game, color)
        cells = sorted(s)
        p = [s[c] for c in cells]
        counts = {}
        for _ in range(self.samples):
            c = cells[sample(p, self.rng)]
            counts[c] = counts.get(c, 0) + 1
        return counts


if os.environ.get("TV_K"):
    import tools.tournament.gain as G
    from widths import valued

    G._twoply_valued = valued(int(os.environ["TV_K"]))

_make = T.make_player


def make_player(name, seed, outside=None, timeout=None):
    if name == "deeptv":
        return DeepTV(seed)
    if name == "samplertv":
        return SamplerTV(seed)
    return _make(name, seed, outside, timeout)


T.make_player = make_player
T.PLAYERS = T.PLAYERS + ("deeptv", "samplertv")

if __name__ == "__main__":
    sys.exit(T.main(sys.argv[1:]))
