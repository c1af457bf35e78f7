"""When hard's deeper answer is ready in a game on the emulated Pico, per image: python ready.py [budgets] NAME=IMAGE ... (TURNS=8)"""
# With `budgets`: the bench's game against hard instead (pad A types at once; core 1, then sliced): hard's
# moves, the longest tick and LED-frame gap while it thinks, its cells.
import os
import sys
import time

from engine import parse_square
from firmware.app import _COUNT_MS
from tools.bench.rp2040 import HARD_MOVES
from tools.rp2040 import Pico
from tools.rp2040.probe import run_app

turns = int(os.environ.get("TURNS", "8"))
moves = [parse_square(m) for m in HARD_MOVES]
moves = (moves * (turns // len(moves) + 1))[:turns]
args = sys.argv[1:]
if args[:1] == ["budgets"]:
    for arg in args[1:]:
        name, img = arg.split("=", 1)
        with Pico(flash=img) as pico:
            for th in (True, False):
                r = run_app(pico, moves[:len(HARD_MOVES)], mode="hard", threads=th)
                print("%s %s: hard's moves %s ms; longest tick while it thinks %.2f ms; LED frame gap while it thinks "
                      "%.2f ms; cells %s" % (name, "core 1" if th else "sliced", [round(m / 1000) for m in r["moves"]],
                                             r["think_tick_max"] / 1000.0, r["think_gap_max"] / 1e6, r["cells"]))
    sys.exit(0)
for arg in args:
    name, img = arg.split("=", 1)
    t = time.time()
    with Pico(flash=img) as pico:
        r = run_app(pico, moves, mode="hard", deep=True)
    ready = r["deep_ready"]
    lock = [max(0, v - _COUNT_MS) for v in ready]   # the reveal comes _COUNT_MS after both lock
    print("%s: %d turns; the deeper answer ready after the turn opens (ms): %s" % (name, len(ready), ready))
    print("  a person who locks this long after the turn opens meets it: mean %.0f ms, worst %d ms; hard's cells %s"
          % (sum(lock) / len(lock), max(lock), r["cells"]))
    print("  ticks: longest %.2f ms, while it thinks %.2f ms; LED frame gap while it thinks %.2f ms (%.0f s)"
          % (r["tick_max"] / 1000.0, r["think_tick_max"] / 1000.0, r["think_gap_max"] / 1e6, time.time() - t))
