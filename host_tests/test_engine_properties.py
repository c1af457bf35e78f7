"""Property tests: random positions and legal move sequences, checked against a plain reference model and the turn record."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    BLACK, EGG, EMPTY, EV_CAPTURED, EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_EGG, EV_HATCH, EV_PLACE, EV_STEP,
    EV_VANISH, DIR_DELTA, ONGOING, WHITE, Game, IllegalMove,
)
from engine.notation import RESULT_NAMES
from reference_rules import RefGame
from test_engine_rules import snapshot

CHARS = ".BWe"


@st.composite
def positions(draw):
    """A crowded random position (captures and hatching happen often) with a random egg order."""
    weights = draw(st.sampled_from([(5, 2, 2, 1), (3, 3, 3, 3), (6, 1, 1, 4), (8, 1, 1, 0)]))
    pool = [v for v, w in enumerate(weights) for _ in range(w)]
    cells = draw(st.lists(st.sampled_from(pool), min_size=81, max_size=81))
    if cells.count(EMPTY) < 2:
        cells[0] = cells[80] = EMPTY
    eggs = [i for i, v in enumerate(cells) if v == EGG]
    eggs = draw(st.permutations(eggs))
    return cells, list(eggs)


def replay_record(before_cells, before_eggs, g):
    """Apply the turn record to a copy of the old state the way firmware would; return the new state."""
    cells = list(before_cells)
    eggs = list(before_eggs)
    log = g.log
    step_clamps = {BLACK: 0, WHITE: 0}
    for i in range(0, g.log_len, 3):
        op, a, b = log[i], log[i + 1], log[i + 2]
        if op == EV_PLACE:
            assert cells[a] == EMPTY and cells[b] == EMPTY
            cells[a], cells[b] = BLACK, WHITE
        elif op == EV_EGG:
            assert cells[a] == EMPTY
            cells[a] = EGG
            eggs.append(a)
        elif op == EV_STEP:
            pass
        elif op in (EV_CLAMP_BLACK, EV_CLAMP_WHITE):
            p = BLACK if op == EV_CLAMP_BLACK else WHITE
            assert cells[a] == p and b != 0
            for k in range(8):
                if b >> k & 1:
                    d = DIR_DELTA[k]
                    x, y, end = a + d, a + 2 * d, a + 3 * d
                    assert cells[x] not in (EMPTY, p) and cells[y] not in (EMPTY, p) and cells[end] == p
                    step_clamps[p] += 1
        elif op == EV_CAPTURED:
            assert cells[a] == b and b != EMPTY
            cells[a] = EMPTY
            if b == EGG:
                eggs.remove(a)
        elif op == EV_VANISH:
            assert eggs[0] == a
            eggs.pop(0)
            cells[a] = EMPTY
        elif op == EV_HATCH:
            assert eggs[0] == a and b in (BLACK, WHITE)
            eggs.pop(0)
            cells[a] = b
        else:
            raise AssertionError("unknown op %d" % op)
    assert (step_clamps[BLACK], step_clamps[WHITE]) == (g.captures_black, g.captures_white)
    return cells, eggs


def logical(g):
    """The game's meaning: board, egg order and every public figure (ring slots past the eggs are free)."""
    return (bytes(g._b), state(g)[1], g.empty, g.result, g.sudden_death, g.winning_black, g.winning_white,
            g.captures_black, g.captures_white, g.turns)


def state(g):
    return [g.cell(i) for i in range(81)], [g.egg(k) for k in range(g.egg_count)]


def agree(g, ref):
    assert "".join(CHARS[g.cell(i)] for i in range(81)) == "".join(ref.board)
    assert [g.egg(k) for k in range(g.egg_count)] == ref.eggs
    assert (g.captures_black, g.captures_white) == (ref.captures["B"], ref.captures["W"])
    assert (g.winning_black, g.winning_white) == (ref.winning["B"], ref.winning["W"])
    assert RESULT_NAMES[g.result] == ref.result
    assert g.sudden_death == ref.sudden_death
    assert g.empty == ref.board.count(".")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=positions(), data=st.data())
def test_random_games_match_reference_record_and_undo(start, data):
    cells, eggs = start
    g = Game()
    g.set_position(cells, eggs)
    ref = RefGame([CHARS[v] for v in cells], eggs)
    agree(g, ref)
    for _ in range(data.draw(st.integers(1, 25), label="turns")):
        if g.result != ONGOING:
            before = snapshot(g)
            try:
                g.play(0, 1)
            except IllegalMove:
                pass
            else:
                raise AssertionError("a move was accepted after the end")
            assert snapshot(g) == before
            return
        free = [i for i in range(81) if g.cell(i) == EMPTY]
        b = data.draw(st.sampled_from(free), label="black")
        w = b if data.draw(st.integers(0, 9), label="collide") == 0 else data.draw(st.sampled_from(free), label="white")

        # an illegal move (occupied or off the board) changes nothing
        occupied = [i for i in range(81) if g.cell(i) != EMPTY]
        bad = data.draw(st.sampled_from(occupied + [81, -3]), label="bad")
        before = snapshot(g)
        try:
            g.play(b, bad)
        except IllegalMove:
            pass
        else:
            raise AssertionError("illegal move accepted")
        assert snapshot(g) == before

        old_cells, old_eggs = state(g)
        old = logical(g)
        g.play(b, w)
        ref.play(b, w)
        agree(g, ref)
        # the record accounts for every change of the board and the egg order
        assert replay_record(old_cells, old_eggs, g) == state(g)
        # the egg order lists exactly the eggs on the board
        assert sorted(state(g)[1]) == [i for i in range(81) if g.cell(i) == EGG]
        # undo restores the exact previous state; replaying gives the same result
        after = logical(g)
        g.undo()
        assert logical(g) == old
        g.play(b, w)
        assert logical(g) == after


@settings(max_examples=100, deadline=None)
@given(start=positions(), data=st.data())
def test_copy_from_is_exact_and_independent(start, data):
    g = Game()
    g.set_position(*start)
    free = [i for i in range(81) if g.cell(i) == EMPTY]
    if g.result == ONGOING:
        g.play(data.draw(st.sampled_from(free)), data.draw(st.sampled_from(free)))
    h = Game()
    h.play(40, 41)
    h.copy_from(g)
    assert snapshot(h) == snapshot(g)
    if g.result == ONGOING and h.empty:
        free = [i for i in range(81) if h.cell(i) == EMPTY]
        before = snapshot(g)
        h.play(free[0], free[-1])
        assert snapshot(g) == before
