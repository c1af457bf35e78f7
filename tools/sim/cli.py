"""The simulator's command line (`python -m tools.sim`): the terminal UI, or --headless with a key script (prints the final board and result)."""
import argparse
import json
import sys

import boards
from tools.sim.device import Device, MODES, RUNTIMES, SEED_LIMIT
from tools.sim.keyscript import parse_script
from tools.sim.narrate import LANGS
from tools.botproc import REPLY_TIMEOUT, parse_spec

PLAYERLESS = ("2p", "tutorial", "keytest")  # start modes without a computer seat: no place for --player


def say_line(t, kind, text):
    """One narration line of the headless output: `@ 12.3 s  both chose e5: egg #1 laid`."""
    if kind == "mode":
        from tools.sim.narrate import mode_title, word
        text = word("mode_line", title=mode_title(text))
    return "@ %5.1f s  %s" % (t / 1000.0, text)


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
        actions = parse_script(text)
    except ValueError as e:
        raise SystemExit("script %s: %s" % (args.script, e))
    frames_out = None
    if args.frames:
        frames_out = open(args.frames, "w")

    def on_frame(t, px):
        if frames_out is not None:
            frames_out.write(json.dumps({"t": t, "pixels": [list(p) for p in px]}, separators=(",", ":")) + "\n")

    def on_say(t, kind, text):
        if args.narrate:
            print(say_line(t, kind, text), file=out)

    seat = None
    if args.player:
        from tools.cmdbot import seat_for
        seat = seat_for(args.player, args.reply_timeout, blocking=True)  # no wall clock here: wait for each answer
    try:
        dev = Device(board=args.board, mode=args.mode, runtime=args.runtime, seed=args.seed, store_dir=args.store,
                     keep_frames=False, on_frame=on_frame, on_say=on_say, bots=seat and seat.bots())
    except (RuntimeError, ValueError) as e:  # no Node for --runtime micropython, a bad board field, ...
        if frames_out is not None:
            frames_out.close()
        raise SystemExit("tools.sim: %s" % (e,))
    if args.seed is None:
        print("tools.sim: seed %d (--seed %d plays this game again)" % (dev.seed, dev.seed), file=sys.stderr)
    try:
        dev.run(actions)
        if seat is not None:
            for err in seat.failures:  # (the terminal shows them on screen)
                print("tools.sim: %s" % err + "".join("\n  | " + x for x in err.stderr.split("\n") if err.stderr),
                      file=sys.stderr)
        print(dev.report(), file=out)
    finally:
        dev.close()
        if seat is not None:
            seat.close()
        if frames_out is not None:
            frames_out.close()
    return 0


def seed_arg(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a whole number, not %r" % text)
    if not 0 <= n < SEED_LIMIT:
        raise argparse.ArgumentTypeError("from 0 to %d, not %d" % (SEED_LIMIT - 1, n))
    return n


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
    p.add_argument("--mode", default=None, choices=MODES,
                   help="2p, easy/medium/hard (you are black on pad A), demo (computer vs computer), attract, "
                        "tutorial, menu, keytest (default: medium, as ./wts play; with --headless 2p, as the key "
                        "scripts type for both pads)")
    p.add_argument("--script", help="key script file ('-' = stdin); needed with --headless")
    p.add_argument("--narrate", action="store_true",
                   help="with --headless: also print what happened, one line per event, before the board")
    p.add_argument("--runtime", default="cpython", choices=RUNTIMES,
                   help="run the firmware under CPython (fast, the default) or real MicroPython (webassembly port, needs Node 20+)")
    p.add_argument("--board", default="pico", help="board config: a file in boards/ (%s)" % ", ".join(boards.names()))
    p.add_argument("--frames", metavar="OUT.jsonl", help='write every LED frame as {"t": ms, "pixels": [[r,g,b], ...]} (83, strip order)')
    p.add_argument("--seed", type=seed_arg, default=None,
                   help="seed for the computer players (default: a fresh one from entropy, shown so it can be replayed)")
    p.add_argument("--store", metavar="DIR", default=None,
                   help="folder for settings.json/scores.json (default: the per-user state folder in the terminal, "
                        "$XDG_STATE_HOME/what-the-shell or ~/.local/state/what-the-shell; nothing with --headless)")
    p.add_argument("--forget", action="store_true", help="keep no settings or scores (the terminal UI's default is to keep them)")
    p.add_argument("--player", metavar="[NAME=]cmd:COMMAND", default=None,
                   help="your own bot in the computer's seat (white, pad B): a command that speaks the botserver "
                        "protocol (docs/classroom.md); if it breaks the protocol the screen says why and the "
                        "built-in computer finishes that game")
    p.add_argument("--reply-timeout", type=float, default=None, metavar="S",
                   help="with --player: seconds your bot may take for one move (default %g)" % REPLY_TIMEOUT)
    p.add_argument("--lang", choices=LANGS, default=None,
                   help="the simulator's words: en (English) or nl (Dutch); kept for the next runs beside the "
                        "settings (default: the one kept, else the system locale LC_ALL/LC_MESSAGES/LANG, else en)")
    return p


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    valid = boards.names()
    if args.board not in valid:
        ap.error("unknown board %r; valid boards: %s (the files in boards/)" % (args.board, ", ".join(valid)))
    if args.forget and args.store:
        ap.error("--forget and --store DIR contradict each other: choose one")
    if args.player is not None:
        if args.mode is None:
            args.mode = "medium"  # (also with --headless: your bot needs the computer's seat)
        try:
            parse_spec(args.player)
        except ValueError as e:
            ap.error(str(e))
        if args.mode in PLAYERLESS:
            ap.error("--player takes the computer's seat, and --mode %s has none: use --mode easy, medium, hard "
                     "or demo" % args.mode)
        if args.runtime != "cpython":
            ap.error("--player needs --runtime cpython: your bot runs as a program on this computer")
    if args.reply_timeout is not None and (args.player is None or not args.reply_timeout > 0):
        ap.error("--reply-timeout is for --player, in seconds above 0")
    from tools.sim import language, narrate

    if args.headless:
        if not args.script:
            ap.error("--headless needs --script FILE (see --help for the script lines)")
        narrate.set_lang(language.choose(args.lang, args.store))
        if args.mode is None:
            args.mode = "2p"
        return run_headless(args)
    if args.narrate:
        ap.error("--narrate is for --headless; the terminal simulator always shows what happened beside the board")
    if args.store is None and not args.forget:
        from tools.sim.state import state_dir
        args.store = state_dir()
    narrate.set_lang(language.choose(args.lang, args.store))
    from tools.sim import terminal

    if args.mode is None:
        args.mode = terminal.DEFAULT_MODE

    return terminal.run(args)
