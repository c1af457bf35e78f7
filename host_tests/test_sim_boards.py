"""A copied board file works everywhere (docs/boards.md "Your own board file"): boards are found from the files in boards/, by sim, render, deploy, vboard and the MicroPython guest."""
import os
import shutil
import subprocess
import sys

import pytest

import boards
from conftest import ROOT


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A copy of the project with boards/myboard.py copied from pico.py as docs/boards.md says (it keeps NAME = "pico")."""
    dst = tmp_path_factory.mktemp("clone")
    skip = shutil.ignore_patterns("node_modules", "__pycache__", ".pytest_cache", "*.pyc")
    for d in ("engine", "firmware", "boards", "tools", "docs", "host_tests"):
        shutil.copytree(ROOT / d, dst / d, ignore=skip)
    for f in ("main.py", "package.json"):
        if (ROOT / f).exists():
            shutil.copy(ROOT / f, dst / f)
    if (ROOT / "tools" / "node" / "node_modules").is_dir():
        os.symlink(ROOT / "tools" / "node" / "node_modules", dst / "tools" / "node" / "node_modules")
    text = (dst / "boards" / "pico.py").read_text()
    assert 'NAME = "pico"' in text
    (dst / "boards" / "myboard.py").write_text(text.replace("LED_PIN = 28", "LED_PIN = 27", 1))
    return dst


def run(checkout, *args, code=None):
    cmd = [sys.executable] + (["-c", code] if code else ["-m"] + list(args))
    return subprocess.run(cmd, cwd=str(checkout), capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(checkout)))


def test_names_are_the_files():
    assert boards.names() == sorted(p.stem for p in (ROOT / "boards").glob("*.py") if not p.stem.startswith("_"))
    assert "pico" in boards.names() and "_chips" not in boards.names()
    with pytest.raises(ValueError, match="valid boards: .*pico"):
        boards.load("nosuch")
    with pytest.raises(ValueError):
        boards.load("../pico")


def test_one_list_for_every_tool():
    from tools import deploy
    from tools.upy import vboard
    assert deploy.board_names() == vboard.board_names() == boards.names()


def test_copied_board_in_the_simulator(checkout):
    r = run(checkout, "tools.sim", "--headless", "--board", "myboard", "--script", "docs/demo-game.txt")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("result: black")
    r = run(checkout, "tools.sim", "--help")
    assert "myboard" in r.stdout


def test_copied_board_in_render(checkout, tmp_path):
    out = tmp_path / "w.png"
    r = run(checkout, "tools.render", "wiring", "--board", "myboard", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.is_file() and "boards/myboard.py" in r.stdout


def test_copied_board_in_deploy_and_vboard(checkout):
    code = ("from tools import deploy\nfrom tools.upy import vboard\nimport boards\n"
            "print(deploy.board_names(), vboard.board_names(), deploy.board_platform('myboard'), boards.load('myboard').LED_PIN)")
    r = run(checkout, code=code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("'myboard'") == 2 and r.stdout.strip().endswith("rp2 27")


def test_copied_board_in_the_test_parametrisation(checkout):
    code = "import boards\nprint(boards.NAMES)"
    assert "'myboard'" in run(checkout, code=code).stdout


@pytest.mark.needs_node
def test_copied_board_inside_micropython(checkout):
    code = ("from tools.sim import Device\n"
            "d = Device(board='myboard', mode='2p', runtime='micropython', seed=1)\n"
            "d.move('A', 'e5'); d.move('B', 'e5'); d.sync()\n"
            "print(d.board_rows()[4], [t for _, k, t in d.said if k == 'egg'])\nd.close()")
    r = run(checkout, code=code)
    assert r.returncode == 0, r.stderr
    assert "....e...." in r.stdout and "both chose e5: egg #1 laid" in r.stdout
