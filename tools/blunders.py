"""Host tool: how often a level's moves lose at once, in the shared random games' positions where some move does and some does not."""
import argparse
import sys

from engine import Game, BLACK, WHITE, BLACK_WON, WHITE_WON
from engine.bot import Bot, LEVELS
from engine.notation import load


def losing_moves(g, color, trial=None):
    """(cells of `color`'s legal moves that some reply beats at once, all legal moves), played exactly."""
    trial = trial or Game()
    lost = WHITE_WON if color == BLACK else BLACK_WON
    legal = [c for c in range(81) if g.legal(c)]
    bad = set()
    for m in legal:
        for r in legal:
            trial.copy_from(g)
            if color == BLACK:
                trial.play(m, r)
            else:
                trial.play(r, m)
            if trial.result == lost:
                bad.add(m)
                break
    return bad, legal


def danger_positions(positions=None):
    """[(rows, eggs, colour, losing cells)]: every position and side to move where some legal move loses
    at once and some does not (positions: [(rows, egg names)], default every position of the shared games)."""
    if positions is None:
        from tools.bench.bot import all_positions  # the one home of "the positions of the shared random games"
        positions = all_positions()
    g, trial = Game(), Game()
    out = []
    for rows, eggs in positions:
        load(g, rows, eggs)
        for color in (BLACK, WHITE):
            bad, legal = losing_moves(g, color, trial)
            if bad and len(bad) < len(legal):
                out.append((rows, eggs, color, bad))
    return out


def count(level, seeds, danger):
    """Moves of `level` that lose at once: one Bot per seed, asked the danger positions in order."""
    g = Game()
    lost = 0
    for seed in seeds:
        bot = Bot(level, seed)
        for rows, eggs, color, bad in danger:
            load(g, rows, eggs)
            if bot.choose(g, color) in bad:
                lost += 1
    return lost, len(seeds) * len(danger)


def _seeds(text):
    try:
        if "-" in text:
            a, b = text.split("-", 1)
            seeds = list(range(int(a), int(b) + 1))
        else:
            seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0 or max(seeds) >= 2 ** 30:
        raise argparse.ArgumentTypeError("seeds: a range A-B or a list A,B,C of numbers 0 <= seed < 2**30")
    return seeds


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.blunders",
        description="In every position of the shared random games (host_tests/conformance/random-games.json), "
                    "for each side to move, find the moves some reply beats at once (played exactly); where "
                    "some move loses at once and some does not, count how often the level's move does.")
    ap.add_argument("--level", choices=LEVELS, default="hard", help="the level to ask (default: %(default)s)")
    ap.add_argument("--seeds", type=_seeds, default=_seeds("1-4"),
                    help="bot seeds, A-B or A,B,C (default: 1-4); one Bot per seed goes through the positions in order")
    args = ap.parse_args(argv)
    danger = danger_positions()
    lost, total = count(args.level, args.seeds, danger)
    print("danger positions (some move loses at once, some does not; either side to move): %d" % len(danger))
    print("%s, seeds %s: %d of %d moves lose at once" % (
        args.level, ",".join(str(s) for s in args.seeds), lost, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
