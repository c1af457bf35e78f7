"""Secret move entry on one pad: block digit, cell digit, # locks, * steps back or unlocks; its visible state never depends on the digits."""
from engine._compat import const

IDLE = const(0)
ENTERING = const(1)
LOCKED = const(2)

# What a key did, for the click/blink feedback. None of these depends on
# which digits were typed, only on how many and on whether the cell is free.
FB_CLICK = const(1)
FB_ERROR = const(2)
FB_LOCK = const(3)
FB_UNLOCK = const(4)


def cell_of(block, cell):
    """Digits 1-9 (as seen from black's seat) -> board index. e5 = 5 5, a1 = 1 1, c3 = 1 9, d1 = 2 1."""
    b = block - 1
    c = cell - 1
    return ((b // 3) * 3 + c // 3) * 9 + (b % 3) * 3 + c % 3


def digits_of(index):
    """Board index -> (block digit, cell digit) as seen from black's seat (allocates a tuple: tools only)."""
    r = index // 9
    c = index % 9
    return (r // 3) * 3 + c // 3 + 1, (r % 3) * 3 + c % 3 + 1


def keys_for(index, rotated):
    """The three keys a player types for cell `index` on a pad that is (not) rotated 180 degrees."""
    b, c = digits_of(index)
    if rotated:
        b = 10 - b
        c = 10 - c
    return str(b) + str(c) + "#"


class Entry:
    """One player's pending move. Only `state` (and `digits`, the count) may reach the display."""

    def __init__(self, rotated):
        self.rotated = rotated
        self._d = bytearray(2)  # the secret digits, already turned to black's view
        self.digits = 0
        self.locked = False
        self.move = -1  # the locked cell, -1 when not locked

    def state(self):
        if self.locked:
            return LOCKED
        return ENTERING if self.digits else IDLE

    def clear(self):
        self.digits = 0
        self.locked = False
        self.move = -1

    def lock_cell(self, cell):
        """Lock a move chosen without keys (the computer player)."""
        self.digits = 2
        self.locked = True
        self.move = cell

    def key(self, ch, game):
        """Apply key `ch` ('0'-'9', '*', '#', letters). Returns an FB_* code."""
        if self.locked:
            if ch == "*":
                self.locked = False
                self.move = -1
                return FB_UNLOCK
            return FB_CLICK  # ignored while locked, but sounds the same
        if ch == "*":
            if self.digits:
                self.digits -= 1
            return FB_CLICK
        if ch == "#":
            if self.digits < 2:
                self.digits = 0
                return FB_ERROR
            d = self._d
            cell = cell_of(d[0], d[1])
            if not game.legal(cell):
                # Same blink for every occupied cell; the entry starts over.
                self.digits = 0
                return FB_ERROR
            self.locked = True
            self.move = cell
            return FB_LOCK
        if "1" <= ch <= "9":
            if self.digits < 2:
                v = ord(ch) - 48
                if self.rotated:
                    v = 10 - v
                self._d[self.digits] = v
                self.digits += 1
            return FB_CLICK
        return FB_CLICK  # 0 and letters: no meaning, same click
