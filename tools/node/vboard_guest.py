"""Virtual-board boot code run inside the MicroPython webassembly port by vboard.mjs: fake machine/neopixel/time, errno-mapped os."""
# Runs once per (re)boot, before boot.py/main.py and before the REPL starts.
# It is never written to the guest filesystem: it builds modules and puts
# them in sys.modules. `_vb` is the JS module registered by vboard.mjs.
# Hot paths (Pin.value, NeoPixel.write, sleep_ms) must not allocate: this
# port's GC only runs between top-level calls, so garbage made inside a
# firmware's endless loop is never reclaimed.
import sys
import builtins
import gc
import _vb
import uctypes
import time as _rtime


def _source(path, name):
    # A project file run as a private module (never on the guest's filesystem,
    # so deploy sees a clean board): firmware/keypad.py is the one home of the
    # key layouts, firmware/boardcheck.py of the pin tables. MicroPython folds
    # const() for `from micropython import const` exactly as through _compat.
    ns = {"__name__": name}
    exec(_vb.source(path).replace("from engine._compat import const", "from micropython import const"), ns)
    return ns


_keypad = _source("firmware/keypad.py", "_vb_keypad")
_chips = _source("firmware/boardcheck.py", "_vb_chips")


# ---- heap ceiling ----------------------------------------------------------
# This port's heap grows instead of raising MemoryError, and frees garbage
# only between top-level calls. So the ceiling is kept here: heap in use
# beyond what it was just after boot, checked at every sleep and strip write,
# against the board's HEAP_BYTES (a Pico: 241,952 B free after boot). Garbage
# made inside one call counts too (it is never freed there), so this is a
# pessimistic bound: a firmware that passes here fits the device.
_heap = [0, 0, 0]  # [ceiling (0 = none), in use at boot, peak beyond it]


def _board():
    # /board_config as the board has it, or None (missing or broken: only main.py should trip over that).
    # Taken back out of sys.modules unless something else imported it: the guest's look must not change
    # what `import board_config` gives a program later (a new board file copied without a reset).
    # Read once per boot (vboard.mjs reboots the guest on every reset).
    if _cfgc[0]:
        return _cfgc[1]
    had = "board_config" in sys.modules
    try:
        import board_config
    except Exception:
        return None
    if not had:
        del sys.modules["board_config"]
    _cfgc[0] = True
    _cfgc[1] = board_config
    return board_config


_cfgc = [False, None]


def _vb_rebase():
    # Called by vboard.mjs right after boot, at the start of a call (the port has just collected).
    cfg = _board()
    _heap[0] = (getattr(cfg, "HEAP_BYTES", 0) or 0) if cfg is not None else 0
    gc.collect()
    _heap[1] = gc.mem_alloc()
    _heap[2] = 0
    if _vb.heap_limit() >= 0:
        _heap[0] = _vb.heap_limit()


def _heap_check():
    a = gc.mem_alloc() - _heap[1]
    if a > _heap[2]:
        _heap[2] = a
        _vb.heap_peak(a)
    c = _heap[0]
    if c and a > c:
        _heap[0] = 0  # once: the handler may need heap itself
        raise MemoryError("virtual board heap ceiling: %d bytes in use beyond boot, the board has %d" % (a, c))


def _module(name, ns):
    # MicroPython cannot instantiate a module object directly, so a class
    # namespace stands in; `import name` returns it from sys.modules.
    m = type(name, (), ns)
    sys.modules[name] = m
    return m


# ---- time: the real functions, but interruptible, CPU-friendly sleeps ------
def sleep_ms(ms):
    _heap_check()
    _vb.sleep_ms(int(ms))


