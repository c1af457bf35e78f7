"""Keypad wiring and scanning against the electrical fake: open-drain rows never fight, ghosts are never reported, each part's pin map is the part's, bad specs are refused."""
import pytest

import boards
from firmware.keypad import EventRing, DOWN, PAD_B, PARTS, make_keypad, contacts, connector, wiring
from tools.sim.fakehw import FakeBoard, FloatingRead, ShortCircuit
from tools.sim.vdevice import VirtualDevice

MATRIX_BOARDS = ("pico", "esp32s3")


def pads_on(name):
    """A fake board for `name` and both keypads built on it as the firmware builds them."""
    cfg = boards.load(name)
    fb = FakeBoard(cfg)
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    pads = (make_keypad(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A, fb.Pin, 0),
            make_keypad(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B, fb.Pin, PAD_B))
    return fb, pads


def scan(pads, ring, times=4):
    for _ in range(times):
        for p in pads:
            p.scan(ring)


def events(ring):
    """Queued events as (pad letter, 'down'/'up', key)."""
    out = []
    while True:
        ev = ring.get()
        if ev < 0:
            return out
        out.append(ev)


def named(pads, evs):
    return [("B" if ev & PAD_B else "A", "down" if ev & DOWN else "up", pads[1 if ev & PAD_B else 0].keys[ev & 63]) for ev in evs]


# ---- safe scanning: two keys in a column, an L of three keys -------------------------------------


@pytest.mark.parametrize("name", MATRIX_BOARDS)
@pytest.mark.parametrize("pad", (0, 1))
def test_two_keys_held_in_one_column_do_not_short_and_both_count(name, pad):
    fb, pads = pads_on(name)
    ring = EventRing()
    scan(pads, ring)
    fb.set_key(pad, "5", True)          # a rolling "5 8": 5 still held when 8 goes down
    scan(pads, ring)
    fb.set_key(pad, "8", True)
    scan(pads, ring)
    fb.set_key(pad, "5", False)
    scan(pads, ring)
    fb.set_key(pad, "8", False)
    scan(pads, ring)
    who = "AB"[pad]
    assert named(pads, events(ring)) == [(who, "down", "5"), (who, "down", "8"), (who, "up", "5"), (who, "up", "8")]
    assert fb.shorts == []


@pytest.mark.parametrize("name", MATRIX_BOARDS)
@pytest.mark.parametrize("pad", (0, 1))
@pytest.mark.parametrize("keys,ghost", [("145", "2"), ("569", "8"), ("2#0", "3")])
def test_three_keys_in_an_l_never_report_the_ghost(name, pad, keys, ghost):
    # 1, 4, 5 close rows 1-2 x columns 1-2 but for 2, which reads pressed through 1-4-5.
    fb, pads = pads_on(name)
    ring = EventRing()
    for k in keys:
        fb.set_key(pad, k, True)
        scan(pads, ring)
    got = named(pads, events(ring))
    assert fb.shorts == []
    downs = [k for _, what, k in got if what == "down"]
    assert ghost not in downs
    assert downs == [k for k in keys][:len(downs)]          # real keys, in order, as far as they are unambiguous
    assert len(downs) >= 2
    for k in keys:
        fb.set_key(pad, k, False)
    scan(pads, ring)
    ups = [k for _, what, k in named(pads, events(ring)) if what == "up"]
    assert sorted(ups) == sorted(downs)
    assert all(not pads[pad].held(k) for k in "0123456789*#")


def test_the_whole_device_survives_two_keys_in_a_column_on_both_pads():
    dev = VirtualDevice(boards.load("pico"), mode="2p")
    dev.advance(500)
    for pad in (0, 1):
        dev.press(pad, "2")
        dev.advance(80)
        dev.press(pad, "5")
        dev.press(pad, "8")               # three rows joined through column 2
        dev.advance(80)
        for k in "258":
            dev.release(pad, k)
        dev.advance(200)
    assert dev.board.shorts == []


