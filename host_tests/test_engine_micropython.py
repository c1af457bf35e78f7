"""CPython and real MicroPython agree turn by turn on random crowded games (captures, chains, eggs), incl. illegal turns."""
import random

import pytest

from engine import EGG, EMPTY, Game, square_name
from engine.notation import board_rows, egg_names
from tools.conformance import replay_micropython
from tools.conformance.replay import replay_case


def random_case(rng, n):
    """A crowded random start position and up to 30 turns: mostly legal, some collisions, a few illegal."""
    cells = [rng.choice((EMPTY, EMPTY, EMPTY, 1, 1, 2, 2, EGG)) for _ in range(81)]
    eggs = [i for i, v in enumerate(cells) if v == EGG]
    rng.shuffle(eggs)
    g = Game()
    g.set_position(cells, eggs)
    case = {"name": "random-%d" % n, "start": {"board": board_rows(g), "eggs": egg_names(g)}, "turns": []}
    for _ in range(30):
        free = [i for i in range(81) if g.cell(i) == EMPTY]
        if not free:
            break
        b = rng.choice(free)
        w = b if rng.random() < 0.15 else rng.choice(free)
        if rng.random() < 0.05:
            w = rng.choice([i for i in range(81) if g.cell(i) != EMPTY] or [b])
        case["turns"].append({"black": square_name(b), "white": square_name(w)})
        try:
            g.play(b, w)
        except ValueError:
            pass
        if g.result:
            case["turns"].append({"black": "a1", "white": "b1"})  # refused after the end
            break
    return case


@pytest.mark.needs_node
def test_cpython_and_micropython_agree_turn_by_turn():
    rng = random.Random(20261129)
    cases = [random_case(rng, n) for n in range(250)]
    expected = [replay_case(c) for c in cases]
    got = replay_micropython([("generated", cases)], heap_lock=True)[0]
    assert len(got) == len(expected)
    turns = 0
    for e, m in zip(expected, got):
        for k, (a, b) in enumerate(zip(e["observed"], m["observed"])):
            assert a == b, "%s turn %d: CPython %r, MicroPython %r" % (e["name"], k + 1, a, b)
            turns += 1
    # the generator must really exercise the rules, or agreement means little
    captures = sum(o.get("captures", {}).get("black", 0) + o.get("captures", {}).get("white", 0)
                   for e in expected for o in e["observed"])
    errors = sum("error" in o for e in expected for o in e["observed"])
    assert turns > 1500 and captures > 500 and errors > 100, (turns, captures, errors)


@pytest.mark.needs_node
def test_non_integer_moves_are_refused_on_micropython_too():
    from tools import upy

    out = upy.run("""
from engine import Game, IllegalMove
g = Game()
for bad in (None, "e5", 4.0, True, (1,), -1, 81):
    try:
        g.play(bad, 3)
        print("accepted")
    except IllegalMove as e:
        print(str(e).split(":")[0])
print(g.turns)
""", files=upy.project_files("engine"))
    assert out.split() == ["black"] * 7 + ["0"]
