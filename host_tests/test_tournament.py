"""Tests for tools/tournament: baselines (random, greedy, matrix1, exploiter), outside players, Wilson intervals, ratings, the command line."""
import subprocess
import sys

import pytest

from conftest import ROOT, random_positions
from engine import Game, BLACK, WHITE, ONGOING, parse_square, square_name
from engine.notation import load
from tools import tournament as t


def test_wilson_interval_known_values():
    lo, hi = t.wilson(8, 10)
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    lo, hi = t.wilson(0, 10)
    assert lo == 0.0 and abs(hi - 0.2775) < 1e-3
    lo, hi = t.wilson(200, 200)
    assert abs(lo - 0.9812) < 1e-3 and hi == 1.0
    assert t.wilson(0, 0) == (0.0, 1.0)
    # the interval always contains the observed rate
    for k in range(0, 31):
        lo, hi = t.wilson(k, 30)
        assert lo <= k / 30 <= hi


def test_greedy_wins_now_then_blocks_then_captures():
    g = Game()
    load(g, ["BBBB.....", ".........", ".........", ".........", "....WWWW.",
             ".........", ".........", ".........", "........."], [])
    p = t.GreedyPlayer(1)
    assert square_name(p.choose(g, BLACK)) == "e1"  # own five first
    assert square_name(p.choose(g, WHITE)) in ("d5", "i5")  # white's own five first too
    load(g, ["BBBB.....", ".........", ".........", ".........", ".........",
             ".........", ".........", "........W", "........."], [])
    assert square_name(p.choose(g, WHITE)) == "e1"  # block
    load(g, [".WWB.....", ".........", ".........", ".........", ".........",
             ".........", ".........", ".........", "........."], [])
    assert square_name(p.choose(g, BLACK)) == "a1"  # clamp a1 b1 c1 d1


def test_random_player_is_legal_and_seeded():
    g = Game()
    a = [t.RandomPlayer(5).choose(g, BLACK) for _ in range(3)]
    assert a == [t.RandomPlayer(5).choose(g, BLACK) for _ in range(3)]
    assert all(g.legal(c) for c in a)


def test_games_are_reproducible_and_colours_alternate():
    r1 = t.run_one(("easy", "greedy", 0, 9))
    assert r1 == t.run_one(("easy", "greedy", 0, 9))
    assert r1[:3] == ("easy", "greedy", 0) and r1[3] in (-1, 0, 1) and r1[4] >= 1
    # game 1 puts A on white: the same seeds give a different game
    g0, forfeit = t.play_game(t.make_player("easy", 1), t.make_player("random", 2))
    assert forfeit == 0
    assert g0.result != ONGOING or g0.turns == t.MAX_TURNS


def test_unknown_player():
    with pytest.raises(ValueError):
        t.make_player("grandmaster", 1)


@pytest.mark.parametrize("name", ("matrix1", "exploiter"))
def test_search_baselines_play_legal_moves_and_take_a_win(name):
    for k, g in enumerate(random_positions(6, seed=2, max_turns=29)):
        color = BLACK if k % 2 else WHITE
        assert g.legal(t.make_player(name, k).choose(g, color))
    g = Game()
    load(g, [".........", ".........", ".W.......", ".........", ".BBBB....",
             ".........", "W........", "........W", "..W......"], [])
    # black's open four: a5 or f5 wins whatever white does
    assert square_name(t.make_player(name, 3).choose(g, BLACK)) in ("a5", "f5")


def test_matrix1_plays_a_mixed_strategy():
    mixed = 0
    for g in random_positions(8, seed=5, max_turns=29):
        mixed += len({t.Matrix1Player(s).choose(g, BLACK) for s in range(12)}) > 1
    assert mixed >= 2


def test_solve_matrix_finds_the_mixed_equilibrium():
    from tools.tournament.baselines import solve_matrix

    p = solve_matrix([[1, -1], [-1, 1]], iters=2000)  # matching pennies: 50/50
    assert abs(p[0] - 0.5) < 0.05
    p = solve_matrix([[3, 2], [1, 0]])  # row 0 dominates
    assert p[0] > 0.95


def test_bradley_terry_ratings_and_intervals():
    from tools.tournament.ratings import bradley_terry, ratings_with_intervals

    games = [("a", "b", 1)] * 75 + [("a", "b", -1)] * 25 + [("b", "c", 0)] * 50
    r = bradley_terry(games, ["a", "b", "c"])
    assert abs(sum(r.values())) < 1e-6
    # 75% expected score is +191 Elo; the virtual draw pulls it in a little
    assert 170 < r["a"] - r["b"] < 195
    assert abs(r["b"] - r["c"]) < 1e-6
    ri = ratings_with_intervals(games, ["a", "b", "c"], resamples=60)
    for p, (x, lo, hi) in ri.items():
        assert lo <= x <= hi
    assert ri["a"][1] > ri["b"][2] - 60  # a is clearly above b


