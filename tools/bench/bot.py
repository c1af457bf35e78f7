"""Bot figures for tools.bench: wasm fuel per move for each level on MicroPython, and heap allocated during a move."""
import json
import sys
from pathlib import Path

from tools.conformance import CASES_DIR

from tools import ROOT
GAMES = CASES_DIR / "random-games.json"
FUEL_PER_US = 75  # RP2040 at 125 MHz (DEVELOPERS.md)
TARGETS = {"easy": 3_000_000, "medium": 15_000_000, "hard": 75_000_000}
HEAP_TARGET = 16 * 1024
SAMPLE = None  # positions per level: None = all (~1,240; ~25 s for the three levels)
RECHECK = 6  # the worst positions per level, measured again in other heap layouts
PADS = (None, 0, 48, 160, 512)  # bytes allocated first (None: no padding object): other heap layouts


def all_positions():
    """Every ongoing position of the shared random games as (rows, egg names), replayed with the engine."""
    from engine import Game, ONGOING, parse_square
    from engine.notation import board_rows, egg_names

    out = []
    for case in json.loads(GAMES.read_text()):
        g = Game()
        out.append((board_rows(g), egg_names(g)))
        for t in case["turns"]:
            if "error" in t["expect"]:
                continue
            g.play(parse_square(t["black"]), parse_square(t["white"]))
            if g.result != ONGOING:
                break
            out.append((board_rows(g), egg_names(g)))
    return out


def sample_positions(n=SAMPLE):
    """n positions spread evenly over all of them (every k-th), plus the count they were drawn from."""
    allp = all_positions()
    if n is None or n >= len(allp):
        return allp, len(allp)
    step = len(allp) / n
    return [allp[int(i * step)] for i in range(n)], len(allp)


# Guest: one bot per level; marks around every choose(). A back-to-back mark
# pair measures the marking overhead, subtracted from every move.
_FUEL_GUEST = """
from engine import Game
from engine.notation import load
from engine.bot import Bot
POS = %r
g = Game()
b = Bot(%r, 1)
print("@@FUEL o0")
print("@@FUEL o1")
k = 0
for rows, eggs in POS:
    load(g, rows, eggs)
    color = 1 + (k & 1)
    print("@@FUEL s")
    b.choose(g, color)
    print("@@FUEL e")
    k += 1
"""


# Other layouts: a fresh interpreter per position, a padding allocation, the
# game loaded before the bot is built. MicroPython's map-lookup cache is
# keyed by addresses, so the same move can cost more in another heap layout
# (measured up to 1.4x for the bot and 1.8x for engine turns on one
# position): the figure is the worst over all layouts tried.
_FUEL_GUEST_2 = """
%s
from engine import Game
from engine.notation import load
from engine.bot import Bot
g = Game()
load(g, %r, %r)
b = Bot(%r, 1)
print("@@FUEL o0")
print("@@FUEL o1")
print("@@FUEL s")
b.choose(g, %d)
print("@@FUEL e")
"""


def fuel_other_layout(level, pos, color, pad=None):
    from tools.upy import project_files
    from tools.upy.fuel import measure

    pre = "" if pad is None else "pad = bytearray(%d)" % pad
    _, marks = measure(_FUEL_GUEST_2 % (pre, pos[0], pos[1], level, color), project_files("engine"))
    return marks[3][1] - marks[2][1] - (marks[1][1] - marks[0][1])


def fuel_per_move(level, positions):
    """[fuel of each move] for one level over the positions (MicroPython in wasm, gc off, big heap)."""
    from tools.upy import project_files
    from tools.upy.fuel import measure

    _, marks = measure(_FUEL_GUEST % (positions, level), project_files("engine"))
    over = marks[1][1] - marks[0][1]
    out = []
    for i in range(2, len(marks), 2):
        out.append(marks[i + 1][1] - marks[i][1] - over)
    return out


# Guest for memory on the official port (Node): gc.mem_alloc() only grows
# inside one exec (no collection reclaims within it), so after - before is
# everything a move allocated, an upper bound of its extra heap.
_HEAP_GUEST = """
import gc
from engine import Game
from engine.notation import load
from engine.bot import Bot
POS = %r
g = Game()
worst = {}
for level in ("easy", "medium", "hard"):
    b = Bot(level, 1)
    w = 0
    k = 0
    for rows, eggs in POS:
        load(g, rows, eggs)
        gc.collect()
        a = gc.mem_alloc()
        b.choose(g, 1 + (k & 1))
        d = gc.mem_alloc() - a
        if d > w:
            w = d
        k += 1
    worst[level] = w
print(worst["easy"], worst["medium"], worst["hard"])
"""


def heap_per_move(positions):
    """{level: most bytes allocated during one move} on the official MicroPython port."""
    from tools.upy import run, project_files

    out = run(_HEAP_GUEST % (positions,), project_files("engine"), heapsize=4 * 1024 * 1024).split()
    return dict(zip(("easy", "medium", "hard"), (int(x) for x in out)))


def figures(sample=SAMPLE):
    """[(label, value text)] for tools.bench."""
    from tools.upy import node_available

    positions, total = sample_positions(sample)
    rows = []
    for level in ("easy", "medium", "hard"):
        f = fuel_per_move(level, positions)
        mean = sum(f) // len(f)
        order = sorted(range(len(f)), key=lambda i: -f[i])[:RECHECK]
        worst = max(f)
        for i in order:
            for pad in PADS:
                worst = max(worst, fuel_other_layout(level, positions[i], 1 + (i & 1), pad))
        rows.append((
            "bot %s: fuel per move, worst (%d heap layouts for the %d worst) / mean (%d of %d positions)"
            % (level, 1 + len(PADS), RECHECK, len(f), total),
            "%d / %d fuel (%.2f / %.2f ms on RP2040); target worst <= %d: %s"
            % (worst, mean, worst / FUEL_PER_US / 1000, mean / FUEL_PER_US / 1000,
               TARGETS[level], "ok" if worst <= TARGETS[level] else "OVER"),
        ))
    if node_available():
        heap = heap_per_move(positions[:: max(1, len(positions) // 40)])
        for level in ("easy", "medium", "hard"):
            rows.append((
                "bot %s: heap allocated during a move, worst (official port)" % level,
                "%d bytes; target <= %d: %s" % (heap[level], HEAP_TARGET,
                                                  "ok" if heap[level] <= HEAP_TARGET else "OVER"),
            ))
    else:
        rows.append(("bot heap per move", "skipped: Node / npm packages missing"))
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    sample = int(argv[0]) if argv else SAMPLE  # optional: positions per level
    for label, value in figures(sample):
        print("%s: %s" % (label, value))


if __name__ == "__main__":
    main()
