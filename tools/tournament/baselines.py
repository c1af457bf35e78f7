"""Host-only opponents for tournaments: random, greedy, the one-ply matrix-game searcher (matrix1) and an exploiter of hard."""
import random

from engine import Game, BLACK, WHITE, EMPTY, EGG, ONGOING, BLACK_WON, WHITE_WON, DRAW, PAD
from engine.bot import Bot

_LINE_DIRS = ((0, 1), (1, 0), (1, 1), (1, -1))
_RAY_DIRS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _empties(game):
    return [i for i in range(81) if game.cell(i) == EMPTY]


class RandomPlayer:
    """Uniformly random empty cell."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, game, color):
        return self.rng.choice(_empties(game))


def _run_len(game, i, color):
    """Longest line of `color` through empty cell i if `color` played there."""
    r0, c0 = divmod(i, 9)
    best = 0
    for dr, dc in _LINE_DIRS:
        n = 1
        for s in (1, -1):
            r, c = r0 + s * dr, c0 + s * dc
            while 0 <= r < 9 and 0 <= c < 9 and game.cell(r * 9 + c) == color:
                n += 1
                r += s * dr
                c += s * dc
        best = max(best, n)
    return best


def _clamps(game, i, color):
    """Clamps `color` would close by placing a newcomer on empty cell i."""
    enemy = WHITE if color == BLACK else BLACK
    r0, c0 = divmod(i, 9)
    n = 0
    for dr, dc in _RAY_DIRS:
        r3, c3 = r0 + 3 * dr, c0 + 3 * dc
        if not (0 <= r3 < 9 and 0 <= c3 < 9):
            continue
        x = game.cell((r0 + dr) * 9 + c0 + dc)
        y = game.cell((r0 + 2 * dr) * 9 + c0 + 2 * dc)
        a = game.cell(r3 * 9 + c3)
        if a == color and x in (enemy, EGG) and y in (enemy, EGG):
            n += 1
    return n


class GreedyPlayer:
    """Baseline: win now, else block a win, else capture most, else extend the longest own line."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, game, color):
        enemy = WHITE if color == BLACK else BLACK
        cells = _empties(game)
        self.rng.shuffle(cells)  # random tie-breaking
        for c in cells:
            if _run_len(game, c, color) >= 5:
                return c
        for c in cells:
            if _run_len(game, c, enemy) >= 5:
                return c
        best, bestc = 0, None
        for c in cells:
            k = _clamps(game, c, color)
            if k > best:
                best, bestc = k, c
        if bestc is not None:
            return bestc
        return max(cells, key=lambda c: (_run_len(game, c, color), -abs(c // 9 - 4) - abs(c % 9 - 4)))


# --- matrix1: the one-ply simultaneous-move searcher of issue 12 ------------------
# An independent host implementation (not engine.bot with other numbers), so
# beating it says something about the device bot.

def _windows():
    """Every 5-cell window of the board as padded indices."""
    out = []
    for dr, dc in _LINE_DIRS:
        for r in range(9):
            for c in range(9):
                cells = [(r + k * dr, c + k * dc) for k in range(5)]
                if all(0 <= y < 9 and 0 <= x < 9 for y, x in cells):
                    out.append(tuple(PAD[y * 9 + x] for y, x in cells))
    return tuple(out)


WINDOWS = _windows()
_WIN_OF_CELL = {}
for _w in WINDOWS:
    for _p in _w:
        _WIN_OF_CELL.setdefault(_p, []).append(_w)
del _w, _p

_WW = (0, 1, 8, 50, 400, 100000)  # a window with k turtles of one colour and nothing else
_GAIN = (1, 6, 40, 300, 20000)  # heuristic: adding a turtle to a window holding k own turtles
_MAT1 = 25  # one turtle of material
_WIN1 = 1000000


def _window_score(buf, w, color):
    """color's view of one window: + own-only windows, - enemy-only windows."""
    own = opp = 0
    for p in w:
        v = buf[p]
        if v == color:
            own += 1
        elif v == EMPTY:
            continue
        elif v == EGG:
            return 0
        else:
            opp += 1
    if opp == 0:
        return _WW[own]
    if own == 0:
        return -_WW[opp]
    return 0


def static_eval(game, color, buf):
    """color's static evaluation of the position: result, line windows, material."""
    res = game.result
    if res != ONGOING:
        if res == DRAW:
            return 0
        return _WIN1 if res == color else -_WIN1
    game.copy_padded(buf)
    s = 0
    for w in WINDOWS:
        s += _window_score(buf, w, color)
    mat = 0
    for p in PAD:
        v = buf[p]
        if v == color:
            mat += 1
        elif v == 3 - color:
            mat -= 1
    return s + _MAT1 * mat


def candidates(game, color, k, buf):
    """The k empty cells with the best heuristic for color: own lines, blocks, clamps, centre."""
    game.copy_padded(buf)
    enemy = 3 - color
    scored = []
    for i in range(81):
        p = PAD[i]
        if buf[p] != EMPTY:
            continue
        h = 4 - max(abs(i // 9 - 4), abs(i % 9 - 4))
        for w in _WIN_OF_CELL[p]:
            own = opp = egg = 0
            for q in w:
                v = buf[q]
                if v == color:
                    own += 1
                elif v == enemy:
                    opp += 1
                elif v == EGG:
                    egg += 1
            if egg:
                continue
            if opp == 0:
                h += _GAIN[own]
            elif own == 0:
                h += (_GAIN[opp] * 3) // 4
        h += 150 * _clamps(game, i, color) + 100 * _clamps(game, i, enemy)
        scored.append((h, i))
    scored.sort(reverse=True)
    return [i for _, i in scored[:k]]


def solve_matrix(m, iters=400):
    """Mixed strategy of the row player of zero-sum payoff matrix m (fictitious play): row frequencies."""
    nr, nc = len(m), len(m[0])
    racc = [0.0] * nr
    cacc = [0.0] * nc
    rcnt = [0] * nr
    i = j = 0
    for _ in range(iters):
        rcnt[i] += 1
        row = m[i]
        for jj in range(nc):
            cacc[jj] += row[jj]
        for ii in range(nr):
            racc[ii] += m[ii][j]
        i = max(range(nr), key=racc.__getitem__)
        j = min(range(nc), key=cacc.__getitem__)
    return [c / iters for c in rcnt]


class Matrix1Player:
    """Issue 12's baseline: a matrix game over each side's ten best cells, a static evaluation of each
    pair played out, solved for a mixed strategy by fictitious play and sampled."""

    K = 10

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.g = Game()
        self.buf = bytearray(121)

    def payoffs(self, game, color, mine, theirs):
        g = self.g
        g.copy_from(game)
        m = []
        for r in mine:
            row = []
            for c in theirs:
                if color == BLACK:
                    g.play(r, c)
                else:
                    g.play(c, r)
                row.append(static_eval(g, color, self.buf))
                g.undo()
            m.append(row)
        return m

    def choose(self, game, color):
        mine = candidates(game, color, self.K, self.buf)
        theirs = candidates(game, 3 - color, self.K, self.buf)
        p = solve_matrix(self.payoffs(game, color, mine, theirs))
        x = self.rng.random()
        for cell, q in zip(mine, p):
            x -= q
            if x < 0:
                return cell
        return mine[0]


class ExploiterPlayer:
    """Predicts a device bot level by running it under seeds of its own (it never learns the real one),
    then best-responds to that predicted distribution over every empty cell (static evaluation)."""

    SAMPLES = 12

    def __init__(self, seed, target="hard"):
        self.rng = random.Random(seed)
        self.model = Bot(target, 0)
        self.g = Game()
        self.buf = bytearray(121)

    def predict(self, game, color):
        """{cell: times chosen} of the target playing color here, over SAMPLES seeds."""
        counts = {}
        for _ in range(self.SAMPLES):
            self.model.reseed(self.rng.randrange(1 << 30))
            c = self.model.choose(game, color)
            counts[c] = counts.get(c, 0) + 1
        return counts

    def choose(self, game, color):
        counts = self.predict(game, 3 - color)
        g = self.g
        g.copy_from(game)
        best, bestv = None, None
        for r in _empties(game):
            v = 0
            for c, n in counts.items():
                if color == BLACK:
                    g.play(r, c)
                else:
                    g.play(c, r)
                v += n * static_eval(g, color, self.buf)
                g.undo()
            if bestv is None or v > bestv or (v == bestv and self.rng.random() < 0.5):
                best, bestv = r, v
        return best
