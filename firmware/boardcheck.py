"""The board-file check every tool and the device at boot run (types, ranges, pins that exist, are free and used once), the chips' pin tables, and the LED pattern a device shows for a bad board file."""
# Device code (MicroPython and CPython): no f-strings, no typing. It runs once
# at boot, so it may allocate; firmware/hw.py drops the module afterwards.
# What stays in RAM is its names (every identifier becomes a qstr, never
# freed): so few functions and arguments, the private ones folded by const().
# The module level imports nothing of the project but const (the virtual
# board's guest runs it as a private module for the pin tables alone).
from engine._compat import const

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
    # (boards/esp32s3.py RESERVED_PINS). A keypad on the flash pins hangs the chip.
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

# The X drawn for a bad board file: strip LEDs k = row*9+col on both diagonals of
# the 9x9 panel. Mirroring a row (serpentine), flipping the origin corner or
# rotating the panel maps an X onto itself, so it shows whatever MATRIX_*
# says (those may be the broken fields). Red at this level: ~40 mA for 17 LEDs.
_ERROR_LEVEL = const(40)


class BoardError(ValueError):
    """A board file that cannot work; str() names the file and every problem found."""


def pin_problem(chip, reserved, pin):
    """Why `pin` cannot be used on `chip` with the board's `reserved` {gpio: why} (None if it can). Unknown chip: ValueError."""
    if chip is None:
        return None
    if chip not in CHIPS:
        raise ValueError("unknown CHIP %r; known chips: %s" % (chip, ", ".join(sorted(CHIPS))))
    gpios, chip_reserved, _ = CHIPS[chip]
    if isinstance(pin, bool) or not isinstance(pin, int) or pin not in gpios:
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


def _label(cfg, pin):
    # How the maker's board names a pin: "GP2" on an RP2040, "GPIO2" on other chips, a named pin as it is.
    if isinstance(pin, str):
        return pin
    return ("GP%r" if getattr(cfg, "CHIP", None) == "rp2040" else "GPIO%r") % (pin,)


def _range(out, cfg, name, lo, hi, default):
    # A number from lo to hi (a whole one when lo is an int); False when it is not.
    v = getattr(cfg, name, default)
    whole = isinstance(lo, int)
    if isinstance(v, bool) or not isinstance(v, int if whole else (int, float)) or v < lo or v > hi:
        out.append("%s must be %s from %s to %s, not %r" % (name, "a whole number" if whole else "a number", lo, hi, v))
        return False
    return True


def _pads(out, cfg, uses):
    from firmware.keypad import KINDS, wiring

    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    if kind not in KINDS:
        out.append("KEYPAD_TYPE must be one of %s, not %r" % (", ".join(KINDS), kind))
        kind = "matrix3x4"
    for pad in ("PAD_A", "PAD_B"):
        k = getattr(cfg, pad + "_TYPE", kind)
        if k not in KINDS:
            out.append("%s_TYPE must be one of %s, not %r" % (pad, ", ".join(KINDS), k))
            continue
        if not hasattr(cfg, pad):
            out.append("%s is missing (the pins of %s's keypad)" % (pad, "black" if pad == "PAD_A" else "white"))
            continue
        spec = getattr(cfg, pad)
        if not isinstance(spec, dict):
            out.append("%s must be a dict such as {\"rows\": (...), \"cols\": (...)}, not %r" % (pad, spec))
            continue
        try:
            rows, cols, _ = wiring(k, spec)
        except (ValueError, TypeError) as e:
            out.append("%s: %s" % (pad, e))
            continue
        if rows is None:
            for i in range(len(cols)):
                uses.append((cols[i], "%s key %s" % (pad, "123456789*#"[i])))
        else:
            for i in range(len(rows)):
                uses.append((rows[i], "%s row %d" % (pad, i + 1)))
            for i in range(len(cols)):
                uses.append((cols[i], "%s column %d" % (pad, i + 1)))


