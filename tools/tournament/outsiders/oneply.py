"""The `oneply` outsider: a 1-ply matrix-game searcher over every likely pair, with a run-and-ends evaluation of its own."""
import random

from engine import Game, BLACK, WHITE, EMPTY, EGG, ONGOING, BLACK_WON, WHITE_WON, PAD, UNPAD
from tools.tournament.outsiders.matrix import solve, sample

# Its evaluation looks at maximal runs of one colour and their ends (not at
# five-cell windows like twoply's), counts each side's exact winning cells
# (a turtle there makes a run of five or more, gaps included), the clamps
# each could close and the egg that hatches next. Written independently of
# twoply's and of the tournament's matrix1.

WIN = 50000.0
AXES = (1, 11, 12, 10)  # padded E, S, SE, SW
DIRS = (-11, -10, 1, 12, 11, 10, -1, -12)
# RUN[length][open ends]: a run with room for five
RUN = (
    (0, 0, 0),
    (0, 1, 3),
    (0, 6, 30),
    (0, 45, 320),
    (0, 500, 2500),
)
PAIRS_PER_SECOND = 2400  # pairs evaluated per second of budget (a fixed calibration, so seeds replay exactly)


class OnePlyPlayer:
    """Every pair of the two sides' likely cells played on the engine; the position after it valued by `evaluate`;
    the matrix game solved and the mixed strategy sampled with the player's seed."""

    def __init__(self, seed, budget=0.25):
        self.rng = random.Random(seed)
        pairs = budget * PAIRS_PER_SECOND
        self.width = max(6, min(40, int(pairs ** 0.5)))
        self.g = Game()
        self.buf = bytearray(121)

    def choose(self, game, color):
        buf = self.buf
        game.copy_padded(buf)
        mine = self.cells(buf, game, color)
        theirs = self.cells(buf, game, 3 - color)
        bl, wh = (mine, theirs) if color == BLACK else (theirs, mine)
        g = self.g
        g.copy_from(game)
        m = []
        for a in bl:
            row = []
            for b in wh:
                g.play(a, b)
                row.append(self.value(g))
                g.undo()
            m.append(row)
        _, p, q = solve(m)
        if color == BLACK:
            return bl[sample(p, self.rng)]
        return wh[sample(q, self.rng)]

    def value(self, g):
        r = g.result
        if r != ONGOING:
            return WIN if r == BLACK_WON else (-WIN if r == WHITE_WON else 0.0)
        g.copy_padded(self.buf)
        egg0 = PAD[g.egg(0)] if g.egg_count else -1
        return evaluate(self.buf, egg0)

    def cells(self, buf, game, color):
        """The side's likely cells: its winning cells, the other's, clamp cells, then the best near the pieces."""
        other = 3 - color
        must = set(win_cells(buf, color)) | set(win_cells(buf, other))
        scored = []
        for p in range(12, 109):
            if buf[p] != EMPTY:
                continue
            near = 0
            for d in DIRS:
                v = buf[p + d]
                if v == color:
                    near += 3
                elif v == other:
                    near += 2
                elif v == EGG:
                    near += 1
                if v != 4 and buf[p + 2 * d] in (color, other):
                    near += 1
            cl = clamps_at(buf, p, color)
            ocl = clamps_at(buf, p, other)
            if cl or ocl:
                must.add(p)  # a capture, or a collision that stops one
            if near or cl:
                s = near + 4 * cl + 3 * ocl + 2 * (_longest(buf, p, color) + _longest(buf, p, other))
                scored.append((-s, p))
        scored.sort()
        out = [UNPAD[p] for p in sorted(must)]
        for _, p in scored:
            if len(out) >= self.width:
                break
            c = UNPAD[p]
            if c not in out:
                out.append(c)
        if not out:
            out = [UNPAD[p] for p in (60, 59, 61, 48, 72) if buf[p] == EMPTY][:1] or \
                [i for i in range(81) if game.cell(i) == EMPTY][:1]
        return out


def _longest(buf, p, color):
    best = 0
    for d in AXES:
        n = 0
        x = p + d
        while buf[x] == color:
            n += 1
            x += d
        x = p - d
        while buf[x] == color:
            n += 1
            x -= d
        if n > best:
            best = n
    return best


