"""The 2-player boot's heap and interned names (qstrs) on the webassembly port, for any commit (run from its checkout)."""
# PYTHONPATH=. .venv/bin/python /tmp/names.py   (copied out first: the commits measured lack it)
# The boot as tools.bench's firmware section makes it (.mpy files, the simulator's modules first), without
# subtracting the fakes' share: compare its heap line between commits, not with the bench's figure.
from tools import upy
from tools.bench import firmware as bench

with upy.Session(files=bench._mpy_files(), timeout=600.0) as s:
    def live():
        return int(s.exec("gc.collect()\nprint(gc.mem_alloc())").strip())

    def names():
        return s.exec("__import__('micropython').qstr_info()").strip()

    s.exec("import gc\nimport fakehw, vdevice\nfrom boards import pico as cfg\n")
    base = live()
    print("before the firmware:", names())
    s.exec("import firmware.app\nimport firmware.hw\ndev = vdevice.VirtualDevice(cfg, mode='2p', keep_frames=False)\n")
    print("after boot:         ", names())
    print("heap after boot, fakes included: %d bytes" % (live() - base))
