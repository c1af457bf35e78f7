"""The simulator's modules that also run inside MicroPython guests, uploaded as plain top-level files (a guest has no tools package): which they are, and their sources."""
import os

from tools import ROOT

# Each runs unchanged on CPython (as tools.sim.NAME) and in a guest (as NAME):
# fakehw (the chip fakes), keyscript (the key-script language), vdevice
# (VirtualDevice: the App on a FakeBoard; it imports the other two either way)
# and narrate (turn record -> words). Guests that upload them: --runtime
# micropython (tools/sim/device.py), tools/bench/firmware.py and
# circuitpython.py, host_tests/test_sim_narrate.py. The virtual board's guest
# (tools/node/vboard_guest.py) runs fakehw's FakeNeoPixel as a private module
# and the browser edition ships narrate (tools/web/__init__.py), each on its own.
MODULES = ("fakehw", "keyscript", "vdevice", "narrate")


def sources(names=MODULES):
    """{"fakehw.py": source bytes, ...}: the files to write at a guest's root."""
    out = {}
    for name in names:
        if name not in MODULES:
            raise ValueError("%r is not a guest module of the simulator (%s)" % (name, ", ".join(MODULES)))
        with open(os.path.join(ROOT, "tools", "sim", name + ".py"), "rb") as f:
            out[name + ".py"] = f.read()
    return out