def problems(cfg):
    """Every problem of a board config module, one line each (empty list: the board file can work)."""
    out = []
    chip = getattr(cfg, "CHIP", None)
    if chip is not None and chip not in CHIPS:
        out.append("CHIP must be one of %s, not %r" % (", ".join(sorted(CHIPS)), chip))
        return out
    names = getattr(cfg, "BOARD_PINS", None)
    if names is not None and (not isinstance(names, (tuple, list)) or [p for p in names if not isinstance(p, str)]):
        out.append("BOARD_PINS must be a tuple of pin names such as (\"D5\", \"D6\"), not %r" % (names,))
        return out
    reserved = getattr(cfg, "RESERVED_PINS", {})
    if not isinstance(reserved, dict):
        out.append("RESERVED_PINS must be a dict {pin: why}, not %r" % (reserved,))
        return out
    for name in ("NAME", "PLATFORM", "STORAGE_DIR", "DRIVE_LABEL", "SUPPLY_NOTE"):
        if not isinstance(getattr(cfg, name, ""), str):
            out.append("%s must be text (in quotes), not %r" % (name, getattr(cfg, name)))
    machines = getattr(cfg, "MACHINES", ())
    if not isinstance(machines, (tuple, list)) or [m for m in machines if not isinstance(m, str)]:
        out.append("MACHINES must be a tuple of the names boards say in sys.implementation._machine, not %r" % (machines,))
    rotated = getattr(cfg, "PAD_B_ROTATED", True)
    if not isinstance(rotated, bool):
        out.append("PAD_B_ROTATED must be True or False, not %r" % (rotated,))
    if hasattr(cfg, "HEAP_BYTES"):
        _range(out, cfg, "HEAP_BYTES", 16384, 1 << 29, 0)
    from firmware.display import color_offsets, led_share_ma, strip_map

    n = getattr(cfg, "LED_COUNT", 83)
    if isinstance(n, bool) or not isinstance(n, int) or n < 83 or n > 4096:
        out.append("LED_COUNT must be a whole number of at least 83 (81 matrix + 2 status LEDs), not %r" % (n,))
    try:
        strip_map(getattr(cfg, "MATRIX_LAYOUT", "serpentine"), getattr(cfg, "MATRIX_ORIGIN", "top-left"),
                  getattr(cfg, "MATRIX_ROTATION", 0), tuple(getattr(cfg, "STATUS_LEDS", (81, 82))))
    except (ValueError, TypeError) as e:
        out.append(str(e))
    try:
        color_offsets(getattr(cfg, "COLOR_ORDER", "GRB"))
    except ValueError as e:
        out.append(str(e))
    _range(out, cfg, "GAMMA", 1.0, 3.0, 2.2)
    _range(out, cfg, "BRIGHTNESS", 0.02, 1.0, 0.25)
    ok = _range(out, cfg, "CURRENT_BUDGET_MA", 100, 100000, 500)
    ok = _range(out, cfg, "MA_PER_CHANNEL", 1, 100, 20) and ok
    ok = _range(out, cfg, "IDLE_MA_PER_LED", 0, 10, 1) and ok
    ok = _range(out, cfg, "CONTROLLER_MA", 0, 10000, 100) and ok
    if ok and isinstance(n, int) and not isinstance(n, bool):
        try:
            led_share_ma(cfg)
        except ValueError as e:
            out.append(str(e))
    uses = []
    if not hasattr(cfg, "LED_PIN"):
        out.append("LED_PIN is missing (the pin wired to the LEDs' data input)")
    else:
        uses.append((cfg.LED_PIN, "LED_PIN"))
    if getattr(cfg, "BUZZER_PIN", None) is not None:
        uses.append((cfg.BUZZER_PIN, "BUZZER_PIN"))
    _pads(out, cfg, uses)
    seen = {}
    for pin, use in uses:
        if isinstance(pin, (list, tuple, dict)):
            out.append("%s must be one pin, not %r" % (use, pin))
            continue
        if chip is not None and (isinstance(pin, bool) or not isinstance(pin, int)):
            out.append("%s must be a GPIO number (such as 2 for %s), not %r" % (use, _label(cfg, 2), pin))
            continue
        if names is not None and chip is None and not isinstance(pin, str):
            out.append("%s = %r: name pins as in their board module, in quotes (such as %r)"
                       % (use, pin, names[0] if names else "D5"))
            continue
        why = board_pin_problem(cfg, pin)
        if why is not None and names is not None and chip is None and pin not in names:
            out.append("%s = %r: this board has no board.%s" % (use, pin, pin))
        elif why is not None:
            out.append("%s cannot be %s: %s" % (use, _label(cfg, pin), why))
        if pin in seen:
            out.append("%s is used by %s and %s" % (_label(cfg, pin), seen[pin], use))
        else:
            seen[pin] = use
    return out


def check(cfg):
    """Raise BoardError naming the file and every problem (one line) when the board file cannot work."""
    found = problems(cfg)
    if found:
        name = getattr(cfg, "__name__", "board_config")   # 'boards/pico.py' on a PC, 'board_config.py' on a device
        raise BoardError("%s.py cannot work: %s" % ("boards/" + name[7:] if name.startswith("boards.") else name,
                                                   "; ".join(found)))


def show_error(cfg, Pin, NeoPixel):
    """Draw the bad-board-file X in red on the LEDs, if the LED settings allow it at all (setup only; never raises)."""
    try:
        from firmware.display import color_offsets

        pin = cfg.LED_PIN
        if board_pin_problem(cfg, pin) is not None:
            return False
        n = getattr(cfg, "LED_COUNT", 83)
        if isinstance(n, bool) or not isinstance(n, int) or n < 83 or n > 4096:
            n = 83
        try:
            red = color_offsets(getattr(cfg, "COLOR_ORDER", "GRB"))[0]
        except ValueError:
            red = 1   # GRB, the WS2812B's own order
        np = NeoPixel(Pin(pin, Pin.OUT), n)
        buf = np.buf
        for i in range(len(buf)):
            buf[i] = 0
        for r in range(9):
            buf[(r * 9 + r) * 3 + red] = _ERROR_LEVEL
            buf[(r * 9 + 8 - r) * 3 + red] = _ERROR_LEVEL
        np.write()
        return True
    except Exception:  # the LEDs are only a hint: the reason is printed either way
        return False
