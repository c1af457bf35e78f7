"""Memory figures for tools.bench: heap the game's imports need on the official Pico firmware (emulated RP2040, fixed heap), deployed as .mpy and as mip's .py sources, and the margin left; then on the firmware with the game frozen in (tools.firmware), with the bot's heap held there beside the stock firmware's."""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import ROOT

STEP = 2048  # bytes: the search stops when the answer is known this closely

# One trial in a fresh interpreter: hold `n` bytes, then import what main.py
# imports (the bot too: it is loaded when the computer plays). Compiling .py
# needs transient heap that gc.mem_alloc() samples cannot see; leaving less
# and less free until the imports fail measures it. The answer: 0 the imports
# failed, 1 they did with the bot's loops as bytecode (the machine code did not
# fit: engine/bot/evaluate.py falls back), 2 with them as machine code.
_TRIAL = """
import gc
gc.collect()
f0 = gc.mem_free()
try:
    b = bytearray(%d)
    import firmware.launcher, firmware.app, engine.bot
    from engine.bot import evaluate
    r = 2 if evaluate.EMITTER == 'viper' else 1
except MemoryError:
    r = 0
b = None
print('@J', [r, f0])
"""


def needed(pico, trial=None, want=1):
    """(free heap in a fresh interpreter, bytes the imports need) by bisecting the largest ballast that still imports
    (want=1: at all; 2: with the bot's loops as machine code). `trial(pico, code)` runs one trial
    (tools.rp2040.probe.guest_json)."""
    from tools.rp2040 import Rp2040Error

    if trial is None:
        from tools.rp2040.probe import guest_json as trial
    lo, hi, free = 0, 256 * 1024, None
    while hi - lo > STEP:
        mid = (lo + hi) // 2
        try:
            ok, free = trial(pico, _TRIAL % mid)
        except Rp2040Error as e:
            # A MemoryError the trial's own `except` did not catch: it is raised again where the trial reports,
            # when the interrupted imports left the heap so full that even printing fails (the ballast may stay
            # alive a little longer: this GC scans the stack conservatively). The imports did not fit.
            if "MemoryError" not in str(e) or free is None:
                raise
            ok = 0
        if ok >= want:
            lo = mid
        else:
            hi = mid
    return free, free - lo


def _as_mip_left_it(pico):
    # What `mpremote mip install --target /` leaves: the .py sources at the root, no lib/ .mpy.
    mp = [sys.executable, "-m", "mpremote", "connect", pico.url]
    subprocess.run(mp + ["exec", "import os\ndef rm(d):\n    for e in os.ilistdir(d):\n        p = d + '/' + e[0]\n"
                         "        rm(p) if e[1] == 0x4000 else os.remove(p)\n    os.rmdir(d)\nrm('/lib')\n"
                         "os.mkdir('/engine')\nos.mkdir('/firmware')"], check=True, capture_output=True, timeout=300)
    srcs = [p for d in ("engine", "firmware") for p in sorted((ROOT / d).rglob("*.py")) if "__pycache__" not in p.parts]
    rels = [p.relative_to(ROOT).as_posix() for p in srcs]
    args = []
    for sub in sorted({r.rsplit("/", 1)[0] for r in rels} - {"engine", "firmware"}):  # subpackages (engine/bot)
        args += ["fs", "mkdir", ":" + sub, "+"]
    for p, rel in zip(srcs, rels):
        args += ["fs", "cp", str(p), ":" + rel, "+"]
    subprocess.run(mp + args[:-1], check=True, capture_output=True, timeout=1800)


def figures():
    from tools.rp2040 import Pico, deployed_image, uf2_problem

    why = uf2_problem()
    if why is not None:
        return [("memory", "skipped: " + why)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        with Pico(flash=deployed_image(tmp / "deployed.img")) as pico:
            free, mpy = needed(pico, want=2)
            _as_mip_left_it(pico)
            _, pyv = needed(pico, want=2)
            _, py = needed(pico)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    kb = lambda n: "%.1f KB" % (n / 1024.0)
    return [
        ("memory: Pico heap free in a fresh interpreter (official v1.27.0, emulated)", kb(free)),
        ("memory: heap the imports need, .mpy from tools.deploy / margin left", "%s / %s" % (kb(mpy), kb(free - mpy))),
        ("memory: heap the imports need, mip's .py compiled on the board, with the bot's loops as machine code / "
         "margin left", "%s / %s" % (kb(pyv), kb(free - pyv))),
        ("memory: the same with less heap than that: the bot's loops as bytecode (engine/bot/evaluate.py falls back) / "
         "margin left", "%s / %s" % (kb(py), kb(free - py))),
    ] + frozen_figures()


def frozen_figures():
    """The frozen firmware (nothing on the filesystem): heap the imports need, and the bot's heap held beside the
    stock firmware's with the deployed .mpy files."""
    from tools.bench.bot import heap_held
    from tools.bench.rp2040 import BOT_HEAP_TARGET, bot_held, frozen_uf2
    from tools.rp2040 import Pico

    uf2, why = frozen_uf2()
    if uf2 is None:
        return [("memory frozen: the game frozen into the firmware", "skipped: " + why)]
    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-frozen-"))
    try:
        with Pico(uf2=uf2, flash=tmp / "flash.img") as pico:
            pico.wait_frames(1)                   # the game started from the frozen main.py: the filesystem exists
            free, need = needed(pico)
            fz = bot_held(pico)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    st = heap_held()
    kb = lambda n: "%.1f KB" % (n / 1024.0)
    held = lambda h: h["hard"] - h["engine"]
    return [
        ("memory frozen: heap the imports need / margin left (of %s free)" % kb(free), "%s / %s" % (kb(need), kb(free - need))),
        ("memory frozen: bot heap held, module + first hard Bot, stock .mpy -> frozen",
         "%s (module %s) -> %s (module %s); target <= %d KB: %s"
         % (kb(held(st)), kb(st["module"] - st["engine"]), kb(held(fz)), kb(fz["module"] - fz["engine"]),
            BOT_HEAP_TARGET // 1024, "ok" if held(fz) <= BOT_HEAP_TARGET else "OVER")),
    ]
