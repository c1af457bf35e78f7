"""The rules of What the Shell (../shared/rules/RULES.md) as one allocation-free `Game` for MicroPython and CPython."""
from engine._compat import const

# Cell values. The board is padded with WALL so that walking off an edge
# needs no bounds check: every walk stops at the first cell that does not match.
EMPTY = const(0)
BLACK = const(1)
WHITE = const(2)
EGG = const(3)
_WALL = const(4)
WALL = _WALL  # public: the border value of copy_padded() boards (the bot walks to it)
_MARK = const(8)  # "already counted" flag OR-ed into a cell while counting lines

ONGOING = const(0)
BLACK_WON = const(1)
WHITE_WON = const(2)
DRAW = const(3)

# Turn record opcodes (DEVELOPERS.md "The turn record").
EV_PLACE = const(1)
EV_EGG = const(2)
EV_STEP = const(3)
EV_CLAMP_BLACK = const(4)
EV_CLAMP_WHITE = const(5)
EV_CAPTURED = const(6)
EV_VANISH = const(7)
EV_HATCH = const(8)

# Padded geometry: 11 columns (wall, 9 cells, wall) by 11 rows.
_W = const(11)
_PADDED = const(121)
_NCELLS = const(81)

# The turn record's size is bounded by the board, so it never overflows:
# 1 PLACE + at most 80 STEP (each step after the first needs a hatchling, and
# at most 79 eggs can hatch) + at most 81 CLAMP (one per newcomer: 2 placed +
# 79 hatched, its directions folded into a bit mask) + at most 81 CAPTURED (a
# captured cell stays empty for the rest of the turn) + at most 79 VANISH or
# HATCH (one per egg on the board) = 322 entries of 3 bytes.
_LOG_ENTRIES = const(322)

# Directions in the order of DIR_DELTA: N, NE, E, SE, S, SW, W, NW.
DIR_DELTA = (-9, -8, 1, 10, 9, 8, -1, -10)
_DIRS = (-11, -10, 1, 12, 11, 10, -1, -12)  # the same in padded space
_AXES = (1, 11, 12, 10)  # E, S, SE, SW: one per line orientation

