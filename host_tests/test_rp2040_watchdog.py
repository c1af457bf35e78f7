"""The hardware watchdog on the emulated Pico (official MicroPython v1.27 on rp2040js, whose watchdog block is modelled): a hung game is reset and plays again, a Ctrl-C (mpremote, a deploy) and safe boot leave a REPL that stays usable past the timeout."""
import shutil

import pytest

from firmware.watchdog import RESET_NOTE, TIMEOUT_MS
from tools.rp2040 import Pico

pytestmark = pytest.mark.usefixtures("needs_uf2")

CTRL = 0x40058000  # the watchdog's CTRL register: bit 30 ENABLE (RP2040 datasheet 4.7.6)

# At the raw REPL: main.py's hardware and launcher, with a game whose 100th tick never returns
# (a wait for something that never comes; a busy loop would hang the same, in more host time).
HANG = """
import machine
exec(open('main.py').read().replace('\\nmain()\\n', '\\n'))
from firmware import launcher, watchdog
cfg, hw = hardware()
class Hang(launcher.App):
    n = 0
    def tick(self):
        Hang.n += 1
        if Hang.n == 100:
            print('hanging')
            import time
            time.sleep_ms(10 ** 8)
        return launcher.App.tick(self)
launcher.App = Hang
launcher.launch(cfg, hw, store_dir='/', watchdog=watchdog.make(machine, cfg.CHIP))
"""


@pytest.fixture
def pico(rp2_image, tmp_path):
    img = tmp_path / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        yield p


def _enabled(p):
    return int(p.exec("import machine\nprint(machine.mem32[%d])" % CTRL)) >> 30 & 1


def _resets(p, since=0):
    return [e for e in p.events()[since:] if e.get("event") == "reset"]


def test_a_hung_game_is_reset_by_the_watchdog_and_plays_again(pico):
    # Before: no watchdog; a tick that never returned left the board frozen until a power cycle.
    pico.wait_frames(3)
    n = len(pico.events())
    t = pico.serial()
    try:
        t.enter_raw_repl(soft_reset=False)
        t.exec_raw_no_follow(HANG)
        ev = pico.wait_event("reset", since=n, timeout=120)
    finally:
        t.close()
    assert ev["reason"] == "watchdog"
    pico.wait_frames(5, since=pico.stats()["frames"])  # main.py runs the game again
    log = pico.exec("print(open('/error.log').read())")
    assert RESET_NOTE in log  # the next boot says why it restarted
    assert _enabled(pico) == 0  # (the exec interrupted the game: stopped again)


def test_a_ctrl_c_leaves_a_usable_repl_past_the_watchdog_timeout(pico):
    # machine.WDT has no stop(): without the launcher's stop the REPL after mpremote's Ctrl-C would be
    # reset within the timeout. Here the REPL idles 5 timeouts, then a raw-REPL soft reset (mpremote's
    # soft-reset, where main.py does not run) idles 5 more: no reset, and it still answers.
    pico.wait_frames(3)
    assert _enabled(pico) == 0  # the exec's Ctrl-C: the launcher stopped it on the way out
    n = len(pico.events())
    pico.run_for(5 * TIMEOUT_MS)
    t = pico.serial()
    try:
        t.enter_raw_repl(soft_reset=True)  # Ctrl-D in raw mode
    finally:
        t.close()
    pico.run_for(5 * TIMEOUT_MS)
    assert pico.exec("print(6 * 7)").strip() == "42"
    assert _resets(pico, n) == []


def test_the_game_arms_the_watchdog_and_a_machine_reset_is_not_noted_as_a_hang(pico):
    pico.wait_frames(3)
    # The game armed it: read CTRL from the game's own loop is not possible without stopping it, so read
    # the SDK's mark that watchdog_enable() leaves (SCRATCH4) and the count it loaded (close to 16,000,000).
    out = pico.exec("import machine\nprint(machine.mem32[0x4005801c], machine.mem32[%d] & 0xffffff)" % CTRL).split()
    assert int(out[0]) == 0x6AB73121 and 15000000 < int(out[1]) <= 2 * 1000 * TIMEOUT_MS
    n = len(pico.events())
    pico.type_serial("import machine; machine.reset()\r")  # a deploy ends this way: a watchdog reboot on rp2
    pico.wait_event("reset", since=n, timeout=60)
    pico.wait_frames(3, since=pico.stats()["frames"])
    assert RESET_NOTE not in pico.exec("import os\nprint(open('/error.log').read() if 'error.log' in os.listdir('/') else '')")


def test_safe_boot_never_arms_the_watchdog(rp2_image, tmp_path):
    img = tmp_path / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img, paused=True) as p:
        p.schedule([(0, "A", "*", True), (2500, "A", "*", False)], at_ns=0)
        p.run_until(2500 * 1000000)
        p.run_until(2500 * 1000000 + 3 * TIMEOUT_MS * 1000000)
        assert _resets(p) == []
        out = p.exec("import machine\nprint(machine.mem32[0x4005801c], machine.mem32[%d] >> 30 & 1)" % CTRL).split()
        assert out == ["0", "0"]  # never enabled: no watchdog_enable() mark
