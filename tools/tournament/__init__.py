"""Host tool: play the bot levels, baselines and outside bots against each other; win rates with Wilson 95% CIs and Bradley-Terry ratings."""
import argparse
import json
import os
import re
import sys
import time

from engine import Game, BLACK, WHITE, ONGOING, BLACK_WON, WHITE_WON
from engine.bot import Bot, LEVELS
from tools.tournament.baselines import (  # noqa: F401  (re-exported: tests and tools use them from here)
    RandomPlayer, GreedyPlayer, Matrix1Player, ExploiterPlayer, _run_len, _clamps, _empties,
)
from tools.tournament.outside import CommandPlayer, PlayerError, REPLY_TIMEOUT
from tools.tournament import outsiders
from tools.tournament.record import header_lines
from tools.tournament.ratings import wilson, ratings_with_intervals  # noqa: F401

BASELINES = ("random", "greedy", "matrix1", "exploiter")
PLAYERS = BASELINES + LEVELS
DEFAULT_PAIRINGS = (
    "hard-greedy",
    "medium-greedy",
    "easy-greedy",
    "hard-matrix1",
    "exploiter-hard",
    "matrix1-greedy",
    "hard-medium",
    "hard-easy",
    "medium-easy",
    "hard-random",
    "medium-random",
    "easy-random",
    "greedy-random",
)
MAX_TURNS = 200  # a game still running after this many turns counts as a draw
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def make_player(name, seed, outside=None, timeout=None):
    """A fresh player: a level, a baseline, or an outside command from `outside` ({name: command}; `timeout`:
    seconds it may take for a move, default tools.tournament.outside.REPLY_TIMEOUT)."""
    if outside and name in outside:
        return CommandPlayer(name, outside[name], seed, timeout=timeout)
    if name == "random":
        return RandomPlayer(seed)
    if name == "greedy":
        return GreedyPlayer(seed)
    if name == "matrix1":
        return Matrix1Player(seed)
    if name == "exploiter":
        return ExploiterPlayer(seed)
    if outsiders.is_name(name):
        return outsiders.make(name, seed)
    if name in LEVELS:
        # The tournament's seeds stand in for the device's true entropy (one
        # per game); the exploiter never learns them.
        return Bot(name, seed)
    raise ValueError("unknown player %r (one of %s)" % (name, ", ".join(PLAYERS + outsiders.BASES + tuple(outside or ()))))


def play_game(black, white, max_turns=MAX_TURNS):
    """Play one game; returns (final Game, forfeit colour or 0). A player that breaks the protocol forfeits."""
    g = Game()
    for _ in range(max_turns):
        # Both choose on the same position before either move is played (honest).
        try:
            b = black.choose(g, BLACK)
        except PlayerError:
            return g, BLACK
        try:
            w = white.choose(g, WHITE)
        except PlayerError:
            return g, WHITE
        g.play(b, w)
        if g.result != ONGOING:
            break
    return g, 0


def run_one(args):
    """Game i of pairing a-b: a is black on even i. args: (a, b, i, seed[, outside commands[, reply timeout]]).
    Returns (a, b, i, outcome for a: 1/0/-1, turns, forfeit note)."""
    a, b, i, seed = args[:4]
    outside = args[4] if len(args) > 4 else None
    timeout = args[5] if len(args) > 5 else None
    sa = seed * 1000003 + i * 2 + 1
    sb = seed * 1000003 + i * 2 + 2
    pa = make_player(a, sa, outside, timeout)
    pb = make_player(b, sb, outside, timeout)
    try:
        if i % 2 == 0:
            g, forfeit = play_game(pa, pb)
            a_color = BLACK
        else:
            g, forfeit = play_game(pb, pa)
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
    return (a, b, i, out, g.turns, note)


def read_results(path):
    """The games a results file (--results: JSON lines) holds, {(a, b, i, seed): (outcome, turns, forfeit)}.
    Lines that are not whole records (a crash in the middle of writing one) are skipped."""
    done = {}
    try:
        with open(path, "rb") as f:
            for raw in f:
                try:
                    r = json.loads(raw)
                    done[(r["a"], r["b"], r["i"], r["seed"])] = (r["out"], r["turns"], r["forfeit"])
                except (ValueError, KeyError, TypeError):
                    continue
    except FileNotFoundError:
        pass
    return done


