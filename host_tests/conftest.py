"""Shared pytest fixtures: project paths, and the rule that Node-backed tests skip locally but must run in CI."""
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# ../shared/conformance when it is beside the checkout, else the copy kept here
from tools.conformance import CASES_DIR as CONFORMANCE  # noqa: E402

# The simulator speaks the system locale's language (tools/sim/language.py); the tests read its English words,
# also on a Dutch machine. (The tests of the language choice pass their own environment.)
from tools.sim.language import from_locale  # noqa: E402

if from_locale() not in (None, "en"):
    os.environ["LC_ALL"] = "C.UTF-8"


def node_major():
    """The major version of the `node` on PATH (18 for v18.19.1), or None if it does not say."""
    import subprocess
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        return int(out.lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _node_ready():
    """Node and the pinned npm packages are both needed for real MicroPython."""
    if shutil.which("node") is None:
        return "node is not installed (Node 20+ runs these tests; see docs/emulators.md)"
    major = node_major()
    if major is None or major < 20:
        return "Node 20 or newer is needed for real MicroPython, %s found (see docs/emulators.md)" % (
            "v%d" % major if major is not None else "an unreadable version")
    if not (ROOT / "tools" / "node" / "node_modules").is_dir():
        return "npm packages missing: run `./wts setup` (npm ci in tools/node)"
    return None


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_node: runs real MicroPython under Node")


def pytest_collection_modifyitems(config, items):
    why = _node_ready()
    if why is None:
        return
    if os.environ.get("CI"):
        # CI has Node: a skip there would hide a broken MicroPython run, so
        # the tests run anyway and fail loudly with the missing piece.
        return
    for item in items:
        if "needs_node" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=why))


# -- the emulated Pico (tools/rp2040): MicroPython's RPI_PICO UF2 on rp2040js --
@pytest.fixture(scope="session")
def needs_uf2():
    """Skip (with the reason) when Node, rp2040js, the UF2 or the boot ROM is missing; under CI fail instead."""
    from tools.rp2040 import uf2_problem

    why = uf2_problem()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the emulated-Pico tests: " + why)
        pytest.skip(why)


@pytest.fixture(scope="session")
def rp2_image(needs_uf2, tmp_path_factory):
    """A flash image with the game deployed by tools.deploy (done once per session; copy it before booting)."""
    from tools.rp2040 import deployed_image

    return deployed_image(tmp_path_factory.mktemp("rp2040") / "deployed.img")


def random_positions(n, seed=11, max_turns=45):
    """n ongoing positions reached by random play (0..max_turns turns), captures and eggs included: for bot and tournament tests."""
    import random

    from engine import Game, ONGOING

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        g = Game()
        for _ in range(rng.randrange(0, max_turns + 1)):
            empty = [i for i in range(81) if g.cell(i) == 0]
            g.play(rng.choice(empty), rng.choice(empty))
            if g.result != ONGOING:
                break
        if g.result == ONGOING:
            out.append(g)
    return out
