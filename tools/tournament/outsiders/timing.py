"""`python -m tools.tournament.outsiders.timing`: seconds a move of each outsider takes on this host (CPU and wall clock)."""
import argparse
import sys
import time

from engine import Game, BLACK, WHITE, ONGOING
from engine.bot import Bot
from tools.tournament import outsiders
from tools.tournament.record import header_lines


def positions(n, seed):
    """n ongoing positions from hard-vs-hard games (every third turn), the same for a seed."""
    out = []
    k = 0
    while len(out) < n:
        g = Game()
        b = Bot("hard", seed * 1000 + 2 * k)
        w = Bot("hard", seed * 1000 + 2 * k + 1)
        k += 1
        while g.result == ONGOING and len(out) < n:
            if g.turns % 3 == 0:
                snap = Game()
                snap.copy_from(g)
                out.append(snap)
            g.play(b.choose(g, BLACK), w.choose(g, WHITE))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament.outsiders.timing", description=__doc__.split("\n")[0])
    ap.add_argument("--players", default="twoply,oneply,sampler", help="comma-separated outsider names")
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    names = [x.strip() for x in args.players.split(",") if x.strip()]
    for name in names:
        if not outsiders.is_name(name):
            ap.error("not an outsider: %r" % name)
    if args.positions < 1:
        ap.error("--positions must be at least 1")
    pos = positions(args.positions, args.seed)
    for line in header_lines(["tools.tournament.outsiders.timing"] + list(argv if argv is not None else sys.argv[1:])):
        print(line)
    print("| player | moves | CPU s a move: mean | worst | wall s a move: mean | worst |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in names:
        p = outsiders.make(name, args.seed)
        cpu = []
        wall = []
        for k, g in enumerate(pos):
            color = BLACK if k % 2 == 0 else WHITE
            t0 = time.process_time()
            w0 = time.perf_counter()
            p.choose(g, color)
            cpu.append(time.process_time() - t0)
            wall.append(time.perf_counter() - w0)
        print("| %s | %d | %.3f | %.3f | %.3f | %.3f |" % (name, len(cpu), sum(cpu) / len(cpu), max(cpu),
                                                        sum(wall) / len(wall), max(wall)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
