"""The `deep` player: hard whose answer was deepened to the end (engine.bot.deepen), as a person faces it who takes long enough to enter a move; `deep_cN`: the deepening hurried after N child searches, as a quicker person faces it."""
import re

from engine.bot import Bot, SLICE_UNITS
from engine.bot.deepen import Deepen

_NAME = re.compile(r"^deep(?:_c([1-9][0-9]{0,2}))?$")


def parse(name):
    """None if `name` is not a deep player's, else its child budget (0: none, the deepening runs to the end)."""
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None:
        return None
    return int(m.group(1)) if m.group(1) else 0


class DeepPlayer:
    """Bot("hard", seed) plus its Deepen, run until the deeper answer is ready (`children` 0: a budget without
    end) or hurried (Deepen.hurry(), as the app does at the reveal) once `children` child searches have begun:
    the person entered their move while the last one ran. How long a child search takes on the Pico is
    `python -m tools.bench --only rp2040`'s business. `children_run` counts the child searches of all its
    moves, `moves` the moves."""

    def __init__(self, seed, children=0):
        self.bot = Bot("hard", seed)
        self.deep = Deepen(self.bot)
        self.budget = children
        self.moves = 0
        self.children = 0

    def reseed(self, seed):
        self.bot.reseed(seed)

    def choose(self, game, color):
        self.bot.choose(game, color)
        d = self.deep
        d.begin(game, color)
        budget = self.budget
        c = d.step(SLICE_UNITS)
        while c < 0:
            if budget and d.children >= budget:
                d.hurry()
            c = d.step(SLICE_UNITS)
        self.moves += 1
        self.children += d.children
        return c
