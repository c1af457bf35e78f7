"""Board config: Adafruit Feather RP2040 (CircuitPython 9/10) — wiring and board facts only, no code."""
NAME = "feather_rp2040"
PLATFORM = "circuitpython"     # firmware/hw_circuitpython.py, code.py; deployed by tools/circuitpy.py
# What the board says about itself (sys.implementation._machine, also the last part of boot_out.txt's first line).
MACHINES = ("Adafruit Feather RP2040 with rp2040",)
DRIVE_LABEL = "CIRCUITPY"      # the USB drive CircuitPython shows (tools/circuitpy.py finds it by this label)
# Pins are named as in CircuitPython's `board` module (board.D5 ...), as
# printed on the Feather. These are the ones it has (RP2040 GPIO in brackets
# in the comments below); the host fakes refuse any other name.
BOARD_PINS = ("A0", "A1", "A2", "A3", "D24", "D25", "SCK", "MOSI", "MISO", "RX", "TX", "D0", "D1",
              "D4", "D5", "D6", "D9", "D10", "D11", "D12", "D13", "LED", "SDA", "SCL", "NEOPIXEL")
RESERVED_PINS = {              # on the board module, but taken by the Feather itself
    "D13": "the Feather's red LED (an input there reads through the LED)",
    "LED": "the Feather's red LED",
    "NEOPIXEL": "the Feather's own status NeoPixel (CircuitPython uses it)",
}
# LEDs: 81-pixel 9x9 matrix, then pad A's and pad B's status LED on the same chain.
LED_PIN = "MOSI"               # MO (GPIO19) -> 74AHCT125 (5 V) -> 330 ohm -> DIN
LED_COUNT = 83
MATRIX_LAYOUT = "serpentine"
MATRIX_ORIGIN = "top-left"
MATRIX_ROTATION = 0
COLOR_ORDER = "GRB"            # WS2812B; given to Adafruit's neopixel as pixel_order
GAMMA = 2.2
STATUS_LEDS = (81, 82)
# Power: powered from USB, the strip's 5 V from the Feather's USB pin.
CURRENT_BUDGET_MA = 500        # USB default
MA_PER_CHANNEL = 20
IDLE_MA_PER_LED = 1            # WS2812B: about 1 mA each even when dark
CONTROLLER_MA = 50             # RP2040 at 125 MHz (~25 mA) + flash, CircuitPython's USB, 74AHCT125, pull-ups, piezo
BRIGHTNESS = 0.25
# Pads: two Adafruit 1824 keypads. Connector pins 1..7 of pad A go to the
# left header A0, A1, A2, A3, D24, D25, SCK (GPIO26-29, 24, 25, 18); pad B's
# to the right header D12, D11, D10, D9, D6, D5, SCL (GPIO12-9, 8, 7, 3).
# On the 1824 rows and columns alternate (pins C2 R1 C1 R4 C3 R3 R2), so:
KEYPAD_TYPE = "matrix3x4"
PAD_A = {"part": "adafruit-1824", "rows": ("A1", "SCK", "D25", "A3"), "cols": ("A2", "A0", "D24")}    # black
PAD_B = {"part": "adafruit-1824", "rows": ("D11", "SCL", "D5", "D9"), "cols": ("D10", "D12", "D6")}   # white
PAD_B_ROTATED = True
BUZZER_PIN = "MISO"            # MI (GPIO20) -> 100 ohm -> passive piezo; pwmio.PWMOut; None if not fitted
STORAGE_DIR = "/"              # CIRCUITPY: the game can write only after boot.py remounted it (hold 5 on pad A at reset)
