"""The simulated device: the real firmware on a virtual board, under CPython or real MicroPython, driven key by key on a virtual clock."""
import os

import boards
from firmware.display import color_offsets, strip_map
from firmware.modes import MODE_NAMES
from tools.sim import guest, narrate
from tools.sim.keyscript import parse_script

# The simulator's --mode values: the firmware's own mode names (firmware/modes.py), in the order --help lists them.
MODES = ("2p", "easy", "medium", "hard", "demo", "attract", "tutorial", "menu", "keytest")
MODES = tuple(m for m in MODES if m in MODE_NAMES) + tuple(m for m in MODE_NAMES if m not in MODES)
RUNTIMES = ("cpython", "micropython", "rp2040")
NPIX = 83
SEED_LIMIT = 1 << 30     # seeds are small ints (< 2**30): a heap object on MicroPython otherwise


FRESH_SEEDS = 100000     # fresh seeds have at most 5 digits: easy to read off the screen and type back


def fresh_seed():
    """A seed from true entropy (os.urandom), so every launch plays a new game; --seed N reproduces one."""
    return int.from_bytes(os.urandom(4), "little") % FRESH_SEEDS


def _pad(pad):
    if pad in (0, "A", "a"):
        return 0
    if pad in (1, "B", "b"):
        return 1
    raise ValueError("pad must be 'A' or 'B' (or 0/1), not %r" % (pad,))


def decode(cfg, raw):
    """Wire bytes of one frame -> list of 83 (r, g, b) in strip order."""
    ri, gi, bi = color_offsets(getattr(cfg, "COLOR_ORDER", "GRB"))
    return [(raw[i + ri], raw[i + gi], raw[i + bi]) for i in range(0, NPIX * 3, 3)]


class Device:
    """One simulated device. Keys: press/release/tap/move; time: advance(ms) on the virtual clock.

    Frames: `frames` is a list of (t_ms, pixels) (if keep_frames), `on_frame(t, pixels)`
    is called for each; pixels are 83 (r, g, b) tuples in strip order (what the LEDs show,
    after gamma, brightness and the power cap). `cell_pixels(pixels)` reorders them.

    Words: `said` is a list of (t_ms, kind, sentence) from tools/sim/narrate.py (every
    turn, mode change and tutorial lesson), `on_say(t, kind, sentence)` is called for each.
    `seed=None` draws a fresh one from entropy (`seed` then says which, to replay it).
    """

    def __init__(self, board="pico", mode="2p", runtime="cpython", seed=None, store_dir=None, keep_frames=True, on_frame=None,
                 on_say=None):
        if runtime not in RUNTIMES:
            raise ValueError("unknown runtime %r; valid runtimes: %s" % (runtime, ", ".join(RUNTIMES)))
        if mode not in MODES:
            raise ValueError("unknown mode %r; valid modes: %s" % (mode, ", ".join(MODES)))
        self.cfg = boards.load(board)
        if runtime != "cpython" and boards.platform(self.cfg) in ("circuitpython", "linux"):
            raise ValueError("board %s runs CircuitPython/Blinka (tools/sim/circuitpython.py fakes its modules under CPython): "
                             "use --runtime cpython" % (board,))
        if seed is None:
            seed = fresh_seed()
        if not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
            raise ValueError("seed must be a whole number from 0 to %d, not %r" % (SEED_LIMIT - 1, seed))
        self.seed = seed
        self.board = board
        self.on_say = on_say
        self.said = []
        self.mode_now = mode
        self.mode = mode
        self.runtime = runtime
        self.keep_frames = keep_frames
        self.on_frame = on_frame
        self.frames = []
        self.last_pixels = [(0, 0, 0)] * NPIX
        self.t = 0
        self._map = strip_map(
            getattr(self.cfg, "MATRIX_LAYOUT", "serpentine"),
            getattr(self.cfg, "MATRIX_ORIGIN", "top-left"),
            getattr(self.cfg, "MATRIX_ROTATION", 0),
            getattr(self.cfg, "STATUS_LEDS", (81, 82)),
        )
        if runtime == "cpython":
            from tools.sim.vdevice import VirtualDevice

            self._dev = VirtualDevice(self.cfg, mode=mode, seed=seed, store_dir=store_dir, on_frame=self._raw_frame, keep_frames=False)
            narrate.watch(self._dev.app, lambda kind, text: self._say(self._dev.clock.now, kind, text))
        elif runtime == "rp2040":  # the exact firmware image on the emulated Pico (tools/rp2040)
            from tools.sim.rp2040 import Rp2040Device
            self._dev = Rp2040Device(board, mode, seed, store_dir, self._raw_frame, self._say)
        else:
            self._dev = UpyDevice(board, mode, seed, store_dir, self._raw_frame, self._say)

    def _say(self, t, kind, text):
        if kind == "mode":
            self.mode_now = text
        self.said.append((t, kind, text))
        if self.on_say is not None:
            self.on_say(t, kind, text)

    def pad_b_turned(self):
        """Whether pad B's grid is turned 180° now (the menu's seating setting); None when the runtime cannot say."""
        return self._dev.app.entries[1].rotated if self.runtime == "cpython" else None

    def tally(self, mode=None):
        """[black wins, white wins, draws] kept for a mode (default: the current one), or None (not kept, or a
        runtime that cannot say)."""
        if self.runtime != "cpython":
            return None
        scores = self._dev.app.scores
        data = scores.data if scores is not None else {}
        return data.get(mode or self.mode_now)

    def game(self):
        """The firmware's live Game (CPython runtime only: the MicroPython one lives in the guest)."""
        return self._dev.app.game if self.runtime == "cpython" else None

    def _raw_frame(self, t, raw):
        px = decode(self.cfg, raw)
        self.t = t
        self.last_pixels = px
        if self.keep_frames:
            self.frames.append((t, px))
        if self.on_frame is not None:
            self.on_frame(t, px)

    # keys (pad: "A"/"B" or 0/1; key: one of 1-9 * # 0 ...)
    def press(self, pad, key):
        self._dev.press(_pad(pad), key)

    def release(self, pad, key):
        self._dev.release(_pad(pad), key)

    def tap(self, pad, key):
        self._dev.tap(_pad(pad), key)

    def move(self, pad, cell):
        """Type the keys for `cell` (index or 'e5') on that pad, as seen from its seat, then #."""
        if isinstance(cell, str):
            from engine import parse_square

            cell = parse_square(cell)
        self._dev.move(_pad(pad), cell)

    def advance(self, ms):
        self._dev.advance(int(ms))

    def sync(self):
        return self._dev.sync()

    def run_script(self, text):
        self._dev.run(parse_script(text))

    def cell_pixels(self, pixels=None):
        """Strip-order pixels -> 83 (r, g, b): the 81 cells in board order (row*9+col, black's view), then status A, status B."""
        if pixels is None:
            pixels = self.last_pixels
        m = self._map
        return [tuple(pixels[m[i]]) for i in range(NPIX)]

    def board_rows(self):
        return self._dev.board_rows()

    def result_name(self):
        return self._dev.result_name()

    def report(self):
        return self._dev.report()

    def close(self):
        if hasattr(self._dev, "close"):
            self._dev.close()


