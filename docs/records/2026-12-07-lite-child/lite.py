"""A cheaper child for hard's deeper answer: engine.bot.deepen with its child Bot at a level of its own (hard's evaluation, fewer candidates, iterations or reply rounds), its cost against the shipped child's and its play (2026-12-07 record)."""
# Usage (repo root):
#   PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-lite-child/lite.py ARGS...
#       ARGS are tools.tournament's; one more player name: `deeplite` (tools/tournament/deep.py's DeepPlayer with
#       the child below). At exit each process prints deeplite's moves, child searches and host CPU seconds of the
#       deepening per move.
#   PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-lite-child/lite.py cost [N]
#       the cost of the deepening, shipped (a hard child) against the lite child, over N positions of the shared
#       random games (tools.bench.bot.sample_positions, default 60; side to move alternating): host CPU seconds
#       (the deepening as the tournament runs it, step(SLICE_UNITS)), the children's work units (the Bot's item
#       costs, the _U_* constants, summed exactly: see _Units) and the deeper cells that differ.
# LITE=rows,cols,iters,replies: the child's level (default 8,6,400,2: hard's own, so deeplite plays as deep).
# Its noise, threats and anticipatory captures are hard's (4, 1, 1).
import atexit
import os
import sys
import time

import tools.tournament as T
from engine import Game
from engine.bot import Bot, SLICE_UNITS, tables
from engine.bot.deepen import Deepen

_HARD = tables.PARAMS["hard"]
LITE = tuple(int(x) for x in os.environ.get("LITE", "8,6,400,2").split(","))


def _record(rows, cols, iters, replies):
    """A level's record laid out as tables._level makes it (7 bytes; iters in tens), hard's other fields."""
    rec = bytearray(_HARD)
    rec[0] = rows  # _P_ROWS
    rec[1] = cols  # _P_COLS
    rec[2] = iters // 10  # _P_ITERS
    rec[6] = replies  # _P_REPLIES
    return bytes(rec)


# The lite level: Bot("lite") finds it in the same dict Bot reads (engine.bot imported PARAMS from tables).
tables.PARAMS["lite"] = _record(*LITE)
assert _record(8, 6, 400, 2) == _HARD  # the layout agrees with tables._level's (hard's own record)
_STATS = {"moves": 0, "children": 0, "cpu": 0.0}


def lite_deepen(bot):
    """A Deepen of `bot` whose child is Bot("lite") (sharing bot's Work: its arrays are sized by _MAXK, so fewer
    candidates fit; Deepen reseeds its child at every begin())."""
    d = Deepen(bot)
    d.child = Bot("lite", 0)
    return d


class LitePlayer:
    """tools/tournament/deep.py's DeepPlayer with the lite child."""

    def __init__(self, seed):
        self.bot = Bot("hard", seed)
        self.deep = lite_deepen(self.bot)

    def reseed(self, seed):
        self.bot.reseed(seed)

    def choose(self, game, color):
        self.bot.choose(game, color)
        d = self.deep
        t0 = time.process_time()
        d.begin(game, color)
        c = d.step(SLICE_UNITS)
        while c < 0:
            c = d.step(SLICE_UNITS)
        _STATS["cpu"] += time.process_time() - t0
        _STATS["moves"] += 1
        _STATS["children"] += d.children
        return c


def _report():
    s = _STATS
    if s["moves"]:
        print("deeplite (LITE=%s): %d moves, %.2f child searches a move, %.3f s host CPU of deepening a move"
              % (",".join(map(str, LITE)), s["moves"], s["children"] / s["moves"], s["cpu"] / s["moves"]),
              file=sys.stderr)


