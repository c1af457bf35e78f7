"""Tutorial lessons: one small position per rule, each with the turn that demonstrates it (checked against the engine by host tests)."""

# (rule, board rows top to bottom, eggs oldest first, black's move, white's move).
# Rows use RULES.md board text. Kept as plain data (strings), loaded only in tutorial mode.
LESSONS = (
    ("place", (".........",) * 9, (), 40, 30),  # both turtles land: e5 black, d4 white
    ("collision", ("........." ,) * 4 + ("....B....",) + ("....W....",) + (".........",) * 3, (), 31, 31),  # same cell d4: egg
    ("safe", ("W.BW.....",) + (".........",) * 7 + (".....B...",), (), 1, 80),  # b1 steps into W . B W: stepping into a trap is safe
    ("capture", ("BWW......",) + (".........",) * 7 + (".....W...",), (), 3, 80),  # d1 clamps b1 c1
    ("hatch", ("BWW......",) + (".........",) * 4 + ("....e....",) + (".........",) * 3, (49,), 3, 80),  # the oldest egg hatches black
    (
        "chain",
        ("BWW......",) + (".........",) * 3 + ("........e", "........W", "........W", "........B", "........."),
        (44,),
        3,
        72,
    ),  # step 1 captures b1 c1, i5 hatches black, step 2: i5 clamps i6 i7
    ("vanish", ("BWW......",) + (".........",) * 3 + ("....e....",) + (".........",) * 3 + ("WBB......",), (40,), 3, 75),  # both capture: the oldest egg vanishes
    ("win", (".........", "BBBB.....", ".........", ".........", ".........", ".........", "WW.......", ".........", "........."), (), 13, 80),  # e2 makes five
    ("sudden", (".........", "BBBB.....", ".........", ".........", ".........", ".........", ".........", "WWWW.....", "........."), (), 13, 67),  # both make five: sudden death
    # A full board with no five in a row anywhere; both pick the last cell (i9): the egg fills it, a draw.
    ("draw", ("BBWWBBWWB", "WWBBWWBBW") * 4 + ("BBWWBBWW.",), (), 80, 80),
)

_CHARS = ".BWe"


def setup(game, lesson, cells):
    """Put lesson's position on `game`; `cells` is a reusable list of 81 ints."""
    rows = lesson[1]
    for r in range(9):
        row = rows[r]
        for c in range(9):
            cells[r * 9 + c] = _CHARS.find(row[c])
    game.set_position(cells, list(lesson[2]))
