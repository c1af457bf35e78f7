"""CircuitPython entry point, copied to the drive's root (the Raspberry Pi service runs it too): the board's hardware through Adafruit's libraries, then the game; after crashes in a row it starts again."""
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

    result = start(board_config)
    if getattr(board_config, "PLATFORM", None) == "linux":
        # The Raspberry Pi service: a non-zero status after crashes in a row (or a board that cannot start)
        # is what makes systemd's Restart=on-failure start the game again; a stop (SIGTERM) ends with 0.
        if result in ("crashed", "error"):
            import sys

            sys.exit(1)
    elif result == "crashed":
        # CircuitPython: run code.py again from a fresh VM (like Ctrl-D; boot.py's writable mount stays),
        # instead of sitting dark at "Code done running".
        import supervisor  # type: ignore

        supervisor.reload()
