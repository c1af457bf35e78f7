"""Board config: Raspberry Pi 4 or 5 (Adafruit Blinka under CPython) — wiring and board facts only, no code."""
NAME = "rpi4"
PLATFORM = "linux"             # firmware/hw_circuitpython.py through Blinka; installed by tools/rpi/install.sh
# Pins are named as in Blinka's `board` module: D<n> is BCM GPIO n (not the
# header pin number; header pins in the comments).
BOARD_PINS = tuple("D%d" % n for n in range(28))
RESERVED_PINS = {
    "D0": "the HAT ID EEPROM (ID_SD)", "D1": "the HAT ID EEPROM (ID_SC)",
    "D2": "I2C SDA (pull-up fitted on the Pi)", "D3": "I2C SCL (pull-up fitted on the Pi)",
    "D14": "the serial console (TXD)", "D15": "the serial console (RXD)",
    "D7": "SPI0 CE1", "D8": "SPI0 CE0", "D9": "SPI0 MISO", "D11": "SPI0 SCLK",
}
# LEDs on SPI0 MOSI: Adafruit's neopixel (rpi_ws281x on a Pi 4, the RP1 PIO
# driver on a Pi 5) times the WS2812 bits with the SPI block, which needs no
# root and leaves the PWM to the buzzer. Enable SPI (raspi-config); on a Pi 4
# also pin the core clock (core_freq=500, core_freq_min=500), which SPI runs from.
LED_PIN = "D10"                # GPIO10, header pin 19 -> 74AHCT125 (5 V) -> 330 ohm -> DIN
LED_COUNT = 83
MATRIX_LAYOUT = "serpentine"
MATRIX_ORIGIN = "top-left"
MATRIX_ROTATION = 0
COLOR_ORDER = "GRB"
GAMMA = 2.2
STATUS_LEDS = (81, 82)
# Power: the Pi and the strip share the official 5.1 V 3 A supply (strip 5 V
# from header pin 2 or 4); the budget keeps 500 mA of it in reserve.
SUPPLY_NOTE = "5 V: the Pi's own 5.1 V 3 A supply, from header pin 2 or 4"   # for the wiring diagram
CURRENT_BUDGET_MA = 2500
MA_PER_CHANNEL = 20
IDLE_MA_PER_LED = 1
CONTROLLER_MA = 1250           # a Pi 4 under load without USB devices (~600 mA idle); a Pi 5 is similar
BRIGHTNESS = 0.25
# Pads: two Adafruit 1824 keypads; connector pins 1..7 to
#   pad A: GPIO 4, 17, 27, 22, 5, 6, 13   (header 7, 11, 13, 15, 29, 31, 33)
#   pad B: GPIO 23, 24, 25, 12, 16, 20, 21 (header 16, 18, 22, 32, 36, 38, 40)
# On the 1824 rows and columns alternate (pins C2 R1 C1 R4 C3 R3 R2), so:
KEYPAD_TYPE = "matrix3x4"
PAD_A = {"part": "adafruit-1824", "rows": ("D17", "D13", "D6", "D22"), "cols": ("D27", "D4", "D5")}    # black
PAD_B = {"part": "adafruit-1824", "rows": ("D24", "D21", "D20", "D12"), "cols": ("D25", "D23", "D16")}  # white
PAD_B_ROTATED = True
BUZZER_PIN = "D18"             # GPIO18 (header 12), hardware PWM0 (dtoverlay=pwm,pin=18,func=2) -> 100 ohm -> piezo
STORAGE_DIR = "/var/lib/what-the-shell"   # systemd StateDirectory= (tools/rpi/what-the-shell.service)
