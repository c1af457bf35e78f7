"""Wasm fuel of Game.play and Game.undo over the trial turns hard and its deeper answer play in the 6 positions
of beforeafter.py (recorded on CPython with this checkout's bot), with engine/game.py of this checkout or of REV.
Run from the repository root: PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-viper-loops/playfuel.py [REV]"""
import subprocess, sys
from collections import defaultdict

from engine import Game
from engine.bot import Bot
from engine.bot.deepen import Deepen
from tools import upy
from tools.bench.rp2040 import position_turns
from tools.upy import fuel

IDX = [150, 300, 500, 700, 900, 1100]
FIELDS = ("_eh", "egg_count", "empty", "result", "sudden_death", "winning_black", "winning_white",
          "captures_black", "captures_white", "_nwin")


def trace():
    """[(state bytes, black, white)] of every Game.play the bot makes; a state is the board, the egg ring,
    the winners' list and FIELDS, one byte each."""
    out = []
    play = Game.play

    def wplay(g, b, w):
        out.append((bytes(g._b) + bytes(g._eggs) + bytes(g._win) + bytes(int(getattr(g, a)) for a in FIELDS), b, w))
        return play(g, b, w)

    reach = position_turns()
    try:
        for k, i in enumerate(IDX):
            g = Game()
            for x, y in reach[i]:
                g.play(x, y)
            Game.play = wplay
            bot = Bot("hard", 1)
            d = Deepen(bot)
            bot.reseed(k)
            bot.choose(g, 1 + (k & 1))
            d.begin(g, 1 + (k & 1))
            while d.step(1000000) < 0:
                pass
            Game.play = play
    finally:
        Game.play = play
    return out


GUEST = """
from engine import Game
F = %r
D = open('/input/states.bin', 'rb').read()
R = open('/input/moves.bin', 'rb').read()
SZ = 121 + 81 + 81 + len(F)
g = Game()
print("@@FUEL o0")
print("@@FUEL o1")
for q in range(0, len(R), 2):
    o = q // 2 * SZ
    g._b[:] = D[o:o + 121]
    g._eggs[:] = D[o + 121:o + 202]
    g._win[:] = D[o + 202:o + 283]
    for j in range(len(F)):
        v = D[o + 283 + j]
        setattr(g, F[j], v == 1 if F[j] == 'sudden_death' else v)
    g.log_len = 0
    print("@@FUEL a")
    g.play(R[q], R[q + 1])
    print("@@FUEL b")
    g.undo()
    print("@@FUEL c")
"""


def kind(state, b, w):
    g = Game()
    g._b[:] = state[:121]
    g._eggs[:] = state[121:202]
    g._win[:] = state[202:283]
    for j, a in enumerate(FIELDS):
        setattr(g, a, state[283 + j] == 1 if a == "sudden_death" else state[283 + j])
    g.play(b, w)
    ops = set(g.log[i] for i in range(0, g.log_len, 3))
    return (("collision" if b == w else "placement") + (", captures" if 3 in ops else "") + (", hatches" if 8 in ops else "")
            + (", decided" if g.result else "") + (", sudden death" if g.sudden_death or state[283 + 4] else ""))


def main():
    args = sys.argv[1:]
    turns = trace()
    files = upy.project_files("engine")
    if args:
        files["engine/game.py"] = subprocess.check_output(["git", "show", args[0] + ":engine/game.py"])
    files["states.bin"] = b"".join(t[0] for t in turns)
    files["moves.bin"] = bytes(x for t in turns for x in t[1:])
    _, marks = fuel.measure(GUEST % (FIELDS,), files=files, wall_timeout=1200)
    ov = marks[1][1] - marks[0][1]
    pl = [marks[i + 1][1] - marks[i][1] - ov for i in range(2, len(marks), 3)]
    un = [marks[i + 2][1] - marks[i + 1][1] - ov for i in range(2, len(marks), 3)]
    n = len(pl)
    top = sorted(range(n), key=pl.__getitem__)[-3:]
    print("the costliest plays: " + ", ".join("#%d %d" % (i, pl[i]) for i in top))
    print("%d turns: play mean %.0f max %d, undo mean %.0f max %d (fuel)" % (n, sum(pl) / n, max(pl), sum(un) / n, max(un)))
    agg = defaultdict(lambda: [0, 0, 0])
    for t, p, u in zip(turns, pl, un):
        a = agg[kind(*t)]
        a[0] += 1
        a[1] += p
        a[2] += u
    for k, a in sorted(agg.items(), key=lambda x: -x[1][1]):
        print("  %-45s %5d turns  play %7.0f  undo %6.0f" % (k, a[0], a[1] / a[0], a[2] / a[0]))


if __name__ == "__main__":
    main()
