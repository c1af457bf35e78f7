"""`python -m tools.render COMMAND`: one argparse CLI, one subcommand per picture module."""
import argparse
import sys

from tools.render import demo, frames, keypad, sheet, terminal, wiring
from tools.render.common import RenderError

COMMANDS = (demo, frames, wiring, keypad, terminal, sheet)


def parser():
    ap = argparse.ArgumentParser(
        prog="python -m tools.render",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Pictures made by the project's own tools: the LED panel from recorded frames or a played "
                    "key script, and wiring and keypad diagrams drawn from the board files.",
        epilog="examples:\n"
               "  .venv/bin/python -m tools.render demo docs/demo-game.txt --gif docs/game.gif --png docs/board.png --at 25500\n"
               "  .venv/bin/python -m tools.render wiring --board pico\n"
               "  .venv/bin/python -m tools.render keypad\n"
               "  .venv/bin/python -m tools.render sheet --all --out docs/print\n"
               "  .venv/bin/python -m tools.render COMMAND --help    the options of one command")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for m in COMMANDS:
        m.add_parser(sub)
    return ap


def main(argv=None):
    a = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        a.run(a)
    except RenderError as e:
        print("render: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:   # an output path that cannot be written
        print("render: error: cannot write %s: %s" % (e.filename or "output", e.strerror or e), file=sys.stderr)
        return 2
    return 0
