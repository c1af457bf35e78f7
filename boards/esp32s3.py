"""Board config: ESP32-S3 DevKitC-1 build — wiring and settings only, no code."""
NAME = "esp32s3"
# GPIOs avoid the strapping pins (0, 3, 45, 46), USB (19, 20), the octal
# flash/PSRAM pins (26-37) and the DevKitC's own RGB LED (38 or 48).
LED_PIN = 5                    # GPIO5 -> 74AHCT125 (5 V) -> 330 ohm -> DIN
LED_COUNT = 83
MATRIX_LAYOUT = "serpentine"
MATRIX_ORIGIN = "top-left"
MATRIX_ROTATION = 0
COLOR_ORDER = "GRB"
GAMMA = 2.2
STATUS_LEDS = (81, 82)
CURRENT_BUDGET_MA = 500
MA_PER_CHANNEL = 20
BRIGHTNESS = 0.25
KEYPAD_TYPE = "matrix3x4"
PAD_A = {"rows": (1, 2, 42, 41), "cols": (40, 39, 47)}
PAD_B = {"rows": (4, 6, 7, 15), "cols": (16, 17, 18)}
PAD_B_ROTATED = True
BUZZER_PIN = 21
STORAGE_DIR = "/"
