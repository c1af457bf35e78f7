"""The firmware core on the emulated Pico (the official MicroPython v1.27 firmware on rp2040js is the judge): the key click is PWM at 2-4 kHz, and an interrupt (as mpremote and the deploy tool send it) leaves every LED dark."""
import shutil
import time

import pytest

from firmware import sound
from tools.rp2040 import Pico

pytestmark = pytest.mark.usefixtures("needs_uf2")


@pytest.fixture(scope="module")
def pico(rp2_image, tmp_path_factory):
    img = tmp_path_factory.mktemp("rp2040-fwcore") / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        yield p


def test_a_key_press_clicks_through_the_pwm_at_3_5_khz(pico):
    pico.wait_frames(3)  # the game runs (attract mode)
    t0 = pico.now_ns()
    base = pico.schedule([(0, "A", "5", True), (120, "A", "5", False)])
    pico.run_until(base + 400 * 1000000)
    tones = [e for e in pico.buzzer(since_ns=t0) if e[1] == "pwm" and e[3]]
    assert tones, pico.buzzer(since_ns=t0)
    hz = sound.SOUNDS[sound.KEY][0]
    on = [e for e in tones if abs(e[2] - hz) < hz * 0.01]
    assert on, tones  # the click's pitch, measured from the pin's PWM registers
    assert 2000 <= on[0][2] <= 4000
    assert abs(on[0][3] - sound.VOLUMES[2] / 65535) < 0.01  # the default volume's duty
    assert (on[0][0] - base) / 1e6 < 40  # within a few scans of the contact closing


def test_a_schedule_keeps_its_offsets_however_long_the_host_takes_to_send_it(pico, monkeypatch):
    # Before: the base was read in one round trip and the alarms armed in another; a host that
    # stalled in between (a loaded CI machine) let the chip run on, so the press came late (55 ms
    # here) and a longer stall fires press and release at once. The host stalls 0.4 s before sending.
    real = pico.call

    def slow(op, **kw):
        if op == "schedule":
            time.sleep(0.4)
        return real(op, **kw)

    monkeypatch.setattr(pico, "call", slow)
    base = pico.schedule([(0, "A", "5", True), (80, "A", "5", False)])
    monkeypatch.undo()
    pico.run_until(base + 200 * 1000000)
    a, b = pico.keys[("A", "5")]
    got = [(t - base, closed) for t, x, y, closed in pico.switches(since_ns=base) if {x, y} == {a, b}]
    assert got == [(0, True), (80 * 1000000, False)]


def test_an_interrupt_leaves_every_led_dark(pico):
    # Before: Ctrl-C (mpremote's raw REPL, a deploy) stopped the game with its last frame lit.
    fr = pico.wait_frames(5, since=pico.stats()["frames"])
    assert any(max(f.data) > 0 for f in fr)  # the board is lit while the game runs
    pico.exec("print(1)")  # enters the raw REPL: Ctrl-C into main.py
    pico.run_for(100)
    last = pico.frames()[-1]
    assert max(last.data) == 0, "LEDs still lit after the interrupt"


def test_the_pico_runs_at_200_mhz_with_its_core_at_1_15_v_and_the_emulator_keeps_time_by_it(pico):
    # Before: main.py left the clock at MicroPython's 125 MHz (and the emulator counted 8 ns a cycle whatever
    # the firmware set). The same loop, timed on the chip's 1 MHz timer, before and after a clock change.
    pico.hard_reset()  # (the test before left the REPL running)
    pico.wait_frames(2, since=pico.stats()["frames"])  # main.py is past its start
    out = pico.exec(
        "import machine, time\n"
        "def loop():\n"
        "    t = time.ticks_us()\n"
        "    for i in range(5000):\n"
        "        pass\n"
        "    return time.ticks_diff(time.ticks_us(), t)\n"
        "booted = (machine.freq(), machine.mem32[0x40064000] >> 4 & 15)\n"
        "fast = loop()\n"
        "machine.freq(125000000)\n"
        "slow = loop()\n"
        "machine.freq(200000000)\n"
        "print(booted[0], booted[1], fast, slow)\n")
    hz, vsel, fast, slow = (int(x) for x in out.split())
    assert (hz, vsel) == (200000000, 12)  # VSEL 0b1100: 1.15 V (RP2040 datasheet 2.10.7)
    assert abs(slow / fast - 1.6) < 0.02, (fast, slow)
    assert pico.ws_errors()["count"] == 0  # the LEDs' bit timing stayed within the WS2812B's spec at 200 MHz
