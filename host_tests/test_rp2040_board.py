"""The emulated Pico's board model, checked from inside real MicroPython: pad levels, pulls, open drain, conflicts, WS2812 decoding and timing, buzzer PWM."""
import pytest

from tools.rp2040 import Pico

pytestmark = pytest.mark.usefixtures("needs_uf2")


@pytest.fixture(scope="module")
def pico():
    # Plain MicroPython (fresh flash, no main.py): the pins are only what these tests set.
    with Pico() as p:
        yield p


def _pins(pico, pad, key):
    return pico.keys[(pad, key)]


def _read(pico, code):
    return pico.exec(code).strip()


def test_pull_up_reads_high_until_a_key_joins_the_column_to_a_low_row(pico):
    row, col = _pins(pico, "A", "5")
    pico.exec("from machine import Pin\nr = Pin(%d, Pin.OUT, value=0)\nc = Pin(%d, Pin.IN, Pin.PULL_UP)" % (row, col))
    assert _read(pico, "print(c.value())") == "1"
    pico.press("A", "5")
    assert _read(pico, "print(c.value())") == "0"
    # The row driven high: the pressed key now joins two high drivers, the column reads 1.
    assert _read(pico, "r.value(1)\nprint(c.value())") == "1"
    pico.release("A", "5")
    assert _read(pico, "r.value(0)\nprint(c.value())") == "1"


def test_pull_down_floating_and_output_readback(pico):
    _, col = _pins(pico, "A", "1")
    assert _read(pico, "from machine import Pin\np = Pin(%d, Pin.IN, Pin.PULL_DOWN)\nprint(p.value())" % col) == "0"
    assert _read(pico, "p.init(Pin.IN, Pin.PULL_UP)\nprint(p.value())") == "1"
    # No pull and no driver: the net keeps its last level (the wire's charge), it does not invent one.
    assert _read(pico, "p.init(Pin.IN, None)\nprint(p.value())") == "1"
    # An output reads back what it drives.
    assert _read(pico, "p.init(Pin.OUT, value=0)\nprint(p.value())") == "0"
    assert _read(pico, "p.value(1)\nprint(p.value())") == "1"
    pico.exec("p.init(Pin.IN, Pin.PULL_UP)")


def test_push_pull_rows_fighting_through_one_column_are_a_conflict(pico):
    # Keys 1 and 4 share a column: with their rows driven to opposite levels
    # the two outputs short through the keys. The harness must see it.
    r1, col = _pins(pico, "A", "1")
    r2, col2 = _pins(pico, "A", "4")
    assert col == col2 and r1 != r2
    before = pico.conflicts()["count"]
    pico.exec("from machine import Pin\na = Pin(%d, Pin.OUT, value=0)\nb = Pin(%d, Pin.OUT, value=1)\n"
              "c = Pin(%d, Pin.IN, Pin.PULL_UP)" % (r1, r2, col))
    pico.press("A", "1")
    pico.press("A", "4")
    got = pico.conflicts()
    pico.release_all()
    assert got["count"] == before + 1, got
    last = got["conflicts"][-1]
    assert "GP%d" % r2 in last["high"] and "GP%d" % r1 in last["low"]
    assert sorted(last["pins"]) == sorted((r1, r2, col))


def test_open_drain_rows_share_a_column_without_conflict(pico):
    r1, col = _pins(pico, "A", "2")
    r2, _ = _pins(pico, "A", "8")
    before = pico.conflicts()["count"]
    pico.exec("from machine import Pin\na = Pin(%d, Pin.OPEN_DRAIN, value=0)\nb = Pin(%d, Pin.OPEN_DRAIN, value=1)\n"
              "c = Pin(%d, Pin.IN, Pin.PULL_UP)" % (r1, r2, col))
    pico.press("A", "2")
    pico.press("A", "8")
    low = _read(pico, "print(c.value())")
    high = _read(pico, "a.value(1)\nprint(c.value())")   # both released: only the pull-up is left
    pico.release_all()
    assert (low, high) == ("0", "1")
    assert pico.conflicts()["count"] == before


def test_ws2812_frames_decode_to_the_bytes_written_and_keep_the_datasheet_timing(pico):
    led = pico.cfg.LED_PIN
    n0 = pico.stats()["frames"]
    pico.exec("import neopixel\nfrom machine import Pin\nnp = neopixel.NeoPixel(Pin(%d), 83)\n"
              "for i in range(83):\n    np[i] = (i, 255 - i, (7 * i) & 255)\nnp.write()" % led)
    fr = pico.wait_frames(1, since=n0)
    assert len(fr) == 1
    want = [(i, 255 - i, (7 * i) & 255) for i in range(83)]
    assert pico.pixels(fr[0]) == want
    assert fr[0].data[:3] == bytes((255, 0, 0))   # GRB wire order: green first
    st = pico.stats()
    assert st["ws_errors"] == 0
    s = st["ws_stats"]
    assert 250 <= s["T0H"][0] <= s["T0H"][1] <= 550 and 650 <= s["T1H"][0] <= s["T1H"][1] <= 950
    assert 700 <= s["T0L"][0] <= s["T0L"][1] <= 1000 and 300 <= s["T1L"][0] <= s["T1L"][1] <= 600
    # 83 LEDs x 24 bits at ~1.25 us a bit: the whole write is ~2.5 ms of emulated time
    assert 2.0e6 < fr[0].t1_ns - fr[0].t0_ns < 3.0e6


