"""`python -m tools.tournament.outsiders.why`: the tournament's games replayed with their moves, and how each lost game was lost.

It plays exactly the games `python -m tools.tournament` plays for the same
--pairings/--games/--seed (same player seeds, same colours), prints the same
table, then classifies every decided game from the loser's side:

- hatch five: the winner's last five holds a turtle hatched from an egg on the last turn
- double threat: before the last turn the winner had two or more winning cells
- double threat allowed: at some turn the winner had two or more winning cells
  while the loser had none (the turn it first happened is counted)
- open threat ignored: on the last turn the loser covered none of the winner's
  winning cells (and "single": when there was only one)
- own win passed up: on the last turn the loser had a winning cell and did not play one
- sudden death: the game was in sudden death before the last turn
- six or more: the winner won with more winning turtles while the loser had a line too
- no threat seen: the winner had no winning cell before the last turn (a
  capture or a move made the five at once, out of the blue)

A winning cell is an empty cell where a turtle of that player wins the game
when the other plays a quiet cell elsewhere (so clamps that hatch an egg into a
five count too). The primary category is the first that applies in this order:
sudden death, own win passed up, hatch five, double threat, open threat ignored,
no threat seen, other.
"""
import argparse
import sys
import time

from engine import Game, BLACK, WHITE, EMPTY, ONGOING, BLACK_WON, WHITE_WON, EV_HATCH, square_name
from tools import tournament as T
from tools.tournament.outside import PlayerError
from tools.tournament.record import header_lines

CATEGORIES = ("sudden death", "own win passed up", "hatch five", "double threat", "open threat ignored",
              "no threat seen", "other")


def play_recorded(black, white, max_turns=T.MAX_TURNS):
    """Like tools.tournament.play_game, and the (black, white) moves too."""
    g = Game()
    moves = []
    for _ in range(max_turns):
        try:
            b = black.choose(g, BLACK)
        except PlayerError:
            return g, BLACK, moves
        try:
            w = white.choose(g, WHITE)
        except PlayerError:
            return g, WHITE, moves
        g.play(b, w)
        moves.append((b, w))
        if g.result != ONGOING:
            break
    return g, 0, moves


def run_one_recorded(args):
    """tools.tournament.run_one's game (same seeds and colours), with its moves: (a, b, i, out, turns, note, moves, a_colour)."""
    a, b, i, seed = args[:4]
    outside = args[4] if len(args) > 4 else None
    pa = T.make_player(a, seed * 1000003 + i * 2 + 1, outside)
    pb = T.make_player(b, seed * 1000003 + i * 2 + 2, outside)
    try:
        if i % 2 == 0:
            g, forfeit, moves = play_recorded(pa, pb)
            a_color = BLACK
        else:
            g, forfeit, moves = play_recorded(pb, pa)
            a_color = WHITE
    finally:
        for p in (pa, pb):
            if hasattr(p, "close"):
                p.close()
    note = ""
    if forfeit:
        out = -1 if forfeit == a_color else 1
        note = a if forfeit == a_color else b
    elif g.result == BLACK_WON:
        out = 1 if a_color == BLACK else -1
    elif g.result == WHITE_WON:
        out = 1 if a_color == WHITE else -1
    else:
        out = 0
    return (a, b, i, out, g.turns, note, moves, a_color)


def _quiet_cells(game):
    """The two empty cells with the fewest pieces within three cells (the other side's 'pass')."""
    ranked = []
    for c in range(81):
        if game.cell(c) != EMPTY:
            continue
        r0, c0 = divmod(c, 9)
        n = 0
        for r in range(max(0, r0 - 3), min(9, r0 + 4)):
            for k in range(max(0, c0 - 3), min(9, c0 + 4)):
                if game.cell(r * 9 + k) != EMPTY:
                    n += 1
        ranked.append((n, c))
    ranked.sort()
    return [c for _, c in ranked[:2]]


def winning_cells(game, color):
    """Empty cells where `color` wins at once if the other side plays a quiet cell elsewhere."""
    out = []
    if game.result != ONGOING:
        return out
    quiet = _quiet_cells(game)
    trial = Game()
    won = BLACK_WON if color == BLACK else WHITE_WON
    for c in range(81):
        if game.cell(c) != EMPTY:
            continue
        q = [x for x in quiet if x != c]
        if not q:
            continue
        trial.copy_from(game)
        if color == BLACK:
            trial.play(c, q[0])
        else:
            trial.play(q[0], c)
        if trial.result == won:
            out.append(c)
    return out


def classify(moves, loser):
    """(set of categories, primary category) for a game the `loser` colour lost, from its moves."""
    winner = 3 - loser
    g = Game()
    cats = set()
    allowed = False
    for k, (b, w) in enumerate(moves):
        last = k == len(moves) - 1
        if last:
            before = Game()
            before.copy_from(g)
        if not last:
            g.play(b, w)
            if not allowed and len(winning_cells(g, winner)) >= 2 and not winning_cells(g, loser):
                allowed = True
            continue
        wc = winning_cells(g, winner)
        lc = winning_cells(g, loser)
        sudden = g.sudden_death
        lmove = b if loser == BLACK else w
        g.play(b, w)
        if sudden:
            cats.add("sudden death")
        if lc and lmove not in lc:
            cats.add("own win passed up")
        log = g.log
        for j in range(0, g.log_len, 3):
            if log[j] == EV_HATCH and log[j + 2] == winner and g.is_winning(log[j + 1]):
                cats.add("hatch five")
                break
        if len(wc) >= 2:
            cats.add("double threat")
        if wc and lmove not in wc:
            cats.add("open threat ignored")
            if len(wc) == 1:
                cats.add("open threat ignored (single)")
        if not wc:
            cats.add("no threat seen")
        wl = g.winning_black if loser == BLACK else g.winning_white
        if wl > 0:
            cats.add("six or more")
    if allowed:
        cats.add("double threat allowed")
    primary = "other"
    for c in CATEGORIES:
        if c in cats:
            primary = c
            break
    return cats, primary