def sleep_us(us):
    # App.run()'s microsecond tick grid sleeps the last < 1 ms of each wait with this: the
    # same heap check as sleep_ms, and the nearest whole ms (the JS side sleeps in ms).
    _heap_check()
    _vb.sleep_ms((int(us) + 500) // 1000)


def sleep(s):
    _vb.sleep_ms(int(s * 1000))


_time_ns = {}
for _k in dir(_rtime):
    if not _k.startswith("__"):
        _time_ns[_k] = staticmethod(getattr(_rtime, _k)) if callable(getattr(_rtime, _k)) else getattr(_rtime, _k)
_time_ns["sleep_ms"] = staticmethod(sleep_ms)
_time_ns["sleep_us"] = staticmethod(sleep_us)
_time_ns["sleep"] = staticmethod(sleep)
_module("time", _time_ns)
sys.modules["utime"] = sys.modules["time"]


# ---- machine.Pin with pin-accurate keypads -----------------------------------
_levels = bytearray(256)   # output level per pin id (ints 0..255)
_low_rows = {}             # column pin -> tuple of row pins whose key is pressed
_grounded = {}             # direct-button pin -> 1 while pressed
_state = [-1, None]        # [key generation seen, key map built from board_config]
_NONE = ()


def _keymap():
    # char -> (row pin or None, column pin), per pad, from /board_config.py through firmware/keypad.py's contacts()
    cfg = _board()
    if cfg is None:
        return ({}, {})
    default_kind = getattr(cfg, "KEYPAD_TYPE", "matrix3x4")
    maps = []
    for pad in ("A", "B"):
        spec = getattr(cfg, "PAD_" + pad, None)
        kind = getattr(cfg, "PAD_%s_TYPE" % pad, default_kind)
        maps.append({} if spec is None else _keypad["contacts"](kind, spec))
    return maps


def _refresh(gen):
    # Only runs when the host pressed/released something: allocation is fine.
    if _state[1] is None:
        _state[1] = _keymap()
    maps = _state[1]
    _low_rows.clear()
    _grounded.clear()
    pressed = _vb.pressed()  # e.g. "A5B#": pad letter + key char pairs
    rows_for = {}
    for i in range(0, len(pressed) - 1, 2):
        pad = 0 if pressed[i] == "A" else 1
        contact = maps[pad].get(pressed[i + 1]) if pad < len(maps) else None
        if contact is None:
            continue
        rp, cp = contact
        if rp is None:
            _grounded[cp] = 1
        else:
            rows_for.setdefault(cp, []).append(rp)
    for cp in rows_for:
        _low_rows[cp] = tuple(rows_for[cp])
    _state[0] = gen


def _pin_problem(pin):
    # The board file's chip and reserved pins (firmware/boardcheck.py), as the host fakes check them.
    cfg = _board()
    if cfg is None:
        return None
    try:
        return _chips["board_pin_problem"](cfg, pin)
    except ValueError:
        return None  # a CHIP the table does not know: not checked


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        if not isinstance(id, int) or not 0 <= id < 256:
            raise ValueError("invalid pin")
        why = _pin_problem(id)
        if why is not None:
            raise ValueError("invalid pin %d: %s" % (id, why))
        self.id = id
        self.mode = 0
        self.pull = None
        self.init(mode, pull, value=value)

    def init(self, mode=-1, pull=-1, *, value=None, drive=None, alt=None):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            _levels[self.id] = 1 if value else 0

    def value(self, v=None):
        i = self.id
        if v is not None:
            _levels[i] = 1 if v else 0
            return None
        if self.mode == 1:
            return _levels[i]
        gen = _vb.keys()  # also counts reads and delivers Ctrl-C
        if gen != _state[0]:
            _refresh(gen)
        if _grounded.get(i, 0):
            return 0
        for rp in _low_rows.get(i, _NONE):
            if _levels[rp] == 0:
                return 0
        return 1 if self.pull == 1 else 0

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        _levels[self.id] = 1

    def off(self):
        _levels[self.id] = 0

    def high(self):
        _levels[self.id] = 1

    def low(self):
        _levels[self.id] = 0

    def toggle(self):
        _levels[self.id] ^= 1

    def irq(self, handler=None, trigger=12, hard=False):
        return None  # edges are never delivered: the firmware polls

    def __repr__(self):
        return "Pin(%d)" % self.id


class Timer:
    """Accepted but inert: callbacks never fire (the firmware keeps time by polling)."""
    ONE_SHOT = 0
    PERIODIC = 1

    def __init__(self, id=-1, **kw):
        pass

    def init(self, **kw):
        pass

    def deinit(self):
        pass


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0, **kw):
        self.pin = pin
        self._f = freq
        self._d = duty_u16

    def freq(self, f=None):
        if f is None:
            return self._f
        self._f = f

    def duty_u16(self, d=None):
        if d is None:
            return self._d
        self._d = d

    def deinit(self):
        pass


def reset():
    _vb.request_reset(1)
    raise SystemExit  # never returns on a board; the host reboots us now


def soft_reset():
    _vb.request_reset(2)
    raise SystemExit


def freq(f=None):
    return 125000000


def unique_id():
    return b"vboard01"


def reset_cause():
    return 1  # PWRON_RESET


