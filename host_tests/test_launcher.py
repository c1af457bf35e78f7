"""The launcher (firmware/launcher.py): boot-time holds (safe boot, key test), crash log and restart, and a dark strip and silent buzzer on every way out."""
import json

import pytest

from firmware import app as fwapp
from firmware import launcher
from firmware.hw import build
from firmware.launcher import launch
from firmware.modes import M_KEYTEST
from tools.sim.fakehw import FakeBoard
from firmware_helpers import Cfg


def _board():
    cfg = Cfg()
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, PWM=fb.PWM, entropy=lambda: 7)
    frames = []
    fb.on_frame = lambda t, raw: frames.append(bytes(raw))
    return cfg, fb, hw, frames


def _dark(frames, fb):
    return frames and not any(frames[-1]) and fb.tones[-1][2] == 0


def test_safe_boot_skips_game_and_forces_minimum_brightness(tmp_path):
    cfg, fb, hw, frames = _board()
    fb.set_key(0, "*", True)
    assert launch(cfg, hw, store_dir=str(tmp_path)) == "safe"
    assert json.loads((tmp_path / "settings.json").read_text())["brightness"] == 0
    assert frames and 0 < max(frames[-1]) <= 6  # two dim blue status LEDs: the game was skipped
    # Next boot without *: the game starts, dim.
    fb.set_key(0, "*", False)
    ticks = []
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=lambda: ticks.append(1) or len(ticks) > 50) == "stopped"


def test_holding_hash_at_power_up_starts_the_key_test(monkeypatch):
    cfg, fb, hw, frames = _board()
    modes = []

    class Seen(fwapp.App):
        def set_mode(self, m):
            modes.append(m)
            super().set_mode(m)

    monkeypatch.setattr(launcher, "App", Seen)
    fb.set_key(0, "#", True)
    n = []
    assert launch(cfg, hw, stop=lambda: n.append(1) or len(n) > 5) == "stopped"
    assert modes[0] == M_KEYTEST


def test_launcher_logs_a_crash_and_restarts(tmp_path, monkeypatch):
    cfg, fb, hw, frames = _board()
    starts = []

    class Boom(fwapp.App):
        def __init__(self, *a, **k):
            starts.append(1)
            super().__init__(*a, **k)

        def tick(self):
            if len(starts) < 3:
                raise RuntimeError("boom %d" % len(starts))
            return super().tick()

    monkeypatch.setattr(launcher, "App", Boom)
    n = []
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=lambda: n.append(1) or len(n) > 20) == "stopped"
    assert len(starts) == 3
    log = (tmp_path / "error.log").read_text()
    assert "boom 1" in log and "boom 2" in log and "RuntimeError" in log


class _Loud(fwapp.App):
    """An app that lights the board and beeps, then leaves the way `how` says."""

    how = "stop"

    def run(self, stop=None):
        for _ in range(30):
            self.tick()
            self.clock.sleep_ms(10)
        self.sound.play(0, self.clock.ticks_ms())
        self.disp.set_brightness(1.0)
        for i in range(81):
            self.disp.put(i, 6 << 4 | 15)
        self.disp.show()
        if _Loud.how == "ctrl-c":
            raise KeyboardInterrupt
        if _Loud.how == "crash":
            raise RuntimeError("boom")
        if _Loud.how == "exit":
            raise SystemExit


@pytest.mark.parametrize("how,result", [("stop", "stopped"), ("crash", "crashed"), ("ctrl-c", KeyboardInterrupt),
                                        ("exit", SystemExit)])
def test_every_way_out_leaves_the_strip_dark_and_the_buzzer_silent(how, result, monkeypatch):
    # Before: after a crash, Ctrl-C or a deploy's interrupt the last frame stayed lit.
    cfg, fb, hw, frames = _board()
    _Loud.how = how
    monkeypatch.setattr(launcher, "App", _Loud)
    if isinstance(result, str):
        assert launch(cfg, hw, max_restarts=1) == result
    else:
        with pytest.raises(result):
            launch(cfg, hw, max_restarts=1)
    assert max(frames[-2]) > 0  # it was lit ...
    assert _dark(frames, fb)  # ... and is dark now


def test_a_second_ctrl_c_while_blanking_still_leaves_it_dark(monkeypatch):
    # mpremote (and so the deploy tool) sends Ctrl-C twice: the second can land inside the blanking.
    cfg, fb, hw, frames = _board()
    _Loud.how = "ctrl-c"
    monkeypatch.setattr(launcher, "App", _Loud)
    real_write = hw.np.write
    hits = []

    def write():
        if hits == ["lit"]:
            hits.append("interrupted")
            raise KeyboardInterrupt
        if max(hw.np.buf) > 0:
            hits[:] = ["lit"]
        real_write()

    hw.np.write = write
    with pytest.raises(KeyboardInterrupt):
        launch(cfg, hw)
    assert "interrupted" in hits
    assert _dark(frames, fb)
