"""Board files against their chip's pin table (firmware/boardcheck.py): every pin exists, none is reserved or a strapping/console pin, and the board facts tools need are there."""
import pytest

import boards
from firmware.boardcheck import CHIPS, board_pin_problem, caution, pin_problem
from firmware.keypad import wiring


def used_pins(cfg):
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    pins = [cfg.LED_PIN] + ([cfg.BUZZER_PIN] if getattr(cfg, "BUZZER_PIN", None) is not None else [])
    for pad in ("A", "B"):
        rows, cols, _ = wiring(getattr(cfg, "PAD_%s_TYPE" % pad, kind), getattr(cfg, "PAD_" + pad))
        pins += list(rows or ()) + list(cols)
    return pins


@pytest.mark.parametrize("name", boards.NAMES)
def test_every_pin_is_usable_on_the_boards_chip(name):
    cfg = boards.load(name)
    assert getattr(cfg, "CHIP", None) in CHIPS or getattr(cfg, "BOARD_PINS", None), "say CHIP (or BOARD_PINS for named pins)"
    pins = used_pins(cfg)
    assert len(pins) == len(set(pins)), "a pin is used twice"
    for p in pins:
        assert board_pin_problem(cfg, p) is None, board_pin_problem(cfg, p)
        assert caution(getattr(cfg, "CHIP", None), p) is None, "GPIO%d is %s" % (p, caution(cfg.CHIP, p))


@pytest.mark.parametrize("name", ("pico", "esp32s3", "sim"))
def test_reference_boards_name_their_chip(name):
    assert boards.load(name).CHIP in CHIPS


@pytest.mark.parametrize("name,platform,machine", [("pico", "rp2", "Raspberry Pi Pico with RP2040"),
                                                   ("esp32s3", "esp32", "Generic ESP32S3 module with Octal-SPIRAM with ESP32S3"),
                                                   ("feather_rp2040", "circuitpython", "Adafruit Feather RP2040 with rp2040")])
def test_real_boards_name_their_port_and_what_they_say_they_are(name, platform, machine):
    # Issue 27: boards are known by what they say about themselves (sys.implementation._machine), never by
    # USB ids: esp32s3 claimed the CP210x/CH340 bridges' ids, which countless other boards carry.
    cfg = boards.load(name)
    assert cfg.PLATFORM == platform and machine in boards.machines(cfg)
    assert not hasattr(cfg, "USB_VIDS")


def test_chips_tables():
    assert pin_problem("rp2040", None, 29) is None                  # the chip has it; a Pico reserves it
    assert "VSYS" in board_pin_problem(boards.load("pico"), 29)
    assert pin_problem(None, None, 999) is None                      # a board file without CHIP: not checked
    assert "no GPIO 24" in pin_problem("esp32s3", None, 24)
    with pytest.raises(ValueError, match="unknown CHIP 'z80'"):
        pin_problem("z80", None, 1)


def test_named_pin_boards_are_checked_by_their_board_pins():
    class Named:
        BOARD_PINS = ("D5", "D6", "LED")
        RESERVED_PINS = {"LED": "the red LED"}
    assert board_pin_problem(Named, "D5") is None
    assert "no pin 'D7'" in board_pin_problem(Named, "D7")
    assert "red LED" in board_pin_problem(Named, "LED")


# ---- the docs' keypad wiring tables say what the board files and parts say -----------------------

PICO_PHYS = {2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 10: 14, 11: 15, 12: 16, 13: 17, 14: 19, 15: 20, 16: 21}


def _readme_row(label):
    from pathlib import Path
    docs = Path(__file__).resolve().parent.parent / "docs"
    text = "\n".join((docs / name).read_text(encoding="utf-8") for name in ("build.md", "boards.md"))
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == label:
            return cells[1:]
    raise AssertionError("docs/build.md and docs/boards.md have no keypad table row %r" % label)


@pytest.mark.parametrize("name,label", [("pico", "Pico"), ("esp32s3", "ESP32-S3")])
@pytest.mark.parametrize("pad", ("A", "B"))
def test_readme_keypad_table_matches_the_board_file(name, label, pad):
    from firmware.keypad import connector
    cfg = boards.load(name)
    wires = connector(cfg.KEYPAD_TYPE, getattr(cfg, "PAD_" + pad))
    if name == "pico":
        want = ["GP%d (pin %d)" % (g, PICO_PHYS[g]) for _, g, _ in wires]
    else:
        want = ["GPIO%d" % g for _, g, _ in wires]
    assert _readme_row("pad %s → %s" % (pad, label)) == want


@pytest.mark.parametrize("part,label", [("adafruit-1824", "Adafruit 1824 (`adafruit-1824`)"),
                                        ("membrane-3x4", "generic 3×4 membrane (`membrane-3x4`)")])
def test_readme_keypad_table_matches_the_parts(part, label):
    from firmware.keypad import PARTS
    _, rows, cols = PARTS[part]
    sig = {}
    for i, p in enumerate(rows):
        sig[p] = "R%d" % (i + 1)
    for i, p in enumerate(cols):
        sig[p] = "C%d" % (i + 1)
    assert _readme_row(label) == [sig[p] for p in range(1, 8)]
    assert _readme_row("keypad connector pin") == [str(p) for p in range(1, 8)]
