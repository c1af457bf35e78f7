"""Board files as the firmware reads them: constants only, every field the firmware needs, no pin used twice, clear errors for bad names and fields."""
import types

import pytest

import boards
from firmware.hw import build
from tools.sim.fakehw import FakeBoard
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg


def test_wrong_board_name_lists_valid_ones():
    with pytest.raises(ValueError) as e:
        boards.load("pico2")
    assert ", ".join(boards.names()) in str(e.value)


def test_bad_board_fields_are_clear_errors():
    cfg = Cfg(KEYPAD_TYPE="matrix5x5")
    fb = FakeBoard(Cfg())
    with pytest.raises(ValueError, match="KEYPAD_TYPE"):
        build(cfg, fb.Pin, fb.NeoPixel, fb.clock)
    cfg = Cfg(COLOR_ORDER="GRBW")
    with pytest.raises(ValueError, match="COLOR_ORDER"):
        VirtualDevice(cfg)


@pytest.mark.parametrize("name", boards.NAMES)
def test_board_files_are_wiring_only_and_complete(name):
    mod = boards.load(name)
    public = {k: v for k, v in vars(mod).items() if not k.startswith("__")}
    assert all(k.isupper() for k in public), "board files hold constants only"
    assert not any(isinstance(v, (types.FunctionType, types.ModuleType)) for v in public.values())
    for field in ("NAME", "LED_PIN", "MATRIX_LAYOUT", "MATRIX_ORIGIN", "MATRIX_ROTATION", "COLOR_ORDER", "GAMMA",
                  "STATUS_LEDS", "CURRENT_BUDGET_MA", "MA_PER_CHANNEL", "BRIGHTNESS", "KEYPAD_TYPE", "PAD_A", "PAD_B",
                  "PAD_B_ROTATED", "BUZZER_PIN"):
        assert hasattr(mod, field), field
    assert mod.NAME == name
    pins = [mod.LED_PIN] + ([mod.BUZZER_PIN] if mod.BUZZER_PIN is not None else [])
    for pad in (mod.PAD_A, mod.PAD_B):
        pins += list(pad.get("rows", ())) + list(pad.get("cols", ())) + list(pad.get("pins", ()))
    assert len(pins) == len(set(pins)), "a pin is used twice"


@pytest.mark.parametrize("name", [n for n in boards.NAMES if getattr(boards.load(n), "BUZZER_PIN", None) is not None
                                  and getattr(boards.load(n), "PLATFORM", None) not in ("circuitpython", "linux")])
def test_the_buzzer_is_a_pwm_made_silent(name):
    cfg = boards.load(name)
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, PWM=fb.PWM)
    assert hw.buzzer is not None and hw.buzzer.duty_u16() == 0
    assert 2000 <= hw.buzzer.freq() <= 4000
    assert cfg.BUZZER_PIN in fb.pins
