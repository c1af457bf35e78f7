"""Builds the device's hardware bundle (pads, LED strip, buzzer, clock) from a board config and the Pin/NeoPixel classes passed in."""
from firmware.keypad import make_keypad, PAD_B


class Hardware:
    """Everything the app touches: `np` (NeoPixel-like: .buf, .write()), `pads` (Keypad A, B), `buzzer` (Pin or None), `clock`."""

    def __init__(self, np, pads, buzzer, clock):
        self.np = np
        self.pads = pads
        self.buzzer = buzzer
        self.clock = clock


def build(cfg, Pin, NeoPixel, clock):
    """Create pins and the strip as `cfg` says. `Pin`/`NeoPixel` are machine.Pin/neopixel.NeoPixel on a device, fakes on a PC;
    `clock` is anything with ticks_ms/ticks_diff/ticks_add/sleep_ms (the time module on a device)."""
    for name in ("LED_PIN", "PAD_A", "PAD_B"):
        if not hasattr(cfg, name):
            raise ValueError("board config %s has no %s" % (getattr(cfg, "NAME", "?"), name))
    n = getattr(cfg, "LED_COUNT", 83)
    if n < 83:
        raise ValueError("LED_COUNT must be at least 83 (81 matrix + 2 status LEDs), not %r" % (n,))
    np = NeoPixel(Pin(cfg.LED_PIN, Pin.OUT), n)
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    pad_a = make_keypad(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A, Pin, 0)
    pad_b = make_keypad(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B, Pin, PAD_B)
    bz = getattr(cfg, "BUZZER_PIN", None)
    buzzer = None if bz is None else Pin(bz, Pin.OUT, value=0)
    return Hardware(np, (pad_a, pad_b), buzzer, clock)
