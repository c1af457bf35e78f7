"""What goes on a device, for tools/deploy.py and tools/circuitpy.py alike: the checked board file, the modules a runtime imports, the manifest left beside them."""
import hashlib
import json
from pathlib import Path

from tools import ROOT

PACKAGES = ("engine", "firmware")   # the device code's packages (lib/<name>/ on a board)
# Machine code (MicroPython's viper emitter): compiled only where mpy-cross is told the board's CPU (-march),
# else left out (the browser edition, CircuitPython, a port without native code, the frozen firmware: see
# tools/firmware/builder.py); the bot then runs its bytecode.
MACHINE_CODE = ("engine/bot/viper.py",)
# What a deploy leaves on a board or CIRCUITPY drive besides the game: the files it wrote with their SHA-256, so
# that a later deploy (and ./wts play) can tell this project's files from a maker's own.
MANIFEST_NAME = "wts_manifest.json"
PROJECT = "what-the-shell"


def checked_board(name, root=ROOT):
    """boards/<name>.py of the tree at `root` as a module, checked by firmware/boardcheck.py: ValueError (one line)
    naming the file and every problem, or for a file that does not import, its line and error."""
    import importlib.util

    import boards
    from firmware.boardcheck import check

    if Path(root).resolve() == ROOT.resolve():
        cfg = boards.load(name)
    else:   # a copy of the tree (tests): its own file, under the same module name boards.load gives
        spec = importlib.util.spec_from_file_location("boards." + name, str(Path(root) / "boards" / (name + ".py")))
        cfg = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(cfg)
        except Exception as e:
            raise ValueError("boards/%s.py cannot be loaded: %s: %s" % (name, type(e).__name__, e)) from None
    check(cfg)
    from firmware.cpufreq import problem   # (main.py's clock setting: the device would keep its clock and say why)

    why = problem(cfg)
    if why:
        raise ValueError("boards/%s.py cannot work: %s" % (name, why))
    return cfg


def imported_modules(entries, root=ROOT):
    """The engine/ and firmware/ source files a runtime imports, starting from its entry files (main.py for
    MicroPython, code.py + boot.py for CircuitPython): every import statement, those inside functions too,
    followed through the modules it reaches. So hw_circuitpython.py never lands on a MicroPython board."""
    import ast

    root = Path(root)

    def module_file(dotted):
        p = root.joinpath(*dotted.split("."))
        if (p / "__init__.py").is_file():
            return p / "__init__.py"
        if p.with_suffix(".py").is_file():
            return p.with_suffix(".py")
        return None

    seen = set()
    todo = [Path(root, e) for e in entries]
    while todo:
        f = todo.pop()
        tree = ast.parse(f.read_text(encoding="utf-8"), str(f))
        names = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.append(node.module)
                names += [node.module + "." + a.name for a in node.names]   # `from firmware import boardcheck`
        for name in names:
            if name.split(".")[0] not in PACKAGES:
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):    # a package's __init__ is imported on the way
                src = module_file(".".join(parts[:i]))
                if src is not None and src not in seen:
                    seen.add(src)
                    todo.append(src)
    return sorted(seen)


def record_text(board, files):
    """The manifest: the project, the board file and {path: SHA-256} of every file written ({path: bytes})."""
    return json.dumps({"project": PROJECT, "board": board,
                       "files": {p: hashlib.sha256(files[p]).hexdigest() for p in sorted(files)}}, sort_keys=True).encode()