def idle():
    _vb.sleep_ms(0)


def disable_irq():
    return 0


def enable_irq(state=0):
    pass


_module("machine", {
    "Pin": Pin, "Timer": Timer, "PWM": PWM, "reset": staticmethod(reset),
    "soft_reset": staticmethod(soft_reset), "freq": staticmethod(freq),
    "unique_id": staticmethod(unique_id), "reset_cause": staticmethod(reset_cause),
    "idle": staticmethod(idle), "disable_irq": staticmethod(disable_irq),
    "enable_irq": staticmethod(enable_irq), "PWRON_RESET": 1, "SOFT_RESET": 5,
})


# ---- neopixel: the host fakes' strip (tools/sim/fakehw.py), written to JS ----
_fakehw = _source("tools/sim/fakehw.py", "_vb_fakehw")


class NeoPixel(_fakehw["FakeNeoPixel"]):
    """tools/sim/fakehw.py's FakeNeoPixel (micropython-lib's API, GRB wire-order buffer); write() hands the frame to the host."""

    def __init__(self, pin, n, bpp=3, timing=1):
        super().__init__(pin, n, bpp, timing)
        pid = pin.id if isinstance(pin, Pin) else int(pin)
        # JS reads the frame straight out of wasm memory at write() time.
        self._h = _vb.np_new(uctypes.addressof(self.buf), n * bpp, pid, bpp)

    def write(self):
        _heap_check()
        self.writes += 1
        _vb.np_write(self._h)


_module("neopixel", {"NeoPixel": NeoPixel})


# ---- os/open: emscripten errno numbers -> MicroPython's (mpremote reads them)
_EMAP = {63: 1, 44: 2, 29: 5, 8: 9, 2: 13, 10: 16, 20: 17, 54: 20, 31: 21, 28: 22,
         22: 27, 51: 28, 69: 30, 55: 39, 52: 38, 138: 95}
_HIDDEN = ("dev", "proc")  # emscripten's own dirs: a board's root has none


def _mapped(f):
    def w(*a, **k):
        try:
            return f(*a, **k)
        except OSError as e:
            n = e.args[0] if e.args else 0
            if isinstance(n, int) and n in _EMAP:
                raise OSError(_EMAP[n])
            raise
    return w


def _at_root(a):
    import os
    p = a[0] if a else ""
    return p == "/" or ((p == "" or p == ".") and os.getcwd() == "/")


import os as _os

_real_listdir = _mapped(_os.listdir)
_real_ilistdir = _mapped(_os.ilistdir)


def _listdir(*a):
    names = _real_listdir(*a)
    if _at_root(a):
        names = [n for n in names if n not in _HIDDEN]
    return names


def _ilistdir(*a):
    # This port gives (name, type, inode) only; mpremote's `fs ls` shows the
    # 4th field (size), so add it as a board's VFS does.
    root = _at_root(a)
    base = a[0] if a and a[0] else ""
    for e in _real_ilistdir(*a):
        if root and e[0] in _HIDDEN:
            continue
        if len(e) < 4:
            size = 0
            if e[1] == 0x8000:
                p = e[0] if not base else (base.rstrip("/") + "/" + e[0])
                size = _os.stat(p)[6]
            e = (e[0], e[1], e[2] if len(e) > 2 else 0, size)
        yield e


for _k in ("stat", "mkdir", "rmdir", "remove", "unlink", "rename", "chdir", "statvfs"):
    if hasattr(_os, _k):
        setattr(_os, _k, _mapped(getattr(_os, _k)))
_os.listdir = _listdir
_os.ilistdir = _ilistdir
_real_statvfs = _os.statvfs


def _statvfs(*a):
    # With --fs-size, report that flash (4 KiB blocks, like littlefs on a Pico).
    total = _vb.fs_total()
    if total < 0:
        return _real_statvfs(*a)
    free = _vb.fs_free()
    return (4096, 4096, total // 4096, free // 4096, free // 4096, 0, 0, 0, 0, 255)


_os.statvfs = _statvfs
builtins.open = _mapped(builtins.open)


def _urandom(n):
    # Every board port has os.urandom (the firmware seeds its bots from it); this port does not.
    # JS hands over the bytes as a hex string: a JsProxy of a typed array is not bytes.
    from binascii import unhexlify

    return unhexlify(_vb.urandom(int(n)))


if not hasattr(_os, "urandom"):
    _os.urandom = _urandom

del _k, _time_ns
