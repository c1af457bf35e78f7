"""python -m tools.rp2040: serve an emulated Raspberry Pi Pico (MicroPython UF2 on rp2040js) on a loopback socket for mpremote and tools.deploy."""
import argparse
import signal
import sys
import time

from tools.rp2040 import Pico, Rp2040Error, WHERE, default_uf2


def main(argv=None):
    import boards

    ap = argparse.ArgumentParser(
        prog="python -m tools.rp2040",
        description="An emulated Raspberry Pi Pico running a MicroPython RPI_PICO UF2 (rp2040js under Node). "
                    "Its USB serial is a pseudo-terminal (/dev/pts/N) and a TCP port on 127.0.0.1: use the terminal as "
                    "you would /dev/ttyACM0 (`mpremote connect /dev/pts/N repl`, screen, picocom, "
                    "`python -m tools.deploy --port /dev/pts/N`); the socket:// URL works for mpremote's exec, fs and "
                    "deploy, not for its repl, which needs a real file descriptor. "
                    "The flash lives in an image file: files survive resets and restarts. " + WHERE + ".")
    ap.add_argument("--uf2", help="MicroPython UF2 to write over the flash first (default: ../shared/rp2's when the image is new)")
    ap.add_argument("--flash", help="flash image file, created if missing (default: a temporary one, deleted at exit)")
    ap.add_argument("--bootrom", help="RP2040 boot ROM, 16 KiB (default: bootrom-b1.bin beside the UF2 or in ../shared/rp2)")
    ap.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: any free port)")
    ap.add_argument("--board", default="pico",
                    help="board file for the keypads, LEDs and buzzer: an RP2040 one (default: pico; boards: %s)"
                    % ", ".join(boards.names()))
    ap.add_argument("--realtime", action="store_true", help="never run ahead of the wall clock (for watching the LEDs)")
    args = ap.parse_args(argv)
    uf2 = args.uf2
    if uf2 is None and args.flash is None and default_uf2() is None:
        print("rp2040: no UF2 to start from: name one with --uf2 (%s)" % WHERE, file=sys.stderr)
        return 1
    try:
        pico = Pico(uf2=uf2, flash=args.flash, port=args.port, board=args.board, bootrom=args.bootrom,
                    pace=1.0 if args.realtime else 0.0, pty=hasattr(__import__("os"), "openpty"))
    except (Rp2040Error, ValueError, OSError) as e:
        print("rp2040: %s" % e, file=sys.stderr)
        return 1
    # kill/terminal closed: leave through `finally`, so a temporary flash image is removed
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    where = "%s and %s" % (pico.tty, pico.url) if pico.tty else pico.url
    print("rp2040: emulated Pico (board %s) with its USB serial at %s  (e.g. mpremote connect %s repl); "
          "flash image %s; Ctrl-C stops it" % (args.board, where, pico.tty or pico.url, pico.flash), flush=True)
    try:
        seen = 0
        while True:
            time.sleep(0.5)
            evs = pico.events()
            for ev in evs[seen:]:
                if ev.get("event") == "reset":
                    print("rp2040: the chip was reset (%s); it boots again from the flash image" % ev.get("reason"), flush=True)
            seen = len(evs)
            pico.stats()          # raises when the Node side has died
    except KeyboardInterrupt:
        return 0
    except Rp2040Error as e:
        print("rp2040: %s" % e, file=sys.stderr)
        return 1
    finally:
        pico.close()


if __name__ == "__main__":
    sys.exit(main())
