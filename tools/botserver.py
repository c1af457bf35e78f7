"""Host tool: serve the device bot over JSON lines (board, eggs, you) on stdin -> one coordinate per line on stdout."""
import argparse
import json
import sys

from engine import Game, BLACK, WHITE, ONGOING, square_name
from engine.bot import Bot, LEVELS
from engine.notation import load

_COLORS = {"black": BLACK, "white": WHITE}


def answer(bot, game, line):
    """The reply line for one request line: a coordinate like 'e5', or 'error: ...'."""
    try:
        req = json.loads(line)
    except ValueError as exc:
        return "error: not JSON: %s" % exc
    if not isinstance(req, dict):
        return "error: expected a JSON object with board, eggs, you"
    you = req.get("you")
    if you not in _COLORS:
        return 'error: "you" must be "black" or "white"'
    board = req.get("board")
    eggs = req.get("eggs", [])
    if not isinstance(eggs, list) or not all(isinstance(e, str) for e in eggs):
        return 'error: "eggs" must be a list of cell names like "c3"'
    try:
        load(game, board, eggs)
    except (ValueError, TypeError) as exc:
        return "error: bad position: %s" % exc
    if game.result != ONGOING:
        return "error: the game in this position is over"
    if game.empty == 0:
        return "error: no empty cell"
    try:
        return square_name(bot.choose(game, _COLORS[you]))
    except ValueError as exc:
        return "error: %s" % exc


def serve(bot, inp, out):
    """Answer every non-blank line of inp on out, flushing after each."""
    game = Game()
    for line in inp:
        if not line.strip():
            continue
        out.write(answer(bot, game, line) + "\n")
        out.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.botserver", description=__doc__)
    ap.add_argument("--level", choices=LEVELS, default="hard")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    serve(Bot(args.level, args.seed), sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
