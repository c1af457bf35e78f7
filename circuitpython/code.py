"""CircuitPython entry point, copied to the drive's root (the Raspberry Pi service runs it too): the board's hardware through Adafruit's libraries, then the game."""
# Kept in circuitpython/, not at the checkout's root: a code.py there would
# shadow Python's own `code` module (pdb imports it) for every tool and test
# run from the checkout. tools/circuitpy.py copies it to CIRCUITPY/code.py.
try:
    import board_config  # type: ignore  # boards/<name>.py, copied next to this file under this name
except ImportError:
    board_config = None
    print("cannot start: no board_config.py here (copy the files with: python -m tools.deploy --board feather_rp2040)")
if board_config is not None:
    from firmware.hw_circuitpython import start

    start(board_config)
