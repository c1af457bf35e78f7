"""Replays conformance cases with the engine; runs unchanged on CPython and inside MicroPython (tools.conformance uploads it)."""
from engine import Game, IllegalMove, parse_square
from engine.notation import RESULT_NAMES, board_rows, egg_names, load


def observe(game):
    """The state after a turn, in exactly the shape of a case's `expect`."""
    return {
        "board": board_rows(game),
        "eggs": egg_names(game),
        "captures": {"black": game.captures_black, "white": game.captures_white},
        "result": RESULT_NAMES[game.result],
        "sudden_death": game.sudden_death,
        "winning": {"black": game.winning_black, "white": game.winning_white},
    }


def _move(who, text):
    try:
        return parse_square(text)
    except IllegalMove as e:
        raise IllegalMove("%s: %s" % (who, e))


def replay_case(case, lock=None, unlock=None):
    """Play one case, ignoring its expectations: {"name", "observed": [...]}.

    With lock/unlock (micropython.heap_lock/heap_unlock) every legal turn is
    played with the heap locked, proving play() allocates nothing.
    """
    game = Game()
    start = case.get("start")
    if start:
        load(game, start["board"], start.get("eggs", []))
    observed = []
    for turn in case["turns"]:
        try:
            b = _move("black", turn["black"])
            w = _move("white", turn["white"])
            if lock is not None and game.legal(b) and game.legal(w):
                lock()
                try:
                    game.play(b, w)
                finally:
                    unlock()
            else:
                game.play(b, w)
            observed.append(observe(game))
        except IllegalMove as e:
            observed.append({"error": str(e)})
    return {"name": case["name"], "observed": observed}


def replay_all(cases, lock=None, unlock=None):
    return [replay_case(c, lock, unlock) for c in cases]
