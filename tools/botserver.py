"""Host tool: serve the device bot over JSON lines (board, eggs, you) on stdin -> one coordinate per line on stdout.

The protocol (docs/classroom.md, "Write your own bot"): each request is one line, a JSON
object {"board": 9 rows of RULES.md board text, row 1 first, "eggs": egg
cells oldest first, "you": "black" or "white"}; each answer is one line, a
cell name like "e5", or "error: <why>" for a request that cannot be answered.
The server keeps answering after an error, and exits with status 1 at the
end if any request failed (0 if none did). Requests are read as bytes, whatever
the locale: a line that is not UTF-8, longer than MAX_LINE bytes (read and
dropped in pieces) or nested too deep gets an error answer like any other.
"""
import argparse
import json
import os
import sys

from engine import Game, BLACK, WHITE, ONGOING, square_name
from engine.bot import Bot, LEVELS
from engine.notation import load

_COLORS = {"black": BLACK, "white": WHITE}
MAX_LINE = 1 << 20  # bytes in one request line (a real one has about 250): longer ones are refused, never held


def answer(bot, game, line):
    """The reply line for one request line (str, or bytes that must be UTF-8): a coordinate like 'e5', or 'error: ...'."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return "error: not UTF-8 text (byte %d)" % exc.start
    try:
        req = json.loads(line)
    except RecursionError:
        return "error: not JSON: nested too deep"
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
    except (ValueError, TypeError, AttributeError, IndexError) as exc:
        return "error: bad position: %s" % exc
    if game.result != ONGOING:
        return "error: the game in this position is over"
    if game.empty == 0:
        return "error: no empty cell"
    try:
        return square_name(bot.choose(game, _COLORS[you]))
    except ValueError as exc:
        return "error: %s" % exc


def lines(inp, limit=MAX_LINE):
    """Each line of `inp` (a binary stream; a text one works too) without its line break, or None for a line
    longer than `limit`, which is read to its end in pieces of at most limit + 1 and dropped."""
    while True:
        chunk = inp.readline(limit + 1)
        if not chunk:
            return
        if len(chunk) > limit and chunk[-1:] not in ("\n", b"\n"):
            while chunk and chunk[-1:] not in ("\n", b"\n"):
                chunk = inp.readline(limit + 1)
            yield None
            continue
        yield chunk.rstrip("\r\n" if isinstance(chunk, str) else b"\r\n")


def serve(bot, inp, out, err=None):
    """Answer every non-blank line of inp (binary or text) on out, flushing after each; returns the number of
    error answers. Each error is also reported on err (if given) with its line number."""
    game = Game()
    errors = 0
    n = 0
    for line in lines(inp):
        n += 1
        if line is None:
            a = "error: a request line longer than %d bytes" % MAX_LINE
        elif not line.strip():
            continue
        else:
            try:
                a = answer(bot, game, line)
            except Exception as exc:  # noqa: BLE001  (a request the checks above missed: say so, keep serving)
                a = "error: cannot answer this request (%s)" % type(exc).__name__
        if a.startswith("error:"):
            errors += 1
            if err is not None:
                err.write("botserver: line %d: %s\n" % (n, a[7:]))
                err.flush()
        out.write(a + "\n")
        out.flush()
    return errors


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.botserver", description=__doc__)
    ap.add_argument("--level", choices=LEVELS, default="hard")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the bot's random choices (default: fresh from os.urandom; give one to reproduce answers)")
    args = ap.parse_args(argv)
    seed = args.seed
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF
    elif not 0 <= seed < 1 << 30:
        ap.error("--seed must be in 0..%d" % ((1 << 30) - 1))
    sys.stdout.reconfigure(errors="backslashreplace")  # (answers are ASCII; an error may quote a request)
    try:
        errors = serve(Bot(args.level, seed), sys.stdin.buffer, sys.stdout, sys.stderr)
    except (BrokenPipeError, KeyboardInterrupt):
        return 1
    if errors:
        sys.stderr.write("botserver: %d request(s) answered with an error\n" % errors)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
