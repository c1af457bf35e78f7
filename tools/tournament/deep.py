"""The `deep` player: hard whose answer was deepened to the end (engine.bot.deepen), as a person faces it who takes long enough to enter a move."""
from engine.bot import Bot, SLICE_UNITS
from engine.bot.deepen import Deepen


class DeepPlayer:
    """Bot("hard", seed) plus its Deepen run until the deeper answer is ready (a budget without end: how
    long that takes on the Pico is `python -m tools.bench --only rp2040`'s business). `children` counts the
    child searches of all its moves, `moves` the moves."""

    def __init__(self, seed):
        self.bot = Bot("hard", seed)
        self.deep = Deepen(self.bot)
        self.moves = 0
        self.children = 0

    def reseed(self, seed):
        self.bot.reseed(seed)

    def choose(self, game, color):
        self.bot.choose(game, color)
        d = self.deep
        d.begin(game, color)
        c = d.step(SLICE_UNITS)
        while c < 0:
            c = d.step(SLICE_UNITS)
        self.moves += 1
        self.children += d.children
        return c
