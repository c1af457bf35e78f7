"""Every simulated device kind implements tools/sim/interface.py's SimDevice, the terminal UI's only view of a device: the same members answer the same way in this process, on a CircuitPython board's fakes and in MicroPython (the emulated Pico: test_rp2040_sim.py)."""
import pytest

from engine import Game
from tools.sim.narrate import menu_items
from tools.sim import terminal
from tools.sim.device import Device, CpythonDevice, UpyDevice, RUNTIMES
from tools.sim.interface import SimDevice, NPIX
from tools.sim.rp2040 import Rp2040Device

# What a kind must provide itself (the interface's versions raise NotImplementedError).
HOOKS = ("_press", "_release", "_tap", "_move", "_advance", "sync", "run", "board_rows", "result_name", "close")


def check_contract(dev, runtime, narrates=True):
    """The interface's promises on a running device: identity, frames, words, reports, keys, time, read-back."""
    assert isinstance(dev, SimDevice) and dev.runtime == runtime in RUNTIMES
    assert isinstance(dev.seed, int) and isinstance(dev.board, str) and hasattr(dev.cfg, "LED_COUNT")
    assert dev.menu_labels() == menu_items()
    assert dev.pad_b_turned() in (True, False, None)
    tally = dev.tally()
    assert tally is None or (len(tally) == 3 and all(isinstance(n, int) for n in tally))
    assert dev.game() is None or isinstance(dev.game(), Game)
    dev.move("A", "e5")
    dev.move("B", 30)                    # d4, as an index
    assert isinstance(dev.sync(), int)
    dev.advance(100.0)                   # a float is whole ms
    assert len(dev.last_pixels) == NPIX and all(len(p) == 3 for p in dev.last_pixels)
    assert len(dev.cell_pixels()) == NPIX
    rows = dev.board_rows()
    assert rows[4][4] == "B" and rows[3][3] == "W"
    assert dev.result_name() == "ongoing"
    assert dev.report() == "\n".join(rows) + "\nresult: ongoing"
    if narrates:
        assert "black e5, white d4" in [text for _, kind, text in dev.said if kind == "place"]
    assert dev.mode_now == "2p"
    screen = terminal._ESC.sub("", terminal.compose(terminal.View.of(dev, "title"), 110, 40))
    assert "title · " in screen and "Pad A (black)" in screen
    with pytest.raises(ValueError, match="pad must be 'A' or 'B'"):
        dev.tap("C", "5")


@pytest.mark.parametrize("kind", [CpythonDevice, UpyDevice, Rp2040Device])
def test_every_kind_is_a_sim_device_with_its_own_hooks(kind):
    assert issubclass(kind, SimDevice)
    missing = [h for h in HOOKS if getattr(kind, h) is getattr(SimDevice, h)]
    assert missing == []


@pytest.mark.parametrize("board", ["pico", "feather_rp2040"])   # feather: CircuitPython's modules faked under CPython
def test_the_cpython_kinds_keep_the_contract_and_report_everything(board, tmp_path):
    dev = Device(board=board, mode="2p", seed=1, store_dir=str(tmp_path))
    try:
        assert type(dev) is CpythonDevice
        check_contract(dev, "cpython")
        assert dev.pad_b_turned() is bool(getattr(dev.cfg, "PAD_B_ROTATED", True))
        assert dev.tally() == [0, 0, 0] and dev.game().turns == 1
    finally:
        dev.close()
        dev.close()                      # closing twice is harmless


@pytest.mark.needs_node
def test_the_micropython_kind_keeps_the_contract():
    dev = Device(board="pico", mode="2p", runtime="micropython", seed=1)
    try:
        assert type(dev) is UpyDevice
        check_contract(dev, "micropython")
        assert dev.pad_b_turned() is None and dev.tally() is None and dev.game() is None   # they stay in the guest
    finally:
        dev.close()
        dev.close()


def test_a_bad_runtime_mode_or_seed_opens_nothing():
    with pytest.raises(ValueError, match="valid runtimes: cpython, micropython, rp2040"):
        Device(runtime="jython")
    with pytest.raises(ValueError, match="valid modes"):
        Device(mode="chess")
    with pytest.raises(ValueError, match="seed must be"):
        Device(seed=1 << 30)


def test_the_terminal_refuses_what_is_not_a_sim_device():
    import os
    import pty

    master, slave = pty.openpty()
    try:
        with pytest.raises(TypeError, match="SimDevice"):
            terminal.play(lambda: object(), "t", slave, slave, max_seconds=1)
    finally:
        os.close(slave)
        os.close(master)
