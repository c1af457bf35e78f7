"""Device launcher (copied to the board's root): builds the real hardware from board_config.py and runs the firmware."""


def hardware():
    """The one place that touches machine/neopixel/time: everything else gets them passed in."""
    import machine
    import neopixel
    import time
    import board_config  # type: ignore  # boards/<name>.py, copied to the device root under this name
    from firmware.hw import build

    return board_config, build(board_config, machine.Pin, neopixel.NeoPixel, time)


def main():
    try:
        cfg, hw = hardware()
    except Exception as e:  # no board_config.py, a bad pin number, a wrong field: say so, keep the REPL
        print("cannot start: %s (deploy with: python -m tools.deploy --board pico)" % (e,))
        return
    from firmware.launcher import launch

    launch(cfg, hw, store_dir=getattr(cfg, "STORAGE_DIR", "/"))


main()
