"""Hardware bundle on CircuitPython boards and a Raspberry Pi (Blinka): Adafruit's neopixel for the LEDs, keypad event queues for the pads, pwmio for the buzzer, supervisor ticks for the clock."""
# The engine and the firmware's logic are the same files as on MicroPython;
# only this layer (and code.py, which calls start()) differs. Every module of
# the board (board, digitalio, keypad, neopixel, pwmio, ...) is passed in, so
# the host tests run this file against the real Adafruit neopixel library and
# fakes of CircuitPython's built-in modules (tools/sim/circuitpython.py).
from engine._compat import const
from firmware.display import color_offsets
from firmware.keypad import DOWN, PAD_B, wiring

# supervisor.ticks_ms() counts milliseconds modulo 2**29 (CircuitPython docs:
# "wraps around every 2**29 ms, about 6.2 days"), so it stays a small int;
# MicroPython's time.ticks_* wrap at 2**30. The app only ever compares ticks
# through ticks_diff/ticks_add, so both work.
TICKS_PERIOD = const(0x20000000)
_TICKS_MASK = const(0x1FFFFFFF)
_TICKS_HALF = const(0x10000000)

# Keypad scanning by CircuitPython itself (background, every _SCAN_S): a level
# must hold for _SCAN_DEBOUNCE scans, 10-20 ms like firmware/keypad.py.
# debounce_threshold arrived in CircuitPython 9; older versions and Blinka's
# keypad lack it, and scan every 20 ms instead (one scan confirms).
_SCAN_S = 0.01
_SCAN_DEBOUNCE = const(2)
_SCAN_S_OLD = 0.02
_MAX_EVENTS = const(64)


