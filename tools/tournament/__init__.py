"""Host tool: play the bot levels, baselines and outside bots against each other; win rates with Wilson 95% CIs and Bradley-Terry ratings."""
import argparse
import json
import os
import re
import sys
import time

from engine import Game, BLACK, WHITE, ONGOING, BLACK_WON, WHITE_WON, square_name
from engine.bot import Bot, LEVELS
from tools.tournament.baselines import (  # noqa: F401  (re-exported: tests and tools use them from here)
    RandomPlayer, GreedyPlayer, Matrix1Player, ExploiterPlayer, _run_len, _clamps, _empties,
)
from tools.botproc import parse_spec
from tools.tournament.outside import CommandPlayer, PlayerError, REPLY_TIMEOUT
from tools.tournament import outsiders
from tools.tournament.record import header_lines
from tools.tournament.ratings import wilson, ratings_with_intervals  # noqa: F401
from tools.sim.narrate import LANGS, word

BASELINES = ("random", "greedy", "matrix1", "exploiter")
DEEP = "deep"  # hard with its answer deepened to the end (tools/tournament/deep.py)
PLAYERS = BASELINES + LEVELS + (DEEP,)
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
    if name == DEEP:
        from tools.tournament.deep import DeepPlayer

        return DeepPlayer(seed)
    if name in LEVELS:
        # The tournament's seeds stand in for the device's true entropy (one
        # per game); the exploiter never learns them.
        return Bot(name, seed)
    raise ValueError("unknown player %r (one of %s)" % (name, ", ".join(PLAYERS + outsiders.BASES + tuple(outside or ()))))


def play_game(black, white, max_turns=MAX_TURNS):
    """Play one game; returns (final Game, forfeit colour or 0). A player that breaks the protocol forfeits."""
    g, forfeit, _, _ = play_record(black, white, max_turns)
    return g, forfeit


def play_record(black, white, max_turns=MAX_TURNS, on_turn=None):
    """Play one game; returns (final Game, forfeit colour or 0, the forfeiting player's PlayerError or None,
    the moves: one "e5d4" per turn, black's cell then white's). on_turn(game) is called after every turn."""
    g = Game()
    moves = []
    for _ in range(max_turns):
        # Both choose on the same position before either move is played (honest).
        try:
            b = black.choose(g, BLACK)
        except PlayerError as e:
            return g, BLACK, e, moves
        try:
            w = white.choose(g, WHITE)
        except PlayerError as e:
            return g, WHITE, e, moves
        g.play(b, w)
        moves.append(square_name(b) + square_name(w))
        if on_turn is not None:
            on_turn(g)
        if g.result != ONGOING:
            break
    return g, 0, None, moves


def run_one(args):
    """Game i of pairing a-b: a is black on even i. args: (a, b, i, seed[, outside commands[, reply timeout]]).
    Returns (a, b, i, outcome for a: 1/0/-1, turns, forfeit note)."""
    r = run_game(args)
    return (r["a"], r["b"], r["i"], r["out"], r["turns"], r["forfeit"])


def run_game(args, on_turn=None):
    """run_one's game as the record the results file keeps: {"a", "b", "i", "seed", "out" (for a), "turns",
    "forfeit" (the name of the player that broke the protocol, or ""), "moves" (a space-separated "e5d4" per
    turn), and for a forfeit "failure": {"player", "colour", "turn", "why" (English), "reason" and "values" (tools/botproc.py),
    "request" (the line it failed on), "stderr" (the end of it)}}."""
    a, b, i, seed = args[:4]
    outside = args[4] if len(args) > 4 else None
    timeout = args[5] if len(args) > 5 else None
    sa = seed * 1000003 + i * 2 + 1
    sb = seed * 1000003 + i * 2 + 2
    pa = make_player(a, sa, outside, timeout)
    pb = make_player(b, sb, outside, timeout)
    try:
        if i % 2 == 0:
            g, forfeit, err, moves = play_record(pa, pb, on_turn=on_turn)
            a_color = BLACK
        else:
            g, forfeit, err, moves = play_record(pb, pa, on_turn=on_turn)
            a_color = WHITE
    finally:
        for p in (pa, pb):
            if hasattr(p, "close"):
                p.close()
    rec = {"a": a, "b": b, "i": i, "seed": seed, "out": 0, "turns": g.turns, "forfeit": "", "moves": " ".join(moves)}
    if forfeit:
        rec["out"] = -1 if forfeit == a_color else 1
        rec["forfeit"] = name = a if forfeit == a_color else b
        rec["failure"] = {"player": name, "colour": "black" if forfeit == BLACK else "white", "turn": g.turns + 1,
                          "why": err.why, "reason": err.reason, "values": err.values,
                          "request": err.request, "stderr": err.stderr}
    elif g.result == BLACK_WON:
        rec["out"] = 1 if a_color == BLACK else -1
    elif g.result == WHITE_WON:
        rec["out"] = 1 if a_color == WHITE else -1
    return rec


