"""`python -m tools.sim --runtime rp2040`: the exact firmware image in the simulator ends a script on the same board as the CPython runtime; bad input is one line."""
import shutil
import subprocess
import sys

import pytest

from tools.sim.narrate import menu_items
from tools import ROOT
from tools.sim import Device, terminal
from tools.sim.interface import SimDevice

pytestmark = pytest.mark.usefixtures("needs_uf2")

SCRIPT = "A move e5\nB move e5\nsync\nA move d4\nB move f6\nsync\n"


def test_rp2040_runtime_plays_a_script_to_the_cpython_runtimes_board(rp2_image, tmp_path):
    store = tmp_path / "rp2040"
    store.mkdir()
    shutil.copy(rp2_image, store / "rp2040-pico.img")   # already deployed: tools.deploy finds nothing to copy
    frames = []
    dev = Device(board="pico", mode="2p", runtime="rp2040", seed=1, store_dir=str(store), keep_frames=False,
                 on_frame=lambda t, px: frames.append((t, px)))
    try:
        dev.run_script(SCRIPT)
        got = dev.report()
        # The SimDevice contract (test_sim_interface.py has the other kinds): what stays in the chip is None.
        assert isinstance(dev, SimDevice) and dev.runtime == "rp2040" and dev.mode_now == "2p"
        assert dev.menu_labels() == menu_items() and len(dev.last_pixels) == 83
        assert dev.pad_b_turned() is None and dev.tally() is None and dev.game() is None
        assert "Pad A (black)" in terminal.compose(terminal.View.of(dev, "t"), 110, 40)
    finally:
        dev.close()
        dev.close()                  # closing twice is harmless
    ref = Device(board="pico", mode="2p", runtime="cpython", seed=1, store_dir=str(tmp_path / "cpy"), keep_frames=False)
    ref.run_script(SCRIPT)
    assert got == ref.report()
    assert "e" in got            # the collision left an egg: the LEDs' amber was read back
    assert len(frames) > 100 and all(len(px) == 83 for _, px in frames)
    assert frames == sorted(frames, key=lambda f: f[0])  # emulated ms, in order


def test_rp2040_runtime_with_a_corrupt_uf2_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.uf2"
    bad.write_bytes(b"\x00" * 1024)
    env = dict(__import__("os").environ, WTS_RP2_UF2=str(bad))
    r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--runtime", "rp2040", "--script", "-",
                        "--store", str(tmp_path / "s")], input="A 5\n", capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=120)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines() == ["tools.sim: --runtime rp2040: %s is not a UF2 file (bad magic in block 0)" % bad]


def test_tools_rp2040_refuses_a_port_in_use_in_one_line():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "tools.rp2040", "--port", str(port)], capture_output=True, text=True,
                           cwd=ROOT, timeout=120)
    finally:
        s.close()
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == ["rp2040: port %d on 127.0.0.1 is already in use" % port]


def test_rp2040_runtime_without_a_uf2_says_where_to_get_one(tmp_path):
    env = dict(__import__("os").environ, WTS_RP2_UF2=str(tmp_path / "missing.uf2"))
    r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--runtime", "rp2040", "--script", "-",
                        "--store", str(tmp_path / "s")], input="A 5\n", capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=120)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tools.sim: --runtime rp2040: no MicroPython RPI_PICO UF2")
    assert "micropython.org/download/RPI_PICO" in lines[0]


def _said_in_a_game(runtime, seed, store=None, image=None):
    said = []
    if image is not None:
        store.mkdir(exist_ok=True)
        shutil.copy(image, store / "rp2040-pico.img")
    dev = Device(board="pico", mode="easy", runtime=runtime, seed=seed, store_dir=str(store) if store else None,
                 keep_frames=False, on_say=lambda t, kind, text: said.append((kind, text)))
    try:
        dev.run_script("A move e5\nsync\nA move d4\nsync\nA move c3\nsync\n")
        return dev.report(), said
    finally:
        dev.close()


def test_rp2040_runtime_honours_the_seed_and_tells_what_happens(rp2_image, tmp_path):
    # Issue 27: `--runtime rp2040` printed a seed the chip ignored (main.py seeds from os.urandom) and told nothing.
    got, said = _said_in_a_game("rp2040", 7, tmp_path / "rp2040", rp2_image)
    ref, ref_said = _said_in_a_game("cpython", 7, tmp_path / "cpy")
    assert got == ref                                 # the computer played the same moves: the same game
    turns = [s for s in said if s[0] != "mode"]
    assert len(turns) >= 3 and turns == [s for s in ref_said if s[0] != "mode"]
    assert turns[0] == ("egg", "both chose e5: egg #1 laid")


def test_rp2040_runtime_says_what_it_is_doing_on_a_terminal(rp2_image, tmp_path):
    import os
    from pty_helpers import Terminal

    store = tmp_path / "s"
    store.mkdir()
    shutil.copy(rp2_image, store / "rp2040-pico.img")
    script = tmp_path / "a.txt"
    script.write_text("A 5\n")
    with Terminal([sys.executable, "-m", "tools.sim", "--headless", "--runtime", "rp2040", "--seed", "3",
                   "--script", str(script), "--store", str(store)], cwd=str(ROOT),
                  env=dict(os.environ, PYTHONPATH=str(ROOT))) as term:
        assert term.wait(600) == 0, term.text()
        shown = term.text()
    for step in ("booting the emulated Pico", "deploying the game with tools.deploy", "starting 2p (seed 3)"):
        assert "tools.sim: --runtime rp2040: " + step in shown
