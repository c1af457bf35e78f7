"""Kept between runs and fresh every launch: the per-user state folder, # in attract mode, remembered settings, the score screen, seeds, the title following the firmware's mode, play's option checks."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from tools.sim import Device, cli, state
from tools.sim import terminal as st
from tools import play

DEMO = (ROOT / "docs" / "demo-game.txt").read_text()   # black wins; a1 stays empty


def test_state_folder_follows_xdg(tmp_path):
    assert state.state_dir({"XDG_STATE_HOME": str(tmp_path / "x")}) == str(tmp_path / "x" / "what-the-shell")
    assert (tmp_path / "x" / "what-the-shell").is_dir()
    home = {"HOME": str(tmp_path / "h"), "XDG_STATE_HOME": "relative/is/ignored"}
    assert state.state_dir(home) == str(tmp_path / "h" / ".local" / "state" / "what-the-shell")


def test_the_terminal_simulator_keeps_state_by_default(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(st, "run", lambda args: seen.append(args) or 0)
    assert cli.main(["--mode", "2p"]) == 0
    assert seen[-1].store == str(tmp_path / "what-the-shell")
    assert cli.main(["--mode", "2p", "--forget"]) == 0
    assert seen[-1].store is None
    assert play.main(["--sim", "--level", "hard"]) == 0          # ./wts play: the same default
    assert seen[-1].store == str(tmp_path / "what-the-shell") and seen[-1].mode == "hard"


def test_scores_are_kept_and_shown(tmp_path):
    dev = Device(board="pico", mode="2p", store_dir=str(tmp_path), seed=1)
    dev.run_script(DEMO)
    dev.advance(2000)                            # game over: kept at once
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["2p"] == [1, 0, 0] == dev.tally("2p")
    scr = st.compose(st.View(title="t", said=dev.said, tally=dev.tally("2p")), 110, 40)
    assert "Game over: black wins: 5 in a row (so far: black 1, white 0, draws 0)" in st._ESC.sub("", scr)
    dev.advance(10000)                           # the score screen, then the next game
    # The score screen lights black's tally from a1 (empty on the final board): only with scores kept.
    lit = [px for t, px in dev.frames if t > 27000 and dev.cell_pixels(px)[0][2] > 40]
    assert lit, "the score screen never showed black's win"
    blank = Device(board="pico", mode="2p", seed=1)
    blank.run_script(DEMO)
    blank.advance(12000)
    assert not [px for t, px in blank.frames if t > 27000 and blank.cell_pixels(px)[0][2] > 40]


def _menu(dev):
    dev.press("A", "*")
    dev.advance(2300)
    dev.release("A", "*")
    dev.advance(200)
    assert dev.mode_now == "menu"


def test_hash_in_attract_mode_returns_to_the_last_mode_of_an_earlier_run(tmp_path):
    dev = Device(board="pico", mode="attract", store_dir=str(tmp_path), seed=1)
    dev.advance(500)
    dev.tap("A", "1")                            # any key: the menu
    dev.advance(300)
    assert dev.mode_now == "menu"
    dev.tap("A", "3")                            # 3: against the computer, medium
    dev.advance(300)
    assert dev.mode_now == "medium"
    again = Device(board="pico", mode="attract", store_dir=str(tmp_path), seed=2)
    again.advance(500)
    again.tap("A", "#")
    again.advance(300)
    assert again.mode_now == "medium"


def test_brightness_and_seating_are_remembered(tmp_path):
    dev = Device(board="pico", mode="2p", store_dir=str(tmp_path), seed=1)
    _menu(dev)
    dev.tap("A", "8")                            # brightness up
    dev.tap("A", "9")                            # seating: pad B no longer turned
    dev.advance(300)
    bright, seat = dev.app.disp.brightness, dev.app.entries[1].rotated
    again = Device(board="pico", mode="2p", store_dir=str(tmp_path), seed=1)
    assert again.app.disp.brightness == bright != Device(board="pico", mode="2p").\
        app.disp.brightness
    assert again.app.entries[1].rotated == seat is False
    assert again.pad_b_turned() is False
    scr = st.compose(st.View(title="t", b_turned=again.pad_b_turned()), 110, 40)
    assert "not turned" in scr and "turned 180" not in scr      # the key map says how pad B sits now


def test_title_and_key_map_follow_a_mode_switch_in_the_menu():
    dev = Device(board="pico", mode="easy", seed=1)
    assert dev.mode_now == "easy"
    _menu(dev)
    dev.tap("A", "1")                            # two players
    dev.advance(300)
    assert dev.mode_now == "2p"
    said = [t for _, k, t in dev.said if k == "mode"]
    assert said == ["easy", "menu", "2p"]
    scr = st.compose(st.View(mode=dev.mode_now, title="t", said=dev.said), 110, 40)
    assert "Pad B (white): right hand" in scr and "the computer" not in scr


def test_play_loop_redraws_title_after_the_firmware_changes_mode():
    """The terminal loop reads the device's mode every frame (it went stale before: title and panel stayed 'easy')."""
    import fcntl, os, pty, struct, termios, threading
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 110, 0, 0))
    out, stop = [], threading.Event()

    def drain():
        while not stop.is_set():
            try:
                out.append(os.read(master, 65536))
            except OSError:
                return

    th = threading.Thread(target=drain, daemon=True)
    th.start()

    from tools.sim.interface import SimDevice

    class Dev(SimDevice):
        def _advance(self, ms):
            self.t += ms
            if self.t > 300:
                self.mode_now = "2p"

        def close(self):
            pass
    try:
        st.play(lambda: Dev(type("B", (), {"GAMMA": 2.2, "BRIGHTNESS": 0.25}), "fake", "easy", "fake", 0), "title", slave,
                slave, max_seconds=1.0)
    finally:
        stop.set()
        os.close(slave)
        th.join(2)
        os.close(master)
    screen = b"".join(out).decode("utf-8", "replace")
    last = screen.split("\x1b[H")[-1]
    assert "two players" in last and "right hand" in last and "the computer (easy)" not in last


def test_every_launch_gets_a_fresh_seed_and_a_seed_replays_a_game(tmp_path):
    seeds = {Device(board="pico", mode="2p").seed for _ in range(4)}
    assert len(seeds) > 1
    script = tmp_path / "s.txt"
    script.write_text("A move e5\nsync\nA move a1\nsync\nA move i1\nsync\n")
    # Each replay is a new launch, as a player would do it: `--seed N` in a fresh process.
    outs = []
    for seed in ("11", "11", "12"):
        r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--mode", "hard", "--seed", seed,
                            "--narrate", "--script", str(script)], cwd=str(ROOT), capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    with pytest.raises(ValueError, match="seed"):
        Device(board="pico", seed=-1)


def test_headless_without_a_seed_says_which_it_used(tmp_path, capsys):
    f = tmp_path / "s.txt"
    f.write_text("A move e5\nsync\n")
    args = cli.build_parser().parse_args(["--headless", "--mode", "easy", "--script", str(f)])
    cli.run_headless(args)
    err = capsys.readouterr().err
    assert "seed" in err and "--seed" in err


@pytest.mark.parametrize("argv,msg", [
    (["--sim", "--mode", "2p", "--level", "hard"], "has no computer"),
    (["--sim", "--mode", "easy", "--level", "hard"], "two different levels"),
    (["--sim", "--board", "nosuch"], "valid boards"),
    (["--sim", "--seed", "abc"], "usage: ./wts play"),       # told by ./wts play itself, not by the simulator
])
def test_play_refuses_contradictions_with_one_line(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        play.main(argv)
    assert e.value.code == 2 and msg in capsys.readouterr().err
