"""Each level's parameters and where the bot works: the scratch memory every Bot shares (Work, work(), board())."""
from array import array

from engine._compat import const

LEVELS = ("easy", "medium", "hard")


# Each level's parameters: a record of 7 bytes, read by field (the _P_*
# consts, declared again where a field is read; test_bot checks they agree).
# Named where they are set:
#   rows     own candidate moves: the payoff matrix's rows (0: easy, no matrix)
#   cols     the opponent's candidate moves: its columns
#   iters    fictitious-play iterations for the whole move (solve.py), in tens
#   noise    payoff noise, +- points
#   threats  clamp-threat terms in the evaluation, and exact rescoring of capture turns
#   ant      anticipatory captures added to the candidates, per side, at most
#   replies  rounds of the opponent's best-reply search over the whole board (solve.py)
# Chosen by tournaments against the exploiter and matrix1 baselines: the
# rounds, their figures and the commands are in docs/bot-experiments.md.
_P_ROWS = const(0)
_P_COLS = const(1)
_P_ITERS = const(2)
_P_NOISE = const(3)
_P_THREATS = const(4)
_P_ANT = const(5)
_P_REPLIES = const(6)


def _level(rows, cols, iters, noise, threats, ant, replies):
    """A level's record (bytes: a dict per level holds several times the heap on the device)."""
    rec = bytearray(7)
    rec[_P_ROWS] = rows
    rec[_P_COLS] = cols
    rec[_P_ITERS] = iters // 10
    rec[_P_NOISE] = noise
    rec[_P_THREATS] = threats
    rec[_P_ANT] = ant
    rec[_P_REPLIES] = replies
    return bytes(rec)


PARAMS = {
    "easy": _level(rows=0, cols=0, iters=0, noise=0, threats=0, ant=0, replies=0),
    "medium": _level(rows=3, cols=3, iters=40, noise=3, threats=0, ant=1, replies=0),
    "hard": _level(rows=8, cols=6, iters=400, noise=4, threats=1, ant=1, replies=2),
}
del _level  # (run once: its bytecode would stay on the heap)


# --- the scratch memory ----------------------------------------------------------------
_MAXK = const(10)  # most candidates per side (rows and columns of the matrix)
_NLINES = const(40)  # lines of 4+ cells (evaluate.py)
_WALL = const(4)  # the engine's value (test_bot checks it)


class Work:
    """The bot's scratch memory, one instance shared by every Bot (see work()).

    The root board is reloaded by start(), top() zeroes the heuristic arrays
    as it reads them, and pre() clears them when that did not happen (the
    matrix arrays live in them: see grow); everything else is written before
    it is read in the same move.
    Two moves never overlap: start() makes its Bot the owner and another
    Bot's step() then refuses to run.
    """

    def __init__(self):
        bd = bytearray(121)  # padded root board; trial turns are applied and reverted
        for p in range(121):
            bd[p] = _WALL
        self.bd = bd
        self.owner = None  # the Bot whose move is in progress
        self.clean = True  # hb and hw are all zero (see candidates.pre)
        self.hb = array("i", bytes(484))  # heuristic score of each cell for black ...
        self.hw = array("i", bytes(484))  # ... and for white (cleared by pre)
        # this move's heuristic values (candidates.pre): a capture on a cell for black, for
        # white; taking a cell that denies white's capture, black's (read by evaluate.walk)
        self.cap = array("i", bytes(16))
        self.rows = bytearray(_MAXK)  # candidates: ours (rows of the matrix) ...
        self.cols = bytearray(_MAXK)  # ... and the opponent's (columns)
        self.rv = array("i", bytes(4 * _MAXK))  # their heuristic scores (read by top() and easy only)
        self.cv = array("i", bytes(4 * _MAXK))
        self.g = None  # the Game for trial turns (see board())
        self.full = False  # the matrix search's arrays (medium, hard) exist: grow()

    def grow(self):
        """Add what medium and hard need (the trial Game among them)."""
        if self.full:
            return
        self.full = True
        if self.g is None:
            from engine import Game  # (a local name: no slot in the module's globals for it)

            self.g = Game()  # trial turns: play/undo per pair
        self.sr = array("i", bytes(4 * _MAXK))  # score change of each candidate alone
        self.sc = array("i", bytes(4 * _MAXK))
        self.s4r = array("h", bytes(2 * _MAXK))  # its change of the fours count (packed, see evaluate.walk)
        self.s4c = array("h", bytes(2 * _MAXK))
        # The per-direction changes, the payoff matrix and the solve's counts
        # are only used after top() has read the heuristic arrays, and pre()
        # clears those before the next scan: they share that memory
        # (memoryviews).
        hw = memoryview(self.hw)
        self.dr = hw[0:4 * _MAXK]  # the same per line direction
        self.dc = hw[4 * _MAXK:8 * _MAXK]
        self.d4r = hw[8 * _MAXK:12 * _MAXK]
        self.d4c = array("h", bytes(8 * _MAXK))
        hb = memoryview(self.hb)
        self.m = hb[0:_MAXK * _MAXK]  # the payoff matrix, row-major, stride _MAXK
        self.rcnt = hb[_MAXK * _MAXK:_MAXK * _MAXK + _MAXK]  # fictitious play: how often each row was played ...
        self.racc = self.rv  # ... and the running payoffs (rv, cv: top() is done with them)
        self.cacc = self.cv
        self.tsc = array("h", bytes(18))  # threat score by segment index, set per move
        self.lbase = array("i", bytes(4 * _NLINES))  # each line's score at the root
        self.lf4 = array("h", bytes(2 * _NLINES))  # each line's fours at the root (packed)
        self.lstamp = bytearray(_NLINES + 1)  # line stamps; the last entry is the counter
        self.tier = bytearray(81)  # each cell's pass in the opponent's best-reply search (solve.py)


_work = None


def work(full):
    """The shared Work (made on first use); full: with medium's and hard's arrays."""
    global _work
    w = _work
    if w is None:
        w = _work = Work()
    if full:
        w.grow()
    return w


def board():
    """The Game medium and hard play their trial turns on (shared like the Work; made on first use).

    A caller that keeps a copy of its game for the bots anyway (the App: a
    plug-in bot must never change the live game) can use this Game as that
    copy: start() on it skips its own copy, so the device holds one Game
    fewer. During a move it holds trial turns; once the answer is ready it
    holds the position again, with its last turn's log cleared (undo()).
    """
    w = work(False)
    if w.g is None:
        from engine import Game

        w.g = Game()
    return w.g
