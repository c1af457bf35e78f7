"""Same-moves record of the computer opponent: every level's move in every position of the shared random games, seeds 1-3, written to or checked against a golden file.

    python -m tools.botmoves --check            # all positions, levels, seeds against host_tests/bot_moves.json
    python -m tools.botmoves --write            # record today's moves (only when a change of moves is intended)
    python -m tools.botmoves --check --every 4  # every 4th position (what host_tests/test_bot.py runs)

A refactoring of engine/bot that claims "same moves" runs --check before it
is committed. Position k of a seed is played by the side 1 + ((k + seed) & 1)
(so each position is checked for both colours over the seeds) with choose(),
on CPython, by a fresh Bot(level, seed) on fresh shared memory: the move is
then a function of the position, level and seed alone, so any subset
reproduces the record (the reply search keeps each cell's pass in the shared
Work between moves, and a cell it did not reach in one move keeps the pass
of an earlier one: with memory carried over, a move can depend on the moves
before it).
"""
import argparse
import hashlib
import json
import sys

from tools import ROOT

GOLDEN = ROOT / "host_tests" / "bot_moves.json"
SEEDS = (1, 2, 3)
LEVELS = ("easy", "medium", "hard")


def positions():
    """Every ongoing position of the shared random games (tools.bench.bot.all_positions)."""
    from tools.bench.bot import all_positions

    return all_positions()


def digest(pos):
    """A short hash of the position list: a record made from other positions is refused, not compared."""
    text = "\n".join("%s|%s" % ("/".join(rows), " ".join(eggs)) for rows, eggs in pos)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def color_of(k, seed):
    """The side to move in position k for a seed: 1 (black) or 2 (white)."""
    return 1 + ((k + seed) & 1)


def _forget_work():
    """Drop the bots' shared scratch memory: the next Bot makes a fresh one."""
    import engine.bot as eb

    tables = getattr(eb, "tables", None)
    if tables is not None:
        tables._work = None
    else:
        eb._WORK[0] = None  # engine/bot.py before it became a package (7948d19), for checking the record there


def play(level, seed, pos, every=1):
    """{k: cell} of a fresh bot's move in every `every`-th position."""
    from engine import Game
    from engine.bot import Bot
    from engine.notation import load

    g = Game()
    out = {}
    for k in range(0, len(pos), every):
        rows, eggs = pos[k]
        load(g, rows, eggs)
        _forget_work()
        out[k] = Bot(level, seed).choose(g, color_of(k, seed))
    _forget_work()  # no Work of ours stays shared with other bots of this process
    return out


def record(pos, levels=LEVELS, seeds=SEEDS):
    """The golden record (a dict, see write())."""
    from engine import square_name

    moves = {}
    for level in levels:
        moves[level] = {}
        for seed in seeds:
            got = play(level, seed, pos)
            moves[level][str(seed)] = "".join(square_name(got[k]) for k in range(len(pos)))
    return {
        "about": "engine/bot moves (cell names, 2 characters per position) in the shared random games' positions; "
                 "python -m tools.botmoves --check compares, --write records (see tools/botmoves.py)",
        "positions": len(pos),
        "positions_sha256": digest(pos),
        "moves": moves,
    }


def check(rec, pos, every=1, levels=None, seeds=None):
    """[(level, seed, k, color, move, golden move)] for every position that differs from the record.

    ValueError if the record was made from other positions, or lacks a level or seed asked for.
    """
    from engine import square_name

    if rec.get("positions") != len(pos) or rec.get("positions_sha256") != digest(pos):
        raise ValueError("the record is of other positions (%s positions, hash %s; these: %d, %s): "
                         "the shared random games changed" % (rec.get("positions"), rec.get("positions_sha256"),
                                                             len(pos), digest(pos)))
    bad = []
    for level in levels or LEVELS:
        for seed in seeds or SEEDS:
            want = rec["moves"].get(level, {}).get(str(seed))
            if want is None or len(want) != 2 * len(pos):
                raise ValueError("the record has no moves for %s, seed %d" % (level, seed))
            for k, cell in sorted(play(level, seed, pos, every).items()):
                got = square_name(cell)
                if got != want[2 * k:2 * k + 2]:
                    bad.append((level, seed, k, color_of(k, seed), got, want[2 * k:2 * k + 2]))
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.botmoves", description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", nargs="?", const=str(GOLDEN), metavar="FILE",
                      help="record every level's moves (default file: %(const)s)")
    mode.add_argument("--check", nargs="?", const=str(GOLDEN), metavar="FILE",
                      help="compare the moves with a record (default file: %(const)s)")
    ap.add_argument("--every", type=int, default=1, metavar="N", help="--check only every N-th position (default 1: all)")
    ap.add_argument("--levels", default=",".join(LEVELS), help="--check these levels (default: %(default)s)")
    args = ap.parse_args(argv)
    if args.every < 1:
        ap.error("--every must be 1 or more")
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    unknown = [x for x in levels if x not in LEVELS]
    if unknown:
        ap.error("unknown level %s; choose from %s" % (", ".join(unknown), ", ".join(LEVELS)))
    pos = positions()
    if args.write:
        rec = record(pos)
        with open(args.write, "w") as f:
            json.dump(rec, f, indent=1, sort_keys=True)
            f.write("\n")
        print("botmoves: wrote %s: %d positions x %d seeds x %d levels"
              % (args.write, len(pos), len(SEEDS), len(LEVELS)))
        return 0
    try:
        with open(args.check) as f:
            rec = json.load(f)
        bad = check(rec, pos, args.every, levels)
    except (OSError, ValueError) as exc:
        print("botmoves: %s" % exc, file=sys.stderr)
        return 2
    n = len(range(0, len(pos), args.every))
    for level, seed, k, color, got, want in bad[:20]:
        print("botmoves: %s seed %d position %d (%s to move): %s, the record says %s"
              % (level, seed, k, "black" if color == 1 else "white", got, want))
    print("botmoves: %d of %d moves differ (%d positions x %d seeds x %s)"
          % (len(bad), n * len(SEEDS) * len(levels), n, len(SEEDS), " + ".join(levels)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
