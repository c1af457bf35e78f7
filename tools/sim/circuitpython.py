"""Host fakes of CircuitPython's built-in modules (board, digitalio, keypad, pwmio, supervisor, storage, neopixel_write, microcontroller) over the virtual board, so the real Adafruit neopixel library and firmware/hw_circuitpython.py run on the PC."""
# Only what CircuitPython builds in is faked. Adafruit's neopixel.py and
# adafruit_pixelbuf.py are the real, pinned libraries (requirements-dev.txt):
# neopixel is imported afresh for each fake board with `board`, `digitalio`
# and `neopixel_write` pointing at that board's fakes, so every byte the
# library would clock out lands in FakeBoard.frame_written().
#
# The fakes are as strict as CircuitPython where the firmware could trip:
# pins that the board module does not have, a pin claimed twice ("in use"),
# a PWM frequency change without variable_frequency, a duty cycle out of
# range, remounting CIRCUITPY outside boot.py.
import sys
import types

from firmware.hw_circuitpython import TICKS_PERIOD
from tools.sim.fakehw import keep_last

_MASK = TICKS_PERIOD - 1  # supervisor.ticks_ms() wraps at TICKS_PERIOD (2**29)


class FakePinName:
    """A board.X object: only its name (what the board config says)."""

    def __init__(self, name):
        self.id = name

    def __repr__(self):
        return "board." + self.id


class FloatingRead(RuntimeError):
    """digitalio read a pin that nothing drives or pulls."""


class Runtime:
    """One fake CircuitPython board: its built-in modules, bound to a FakeBoard (pads, clock, frames), and the records tests read.

    `pwm` is the list of (t_ms, frequency, duty_cycle) after every PWM change, the latest
    PWM_KEPT (contract 3); `remounts` the storage.remount() calls; `claimed` the pins
    in use. `in_boot` is True while boot.py runs (only then may CIRCUITPY be
    remounted, as on CircuitPython).
    """

    PWM_KEPT = 2000   # as FakeBoard.TONES_KEPT: a few games back, a fixed size however long it runs

    def __init__(self, cfg, fake_board, readonly=True, seed=None):
        self.cfg = cfg
        self.fb = fake_board  # a tools.sim.fakehw.FakeBoard (passed in: tools/sim/vdevice.py builds Runtimes, so no import back)
        self.clock = self.fb.clock
        self.claimed = {}
        self.outputs = {}  # pin name -> level driven by a digitalio output
        self.pulls = {}  # pin name -> "up" / "down" for digitalio inputs
        self.pwm = []
        self.remounts = []
        self.readonly = readonly
        self.in_boot = False
        self.seed = seed
        self.writes = 0
        names = getattr(cfg, "BOARD_PINS", None)
        if names is None:
            raise ValueError("board config %s has no BOARD_PINS (the pin names of its CircuitPython/Blinka board module)" % (getattr(cfg, "NAME", "?"),))
        self.board = _module("board", dict((n, FakePinName(n)) for n in names))
        self.digitalio = _digitalio(self)
        self.keypad = _keypad(self)
        self.pwmio = _pwmio(self)
        self.supervisor = _module("supervisor", {"ticks_ms": self.ticks_ms})
        self.storage = _storage(self)
        self.time = _module("time", {"sleep": self.sleep, "monotonic": lambda: self.clock.now / 1000.0})
        self.os = _module("os", {"urandom": self.urandom})
        self.neopixel_write = _module("neopixel_write", {"neopixel_write": self._neopixel_write})
        self.microcontroller = _module("microcontroller", {"Pin": FakePinName})
        self._rng = None

    # -- time and entropy ------------------------------------------------------
    def ticks_ms(self):
        """supervisor.ticks_ms(): the virtual clock, offset so it wraps at 2**29 after `lead` ms."""
        return (self.clock.now - self.clock.lead) & _MASK

    def sleep(self, seconds):
        self.clock.sleep_ms(int(seconds * 1000 + 0.5))

    def urandom(self, n):
        """os.urandom: seeded (repeatable) when the runtime was given a seed, else the host's."""
        if self.seed is None:
            import os

            return os.urandom(n)
        if self._rng is None:
            import random

            self._rng = random.Random(self.seed)
        return bytes(self._rng.randrange(256) for _ in range(n))

    # -- pins ----------------------------------------------------------------
    def claim(self, pin, owner):
        if not isinstance(pin, FakePinName) or getattr(self.board, pin.id, None) is not pin:
            raise ValueError("%r is not a pin of this board's board module" % (pin,))
        if pin.id in self.claimed:
            raise ValueError("%s in use" % (pin.id,))  # CircuitPython's message
        self.claimed[pin.id] = owner

    def release(self, pin):
        self.claimed.pop(pin.id, None)
        self.outputs.pop(pin.id, None)
        self.pulls.pop(pin.id, None)

    def read(self, name):
        """Level of an input pin: low if a closed key joins it to a net driven low (a row output, GND), else its pull."""
        for pad in self.fb.pads:
            for key in pad.closed:
                row, col = pad.where[key]
                other = row if col == name else (col if row == name else None)
                if other is None:
                    continue
                if other == self.fb.GND or self.outputs.get(other) == 0:
                    return False
        pull = self.pulls.get(name)
        if pull is None:
            raise FloatingRead("%s read as an input with no pull and nothing driving it" % (name,))
        return pull == "up"

    def pressed_pairs(self):
        """{(row name or GND, column name)} of every closed contact now."""
        out = set()
        for pad in self.fb.pads:
            for key in pad.closed:
                out.add(pad.where[key])
        return out

    # -- LEDs -----------------------------------------------------------------
    def _neopixel_write(self, dio, buf):
        if not getattr(dio, "is_output", False):
            raise ValueError("neopixel_write: the pin is not an output")
        self.writes += 1
        self.fb.frame_written(buf)

    def neopixel(self):
        """The real Adafruit neopixel module, imported afresh with this board's board/digitalio/neopixel_write fakes."""
        saved = {}
        for name in ("board", "digitalio", "neopixel_write", "microcontroller", "neopixel"):
            saved[name] = sys.modules.pop(name, None)
        sys.modules["board"] = self.board
        sys.modules["digitalio"] = self.digitalio
        sys.modules["neopixel_write"] = self.neopixel_write
        sys.modules["microcontroller"] = self.microcontroller  # neopixel imports it for type hints only
        try:
            import neopixel  # noqa: F401  (Adafruit's, from requirements-dev.txt)

            mod = sys.modules["neopixel"]
        finally:
            for name, old in saved.items():
                if old is None:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = old
        return mod

    def modules(self):
        """What firmware.hw_circuitpython.start() imports on a device, as a dict (plus the clock it would make from supervisor)."""
        from firmware.hw_circuitpython import Clock

        return {"board": self.board, "digitalio": self.digitalio, "keypad": self.keypad, "neopixel": self.neopixel(),
                "pwmio": self.pwmio, "storage": self.storage, "time": self.time, "os": self.os,
                "supervisor": self.supervisor, "clock": Clock(self.ticks_ms, self.sleep)}

    def installed(self, blinka=False):
        """Context manager: these fakes (and a fresh neopixel) in sys.modules, for code.py and boot.py run as files.

        blinka=True is a Raspberry Pi: Blinka has no supervisor or storage module (time and the state directory are the OS's).
        """
        return _Installed(self, blinka)