def test_push_pull_rows_short_through_two_keys():
    # What the old scan did (unscanned rows high push-pull): the fake must catch it.
    cfg = boards.load("pico")
    fb = FakeBoard(cfg)
    rows = [fb.Pin(p, fb.Pin.OUT, value=1) for p in cfg.PAD_A["rows"]]
    [fb.Pin(p, fb.Pin.IN, fb.Pin.PULL_UP) for p in cfg.PAD_A["cols"]]
    fb.set_key(0, "5", True)
    fb.set_key(0, "8", True)
    with pytest.raises(ShortCircuit, match="drives high .* drives low"):
        rows[1].value(0)
    assert len(fb.shorts) == 1 and "A5 A8" in fb.shorts[0][1]
    soft = FakeBoard(cfg, strict=False)
    rows = [soft.Pin(p, soft.Pin.OUT, value=p % 2) for p in cfg.PAD_A["rows"]]
    soft.set_key(0, "5", True)
    soft.set_key(0, "8", True)                        # rows 2 and 3: opposite levels
    assert len(soft.shorts) == 1


# ---- each keypad part's pin map --------------------------------------------------------------------

# Which two connector pins each key joins, from the parts' documentation (independent of PARTS):
# Adafruit 1824: rows R1-R4 on pins 2, 7, 6, 4 and columns C1-C3 on pins 3, 1, 5 (Adafruit's
# CircuitPython example: rows D1, D6, D5, D3, cols D2, D0, D4 with connector pin n on D(n-1)).
DATASHEET = {
    "adafruit-1824": {"1": (2, 3), "2": (2, 1), "3": (2, 5), "4": (7, 3), "5": (7, 1), "6": (7, 5),
                      "7": (6, 3), "8": (6, 1), "9": (6, 5), "*": (4, 3), "0": (4, 1), "#": (4, 5)},
    "membrane-3x4": {"1": (1, 5), "2": (1, 6), "3": (1, 7), "4": (2, 5), "5": (2, 6), "6": (2, 7),
                     "7": (3, 5), "8": (3, 6), "9": (3, 7), "*": (4, 5), "0": (4, 6), "#": (4, 7)},
    "membrane-4x4": {"1": (1, 5), "2": (1, 6), "3": (1, 7), "A": (1, 8), "4": (2, 5), "5": (2, 6), "6": (2, 7),
                     "B": (2, 8), "7": (3, 5), "8": (3, 6), "9": (3, 7), "C": (3, 8), "*": (4, 5), "0": (4, 6),
                     "#": (4, 7), "D": (4, 8)},
}


def test_every_documented_part_is_known_and_nothing_else():
    assert sorted(PARTS) == sorted(DATASHEET)


@pytest.mark.parametrize("part", sorted(DATASHEET))
def test_part_contacts_match_the_datasheet(part):
    kind, prow, pcol = PARTS[part]
    n = len(prow) + len(pcol)
    gpio = {c: 100 + c for c in range(1, n + 1)}         # connector pin c wired to "GPIO 100 + c"
    spec = {"part": part, "rows": tuple(gpio[c] for c in prow), "cols": tuple(gpio[c] for c in pcol)}
    got = contacts(kind, spec)
    want = {k: (gpio[a], gpio[b]) for k, (a, b) in DATASHEET[part].items()}
    assert got == want
    assert [c for c, _, _ in connector(kind, spec)] == list(range(1, n + 1))


