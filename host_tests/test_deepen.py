"""Tests for hard's deeper answer (engine/bot/deepen.py): it is the 2-ply search it says, sliced any way, allocation-free, and leaves the bot as it found it."""
import pytest

from conftest import random_positions
from engine import Game, BLACK, WHITE, ONGOING
from engine.bot import Bot
from engine.bot.deepen import Deepen, ROWS, ITERS, child_seed
from engine.bot.tables import _MAXK
from engine.notation import board_rows, egg_names, load

POSITIONS = random_positions(6, seed=21)


def deepen(b, d, game, color, units):
    """bot b's move, then d's deeper one in steps of `units`: (bot's cell, deeper cell, best() while it ran)."""
    c = b.choose(game, color)
    assert d.begin(game, color) == c
    seen = set()
    r = d.step(units)
    while r < 0:
        seen.add(d.best())
        r = d.step(units)
    return c, r, seen


def reference(seed, game, color):
    """What the deeper answer's matrix must hold, computed the plain way: hard's move, its most played rows,
    and for each pair a fresh hard move in the position after it (its solved game's value)."""
    b = Bot("hard", seed)
    b.choose(game, color)
    w = b._w
    nr, nc = b._nr, b._nc
    rows = list(w.rows[:nr])
    cols = list(w.cols[:nc])
    m = [[w.m[i * _MAXK + j] for j in range(nc)] for i in range(nr)]
    rcnt = list(w.rcnt[:nr])
    keep = sorted(sorted(range(nr), key=lambda i: -rcnt[i])[:ROWS])
    child = Bot("hard", 0)
    child.reseed(child_seed(b))
    out = []
    for i in keep:
        row = []
        for j in range(nc):
            g = Game()
            g.copy_from(game)
            g.play(*((rows[i], cols[j]) if color == BLACK else (cols[j], rows[i])))
            if g.result != ONGOING or not g.empty:
                row.append(m[i][j])
                continue
            child.choose(g, color)
            cw = child._w
            row.append(min(cw.cacc[jj] // child._fpit for jj in range(child._nc)))
        out.append(row)
    return [rows[i] for i in keep], cols, out


@pytest.mark.parametrize("k", range(len(POSITIONS)))
def test_the_deeper_matrix_is_each_pairs_child_search_value(k):
    g = POSITIONS[k]
    color = BLACK if k % 2 else WHITE
    b = Bot("hard", 40 + k)
    d = Deepen(b)
    c, r, _ = deepen(b, d, g, color, 40)
    counts = list(b._w.rcnt[:d.n])  # (the reference below searches in the same shared Work)
    rows, cols, want = reference(40 + k, g, color)
    if len(rows) < 2:
        assert r == c and d.children == 0
        return
    got = [[d.m[i * _MAXK + j] for j in range(d.nc)] for i in range(d.n)]
    assert (list(d.rows[:d.n]), list(d.cols[:d.nc]), got) == (rows, cols, want)
    assert d.children == sum(1 for i in rows for j in cols if _ongoing_after(g, color, i, j))
    assert r in rows and g.legal(r)
    # the solve: how often fictitious play played each row, as a plain one counts it
    assert counts == fictitious_play(want, ITERS)


def fictitious_play(m, iters):
    """Alternating fictitious play from row 0 (the first of equal best responses): how often each row was played."""
    racc = [0] * len(m)
    cacc = [0] * len(m[0])
    counts = [0] * len(m)
    i = 0
    for _ in range(iters):
        counts[i] += 1
        cacc = [c + x for c, x in zip(cacc, m[i])]
        j = cacc.index(min(cacc))
        racc = [a + row[j] for a, row in zip(racc, m)]
        i = racc.index(max(racc))
    return counts


def _ongoing_after(g, color, r, c):
    t = Game()
    t.copy_from(g)
    t.play(*((r, c) if color == BLACK else (c, r)))
    return t.result == ONGOING and t.empty > 0


def test_sliced_any_way_the_answer_is_the_same_and_best_is_the_bots_until_it_is_ready():
    for k, g in enumerate(POSITIONS[:3]):
        color = WHITE if k % 2 else BLACK
        answers = set()
        for units in (1, 7, 40, 100000):
            b = Bot("hard", 9)
            d = Deepen(b)
            c, r, seen = deepen(b, d, g, color, units)
            assert seen <= {c}  # until it is ready, the cell to play is the bot's own answer
            assert d.done() and d.best() == r
            answers.add((c, r))
        assert len(answers) == 1


def test_the_same_seed_gives_the_same_game_and_the_bot_moves_on_as_before():
    def game(seed):
        g = Game()
        b, w = Bot("hard", seed), Bot("hard", seed + 1)
        db = Deepen(b)
        cells = []
        while g.result == ONGOING and g.turns < 12:
            _, x, _ = deepen(b, db, g, BLACK, 40)
            y = w.choose(g, WHITE)
            cells.append((x, y))
            g.play(x, y)
        return cells

    assert game(3) == game(3)
    assert game(3) != game(4)


def test_deepening_leaves_the_bots_own_answers_as_they_were():
    # A game where every move is deepened (run to the end or cut off) and the first answers played: the bot's
    # answers are those of a bot never deepened (the worker and the ticks then play the same game).
    plain, deep = Bot("hard", 12), Bot("hard", 12)
    d = Deepen(deep)
    other = Bot("hard", 13)
    g = Game()
    while g.result == ONGOING and g.turns < 10:
        a = plain.choose(g, BLACK)
        assert deep.choose(g, BLACK) == a
        d.begin(g, BLACK)
        for _ in range(40 if g.turns % 2 else 100000):
            if d.step(40) >= 0:
                break
        g.play(a, other.choose(g, WHITE))


def test_the_trial_game_holds_the_position_again_and_the_game_is_untouched():
    g = POSITIONS[2]
    before = (board_rows(g), egg_names(g), g.turns)
    b = Bot("hard", 5)
    d = Deepen(b)
    deepen(b, d, g, BLACK, 40)
    t = b._w.g
    assert (board_rows(t), egg_names(t), t.turns) == before
    assert (board_rows(g), egg_names(g), g.turns) == before


def test_bad_use_is_refused():
    with pytest.raises(ValueError):
        Deepen(Bot("easy", 1))
    b = Bot("hard", 1)
    d = Deepen(b)
    with pytest.raises(ValueError):
        d.step(40)  # nothing begun
    with pytest.raises(ValueError):
        d.begin(POSITIONS[0], BLACK)  # the bot has not moved
    assert d.best() == -1
    b.start(POSITIONS[0], BLACK)
    b.step(3)
    with pytest.raises(ValueError):
        d.begin(POSITIONS[0], BLACK)  # its move is not finished
    b.choose(POSITIONS[0], BLACK)
    with pytest.raises(ValueError, match="trial Game"):
        d.begin(b._w.g, BLACK)  # the children are played on it: it cannot hold the position too
    assert d.best() == -1


def test_a_stopped_deepening_leaves_the_bot_free_for_its_next_move():
    g = POSITIONS[1]
    b = Bot("hard", 8)
    d = Deepen(b)
    b.choose(g, WHITE)
    d.begin(g, WHITE)
    for _ in range(5):
        d.step(40)  # a child search is running: the person locked their move here
    assert not d.done()
    b.reseed(8)
    fresh = Bot("hard", 8)
    assert b.choose(g, WHITE) == fresh.choose(g, WHITE)


_UPY_GUEST = """
import micropython
from engine import Game
from engine.notation import load
from engine.bot import Bot
from engine.bot.deepen import Deepen
POS = %r
g = Game()
b = Bot("hard", 77)
d = Deepen(b)
out = []
for rows, eggs, color in POS:
    load(g, rows, eggs)
    b.choose(g, color)
    micropython.heap_lock()  # the deeper answer must not allocate at all
    try:
        c = d.begin(g, color)
        r = d.step(40)
        while r < 0:
            r = d.step(40)
    finally:
        micropython.heap_unlock()
    out.append((c, r, d.children))
print(out)
"""


@pytest.mark.needs_node
def test_micropython_deepens_the_same_without_allocating():
    from tools.upy import run, project_files

    pos = [(board_rows(g), egg_names(g), BLACK if k % 2 else WHITE) for k, g in enumerate(POSITIONS[:3])]
    b = Bot("hard", 77)
    d = Deepen(b)
    expect = []
    g = Game()
    for rows, eggs, color in pos:
        load(g, rows, eggs)
        c, r, _ = deepen(b, d, g, color, 40)
        expect.append((c, r, d.children))
    assert run(_UPY_GUEST % (pos,), project_files("engine"), heapsize=2 * 1024 * 1024) == "%r\n" % (expect,)