def test_table_counts_and_rates():
    lines = t.table({("hard", "greedy"): [(1, 10), (1, 12), (0, 200), (-1, 8)]})
    row = lines[2]
    assert row.startswith("| hard vs greedy | 4 |")
    assert "50.0%" in row and "25.0%" in row and "66.7%" in row and "(3)" in row


EXAMPLE = "cmd:%s docs/examples/mybot.py" % sys.executable


def test_the_readme_example_bot_plays_a_tournament():
    """docs/examples/mybot.py speaks the protocol: it plays (and beats random) through --player."""
    out = subprocess.run(
        [sys.executable, "-m", "tools.tournament", "--games", "2", "--player", EXAMPLE,
         "--pairings", "mybot-random,easy-mybot"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("command: .venv/bin/python -m tools.tournament --games 2") and lines[1].startswith("commit: ")
    lines = lines[lines.index(next(l for l in lines if l.startswith("tournament: "))):]  # after the record lines
    assert lines[3].startswith("| mybot vs random | 2 | 100.0%")
    assert lines[4].startswith("| easy vs mybot | 2 |")
    assert "forfeits" not in out.stdout
    assert any(l.startswith("| mybot | ") for l in lines)  # rated


def test_an_outside_player_that_breaks_the_protocol_forfeits(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nfor line in sys.stdin:\n    print('z9', flush=True)\n")
    p = t.CommandPlayer("bad", "%s %s" % (sys.executable, bad))
    with pytest.raises(t.PlayerError, match="z9"):
        p.choose(Game(), BLACK)
    p.close()
    a, b, i, out, turns, note = t.run_one(("bad", "random", 0, 1, {"bad": "%s %s" % (sys.executable, bad)}))
    assert out == -1 and note == "bad" and turns == 0
    gone = t.CommandPlayer("gone", "%s -c pass" % sys.executable)
    with pytest.raises(t.PlayerError):
        gone.choose(Game(), WHITE)
    gone.close()


def test_player_option_errors():
    for spec, why in (("python3 x.py", "bad --player"), ("random=cmd:python3 x.py", "bad player name"),
                      ("cmd:", "bad --player")):
        bad = subprocess.run([sys.executable, "-m", "tools.tournament", "--player", spec],
                             capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert bad.returncode == 2 and why in bad.stderr, (spec, bad.stderr)


def test_command_line_small_run_with_two_jobs():
    out = subprocess.run(
        [sys.executable, "-m", "tools.tournament", "--games", "2", "--seed", "3",
         "--pairings", "easy-random,greedy-random", "--jobs", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [l.split(":")[0] for l in lines[:3]] == ["command", "commit", "machine"]  # how to run it again
    lines = lines[3:]
    assert lines[0].startswith("tournament: 2 games per pairing, seed 3")
    assert lines[3].startswith("| easy vs random | 2 |")
    assert lines[4].startswith("| greedy vs random | 2 |")
    bad = subprocess.run([sys.executable, "-m", "tools.tournament", "--pairings", "hard-nobody"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode != 0 and "bad pairing" in bad.stderr


def test_seeds_pool_the_runs_of_each_seed(tmp_path, capsys):
    """--seeds 3-4 plays exactly the games of --seed 3 and --seed 4 (same records) and pools their
    tables (tune on some seeds, report on others, one command)."""
    import json

    pooled, apart = tmp_path / "pooled.jsonl", tmp_path / "apart.jsonl"
    assert t.main(["--pairings", "greedy-random", "--games", "2", "--seeds", "3-4", "--results", str(pooled)]) == 0
    out = capsys.readouterr().out
    assert "tournament: 4 games per pairing, seeds 3-4 (2 games per pairing each)" in out
    assert "| greedy vs random | 4 |" in out
    for s in ("3", "4"):
        assert t.main(["--pairings", "greedy-random", "--games", "2", "--seed", s, "--results", str(apart)]) == 0

    def recs(path):
        return sorted(json.dumps(json.loads(line), sort_keys=True) for line in path.read_text().splitlines())

    assert recs(pooled) == recs(apart) and len(recs(pooled)) == 4
    for bad in (["--seeds", "4-x"], ["--seeds", "3,3"], ["--seeds", "1-2", "--watch"]):
        with pytest.raises(SystemExit):
            t.main(["--pairings", "greedy-random"] + bad)


def test_results_go_into_a_folder_that_is_not_there_yet(tmp_path):
    # strength.md shows its commands with --results build/strength/…, which a fresh clone does not have
    # (before: FileNotFoundError).
    path = tmp_path / "build" / "strength" / "levels.jsonl"
    assert t.main(["--pairings", "greedy-random", "--games", "2", "--results", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 2
