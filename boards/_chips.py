"""Chip facts, one pin table per microcontroller: which GPIO numbers exist, which the chip itself reserves, which need care (a board file adds its own reserved pins)."""
# Not a board config (the leading "_" keeps it out of boards.names()):
# boards/<name>.py names its chip with CHIP = "rp2040" and adds the pins its
# module or carrier board takes with RESERVED_PINS.
# Host fakes, the virtual board and tests refuse pins that do not exist or
# are reserved, as the chip would (or worse, as the board would: a keypad on
# the flash pins hangs an ESP32-S3).

# chip -> (GPIO numbers that exist, {gpio: why it cannot be used}, {gpio: why it needs care})
CHIPS = {
    # RP2040 datasheet, section 2.19 (GPIO): GPIO0-GPIO29 in bank 0; the QSPI
    # flash pins are a separate bank without GPIO numbers. On a Raspberry Pi
    # Pico the board takes GP23-25 and GP29 (boards/pico.py RESERVED_PINS).
    "rp2040": (tuple(range(30)), {}, {}),
    # ESP32-S3 datasheet, section 2 (pins) and 3.3 (strapping pins): GPIO0-21
    # and GPIO26-48 exist (there is no GPIO22-25). GPIO26-32 connect the
    # in-package/module SPI flash on every module; GPIO19/20 are the native
    # USB D-/D+. Octal flash or PSRAM (N8R8, N16R8...) also takes GPIO33-37
    # (boards/esp32s3.py RESERVED_PINS).
    "esp32s3": (
        tuple(range(22)) + tuple(range(26, 49)),
        {26: "SPI flash (SPICS1)", 27: "SPI flash (SPIHD)", 28: "SPI flash (SPIWP)", 29: "SPI flash (SPICS0)",
         30: "SPI flash (SPICLK)", 31: "SPI flash (SPIQ)", 32: "SPI flash (SPID)",
         19: "USB D- (the native USB port)", 20: "USB D+ (the native USB port)"},
        {0: "a strapping pin (boot mode, the BOOT button)", 3: "a strapping pin (JTAG source)",
         45: "a strapping pin (VDD_SPI voltage)", 46: "a strapping pin (boot mode, ROM messages)",
         43: "UART0 TX (the REPL on the UART USB port)", 44: "UART0 RX (the REPL on the UART USB port)"},
    ),
}


def pin_problem(chip, reserved, pin):
    """Why `pin` cannot be used on `chip` with the board's `reserved` {gpio: why} (None if it can). Unknown chip: None."""
    if chip is None:
        return None
    if chip not in CHIPS:
        raise ValueError("unknown CHIP %r; known chips: %s" % (chip, ", ".join(sorted(CHIPS))))
    gpios, chip_reserved, _ = CHIPS[chip]
    if not isinstance(pin, int) or pin not in gpios:
        return "the %s has no GPIO %r" % (chip, pin)
    if pin in chip_reserved:
        return "GPIO%d is reserved on the %s: %s" % (pin, chip, chip_reserved[pin])
    if reserved and pin in reserved:
        return "GPIO%d is reserved on this board: %s" % (pin, reserved[pin])
    return None


def board_pin_problem(cfg, pin):
    """Why a board config module cannot use `pin` (None if it can): its CHIP's table and RESERVED_PINS, or, for boards
    whose pins are names (CircuitPython, Blinka), its BOARD_PINS. A board file with neither is not checked."""
    reserved = getattr(cfg, "RESERVED_PINS", None)
    names = getattr(cfg, "BOARD_PINS", None)
    if getattr(cfg, "CHIP", None) is None and names is not None:
        if pin not in names:
            return "the board has no pin %r" % (pin,)
        if reserved and pin in reserved:
            return "pin %s is reserved on this board: %s" % (pin, reserved[pin])
        return None
    return pin_problem(getattr(cfg, "CHIP", None), reserved, pin)


def caution(chip, pin):
    """Why `pin` needs care on `chip` (strapping, console UART), or None."""
    if chip not in CHIPS:
        return None
    return CHIPS[chip][2].get(pin)
