"""MicroPython firmware with the game frozen in (one UF2 to drag onto a Pico): build it, read its UF2, ask a board whether it runs it.

    python -m tools.firmware build --board pico     # -> build/firmware/what-the-shell-pico-<version>.uf2
    from tools.firmware import build, frozen_game, differs
    build("pico").uf2                               # a BuildResult; cached by the hash of its inputs
    info = frozen_game(device)                      # tools.deploy.Device on a board: None, or version/board/files
    differs(info, game_files(info["board"]))        # [] when the board runs exactly this checkout's game
"""
from tools.firmware.builder import (APT, MICROPYTHON_VERSION, OUT_DIR, TARBALL, TARGETS, BuildResult, FirmwareError,
                                  build, game_files, output_name, toolchain_problem)
from tools.firmware.marker import EFFECT, differs, frozen_game

__all__ = ["APT", "MICROPYTHON_VERSION", "OUT_DIR", "TARBALL", "TARGETS", "BuildResult", "FirmwareError", "build",
           "game_files", "output_name", "toolchain_problem", "EFFECT", "differs", "frozen_game"]
