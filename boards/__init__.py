"""Board configs: one module per board file (wiring and board facts only); `boards.names()` lists the files, `boards.load(name)` picks one."""
import os

# Runs on CPython (tools, tests) and inside MicroPython (the simulator's guest):
# plain os.listdir and string slicing, no pathlib.


def _here():
    f = __file__
    cut = max(f.rfind("/"), f.rfind("\\"))
    return f[:cut] if cut >= 0 else "."


def names(directory=None):
    """The boards, found from the files in boards/ (or `directory`): a copied boards/myboard.py is 'myboard'."""
    out = []
    for f in os.listdir(directory or _here()):
        if f.endswith(".py") and not f.startswith("_") and _valid(f[:-3]):
            out.append(f[:-3])
    out.sort()
    return out


def _valid(name):
    # Only names Python can import (a stray "my board.py" is not a board).
    if not name or not (name[0].isalpha() or name[0] == "_"):
        return False
    for ch in name:
        if not (ch.isalpha() or ch.isdigit() or ch == "_"):
            return False
    return True


def load(name):
    """Import boards/<name>.py; a name without a file raises ValueError listing the valid ones."""
    valid = names()
    if not isinstance(name, str) or name not in valid:
        raise ValueError("unknown board %r; valid boards: %s (the files in boards/)" % (name, ", ".join(valid)))
    return __import__("boards." + name, None, None, ("NAME",))


def name_of(board):
    """The file name a loaded board came from ('myboard'), whatever its NAME constant says."""
    return board.__name__.split(".")[-1]


def platform(board):
    """The MicroPython port a board is for (its PLATFORM: "rp2", "esp32", ...), or None if it does not say."""
    return getattr(board, "PLATFORM", None)


def for_usb_vid(vid):
    """The boards whose USB_VIDS include this USB vendor id (the deploy/play guess of an attached board)."""
    out = []
    for n in names():
        if vid in getattr(load(n), "USB_VIDS", ()):
            out.append(n)
    return out


NAMES = tuple(names())   # at import, for callers that need a constant (pytest parametrize); names() sees new files
