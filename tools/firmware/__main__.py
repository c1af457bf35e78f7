"""python -m tools.firmware: build the UF2 with the game frozen in, show what a UF2 holds, ask a board whether it runs the frozen game."""
import argparse
import sys

EPILOG = """
examples:
  python -m tools.firmware build --board pico            MicroPython v1.27.0 + the game for a Pico
  python -m tools.firmware build --board pico2           the same for a Pico 2 (RP2350)
  python -m tools.firmware build --board pico --micropython ~/micropython
                                                         from your clone (git checkout v1.27.0 and
                                                         git submodule update --init lib/pico-sdk
                                                         lib/tinyusb lib/micropython-lib lib/mbedtls)
  python -m tools.firmware uf2 build/firmware/what-the-shell-pico-0.1.0.uf2
  python -m tools.firmware board --port /dev/ttyACM0     does this board run the frozen game?

The UF2 holds MicroPython with engine/, firmware/, main.py and the wiring (boards/pico.py as
board_config) frozen in: hold BOOTSEL while plugging the Pico in and copy the file onto the
RPI-RP2 (Pico 2: RP2350) drive; the game starts with nothing on the board's filesystem. A
board_config.py (or .mpy) copied onto the board overrides the frozen wiring; settings and
scores on the filesystem survive flashing a newer UF2.
"""


def _build(args):
    from tools.firmware import FirmwareError, build

    targets = args.board or ["pico"]
    try:
        for t in targets:
            build(t, micropython=args.micropython, version=args.version, wiring=args.wiring, out_dir=args.out,
                  picotool_src=args.picotool_src, jobs=args.jobs)
    except FirmwareError as e:
        print("firmware: %s" % e, file=sys.stderr)
        return 1
    return 0


def _uf2(args):
    from tools.firmware.marker import MODULE
    from tools.firmware.uf2 import Uf2Error, summary

    try:
        s = summary(args.file)
    except (OSError, Uf2Error) as e:
        print("firmware: %s: %s" % (args.file, e), file=sys.stderr)
        return 1
    p = s["payload"]
    print("%s: %d bytes; UF2 families %s; writes flash 0x%x..0x%x (%d KB)"
          % (args.file, s["size"], ", ".join("%s (%d blocks)" % kv for kv in sorted(s["families"].items())),
             s["start"], s["end"], (s["end"] - s["start"]) // 1024))
    import re

    banner = re.search(rb"MicroPython (v?[0-9][^ \x00]*) on ([0-9-]+)", p)
    print("MicroPython: %s" % ("%s, built %s" % (banner.group(1).decode(), banner.group(2).decode()) if banner
                               else "no banner found"))
    print("frozen game (%s.py): %s" % (MODULE, "yes" if (MODULE + ".py").encode() in p else "no"))
    return 0


def _board(args):
    # tools.deploy's Device talks to the board (it depends on this package, never the other way round).
    from tools.deploy import Device
    from tools.firmware import EFFECT, differs, game_files

    try:
        dev = Device(args.port)
        try:
            info = dev.frozen()
        finally:
            dev.release()      # the board runs its program again, as it was found
    except Exception as e:   # DeployError, a transport error: one line
        print("firmware: %s" % e, file=sys.stderr)
        return 1
    if info is None:
        print("the board at %s runs MicroPython without the frozen game (deploy it with python -m tools.deploy)"
              % args.port)
        return 0
    print("the board at %s runs the frozen game %s (MicroPython v%s, wiring boards/%s.py frozen in)"
          % (args.port, info["version"], info["micropython"], info["board"]))
    try:
        diff = differs(info, game_files(info["board"]))
    except Exception:
        diff = None
    if diff == []:
        print("its frozen files are this checkout's")
    elif diff:
        print("frozen files that differ from this checkout: %s" % ", ".join(diff))
    for f in info["on_fs"]:
        print("on its filesystem: %s %s" % (f, EFFECT.get(f, "")))
    return 0


def main(argv=None):
    from tools.firmware import TARGETS

    ap = argparse.ArgumentParser(prog="python -m tools.firmware", epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description="MicroPython firmware with the game frozen in: one UF2 to flash.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the UF2 (cached by the hash of its inputs, in build/firmware)")
    b.add_argument("--board", action="append", choices=sorted(TARGETS),
                   help="what to build for: pico (RP2040) or pico2 (RP2350); repeat for both (default: pico)")
    b.add_argument("--micropython", metavar="DIR",
                   help="a MicroPython v1.27.0 checkout with the rp2 submodules (default: env WTS_MICROPYTHON, "
                        "else ../shared/micropython's source tarball)")
    b.add_argument("--picotool-src", metavar="DIR",
                   help="picotool 2.1.1 source (default: the tarball's; without one the pico-sdk downloads it)")
    b.add_argument("--wiring", metavar="NAME", help="the board file frozen in as board_config (default: pico)")
    b.add_argument("--version", help="the version in the file name and marker (default: package.json's)")
    b.add_argument("--out", metavar="DIR", help="output folder (default: build/firmware)")
    b.add_argument("-j", "--jobs", type=int, help="parallel compile jobs (default: the CPU count)")
    b.set_defaults(func=_build)
    u = sub.add_parser("uf2", help="what a UF2 file holds: chip family, flash range, the frozen game")
    u.add_argument("file")
    u.set_defaults(func=_uf2)
    d = sub.add_parser("board", help="ask a connected board whether it runs the frozen game")
    d.add_argument("--port", required=True, help="serial port (/dev/ttyACM0, COM3) or socket://HOST:PORT")
    d.set_defaults(func=_board)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
