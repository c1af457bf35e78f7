"""The CPU clock at boot: an RP2040 raised to the 200 MHz its maker certifies (core voltage first), so the computer answers sooner; main.py calls speed_up() before it makes the LEDs and the buzzer."""
# Raspberry Pi certified the RP2040 for a 200 MHz system clock at a core voltage of at least 1.15 V
# (pico-sdk 2.1.1 release notes, 2025-02-19; the SDK's own 200 MHz builds raise the voltage at boot).
# MicroPython 1.27's machine.freq() sets the PLL but leaves the voltage at its reset value (its
# rp2/clocks_extra.c skips the SDK's step: micropython#18739, merged after 1.27), so it is raised here
# first. RP2040 datasheet 2.10.7: VREG at 0x40064000, VSEL in bits 7:4, 0b1011 = 1.10 V (reset),
# 0b1100 = 1.15 V; the SDK waits 1 ms for it to settle (SYS_CLK_VREG_VOLTAGE_AUTO_ADJUST_DELAY_US).
# What the clock gives the computer: docs/performance.md, the rp2040 section. Other chips keep their clock.
# main.py starts core 1's thread (firmware/thinker.py) before it calls speed_up(): MicroPython 1.27's rp2 port
# takes the 512 bytes it keeps for a stack overflow's recovery off the thread's stack size only after core 1
# is launched (ports/rp2/mpthreadport.c, mp_thread_create), while core 1 reads that size as it starts
# (py/modthread.c, thread_entry). Whoever is first decides; on the emulated Pico core 1 is first from 150 MHz
# on, and an overflow then runs past the stack into the heap (test_rp2040_cores.py's overflow test).
from engine._compat import const

_VREG = const(0x40064000)
_VSEL_115 = const(12)
_SAFE_HZ = const(133000000)  # the RP2040's clock at its reset voltage (datasheet, before 2025)
RP2040_MAX_HZ = 200000000


def problem(cfg):
    """Why the board file's CPU_HZ cannot be used (None if it can, or if it has none)."""
    hz = getattr(cfg, "CPU_HZ", None)
    if hz is None:
        return None
    if getattr(cfg, "CHIP", None) != "rp2040":
        return "CPU_HZ is for an RP2040 board (CHIP = \"rp2040\"), not CHIP %r" % (getattr(cfg, "CHIP", None),)
    if isinstance(hz, bool) or not isinstance(hz, int) or hz < 48000000 or hz > RP2040_MAX_HZ:
        return "CPU_HZ must be a whole number of Hz from 48000000 to %d (the RP2040's certified most), not %r" % (
            RP2040_MAX_HZ, hz)
    return None


def speed_up(machine, cfg, sleep_ms, chip_name):
    """Run at cfg.CPU_HZ if the board file has one and `chip_name` (sys.implementation._machine) is an RP2040
    (another chip, such as a Pico 2 on the Pico's wiring, or a PC, is left alone: its clock is its own): above
    133 MHz the core voltage goes to 1.15 V first and is read back. Returns None, or why the clock stays as it
    was: a bad CPU_HZ, or a regulator that did not take the voltage."""
    hz = getattr(cfg, "CPU_HZ", None)
    if hz is None or "RP2040" not in chip_name:
        return None
    why = problem(cfg)
    if why is not None:
        return why
    if hz > _SAFE_HZ:
        m = machine.mem32
        v = m[_VREG]
        if (v >> 4) & 15 < _VSEL_115:
            m[_VREG] = (v & ~0xF0) | (_VSEL_115 << 4)
            sleep_ms(1)
            if (m[_VREG] >> 4) & 15 < _VSEL_115:
                return "the core voltage did not rise to 1.15 V (VREG reads %#x)" % (m[_VREG] & 0xFFFF,)
    if machine.freq() != hz:
        machine.freq(hz)
    return None