class ResultsFile:
    """Appends each finished game to a JSON-lines file at once (flushed and synced): a crash loses no game."""

    def __init__(self, path):
        self.f = open(path, "ab")
        if self.f.tell():
            with open(path, "rb") as r:
                r.seek(-1, 2)
                if r.read(1) != b"\n":
                    self.f.write(b"\n")  # a line cut short by a crash stays on its own line

    def add(self, a, b, i, seed, out, turns, note):
        rec = {"a": a, "b": b, "i": i, "seed": seed, "out": out, "turns": turns, "forfeit": note}
        self.f.write((json.dumps(rec) + "\n").encode())
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self):
        self.f.close()


def _pct(k, n):
    lo, hi = wilson(k, n)
    p = 100.0 * k / n if n else 0.0
    return "%5.1f%% [%5.1f,%5.1f]" % (p, 100 * lo, 100 * hi)


def table(results):
    """results: {(a, b): [(outcome, turns)]} -> printable table lines."""
    lines = [
        "| pairing (A vs B) | games | A wins | draws | A losses | A wins of decided | mean turns |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (a, b), outs in results.items():
        n = len(outs)
        w = sum(1 for o, _ in outs if o == 1)
        d = sum(1 for o, _ in outs if o == 0)
        l = sum(1 for o, _ in outs if o == -1)
        turns = sum(t for _, t in outs) / n if n else 0
        lines.append(
            "| %s vs %s | %d | %s | %s | %s | %s (%d) | %.1f |"
            % (a, b, n, _pct(w, n), _pct(d, n), _pct(l, n), _pct(w, w + l), w + l, turns)
        )
    return lines


def rating_lines(results):
    """Bradley-Terry ratings (Elo scale, mean 0) with 95% bootstrap intervals, best first."""
    games = [(a, b, o) for (a, b), outs in results.items() for o, _ in outs]
    players = sorted({p for pair in results for p in pair})
    r = ratings_with_intervals(games, players)
    lines = ["| player | rating (Elo scale, mean 0) | 95% interval |", "| --- | --- | --- |"]
    for p in sorted(players, key=lambda p: -r[p][0]):
        lines.append("| %s | %+.0f | [%+.0f, %+.0f] |" % (p, r[p][0], r[p][1], r[p][2]))
    return lines


def _parse_player(ap, spec):
    """'NAME=cmd:COMMAND' or 'cmd:COMMAND' (named after the command's last word) -> (name, command)."""
    name = None
    if not spec.startswith("cmd:") and "=" in spec:
        name, spec = spec.split("=", 1)
    if not spec.startswith("cmd:") or not spec[4:].strip():
        ap.error("bad --player %r: use cmd:COMMAND or NAME=cmd:COMMAND" % (spec,))
    command = spec[4:].strip()
    if name is None:
        last = command.split()[-1].replace("\\", "/").split("/")[-1]
        name = re.sub(r"\.\w+$", "", last)
        name = re.sub(r"[^A-Za-z0-9_]", "_", name)
        if not name or not name[0].isalpha():
            name = "outside"
    if not _NAME.match(name) or name in PLAYERS or outsiders.is_name(name):
        ap.error("bad player name %r: letters, digits and _, not one of %s" % (name, ", ".join(PLAYERS)))
    return name, command


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament", description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="games per pairing (colours alternate)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (every game's seeds derive from it)")
    ap.add_argument(
        "--pairings",
        default=None,
        help="comma-separated A-B pairs of: %s, the outsiders %s (options: _tSECONDS, sampler_LEVEL) and --player "
        "names (default: %s; with --player: each outside player against random, greedy, easy, medium, hard, matrix1)"
        % (", ".join(PLAYERS), ", ".join(outsiders.BASES), ",".join(DEFAULT_PAIRINGS)),
    )
    ap.add_argument("--player", action="append", default=[], metavar="[NAME=]cmd:COMMAND",
                    help="an outside bot: a command that speaks the botserver JSON-lines protocol (repeatable)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--write-docs", nargs="?", const="levels", default=None, metavar="SECTION",
                    help="also write the tables to docs/strength.md as section SECTION (default: levels), "
                         "with this command line, the commit and the date; other sections stay")
    ap.add_argument("--results", metavar="FILE", default=None,
                    help="JSON-lines file: each game is appended as it ends, and games already in it (same pairing, "
                         "game number and --seed) are not played again; the tables count them (a crashed run resumes)")
    ap.add_argument("--reply-timeout", type=float, default=None, metavar="S",
                    help="seconds an outside bot may take for one move (default %.0f)" % REPLY_TIMEOUT)
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    if args.write_docs is not None and not re.match(r"^[A-Za-z0-9_-]+$", args.write_docs):
        ap.error("--write-docs: a section name of letters, digits, _ and -")
    outside = {}
    for spec in args.player:
        name, command = _parse_player(ap, spec)
        if name in outside:
            ap.error("two players named %r: give one a name with NAME=cmd:..." % name)
        outside[name] = command
    known = PLAYERS + tuple(outside)
    if args.pairings is None:
        if outside:
            args.pairings = ",".join("%s-%s" % (o, b) for o in outside
                                     for b in ("random", "greedy", "easy", "medium", "hard", "matrix1"))
        else:
            args.pairings = ",".join(DEFAULT_PAIRINGS)
    pairs = []
    for item in args.pairings.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split("-")
        if len(parts) != 2 or not all(p in known or outsiders.is_name(p) for p in parts):
            ap.error("bad pairing %r (use A-B with A, B in %s)" % (item, ", ".join(known)))
        pairs.append((parts[0], parts[1]))
    if not pairs:
        ap.error("no pairings")
    if args.reply_timeout is not None and not args.reply_timeout > 0:
        ap.error("--reply-timeout must be more than 0 seconds")
    jobs = [(a, b, i, args.seed, outside, args.reply_timeout) for a, b in pairs for i in range(args.games)]
    results = {p: [] for p in pairs}
    forfeits = {}

    def count(a, b, out, turns, note):
        results[(a, b)].append((out, turns))
        if note:
            forfeits[note] = forfeits.get(note, 0) + 1

    store = None
    before = 0
    if args.results:
        recorded = read_results(args.results)
        todo = []
        for job in jobs:
            r = recorded.get(job[:4])
            if r is None:
                todo.append(job)
            else:
                count(job[0], job[1], *r)
                before += 1
        jobs = todo
        store = ResultsFile(args.results)
    t0 = time.time()
    try:
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.Pool(args.jobs) as pool:
                for a, b, i, out, turns, note in pool.imap_unordered(run_one, jobs, chunksize=2):
                    if store is not None:
                        store.add(a, b, i, args.seed, out, turns, note)
                    count(a, b, out, turns, note)
        else:
            for job in jobs:
                a, b, i, out, turns, note = run_one(job)
                if store is not None:
                    store.add(a, b, i, args.seed, out, turns, note)
                count(a, b, out, turns, note)
    finally:
        if store is not None:
            store.close()
    lines = ["tournament: %d games per pairing, seed %d, colours alternate, max %d turns (then a draw), %.0f s"
             % (args.games, args.seed, MAX_TURNS, time.time() - t0)]
    lines += table(results) + [""] + rating_lines(results)
    for name, n in sorted(forfeits.items()):
        lines.append("forfeits: %s lost %d game(s) by breaking the protocol (bad reply, illegal cell, crash or timeout)"
                     % (name, n))
    for line in header_lines(sys.argv[1:] if argv is None else list(argv)):
        print(line)
    print("\n".join(lines))
    if store is not None:  # (not part of the tables --write-docs keeps)
        print("results: %d game(s) already in %s, %d played now and added" % (before, args.results, len(jobs)))
    if args.write_docs:
        import shlex
        from tools import report
        command = shlex.join([".venv/bin/python", "-m", "tools.tournament"] + list(sys.argv[1:] if argv is None else argv))
        title = "%s: %d games per pairing, seed %d" % (args.write_docs, args.games, args.seed)
        print("written to %s" % report.write_tournament(args.write_docs, command, lines[1:] + ["", lines[0] + "."],
                                                        title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
