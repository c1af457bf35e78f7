"""Host-side tools for What the Shell, run as `python -m tools.NAME` (see README)."""
