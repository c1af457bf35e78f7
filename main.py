"""Device launcher (copied to the board's root): builds the real hardware from board_config.py and runs the firmware."""


def hardware():
    """The one place that touches machine/neopixel/time/os: everything else gets them passed in."""
    import machine
    import neopixel
    import os
    import time
    import board_config  # type: ignore  # boards/<name>.py, copied to the device root under this name
    from firmware.hw import build, urandom_entropy

    hw = build(board_config, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=urandom_entropy(os.urandom))
    return board_config, hw


def main():
    try:
        cfg, hw = hardware()
    except Exception as e:  # no board_config.py, a bad pin number, a wrong field: say so, keep the REPL
        print("cannot start: %s (deploy with: python -m tools.deploy --board pico)" % (e,))
        return
    from firmware.launcher import launch

    launch(cfg, hw, store_dir=getattr(cfg, "STORAGE_DIR", "/"))


main()