@pytest.mark.parametrize("name", MATRIX_BOARDS)
def test_reference_boards_wire_the_1824_connector_in_order(name):
    # docs/build.md tells makers to run keypad pins 1..7 to consecutive header pins;
    # the board file must then scan the 1824's real rows and columns.
    cfg = boards.load(name)
    wires = {"pico": ((2, 3, 4, 5, 6, 7, 8), (10, 11, 12, 13, 14, 15, 16)),
             "esp32s3": ((1, 2, 42, 41, 40, 39, 47), (4, 6, 7, 15, 16, 17, 18))}[name]
    for spec, gpios in zip((cfg.PAD_A, cfg.PAD_B), wires):
        assert spec["part"] == "adafruit-1824"
        assert [g for _, g, _ in connector(cfg.KEYPAD_TYPE, spec)] == list(gpios)
        fb = FakeBoard(cfg)
        pad = make_keypad(cfg.KEYPAD_TYPE, spec, fb.Pin, 0)
        for key, (a, b) in DATASHEET["adafruit-1824"].items():
            row, col = contacts(cfg.KEYPAD_TYPE, spec)[key]
            assert {row, col} == {gpios[a - 1], gpios[b - 1]}, key
        assert pad.keys == "123456789*0#"


@pytest.mark.parametrize("spec,kind,message", [
    ({"part": "acme-9", "rows": (1, 2, 3, 4), "cols": (5, 6, 7)}, "matrix3x4", "unknown keypad part 'acme-9'"),
    ({"part": "membrane-4x4", "rows": (1, 2, 3, 4), "cols": (5, 6, 7)}, "matrix3x4", "is a matrix4x4 pad"),
    ({"rows": (1, 2, 3), "cols": (5, 6, 7)}, "matrix3x4", "needs 4 row pins and 3 column pins"),
    ({"rows": (1, 2, 3, 4), "cols": (5, 6, 7), "keys": "123"}, "matrix3x4", "needs 12 keys"),
    ({"pins": (1, 2, 3)}, "direct", "direct pad needs 11 pins"),
    ({"rows": (1, 2, 3, 4), "cols": (5, 6, 7)}, "matrix5x5", "unknown KEYPAD_TYPE"),
])
def test_bad_pad_specs_are_one_line_errors(spec, kind, message):
    with pytest.raises(ValueError, match=message):
        wiring(kind, spec)


# ---- strict fakes: pins the chip does not have, floating inputs ---------------------------------------


@pytest.mark.parametrize("name,pin,why", [
    ("pico", 23, "SMPS"), ("pico", 25, "on-board LED"), ("pico", 29, "VSYS"), ("pico", 30, "no GPIO 30"),
    ("esp32s3", 22, "no GPIO 22"), ("esp32s3", 27, "SPI flash"), ("esp32s3", 35, "octal PSRAM"),
    ("esp32s3", 19, "USB"), ("esp32s3", 49, "no GPIO 49"), ("sim", 30, "no GPIO 30"),
])
def test_fake_pins_refuse_what_the_chip_does_not_have_or_reserves(name, pin, why):
    fb = FakeBoard(boards.load(name))
    with pytest.raises(ValueError, match=why):
        fb.Pin(pin, fb.Pin.OUT)
    assert pin not in fb.pins


def test_reading_a_floating_input_is_an_error():
    fb = FakeBoard(boards.load("pico"))
    p = fb.Pin(9, fb.Pin.IN)
    with pytest.raises(FloatingRead, match="GPIO9"):
        p.value()
    p.init(pull=fb.Pin.PULL_UP)
    assert p.value() == 1


@pytest.mark.parametrize("name", MATRIX_BOARDS)
def test_a_scan_does_the_same_pin_work_whichever_key_is_down(name):
    # Secrecy: the time a scan takes must not tell which key is held (the emulated Pico showed the
    # old scan, which stopped at the first column reading low, moving the tick grid by key).
    counts = {}
    for key in "123456789*0#":
        fb, pads = pads_on(name)
        ring = EventRing()
        reads = []
        real = fb.read
        fb.read = lambda pin, real=real: reads.append(pin) or real(pin)
        fb.set_key(0, key, True)
        for _ in range(4):                    # idle check, then full scans while it settles and is held
            pads[0].scan(ring)
            counts.setdefault(key, []).append(len(reads))
    assert len(set(tuple(c) for c in counts.values())) == 1, counts
