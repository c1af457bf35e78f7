"""Key test mode (firmware/keytest.py): each pad drawn on the matrix, the key pressed lit where it sits, its pad's LED on; left by a hold of * or a minute's quiet."""
import pytest

from firmware.display import BLUE, WARM
from firmware.modes import M_ATTRACT, M_KEYTEST, M_MENU
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg

PHONE = "123A456B789C*0#D"


def _cell(pad, key, rotated=True):
    p = PHONE.index(key)
    r, c = divmod(p, 4)
    if pad == 0:
        return r * 9 + c
    return 80 - (r * 9 + c) if rotated else r * 9 + 5 + c


@pytest.mark.parametrize("board", ["pico", "sim"])
def test_each_key_lights_where_it_sits_on_its_pad(board):
    dev = VirtualDevice(Cfg(board), mode="keytest")
    app = dev.app
    for pad in (0, 1):
        own = BLUE if pad == 0 else WARM
        for key in app.pads[pad].keys:
            dev.press(pad, key)
            dev.advance(60)
            cur = app.disp.cur
            lit = [i for i in range(81) if cur[i] >> 4 == own and cur[i] & 15 == 15]
            assert lit == [_cell(pad, key)], (pad, key)
            assert cur[81 + pad] == (own << 4 | 15)  # its pad's status LED is on
            assert cur[82 - pad] & 15 == 2  # the other's is not
            dev.release(pad, key)
            dev.advance(60)
            assert app.disp.cur[_cell(pad, key)] == (own << 4 | 5)  # the last key stays half lit
    # Every key of both pads has its faint place; nothing else is lit.
    places = {_cell(p, k) for p in (0, 1) for k in app.pads[p].keys}
    assert {i for i in range(81) if app.disp.cur[i]} == places
    assert app.mode == M_KEYTEST


def test_side_by_side_seating_puts_pad_b_top_right():
    dev = VirtualDevice(Cfg(PAD_B_ROTATED=False), mode="keytest")
    dev.press(1, "1")
    dev.advance(60)
    assert dev.app.disp.cur[_cell(1, "1", rotated=False)] == (WARM << 4 | 15)


def test_a_tap_of_star_is_tested_a_hold_leaves_and_quiet_times_out():
    dev = VirtualDevice(Cfg(), mode="keytest")
    dev.tap(1, "*")
    assert dev.app.mode == M_KEYTEST
    dev.press(1, "*")
    dev.advance(2100)
    assert dev.app.mode == M_MENU
    dev.release(1, "*")
    dev = VirtualDevice(Cfg(), mode="keytest")
    dev.advance(59000)
    assert dev.app.mode == M_KEYTEST
    dev.advance(2000)
    assert dev.app.mode == M_ATTRACT

