"""What `./wts play` runs: flash an attached board and play on it, or play the real firmware in the terminal simulator."""
import argparse
import sys

import boards
from firmware.modes import BOT_LEVELS
from tools.sim.cli import seed_arg
from tools.sim.narrate import LANGS


# What a player may ask the simulator for (the firmware's own mode names, firmware/modes.py).
PLAY_MODES = ("2p",) + BOT_LEVELS + ("demo", "tutorial", "attract", "menu")


def attached_boards():
    """[(port, vid)] of USB serial ports that look like MicroPython boards (none if pyserial finds none)."""
    from serial.tools import list_ports

    from tools.deploy import USB_VIDS

    return [(p.device, p.vid) for p in sorted(list_ports.comports()) if p.vid in USB_VIDS]


def build_parser():
    ap = argparse.ArgumentParser(
        prog="./wts play",
        description="Play What the Shell. With a Pico or ESP32-S3 on USB, deploy the game to it and play "
                    "there; otherwise play the real firmware in the terminal simulator against the computer. "
                    "Settings and scores are kept in a per-user state folder between runs.",
    )
    ap.add_argument("--level", choices=BOT_LEVELS,
                    help="the computer's level (default: medium); the same as --mode LEVEL")
    ap.add_argument("--mode", choices=PLAY_MODES,
                    help="simulator mode instead of a game against the computer (2p: both pads on one keyboard)")
    ap.add_argument("--board", help="board file (boards/NAME.py) for the device or the simulator's layout "
                                    "(default: guessed from USB, else pico); one of: " + ", ".join(boards.names()))
    ap.add_argument("--port", help="serial port of the board to deploy to (default: the one found on USB)")
    ap.add_argument("--sim", action="store_true", help="always use the simulator, even with a board attached")
    ap.add_argument("--seed", type=seed_arg,
                    help="replay a game: the seed the simulator showed (default: a fresh one every launch)")
    ap.add_argument("--runtime", choices=("cpython", "micropython", "rp2040"),
                    help="the simulator's runtime (default cpython; micropython runs the real interpreter and needs Node 20+; "
                         "rp2040 runs the exact Pico firmware image on an emulated RP2040)")
    ap.add_argument("--forget", action="store_true", help="keep no settings or scores this time")
    ap.add_argument("--lang", choices=LANGS,
                    help="the simulator's words: en or nl (default: the last one chosen, else the system locale)")
    return ap


def sim_mode(ap, args):
    """The simulator's --mode from --mode/--level; a level with a mode that has no computer is refused."""
    if args.level and args.mode and args.mode != args.level:
        if args.mode in BOT_LEVELS:
            ap.error("--level %s and --mode %s name two different levels: give one" % (args.level, args.mode))
        ap.error("--level sets the computer's level, but --mode %s has no computer opponent "
                 "(use --mode easy|medium|hard, or --level alone)" % args.mode)
    return args.mode or args.level or "medium"


def guess_board(vid):
    """The board file for a USB vendor id, or None when no board file (or more than one) claims it."""
    found = boards.for_usb_vid(vid)
    if len(found) > 1 and any(boards.load(n).NAME == n for n in found):
        # A copied board file keeps the original's USB_VIDS: the original is the safe guess, and
        # --board names the copy.
        found = [n for n in found if boards.load(n).NAME == n]
    return found[0] if len(found) == 1 else None


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    mode = sim_mode(ap, args)
    if args.board is not None and args.board not in boards.names():
        ap.error("unknown board %r; valid boards: %s (the files in boards/)" % (args.board, ", ".join(boards.names())))

    if not args.sim:
        found = [(args.port, None)] if args.port else attached_boards()
        if len(found) == 1:
            port, vid = found[0]
            board = args.board or guess_board(vid)
            if board is None:
                sys.exit("play: a board is attached at %s but its kind is unknown; run ./wts play --board NAME "
                         "(one of %s), or ./wts play --sim for the simulator" % (port, ", ".join(boards.names())))
            from tools import deploy

            print("play: found a board at %s; deploying the %s build (takes a minute the first time)" % (port, board))
            rc = deploy.main(["--board", board, "--port", port])
            if rc:
                return rc
            print("play: done. The board restarts into attract mode: press any key on a pad to play,"
                  " or hold * on pad A for two seconds for the menu.")
            return 0
        if len(found) > 1:
            print("play: %d boards attached (%s); using the simulator. Name one with --port to deploy."
                  % (len(found), ", ".join(p for p, _ in found)))

    from tools.sim import cli

    sim_args = ["--mode", mode]
    for flag, value in (("--board", args.board), ("--seed", args.seed), ("--runtime", args.runtime),
                        ("--lang", args.lang)):
        if value is not None:
            sim_args += [flag, str(value)]
    if args.forget:
        sim_args.append("--forget")
    return cli.main(sim_args)


if __name__ == "__main__":
    sys.exit(main())
