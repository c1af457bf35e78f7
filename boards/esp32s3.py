"""Board config: ESP32-S3-DevKitC-1-N8R8 build — wiring and board facts only, no code."""
NAME = "esp32s3"
PLATFORM = "esp32"             # sys.platform of the MicroPython port (deploy refuses another port)
# What the board says about itself (sys.implementation._machine): MicroPython's ESP32_GENERIC_S3 build,
# its SPIRAM_OCT variant (the N8R8's octal PSRAM used) or the plain one. Deploy and play know the board by
# this, never by USB ids: the DevKitC's UART bridge (CP210x, CH343) sits on countless other boards too.
MACHINES = ("Generic ESP32S3 module with Octal-SPIRAM with ESP32S3", "Generic ESP32S3 module with ESP32S3")
CHIP = "esp32s3"               # pin table in firmware/boardcheck.py
RESERVED_PINS = {              # the N8R8 module's octal PSRAM takes GPIO33-37; the DevKitC's RGB LED
    33: "octal PSRAM (N8R8 module)", 34: "octal PSRAM (N8R8 module)", 35: "octal PSRAM (N8R8 module)",
    36: "octal PSRAM (N8R8 module)", 37: "octal PSRAM (N8R8 module)",
    38: "the DevKitC-1 v1.1's RGB LED", 48: "the DevKitC-1 v1.0's RGB LED",
}
# GPIOs also avoid the strapping pins (0, 3, 45, 46) and UART0 (43, 44).
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
IDLE_MA_PER_LED = 1            # WS2812B: about 1 mA each even when dark
CONTROLLER_MA = 100            # ESP32-S3 at 240 MHz, radio off (~40-60 mA) + the DevKitC's LED and UART bridge
BRIGHTNESS = 0.25
# Pads: Adafruit 1824 keypads, connector pins 1..7 in order to
# GPIO 1, 2, 42, 41, 40, 39, 47 (pad A) and 4, 6, 7, 15, 16, 17, 18 (pad B);
# the 1824's pins are C2 R1 C1 R4 C3 R3 R2 (see boards/pico.py).
KEYPAD_TYPE = "matrix3x4"
PAD_A = {"part": "adafruit-1824", "rows": (2, 47, 39, 41), "cols": (42, 1, 40)}
PAD_B = {"part": "adafruit-1824", "rows": (6, 18, 17, 15), "cols": (7, 4, 16)}
PAD_B_ROTATED = True
BUZZER_PIN = 21
STORAGE_DIR = "/"
