"""Device launcher (copied to the board's root): builds the real hardware from board_config.py and runs the firmware."""


def hardware():
    """The one place that touches machine/neopixel/time/os: everything else gets them passed in."""
    import machine
    import neopixel
    import os
    import sys
    import time
    import board_config  # type: ignore  # boards/<name>.py, copied to the device root under this name
    from firmware.cpufreq import speed_up
    from firmware.hw import build, forget, urandom_entropy
    from firmware.thinker import start

    # The computer's search on the second core (RP2040), once per boot; else None. Its thread starts before
    # the clock goes up: firmware/cpufreq.py says why.
    thinker = start()[0]
    # Then the clock, before the buzzer's PWM, which takes its timing from the clock as it is when it starts.
    why = speed_up(machine, board_config, time.sleep_ms, getattr(sys.implementation, "_machine", ""))
    if why:
        print("the CPU clock stays as it was: %s" % (why,))
    del speed_up
    forget("cpufreq")  # it runs once: its code leaves the heap
    hw = build(board_config, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=urandom_entropy(os.urandom))
    hw.thinker = thinker
    return board_config, hw


def main():
    try:
        cfg, hw = hardware()
    except Exception as e:  # no board_config.py, a bad pin number, a wrong field: say so, keep the REPL
        print("cannot start: %s (deploy with: python -m tools.deploy --board pico)" % (e,))
        return
    import machine
    from firmware.launcher import launch
    from firmware import watchdog

    chip = getattr(cfg, "CHIP", None)
    result = launch(cfg, hw, store_dir=getattr(cfg, "STORAGE_DIR", "/"), watchdog=watchdog.make(machine, chip),
                    note=watchdog.reset_note(machine, chip))
    if result == "crashed":
        # Crashes in a row, even on default settings: a hard reset starts from nothing (a fragmented heap,
        # a peripheral left in a bad state). The launcher's pauses before this leave time for a Ctrl-C.
        print("crashed again and again: resetting the board")
        machine.reset()


main()
