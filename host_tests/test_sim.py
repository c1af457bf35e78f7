"""The simulator: Device API, `python -m tools.sim --headless` output and frames, and the same firmware under real MicroPython."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, CONFORMANCE
from tools.sim import Device

RANDOM_GAMES = json.loads((CONFORMANCE / "random-games.json").read_text())


def game_script(case):
    lines = []
    for t in case["turns"]:
        if "error" in t["expect"]:
            break
        lines += ["A move " + t["black"], "B move " + t["white"], "sync"]
    return "\n".join(lines) + "\n", t_last(case)


def t_last(case):
    good = [t for t in case["turns"] if "error" not in t["expect"]]
    return good[-1]["expect"]


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tools.sim", *args], capture_output=True, text=True, cwd=ROOT, input=stdin, timeout=900)


def test_device_api_frames_and_cell_pixels():
    seen = []
    dev = Device(board="pico", mode="2p", on_frame=lambda t, px: seen.append(t))
    dev.move("A", "a1")
    dev.move("B", "i9")
    dev.sync()
    dev.advance(100)
    assert len(dev.frames) == len(seen) > 50
    t, px = dev.frames[-1]
    assert len(px) == 83 and all(len(p) == 3 for p in px)
    cells = dev.cell_pixels(px)
    assert len(cells) == 83
    assert cells[0][2] > cells[0][0]  # a1: black's blue turtle, whatever the strip order
    assert cells[80][0] > 0  # i9: white's
    assert dev.board_rows()[0][0] == "B"
    ts = [f[0] for f in dev.frames]
    assert ts == sorted(ts)


def test_device_press_release_hold():
    dev = Device(board="pico", mode="2p")
    dev.press("A", "*")
    dev.advance(2300)
    dev.release("A", "*")
    dev.advance(100)
    assert dev.app.mode == 1  # menu


def test_headless_cli_prints_board_and_result(tmp_path):
    case = RANDOM_GAMES[4]
    script, want = game_script(case)
    f = tmp_path / "game.txt"
    f.write_text(script)
    frames = tmp_path / "frames.jsonl"
    r = run_cli("--headless", "--mode", "2p", "--script", str(f), "--frames", str(frames))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().split("\n")
    assert lines[:9] == want["board"]
    assert lines[9] == "result: " + want["result"]
    recs = [json.loads(x) for x in frames.read_text().splitlines()]
    assert len(recs) > 100
    assert all(len(x["pixels"]) == 83 and set(x) == {"t", "pixels"} for x in recs)
    assert all(0 <= c <= 255 for x in recs[:50] for p in x["pixels"] for c in p)


def test_headless_cli_errors_are_clear(tmp_path):
    r = run_cli("--headless", "--script", "nope.txt", "--board", "pico9")
    import boards
    assert r.returncode != 0 and "valid boards: %s" % ", ".join(boards.names()) in r.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("A 5\nX move e5\n")
    r = run_cli("--headless", "--script", str(bad))
    assert r.returncode != 0 and "line 2" in r.stderr
    r = run_cli("--headless")
    assert r.returncode != 0 and "--script" in r.stderr


def test_headless_demo_mode_plays_itself(tmp_path):
    f = tmp_path / "wait.txt"
    f.write_text("wait 30000\n")
    r = run_cli("--headless", "--mode", "demo", "--script", str(f), "--seed", "2")
    assert r.returncode == 0, r.stderr
    board = r.stdout.strip().split("\n")[:9]
    assert sum(row.count("B") + row.count("W") + row.count("e") for row in board) >= 4


def test_help_explains_itself():
    r = run_cli("--help")
    assert r.returncode == 0 and "--headless" in r.stdout and "A move e5" in r.stdout


@pytest.mark.needs_node
def test_micropython_runtime_full_game_same_frames_as_cpython(tmp_path):
    case = RANDOM_GAMES[15]  # black wins in 15 turns
    script, want = game_script(case)
    f = tmp_path / "game.txt"
    f.write_text(script)
    outs = {}
    for rt in ("cpython", "micropython"):
        frames = tmp_path / ("frames-%s.jsonl" % rt)
        r = run_cli("--headless", "--mode", "2p", "--runtime", rt, "--script", str(f), "--frames", str(frames))
        assert r.returncode == 0, r.stderr
        lines = r.stdout.strip().split("\n")
        assert lines[:9] == want["board"], rt
        assert lines[9] == "result: " + want["result"]
        outs[rt] = frames.read_text()
    assert outs["cpython"] == outs["micropython"]  # the very same LED frames, bit for bit


@pytest.mark.needs_node
def test_micropython_runtime_device_api_and_other_board(tmp_path):
    case = RANDOM_GAMES[1]
    script, want = game_script(case)
    dev = Device(board="sim", mode="2p", runtime="micropython")
    try:
        dev.run_script(script)
        assert dev.board_rows() == want["board"]
        assert len(dev.frames) > 100
    finally:
        dev.close()


@pytest.mark.needs_node
def test_micropython_runtime_vs_computer(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("A move e5\nsync\nA move d4\nsync\nA move a1\nsync\n")
    r = run_cli("--headless", "--mode", "hard", "--runtime", "micropython", "--script", str(f), "--seed", "3")
    assert r.returncode == 0, r.stderr
    board = r.stdout.split("\n")[:9]
    assert board[0][0] in "Be"  # a1, black's last move (e5 and d4 may have been captured: hard plays well)
    assert sum(row.count("W") + row.count("e") for row in board) >= 1  # the computer moved
    cp = run_cli("--headless", "--mode", "hard", "--runtime", "cpython", "--script", str(f), "--seed", "3")
    assert cp.stdout == r.stdout  # the same bot, the same game on both runtimes


@pytest.mark.needs_node
def test_micropython_runtime_secrecy_same_frames_for_different_pending_moves():
    # Real MicroPython: A locks, B types; every frame up to the reveal is the same whatever they chose.
    outs = []
    for a_cell, b_cell in (("b2", "h8"), ("f3", "d6")):
        dev = Device(board="pico", mode="2p", runtime="micropython")
        try:
            dev.run_script("A move a1\nB move i9\nsync\n")
            t0 = dev.t
            dev.run_script("A move %s\nB move %s\nwait 600\n" % (a_cell, b_cell))
            outs.append([f for f in dev.frames if f[0] > t0])
        finally:
            dev.close()
    assert len(outs[0]) > 30
    assert outs[0] == outs[1]
