"""What a player can set and what the device keeps: the defaults of settings.json and scores.json, the brightness steps."""
from firmware.modes import SCORED

BRIGHTNESS_LEVELS = (0.02, 0.05, 0.1, 0.25, 0.5, 1.0)  # menu keys 7/8 step through these
SAFE_BRIGHTNESS = 0.02  # safe boot, crash and key-test pictures: visible, far inside any USB budget

# "brightness" and "volume" are indices (BRIGHTNESS_LEVELS, firmware.sound.VOLUMES);
# "seating" 1 = pad B opposite and rotated, 0 = side by side; "mode" = the last mode played.
SETTINGS_DEFAULTS = {"brightness": 3, "seating": 1, "mode": "2p", "volume": 2}
# Per scored mode: black's wins, white's wins, draws.
SCORE_DEFAULTS = {name: [0, 0, 0] for name in SCORED}


def brightness_index(b):
    """The step of BRIGHTNESS_LEVELS nearest to brightness `b`."""
    best = 0
    for i in range(len(BRIGHTNESS_LEVELS)):
        if abs(BRIGHTNESS_LEVELS[i] - b) < abs(BRIGHTNESS_LEVELS[best] - b):
            best = i
    return best
