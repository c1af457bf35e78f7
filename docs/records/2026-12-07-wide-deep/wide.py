"""Hard's deeper answer over more of its rows (engine.bot.deepen.ROWS), as a tournament player `deepwide` (2026-12-07 record)."""
# Usage (repo root):
#   WIDE_ROWS=K PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-wide-deep/wide.py ARGS...
#       ARGS are tools.tournament's; one more player name: `deepwide`, tools/tournament/deep.py's DeepPlayer with
#       deepen.ROWS = K (default 8: every row hard has). At exit each process prints deepwide's moves and child
#       searches a move. The shipped `deep` is ROWS = 4; with WIDE_ROWS=4 `deepwide` plays as `deep`.
import atexit
import os
import sys

import tools.tournament as T
from engine.bot import deepen
from tools.tournament.deep import DeepPlayer

deepen.ROWS = int(os.environ.get("WIDE_ROWS", "8"))  # read by Deepen() (its arrays) and begin() (rows taken)
_STATS = []


def _report():
    if _STATS:
        moves = sum(p.moves for p in _STATS)
        kids = sum(p.children for p in _STATS)
        if moves:
            print("deepwide (ROWS=%d): %d moves, %.2f child searches a move" % (deepen.ROWS, moves, kids / moves),
                  file=sys.stderr)


_make = T.make_player


def make_player(name, seed, outside=None, timeout=None):
    if name == "deepwide":
        p = DeepPlayer(seed)
        _STATS.append(p)
        return p
    return _make(name, seed, outside, timeout)


T.make_player = make_player
T.PLAYERS = T.PLAYERS + ("deepwide",)

if __name__ == "__main__":
    atexit.register(_report)
    sys.exit(T.main(sys.argv[1:]))