class Clock:
    """MicroPython's time.ticks_* API over a millisecond counter that wraps at 2**29 (supervisor.ticks_ms on CircuitPython)."""

    def __init__(self, ticks_ms, sleep):
        self.ticks_ms = ticks_ms  # callable -> 0 .. 2**29 - 1 (called straight, no wrapper)
        self._sleep = sleep  # time.sleep (seconds)

    def ticks_add(self, t, delta):
        return (t + delta) & _TICKS_MASK

    def ticks_diff(self, a, b):
        # Signed distance a - b in (-2**28, 2**28]; every intermediate stays below 2**30 (small ints).
        return ((a - b + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF

    def sleep_ms(self, ms):
        if ms > 0:
            self._sleep(ms / 1000)  # one float per tick, outside the turn/frame/scan paths


def system_clock(time):
    """The board's clock: supervisor.ticks_ms on CircuitPython, time.monotonic_ns folded to 2**29 elsewhere (a Raspberry Pi)."""
    try:
        import supervisor  # type: ignore  # CircuitPython only

        return Clock(supervisor.ticks_ms, time.sleep)
    except (ImportError, AttributeError):
        mono = time.monotonic_ns

        def ticks_ms():
            return (mono() // 1000000) & _TICKS_MASK

        return Clock(ticks_ms, time.sleep)


def board_pin(board, name, what, reserved=None):
    """board.<name> for a pin named in the board config (a board-module name such as "D5"), or a one-line ValueError."""
    if not isinstance(name, str):
        raise ValueError("%s = %r: CircuitPython/Blinka boards name pins as in their board module, e.g. \"D5\"" % (what, name))
    if reserved and name in reserved:
        raise ValueError("%s = %r: reserved on this board: %s" % (what, name, reserved[name]))
    p = getattr(board, name, None)
    if p is None:
        raise ValueError("%s = %r: this board has no board.%s" % (what, name, name))
    return p


class _Slicer:
    def __getitem__(self, k):
        return k


class Strip:
    """NeoPixel-like `.buf` + `.write()` (what firmware/display.py writes) over Adafruit's neopixel.NeoPixel, one show() per frame.

    `buf` holds r, g, b per pixel (BUF_ORDER, which the display follows);
    Adafruit's object, made with pixel_order = the board's COLOR_ORDER, puts
    them on the wire in that order. The display has already applied gamma,
    brightness and the power cap, so the object runs at brightness 1.0 (a
    second scaling would square the brightness, and the cap must see the
    bytes that really go out).
    """

    BUF_ORDER = "RGB"

    def __init__(self, pixels):
        self.px = pixels
        self.n = len(pixels)
        self.buf = bytearray(self.n * 3)
        self.whole = _Slicer()[0:self.n]  # made once: a slice object per frame would be an allocation
        self.flat = _takes_flat(pixels)

    def write(self):
        px = self.px
        buf = self.buf
        if self.flat:
            # CircuitPython's C PixelBuf: one slice store takes n * 3 flat values (r, g, b, r, ...),
            # iterated with a stack iterator into a static tuple (shared-module/adafruit_pixelbuf/
            # PixelBuf.c set_pixels): no allocation, no Python loop.
            px[self.whole] = buf
        else:
            # Blinka's pure-Python adafruit_pixelbuf reads each item as a colour: one small int per pixel.
            # A Python loop with a call per pixel costs many times the flat store above, which is why
            # that one is used wherever the library has it (a Pi's CPU does not notice either).
            j = 0
            for i in range(self.n):
                px[i] = (buf[j] << 16) | (buf[j + 1] << 8) | buf[j + 2]
                j += 3
        px.show()


def _takes_flat(px):
    # CircuitPython's PixelBuf accepts n * bpp flat values for an n-pixel slice; the Python
    # adafruit_pixelbuf takes each value as one 0xRRGGBB colour (pixel 0 would read (0, 0, 1)).
    try:
        px[_Slicer()[0:1]] = bytes((1, 2, 3))
        flat = tuple(px[0])[:3] == (1, 2, 3)
    except (ValueError, TypeError):
        flat = False
    px[0] = 0
    return flat


class Buzzer:
    """machine.PWM-like freq()/duty_u16()/deinit() (contract 3) over pwmio.PWMOut(variable_frequency=True)."""

    def __init__(self, pwm):
        self.pwm = pwm

    def freq(self, hz=None):
        if hz is None:
            return self.pwm.frequency
        self.pwm.frequency = hz

    def duty_u16(self, d=None):
        if d is None:
            return self.pwm.duty_cycle
        self.pwm.duty_cycle = d

    def deinit(self):
        self.pwm.deinit()


class EventPad:
    """The firmware's pad interface (`keys`, `scan(ring)`, `held(ch)`) over a keypad.KeyMatrix / keypad.Keys event queue.

    CircuitPython scans and debounces in the background; scan() only moves
    the queued events into the firmware's ring (get_into: no allocation).
    Key numbers are row * columns + column, the same row-major order as
    `keys`. `held_now` is the state read straight from the pins before the
    scanner existed: CircuitPython 9 reports no press for a key already down
    when the scanner starts, and safe boot / boot-time holds need it.
    """

    def __init__(self, scanner, event, keys, pad_bit, held_now=None):
        self.scanner = scanner
        self.events = scanner.events
        self.ev = event  # one keypad.Event, reused by get_into
        self.keys = keys
        self.pad_bit = pad_bit
        self.n = len(keys)
        self.stable = bytearray(held_now) if held_now is not None else bytearray(self.n)
        self.overflows = 0  # times CircuitPython's queue filled up (tests check it stays 0)

    def index(self, ch):
        return self.keys.find(ch)

    def scan(self, ring):
        # Idle (no event queued) this is one call of CircuitPython's get_into, which is C: the scan
        # itself runs in the background, so a tick pays almost nothing for the pads.
        q = self.events
        ev = self.ev
        st = self.stable
        pb = self.pad_bit
        n = self.n
        while q.get_into(ev):
            k = ev.key_number
            if k >= n:
                continue
            if ev.pressed:
                if not st[k]:
                    st[k] = 1
                    ring.put(pb | DOWN | k)
            elif st[k]:
                st[k] = 0
                ring.put(pb | k)
        if q.overflowed:
            self.overflows += 1
            q.clear()

    def held(self, ch):
        k = self.keys.find(ch)
        return k >= 0 and self.stable[k] == 1


def read_keys(kind, spec, board, digitalio, what="PAD_A", reserved=None):
    """Which keys of one pad are down right now, read straight from the pins with digitalio (boot.py, and before the scanner starts).

    Like keypad.KeyMatrix, only the row being read is driven (low); the
    others stay inputs, so two keys in one column never short two outputs.
    Returns a bytearray, 1 = down, in the order of the pad's keys.
    """
    rows, cols, keys = wiring(kind, spec)
    pull = digitalio.Pull.UP
    col_io = []
    row_io = []
    try:
        for c in cols:
            d = digitalio.DigitalInOut(board_pin(board, c, what, reserved))
            d.switch_to_input(pull=pull)
            col_io.append(d)
        down = bytearray(len(keys))
        if rows is None:
            for k in range(len(cols)):
                down[k] = 0 if col_io[k].value else 1
            return down
        for r in rows:
            d = digitalio.DigitalInOut(board_pin(board, r, what, reserved))
            d.switch_to_input(pull=pull)
            row_io.append(d)
        nc = len(cols)
        for r in range(len(rows)):
            row_io[r].switch_to_output(value=False)
            for c in range(nc):
                down[r * nc + c] = 0 if col_io[c].value else 1
            row_io[r].switch_to_input(pull=pull)
        return down
    finally:
        for d in row_io + col_io:
            d.deinit()


def key_held_at_boot(cfg, board, digitalio, ch, pad="PAD_A"):
    """True if key `ch` of the pad is down now, read straight from the pins (boot.py runs before any scanner exists)."""
    kind = getattr(cfg, pad + "_TYPE", getattr(cfg, "KEYPAD_TYPE", "matrix3x4"))
    spec = getattr(cfg, pad)
    _, _, keys = wiring(kind, spec)
    k = keys.find(ch)
    return k >= 0 and read_keys(kind, spec, board, digitalio, pad, getattr(cfg, "RESERVED_PINS", None))[k] == 1


WRITE_KEY = "5"  # held on pad A at reset: boot.py lets the game write to CIRCUITPY (* and # are taken: firmware/launcher.py)


def boot(cfg, board, digitalio, storage):
    """boot.py's body: with WRITE_KEY held on pad A, remount CIRCUITPY writable for the game (the computer then sees it read-only).

    Returns True if remounted. Never raises: a wrong pin must not stop CircuitPython from booting
    (the drive has to stay reachable to fix it); the reason goes to boot_out.txt.
    """
    try:
        if key_held_at_boot(cfg, board, digitalio, WRITE_KEY):
            storage.remount("/", readonly=False)
            print("boot.py: %s held on pad A: the game may save to CIRCUITPY; the computer sees it read-only until the next reset" % (WRITE_KEY,))
            return True
        print("boot.py: CIRCUITPY stays writable by the computer (hold %s on pad A at reset to let the game save)" % (WRITE_KEY,))
    except Exception as e:
        print("boot.py: %s" % (e,))
    return False


def _scanner(keypad, rows, cols):
    # Rows are driven low one at a time, columns pulled up: columns_to_anodes=True
    # (no diodes on a membrane or phone keypad, so the orientation is ours to pick).
    try:
        if rows is None:
            return keypad.Keys(cols, value_when_pressed=False, pull=True, interval=_SCAN_S,
                               max_events=_MAX_EVENTS, debounce_threshold=_SCAN_DEBOUNCE)
        return keypad.KeyMatrix(rows, cols, columns_to_anodes=True, interval=_SCAN_S,
                                max_events=_MAX_EVENTS, debounce_threshold=_SCAN_DEBOUNCE)
    except TypeError:  # CircuitPython 8, Blinka: no debounce_threshold
        if rows is None:
            return keypad.Keys(cols, value_when_pressed=False, pull=True, interval=_SCAN_S_OLD, max_events=_MAX_EVENTS)
        return keypad.KeyMatrix(rows, cols, columns_to_anodes=True, interval=_SCAN_S_OLD, max_events=_MAX_EVENTS)


def make_pad(kind, spec, board, digitalio, keypad, pad_bit, what, reserved=None):
    """One pad: its keys read once from the pins, then a keypad scanner wrapped in EventPad."""
    rows, cols, keys = wiring(kind, spec)
    held_now = read_keys(kind, spec, board, digitalio, what, reserved)
    col_pins = [board_pin(board, c, what, reserved) for c in cols]
    row_pins = None if rows is None else [board_pin(board, r, what, reserved) for r in rows]
    return EventPad(_scanner(keypad, row_pins, col_pins), keypad.Event(), keys, pad_bit, held_now)


def build(cfg, board, digitalio, keypad, neopixel, clock, pwmio=None, entropy=None):
    """The Hardware bundle (firmware/hw.py) for a CircuitPython or Blinka board: every module is passed in, nothing is made at import.

    `entropy` defaults to os.urandom (a test or the simulator passes a seeded one).
    """
    from firmware.hw import Hardware, BUZZER_IDLE_HZ, led_count, os_entropy

    n = led_count(cfg)
    order = getattr(cfg, "COLOR_ORDER", "GRB")
    color_offsets(order)  # a bad order is refused before any pin is claimed
    reserved = getattr(cfg, "RESERVED_PINS", None)
    kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    pad_a = make_pad(getattr(cfg, "PAD_A_TYPE", kind), cfg.PAD_A, board, digitalio, keypad, 0, "PAD_A", reserved)
    pad_b = make_pad(getattr(cfg, "PAD_B_TYPE", kind), cfg.PAD_B, board, digitalio, keypad, PAD_B, "PAD_B", reserved)
    px = neopixel.NeoPixel(board_pin(board, cfg.LED_PIN, "LED_PIN", reserved), n, bpp=3, brightness=1.0,
                           auto_write=False, pixel_order=order)
    strip = Strip(px)
    buzzer = None
    bz = getattr(cfg, "BUZZER_PIN", None)
    if bz is not None and pwmio is not None:
        buzzer = Buzzer(pwmio.PWMOut(board_pin(board, bz, "BUZZER_PIN", reserved), frequency=BUZZER_IDLE_HZ,
                                     duty_cycle=0, variable_frequency=True))
    return Hardware(strip, (pad_a, pad_b), buzzer, clock, entropy if entropy is not None else os_entropy())


def writable(directory, storage=None):
    """True if the game may write to `directory`. CIRCUITPY is read-only to code while a computer can write to it (unless boot.py remounted it)."""
    if storage is not None:
        try:
            return not storage.getmount(directory).readonly
        except (OSError, ValueError, AttributeError):
            pass
    # A Raspberry Pi (no storage module): try it.
    import os

    probe = directory.rstrip("/") + "/.wts-probe"
    try:
        with open(probe, "w") as f:
            f.write("ok")
        os.remove(probe)
        return True
    except OSError:
        return False


def sign(hw, cfg, colour, ms):
    """Both status LEDs in one palette colour for `ms`, then dark (a boot-time message without a screen)."""
    from firmware.display import Display, STATUS_A, STATUS_B

    d = Display(hw.np, cfg)
    d.set_brightness(0.05)
    d.put(STATUS_A, colour << 4 | 15)
    d.put(STATUS_B, colour << 4 | 15)
    d.show()
    hw.clock.sleep_ms(ms)
    from firmware.launcher import blank

    blank(hw)


READ_ONLY_MS = 1500  # the amber "scores will not be saved" sign at boot


def _sigterm_is_ctrl_c():
    # systemd stops the Raspberry Pi service with SIGTERM: make it a KeyboardInterrupt,
    # so the LEDs are blanked on the way out like after Ctrl-C. CircuitPython has no signal module.
    try:
        import signal  # type: ignore
    except ImportError:
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def start(cfg, stop=None, modules=None):
    """code.py's body: import the board's modules, build the hardware, say whether scores can be saved, run the game; LEDs off on every way out.

    `modules` ({"board": ..., ...}) replaces the imports (host tests). Returns the launcher's result, "stopped" or "error".
    """
    m = modules if modules is not None else _import_modules()
    name = getattr(cfg, "NAME", "?")
    try:
        from firmware.hw import urandom_entropy

        hw = build(cfg, m["board"], m["digitalio"], m["keypad"], m["neopixel"], m.get("clock") or system_clock(m["time"]),
                   m.get("pwmio"), urandom_entropy(m["os"].urandom))
    except Exception as e:  # a missing pin, a wrong field, a pin in use: say so, keep the REPL
        print("cannot start: %s (copy the files again with: python -m tools.deploy --board %s)" % (e, name))
        return "error"
    store = getattr(cfg, "STORAGE_DIR", "/")
    from firmware.launcher import launch
    from firmware.display import AMBER

    try:
        if not writable(store, m.get("storage")):
            if m.get("storage") is not None:  # CircuitPython: CIRCUITPY belongs to the computer until boot.py says otherwise
                why = "hold %s on pad A while resetting to let the game write" % (WRITE_KEY,)
            else:
                why = "make %s a directory the game may write to (the service's StateDirectory)" % (store,)
            print("%s is read-only to the game: it plays, but settings and scores are not saved (%s)" % (store, why))
            sign(hw, cfg, AMBER, READ_ONLY_MS)
        _sigterm_is_ctrl_c()
        return launch(cfg, hw, store_dir=store, stop=stop)
    except KeyboardInterrupt:
        print("stopped")
        return "stopped"
    finally:
        from firmware.launcher import blank

        blank(hw)  # the launcher blanks too; this also covers a Ctrl-C during the read-only sign


def _import_modules():
    # The one place that imports the board's hardware modules (CircuitPython built-ins, or Blinka on a Pi).
    import board  # type: ignore
    import digitalio  # type: ignore
    import keypad  # type: ignore
    import neopixel  # type: ignore  # Adafruit's library: lib/neopixel.py on CIRCUITPY, pip on a Pi
    import os
    import time

    m = {"board": board, "digitalio": digitalio, "keypad": keypad, "neopixel": neopixel, "os": os, "time": time}
    try:
        import pwmio  # type: ignore

        m["pwmio"] = pwmio
    except (ImportError, NotImplementedError, RuntimeError):  # Blinka without its PWM package: no buzzer
        pass
    try:
        import storage  # type: ignore  # CircuitPython only

        m["storage"] = storage
    except ImportError:
        pass
    return m