def read_records(path):
    """The games a results file (--results: JSON lines) holds, {(a, b, i, seed): record} (run_game's records;
    older files lack "moves" and "failure"). Lines that are not whole records (a crash in the middle of
    writing one) are skipped."""
    done = {}
    try:
        with open(path, "rb") as f:
            for raw in f:
                try:
                    r = json.loads(raw)
                    if all(k in r for k in ("out", "turns", "forfeit")):
                        done[(r["a"], r["b"], r["i"], r["seed"])] = r
                except (ValueError, KeyError, TypeError):
                    continue
    except FileNotFoundError:
        pass
    return done


def read_results(path):
    """The games a results file holds, {(a, b, i, seed): (outcome, turns, forfeit)}."""
    return {k: (r["out"], r["turns"], r["forfeit"]) for k, r in read_records(path).items()}


class ResultsFile:
    """Appends each finished game to a JSON-lines file at once (flushed and synced): a crash loses no game."""

    def __init__(self, path):
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)  # (a page's command names build/strength/…: a fresh clone has none)
        self.f = open(path, "ab")
        if self.f.tell():
            with open(path, "rb") as r:
                r.seek(-1, 2)
                if r.read(1) != b"\n":
                    self.f.write(b"\n")  # a line cut short by a crash stays on its own line

    def add(self, rec):
        """Append one run_game record."""
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
    try:
        name, command = parse_spec(spec)
    except ValueError as e:
        ap.error(str(e))
    if not _NAME.match(name) or name in PLAYERS or outsiders.is_name(name):
        ap.error("bad player name %r: letters, digits and _, not one of %s" % (name, ", ".join(PLAYERS)))
    return name, command


def failure_report(recs, args):
    """The report of one player's forfeits: the first game in full (why, the position and request, its stderr,
    the command that replays it), then how many more there were."""
    import shlex
    from tools.tournament.show import failure_lines

    recs = sorted(recs, key=lambda r: (r["a"], r["b"], r["i"]))
    first = [r for r in recs if r.get("failure")]
    name = recs[0]["forfeit"]
    if not first:  # recorded by an older version: no details kept
        return [word("bot.more", name=name, n=len(recs))]
    r = first[0]
    cmd = [".venv/bin/python", "-m", "tools.tournament", "--watch", "--pairings", "%s-%s" % (r["a"], r["b"]),
           "--game", str(r["i"]), "--seed", str(r["seed"])]
    for spec in args.player:
        cmd += ["--player", spec]
    if args.reply_timeout is not None:
        cmd += ["--reply-timeout", "%g" % args.reply_timeout]
    if args.results:
        cmd += ["--results", args.results]
    lines = failure_lines(r, shlex.join(cmd))
    if len(recs) > 1:
        lines.append(word("bot.more", name=name, n=len(recs) - 1))
    return lines


