"""Board config: Raspberry Pi Pico (RP2040) reference build — wiring and board facts only, no code."""
NAME = "pico"
PLATFORM = "rp2"               # sys.platform of the MicroPython port (deploy refuses another port)
# What the board says about itself (sys.implementation._machine): deploy and play know the board by it,
# never by USB ids. The Pico W has the same pins free (its radio takes GP23-25 and GP29 instead).
MACHINES = ("Raspberry Pi Pico with RP2040", "Raspberry Pi Pico W with RP2040")
CHIP = "rp2040"                # pin table in firmware/boardcheck.py
HEAP_BYTES = 241952            # gc.mem_free() after boot, official RPI_PICO v1.27.0 (the virtual board's ceiling)
RESERVED_PINS = {              # GPIOs the Pico itself uses (Pico datasheet, section 2.1)
    23: "the Pico's SMPS power-save control",
    24: "the Pico's VBUS sense",
    25: "the Pico's on-board LED",
    29: "the Pico's VSYS/3 measurement (ADC3)",
}
# LEDs: 81-pixel 9x9 matrix, then pad A's and pad B's status LED on the same chain.
LED_PIN = 28                   # GP28 -> 74AHCT125 (5 V) -> 330 ohm -> DIN
LED_COUNT = 83
MATRIX_LAYOUT = "serpentine"   # or "progressive"
MATRIX_ORIGIN = "top-left"     # corner of the first LED, seen from black's seat (pad A)
MATRIX_ROTATION = 0            # 0/90/180/270 clockwise, applied after origin/layout
COLOR_ORDER = "GRB"            # WS2812B
GAMMA = 2.2
STATUS_LEDS = (81, 82)         # strip indices of pad A's and pad B's status LED
# Power: the whole board stays inside CURRENT_BUDGET_MA. The LEDs get what is
# left after every LED's idle draw and the controller's (firmware/display.py).
CURRENT_BUDGET_MA = 500        # USB default; raise it only with a supply that delivers it
MA_PER_CHANNEL = 20            # WS2812B: about 20 mA per colour channel at full
IDLE_MA_PER_LED = 1            # WS2812B: about 1 mA each even when dark (83 mA for 83 LEDs)
CONTROLLER_MA = 60             # RP2040 busy at 200 MHz, 1.15 V (~44 mA: 25 mA at 125 MHz x 1.6 x (1.15/1.10)^2) + flash, 74AHCT125, pull-ups, piezo
CPU_HZ = 200000000             # the RP2040's certified most (core at 1.15 V: firmware/cpufreq.py); None keeps 125 MHz
BRIGHTNESS = 0.25              # default global brightness (0.02 .. 1.0)
# Pads: two Adafruit 1824 phone-style 3x4 keypads (firmware/keypad.py PARTS).
# Keypad connector pins 1..7 go to GP2..GP8 (pad A) and GP10..GP16 (pad B) in
# order; on the 1824 rows and columns alternate, so:
#   connector pin:  1    2    3    4    5    6    7
#   1824 signal:    C2   R1   C1   R4   C3   R3   R2
# For a generic membrane 3x4 keypad (pins 1-4 rows, 5-7 columns) on the same
# wires use {"part": "membrane-3x4", "rows": (2, 3, 4, 5), "cols": (6, 7, 8)}.
KEYPAD_TYPE = "matrix3x4"      # or "matrix4x4" (add a 4th column pin), "direct"
PAD_A = {"part": "adafruit-1824", "rows": (3, 8, 7, 5), "cols": (4, 2, 6)}       # black
PAD_B = {"part": "adafruit-1824", "rows": (11, 16, 15, 13), "cols": (12, 10, 14)}  # white
PAD_B_ROTATED = True           # pad B's 3x3 grid turned 180 deg (players sit opposite)
BUZZER_PIN = 22                # passive piezo via 100 ohm; None if not fitted
STORAGE_DIR = "/"              # settings.json / scores.json / error.log live here
