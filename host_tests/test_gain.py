"""Tests for tools.tournament.gain: the strategies it reads are what the players draw from, and a reader's gain is measured from the right side."""
import collections
import json

import pytest

from engine import Game, BLACK, WHITE, square_name
from engine.bot import Bot
from engine.notation import load
from tools.tournament import gain as G
from tools.tournament.deep import DeepPlayer
from tools.tournament.outsiders.twoply import TwoPlyPlayer


def pos(rows, eggs=()):
    g = Game()
    load(g, rows, list(eggs))
    return g


# a middle game from a deep-twoply game, with an egg: hard mixes three cells here for either side
MIDDLE = pos([".........", ".........", "..B.W....", "...BWB...", "..W.B....",
              "..WB...B.", ".WW.W....", "..e......", "..W......"], ["c8"])


def freqs(player, game, color, seeds):
    n = collections.Counter(player(s).choose(game, color) for s in seeds)
    return {c: k / len(seeds) for c, k in n.items()}


@pytest.mark.parametrize("color", (BLACK, WHITE))
def test_hard_strategy_is_what_hard_draws_from(color):
    s = G.strategy("hard", MIDDLE, color)
    assert len(s) >= 2 and abs(sum(s.values()) - 1) < 1e-9
    f = freqs(lambda k: Bot("hard", k), MIDDLE, color, range(300))
    assert set(f) <= set(s)
    for c, x in s.items():
        assert abs(f.get(c, 0.0) - x) < 0.08, (square_name(c), f.get(c, 0.0), x)


def test_deep_strategy_is_what_deep_draws_from():
    s = G.strategy("deep", MIDDLE, WHITE)
    f = freqs(DeepPlayer, MIDDLE, WHITE, range(60))
    assert set(f) <= set(s)
    for c, x in s.items():
        assert abs(f.get(c, 0.0) - x) < 0.15, (square_name(c), f.get(c, 0.0), x)


def test_twoply_strategy_is_its_purified_equilibrium():
    s = G.strategy("twoply", MIDDLE, BLACK)
    played = {TwoPlyPlayer(k).choose(MIDDLE, BLACK) for k in range(8)}
    assert played <= set(s) and abs(sum(s.values()) - 1) < 1e-9


@pytest.mark.parametrize("color", (BLACK, WHITE))
def test_a_strategy_that_ignores_a_win_hands_the_reader_the_game(color):
    # the other side has an open four on row 5 (a5 or f5 wins); the player has nothing: a player who ignores
    # it loses at once against a reader, while the reader's equilibrium value is itself a near-win
    b, w = ("W", "B") if color == BLACK else ("B", "W")
    g = pos([".........", ".........", "." + w + ".......", ".........", "." + b * 4 + "....",
             ".........", w + "........", "........" + w, ".." + w + "......"])
    far = 80  # i9: nowhere near row 5
    v, gs, _ = G.gain(g, color, {"far": {far: 1.0}, "block": {36: 0.5, 41: 0.5}})
    assert v > 40000  # the reader's view: it wins unless the player collides on the cell it picks
    assert 100000 - v - 1 <= gs["far"] <= 100000 - v + 1  # against i9 the reader wins outright
    assert gs["block"] >= -1  # no strategy does better than the equilibrium against a best reply


@pytest.mark.parametrize("color", (BLACK, WHITE))
def test_the_equilibrium_gains_the_reader_nothing(color):
    # the player's equilibrium in the reader's own valuation: a best reply to it earns the value, no more; any
    # other strategy gains the reader something or nothing, never less
    _, gs, eq = G.gain(MIDDLE, color, {"hard": G.strategy("hard", MIDDLE, color)})
    assert len(eq) >= 2
    _, again, _ = G.gain(MIDDLE, color, {"eq": eq, "hard": G.strategy("hard", MIDDLE, color)})
    assert abs(again["eq"]) < 1 and again["hard"] == gs["hard"] and gs["hard"] > -1


def test_positions_skip_the_opening_and_alternate_colours():
    recs = [{"a": "x", "b": "y", "i": 0, "moves": "e5d4 c3c4 f6f5 g7b2 a1a2 h8h7 i9i8"}]
    got = G.positions(recs, 2, 10)
    assert [w.split()[-1] for _, _, w in got] == ["3", "5", "7"]
    assert [c for _, c, _ in got] == [WHITE, BLACK, WHITE]
    assert got[0][0].turns == 2 and got[0][0].cell(40) == BLACK


def test_cli_refuses_bad_input(tmp_path, capsys):
    empty = tmp_path / "none.jsonl"
    empty.write_text("not json\n")
    with pytest.raises(SystemExit):
        G.main(["--results", str(empty)])
    assert "holds no recorded games" in capsys.readouterr().err
    good = tmp_path / "g.jsonl"
    good.write_text(json.dumps({"a": "x", "b": "y", "i": 0, "seed": 1, "out": 1, "turns": 3, "forfeit": "",
                                "moves": "e5d4 c3c4 f6f5"}) + "\n")
    with pytest.raises(SystemExit):
        G.main(["--results", str(good), "--players", "hard,nobody"])
    assert "unknown player 'nobody'" in capsys.readouterr().err
