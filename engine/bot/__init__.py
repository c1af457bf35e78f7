"""Computer opponent (easy/medium/hard): a resumable, seeded, allocation-free search of the position alone; device + CPython. This module is the Bot and its resumable move (start(), then step() through the phases in order) and, with LEVELS, SLICE_UNITS, board() and work(), the package's public API.

The package, one concern per module, in the order a move uses them:
  tables.py      level parameters; the scratch memory every Bot shares (Work, board())
  candidates.py  the root scan (heuristic, egg timing) and the candidate moves; easy's pick
  linetables.py  the padded board's lines, window classes and clamp segments as constants
                 (written by tools/bottables.py)
  evaluate.py    the window weights, the line walk and every score: one cell, a quiet pair,
                 a trial turn, the payoff
  solve.py       the matrix game: its payoffs (pairs played on the trial Game unless quiet), fictitious
                 play, the columns it gains (the collision column, the opponent's best
                 replies over the whole board: hard), the pick from the mixed strategy
  deepen.py      after a move: hard's answer searched one turn deeper (a hard search of
                 each pair's child position), while a person enters their move (firmware)
  viper.py       the line walk, one cell's line changes, a quiet pair's value, a trial
                 turn's play, undo and rescoring, fictitious play's batch (the move's and
                 the deeper answer's) and the clamp test as machine code, where the port
                 compiles viper (the RP2040, ESP32-S3); elsewhere the bytecode runs
Why each number is what it is: docs/bot-experiments.md; what a move costs
in fuel, time and heap: python -m tools.bench --only bot. MicroPython folds
const() per module, so a module declares each const it uses, and
host_tests/test_bot.py checks that a name has one value in all of them.
"""
from engine._compat import const, heap_lock, heap_unlock
from engine.bot.tables import LEVELS, PARAMS, work, board  # noqa: F401  (LEVELS, board: the public API)
from engine.bot import candidates, solve

# The engine's values (test_bot checks them): consts, not imported names,
# since every imported name is a slot in this module's globals on the device.
_BLACK = const(1)
_WHITE = const(2)
_ONGOING = const(0)
# Fields of a level's record (tables.PARAMS)
_P_ROWS = const(0)
_P_COLS = const(1)
_P_THREATS = const(4)
_P_ANT = const(5)
_P_REPLIES = const(6)

# Phases of a move (Bot._ph), in the order they run. Medium and hard:
# PRE SCAN TOP ANT_OPP ANT_OWN BRK DELTA PAIRS FP, then DELTA PAIRS FP
# again for a collision column (solve.collide) and for the opponent's best
# replies (REPLIES, hard), then PICK. Easy: PRE SCAN TOP.
_PH_IDLE = const(0)  # no move in progress
_PH_PRE = const(1)  # capture and threat values, egg timing (candidates.pre)
_PH_SCAN = const(2)  # the root scan, a line per item (candidates.scan; cursor _line)
_PH_TOP = const(3)  # the heuristic's best cells for both sides (candidates.top); easy picks here
_PH_ANT_OPP = const(4)  # the opponent's clamps of our candidates, as columns
_PH_ANT_OWN = const(5)  # our clamps of the opponent's candidates, as rows
_PH_BRK = const(6)  # a capture of ours that may break the opponent's four, as a row
_PH_DELTA = const(7)  # each candidate's line changes alone (solve.deltas; cursor _cand)
_PH_PAIRS = const(8)  # the payoff matrix (solve.pairs; cursor _pair)
_PH_FP = const(9)  # fictitious play (solve.fp; cursor _fpit)
_PH_REPLIES = const(10)  # the opponent's best replies over the board (solve.search; cursor _cell)
_PH_PICK = const(11)  # sample the mixed strategy (solve.pick)
_PH_DONE = const(12)  # the answer is in _res

