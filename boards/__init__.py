"""Board configs: one module per board (wiring and settings only); `boards.load(name)` picks one."""
NAMES = ("pico", "esp32s3", "sim")


def load(name):
    """Import boards/<name>.py; an unknown name raises ValueError listing the valid ones."""
    if name not in NAMES:
        raise ValueError("unknown board %r; valid boards: %s" % (name, ", ".join(NAMES)))
    return __import__("boards." + name, None, None, ("NAME",))
