"""The menu (firmware/menu.py): modes picked by key, brightness, seating and volume saved, # for the key test, idle and * back to attract mode."""
import json

import pytest

from firmware.modes import M_ATTRACT, M_MENU, M_2P, M_EASY, M_MEDIUM, M_HARD, M_TUTORIAL, M_KEYTEST, MODE_NAMES, mode_number
from firmware.settings import BRIGHTNESS_LEVELS
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg


@pytest.mark.parametrize("key,mode", [("1", M_2P), ("2", M_EASY), ("3", M_MEDIUM), ("4", M_HARD), ("5", M_TUTORIAL),
                                      ("6", M_ATTRACT), ("#", M_KEYTEST), ("*", M_ATTRACT)])
def test_menu_keys_pick_modes(key, mode):
    dev = VirtualDevice(Cfg(), mode="menu")
    dev.run(parse_script("A %s\nwait 100" % key))
    assert dev.app.mode == mode


def test_menu_brightness_and_seating_persist(tmp_path):
    dev = VirtualDevice(Cfg(), mode="menu", store_dir=str(tmp_path))
    app = dev.app
    b0 = app.disp.brightness
    dev.run(parse_script("A 8\nA 8\nA 9\nwait 100"))
    assert app.disp.brightness > b0
    assert app.entries[1].rotated is False
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert saved["brightness"] == 5 and saved["seating"] == 0
    dev.run(parse_script("A 2\nwait 100"))  # vs computer, easy
    assert app.mode == M_EASY and app.bots[1] is not None
    dev2 = VirtualDevice(Cfg(), mode="attract", store_dir=str(tmp_path))
    assert dev2.app.disp.brightness == BRIGHTNESS_LEVELS[5] and dev2.app.entries[1].rotated is False
    dev2.run(parse_script("A #\nwait 100"))  # # in attract mode: straight back to the last mode
    assert dev2.app.mode == M_EASY


def test_menu_shows_the_volume_on_status_led_b():
    dev = VirtualDevice(Cfg(), mode="menu")
    seen = []
    for _ in range(4):
        dev.advance(60)
        seen.append((dev.app.sound.volume, dev.app.disp.cur[82]))
        dev.run(parse_script("A 0"))
    assert [v for v, _ in seen] == [2, 3, 0, 1]
    assert len({c for _, c in seen}) == 4  # each step looks different
    assert seen[2][1] >> 4 == 5  # muted: red


def test_menu_goes_back_to_attract_mode_after_a_minute():
    dev = VirtualDevice(Cfg(), mode="menu")
    dev.advance(59000)
    assert dev.app.mode == M_MENU
    dev.advance(2000)
    assert dev.app.mode == M_ATTRACT


def test_mode_names_have_one_home():
    assert [mode_number(n) for n in MODE_NAMES] == list(range(len(MODE_NAMES)))
    with pytest.raises(ValueError, match="valid modes: attract, menu, 2p"):
        mode_number("chess")
    from tools.sim import device

    assert set(device.MODES) <= set(MODE_NAMES)


def test_every_menu_key_has_a_label_and_the_simulator_lists_them():
    import firmware.menu
    from tools.sim import narrate, terminal

    assert not hasattr(firmware.menu, "LABELS")  # the device has no words: they are the simulator's (narrate.py)
    keys = [k for k, _ in narrate.menu_items()]
    assert keys == list("1234567890#*")
    assert terminal.menu_items() == narrate.menu_items()
    for k in keys:  # every labelled key does something in the menu
        dev = VirtualDevice(Cfg(), mode="menu")
        before = (dev.app.mode, dev.app.disp.brightness, dev.app.entries[1].rotated, dev.app.sound.volume)
        dev.run(parse_script("A %s\nwait 100" % k))
        after = (dev.app.mode, dev.app.disp.brightness, dev.app.entries[1].rotated, dev.app.sound.volume)
        assert after != before, k
