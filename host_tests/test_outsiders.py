"""Tests for the outsider baselines (tools/tournament/outsiders): wins, blocks, hatch threats, legality, seeds, names."""
import pytest

from conftest import random_positions
from engine import Game, BLACK, WHITE, square_name
from engine.notation import load
from tools import tournament as t
from tools.tournament import outsiders
from tools.tournament.outsiders.matrix import solve
from tools.tournament.outsiders.sampler import SamplerPlayer

# Small budgets keep the tests quick; the tactics must hold at any budget.
NAMES = ("twoply_t0.05", "oneply_t0.05", "sampler_t0.05")


def player(name, seed):
    if name.startswith("sampler"):
        return SamplerPlayer(seed, budget=0.05, samples=6)
    return outsiders.make(name, seed)


def pos(rows, eggs=()):
    g = Game()
    load(g, rows, list(eggs))
    return g


@pytest.mark.parametrize("name", NAMES)
def test_takes_an_immediate_win(name):
    # black's open four b5-e5: a5 or f5 wins whatever white does (white can collide with only one)
    g = pos([".........", ".........", ".W.......", ".........", ".BBBB....",
             ".........", "W........", "........W", "..W......"])
    for seed in range(3):
        assert square_name(player(name, seed).choose(g, BLACK)) in ("a5", "f5")


@pytest.mark.parametrize("name", NAMES)
def test_blocks_a_single_four(name):
    # white's four d2-g2 can only be finished on c2 (h2 is black's): black must play c2
    g = pos([".........", "...WWWWB.", ".........", "....B....", "...B.....",
             ".........", "......B..", ".........", "........."])
    for seed in range(3):
        assert square_name(player(name, seed).choose(g, BLACK)) == "c2"


@pytest.mark.parametrize("name", NAMES)
def test_answers_a_hatch_threat(name):
    # The oldest egg f1 lies in white's four b1-e1: any lone white capture hatches it into a five.
    # White's only clamp is a9 (a9 b9 c9 d9); black has none, so black must collide on a9.
    g = pos(["BWWWWe...", ".........", ".........", ".........", ".........",
             ".........", ".........", "......B..", ".BBW....."], ["f1"])
    for seed in range(3):
        assert square_name(player(name, seed).choose(g, BLACK)) == "a9"


@pytest.mark.parametrize("name", NAMES)
def test_plays_only_empty_cells(name):
    for k, g in enumerate(random_positions(3, seed=7, max_turns=40)):
        color = BLACK if k % 2 else WHITE
        assert g.legal(player(name, k).choose(g, color))


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_for_a_seed(name):
    gs = random_positions(2, seed=9, max_turns=30)
    a = [player(name, 5).choose(g, BLACK) for g in gs]
    b = [player(name, 5).choose(g, BLACK) for g in gs]
    assert a == b


def test_names_options_and_tournament_registration():
    assert outsiders.parse("twoply") == ("twoply", {"budget": 1.0})
    assert outsiders.parse("twoply_t0.3") == ("twoply", {"budget": 0.3})
    assert outsiders.parse("sampler_medium_t0.5") == ("sampler", {"budget": 0.5, "target": "medium"})
    for bad in ("twoply_medium", "twoply_tx", "twoply_t0.5_t1", "sampler_medium_hard", "threeply", "twoply_t0"):
        assert outsiders.parse(bad) is None
        with pytest.raises(ValueError):
            t.make_player(bad, 1)
    assert isinstance(t.make_player("sampler_medium", 1), SamplerPlayer)
    assert t.make_player("sampler_medium", 1).target == "medium"


def test_matrix_solver_is_exact():
    v, p, q = solve([[2, -1], [-1, 1]])  # value 1/5, both sides 2/5, 3/5
    assert abs(v - 0.2) < 1e-9 and abs(p[0] - 0.4) < 1e-9 and abs(q[0] - 0.4) < 1e-9
    v, p, q = solve([[3, 2], [1, 0]])  # saddle point
    assert v == 2 and p == [1.0, 0.0] and q == [0.0, 1.0]


def test_tournament_plays_an_outsider_game():
    a, b, i, out, turns, note = t.run_one(("twoply_t0.05", "greedy", 0, 3))
    assert (a, b, i) == ("twoply_t0.05", "greedy", 0) and out in (-1, 0, 1) and turns >= 1 and not note


def test_sampler_reads_twoply_as_twoply_plays():
    # sampler_twoply draws from twoply's strategy instead of running it 48 times: right only if that strategy
    # depends on the position alone (not on the player's seed or the moves it searched before), and every cell
    # twoply plays under any seed is one the sampler predicts
    from tools.tournament.outsiders.twoply import TwoPlyPlayer, purified

    g = pos([".........", "...W.....", "..BBW....", "...BW....", "....B....",
             ".........", ".........", ".........", "........."])
    s = t.make_player("sampler_twoply", 5)
    assert s.target == "twoply"
    used = TwoPlyPlayer(9, budget=0.05)
    used.choose(pos(["B........", ".........", ".........", ".........", "....W....",
                     ".........", ".........", ".........", "........W"]), BLACK)
    s.model = TwoPlyPlayer(0, budget=0.05)
    mine, theirs, p, _ = s.model.strategy(g, WHITE)
    assert used.strategy(g, WHITE)[:3] == (mine, theirs, p)
    support = {mine[i] for i, x in enumerate(purified(p)) if x > 0}
    predicted = s.predict(g, WHITE)
    assert sum(predicted.values()) == s.samples and set(predicted) <= support
    played = {TwoPlyPlayer(seed, budget=0.05).choose(g, WHITE) for seed in range(12)}
    assert played <= support
