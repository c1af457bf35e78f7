"""Hard's answer searched one turn deeper while a person enters their move: each pair of hard's most played moves and the opponent's replies is answered by a hard search of the position after it, and that matrix is solved again; resumable and allocation-free like the Bot."""
from array import array

from engine._compat import const, heap_lock, heap_unlock
from engine.bot import Bot, solve

_ONGOING = const(0)  # the engine's value (test_bot checks it)
_MAXK = const(10)  # most candidates per side; the matrix's row stride (tables.py)
# Hard's most played moves (fictitious-play counts) whose every reply is searched again. Depth only paid
# with most of the matrix: 2 rows x 4 replies gained nothing, 4 rows x every reply did (docs/bot-experiments.md,
# "Against the outsiders": the prototype's rows, keys P and P2, and this module's, key D).
ROWS = 4
ITERS = 3000  # fictitious-play iterations of the deeper matrix, as the prototype measured (a float solve there)
_D_BATCH = const(100)  # iterations per step() (a few ms on the Pico)

_PH_DONE = const(12)  # the Bot's phase once its answer is ready (engine/bot/__init__.py)
# Phases (Deepen._ph)
_D_IDLE = const(0)  # nothing begun
_D_NEXT = const(1)  # the next pair's position is set up (cursor _k)
_D_CHILD = const(2)  # a hard search of that position runs (the child Bot)
_D_FP = const(3)  # the deeper matrix is solved (fictitious play, _D_BATCH iterations a step)
_D_DONE = const(4)  # the deeper answer is in _res


def child_seed(bot):
    """The child searches' seed for bot's move just made: read from its random stream, not drawn from it, so
    bot's own answers are the same whether a move was deepened or not (on core 1 or in the ticks)."""
    return ((bot._hi << 14) ^ bot._lo) & 0x3FFFFFFF


