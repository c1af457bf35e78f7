"""Board config: Raspberry Pi Pico (RP2040) reference build — wiring and settings only, no code."""
NAME = "pico"
# LEDs: 81-pixel 9x9 matrix, then pad A's and pad B's status LED on the same chain.
LED_PIN = 28                   # GP28 -> 74AHCT125 (5 V) -> 330 ohm -> DIN
LED_COUNT = 83
MATRIX_LAYOUT = "serpentine"   # or "progressive"
MATRIX_ORIGIN = "top-left"     # corner of the first LED, seen from black's seat (pad A)
MATRIX_ROTATION = 0            # 0/90/180/270 clockwise, applied after origin/layout
COLOR_ORDER = "GRB"            # WS2812B
GAMMA = 2.2
STATUS_LEDS = (81, 82)         # strip indices of pad A's and pad B's status LED
CURRENT_BUDGET_MA = 500        # USB default; every frame is scaled to stay inside it
MA_PER_CHANNEL = 20            # WS2812B: about 20 mA per colour channel at full
BRIGHTNESS = 0.25              # default global brightness (0.02 .. 1.0)
# Pads: 3x4 membrane keypads; rows are driven low one at a time, columns pulled up.
KEYPAD_TYPE = "matrix3x4"      # or "matrix4x4" (add a 4th column pin), "direct"
PAD_A = {"rows": (2, 3, 4, 5), "cols": (6, 7, 8)}         # black, keypad pins 1..7 -> GP2..GP8
PAD_B = {"rows": (10, 11, 12, 13), "cols": (14, 15, 16)}  # white, keypad pins 1..7 -> GP10..GP16
PAD_B_ROTATED = True           # pad B's 3x3 grid turned 180 deg (players sit opposite)
BUZZER_PIN = 22                # piezo via 100 ohm; None if not fitted
STORAGE_DIR = "/"              # settings.json / scores.json / error.log live here
