"""Example outside bot for tools.tournament: reads one JSON position per line on stdin, answers one cell name per line.

Run it in a tournament (from the checkout):
    .venv/bin/python -m tools.tournament --player "cmd:.venv/bin/python docs/examples/mybot.py" --games 20

Plain Python 3 and only the standard library: copy it, change choose(), or
write the same loop in any language. The protocol (docs/classroom.md "Write your own
bot"): a request is {"board": 9 rows, row 1 first, of "." empty, "B" black,
"W" white, "e" egg; "eggs": egg cells oldest first; "you": "black" or
"white"}; the answer is a cell name such as "e5" (column a..i, row 1..9).
"""
import json
import random
import sys

DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # the four line directions (row, column)


def name(row, col):
    return "abcdefghi"[col] + str(row + 1)


def line_length(board, row, col, me):
    """The longest line of `me` through (row, col) if `me` played there."""
    best = 0
    for dr, dc in DIRECTIONS:
        n = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < 9 and 0 <= c < 9 and board[r][c] == me:
                n += 1
                r, c = r + sign * dr, c + sign * dc
        best = max(best, n)
    return best


def choose(board, me, rng):
    """Win now if we can, else block a five, else lengthen our longest line (near the centre)."""
    other = "W" if me == "B" else "B"
    empty = [(r, c) for r in range(9) for c in range(9) if board[r][c] == "."]
    rng.shuffle(empty)
    for r, c in empty:
        if line_length(board, r, c, me) >= 5:
            return name(r, c)
    for r, c in empty:
        if line_length(board, r, c, other) >= 5:
            return name(r, c)
    r, c = max(empty, key=lambda rc: (line_length(board, rc[0], rc[1], me), -abs(rc[0] - 4) - abs(rc[1] - 4)))
    return name(r, c)


def main():
    rng = random.Random()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        me = "B" if request["you"] == "black" else "W"
        print(choose(request["board"], me, rng), flush=True)  # one answer per line, flushed


if __name__ == "__main__":
    main()
