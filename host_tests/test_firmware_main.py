"""main.py, the device launcher: builds the hardware from board_config with machine/neopixel/time, honours safe boot, explains a missing config."""
import sys
import types

import boards
from conftest import ROOT
from tools.sim.fakehw import FakeBoard


def _device_modules(monkeypatch, cfg, fb):
    machine = types.ModuleType("machine")
    machine.Pin = fb.Pin
    machine.PWM = fb.PWM
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = fb.NeoPixel
    time = types.ModuleType("time")
    for name in ("ticks_ms", "ticks_diff", "ticks_add", "sleep_ms"):
        setattr(time, name, getattr(fb.clock, name))
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setitem(sys.modules, "time", time)
    if cfg is not None:
        monkeypatch.setitem(sys.modules, "board_config", cfg)
    else:
        monkeypatch.delitem(sys.modules, "board_config", raising=False)


def test_main_safe_boot_on_the_real_launcher_path(monkeypatch, capsys, tmp_path):
    cfg = boards.load("pico")
    monkeypatch.setattr(cfg, "STORAGE_DIR", str(tmp_path), raising=False)
    fb = FakeBoard(cfg)
    frames = []
    fb.on_frame = lambda t, raw: frames.append(bytes(raw))
    fb.set_key(0, "*", True)  # held at power-up
    _device_modules(monkeypatch, cfg, fb)
    code = compile((ROOT / "main.py").read_text(), "main.py", "exec")
    exec(code, {"__name__": "__main__"})  # returns: safe boot skips the game
    out = capsys.readouterr().out
    assert "safe boot" in out
    assert frames and max(frames[-1]) <= 6
    assert set(fb.pins) >= {28, 2, 3, 4, 5, 6, 7, 8, 10, 16}  # the pico wiring was built
    assert fb.tones and fb.tones[-1][2] == 0  # the buzzer is a PWM, silent


def test_main_gives_the_firmware_entropy_from_os_urandom(monkeypatch):
    cfg = boards.load("pico")
    fb = FakeBoard(cfg)
    _device_modules(monkeypatch, cfg, fb)
    drawn = []
    import os

    monkeypatch.setattr(os, "urandom", lambda n: drawn.append(n) or bytes([0xFF, 1, 2, 3][:n]))
    ns = {"__name__": "main_under_test"}
    src = (ROOT / "main.py").read_text().replace("\nmain()\n", "\n")  # definitions only
    exec(compile(src, "main.py", "exec"), ns)
    _, hw = ns["hardware"]()
    assert hw.entropy() == (0x3F << 24 | 1 << 16 | 2 << 8 | 3) and drawn == [4]


def test_main_without_board_config_says_what_to_do(monkeypatch, capsys):
    cfg = boards.load("pico")
    fb = FakeBoard(cfg)
    _device_modules(monkeypatch, None, fb)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(ROOT / "boards")])
    code = compile((ROOT / "main.py").read_text(), "main.py", "exec")
    exec(code, {"__name__": "__main__"})
    out = capsys.readouterr().out
    assert "cannot start" in out and "tools.deploy" in out