def test_ws2812_out_of_spec_timing_is_an_error(pico):
    # machine.bitstream with a 150 ns "0" high time (the datasheet wants 250..550 ns).
    n0 = pico.ws_errors()["count"]
    pico.exec("import machine\nfrom machine import Pin\nmachine.bitstream(Pin(%d, Pin.OUT), 0, (150, 1000, 800, 450), "
              "bytearray(3))" % pico.cfg.LED_PIN)
    pico.run_for(1)
    errs = pico.ws_errors()
    assert errs["count"] >= n0 + 24
    assert "fits neither T0H" in errs["errors"][-1]["error"]


def test_buzzer_pin_level_and_pwm_frequency_and_duty(pico):
    bz = pico.cfg.BUZZER_PIN
    t0 = pico.now_ns()
    pico.exec("from machine import Pin, PWM\nb = Pin(%d, Pin.OUT, value=1)" % bz)
    pico.exec("b.value(0)")
    pico.exec("pw = PWM(Pin(%d), freq=2000, duty_u16=16384)" % bz)
    pico.run_for(2)
    pico.exec("pw.deinit()\nPin(%d, Pin.OUT, value=0)" % bz)
    ev = pico.buzzer(since_ns=t0)
    levels = [e[4] for e in ev if e[1] == "gpio"]
    assert 1 in levels and 0 in levels
    pwm = [e for e in ev if e[1] == "pwm" and e[2] > 0]
    assert pwm, ev
    freq, duty = pwm[-1][2], pwm[-1][3]
    assert abs(freq - 2000) < 5 and abs(duty - 0.25) < 0.01


def test_direct_button_grounds_its_pin_and_fights_a_high_output():
    # boards/sim.py wires pad B as direct buttons (each key: pin to GND), which the Pico's pins can carry.
    with Pico(board="sim") as p:
        pin, other = p.keys[("B", "5")]
        assert other == 30  # the GND net
        p.exec("from machine import Pin\nk = Pin(%d, Pin.IN, Pin.PULL_UP)" % pin)
        up = p.exec("print(k.value())").strip()
        p.press("B", "5")
        down = p.exec("print(k.value())").strip()
        assert (up, down) == ("1", "0")
        assert p.conflicts()["count"] == 0
        p.exec("k.init(Pin.OUT, value=1)")
        got = p.conflicts()
        assert got["count"] == 1 and got["conflicts"][0]["low"] == ["GND"], got


def test_a_bad_board_file_on_the_pico_shows_a_red_x_and_says_why(rp2_image, tmp_path):
    """Issue 27, on the device at boot: the official firmware with a board_config whose buzzer is on a pad pin.
    main.py draws the X (firmware/boardcheck.py) on the real WS2812 wire, prints the reason and keeps the REPL."""
    import shutil

    from conftest import ROOT
    from test_boardcheck import error_cells

    img = tmp_path / "bad.img"
    shutil.copy(rp2_image, img)
    bad = (ROOT / "boards" / "pico.py").read_text().replace("BUZZER_PIN = 22", "BUZZER_PIN = 2")
    with Pico(flash=img) as p:
        p.wait_usb()
        p.exec("import os\nos.remove('board_config.mpy')\nwith open('board_config.py', 'w') as f:\n    f.write(%r)" % bad)
        n = p.stats()["frames"]
        p.hard_reset()
        frame = p.wait_frames(1, since=n)[0]
        lit = [i for i in range(83) if any(frame.data[i * 3:i * 3 + 3])]
        assert lit == error_cells()
        assert all(frame.data[i * 3 + 1] > 0 and frame.data[i * 3] == 0 == frame.data[i * 3 + 2] for i in lit)  # GRB: red
        p.run_for(2000)
        assert len(p.frames(since=n)) == 1                       # then nothing: no game runs on that wiring
        out = p.exec("exec(open('main.py').read())")              # the REPL is free; main.py says why
        assert "cannot start: board_config.py cannot work: GP2 is used by BUZZER_PIN and PAD_A column 2" in out
        assert p.conflicts()["count"] == 0                         # and nothing was driven against a pad


def test_a_long_key_script_leaves_no_alarms_behind_once_its_keys_have_fired(pico):
    # Each scheduled contact change is a clock alarm on the Node side; fired ones were kept for ever (a soak
    # or a long game typed on the pads grew the list without bound).
    before = pico.switches()
    n = len(before)
    pico.run_for(0, pause=True)   # (the clock held: none fires before they are counted)
    end = pico.type_keys("A", "123456789*0#" * 5, hold_ms=2, gap_ms=2)
    assert pico.stats()["key_alarms"] == 120   # armed: 60 taps, a press and a release each
    pico.run_until(end + 1000000)
    assert pico.stats()["key_alarms"] == 0
    assert len(pico.switches()) - n == 120      # (every one of them did fire)
