"""Stand-in computer player, used only when engine.bot is missing or fails: a random legal cell."""


class PlaceholderBot:
    """Seeded LCG; `choose(game, color)` -> a legal cell, or -1 when the board is full."""

    def __init__(self, level="easy", seed=0):
        self.s = (seed * 2654435761 + 12345) & 0x7FFFFFFF

    def _rand(self, n):
        self.s = (self.s * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.s >> 8) % n

    def choose(self, game, color):
        for _ in range(40):
            i = self._rand(81)
            if game.legal(i):
                return i
        for i in range(81):
            if game.legal(i):
                return i
        return -1
