"""firmware/display.py as the one home of colour-order decoding; its dead code stays gone."""
import pytest

import firmware.display as display
from firmware.display import color_offsets


@pytest.mark.parametrize("order,want", [("RGB", (0, 1, 2)), ("GRB", (1, 0, 2)), ("BGR", (2, 1, 0)), ("BRG", (1, 2, 0))])
def test_color_offsets(order, want):
    assert color_offsets(order) == want


@pytest.mark.parametrize("order", ["GRBW", "RRB", "", "rgb", None])
def test_bad_color_order_is_a_one_line_error(order):
    with pytest.raises(ValueError, match="COLOR_ORDER must be a permutation of RGB"):
        color_offsets(order)


def test_fakes_decode_with_the_display_offsets():
    import boards
    from tools.sim.fakehw import FakeBoard

    fb = FakeBoard(boards.load("sim"))            # COLOR_ORDER = "RGB"
    assert fb.decode(bytes([1, 2, 3, 4, 5, 6])) == [(1, 2, 3), (4, 5, 6)]
    fb = FakeBoard(boards.load("pico"))           # GRB
    assert fb.decode(bytes([1, 2, 3])) == [(2, 1, 3)]


def test_dead_code_is_gone():
    assert not hasattr(display, "code")
    assert not hasattr(display.Display, "get") and not hasattr(display.Display, "clear")
