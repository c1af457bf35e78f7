"""The tournament's text pictures, in the simulator's language (tools/sim/narrate.py): a position as board text with coordinates, and the report of a bot that broke the protocol (why, the position and request it failed on, the end of its stderr)."""
import json

from engine import parse_square, square_name
from tools.sim.narrate import word

COLS = "abcdefghi"


def position_lines(rows, eggs=(), placed=(), indent="  "):
    """9 rows of board text (RULES.md: . B W e) -> lines with coordinates; `placed` cells (0..80) get a '*'
    before them, the oldest egg (eggs[0], a cell name) a '>'."""
    oldest = parse_square(eggs[0]) if eggs else -1
    out = [indent + "    " + " ".join(COLS)]
    for r in range(9):
        s = ""
        for c in range(9):
            i = r * 9 + c
            s += ("*" if i in placed else ">" if i == oldest else " ") + rows[r][c]
        out.append(indent + "%2d %s" % (r + 1, s))
    return out


def game_rows(g):
    """The board text of an engine Game (9 strings of . B W e)."""
    return ["".join(".BWe"[g.cell(r * 9 + c)] for c in range(9)) for r in range(9)]


def game_eggs(g):
    return [square_name(g.egg(k)) for k in range(g.egg_count)]


def failure_lines(rec, watch=None):
    """The report of a game a player lost by breaking the protocol (a results record with "failure"), as lines;
    `watch`: a command that replays the game (shown when given)."""
    f = rec["failure"]
    pairing = "%s-%s" % (rec["a"], rec["b"])
    colour = word(f["colour"])
    lines = [word("bot.report", name=f["player"], i=rec["i"], pairing=pairing, seed=rec["seed"], turn=f["turn"],
                  colour=colour, why=_why(f))]
    req = _request(f.get("request"))
    if req is not None:
        lines.append("  " + word("bot.position", colour=word(req["you"]) if req.get("you") in ("black", "white")
                                 else colour))
        lines += position_lines(req["board"], req["eggs"], indent="    ")
        lines.append("    " + (word("bot.eggs", eggs=" ".join(req["eggs"])) if req["eggs"] else word("bot.no_eggs")))
        lines.append("  " + word("bot.request"))
        lines.append("    " + f["request"])
    if f.get("stderr"):
        lines.append("  " + word("bot.stderr", name=f["player"]))
        lines += ["    | " + line for line in f["stderr"].split("\n")]
    else:
        lines.append("  " + word("bot.no_stderr"))
    if watch:
        lines += ["  " + word("bot.watch_it"), "    " + watch]
    return lines


def _why(f):
    """Why it broke the protocol, in the current language when the record says which reason."""
    try:
        return word("bot.why." + f["reason"], **f["values"])
    except (KeyError, TypeError, IndexError, ValueError):
        return f.get("why", "")


def _request(line):
    """The request line as {"board", "eggs", "you"}, or None when there is none (the bot could not be started)."""
    if not line:
        return None
    try:
        req = json.loads(line)
        rows, eggs = req["board"], req["eggs"]
        if len(rows) == 9 and all(isinstance(r, str) and len(r) == 9 for r in rows) and isinstance(eggs, list):
            return req
    except (ValueError, KeyError, TypeError):
        pass
    return None
