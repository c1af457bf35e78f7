"""A 2-ply search of the forcing lines only: hard's matrix with its tactical pairs (a capture, or a four standing
after the pair) re-valued by a hard child search, the quiet pairs left at hard's static payoff (2026-12-07 record)."""
# Usage (repo root): PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-forcing/forcing.py ARGS...
# ARGS are tools.tournament's; one more player name: `forcing`.
# FORCE_K=K: at most K child searches a move (default 6).
# FORCE_MODE=any (default): a pair forces if it captured, or after it either side holds a four (an empty cell
#   that completes five of its turtles); new: only a four that side did not hold before the pair counts.
# At exit each process prints the forcing player's moves, child searches and forcing pairs found (per move)
# and the mean (child value - hard's static payoff) of the pairs re-valued.
import atexit
import os
import sys

import tools.tournament as T
from engine import Game
from engine.bot import Bot
from engine.bot.deepen import child_seed

_MAXK = 10  # the matrix's row stride (engine/bot/tables.py)
_ONGOING = 0
ITERS = 3000  # fictitious-play iterations of the re-valued matrix (Deepen.ITERS)
K = int(os.environ.get("FORCE_K", "6"))
MODE = os.environ.get("FORCE_MODE", "any")
_AXES = (1, 11, 12, 10)  # padded board (11 wide): E, S, SE, SW
_STATS = {"moves": 0, "children": 0, "forcing": 0, "dsum": 0, "dn": 0, "changed": 0}


def fours(g, p):
    """Empty cells where a turtle of colour p would stand in a line of five or more (captures ignored)."""
    b = g._b
    n = 0
    for c in range(121):
        if b[c] != 0:
            continue
        for d in _AXES:
            r = 1
            x = c + d
            while b[x] == p:
                r += 1
                x += d
            x = c - d
            while b[x] == p:
                r += 1
                x -= d
            if r >= 5:
                n += 1
                break
    return n


def fp_solve(m, nr, nc, iters):
    """Alternating fictitious play as solve.fp_batch (no gap stop), from row 0: the rows' counts."""
    racc = [0] * nr
    cacc = [0] * nc
    rcnt = [0] * nr
    i = 0
    for _ in range(iters):
        rcnt[i] += 1
        q = i * _MAXK
        j = 0
        lo = 0x3FFFFFFF
        for jj in range(nc):
            x = cacc[jj] + m[q + jj]
            cacc[jj] = x
            if x < lo:
                lo = x
                j = jj
        hi = -0x3FFFFFFF
        q = j
        for ii in range(nr):
            x = racc[ii] + m[q]
            racc[ii] = x
            if x > hi:
                hi = x
                i = ii
            q += _MAXK
    return rcnt


class ForcingPlayer:
    def __init__(self, seed):
        self.bot = Bot("hard", seed)
        self.child = Bot("hard", 0)  # shares the bot's Work: the bot's matrix is copied out first
        self.g = Game()

    def reseed(self, seed):
        self.bot.reseed(seed)

    def choose(self, game, color):
        b = self.bot
        cell = b.choose(game, color)
        _STATS["moves"] += 1
        w = b._w
        nr = b._nr
        nc = b._nc
        if nr < 2 or b._kr == 0:
            return cell
        rows = bytes(w.rows[:nr])
        cols = bytes(w.cols[:nc])
        m = list(w.m[:_MAXK * _MAXK])
        rcnt = list(w.rcnt[:nr])
        self.child.reseed(child_seed(b))
        g = self.g
        opp = 3 - color
        if MODE == "new":
            g.copy_from(game)
            f0 = (fours(g, color), fours(g, opp))
        # The forcing pairs over all rows x columns.
        cand = []
        for i in range(nr):
            for j in range(nc):
                g.copy_from(game)
                r = rows[i]
                c = cols[j]
                if color == 1:
                    g.play(r, c)
                else:
                    g.play(c, r)
                if g.result != _ONGOING or not g.empty:
                    continue  # a pair that ends the game keeps its payoff (as Deepen)
                if g.captures_black or g.captures_white:
                    force = True
                else:
                    fu = fours(g, color)
                    fo = fours(g, opp)
                    if MODE == "new":
                        force = fu > f0[0] or fo > f0[1]
                    else:
                        force = fu > 0 or fo > 0
                if force:
                    # the row's weight first, then the column's static payoff (lowest: the reply that hurts most)
                    cand.append((-rcnt[i], m[i * _MAXK + j], i, j))
        _STATS["forcing"] += len(cand)
        if not cand:
            return cell
        cand.sort()
        cand = cand[:K]
        ch = self.child
        for _, _, i, j in cand:
            g.copy_from(game)
            if color == 1:
                g.play(rows[i], cols[j])
            else:
                g.play(cols[j], rows[i])
            ch.choose(g, color)
            _STATS["children"] += 1
            cw = ch._w
            it = ch._fpit
            v = 0x3FFFFFFF
            for jj in range(ch._nc):
                x = cw.cacc[jj] // it
                if x < v:
                    v = x
            _STATS["dsum"] += v - m[i * _MAXK + j]
            _STATS["dn"] += 1
            m[i * _MAXK + j] = v
        cnt = fp_solve(m, nr, nc, ITERS)
        r = ch._rand() % ITERS
        res = rows[nr - 1]
        for ii in range(nr):
            r -= cnt[ii]
            if r < 0:
                res = rows[ii]
                break
        if res != cell:
            _STATS["changed"] += 1
        return res


def _report():
    s = _STATS
    if s["moves"]:
        print(
            "forcing (FORCE_K=%d, FORCE_MODE=%s): %d moves, %.2f child searches a move, %.2f forcing pairs a move, "
            "mean child value - static payoff %.0f over %d pairs, answer changed in %.1f%% of moves"
            % (K, MODE, s["moves"], s["children"] / s["moves"], s["forcing"] / s["moves"],
               s["dsum"] / max(1, s["dn"]), s["dn"], 100.0 * s["changed"] / s["moves"]),
            file=sys.stderr,
        )


atexit.register(_report)

_make = T.make_player


def make_player(name, seed, outside=None, timeout=None):
    if name == "forcing":
        return ForcingPlayer(seed)
    return _make(name, seed, outside, timeout)


T.make_player = make_player
T.PLAYERS = T.PLAYERS + ("forcing",)

if __name__ == "__main__":
    sys.exit(T.main(sys.argv[1:]))
