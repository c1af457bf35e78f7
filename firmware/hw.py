"""Builds the device's hardware bundle (pads, LED strip, buzzer, clock, entropy) from a board config and the classes passed in."""
from firmware.keypad import make_keypad, PAD_B

BUZZER_IDLE_HZ = 2000  # the PWM is made at this frequency with duty 0 (silent) until a sound plays


class Hardware:
    """Everything the app touches: `np` (NeoPixel-like: .buf, .write()), `pads` (Keypad A, B),
    `buzzer` (machine.PWM-like: freq(hz), duty_u16(d), deinit(); or None), `clock`
    (ticks_ms/ticks_diff/ticks_add/sleep_ms) and `entropy` (a callable returning a fresh
    small int 0 <= x < 2**30: the computer players are reseeded from it every game).
    `thinker`: a firmware.thinker.Thinker where the computer's search runs on another core
    (main.py sets it on the RP2040), else None."""

    def __init__(self, np, pads, buzzer, clock, entropy=None):
        self.np = np
        self.pads = pads
        self.buzzer = buzzer
        self.clock = clock
        self.entropy = entropy
        self.thinker = None


def urandom_entropy(urandom):
    """An entropy source from os.urandom: 30 random bits per call (allocates one 4-byte bytes: once per game)."""

    def entropy():
        b = urandom(4)
        return ((b[0] & 0x3F) << 24) | (b[1] << 16) | (b[2] << 8) | b[3]

    return entropy


def check_board(cfg, Pin=None, NeoPixel=None):
    """firmware/boardcheck.py's check of the whole board file (boardcheck.BoardError, a ValueError, naming every
    problem). With Pin and NeoPixel a bad file also gets the red X on the LEDs. On MicroPython the checker (and
    its chip tables) is dropped from memory afterwards: it runs once, at boot."""
    from firmware import boardcheck

    try:
        try:
            boardcheck.check(cfg)
        except boardcheck.BoardError:
            if Pin is not None and NeoPixel is not None:
                boardcheck.show_error(cfg, Pin, NeoPixel)
            raise
    finally:
        forget("boardcheck")


def forget(name):
    """On MicroPython, drop firmware.<name>, code that runs once at boot, from memory (its module and the
    package's attribute); CPython tools keep it (one BoardError class)."""
    import sys

    if sys.implementation.name == "micropython":
        sys.modules.pop("firmware." + name, None)
        import firmware

        if name in firmware.__dict__:
            del firmware.__dict__[name]


def led_count(cfg):
    """The strip length, after the board-file check every hardware layer runs (a BoardError naming each problem)."""
    check_board(cfg)
    return getattr(cfg, "LED_COUNT", 83)


def os_entropy():
    """The device's entropy: os.urandom, as every hardware layer uses unless a test passes a seeded one."""
    import os

    return urandom_entropy(os.urandom)


def build(cfg, Pin, NeoPixel, clock, PWM=None, entropy=None):
    """Create pins, strip and buzzer as `cfg` says. `Pin`/`NeoPixel`/`PWM` are machine.Pin/neopixel.NeoPixel/
    machine.PWM on a device, fakes on a PC (no PWM: no buzzer); `clock` is the time module on a device.
    `entropy` defaults to os.urandom (a test or the simulator passes a seeded one)."""
    check_board(cfg, Pin, NeoPixel)
    n = getattr(cfg, "LED_COUNT", 83)
    np = NeoPixel(Pin(cfg.LED_PIN, Pin.OUT), n)
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    pad_a = make_keypad(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A, Pin, 0)
    pad_b = make_keypad(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B, Pin, PAD_B)
    bz = getattr(cfg, "BUZZER_PIN", None)
    buzzer = None
    if bz is not None and PWM is not None:
        buzzer = PWM(Pin(bz, Pin.OUT, value=0), freq=BUZZER_IDLE_HZ, duty_u16=0)
    return Hardware(np, (pad_a, pad_b), buzzer, clock, entropy if entropy is not None else os_entropy())
