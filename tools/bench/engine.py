"""Engine figures for tools.bench: wasm fuel per turn on MicroPython, CPython time per turn, heap held and allocated."""
import json
import time
from pathlib import Path

from tools.conformance import CASES_DIR

from tools import ROOT
GAMES = CASES_DIR / "random-games.json"
from tools.upy.fuel import FUEL_PER_US  # measured on the emulated Pico (tools.bench --only rp2040)


def legal_turns():
    """Each shared random game as a list of (black, white) cell indices, legal turns only."""
    from engine import parse_square

    games = []
    for case in json.loads(GAMES.read_text()):
        games.append([(parse_square(t["black"]), parse_square(t["white"]))
                      for t in case["turns"] if "error" not in t["expect"]])
    return games


# Guest for the fuel run: one mark before and one after every play(); an
# empty segment (two marks back to back) measures the marking overhead,
# which is subtracted from every turn. Fuel depends a little on where the
# heap objects land (measured: up to 10% between layouts), so the figures
# are taken in several layouts and the worst is reported.
LAYOUTS = (0, 4096, 33333)
_FUEL_GUEST = """
_layout = bytearray(%d)  # shifts every later heap address
from engine import Game
GAMES = %r
print("@@FUEL o0")
print("@@FUEL o1")
for moves in GAMES:
    g = Game()
    for b, w in moves:
        print("@@FUEL a")
        g.play(b, w)
        print("@@FUEL b")
"""

# Guest for the official port: heap held by a live Game, and bytes
# allocated across every play() with the collector off.
_HEAP_GUEST = """
import gc, micropython
from engine import Game
GAMES = %r
gc.collect(); gc.disable()
before = gc.mem_alloc()
g = Game()
held = gc.mem_alloc() - before
allocated = 0
turns = 0
for moves in GAMES:
    g2 = Game()
    for b, w in moves:
        a = gc.mem_alloc()
        g2.play(b, w)
        allocated += gc.mem_alloc() - a
        turns += 1
gc.enable()
print(held, allocated, turns)
"""


def fuel_per_turn(games, layout=0):
    from tools import upy
    from tools.upy import fuel

    _, marks = fuel.measure(_FUEL_GUEST % (layout, games), files=upy.project_files("engine"))
    overhead = marks[1][1] - marks[0][1]
    costs = [marks[i + 1][1] - marks[i][1] - overhead for i in range(2, len(marks), 2)]
    return costs, overhead


def heap_figures(games):
    from tools import upy

    held, allocated, turns = upy.run(_HEAP_GUEST % (games,), files=upy.project_files("engine"),
                                     heapsize=8 * 1024 * 1024).split()
    return int(held), int(allocated), int(turns)


def cpython_us_per_turn(games, repeat=5):
    from engine import Game

    best = None
    turns = sum(len(m) for m in games)
    for _ in range(repeat):
        t0 = time.perf_counter()
        for moves in games:
            g = Game()
            for b, w in moves:
                g.play(b, w)
        dt = time.perf_counter() - t0
        best = dt if best is None or dt < best else best
    # Game() construction is included (40 games): small next to 1211 turns.
    return best / turns * 1e6


def figures():
    from tools import upy

    games = legal_turns()
    turns = sum(len(m) for m in games)
    rows = [("engine: shared random games", "%d games, %d legal turns" % (len(games), turns))]
    rows.append(("engine: CPython time per turn (best of 5)", "%.1f µs" % cpython_us_per_turn(games)))
    means = []
    worst = 0
    for layout in LAYOUTS:
        costs, overhead = fuel_per_turn(games, layout)
        means.append(sum(costs) / len(costs))
        worst = max(worst, max(costs))
    mean = max(means)
    rows += [
        ("engine: fuel per turn, mean in each heap layout", " / ".join("{:,.0f}".format(m) for m in means)),
        ("engine: MicroPython fuel per turn, worst mean (target ≤ 150,000)", "{:,.0f}".format(mean)),
        ("engine: MicroPython fuel per turn, max in any layout (target ≤ 1,000,000)", "{:,}".format(worst)),
        ("engine: estimated RP2040 ms per turn, worst mean / max", "%.2f / %.2f ms" % (
            mean / FUEL_PER_US / 1000, worst / FUEL_PER_US / 1000)),
        ("engine: fuel of the measuring marks (subtracted)", "{:,}".format(overhead)),
    ]
    if upy.node_available():
        held, allocated, n = heap_figures(games)
        rows += [
            ("engine: heap held by a live Game (target ≤ 2048 B)", "%d B" % held),
            ("engine: bytes allocated per turn (must be 0)", "%d B over %d turns = %d" % (allocated, n, allocated // n)),
        ]
    else:
        rows.append(("engine: heap figures", "skipped: Node and tools/node packages are needed"))
    return rows