class _Installed:
    NAMES = ("board", "digitalio", "keypad", "pwmio", "supervisor", "storage", "neopixel_write", "microcontroller", "neopixel")

    def __init__(self, rt, blinka):
        self.rt = rt
        self.blinka = blinka
        self.saved = {}

    def __enter__(self):
        np = self.rt.neopixel()
        for name in self.NAMES:
            self.saved[name] = sys.modules.pop(name, None)
        for name in self.NAMES[:-1]:
            if not (self.blinka and name in ("supervisor", "storage")):
                sys.modules[name] = getattr(self.rt, name)
        sys.modules["neopixel"] = np
        return self.rt

    def __exit__(self, *exc):
        for name, old in self.saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
        return False


def _module(name, attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


# -- digitalio ------------------------------------------------------------------


def _digitalio(rt):
    class Direction:
        INPUT = "INPUT"
        OUTPUT = "OUTPUT"

    class Pull:
        UP = "up"
        DOWN = "down"

    class DriveMode:
        PUSH_PULL = "PUSH_PULL"
        OPEN_DRAIN = "OPEN_DRAIN"

    class DigitalInOut:
        def __init__(self, pin):
            rt.claim(pin, self)
            self.pin = pin
            self.is_output = False
            self._deinited = False
            rt.pulls.pop(pin.id, None)

        def _check(self):
            if self._deinited:
                raise ValueError("Object has been deinitialized and can no longer be used. Create a new object.")

        def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
            self._check()
            self.is_output = True
            rt.pulls.pop(self.pin.id, None)
            rt.outputs[self.pin.id] = 1 if value else 0

        def switch_to_input(self, pull=None):
            self._check()
            self.is_output = False
            rt.outputs.pop(self.pin.id, None)
            if pull is None:
                rt.pulls.pop(self.pin.id, None)
            else:
                rt.pulls[self.pin.id] = pull

        @property
        def direction(self):
            return Direction.OUTPUT if self.is_output else Direction.INPUT

        @direction.setter
        def direction(self, d):
            if d == Direction.OUTPUT:
                self.switch_to_output()
            else:
                self.switch_to_input()

        @property
        def value(self):
            self._check()
            if self.is_output:
                return bool(rt.outputs[self.pin.id])
            return rt.read(self.pin.id)

        @value.setter
        def value(self, v):
            self._check()
            if not self.is_output:
                raise AttributeError("Cannot set value when direction is input.")
            rt.outputs[self.pin.id] = 1 if v else 0

        @property
        def pull(self):
            return rt.pulls.get(self.pin.id)

        @pull.setter
        def pull(self, p):
            if self.is_output:
                raise AttributeError("Pull not used when direction is output.")
            self.switch_to_input(pull=p)

        def deinit(self):
            if not self._deinited:
                self._deinited = True
                rt.release(self.pin)

    return _module("digitalio", {"Direction": Direction, "Pull": Pull, "DriveMode": DriveMode, "DigitalInOut": DigitalInOut})


# -- keypad ---------------------------------------------------------------------


def _keypad(rt):
    class Event:
        """keypad.Event: key_number, pressed/released, timestamp (supervisor ticks)."""

        def __init__(self, key_number=0, pressed=True, timestamp=None):
            self._key_number = key_number
            self._pressed = bool(pressed)
            self.timestamp = timestamp

        key_number = property(lambda self: self._key_number)
        pressed = property(lambda self: self._pressed)
        released = property(lambda self: not self._pressed)

        def __eq__(self, other):
            return self._key_number == other.key_number and self._pressed == other.pressed

        def __hash__(self):
            return self._key_number

        def __repr__(self):
            return "<Event: key_number %d %s>" % (self._key_number, "pressed" if self._pressed else "released")

    class EventQueue:
        """keypad.EventQueue: get(), get_into(event), clear(), len(), overflowed (a full queue drops the new event)."""

        def __init__(self, scanner, max_events):
            self._scanner = scanner
            self._max = max_events
            self._q = []
            self.overflowed = False

        def _record(self, k, pressed, t):
            if len(self._q) >= self._max:
                self.overflowed = True
                return
            self._q.append((k, pressed, t))

        def get(self):
            self._scanner._catch_up()
            if not self._q:
                return None
            k, p, t = self._q.pop(0)
            return Event(k, p, t)

        def get_into(self, event):
            self._scanner._catch_up()
            if not self._q:
                return False
            k, p, t = self._q.pop(0)
            event._key_number = k
            event._pressed = p
            event.timestamp = t
            return True

        def clear(self):
            self._q = []
            self.overflowed = False

        def __len__(self):
            self._scanner._catch_up()
            return len(self._q)

        def __bool__(self):
            return len(self) > 0

    class _Scanner:
        # CircuitPython scans in the background every `interval`; here the scans
        # that would have happened are run when the queue is looked at, each
        # with the contacts as they are then (the firmware looks every 10 ms).
        # Debouncing is CircuitPython 9's (shared-module/keypad/__init__.c):
        # a counter per key, an event when `debounce_threshold` scans agree;
        # counters start at 0, so a key already down at construction gives no
        # press event.
        def _setup(self, pins, key_count, interval, max_events, debounce_threshold):
            if not 1 <= debounce_threshold <= 127:
                raise ValueError("debounce_threshold must be 1-127")
            if max_events < 1:
                raise ValueError("max_events must be >= 1")
            for p in pins:
                rt.claim(p, self)
            self._pins = pins
            self.key_count = key_count
            self._interval = max(1, int(interval * 1000 + 0.5))
            self._threshold = debounce_threshold
            self._count = [0] * key_count
            self.events = EventQueue(self, max_events)
            self._next = rt.clock.now
            self._deinited = False
            self._catch_up()

        def _catch_up(self):
            if self._deinited:
                raise ValueError("Object has been deinitialized and can no longer be used. Create a new object.")
            while self._next <= rt.clock.now:
                self._scan(rt.ticks_ms())
                self._next += self._interval

        def _scan(self, t):
            down = self._down()
            th = self._threshold
            cnt = self._count
            for k in range(self.key_count):
                c = cnt[k]
                if k in down:
                    if c < th:
                        c += 1
                        if c == 0:
                            c = th
                            self.events._record(k, True, t)
                else:
                    if c > -th:
                        c -= 1
                        if c == 0:
                            c = -th
                            self.events._record(k, False, t)
                cnt[k] = c

        def reset(self):
            self._count = [-self._threshold] * self.key_count  # "all released": held keys report again
            self._next = rt.clock.now
            self._catch_up()

        def deinit(self):
            if not self._deinited:
                self._deinited = True
                for p in self._pins:
                    rt.release(p)

    class KeyMatrix(_Scanner):
        def __init__(self, row_pins, column_pins, columns_to_anodes=True, interval=0.020, max_events=64, debounce_threshold=1):
            self._rows = [p.id for p in row_pins]
            self._cols = [p.id for p in column_pins]
            self._anodes = columns_to_anodes
            self._setup(list(row_pins) + list(column_pins), len(self._rows) * len(self._cols), interval, max_events, debounce_threshold)

        def _down(self):
            # Only the scanned row is driven, so a closed key reads only on its own row and column.
            nc = len(self._cols)
            out = set()
            for row, col in rt.pressed_pairs():
                if row in self._rows and col in self._cols:
                    out.add(self._rows.index(row) * nc + self._cols.index(col))
            return out

    class Keys(_Scanner):
        def __init__(self, pins, *, value_when_pressed, pull=True, interval=0.020, max_events=64, debounce_threshold=1):
            if value_when_pressed or not pull:
                raise ValueError("the fake models buttons to GND with the internal pull-up only")
            self._names = [p.id for p in pins]
            self._setup(list(pins), len(self._names), interval, max_events, debounce_threshold)

        def _down(self):
            out = set()
            for row, col in rt.pressed_pairs():
                if row == rt.fb.GND and col in self._names:
                    out.add(self._names.index(col))
            return out

    return _module("keypad", {"Event": Event, "EventQueue": EventQueue, "KeyMatrix": KeyMatrix, "Keys": Keys})


# -- pwmio, storage -----------------------------------------------------------------


def _pwmio(rt):
    class PWMOut:
        """pwmio.PWMOut: frequency (writable only with variable_frequency=True), duty_cycle 0..65535; every change recorded in rt.pwm."""

        def __init__(self, pin, *, duty_cycle=0, frequency=500, variable_frequency=False):
            rt.claim(pin, self)
            self.pin = pin
            if not 0 <= duty_cycle <= 65535:
                raise ValueError("duty_cycle must be 0-65535")
            if frequency < 1:
                raise ValueError("Invalid PWM frequency")
            self._duty = duty_cycle
            self._freq = frequency
            self._variable = variable_frequency
            self._deinited = False
            self._log()

        def _log(self):
            keep_last(rt.pwm, (rt.clock.now, self._freq, self._duty), rt.PWM_KEPT)

        def _check(self):
            if self._deinited:
                raise ValueError("Object has been deinitialized and can no longer be used. Create a new object.")

        @property
        def frequency(self):
            return self._freq

        @frequency.setter
        def frequency(self, hz):
            self._check()
            if not self._variable:
                raise AttributeError("PWM frequency not writable when variable_frequency is False.")
            if not isinstance(hz, int) or hz < 1:
                raise ValueError("Invalid PWM frequency")
            if hz != self._freq:
                self._freq = hz
                self._log()

        @property
        def duty_cycle(self):
            return self._duty

        @duty_cycle.setter
        def duty_cycle(self, d):
            self._check()
            if not isinstance(d, int) or not 0 <= d <= 65535:
                raise ValueError("duty_cycle must be 0-65535")
            if d != self._duty:
                self._duty = d
                self._log()

        def deinit(self):
            if not self._deinited:
                self._deinited = True
                self._duty = 0
                self._log()
                rt.release(self.pin)

    return _module("pwmio", {"PWMOut": PWMOut})


def _storage(rt):
    class Mount:
        readonly = property(lambda self: rt.readonly)

    def getmount(path):
        if path != "/":
            raise OSError(2, "No such file/directory")  # only CIRCUITPY is mounted on a Feather
        return Mount()

    def remount(path, readonly=False, *, disable_concurrent_write_protection=False):
        if not rt.in_boot:
            raise RuntimeError("Cannot remount '/' when visible via USB.")
        rt.remounts.append((path, readonly))
        rt.readonly = readonly

    return _module("storage", {"getmount": getmount, "remount": remount})


# -- the simulator's hook --------------------------------------------------------


def hardware(cfg, fake_board, entropy=None):
    """(Runtime, Hardware) for a CircuitPython/Blinka board on a FakeBoard: firmware/hw_circuitpython.py over these fakes and the real neopixel.

    `entropy` is the simulator's seeded one (the same games as on the MicroPython boards), None for os.urandom.
    """
    from firmware import hw_circuitpython as cp
    from firmware.hw import urandom_entropy

    rt = Runtime(cfg, fake_board)
    clock = cp.Clock(rt.ticks_ms, rt.sleep)
    hw = cp.build(cfg, rt.board, rt.digitalio, rt.keypad, rt.neopixel(), clock, rt.pwmio,
                  entropy if entropy is not None else urandom_entropy(rt.urandom))
    return rt, hw
