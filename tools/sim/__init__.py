"""The simulator: the real firmware on a virtual board (device.py), the host fakes it runs on (fakehw.py), the terminal UI (terminal.py); `python -m tools.sim`."""
from tools.sim.device import Device, UpyDevice  # noqa: F401  (the documented tools.sim.Device)
