"""--store DIR on every runtime: what the firmware saves under MicroPython lands in DIR as under CPython and the next run reads it; a folder that cannot be made is a one-line error."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from tools.sim import Device

DEMO = ROOT / "docs" / "demo-game.txt"   # a 2p game black wins


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "tools.sim", "--headless", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)


def play_demo(runtime, store):
    r = run_cli("--runtime", runtime, "--store", str(store), "--script", str(DEMO), "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("result: black")
    return {name: json.loads((store / name).read_text()) for name in ("settings.json", "scores.json")}


@pytest.mark.needs_node
def test_micropython_runtime_keeps_settings_and_scores_in_the_store_and_reads_them_back(tmp_path):
    store = tmp_path / "upy"
    first = play_demo("micropython", store)
    assert first["scores.json"]["2p"] == [1, 0, 0]
    assert first == play_demo("cpython", tmp_path / "cpy")      # the same files as the CPython runtime writes
    # A second run starts from what the first kept: black's second win is counted on top of the first.
    assert play_demo("micropython", store)["scores.json"]["2p"] == [2, 0, 0]
    assert sorted(p.name for p in store.iterdir()) == ["scores.json", "settings.json"]   # no temp files left


@pytest.mark.needs_node
def test_micropython_runtime_starts_from_a_kept_setting(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps({"seating": 0}))  # pad B not turned: a1 is B's top-left key
    dev = Device(board="pico", mode="2p", runtime="micropython", seed=1, store_dir=str(tmp_path))
    try:
        dev.tap("B", "1")         # block 1 (top left), cell 1 (its top left): a1 when pad B is not turned
        dev.tap("B", "1")
        dev.tap("B", "#")
        dev.move("A", "e5")
        dev.sync()
        assert dev.board_rows()[0][0] == "W"
    finally:
        dev.close()


def test_a_store_folder_that_cannot_be_made_is_a_one_line_error(tmp_path):
    (tmp_path / "file").write_text("")
    bad = tmp_path / "file" / "store"
    with pytest.raises(ValueError, match="cannot keep settings and scores in %s" % bad):
        Device(board="pico", mode="2p", store_dir=str(bad))
    r = run_cli("--store", str(bad), "--script", str(DEMO))
    assert r.returncode != 0 and r.stderr.strip().splitlines()[-1].startswith("tools.sim: cannot keep settings")
    assert not bad.exists()