# --- cost ---------------------------------------------------------------------------------
class _Units:
    """The work units of the Bot moves run while `on`: engine.bot's phase functions wrapped (its module globals
    `candidates` and `solve` replaced by proxies), the many-item phases given a budget without end so each
    returns the units it left (a move's answer does not depend on its slicing), the one-item phases charged
    their _U_* constant. step()'s own _U_STEP per call is left out (it depends on the slicing only)."""

    _FIXED = {"pre": 17, "top": 28, "anticipate": 10, "breaks": 24, "pick": 5}  # _U_PRE, _U_TOP, _U_ANT, _U_BRK, _U_PICK
    _MANY = ("scan", "deltas", "pairs", "fp", "search")

    def __init__(self):
        import engine.bot as B

        self.n = 0
        self.by = {}  # units by phase function, over the whole run
        self.on = False
        self.B = B
        self.orig = (B.candidates, B.solve)
        self.proxies = (self._proxy(B.candidates), self._proxy(B.solve))

    def install(self, on):
        """The proxies in engine.bot's globals (on), or its modules again: the timed runs see no proxy."""
        self.B.candidates, self.B.solve = self.proxies if on else self.orig

    def _proxy(self, mod):
        u = self

        class P:
            def __getattr__(self, name):
                f = getattr(mod, name)
                if name in _Units._FIXED:
                    def g(*a):
                        if u.on:
                            u.n += _Units._FIXED[name]
                            u.by[name] = u.by.get(name, 0) + _Units._FIXED[name]
                        return f(*a)
                    return g
                if name in _Units._MANY:
                    def h(b, left, first):
                        r = f(b, left, first)
                        if r is None:
                            raise AssertionError("a phase did not finish: drive the move with a budget without end")
                        if u.on:
                            u.n += left - r
                            u.by[name] = u.by.get(name, 0) + left - r
                        return r
                    return h
                return f

        return P()


def _run(d, game, color, units, budget):
    """The deepening of d's bot's finished move: (deeper cell, children, host CPU seconds, child units)."""
    units.n = 0
    units.on = budget > SLICE_UNITS
    units.install(units.on)
    t0 = time.process_time()
    d.begin(game, color)
    c = d.step(budget)
    while c < 0:
        c = d.step(budget)
    t = time.process_time() - t0
    units.on = False
    units.install(False)
    return c, d.children, t, units.n


def cost(n):
    from engine.notation import load
    from tools.bench.bot import sample_positions

    positions, total = sample_positions(n)
    bot = Bot("hard", 1)
    ship = Deepen(bot)
    lite = lite_deepen(bot)
    units = _Units()
    big = 1 << 30
    tot = {"ship": [0, 0.0, 0], "lite": [0, 0.0, 0]}
    worst = {"ship": 0.0, "lite": 0.0}
    differ = moves = 0
    g = Game()
    by = {}
    for k, (rows, eggs) in enumerate(positions):
        load(g, rows, eggs)
        color = 1 + (k & 1)
        cells = {}
        for name, d in (("ship", ship), ("lite", lite)):
            # host time, sliced as in the tournament (proxies idle) ...
            bot.reseed(k)
            bot.choose(g, color)
            c, ch, t, _ = _run(d, g, color, units, SLICE_UNITS)
            # ... and the units, the same move again with the phases counted
            bot.reseed(k)
            bot.choose(g, color)
            units.by = by.setdefault(name, {})
            c2, _, _, u = _run(d, g, color, units, big)
            assert c2 == c, "the slicing changed an answer"
            cells[name] = c
            tot[name][0] += ch
            tot[name][1] += t
            tot[name][2] += u
            worst[name] = max(worst[name], t)
        moves += 1
        differ += cells["ship"] != cells["lite"]
    s, l = tot["ship"], tot["lite"]
    print("LITE=%s over %d positions (of %d): deeper cell differs from shipped in %d" % (
        ",".join(map(str, LITE)), moves, total, differ))
    print("%-8s %10s %12s %12s %14s" % ("", "children", "CPU s/move", "worst s", "units/move"))
    for name, v in (("shipped", s), ("lite", l)):
        key = "ship" if name == "shipped" else "lite"
        print("%-8s %10.2f %12.4f %12.4f %14.0f" % (name, v[0] / moves, v[1] / moves, worst[key], v[2] / moves))
    for key in ("ship", "lite"):
        ch = tot[key][0]
        print("%s units per child by phase: %s" % (key, ", ".join(
            "%s %.0f" % (f, v / max(1, ch)) for f, v in sorted(by[key].items(), key=lambda x: -x[1]))))
    print("ratio lite/shipped: CPU %.3f, units %.3f, units per child %.3f" % (
        l[1] / s[1], l[2] / s[2], (l[2] / max(1, l[0])) / (s[2] / max(1, s[0]))))


_make = T.make_player


def make_player(name, seed, outside=None, timeout=None):
    if name == "deeplite":
        return LitePlayer(seed)
    return _make(name, seed, outside, timeout)


T.make_player = make_player
T.PLAYERS = T.PLAYERS + ("deeplite",)

if __name__ == "__main__":
    if sys.argv[1:2] == ["cost"]:
        cost(int(sys.argv[2]) if len(sys.argv) > 2 else 60)
    else:
        atexit.register(_report)
        sys.exit(T.main(sys.argv[1:]))
