"""The simulator's command line (`python -m tools.sim`): the terminal UI, or --headless with a key script (prints the final board and result)."""
import argparse
import json
import sys

import boards
from tools.sim import fakehw
from tools.sim.device import Device, MODES, RUNTIMES


def run_headless(args, out=sys.stdout):
    """Run --script on a fresh device; print the final board (9 rows of RULES.md text) and `result: NAME`."""
    if args.script == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.script) as f:
                text = f.read()
        except OSError as e:
            raise SystemExit("cannot read script %s: %s" % (args.script, e.strerror))
    try:
        actions = fakehw.parse_script(text)
    except ValueError as e:
        raise SystemExit("script %s: %s" % (args.script, e))
    frames_out = None
    if args.frames:
        frames_out = open(args.frames, "w")

    def on_frame(t, px):
        if frames_out is not None:
            frames_out.write(json.dumps({"t": t, "pixels": [list(p) for p in px]}, separators=(",", ":")) + "\n")

    try:
        dev = Device(board=args.board, mode=args.mode, runtime=args.runtime, seed=args.seed, store_dir=args.store, keep_frames=False, on_frame=on_frame)
    except (RuntimeError, ValueError) as e:  # no Node for --runtime micropython, a bad board field, ...
        if frames_out is not None:
            frames_out.close()
        raise SystemExit("tools.sim: %s" % (e,))
    try:
        if args.runtime == "micropython":
            # One guest call for the whole script: far fewer round trips.
            dev._dev._exec("dev.run(%r)\n_flush()" % (actions,))
        else:
            dev._dev.run(actions)
        print(dev.report(), file=out)
    finally:
        dev.close()
        if frames_out is not None:
            frames_out.close()
    return 0


def build_parser():
    p = argparse.ArgumentParser(
        prog="python -m tools.sim",
        description="Play the real firmware on a virtual board. Without --headless: the terminal simulator "
        "(tools/sim/terminal.py). With --headless: run a key script and print the final board and result.",
        epilog="Script lines: `A 5`, `B #` (tap a key on pad A = black / pad B = white, with contact bounce), "
        "`A move e5` (that pad's keys for e5 from its seat, then #), `A press *` / `A release *`, "
        "`wait 300` (ms), `sync` (run until both players are asked for the next move); `;` starts a comment.",
    )
    p.add_argument("--headless", action="store_true", help="no screen: run --script and print the final board")
    p.add_argument("--mode", default="2p", choices=MODES, help="2p, easy/medium/hard (you are black on pad A), demo (computer vs computer), ...")
    p.add_argument("--script", help="key script file ('-' = stdin); needed with --headless")
    p.add_argument("--runtime", default="cpython", choices=RUNTIMES, help="run the firmware under CPython (fast) or real MicroPython (webassembly port under Node)")
    p.add_argument("--board", default="pico", help="board config from boards/: " + ", ".join(boards.NAMES))
    p.add_argument("--frames", metavar="OUT.jsonl", help='write every LED frame as {"t": ms, "pixels": [[r,g,b], ...]} (83, strip order)')
    p.add_argument("--seed", type=int, default=0, help="seed for the computer players")
    p.add_argument("--store", metavar="DIR", default=None, help="directory for settings.json/scores.json (default: none, nothing saved)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.board not in boards.NAMES:
        raise SystemExit("unknown board %r; valid boards: %s" % (args.board, ", ".join(boards.NAMES)))
    if args.headless:
        if not args.script:
            raise SystemExit("--headless needs --script FILE (see --help for the script lines)")
        return run_headless(args)
    from tools.sim import terminal

    return terminal.run(args)

