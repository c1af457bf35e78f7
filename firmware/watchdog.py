"""The hardware watchdog (machine.WDT) for the launcher: armed by its first feed when the game loop starts, fed every tick, stopped on every way out so the REPL stays usable."""
# Why arm it that late: safe boot never gets there (the REPL stays free for
# good), and a first boot that compiles .py modules (a mip install) is not
# timed. Why stop it: MicroPython's WDT has no stop(), and a Ctrl-C from
# mpremote or a deploy would otherwise leave it running under the REPL, which
# then resets the board within TIMEOUT_MS.

TIMEOUT_MS = 8000  # rp2's longest is 8388 ms; the game feeds it every tick and every second of a restart pause

# RP2040 datasheet 4.7.6: the watchdog's CTRL register is at WATCHDOG_BASE 0x40058000; bit 30 ENABLE
# ("when not enabled the watchdog timer is paused"). Writing bit 30 to the block's atomic-clear alias
# (+0x3000, datasheet 2.1.2) clears that bit alone. rp2040js models both; tools/rp2040 tests it.
_RP2040_CTRL_CLEAR = 0x4005B000
_ENABLE = 0x40000000
# On rp2, machine.reset() is a watchdog reboot too, so reset_cause() says WDT_RESET after either. The
# pico-sdk's watchdog_enable() (machine.WDT) leaves 0x6ab73121 in SCRATCH4 (+0x1c) and watchdog_reboot()
# (machine.reset) clears it: REASON (+0x08) set with that mark is a timeout of our watchdog.
_RP2040_REASON = 0x40058008
_RP2040_SCRATCH4 = 0x4005801C
_NON_REBOOT_MAGIC = 0x6AB73121

# "watchdog reset" in the crash log when the board comes back from one (main.py reads reset_cause()).
RESET_NOTE = "watchdog reset: the game stopped feeding the watchdog (a hang), and it restarted the board"


class Watchdog:
    """`machine` is the port's machine module, `chip` the board file's CHIP. feed() arms it the first time
    (machine.WDT(timeout=timeout_ms)); stop() stops it: on an RP2040 by clearing its ENABLE bit, elsewhere
    (ESP32: the task watchdog cannot be stopped) by feeding it from a machine.Timer while the REPL is in
    use. A soft reset ends that timer, so there the board resets within the timeout and starts the game."""

    def __init__(self, machine, chip=None, timeout_ms=TIMEOUT_MS):
        self.machine = machine
        self.chip = chip
        self.timeout_ms = timeout_ms
        self.wdt = None
        self.keeper = None  # the machine.Timer that feeds a watchdog that cannot be stopped

    def feed(self):
        w = self.wdt
        if w is None:
            if self.keeper is not None:
                self.keeper.deinit()
                self.keeper = None
            w = self.wdt = self.machine.WDT(timeout=self.timeout_ms)
        w.feed()

    def stop(self):
        w = self.wdt
        if w is None:
            return
        self.wdt = None
        m = self.machine
        if self.chip == "rp2040":
            m.mem32[_RP2040_CTRL_CLEAR] = _ENABLE
            return
        try:
            t = m.Timer(-1)  # a virtual timer where the port has them (rp2, stm32)
        except Exception:
            t = m.Timer(0)  # ESP32: hardware timer 0
        t.init(period=1000, mode=m.Timer.PERIODIC, callback=lambda _t: w.feed())
        self.keeper = t


def make(machine, chip=None):
    """A Watchdog for this port, or None where machine has no WDT (a stand-in machine module, a port without one)."""
    return Watchdog(machine, chip) if hasattr(machine, "WDT") else None


def reset_note(machine, chip=None):
    """RESET_NOTE when this boot follows a timeout of the watchdog (not a machine.reset()), else None."""
    try:
        if chip == "rp2040":
            m = machine.mem32
            hit = m[_RP2040_REASON] != 0 and m[_RP2040_SCRATCH4] == _NON_REBOOT_MAGIC
        else:
            hit = machine.reset_cause() == machine.WDT_RESET
    except (AttributeError, OSError, TypeError, KeyError):
        hit = False
    return RESET_NOTE if hit else None