class Deepen:
    """`Deepen(bot)` for a hard `bot`. Once bot's move in `game` is done (its answer taken), `begin(game, color)`
    reads bot's solved matrix; `step(units)` then returns -1 while it searches and the deeper cell once it is
    ready; `best()` is the cell to play at any moment: the deeper one if ready, else bot's own answer.

    `game` is read again for every pair (no copy: a Game is 2 KB of heap), so the caller leaves it as it is
    until the deeper answer is ready or its last step() has returned. Each pair (one of hard's ROWS
    most played moves, one of the opponent's columns) is played on the trial Game and a second hard Bot
    searches the position after it for the same side: the value of its solved matrix game replaces the
    pair's payoff (a pair that ends the game keeps its own). The ROWS x columns matrix of those values
    is then solved by ITERS iterations of fictitious play and a row drawn by how often it was played.

    Honest like the Bot: what it reads is the position and bot's matrix for it; the time it gets (how
    long a person takes to enter their move) decides only whether the deeper answer is ready.
    No heap is allocated in begin() or step(); the child search runs with the heap locked.
    """

    def __init__(self, bot):
        if bot._kr == 0:
            raise ValueError("only a matrix level (medium, hard) can be deepened")
        self.bot = bot
        self.child = Bot("hard", 0)  # shares bot's Work (one move at a time); reseeded at begin(): child_seed()
        self.root = None  # the Game of bot's move (the caller's, read only)
        self.rows = bytearray(ROWS)  # the rows deepened: bot's candidate cells ...
        self.cols = bytearray(_MAXK)  # ... and the opponent's, as bot's matrix had them
        self.m = array("i", bytes(4 * ROWS * _MAXK))  # bot's payoffs of those pairs, then their deeper values
        self.n = 0  # rows deepened
        self.nc = 0  # columns
        self.k = 0  # cursor: the pair being searched, row * _MAXK + column
        self.children = 0  # child searches run in this move (tools.tournament counts them)
        self._color = 1
        self._ph = _D_IDLE
        self._res = -1  # bot's own answer from begin(), the deeper one once _D_DONE
        self._it = 0  # fictitious play: iterations done ...
        self._fi = 0  # ... and the row it plays next
        # the final solve's state for solve.fp_batch (row, iterations, stop, rows, columns, -1: no gap stop, gap)
        self._s = array("i", bytes(28))

    def begin(self, game, color):
        """Read bot's finished move (its answer, matrix and fictitious-play counts) for `color` in `game`, the
        position it was started on; returns bot's answer. ValueError if bot has no finished move."""
        b = self.bot
        w = b._w
        cell = b._res
        if b._ph != _PH_DONE or w.owner is not b or cell < 0:
            raise ValueError("begin() needs the bot's finished move")
        if game is w.g:
            raise ValueError("begin(): the position must be the caller's Game, not the trial Game (board())")
        self._color = color
        self._res = cell
        self._ph = _D_DONE
        self.children = 0
        nr = b._nr
        nc = b._nc
        if nr < 2:
            return cell  # a single move: nothing to weigh
        self.root = game
        self.child.reseed(child_seed(b))
        # The ROWS rows played most (the earlier of equal ones), kept in their order.
        rcnt = w.rcnt
        used = 0  # bit i: row i taken
        n = ROWS if nr > ROWS else nr
        for t in range(n):
            bi = -1
            for i in range(nr):
                if not (used >> i) & 1 and (bi < 0 or rcnt[i] > rcnt[bi]):
                    bi = i
            used |= 1 << bi
        t = 0
        m = self.m
        wm = w.m
        for i in range(nr):
            if (used >> i) & 1:
                self.rows[t] = w.rows[i]
                for j in range(nc):
                    m[t * _MAXK + j] = wm[i * _MAXK + j]
                t += 1
        for j in range(nc):
            self.cols[j] = w.cols[j]
        self.n = n
        self.nc = nc
        self.k = 0
        self._ph = _D_NEXT
        return cell

    def best(self):
        """The cell to play now: the deeper answer once ready, else bot's own (-1 before begin())."""
        return self._res

    def done(self):
        """True once the deeper answer is ready (or there was nothing to deepen)."""
        return self._ph == _D_DONE

    def step(self, units):
        """At most one item: set up the next pair, one slice of its child search (at most `units`, as
        Bot.step), or _D_BATCH iterations of the final solve. -1 while searching, then the deeper cell."""
        ph = self._ph
        if ph == _D_DONE:
            return self._res
        if ph == _D_IDLE:
            raise ValueError("nothing to deepen: call begin()")
        if ph == _D_CHILD:
            if self.child.step(units) >= 0:
                self._value()
            return -1
        heap_lock()
        try:
            if ph == _D_NEXT:
                self._next()
            else:
                self._solve()
        finally:
            heap_unlock()
        return self._res if self._ph == _D_DONE else -1

    def _next(self):
        # Set up pair k on the trial Game: a pair that ends the game keeps bot's payoff, else a child starts.
        b = self.bot
        g = b._w.g
        nc = self.nc
        k = self.k
        while True:
            if k % _MAXK >= nc:
                k += _MAXK - k % _MAXK
            if k >= self.n * _MAXK:
                self.k = k
                self._begin_solve()
                return
            g.copy_from(self.root)
            r = self.rows[k // _MAXK]
            c = self.cols[k % _MAXK]
            if self._color == 1:
                solve._play(g, r, c)  # (the bot's trial turn: machine code where solve has it)
            else:
                solve._play(g, c, r)
            if g.result == _ONGOING and g.empty:
                self.k = k
                self.child.start(g, self._color)
                self.children += 1
                self._ph = _D_CHILD
                return
            k += 1

    def _value(self):
        # The child's answer is ready: its matrix game's value for our side replaces pair k's payoff.
        c = self.child
        w = c._w
        # min over the columns of what the rows' frequencies earn (solve.fp's guaranteed value; a hard move
        # always ends with at least one iteration of its last solve, so _fpit > 0)
        it = c._fpit
        v = 0x3FFFFFFF
        for j in range(c._nc):
            x = w.cacc[j] // it
            if x < v:
                v = x
        self.m[self.k] = v
        self.k += 1
        self._ph = _D_NEXT

    def _begin_solve(self):
        # The deeper matrix is solved by fictitious play in bot's scratch arrays (its own move is over).
        w = self.bot._w
        w.clean = False  # (the counts live in the heuristic arrays: see tables.Work.grow)
        for i in range(self.n):
            w.racc[i] = 0
            w.rcnt[i] = 0
        for j in range(self.nc):
            w.cacc[j] = 0
        w.g.copy_from(self.root)  # the trial Game holds the position again, as after bot's answer
        self._it = 0
        self._fi = 0
        self._ph = _D_FP

    def _solve(self):
        # _D_BATCH iterations of alternating fictitious play, ITERS in all (solve.fp_batch, with no stop on the
        # duality gap: the prototype measured none), then a row drawn by how often it was played.
        b = self.bot
        w = b._w
        rcnt = w.rcnt
        n = self.n
        it = self._it
        stop = it + _D_BATCH
        if stop > ITERS:
            stop = ITERS
        s = self._s
        s[0] = self._fi
        s[1] = it
        s[2] = stop
        s[3] = n
        s[4] = self.nc
        s[5] = -1
        solve.fp_batch(w, self.m, s)
        i = s[0]
        it = s[1]
        self._fi = i
        self._it = it
        if it < ITERS:
            return
        r = self.child._rand() % ITERS
        for ii in range(n):
            r -= rcnt[ii]
            if r < 0:
                self._res = self.rows[ii]
                break
        self._ph = _D_DONE
