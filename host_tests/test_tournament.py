"""Tests for tools/tournament.py: baselines, Wilson intervals, reproducible games, the table and the command line."""
import subprocess
import sys

import pytest

from conftest import ROOT
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
    g0 = t.play_game(t.make_player("easy", 1), t.make_player("random", 2))
    assert g0.result != ONGOING or g0.turns == t.MAX_TURNS


def test_unknown_player():
    with pytest.raises(ValueError):
        t.make_player("grandmaster", 1)


def test_table_counts_and_rates():
    lines = t.table({("hard", "greedy"): [(1, 10), (1, 12), (0, 200), (-1, 8)]})
    row = lines[2]
    assert row.startswith("| hard vs greedy | 4 |")
    assert "50.0%" in row and "25.0%" in row and "66.7%" in row and "(3)" in row


def test_command_line_small_run_with_two_jobs():
    out = subprocess.run(
        [sys.executable, "-m", "tools.tournament", "--games", "2", "--seed", "3",
         "--pairings", "easy-random,greedy-random", "--jobs", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tournament: 2 games per pairing, seed 3")
    assert lines[3].startswith("| easy vs random | 2 |")
    assert lines[4].startswith("| greedy vs random | 2 |")
    bad = subprocess.run([sys.executable, "-m", "tools.tournament", "--pairings", "hard-nobody"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode != 0 and "bad pairing" in bad.stderr