# cell index 0..80 <-> padded index (PAD and UNPAD, 255 on the wall, are public for copy_padded() users)
_P = PAD = bytes((i // 9 + 1) * _W + i % 9 + 1 for i in range(_NCELLS))
_U = bytearray(b"\xff" * _PADDED)
for _i in range(_NCELLS):
    _U[_P[_i]] = _i
UNPAD = bytes(_U)
del _U
del _i

_COLOUR = ("empty", "black", "white", "egg")


class IllegalMove(ValueError):
    """A move the rules refuse; the game is left exactly as it was."""


def square_name(i):
    """0 -> 'a1', 40 -> 'e5', 80 -> 'i9' (column letter, then row number from the top)."""
    if type(i) is not int or i < 0 or i >= _NCELLS:
        raise ValueError("not a cell index (0..80): %r" % (i,))
    return "abcdefghi"[i % 9] + str(i // 9 + 1)


def parse_square(text):
    """'e5' -> 40. Raises IllegalMove (a ValueError) for anything that is not a cell a1..i9."""
    if type(text) is str and len(text) == 2:
        col = "abcdefghi".find(text[0].lower())
        row = "123456789".find(text[1])
        if col >= 0 and row >= 0:
            return row * 9 + col
    raise IllegalMove("%r is not a cell (a1..i9)" % (text,))


class Game:
    """One game: padded bytearray board, egg order in a ring buffer, last turn's record in `log`."""

    def __init__(self):
        self._b = bytearray(_PADDED)
        self._eggs = bytearray(_NCELLS)  # ring buffer of padded cells, oldest at _eh
        self._added = bytearray(_NCELLS + 2)  # newcomers of the turn, step by step (padded)
        self._ranks = bytearray(_NCELLS)  # egg-order rank of each captured egg, for undo
        self._win = bytearray(_NCELLS)  # winning turtles (padded cells), _nwin of them
        self._wnew = bytearray(_NCELLS)  # the previous list while judging; swapped after
        self.log = bytearray(_LOG_ENTRIES * 3)
        self.reset()

    def reset(self):
        """Empty board, no eggs, nothing to undo."""
        b = self._b
        for c in range(_PADDED):
            b[c] = _WALL if UNPAD[c] == 255 else EMPTY
        self._eh = 0
        self.egg_count = 0
        self.empty = _NCELLS
        self.result = ONGOING
        self.sudden_death = False
        self.winning_black = 0
        self.winning_white = 0
        self.captures_black = 0
        self.captures_white = 0
        self.turns = 0
        self.log_len = 0
        self._nranks = 0
        self._nwin = 0
        self._u = bytearray(8)  # state before the last turn, for undo()

    # ---- reading the position -------------------------------------------

    def cell(self, i):
        """0 empty, 1 black, 2 white, 3 egg."""
        if i < 0 or i >= _NCELLS:
            raise IndexError("cell index out of range (0..80): %r" % (i,))
        return self._b[_P[i]]

    def egg(self, k):
        """Cell of the k-th oldest egg (k = 0 is the next to hatch)."""
        if k < 0 or k >= self.egg_count:
            raise IndexError("no egg number %r (there are %d)" % (k, self.egg_count))
        return UNPAD[self._eggs[(self._eh + k) % _NCELLS]]

    def copy_padded(self, buf):
        """Copy the board into buf, a bytearray(121): 11x11 with a wall (4) border, cell i at PAD[i].

        For search code (the bot) that walks the board without bounds checks;
        one slice copy instead of 81 cell() calls.
        """
        buf[:] = self._b

    def legal(self, i):
        """True if a move on cell i would be accepted now."""
        return self.result == ONGOING and 0 <= i < _NCELLS and self._b[_P[i]] == EMPTY

    def is_winning(self, i):
        """True if cell i holds a turtle in a straight line of five or more of its colour."""
        b = self._b
        c = _P[i]
        p = b[c]
        if p != BLACK and p != WHITE:
            return False
        for d in _AXES:
            if self._run(c, d, p) >= 5:
                return True
        return False

    def _run(self, c, d, p):
        # length of the run of colour p through c along axis d
        b = self._b
        r = 1
        x = c + d
        while b[x] == p:
            r += 1
            x += d
        x = c - d
        while b[x] == p:
            r += 1
            x -= d
        return r

    # ---- playing a turn ---------------------------------------------------

    def _check(self, m, who):
        # Validation only: raises before anything is changed.
        if type(m) is not int:
            raise IllegalMove("%s: %r is not a cell index (0..80)" % (who, m))
        if m < 0 or m >= _NCELLS:
            raise IllegalMove("%s: %d is off the board (cells are 0..80)" % (who, m))
        if self.result != ONGOING:
            raise IllegalMove(
                "%s %s: no move is accepted after the game has ended (%s)"
                % (who, square_name(m), ("", "black won", "white won", "draw")[self.result])
            )
        v = self._b[_P[m]]
        if v != EMPTY:
            raise IllegalMove("%s: %s is occupied (%s)" % (who, square_name(m), _COLOUR[v]))

    def play(self, black, white):
        """Resolve one simultaneous turn. Raises IllegalMove, changing nothing, if either move is refused."""
        b = self._b
        # One cheap test for the usual legal turn; _check finds and words the
        # problem otherwise. x.__class__ rejects bools and floats like type()
        # does, for about half the cost of a call (`python -m tools.bench --only engine` times a turn).
        if (self.result != ONGOING or black.__class__ is not int or white.__class__ is not int
                or black < 0 or white < 0 or black >= _NCELLS or white >= _NCELLS
                or b[_P[black]] != EMPTY or b[_P[white]] != EMPTY):
            self._check(black, "black")
            self._check(white, "white")
        u = self._u
        u[0] = self.result
        u[1] = self.sudden_death
        u[2] = self.winning_black
        u[3] = self.winning_white
        u[4] = self.captures_black
        u[5] = self.captures_white
        u[6] = self._nwin
        log = self.log
        pb = _P[black]
        self._nranks = 0
        if black == white:
            # Collision: no turtle lands, an egg is laid as the newest egg.
            # Nothing can clamp (no newcomer), so straight to the win check.
            b[pb] = EGG
            self._eggs[(self._eh + self.egg_count) % _NCELLS] = pb
            self.egg_count += 1
            self.empty -= 1
            log[0] = EV_EGG
            log[1] = black
            log[2] = 0
            self.log_len = 3
            self.captures_black = 0
            self.captures_white = 0
            added = 0
        else:
            pw = _P[white]
            b[pb] = BLACK
            b[pw] = WHITE
            self.empty -= 2
            log[0] = EV_PLACE
            log[1] = black
            log[2] = white
            a = self._added
            a[0] = pb
            a[1] = pw
            added = self._settle()
        self._judge(added)
        self.turns += 1

    def _settle(self):
        # Capture and hatch in steps until a step closes no clamp or hatches
        # nothing. Newcomers of the current step are _added[start:end]; the
        # turn record is written as we go. Returns how many turtles were added
        # (placed or hatched) this turn, for the win check.
        b = self._b
        log = self.log
        add = self._added
        n = 3
        start = 0
        end = 2
        step = 0
        tb = 0
        tw = 0
        while True:
            step += 1
            # 1. Find every clamp closed by this step's newcomers on the board
            #    as it stands: nothing is removed while searching.
            s0 = n
            n += 3  # room for the EV_STEP entry, written only if a clamp closes
            cb = 0
            cw = 0
            i = start
            while i < end:
                c = add[i]
                p = b[c]
                # Enemy test in one operation: v & e is non-zero exactly for
                # the enemy turtle and for eggs (3), never for empty, own or
                # wall (4). Most neighbours are empty, so most directions
                # stop after one load.
                e = 3 - p
                mask = 0
                bit = 1
                for d in _DIRS:
                    if b[c + d] & e:
                        if b[c + d + d] & e and b[c + 3 * d] == p and not self._counted(c, c + 3 * d, start, end):
                            mask |= bit
                            if p == BLACK:
                                cb += 1
                            else:
                                cw += 1
                    bit <<= 1
                if mask:
                    log[n] = EV_CLAMP_BLACK if p == BLACK else EV_CLAMP_WHITE
                    log[n + 1] = UNPAD[c]
                    log[n + 2] = mask
                    n += 3
                i += 1
            if cb + cw == 0:
                n = s0
                break
            log[s0] = EV_STEP
            log[s0 + 1] = step
            log[s0 + 2] = 0
            tb += cb
            tw += cw
            # 2. Remove all middle pieces at once; a piece in several clamps
            #    goes once (the second visit finds the cell already empty).
            j = s0 + 3
            clamps_end = n
            while j < clamps_end:
                c = _P[log[j + 1]]
                mask = log[j + 2]
                for d in _DIRS:
                    if mask & 1:
                        n = self._take(c + d, n)
                        n = self._take(c + d + d, n)
                    mask >>= 1
                j += 3
            # 3. Hatch: contested eggs vanish, the surplus hatches for the
            #    player with more clamps; captures beyond the eggs are lost.
            m = cb if cb < cw else cw
            while m > 0 and self.egg_count > 0:
                c = self._pop_oldest()
                b[c] = EMPTY
                self.empty += 1
                log[n] = EV_VANISH
                log[n + 1] = UNPAD[c]
                log[n + 2] = 0
                n += 3
                m -= 1
            if cb > cw:
                m = cb - cw
                q = BLACK
            else:
                m = cw - cb
                q = WHITE
            start = end
            while m > 0 and self.egg_count > 0:
                c = self._pop_oldest()
                b[c] = q
                add[end] = c
                end += 1
                log[n] = EV_HATCH
                log[n + 1] = UNPAD[c]
                log[n + 2] = q
                n += 3
                m -= 1
            # 4. The hatchlings are the next step's only newcomers.
            if end == start:
                break
        self.log_len = n
        self.captures_black = tb
        self.captures_white = tw
        return end

    def _counted(self, c, a, start, end):
        # Ruling "distinct clamps": a clamp whose far end `a` is also a
        # newcomer of this step (necessarily of the clamper's colour) is
        # found from both ends; count it only from the lower cell.
        if a > c:
            return False
        add = self._added
        i = start
        while i < end:
            if add[i] == a:
                return True
            i += 1
        return False

    def _take(self, c, n):
        # Remove the piece on padded cell c (if still there) and record it.
        b = self._b
        v = b[c]
        if v == EMPTY:
            return n
        if v == EGG:
            self._ranks[self._nranks] = self._unlink(c)
            self._nranks += 1
        b[c] = EMPTY
        self.empty += 1
        log = self.log
        log[n] = EV_CAPTURED
        log[n + 1] = UNPAD[c]
        log[n + 2] = v
        return n + 3

    # ---- the egg ring ---------------------------------------------------------

    def _pop_oldest(self):
        # The oldest egg leaves the order (it vanishes or hatches).
        c = self._eggs[self._eh]
        self._eh = (self._eh + 1) % _NCELLS
        self.egg_count -= 1
        return c

    def _unlink(self, c):
        # Remove egg c from the middle of the order, keeping the others in
        # order; shifts whichever side is shorter. Returns its rank.
        eggs = self._eggs
        h = self._eh
        cnt = self.egg_count
        r = 0
        while eggs[(h + r) % _NCELLS] != c:
            r += 1
        if r < cnt - 1 - r:
            t = r
            while t > 0:  # older eggs move one place towards the tail
                eggs[(h + t) % _NCELLS] = eggs[(h + t - 1) % _NCELLS]
                t -= 1
            self._eh = (h + 1) % _NCELLS
        else:
            t = r
            while t < cnt - 1:  # newer eggs move one place towards the head
                eggs[(h + t) % _NCELLS] = eggs[(h + t + 1) % _NCELLS]
                t += 1
        self.egg_count = cnt - 1
        return r

    def _relink(self, c, r):
        # Inverse of _unlink: put egg c back at rank r.
        eggs = self._eggs
        cnt = self.egg_count
        h = (self._eh - 1) % _NCELLS
        self._eh = h
        t = 0
        while t < r:  # open the gap by moving the older eggs one place headwards
            eggs[(h + t) % _NCELLS] = eggs[(h + t + 1) % _NCELLS]
            t += 1
        eggs[(h + r) % _NCELLS] = c
        self.egg_count = cnt + 1

    # ---- winning -----------------------------------------------------------------

    def _judge(self, added):
        # Winning turtles, counted once the turn has settled. A run of five
        # or more now either holds a turtle added this turn (placed or
        # hatched) or is made of turtles that were already winning before
        # (captures only shorten runs). So only those cells are looked at:
        # the added ones and, in sudden death, the previous winners. Each
        # winning turtle is marked in the board (so a turtle in two lines
        # counts once) and listed in the spare list, which then becomes the
        # current one; the old list stays intact for undo().
        b = self._b
        add = self._added
        old = self._win
        new = self._wnew
        nold = self._nwin if self.sudden_death else 0
        total = nold + added
        n = 0
        wb = 0
        ww = 0
        i = 0
        while i < total:
            c = old[i] if i < nold else add[i - nold]
            i += 1
            p = b[c] & 7
            if p != BLACK and p != WHITE:
                continue
            for d in _AXES:
                # Most turtles have no neighbour of their colour on an axis:
                # two loads decide that.
                if b[c + d] & 7 != p and b[c - d] & 7 != p:
                    continue
                x = c + d
                while b[x] & 7 == p:
                    x += d
                y = c - d
                while b[y] & 7 == p:
                    y -= d
                if x - y > 5 * d:  # (x - y) / d - 1 turtles: five or more
                    y += d
                    while y != x:
                        v = b[y]
                        if v < _MARK:
                            b[y] = v | _MARK
                            new[n] = y
                            n += 1
                            if p == BLACK:
                                wb += 1
                            else:
                                ww += 1
                        y += d
        j = 0
        while j < n:
            b[new[j]] &= 7
            j += 1
        self._wnew = old
        self._win = new
        self._nwin = n
        self.winning_black = wb
        self.winning_white = ww
        if wb != ww:
            self.result = BLACK_WON if wb > ww else WHITE_WON
            self.sudden_death = False
        else:
            self.sudden_death = wb > 0
            if self.empty == 0:
                self.result = DRAW  # also a full board in sudden death (ruling)
                self.sudden_death = False

    # ---- undo, copy, setup -------------------------------------------------------

    def undo(self):
        """Take back the last play() exactly (one level)."""
        n = self.log_len
        if n == 0:
            raise ValueError("nothing to undo")
        b = self._b
        log = self.log
        nr = self._nranks
        while n > 0:
            n -= 3
            op = log[n]
            c = _P[log[n + 1]]
            if op == EV_HATCH or op == EV_VANISH:
                if op == EV_VANISH:
                    self.empty -= 1
                b[c] = EGG
                self._eh = (self._eh - 1) % _NCELLS
                self._eggs[self._eh] = c
                self.egg_count += 1
            elif op == EV_CAPTURED:
                v = log[n + 2]
                b[c] = v
                self.empty -= 1
                if v == EGG:
                    nr -= 1
                    self._relink(c, self._ranks[nr])
            elif op == EV_PLACE:
                b[c] = EMPTY
                b[_P[log[n + 2]]] = EMPTY
                self.empty += 2
            elif op == EV_EGG:
                b[c] = EMPTY
                self.egg_count -= 1
                self.empty += 1
        u = self._u
        self.result = u[0]
        self.sudden_death = u[1] == 1
        self.winning_black = u[2]
        self.winning_white = u[3]
        self.captures_black = u[4]
        self.captures_white = u[5]
        self._nwin = u[6]
        w = self._win  # the judge swapped the lists: swap back
        self._win = self._wnew
        self._wnew = w
        self.turns -= 1
        self.log_len = 0
        self._nranks = 0

    def copy_from(self, other):
        """Make this game an exact copy of `other`, reusing this game's buffers."""
        self._b[:] = other._b
        self._eggs[:] = other._eggs
        self._added[:] = other._added
        self._ranks[:] = other._ranks
        self.log[:] = other.log
        self._u[:] = other._u
        self._win[:] = other._win
        self._wnew[:] = other._wnew
        self._nwin = other._nwin
        self._eh = other._eh
        self.egg_count = other.egg_count
        self.empty = other.empty
        self.result = other.result
        self.sudden_death = other.sudden_death
        self.winning_black = other.winning_black
        self.winning_white = other.winning_white
        self.captures_black = other.captures_black
        self.captures_white = other.captures_white
        self.turns = other.turns
        self.log_len = other.log_len
        self._nranks = other._nranks

    def set_position(self, cells, eggs):
        """Set up a position: 81 cell values (0..3) and the egg cells oldest first.

        Raises ValueError, changing nothing, if the two do not agree. Winning
        counts, sudden death and the result are judged as after a turn.
        """
        if len(cells) != _NCELLS:
            raise ValueError("a position has 81 cells, got %d" % len(cells))
        n_eggs = 0
        for i in range(_NCELLS):
            v = cells[i]
            if type(v) is not int or v < EMPTY or v > EGG:
                raise ValueError("cell %s: %r is not 0..3" % (square_name(i), v))
            if v == EGG:
                n_eggs += 1
        seen = bytearray(_NCELLS)
        for c in eggs:
            if type(c) is not int or c < 0 or c >= _NCELLS or cells[c] != EGG:
                raise ValueError("egg order names %r, which is not an egg on the board" % (c,))
            if seen[c]:
                raise ValueError("egg order names %s twice" % square_name(c))
            seen[c] = 1
        if len(eggs) != n_eggs:
            raise ValueError("the board has %d eggs but the egg order lists %d" % (n_eggs, len(eggs)))
        self.reset()
        b = self._b
        empty = 0
        for i in range(_NCELLS):
            b[_P[i]] = cells[i]
            if cells[i] == EMPTY:
                empty += 1
        for k in range(len(eggs)):
            self._eggs[k] = _P[eggs[k]]
        self.egg_count = len(eggs)
        self.empty = empty
        # Judge as if every turtle had just been added: a full count.
        add = self._added
        n = 0
        for i in range(_NCELLS):
            if cells[i] == BLACK or cells[i] == WHITE:
                add[n] = _P[i]
                n += 1
        self._judge(n)
