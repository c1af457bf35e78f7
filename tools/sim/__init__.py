"""The simulator: the real firmware on a virtual board (device.py), the host fakes it runs on (fakehw.py), the terminal UI (terminal.py), its words (narrate.py), screen colours (screen.py), the per-user state folder (state.py); `python -m tools.sim`."""
from tools.sim.device import Device, UpyDevice  # noqa: F401  (the documented tools.sim.Device)
