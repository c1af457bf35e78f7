"""A student's bot with a bug, for the classroom (docs/classroom.md "When a bot breaks"): an opening book, then mybot.py's moves; it crashes when the book runs out.

See what the tournament shows about it (the traceback and the position it failed on):
    .venv/bin/python -m tools.tournament --player "cmd:.venv/bin/python docs/examples/buggybot.py" --pairings buggybot-random --games 2

The fix is one line: see BUG below.
"""
import json
import random
import sys

from mybot import choose as line_move  # mybot.py, beside this file: win, block a five, else lengthen a line

OPENING = ["e5", "d4", "f6", "c3"]  # a diagonal: c3 d4 e5 f6, then b2 or g7 makes five


def is_free(board, cell):
    return board[int(cell[1]) - 1]["abcdefghi".index(cell[0])] == "."


def choose(board, me, rng):
    """The next cell of the opening book while it is free, else mybot.py's move."""
    mine = sum(row.count(me) for row in board)
    if is_free(board, OPENING[mine]):  # BUG: with 4 turtles OPENING[4] does not exist. Fix: `if mine < len(OPENING) and ...`
        return OPENING[mine]
    return line_move(board, me, rng)


def main():
    rng = random.Random()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        me = "B" if request["you"] == "black" else "W"
        print(choose(request["board"], me, rng), flush=True)


if __name__ == "__main__":
    main()