def report(records):
    """Lines: per loser, how many lost games fall in each category."""
    by_loser = {}
    for a, b, i, out, turns, note, moves, a_color in records:
        if out == 0 or note:
            continue
        loser_name = b if out == 1 else a
        winner_name = a if out == 1 else b
        loser = (3 - a_color) if out == 1 else a_color
        cats, primary = classify(moves, loser)
        d = by_loser.setdefault((loser_name, winner_name), {"games": 0, "cats": {}, "primary": {}, "list": []})
        d["games"] += 1
        for c in cats:
            d["cats"][c] = d["cats"].get(c, 0) + 1
        d["primary"][primary] = d["primary"].get(primary, 0) + 1
        d["list"].append((i, primary))
    lines = []
    names = list(CATEGORIES[:-1]) + ["open threat ignored (single)", "double threat allowed", "six or more"]
    for (loser, winner), d in sorted(by_loser.items()):
        lines.append("%s lost %d game(s) to %s:" % (loser, d["games"], winner))
        lines.append("| category | games (any) | games (primary) |")
        lines.append("| --- | --- | --- |")
        for c in names + ["other"]:
            lines.append("| %s | %d | %d |" % (c, d["cats"].get(c, 0), d["primary"].get(c, 0)))
        lines.append("games (index: primary): " + ", ".join("%d: %s" % x for x in sorted(d["list"])))
        lines.append("")
    return lines


def records_from_results(path, pairs, games, seed):
    """run_one_recorded's records of the games a tournament results file holds (--results FILE of
    tools.tournament) for these pairings, games 0..games-1 and this seed; (records, missing count)."""
    from engine import parse_square

    done = T.read_records(path)
    records = []
    missing = 0
    for a, b in pairs:
        for i in range(games):
            r = done.get((a, b, i, seed))
            if r is None or "moves" not in r:
                missing += 1
                continue
            moves = [(parse_square(m[:2]), parse_square(m[2:])) for m in r["moves"].split()]
            a_color = BLACK if i % 2 == 0 else WHITE
            records.append((a, b, i, r["out"], r["turns"], r["forfeit"], moves, a_color))
    return records, missing


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament.outsiders.why", description=__doc__.split("\n")[0])
    ap.add_argument("--pairings", required=True, help="comma-separated A-B pairs, as for tools.tournament")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--save", metavar="FILE", help="also write every game's moves (JSON lines) to FILE")
    ap.add_argument("--results", metavar="FILE",
                    help="classify the games a tools.tournament --results FILE holds (same pairings, --games and "
                         "--seed) instead of playing them; games not in it are left out and counted")
    args = ap.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        ap.error("--games and --jobs must be at least 1")
    pairs = []
    for item in args.pairings.split(","):
        parts = item.strip().split("-")
        if len(parts) != 2:
            ap.error("bad pairing %r" % item)
        for p in parts:
            try:
                T.make_player(p, 1)
            except ValueError as exc:
                ap.error(str(exc))
        pairs.append((parts[0], parts[1]))
    t0 = time.time()
    missing = 0
    if args.results:
        import os

        if not os.path.exists(args.results):
            ap.error("--results: no such file %r" % args.results)
        records, missing = records_from_results(args.results, pairs, args.games, args.seed)
    else:
        jobs = [(a, b, i, args.seed) for a, b in pairs for i in range(args.games)]
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.Pool(args.jobs) as pool:
                records = list(pool.imap_unordered(run_one_recorded, jobs, chunksize=1))
        else:
            records = [run_one_recorded(j) for j in jobs]
    records.sort(key=lambda r: (pairs.index((r[0], r[1])), r[2]))
    if args.save:
        import json

        with open(args.save, "w") as f:
            for r in records:
                f.write(json.dumps({"a": r[0], "b": r[1], "game": r[2], "outcome_a": r[3], "a_colour": r[7],
                                    "seed": args.seed, "moves": [[square_name(x), square_name(y)] for x, y in r[6]]})
                        + "\n")
    results = {p: [] for p in pairs}
    for r in records:
        results[(r[0], r[1])].append((r[3], r[4]))
    for line in header_lines(["tools.tournament.outsiders.why"] + list(argv if argv is not None else sys.argv[1:])):
        print(line)
    print("tournament: %d games per pairing, seed %d, colours alternate, max %d turns (then a draw), %.0f s"
          % (args.games, args.seed, T.MAX_TURNS, time.time() - t0))
    if args.results:
        print("results: %d game(s) read from %s, %d of those asked for not in it" % (len(records), args.results, missing))
    for line in T.table(results):
        print(line)
    print()
    for line in report(records):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