def _seed_list(text):
    """Seeds from "A-B" or "A,B,C" (each 0 <= seed < 2**30, no repeats), or None if the text is not that."""
    try:
        if "-" in text:
            lo, hi = text.split("-", 1)
            seeds = list(range(int(lo), int(hi) + 1))
        else:
            seeds = [int(s) for s in text.split(",")]
    except ValueError:
        return None
    if not seeds or min(seeds) < 0 or max(seeds) >= 2 ** 30 or len(set(seeds)) != len(seeds):
        return None
    return seeds


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.tournament", description=__doc__)
    ap.add_argument("--games", type=int, default=None,
                    help="games per pairing (colours alternate; default 200, with --watch 1)")
    ap.add_argument("--seed", type=int, default=1, help="base seed (every game's seeds derive from it)")
    ap.add_argument("--seeds", default=None, metavar="A-B",
                    help="several base seeds (a range A-B or a list A,B,C): --games games per pairing for each, "
                         "the tables pooled over them (each seed's games are those --seed N plays; tune on some "
                         "seeds, report on others)")
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
    ap.add_argument("--watch", action="store_true",
                    help="show the games turn by turn instead of the tables: the board and what happened, as the "
                         "simulator tells it; a game already in --results FILE is replayed from its recorded moves, "
                         "any other is played now (and added to FILE)")
    ap.add_argument("--game", type=int, default=None, metavar="I",
                    help="only game number I of each pairing (0, 1, ...: A is black in the even ones; its seeds "
                         "are those it has in a run of more games)")
    ap.add_argument("--delay", type=float, default=None, metavar="S",
                    help="with --watch: S seconds between turns (default: wait for Enter on a terminal, "
                         "no wait without one)")
    ap.add_argument("--lang", choices=LANGS, default=None,
                    help="the words of --watch and of the reports of broken bots: en or nl (default: the system "
                         "locale's, LC_ALL/LC_MESSAGES/LANG, else en; the tables are in English)")
    args = ap.parse_args(argv)
    if args.game is not None and args.game < 0:
        ap.error("--game: games are numbered from 0")
    if args.games is None:
        args.games = args.game + 1 if args.game is not None else 1 if args.watch else 200
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    if args.write_docs is not None and not re.match(r"^[A-Za-z0-9_-]+$", args.write_docs):
        ap.error("--write-docs: a section name of letters, digits, _ and -")
    if args.game is not None and args.game >= args.games:
        ap.error("--game %d is not among the %d game(s) of --games %d (numbered from 0)" % (args.game, args.games, args.games))
    if args.delay is not None and (not args.watch or not args.delay >= 0):
        ap.error("--delay is for --watch, in seconds from 0 up")
    if args.watch and (args.jobs != 1 or args.write_docs is not None):
        ap.error("--watch shows one game at a time: leave out --jobs and --write-docs")
    seeds = [args.seed]
    if args.seeds is not None:
        seeds = _seed_list(args.seeds)
        if seeds is None:
            ap.error("--seeds: a range A-B or a list A,B,C of numbers 0 <= seed < 2**30")
        if args.watch or args.game is not None:
            ap.error("--seeds pools whole runs: use --seed N with --watch and --game")
    from tools.sim import language, narrate
    narrate.set_lang(language.choose(args.lang, None))
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
    games = range(args.games) if args.game is None else (args.game,)
    jobs = [(a, b, i, s, outside, args.reply_timeout) for s in seeds for a, b in pairs for i in games]
    recorded = read_records(args.results) if args.results else {}
    store = ResultsFile(args.results) if args.results else None
    if args.watch:
        from tools.tournament.watch import watch
        try:
            watch(jobs, run_game, recorded, store, args.results, MAX_TURNS, args.delay)
        except BrokenPipeError:  # `| head`: the reader has seen enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except KeyboardInterrupt:  # Ctrl-C while watching: the bots have been ended (run_game), stop quietly
            return 130
        finally:
            if store is not None:
                store.close()
        return 0
    results = {p: [] for p in pairs}
    forfeits = {}
    failed = {}  # player -> the records of the games it lost by breaking the protocol

    def count(rec):
        results[(rec["a"], rec["b"])].append((rec["out"], rec["turns"]))
        note = rec["forfeit"]
        if note:
            forfeits[note] = forfeits.get(note, 0) + 1
            failed.setdefault(note, []).append(rec)

    before = 0
    todo = []
    for job in jobs:
        r = recorded.get(job[:4])
        if r is None:
            todo.append(job)
        else:
            count(r)
            before += 1
    jobs = todo
    t0 = time.time()
    try:
        if args.jobs > 1:
            import multiprocessing

            with multiprocessing.Pool(args.jobs) as pool:
                for rec in pool.imap_unordered(run_game, jobs, chunksize=2):
                    if store is not None:
                        store.add(rec)
                    count(rec)
        else:
            for job in jobs:
                rec = run_game(job)
                if store is not None:
                    store.add(rec)
                count(rec)
    finally:
        if store is not None:
            store.close()
    seed_text = "seed %d" % seeds[0] if len(seeds) == 1 else "seeds %s (%d games per pairing each)" % (
        args.seeds, args.games)
    lines = ["tournament: %d games per pairing, %s, colours alternate, max %d turns (then a draw), %.0f s"
             % (args.games * len(seeds), seed_text, MAX_TURNS, time.time() - t0)]
    lines += table(results) + [""] + rating_lines(results)
    for name, n in sorted(forfeits.items()):
        lines.append("forfeits: %s lost %d game(s) by breaking the protocol (bad reply, illegal cell, crash or timeout)"
                     % (name, n))
    for line in header_lines(sys.argv[1:] if argv is None else list(argv)):
        print(line)
    print("\n".join(lines))
    if store is not None:  # (not part of the tables --write-docs keeps)
        print("results: %d game(s) already in %s, %d played now and added" % (before, args.results, len(jobs)))
    for name in sorted(failed):
        print("\n" + "\n".join(failure_report(failed[name], args)))
    if args.write_docs:
        import shlex
        from tools import report
        command = shlex.join([".venv/bin/python", "-m", "tools.tournament"] + list(sys.argv[1:] if argv is None else argv))
        title = "%s: %d games per pairing, %s" % (args.write_docs, args.games * len(seeds), seed_text)
        print("written to %s" % report.write_tournament(args.write_docs, command, lines[1:] + ["", lines[0] + "."],
                                                        title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
