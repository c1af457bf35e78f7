"""Text forms of a position (RULES.md board text, egg names) for tools, tests and logs; allocates, so not for hot paths."""
from engine.game import EMPTY, BLACK, WHITE, EGG, square_name, parse_square

RESULT_NAMES = ("ongoing", "black", "white", "draw")
_CHARS = ".BWe"


def board_rows(game):
    """The board as 9 strings of 9 characters: '.' empty, 'B' black, 'W' white, 'e' egg."""
    return ["".join(_CHARS[game.cell(r * 9 + c)] for c in range(9)) for r in range(9)]


def egg_names(game):
    """The eggs on the board, oldest first, as cell names."""
    return [square_name(game.egg(k)) for k in range(game.egg_count)]


def parse_rows(rows):
    """9 strings of board text -> list of 81 cell values. ValueError on anything else."""
    if not isinstance(rows, (list, tuple)) or len(rows) != 9:
        raise ValueError("a board is 9 strings of 9 characters")
    cells = []
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != 9:
            raise ValueError("board row %d is not 9 characters: %r" % (r + 1, row))
        for ch in row:
            v = _CHARS.find(ch)
            if v < 0:
                raise ValueError("board row %d: %r is not one of . B W e" % (r + 1, ch))
            cells.append(v)
    return cells


def load(game, rows, eggs=()):
    """Set `game` to the position given as board text and egg names (oldest first)."""
    game.set_position(parse_rows(rows), [parse_square(e) for e in eggs])


__all__ = ("RESULT_NAMES", "board_rows", "egg_names", "parse_rows", "load", "EMPTY", "BLACK", "WHITE", "EGG")