class UpyDevice:
    """The same VirtualDevice, run inside real MicroPython (tools.upy.Session); frames come back as hex lines."""

    def __init__(self, board, mode, seed, store_dir, on_frame, on_say=None):
        from tools import upy

        if not upy.node_available():
            raise RuntimeError("--runtime micropython needs Node 20+ and tools/node/node_modules (./wts setup); "
                               "the default --runtime cpython needs neither")
        self.on_frame = on_frame
        self.on_say = on_say
        files = guest_files()
        self.session = upy.Session(files=files, timeout=900.0)  # a whole scripted game can run in one call
        self._exec(
            "import sys\nsys.path.insert(0, '/')\nimport vdevice, boards, narrate, ubinascii\n"
            "_fr = []\n"
            "def _on(t, raw):\n    _fr.append((t, ubinascii.hexlify(raw)))\n"
            "dev = vdevice.VirtualDevice(boards.load(%r), mode=%r, seed=%d, store_dir=%r, on_frame=_on, keep_frames=False)\n"
            "def _say(kind, text):\n    _fr.append((dev.clock.now, '@N ' + kind + ' ' + text))\n"
            "narrate.watch(dev.app, _say)\n"
            "def _flush():\n    for t, h in _fr:\n"
            "        if isinstance(h, str):\n            print('@N', t, h[3:])\n"
            "        else:\n            print('@F', t, h.decode())\n    _fr.clear()\n" % (board, mode, seed, store_dir)
        )

    def _exec(self, code):
        out = self.session.exec(code)
        rest = []
        for line in (out or "").splitlines():
            if line.startswith("@F "):
                _, t, h = line.split(" ", 2)
                self.on_frame(int(t), bytes.fromhex(h))
            elif line.startswith("@N "):
                _, t, kind, text = line.split(" ", 3)
                if self.on_say is not None:
                    self.on_say(int(t), kind, text)
            else:
                rest.append(line)
        return "\n".join(rest)

    def press(self, pad, key):
        self._exec("dev.press(%d, %r)\n_flush()" % (pad, key))

    def release(self, pad, key):
        self._exec("dev.release(%d, %r)\n_flush()" % (pad, key))

    def tap(self, pad, key):
        self._exec("dev.tap(%d, %r)\n_flush()" % (pad, key))

    def move(self, pad, cell):
        self._exec("dev.move(%d, %d)\n_flush()" % (pad, cell))

    def advance(self, ms):
        self._exec("dev.advance(%d)\n_flush()" % ms)

    def sync(self):
        return int(self._exec("print(dev.sync())\n_flush()").strip() or 0)

    def run(self, actions):
        for a in actions:
            self._exec("dev.run([%r])\n_flush()" % (a,))

    def board_rows(self):
        return self._exec("print('\\n'.join(dev.board_rows()))").split("\n")[-9:]

    def result_name(self):
        return self._exec("print(dev.result_name())").strip()

    def report(self):
        return "\n".join(self.board_rows()) + "\nresult: " + self.result_name()

    def close(self):
        close = getattr(self.session, "close", None)
        if close is not None:
            close()


def guest_files():
    """Device files plus the simulator's guest modules (tools/sim/guest.py), as the MicroPython guest sees them."""
    from tools import upy

    files = dict(upy.project_files("engine", "firmware", "boards"))
    files.update(guest.sources())
    return files
