"""What a player can set and what the device keeps: the defaults of settings.json and scores.json, what each stored value may be, the brightness steps."""
from firmware.modes import SCORED
from firmware.sound import VOLUMES

BRIGHTNESS_LEVELS = (0.02, 0.05, 0.1, 0.25, 0.5, 1.0)  # menu keys 7/8 step through these
SAFE_BRIGHTNESS = 0.02  # safe boot, crash and key-test pictures: visible, far inside any USB budget

SETTINGS_FILE = "settings.json"
SCORES_FILE = "scores.json"

# "brightness" and "volume" are indices (BRIGHTNESS_LEVELS, firmware.sound.VOLUMES);
# "seating" 1 = pad B opposite and rotated, 0 = side by side; "mode" = the last mode played.
SETTINGS_DEFAULTS = {"brightness": 3, "seating": 1, "mode": "2p", "volume": 2}


def settings_defaults(cfg):
    """SETTINGS_DEFAULTS with the board file's seating (PAD_B_ROTATED): with no valid stored "seating" (a new
    board, a damaged settings.json), pad B is read as it is mounted."""
    if getattr(cfg, "PAD_B_ROTATED", True):
        return SETTINGS_DEFAULTS
    d = dict(SETTINGS_DEFAULTS)
    d["seating"] = 0
    return d


# Per scored mode: black's wins, white's wins, draws.
SCORE_DEFAULTS = {name: [0, 0, 0] for name in SCORED}
# A tally stays below this, so it and its +1 remain small ints on every port (no heap object,
# no arithmetic that allocates); a stored count beyond it is not one this device wrote.
MAX_TALLY = 1 << 24


def _small(v, top):
    # An int (not a bool: JSON true is no step) with 0 <= v < top.
    return type(v) is int and 0 <= v < top


def setting_ok(name, v):
    """True when `v` means something for setting `name` (a value read from flash that may have been damaged)."""
    if name == "brightness":
        return _small(v, len(BRIGHTNESS_LEVELS))
    if name == "volume":
        return _small(v, len(VOLUMES))
    if name == "seating":
        return _small(v, 2)
    if name == "mode":
        return type(v) is str and v in SCORED  # the last mode played: only the scored ones are kept
    return False


def score_ok(name, v):
    """True when `v` is a tally scores.json may hold for mode `name`: [black wins, white wins, draws] of small counts."""
    if name not in SCORED or type(v) is not list or len(v) != 3:
        return False
    for n in v:
        if not _small(n, MAX_TALLY):
            return False
    return True


def brightness_index(b):
    """The step of BRIGHTNESS_LEVELS nearest to brightness `b`."""
    best = 0
    for i in range(len(BRIGHTNESS_LEVELS)):
        if abs(BRIGHTNESS_LEVELS[i] - b) < abs(BRIGHTNESS_LEVELS[best] - b):
            best = i
    return best
