"""Hand-written cases for the rule sentences that are easy to get wrong, plus the engine's API contract."""
import pytest

from engine import (
    BLACK, DRAW, EGG, EMPTY, EV_CAPTURED, EV_CLAMP_BLACK, EV_CLAMP_WHITE, EV_EGG, EV_HATCH, EV_PLACE,
    EV_STEP, EV_VANISH, ONGOING, WHITE, WHITE_WON, BLACK_WON, Game, IllegalMove, parse_square, square_name,
)
from engine.notation import board_rows, egg_names, load

S = parse_square


def game(rows, eggs=()):
    g = Game()
    load(g, rows, eggs)
    return g


def entries(g):
    return [tuple(g.log[i:i + 3]) for i in range(0, g.log_len, 3)]


def snapshot(g):
    """Everything observable plus the private buffers: 'byte-identical' means this is equal."""
    return (
        bytes(g._b), bytes(g._eggs), g._eh, g.egg_count, g.empty, g.result, g.sudden_death,
        g.winning_black, g.winning_white, g.captures_black, g.captures_white, g.turns,
        bytes(g.log), g.log_len, bytes(g._u), g._nranks,
    )


EMPTY_ROWS = ["........."] * 9


def rows_with(**cells):
    grid = [list(r) for r in EMPTY_ROWS]
    for name, ch in cells.items():
        i = S(name)
        grid[i // 9][i % 9] = ch
    return ["".join(r) for r in grid]


# --- notation ---------------------------------------------------------------------

def test_square_names_follow_python_chess_style():
    assert (square_name(0), square_name(40), square_name(80), square_name(2 * 9 + 2)) == ("a1", "e5", "i9", "c3")
    assert [S(n) for n in ("a1", "e5", "i9", "d1")] == [0, 40, 80, 3]
    for bad in ("j1", "e0", "a10", "", "55", 5, None):
        with pytest.raises(ValueError):
            S(bad)


# --- distinct clamps and overlap ----------------------------------------------------

def test_clamp_with_two_newcomer_ends_counts_once():
    """Ruling (distinct clamps): step 2's hatchlings a9 and d9 close the same clamp from both ends."""
    g = game(
        rows_with(b5="B", c5="W", d5="W", f5="W", g5="W", h5="B", a9="e", b9="W", c9="W", d9="e", i1="e"),
        ["a9", "d9", "i1"],
    )
    g.play(S("e5"), S("a2"))
    # step 1: two clamps -> a9, d9 hatch black; step 2: ONE clamp (a9..d9) -> i1 hatches.
    assert g.captures_black == 3 and g.captures_white == 0
    assert egg_names(g) == []
    assert board_rows(g)[8] == "B..B....."
    assert g.cell(S("i1")) == BLACK
    steps = [e for e in entries(g) if e[0] == EV_STEP]
    assert [s[1] for s in steps] == [1, 2, 3] or [s[1] for s in steps] == [1, 2]
    step2 = [e for e in entries(g) if e[0] == EV_CLAMP_BLACK and e[1] in (S("a9"), S("d9"))]
    assert len(step2) == 1 and bin(step2[0][2]).count("1") == 1


def test_two_clamps_sharing_a_middle_piece_both_count():
    """Ruling (overlap): hatchlings e5 and c7 both clamp through e7; both count, e7 goes once."""
    g = game(
        rows_with(b1="B", c1="W", d1="W", f1="W", g1="W", h1="B",
                  e5="e", c7="e", e6="W", e7="W", e8="B", d7="W", f7="B", i9="e"),
        ["e5", "c7", "i9"],
    )
    g.play(S("e1"), S("a5"))
    # step 1: e1 clamps west and east -> e5, c7 hatch black.
    # step 2: e5 south (e6, e7 | e8) and c7 east (d7, e7 | f7) -> i9 hatches.
    assert g.captures_black == 4
    captured = sorted(e[1] for e in entries(g) if e[0] == EV_CAPTURED)
    assert captured == sorted(S(n) for n in ("c1", "d1", "f1", "g1", "e6", "e7", "d7"))
    assert g.cell(S("i9")) == BLACK and g.egg_count == 0


def test_piece_in_clamps_of_both_players_is_removed_once_and_both_count():
    """An egg between both players' newcomers is a middle piece of a black and of a white clamp."""
    # Row 5: a5=B  b5=e  c5=e  [d5 black newcomer] ... black clamp d5-c5-b5-a5.
    # Column c: c3=W, c4 = white newcomer?  White clamp c4?-no: white newcomer c7, c6=e, c5=e, c4=W.
    g = game(rows_with(a5="B", b5="e", c5="e", c6="e", c4="W", i1="e", i2="e"), ["b5", "c5", "c6", "i1", "i2"])
    g.play(S("d5"), S("c7"))
    # black: d5 W-> c5(e), b5(e), a5(B) clamp.  white: c7 N-> c6(e), c5(e), c4(W) clamp. c5 shared.
    assert (g.captures_black, g.captures_white) == (1, 1)
    caps = [e for e in entries(g) if e[0] == EV_CAPTURED]
    assert sorted(e[1] for e in caps) == sorted([S("b5"), S("c5"), S("c6")])  # c5 once
    # contested hatch: the oldest remaining egg (i1) vanishes, i2 stays.
    assert egg_names(g) == ["i2"] and g.cell(S("i1")) == EMPTY
    assert [e[1] for e in entries(g) if e[0] == EV_VANISH] == [S("i1")]


# --- hatching -----------------------------------------------------------------------

def test_surplus_hatches_after_contested_egg_vanishes():
    """cb=2, cw=1: the oldest egg vanishes, the next hatches for black, the third stays."""
    g = game(
        rows_with(b5="B", c5="W", d5="W", f5="W", g5="W", h5="B", a9="W", b8="B", c7="B", a1="e", b1="e", c1="e"),
        ["a1", "b1", "c1"],
    )
    # black e5: W (d5,c5,b5) and E (f5,g5,h5): 2 clamps.  white d6: SW (c7, b8, a9=W): 1 clamp.
    g.play(S("e5"), S("d6"))
    assert (g.captures_black, g.captures_white) == (2, 1)
    assert g.cell(S("a1")) == EMPTY  # vanished
    assert g.cell(S("b1")) == BLACK  # hatched
    assert egg_names(g) == ["c1"]


def test_captured_egg_leaves_the_middle_of_the_order():
    g = game(rows_with(a1="e", b2="B", c2="e", d2="e", i9="e"), ["a1", "c2", "i9", "d2"])
    g.play(S("e2"), S("h8"))  # black e2 W-> d2(e), c2(e), b2(B): captures the 2nd and 4th eggs
    assert g.captures_black == 1
    assert egg_names(g) == ["i9"]  # a1 (now oldest) hatched, i9 remains
    assert g.cell(S("a1")) == BLACK
    g.undo()
    assert egg_names(g) == ["a1", "c2", "i9", "d2"]


def test_captures_are_never_saved():
    g = game(rows_with(b5="B", c5="W", d5="W"))
    g.play(S("e5"), S("i9"))
    assert g.captures_black == 1 and g.egg_count == 0
    g.play(S("a1"), S("a1"))  # an egg appears afterwards
    g.play(S("a2"), S("i8"))
    assert egg_names(g) == ["a1"]  # the old capture did not hatch it


def test_placed_turtle_is_newcomer_only_in_step_one():
    """Ruling (newcomers): in step 2 only hatchlings close clamps, not the placed turtles again."""
    g = game(rows_with(b5="B", c5="W", d5="W", a1="e"), ["a1"])
    g.play(S("e5"), S("i9"))
    assert g.captures_black == 1 and g.cell(S("a1")) == BLACK
    steps = [e for e in entries(g) if e[0] == EV_STEP]
    assert len(steps) == 1


def test_chain_reaction_record_is_step_by_step():
    # step 1: e5 clamps (d5, c5) against b5 -> hatch a9; step 2: a9 clamps (b8, c7) against d6.
    g = game(rows_with(b5="B", c5="W", d5="W", a9="e", b8="W", c7="W", d6="B", i1="e"), ["a9", "i1"])
    g.play(S("e5"), S("h2"))
    ops = [e[0] for e in entries(g)]
    assert ops == [EV_PLACE, EV_STEP, EV_CLAMP_BLACK, EV_CAPTURED, EV_CAPTURED, EV_HATCH,
                   EV_STEP, EV_CLAMP_BLACK, EV_CAPTURED, EV_CAPTURED, EV_HATCH]
    assert g.captures_black == 2 and egg_names(g) == [] and g.cell(S("i1")) == BLACK


# --- collision, traps -----------------------------------------------------------------

def test_collision_records_one_egg_and_skips_captures():
    g = game(rows_with(b5="B", c5="W", d5="W"))
    g.play(S("e5"), S("e5"))
    assert entries(g) == [(EV_EGG, S("e5"), 0)]
    assert g.cell(S("e5")) == EGG and g.cell(S("c5")) == WHITE and g.captures_black == 0


def test_newcomer_captured_in_the_same_step_still_completes_its_own_clamp():
    """One snapshot: black's b5 clamps white's new d5, and d5 still clamps e5, f5 (e5 is black's far end)."""
    g = game(rows_with(c5="W", e5="B", f5="B", g5="W", i1="e", i2="e"), ["i1", "i2"])
    g.play(S("b5"), S("d5"))
    assert (g.captures_black, g.captures_white) == (1, 1)
    assert board_rows(g)[4] == ".B....W.."
    assert egg_names(g) == ["i2"]  # the contested oldest egg vanished


# --- winning, sudden death, draw ------------------------------------------------------------

def test_sudden_death_enter_break_and_reenter():
    g = game(rows_with(a1="B", b1="B", c1="B", d1="B", a9="W", b9="W", c9="W", d9="W",
                       g3="W", g4="W", h3="B", h4="B"))
    g.play(S("e1"), S("e9"))
    assert g.result == ONGOING and g.sudden_death and (g.winning_black, g.winning_white) == (5, 5)
    assert g.is_winning(S("a1")) and not g.is_winning(S("g3"))
    # break both lines in one turn is hard to stage; instead extend one: 6 beats 5
    h = Game()
    h.copy_from(g)
    h.play(S("f1"), S("i5"))
    assert h.result == BLACK_WON and not h.sudden_death and h.winning_black == 6
    # undo goes back into sudden death exactly
    h.undo()
    assert snapshot(h)[:12] == snapshot(g)[:12]


def test_sudden_death_resolves_when_lines_break_and_resumes():
    """Both lines break in one turn -> sudden death ends, play resumes; later it can start again."""
    # Black's line runs down column e, white's down column h. Each side's
    # clamp takes one line turtle plus one extra piece beside it.
    rows = rows_with(e1="B", e2="B", e3="B", e4="B", e5="B",
                     h1="W", h2="W", h3="W", h4="W", h5="W",
                     d3="B", f3="W", g2="W", i2="B")
    g = game(rows)
    assert g.sudden_death and (g.winning_black, g.winning_white) == (5, 5)
    g.play(S("f2"), S("c3"))
    # black f2 E: g2(W), h2(W), i2(B): clamp -> white line broken.
    # white c3 E: d3(B), e3(B), f3(W): clamp -> black line broken.
    assert (g.captures_black, g.captures_white) == (1, 1)
    assert (g.winning_black, g.winning_white) == (0, 0)
    assert not g.sudden_death and g.result == ONGOING
    # re-enter: both rebuild their lines in the same turn
    g.play(S("e3"), S("h2"))
    assert g.sudden_death and g.result == ONGOING and (g.winning_black, g.winning_white) == (5, 5)


def test_full_board_in_sudden_death_is_a_draw():
    # a board with one empty cell, both with equal lines; the last cell is filled by a collision.
    rows = ["BBBBBWBWB",
            "WWWWWBWBW",
            "BWBWBWBWB",
            "BWBWBWBWB",
            "WBWBWBWBW",
            "WBWBWBWBW",
            "BWBWBWBWB",
            "BWBWBWBWB",
            "WBWBWBWB."]
    g = game(rows)
    assert g.sudden_death and g.winning_black == g.winning_white == 5
    g.play(S("i9"), S("i9"))
    assert g.result == DRAW and not g.sudden_death


def test_line_of_six_and_crossing_lines_count_each_turtle_once():
    g = game(rows_with(a1="B", b1="B", c1="B", d1="B", e1="B", f1="B",
                       a3="W", a4="W", a5="W", a6="W", a7="W", b5="W", c5="W", d5="W", e5="W"))
    assert (g.winning_black, g.winning_white) == (6, 9)
    assert g.result == WHITE_WON


# --- illegal input and the API contract -------------------------------------------------------

@pytest.mark.parametrize("black,white,words", [
    (S("a1"), S("e5"), ("black", "a1", "occupied")),
    (S("e5"), S("c1"), ("white", "c1", "occupied")),
    (81, S("e5"), ("black", "81", "off the board")),
    (S("e5"), -1, ("white", "-1", "off the board")),
    ("e5", S("e6"), ("black", "'e5'", "not a cell index")),
    (S("e5"), 4.0, ("white", "4.0", "not a cell index")),
    (True, S("e6"), ("black", "True", "not a cell index")),
    (S("e5"), None, ("white", "None", "not a cell index")),
])
def test_illegal_move_names_player_and_cell_and_changes_nothing(black, white, words):
    g = game(rows_with(a1="B", b1="W", c1="e"), ["c1"])
    g.play(S("h8"), S("h9"))
    before = snapshot(g)
    with pytest.raises(IllegalMove) as info:
        g.play(black, white)
    assert isinstance(info.value, ValueError)
    for w in words:
        assert w in str(info.value)
    assert snapshot(g) == before


def test_no_move_after_the_end_and_result_is_final():
    g = game(rows_with(a1="B", b1="B", c1="B", d1="B"))
    g.play(S("e1"), S("i9"))
    assert g.result == BLACK_WON
    before = snapshot(g)
    with pytest.raises(IllegalMove, match="black a9: no move is accepted after the game has ended"):
        g.play(S("a9"), S("i8"))
    assert snapshot(g) == before
    assert not g.legal(S("a9"))


def test_undo_without_a_turn_and_twice_refuses():
    g = Game()
    with pytest.raises(ValueError):
        g.undo()
    g.play(0, 1)
    g.undo()
    with pytest.raises(ValueError):
        g.undo()
    assert snapshot(g)[:12] == snapshot(Game())[:12]


@pytest.mark.parametrize("cells,eggs,msg", [
    ([0] * 80, [], "81 cells"),
    ([0] * 80 + [3], [], "1 eggs but the egg order lists 0"),
    ([0] * 80 + [3], [79], "not an egg"),
    ([0] * 79 + [3, 3], [79, 79, 80], "twice"),
    ([0] * 80 + [7], [], "not 0..3"),
])
def test_set_position_rejects_inconsistent_input_and_keeps_the_game(cells, eggs, msg):
    g = Game()
    g.play(S("e5"), S("e6"))
    before = snapshot(g)
    with pytest.raises(ValueError, match=msg):
        g.set_position(cells, eggs)
    assert snapshot(g) == before


def test_cell_out_of_range_raises():
    with pytest.raises(IndexError):
        Game().cell(81)
    with pytest.raises(IndexError):
        Game().cell(-1)
