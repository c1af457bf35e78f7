"""What `./wts play` runs: flash an attached board and play on it, or play the real firmware in the terminal simulator."""
import argparse
import sys

# A board's USB vendor says which board file fits it (other USB-serial chips
# could be anything: then the maker names the board).
BOARD_BY_VID = {0x2E8A: "pico", 0x303A: "esp32s3"}


def attached_boards():
    """[(port, vid)] of USB serial ports that look like MicroPython boards (none if pyserial finds none)."""
    from serial.tools import list_ports

    from tools.deploy import USB_VIDS

    return [(p.device, p.vid) for p in sorted(list_ports.comports()) if p.vid in USB_VIDS]


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="./wts play",
        description="Play What the Shell. With a Pico or ESP32-S3 on USB, deploy the game to it and play "
                    "there; otherwise play the real firmware in the terminal simulator against the computer.",
    )
    ap.add_argument("--level", default="medium", choices=("easy", "medium", "hard"),
                    help="the computer's level in the simulator (default: %(default)s)")
    ap.add_argument("--mode", choices=("2p", "easy", "medium", "hard", "demo", "tutorial", "attract"),
                    help="simulator mode instead of a game against the computer (2p: both pads on one keyboard)")
    ap.add_argument("--board", help="board file for the device or the simulator's layout (default: guessed from USB, else pico)")
    ap.add_argument("--port", help="serial port of the board to deploy to (default: the one found on USB)")
    ap.add_argument("--sim", action="store_true", help="always use the simulator, even with a board attached")
    args = ap.parse_args(argv)

    if not args.sim:
        boards = [(args.port, None)] if args.port else attached_boards()
        if len(boards) == 1:
            port, vid = boards[0]
            board = args.board or BOARD_BY_VID.get(vid)
            if board is None:
                sys.exit("play: a board is attached at %s but its kind is unknown; run ./wts play --board pico "
                         "(or esp32s3), or ./wts play --sim for the simulator" % port)
            from tools import deploy

            print("play: found a board at %s; deploying the %s build (takes a minute the first time)" % (port, board))
            rc = deploy.main(["--board", board, "--port", port])
            if rc:
                return rc
            print("play: done. The board restarts into attract mode: press any key on a pad to play,"
                  " or hold * on pad A for two seconds for the menu.")
            return 0
        if len(boards) > 1:
            print("play: %d boards attached (%s); using the simulator. Name one with --port to deploy."
                  % (len(boards), ", ".join(p for p, _ in boards)))

    from tools.sim import cli

    sim_args = ["--mode", args.mode or args.level]
    if args.board:
        sim_args += ["--board", args.board]
    return cli.main(sim_args)


if __name__ == "__main__":
    sys.exit(main())
