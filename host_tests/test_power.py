"""The whole board stays inside its current budget: idle LEDs and the controller come off the top, every frame (full white included) fits what is left."""
import random

import pytest

import boards
from firmware.display import Display, NPIX, NCODES, FLASH, WARM, led_share_ma
from firmware_helpers import Cfg


class Strip:
    """A NeoPixel stand-in that keeps a copy of every frame written."""

    def __init__(self, n=NPIX):
        self.buf = bytearray(n * 3)
        self.frames = []

    def write(self):
        self.frames.append(bytes(self.buf))


def board_ma(cfg, frame):
    """Whole-board current of one written frame, from the wire bytes alone (independent of Display's own bookkeeping)."""
    lit = sum(frame) * cfg.MA_PER_CHANNEL / 255
    return lit + cfg.LED_COUNT * cfg.IDLE_MA_PER_LED + cfg.CONTROLLER_MA


@pytest.mark.parametrize("name", boards.NAMES)
def test_board_files_give_the_idle_and_controller_draw(name):
    cfg = boards.load(name)
    assert 0.5 <= cfg.IDLE_MA_PER_LED <= 2          # WS2812B: about 1 mA each, lit or dark
    assert cfg.CONTROLLER_MA >= 20                  # a microcontroller board: 20-100 mA (a Linux board far more)
    assert led_share_ma(cfg) == cfg.CURRENT_BUDGET_MA - cfg.LED_COUNT * cfg.IDLE_MA_PER_LED - cfg.CONTROLLER_MA


def test_pico_over_usb_leaves_357_ma_for_the_leds():
    # 60 mA for the controller: the RP2040 at 200 MHz and 1.15 V (boards/pico.py CPU_HZ)
    assert led_share_ma(boards.load("pico")) == 500 - 83 - 60


@pytest.mark.parametrize("name", ("pico", "esp32s3"))
@pytest.mark.parametrize("budget", (500, 900, 2000))
def test_every_frame_fits_the_whole_board_budget(name, budget):
    cfg = Cfg(name, BRIGHTNESS=1.0, CURRENT_BUDGET_MA=budget)
    strip = Strip()
    d = Display(strip, cfg)
    rnd = random.Random(budget)
    for i in range(NPIX):                       # full white: the worst case
        d.put(i, (FLASH << 4) | 15)
    d.show()
    for frame in range(400):                     # then many frames changing a few pixels at a time
        for _ in range(rnd.randrange(1, 12)):
            d.put(rnd.randrange(NPIX), rnd.randrange(NCODES))
        if frame % 97 == 0:
            for i in range(NPIX):
                d.put(i, (WARM << 4) | 15)
        d.show()
    worst = 0
    for f in strip.frames:
        ma = board_ma(cfg, f)
        worst = max(worst, ma)
        assert ma <= budget + 1e-9, "a frame draws %.0f mA of a %d mA budget" % (ma, budget)
    assert d.capped > 0
    assert worst > budget * 0.85               # the cap does not throw light away either
    assert d.last_ma + d.base_ma <= budget


def test_a_budget_that_leaves_nothing_for_the_leds_is_refused():
    with pytest.raises(ValueError, match="CURRENT_BUDGET_MA 120 leaves nothing for the LEDs after 83 mA idle"):
        Display(Strip(), Cfg("pico", CURRENT_BUDGET_MA=120))
