"""CircuitPython boot file: hold 5 on pad A while resetting to let the game save settings and scores to CIRCUITPY (the computer then sees the drive read-only)."""
# CircuitPython runs this before USB starts; its output goes to boot_out.txt.
try:
    import board  # type: ignore
    import digitalio  # type: ignore
    import storage  # type: ignore
    import board_config  # type: ignore
    from firmware.hw_circuitpython import boot

    boot(board_config, board, digitalio, storage)
except ImportError as e:  # not deployed yet: boot normally, the drive stays writable
    print("boot.py: %s" % (e,))