# Resumable search: every piece of work is an item with a fixed cost in
# units (a unit is about 50 k wasm fuel). Costs are the measured worst of
# each item, each measured alone in one step() over all positions of the
# shared random games (hard), so step(SLICE_UNITS) stays inside one slice
# (python -m tools.bench --only bot prints the worst slice). The items of a
# phase with many are charged where they run (candidates.py, solve.py);
# the single-item phases here.
_U_STEP = const(2)  # entering step(): dispatch, locals
_U_PRE = const(17)  # the egg-timing prologue: 8 line walks
_U_TOP = const(28)  # the best candidates of both sides over 81 cells
_U_ANT = const(10)  # anticipatory captures for one side's candidates
_U_BRK = const(24)  # captures that may break the opponent's four (only with a four on the board)
_U_PICK = const(5)  # sampling the mixed strategy
_BREAKS = const(1)  # captures that may break the opponent's four, added to our candidates (at most)
SLICE_UNITS = 40  # units per firmware tick (tools.bench --only bot: the worst slice, in fuel and RP2040 time)


class Bot:
    """A computer player: `Bot(level, seed)`; `choose(game, color)` -> empty cell 0..80,
    or the same move in slices: `start(game, color)`, then `step(units)` until it is >= 0.

    A move (medium, hard), each phase a sequence of bounded items (see step):
    1. PRE + SCAN: one walk per line scores every 5-cell window (line
       potential), 4-cell segment (open clamp threat, hard) and four
       (a window one turtle short of five) of the position, and gives each
       empty cell a heuristic score for both colours: own lines, blocking,
       captures made and denied, what the oldest egg would do when a capture
       hatches it (egg timing: the next egg to hatch goes to the capturer).
    2. TOP, ANT_OPP, ANT_OWN, BRK: the best cells for us and for the
       opponent, plus anticipatory captures: cells that clamp a candidate
       only once it has landed (the opponent's answer to our move, and ours
       to theirs), and a capture of ours that may break the opponent's four.
    3. DELTA + PAIRS: every pair is played on the trial Game (play/undo)
       and scored: lines, clamp threats (hard), material, double fours,
       win/loss, squashed like a win chance. Quiet pairs reuse per-cell
       score changes; capture turns are rescored line by line (hard) or
       roughly (medium).
    4. FP: alternating fictitious play, to a small duality gap, gives a
       mixed strategy over the moves that no candidate reply beats at once
       (while there are any). If one move dominates, the opponent model
       gets that cell too (a collision) and the game is solved again.
    5. REPLIES (hard): the opponent's best replies to that strategy over the
       whole board join the columns, and the game is solved again.
    6. PICK: sample the strategy, near-equal moves mixed in only where that
       stays safe.
    Easy: the heuristic's top 4 with noise (a child's near-misses, not nonsense).

    No heap is allocated in start() or step(), and step() runs with the heap
    locked (micropython.heap_lock). Fuel per move and per slice, and the
    heap the bot holds: python -m tools.bench --only bot.
    """

    def __init__(self, level="hard", seed=0):
        if level not in PARAMS:
            raise ValueError("level %r: easy, medium or hard" % (level,))
        lv = self._lv = PARAMS[level]  # its record (tables.py), read by field where it is used
        self._kr = lv[_P_ROWS]  # (these two are read on every line walk and phase: copied)
        self._threats = lv[_P_THREATS]
        self._hi = 0
        self._lo = 0
        self.reseed(seed)
        # Shared by every Bot (see Work): a second bot (attract mode has two)
        # adds only this instance, and an easy bot never grows the arrays of
        # medium and hard (a trial Game among them).
        self._w = work(self._kr > 0)
        # Every attribute of a move exists from here: no dict growth in a move.
        self._ph = _PH_IDLE
        self._color = _BLACK
        self._res = -1
        self._egg = -1  # padded cell of the oldest egg, -1: none
        # the root scan (candidates.py)
        self._line = 0  # cursor of SCAN: the next line
        self._total = 0  # black's score of the root position (lines) ...
        self._f4 = 0  # ... its fours (packed black * 1024 + white) ...
        self._mat = 0  # ... and its material (black's turtles - white's)
        self._lf = 0  # evaluate.walk's fours result
        # the matrix (solve.py)
        self._nr = 0  # rows (our candidates) and columns (the opponent's)
        self._nc = 0
        self._j0 = 0  # the first column not yet in the matrix (a re-solve adds columns)
        self._cand = 0  # cursor of DELTA: rows, then columns
        self._pair = 0  # cursor of PAIRS: row * _MAXK + column
        self._half = 0  # a capture turn is played on the trial game, its rescoring due
        self._spent = 0  # units spent on pairs in this move (solve._PAIR_BUDGET)
        # the solve (solve.py)
        self._fpit = 0  # cursor of FP: iterations done (then what PICK and REPLIES weigh by)
        self._fpused = 0  # fictitious-play iterations used in this move
        self._fi = 0  # the row fictitious play plays next ...
        self._gap = 0  # ... and its duality gap so far
        self._redo = 0  # the collision column was considered in this move
        # the reply search (solve.py)
        self._rounds = 0  # rounds still to run in this move
        self._cell = 0  # cursor of REPLIES: pass * 81 + index in linetables.ORDER
        self._oi = 0  # the row a reply's evaluation is at
        self._ov = 0  # that reply's value so far
        self._rspent = 0  # units spent in this round (solve._REPLY_BUDGET)
        self._ob1 = 0
        self._ob2 = 0
        self._ob1v = 0
        self._ob2v = 0

    # --- PRNG: xorshift32 on two 16-bit halves, so every int stays small on
    # MicroPython (no big ints, no allocation) and CPython gives the same
    # sequence for the same seed.
    def reseed(self, seed):
        """Restart the random stream from seed (an int; the firmware draws one per game from os.urandom)."""
        seed = int(seed) & 0x3FFFFFFF
        self._hi = ((seed >> 16) & 0xFFFF) ^ 0x9E37  # so seeds 0, 1, 2 start far apart
        self._lo = seed & 0xFFFF
        if self._lo == 0:
            self._lo = 0x2545
        for _ in range(6):
            self._rand()

    def _rand(self):
        """Next 30-bit pseudo-random number."""
        hi = self._hi
        lo = self._lo
        # x ^= x << 13
        nh = ((hi << 13) | (lo >> 3)) & 0xFFFF
        nl = (lo << 13) & 0xFFFF
        hi ^= nh
        lo ^= nl
        # x ^= x >> 17
        lo ^= hi >> 1
        # x ^= x << 5
        nh = ((hi << 5) | (lo >> 11)) & 0xFFFF
        nl = (lo << 5) & 0xFFFF
        hi ^= nh
        lo ^= nl
        self._hi = hi
        self._lo = lo
        return ((hi & 0x3FFF) << 16) | lo

    # --- the move ------------------------------------------------------------
    def choose(self, game, color):
        """An empty cell (0..80) for `color` (BLACK or WHITE) in `game`'s position: start() + step() until done.

        Honest by construction: the only input is the position on the board;
        there is no parameter through which the opponent's pending move could
        arrive.
        """
        self.start(game, color)
        c = self.step(SLICE_UNITS)
        while c < 0:
            c = self.step(SLICE_UNITS)
        return c

    def start(self, game, color):
        """Begin a move for `color` in `game`'s position (read now, never again). ValueError if there is none."""
        if color != _BLACK and color != _WHITE:
            raise ValueError("color: BLACK (1) or WHITE (2)")
        if game.result != _ONGOING or game.empty == 0:
            raise ValueError("no move: the game is over")
        w = self._w
        w.owner = self
        # One slice copy instead of 81 cell() calls.
        game.copy_padded(w.bd)
        e = game.egg(0) if game.egg_count else -1
        self._egg = e + 12 + 2 * (e // 9) if e >= 0 else -1  # its padded cell (engine.PAD[e])
        if self._kr and game is not w.g:
            w.g.copy_from(game)  # once per move (none when given board()); each pair is play() + undo()
        self._color = color
        self._res = -1
        self._ph = _PH_PRE
        self._half = 0
        self._spent = 0
        self._redo = 0
        self._rounds = self._lv[_P_REPLIES]
        self._fpused = 0

    def step(self, units):
        """Do at most `units` work units of the move begun by start(); -1 while thinking, then the cell (0..80).

        Every item of work has a fixed cost (the _U_* constants) and runs
        whole, so the result is the same however the move is sliced; the
        first item of a call runs even if it costs more than `units`.
        After the answer, further calls return it again.

        A phase of many items (a function of candidates or solve)
        runs them while they fit and returns the units left when the phase
        is done (the next phase starts here), or None when its next item
        does not fit: the slice ends there.
        """
        ph = self._ph
        if ph == _PH_DONE:
            return self._res
        if ph == _PH_IDLE:
            raise ValueError("no move started: call start()")
        w = self._w
        if w.owner is not self:
            self._ph = _PH_IDLE
            raise ValueError("another Bot's move began: start() again")
        # The heap is locked while the move's items run: MicroPython then
        # keeps every function's frame on the stack instead of allocating
        # the bigger ones on the heap for each call, whose cost grows with the
        # heap's fragmentation (tools.bench --only bot); and anything that did
        # allocate in a move would raise MemoryError here.
        heap_lock()
        try:
            return self._items(units - _U_STEP)
        finally:
            heap_unlock()

    def _items(self, left):
        """step()'s work: items while they fit in `left` units; -1, or the cell once the answer is ready."""
        w = self._w
        first = True  # the first item runs whatever its cost: every call makes progress
        while True:
            ph = self._ph
            if ph == _PH_PRE:
                if not first and left < _U_PRE:
                    return -1
                candidates.pre(self)
                left -= _U_PRE
                self._line = 0
                self._ph = _PH_SCAN
            elif ph == _PH_SCAN:
                left = candidates.scan(self, left, first)
                if left is None:
                    return -1  # the next line does not fit: the slice ends here
                self._ph = _PH_TOP
            elif ph == _PH_TOP:
                if not first and left < _U_TOP:
                    return -1
                if not self._kr:
                    self._res = candidates.easy(self)
                    self._ph = _PH_DONE
                    return self._res
                candidates.top(self, self._color, self._kr, self._lv[_P_COLS])
                w.clean = False  # the matrix arrays are about to be written over them (see Work.grow)
                left -= _U_TOP
                self._j0 = 0
                self._cand = 0
                self._ph = _PH_ANT_OPP if self._lv[_P_ANT] else _PH_DELTA
            elif ph == _PH_ANT_OPP:
                if not first and left < _U_ANT:
                    return -1
                candidates.anticipate(self, False)
                left -= _U_ANT
                self._ph = _PH_ANT_OWN
            elif ph == _PH_ANT_OWN:
                if not first and left < _U_ANT:
                    return -1
                candidates.anticipate(self, True)
                left -= _U_ANT
                self._ph = _PH_BRK
            elif ph == _PH_BRK:
                if not first and left < _U_BRK:
                    return -1
                self._nr = candidates.breaks(self, w.rows, self._nr, self._color, _BREAKS)
                left -= _U_BRK
                self._ph = _PH_DELTA
            elif ph == _PH_DELTA:
                left = solve.deltas(self, left, first)
                if left is None:
                    return -1
                self._pair = self._j0
                self._ph = _PH_PAIRS
            elif ph == _PH_PAIRS:
                left = solve.pairs(self, left, first)
                if left is None:
                    return -1
                self._fpit = 0
                self._ph = _PH_FP
            elif ph == _PH_FP:
                left = solve.fp(self, left, first)
                if left is None:
                    return -1
                if solve.collide(self):  # solve again with the dominant row's cell as a column
                    self._cand = self._nr + self._j0
                    self._ph = _PH_DELTA
                elif solve.begin(self):
                    self._ph = _PH_REPLIES
                else:
                    self._ph = _PH_PICK
            elif ph == _PH_REPLIES:
                left = solve.search(self, left, first)
                if left is None:
                    return -1
                if solve.join(self):  # solve again with the replies that beat the strategy
                    self._cand = self._nr + self._j0
                    self._ph = _PH_DELTA
                else:
                    self._ph = _PH_PICK
            else:  # _PH_PICK
                if not first and left < _U_PICK:
                    return -1
                self._res = w.rows[solve.pick(self)]
                self._ph = _PH_DONE
                return self._res
            first = False
