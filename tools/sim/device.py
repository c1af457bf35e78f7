"""The simulated device: the real firmware on a virtual board, under CPython or real MicroPython, driven key by key on a virtual clock."""
import os

import boards
from tools.sim import fakehw

from tools import ROOT

MODES = ("2p", "easy", "medium", "hard", "demo", "attract", "tutorial", "menu")
RUNTIMES = ("cpython", "micropython")
NPIX = 83


def _pad(pad):
    if pad in (0, "A", "a"):
        return 0
    if pad in (1, "B", "b"):
        return 1
    raise ValueError("pad must be 'A' or 'B' (or 0/1), not %r" % (pad,))


def decode(cfg, raw):
    """Wire bytes of one frame -> list of 83 (r, g, b) in strip order."""
    order = getattr(cfg, "COLOR_ORDER", "GRB")
    ri, gi, bi = order.index("R"), order.index("G"), order.index("B")
    return [(raw[i + ri], raw[i + gi], raw[i + bi]) for i in range(0, NPIX * 3, 3)]


class Device:
    """One simulated device. Keys: press/release/tap/move; time: advance(ms) on the virtual clock.

    Frames: `frames` is a list of (t_ms, pixels) (if keep_frames), `on_frame(t, pixels)`
    is called for each; pixels are 83 (r, g, b) tuples in strip order (what the LEDs show,
    after gamma, brightness and the power cap). `cell_pixels(pixels)` reorders them.
    """

    def __init__(self, board="pico", mode="2p", runtime="cpython", seed=0, store_dir=None, keep_frames=True, on_frame=None):
        if runtime not in RUNTIMES:
            raise ValueError("unknown runtime %r; valid runtimes: %s" % (runtime, ", ".join(RUNTIMES)))
        if mode not in MODES:
            raise ValueError("unknown mode %r; valid modes: %s" % (mode, ", ".join(MODES)))
        self.cfg = boards.load(board)
        self.board = board
        self.mode = mode
        self.runtime = runtime
        self.keep_frames = keep_frames
        self.on_frame = on_frame
        self.frames = []
        self.last_pixels = [(0, 0, 0)] * NPIX
        self.t = 0
        from firmware.display import strip_map

        self._map = strip_map(
            getattr(self.cfg, "MATRIX_LAYOUT", "serpentine"),
            getattr(self.cfg, "MATRIX_ORIGIN", "top-left"),
            getattr(self.cfg, "MATRIX_ROTATION", 0),
            getattr(self.cfg, "STATUS_LEDS", (81, 82)),
        )
        if runtime == "cpython":
            self._dev = fakehw.VirtualDevice(self.cfg, mode=_app_mode(mode), seed=seed, store_dir=store_dir, on_frame=self._raw_frame, keep_frames=False)
        else:
            self._dev = UpyDevice(board, _app_mode(mode), seed, store_dir, self._raw_frame)

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
        self._dev.run(fakehw.parse_script(text))

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


def _app_mode(mode):
    return mode


class UpyDevice:
    """The same VirtualDevice, run inside real MicroPython (tools.upy.Session); frames come back as hex lines."""

    def __init__(self, board, mode, seed, store_dir, on_frame):
        from tools import upy

        if not upy.node_available():
            raise RuntimeError("--runtime micropython needs Node and tools/node/node_modules (npm ci in tools/node)")
        self.on_frame = on_frame
        files = guest_files()
        self.session = upy.Session(files=files, timeout=900.0)  # a whole scripted game can run in one call
        self._exec(
            "import sys\nsys.path.insert(0, '/')\nimport fakehw, boards, ubinascii\n"
            "_fr = []\n"
            "def _on(t, raw):\n    _fr.append((t, ubinascii.hexlify(raw)))\n"
            "dev = fakehw.VirtualDevice(boards.load(%r), mode=%r, seed=%d, store_dir=%r, on_frame=_on, keep_frames=False)\n"
            "def _flush():\n    for t, h in _fr:\n        print('@F', t, h.decode())\n    _fr.clear()\n" % (board, mode, seed, store_dir)
        )

    def _exec(self, code):
        out = self.session.exec(code)
        rest = []
        for line in (out or "").splitlines():
            if line.startswith("@F "):
                _, t, h = line.split(" ", 2)
                self.on_frame(int(t), bytes.fromhex(h))
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
    """Device files plus the fakes, as the MicroPython guest sees them (fakehw at the root, no tools package)."""
    from tools import upy

    files = dict(upy.project_files("engine", "firmware", "boards"))
    with open(os.path.join(ROOT, "tools", "sim", "fakehw.py"), "rb") as f:
        files["fakehw.py"] = f.read()
    return files
