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
    """Import boards/<name>.py; a name without a file raises ValueError listing the valid ones, a file that does not
    import (a typo, a name it never defines) raises ValueError saying which file, line and error. Only that board's
    file is imported: one broken file never stops the others from working. Its contents are checked by
    firmware/boardcheck.py (the tools and the device call that)."""
    valid = names()
    if not isinstance(name, str) or name not in valid:
        raise ValueError("unknown board %r; valid boards: %s (the files in boards/)" % (name, ", ".join(valid)))
    try:
        return __import__("boards." + name, None, None, ("NAME",))
    except Exception as e:  # SyntaxError, NameError, ...: one line, not a traceback
        line = getattr(e, "lineno", None)
        raise ValueError("boards/%s.py cannot be loaded%s: %s: %s"
                         % (name, " (line %d)" % line if line else _line(e, name), type(e).__name__, _message(e)))


def _message(e):
    if isinstance(e, SyntaxError) and getattr(e, "msg", None):
        return e.msg
    return str(e)


def _line(e, name):
    # The board file's own line in the traceback (CPython; MicroPython keeps no __traceback__).
    tb = getattr(e, "__traceback__", None)
    last = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith("boards/%s.py" % name):
            last = tb.tb_lineno
        tb = tb.tb_next
    return " (line %d)" % last if last else ""


def name_of(board):
    """The file name a loaded board came from ('myboard'), whatever its NAME constant says."""
    return board.__name__.split(".")[-1]


def platform(board):
    """The MicroPython port a board is for (its PLATFORM: "rp2", "esp32", ...), or None if it does not say."""
    return getattr(board, "PLATFORM", None)


def machines(board):
    """The sys.implementation._machine texts of the boards this wiring is for (its MACHINES), () if it does not say."""
    return tuple(getattr(board, "MACHINES", ()))


NAMES = tuple(names())   # at import, for callers that need a constant (pytest parametrize); names() sees new files
