"""Host-side tools for What the Shell, run as `python -m tools.NAME` (see README); never copied to a device."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout: engine/, firmware/, boards/, tools/, host_tests/
