"""The one home of the device's modes (numbers and names: app, menu, simulator, play and the terminal UI import them) and of the phases of play within a mode."""
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

# Phases of play (App.state) in the game modes and the tutorial.
S_TURN = const(0)  # a turn is open: computers think, then players type
S_COUNT = const(1)  # both locked: the countdown to the reveal
S_ANIM = const(2)  # the turn's record is being animated
S_SUDDEN = const(3)  # sudden death announced
S_OVER = const(4)  # game over: the winning line pulses
S_SCORE = const(5)  # the score picture
S_SHOW = const(6)  # tutorial: the position before the demonstrated turn
S_HOLD = const(7)  # tutorial: the result after it


def mode_number(name):
    """Mode name -> number; an unknown name is refused with the list of valid ones."""
    if name not in MODE_NAMES:
        raise ValueError("unknown mode %r; valid modes: %s" % (name, ", ".join(MODE_NAMES)))
    return MODE_NAMES.index(name)


def vs_computer(m):
    """True in the modes where pad B's seat is the computer."""
    return M_EASY <= m <= M_HARD
