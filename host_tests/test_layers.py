"""The tree's layers (DEVELOPERS.md "What may import what"): engine <- firmware <- boards/main.py, tools and tests outside the device, no import circles."""
import ast
import os

import pytest

from tools import ROOT

SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".hypothesis", ".pytest_cache", "host_tests",
             "build"}  # build/: ignored outputs, e.g. tools.firmware's unpacked MicroPython source (3,500 files)


def project_modules():
    """{dotted module name: path} of every project .py file outside host_tests."""
    mods = {}
    for root, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), ROOT)[:-3].replace(os.sep, ".")
                mods[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(root, f)
    return mods


def imports(path, mods):
    """Project modules that the file at `path` imports anywhere (top level or inside functions)."""
    deps = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from pkg import sub` depends on the module pkg.sub when there is one, else on pkg
            # (a package's __init__ loading first is Python's doing, not a design dependency).
            names = [node.module + "." + a.name for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name:
                deps.add(name)
    return deps


MODS = project_modules()
GRAPH = {m: imports(p, MODS) - {m} for m, p in MODS.items()}


def test_no_module_imports_one_that_imports_it_back():
    circles = []
    state = {}

    def walk(m, stack):
        state[m] = 1
        for d in sorted(GRAPH.get(m, ())):
            if state.get(d) == 1:
                circles.append(" -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                walk(d, stack + [d])
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            walk(m, [m])
    assert circles == []


def _layer(m):
    return m.split(".")[0]


# What each layer may import from the project (a package's own modules always).
ALLOWED = {
    "engine": {"engine"},
    "firmware": {"engine", "firmware"},
    "boards": {"boards"},
    "main": {"firmware", "engine", "boards"},
}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_device_layers_import_only_below_themselves(layer):
    bad = sorted("%s imports %s" % (m, d) for m, deps in GRAPH.items() if _layer(m) == layer
                 for d in deps if _layer(d) not in ALLOWED[layer])
    assert bad == []


def test_the_scan_sees_the_tree():
    # The checks above would pass vacuously on an empty graph.
    assert {"engine.game", "firmware.app", "tools.sim.fakehw", "boards.pico", "main"} <= set(MODS)
    assert "engine" in GRAPH["firmware.app"] or any(d.startswith("engine") for d in GRAPH["firmware.app"])
