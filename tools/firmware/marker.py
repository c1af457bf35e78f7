"""The frozen-game marker: the `wts_frozen` module written into the firmware (version, wiring, each frozen file's SHA-256), and reading it back from a connected board."""
import ast
import hashlib

MODULE = "wts_frozen"

_TEMPLATE = '''"""What the Shell: this MicroPython has the game frozen in (written by python -m tools.firmware build)."""
VERSION = %(version)r
BOARD = %(board)r         # boards/<BOARD>.py is frozen in as board_config (a board_config.py on the filesystem overrides it)
MICROPYTHON = %(micropython)r
# (path in the checkout, SHA-256 of its bytes) for every frozen file; a tuple of constants stays in flash
FILES = (
%(files)s)
'''


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def module_text(version, board, micropython, files):
    """The marker module's source. files: {checkout path: bytes} of everything frozen beside it."""
    rows = "".join("    (%r, %r),\n" % (p, sha256(files[p])) for p in sorted(files))
    return _TEMPLATE % {"version": version, "board": board, "micropython": micropython, "files": rows}


# Runs on the board (raw REPL). Imports the marker only from the frozen modules ('.frozen' on sys.path), so a
# stray wts_frozen.py on the filesystem cannot fake it, and lists what on the filesystem changes the frozen game.
_PROBE = """
import sys, os
def _wts_probe():
    p = list(sys.path)
    try:
        sys.path.clear()
        sys.path.append('.frozen')
        try:
            import %(mod)s as m
        except ImportError:
            return None
        finally:
            sys.path.clear()
            sys.path.extend(p)
        on_fs = []
        for f in ('board_config.py', 'board_config.mpy', 'main.py', 'engine', 'firmware', 'lib/engine', 'lib/firmware'):
            try:
                os.stat(f)
                on_fs.append(f)
            except OSError:
                pass
        return {'version': m.VERSION, 'board': m.BOARD, 'micropython': m.MICROPYTHON,
                'files': dict(m.FILES), 'on_fs': on_fs}
    finally:
        sys.modules.pop(%(mod)r, None)
print(repr(_wts_probe()))
del _wts_probe
""" % {"mod": MODULE}

# What a file found on the filesystem does to the frozen game (sys.path on rp2 is ['', '.frozen', '/lib'], and a
# frozen main.py runs instead of a main.py on the filesystem: shared/runtime/pyexec.c pyexec_file_if_exists).
EFFECT = {
    "board_config.py": "overrides the frozen wiring",
    "board_config.mpy": "overrides the frozen wiring",
    "main.py": "is never run (the frozen main.py runs at power-up)",
    "engine": "shadows the frozen engine (the filesystem root comes first on sys.path)",
    "firmware": "shadows the frozen firmware (the filesystem root comes first on sys.path)",
    "lib/engine": "is never imported (the frozen engine comes first on sys.path)",
    "lib/firmware": "is never imported (the frozen firmware comes first on sys.path)",
}


def frozen_game(device):
    """What a connected board says about a frozen game, or None if its firmware has none.

    device: anything with run(code) -> printed text (tools.deploy.Device, already in the raw REPL). Returns
    {"version", "board", "micropython", "files": {checkout path: sha256}, "on_fs": [filesystem paths that
    change the frozen game: see EFFECT]}."""
    out = device.run(_PROBE).strip().splitlines()
    if not out:
        raise ValueError("the board printed nothing for the frozen-game probe")
    return ast.literal_eval(out[-1])


def differs(info, files):
    """Paths whose frozen copy differs from `files` ({checkout path: bytes}, e.g. tools.firmware.builder.game_files()):
    changed, missing on either side. An empty list: the board runs exactly this game. The bot's machine code
    missing on the board is no difference: a firmware built from a MicroPython that cannot freeze it runs the
    same bytecode (tools/firmware/builder.py, thumb1_word_aligned)."""
    from tools.devicefiles import MACHINE_CODE

    want = {p: sha256(d) for p, d in files.items()}
    have = info["files"]
    return sorted(p for p in set(want) | set(have) if want.get(p) != have.get(p)
                  and not (p in MACHINE_CODE and p not in have))
