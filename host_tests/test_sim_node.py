"""Playing never needs Node: `./wts play` with an old Node (18, as Debian 12 and Ubuntu 24.04 ship) or none, and the Node tests' skip reason."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

import conftest


def fake_bin(tmp_path, node_version=None):
    """A PATH folder with the few commands ./wts uses, plus a fake `node` printing `node_version` (none if None)
    and an `npm` that fails loudly: nothing may install npm packages for playing."""
    b = tmp_path / "bin"
    b.mkdir()
    for cmd in ("sh", "dirname", "cksum", "cut", "cat", "env", "uname", "sed", "grep", "tr"):
        where = shutil.which(cmd)
        if where:
            (b / cmd).symlink_to(where)
    (b / "python3").symlink_to(os.path.realpath(sys.executable))   # the interpreter itself, not a pyenv shim
    if node_version is not None:
        (b / "node").write_text("#!/bin/sh\n"
                                "case \"$1\" in --version) echo %s ;; -e) exit 1 ;; *) exit 1 ;; esac\n" % node_version)
        (b / "npm").write_text("#!/bin/sh\necho 'npm must not run for ./wts play' >&2\nexit 9\n")
        for f in ("node", "npm"):
            (b / f).chmod(0o755)
    return b


@pytest.fixture
def venv_ready():
    # ./wts leaves a stamp per installed set (.wts-stamp-play, -board, -dev; an older wts wrote .wts-stamp).
    if not (ROOT / ".venv" / "bin" / "python").exists() or not list((ROOT / ".venv").glob(".wts-stamp*")):
        pytest.skip(".venv is not set up by ./wts (run ./wts setup)")


@pytest.mark.parametrize("node", ["v18.19.1", None], ids=["node18", "no-node"])
def test_wts_play_works_with_old_or_no_node(tmp_path, venv_ready, node):
    env = dict(os.environ, PATH=str(fake_bin(tmp_path, node)))
    r = subprocess.run([str(ROOT / "wts"), "play", "--help"], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "usage: ./wts play" in r.stdout
    assert "npm must not run" not in r.stderr


@pytest.mark.parametrize("node", ["v18.19.1", None], ids=["node18", "no-node"])
def test_wts_setup_says_where_a_newer_node_comes_from(tmp_path, venv_ready, node):
    env = dict(os.environ, PATH=str(fake_bin(tmp_path, node)))
    r = subprocess.run([str(ROOT / "wts"), "setup"], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "playing works" in r.stderr and "nodejs.org" in r.stderr
    if node:
        assert "v18.19.1 is older than 20" in r.stderr


def test_node_tests_skip_with_the_reason_when_node_is_too_old(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(fake_bin(tmp_path, "v18.19.1")) + os.pathsep + os.environ["PATH"])
    why = conftest._node_ready()
    assert why is not None and "Node 20 or newer" in why and "v18" in why


def test_the_simulator_does_not_load_the_node_runner():
    code = ("import sys\nfrom tools import play\nfrom tools.sim import Device\n"
            "d = Device(board='pico', mode='easy', seed=1)\nd.move('A', 'e5')\nd.sync()\n"
            "assert 'tools.upy' not in sys.modules, 'playing imported tools.upy'\nprint('ok')")
    r = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