def clamps_at(buf, p, color):
    """Clamps a newcomer of `color` on padded cell p would close (8 directions)."""
    e = 3 - color
    n = 0
    for d in DIRS:
        a = buf[p + d]
        if a == e or a == EGG:
            b = buf[p + 2 * d]
            if (b == e or b == EGG) and buf[p + 3 * d] == color:
                n += 1
    return n


def win_cells(buf, color):
    """Padded empty cells where a turtle of `color` makes a run of five or more."""
    out = []
    for p in range(12, 109):
        if buf[p] != EMPTY:
            continue
        for d in AXES:
            n = 1
            x = p + d
            while buf[x] == color:
                n += 1
                x += d
            x = p - d
            while buf[x] == color:
                n += 1
                x -= d
            if n >= 5:
                out.append(p)
                break
    return out


def evaluate(buf, egg0):
    """Black's value of the padded board buf (egg0: padded cell of the oldest egg, -1 if none)."""
    side = [0.0, 0.0, 0.0]
    for d in AXES:
        for p in range(12, 109):
            v = buf[p]
            if (v != BLACK and v != WHITE) or buf[p - d] == v:
                continue
            n = 1
            x = p + d
            while buf[x] == v:
                n += 1
                x += d
            if n >= 5:
                continue  # a standing five only exists in sudden death: the counts, not the shape, decide there
            # room: own or empty cells either side, up to what a five needs
            room = n
            opens = 0
            y = x
            while buf[y] == EMPTY or buf[y] == v:
                if y == x:
                    opens += 1
                room += 1
                y += d
                if room >= 9:
                    break
            y = p - d
            while buf[y] == EMPTY or buf[y] == v:
                if y == p - d:
                    opens += 1
                room += 1
                y -= d
                if room >= 9:
                    break
            if room >= 5:
                side[v] += RUN[n][opens]
    score = side[BLACK] - side[WHITE]
    # clamps: where each side could capture next turn, and what
    ccells = ([], [], [])
    taken = (set(), set(), set())
    for p in range(12, 109):
        if buf[p] != EMPTY:
            continue
        for color in (BLACK, WHITE):
            e = 3 - color
            for d in DIRS:
                a = buf[p + d]
                if a == e or a == EGG:
                    b = buf[p + 2 * d]
                    if (b == e or b == EGG) and buf[p + 3 * d] == color:
                        ccells[color].append(p)
                        taken[color].add(p + d)
                        taken[color].add(p + 2 * d)
    score += 40 * (len(ccells[BLACK]) - len(ccells[WHITE]))
    groups = [0, 0, 0]
    for color in (BLACK, WHITE):
        other = 3 - color
        wins = win_cells(buf, color)
        hatch = 0
        if egg0 >= 0 and ccells[color] and _longest(buf, egg0, color) >= 4:
            # the oldest egg hatches for whoever captures alone, and it finishes a five: one threat if the other
            # side can capture too (its capture makes the egg vanish), else one per clamp cell
            hatch = 1 if ccells[other] else len(set(ccells[color]))
        g = len(wins) + hatch
        if g > 1 and wins and _breakable(buf, wins, color, taken[other]):
            g = 1  # a capture of a turtle in the line answers all its winning cells at once
        groups[color] = g
    nb = groups[BLACK]
    nw = groups[WHITE]
    if nb and not nw:
        score += 600 + (0.85 * WIN * (1 - 1.0 / nb) if nb > 1 else 0)
    elif nw and not nb:
        score -= 600 + (0.85 * WIN * (1 - 1.0 / nw) if nw > 1 else 0)
    else:
        score += 200 * (nb - nw)
    return score


def _breakable(buf, wins, color, taken):
    """True if the other side can capture a turtle of every line those winning cells would finish."""
    for w in wins:
        ok = False
        for d in AXES:
            line = []
            x = w + d
            while buf[x] == color:
                line.append(x)
                x += d
            x = w - d
            while buf[x] == color:
                line.append(x)
                x -= d
            if len(line) >= 4 and not any(c in taken for c in line):
                ok = True
        if ok:
            return False
    return True
