"""The one home of the device's modes: their numbers and names (app, menu, simulator, play and the terminal UI import them)."""
from engine._compat import const

M_ATTRACT = const(0)  # the board plays itself until a key is pressed
M_MENU = const(1)
M_2P = const(2)  # two players, one pad each
M_EASY = const(3)  # pad A against the computer, easy
M_MEDIUM = const(4)
M_HARD = const(5)
M_DEMO = const(6)  # computer against computer, scored like a game
M_TUTORIAL = const(7)
M_KEYTEST = const(8)  # wiring check: the key just pressed lights up

# Index = mode number. These strings are also the simulator's --mode values
# and the keys of settings.json "mode" and scores.json.
MODE_NAMES = ("attract", "menu", "2p", "easy", "medium", "hard", "demo", "tutorial", "keytest")

# The computer's level in M_EASY..M_HARD (engine.bot.Bot's level names).
BOT_LEVELS = ("easy", "medium", "hard")

# Modes whose results are kept in scores.json (and the one a "#" in attract mode returns to).
SCORED = ("2p", "easy", "medium", "hard")


def mode_number(name):
    """Mode name -> number; an unknown name is refused with the list of valid ones."""
    if name not in MODE_NAMES:
        raise ValueError("unknown mode %r; valid modes: %s" % (name, ", ".join(MODE_NAMES)))
    return MODE_NAMES.index(name)


def vs_computer(m):
    """True in the modes where pad B's seat is the computer."""
    return M_EASY <= m <= M_HARD
