"""Device(): opens the simulated device a runtime names (a tools/sim/interface.py SimDevice); here the two kinds that run the real firmware on a virtual board under CPython or real MicroPython, driven key by key on a virtual clock."""
import os

import boards
from firmware.boardcheck import check as check_board
from firmware.modes import MODE_NAMES
from firmware.settings import SETTINGS_FILE, SCORES_FILE
from firmware.storage import MAX_BYTES
from tools.sim import guest, narrate
from tools.sim.interface import SimDevice

# The simulator's --mode values: the firmware's own mode names (firmware/modes.py), in the order --help lists them.
MODES = ("2p", "easy", "medium", "hard", "demo", "attract", "tutorial", "menu", "keytest")
MODES = tuple(m for m in MODES if m in MODE_NAMES) + tuple(m for m in MODE_NAMES if m not in MODES)
RUNTIMES = ("cpython", "micropython", "rp2040")
SEED_LIMIT = 1 << 30     # seeds are small ints (< 2**30): a heap object on MicroPython otherwise


FRESH_SEEDS = 100000     # fresh seeds have at most 5 digits: easy to read off the screen and type back


def fresh_seed():
    """A seed from true entropy (os.urandom), so every launch plays a new game; --seed N reproduces one."""
    return int.from_bytes(os.urandom(4), "little") % FRESH_SEEDS


def Device(board="pico", mode="2p", runtime="cpython", seed=None, store_dir=None, keep_frames=True, on_frame=None,
           on_say=None, bots=None):
    """One simulated device of `runtime` (RUNTIMES), a SimDevice (tools/sim/interface.py): keys press/release/tap/move,
    time advance(ms) on the device's clock, frames and words as the interface says.

    "cpython" runs the firmware in this process (CpythonDevice; a CircuitPython or Raspberry Pi board
    runs firmware/hw_circuitpython.py over tools/sim/circuitpython.py's fakes), "micropython" in the
    official webassembly port (UpyDevice, needs Node), "rp2040" the deployed image on the emulated Pico
    (tools/sim/rp2040.py). `seed=None` draws a fresh one from entropy (`seed` then says which, to replay
    it). `bots`: the firmware App's computer-player class (tools/cmdbot.py: a student's bot), cpython only.
    Bad arguments are a ValueError naming the valid ones; nothing is started then.
    """
    if runtime not in RUNTIMES:
        raise ValueError("unknown runtime %r; valid runtimes: %s" % (runtime, ", ".join(RUNTIMES)))
    if mode not in MODES:
        raise ValueError("unknown mode %r; valid modes: %s" % (mode, ", ".join(MODES)))
    cfg = boards.load(board)
    check_board(cfg)   # firmware/boardcheck.py: every runtime refuses wiring that cannot work, in one line
    if runtime != "cpython" and boards.platform(cfg) in ("circuitpython", "linux"):
        raise ValueError("board %s runs CircuitPython/Blinka (tools/sim/circuitpython.py fakes its modules under CPython): "
                         "use --runtime cpython" % (board,))
    if seed is None:
        seed = fresh_seed()
    if not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError("seed must be a whole number from 0 to %d, not %r" % (SEED_LIMIT - 1, seed))
    if bots is not None and runtime != "cpython":
        raise ValueError("a bot of your own (--player) plays with --runtime cpython only: it runs as a program "
                         "on this computer, beside the simulated firmware")
    if store_dir is not None:
        # Every kind keeps its settings and scores there: a folder that cannot be made is said now, not found
        # empty after a game.
        try:
            os.makedirs(store_dir, exist_ok=True)
        except OSError as e:
            raise ValueError("cannot keep settings and scores in %s: %s" % (store_dir, e.strerror or e))
    if runtime == "cpython":
        return CpythonDevice(cfg, board, mode, seed, store_dir, keep_frames, on_frame, on_say, bots)
    elif runtime == "rp2040":
        from tools.sim.rp2040 import Rp2040Device

        kind = Rp2040Device
    else:
        kind = UpyDevice
    return kind(cfg, board, mode, seed, store_dir, keep_frames, on_frame, on_say)


class CpythonDevice(SimDevice):
    """The firmware in this process: tools/sim/vdevice.py's VirtualDevice, its App watched by the narrator.
    `app` is the firmware's App (tests may look inside; the terminal UI does not)."""

    def __init__(self, cfg, board, mode, seed, store_dir=None, keep_frames=True, on_frame=None, on_say=None, bots=None):
        from tools.sim.vdevice import VirtualDevice

        SimDevice.__init__(self, cfg, board, mode, "cpython", seed, keep_frames, on_frame, on_say)
        self.vdev = VirtualDevice(cfg, mode=mode, seed=seed, store_dir=store_dir, on_frame=self._frame, keep_frames=False,
                                  bots=bots)
        self.app = self.vdev.app
        clock = self.vdev.clock
        narrate.watch(self.app, lambda kind, text: self._say(clock.now, kind, text))

    def pad_b_turned(self):
        return self.app.entries[1].rotated

    def tally(self, mode=None):
        scores = self.app.scores
        data = scores.data if scores is not None else {}
        return data.get(mode or self.mode_now)

    def game(self):
        return self.app.game

    def _press(self, pad, key):
        self.vdev.press(pad, key)

    def _release(self, pad, key):
        self.vdev.release(pad, key)

    def _tap(self, pad, key):
        self.vdev.tap(pad, key)

    def _move(self, pad, cell):
        self.vdev.move(pad, cell)

    def _advance(self, ms):
        self.vdev.advance(ms)

    def sync(self):
        return self.vdev.sync()

    def run(self, actions):
        self.vdev.run(actions)

    def board_rows(self):
        return self.vdev.board_rows()

    def result_name(self):
        return self.vdev.result_name()

    def close(self):
        pass  # nothing outside this process


# The files the firmware keeps in its store folder (firmware/settings.py): what a MicroPython guest's folder
# mirrors to the host's --store DIR.
STORE_FILES = (SETTINGS_FILE, SCORES_FILE)
GUEST_STORE = "/store"   # the guest's folder for them (in the webassembly port's in-memory filesystem)


class UpyDevice(SimDevice):
    """The same VirtualDevice, run inside real MicroPython (tools.upy.Session); frames come back as hex lines,
    sentences as `@N` lines, in the host's language (narrate.get_lang() when the device opens). The live Game,
    the seating and the scores stay in the guest (None here).

    With `store_dir` the guest's firmware keeps its settings and scores in GUEST_STORE, which lives in
    Node's memory and ends with it: the files found in `store_dir` are copied in at the start, and each
    one the firmware writes comes back as a `@S` line after the call that wrote it and is written to
    `store_dir` (whole, then renamed, as the firmware writes it), so a run ended any way keeps what the
    device had saved."""

    def __init__(self, cfg, board, mode, seed, store_dir=None, keep_frames=True, on_frame=None, on_say=None):
        from tools import upy

        if not upy.node_available():
            raise RuntimeError("--runtime micropython needs Node 20+ and tools/node/node_modules (./wts setup); "
                               "the default --runtime cpython needs neither")
        SimDevice.__init__(self, cfg, board, mode, "micropython", seed, keep_frames, on_frame, on_say)
        self.store_dir = store_dir
        files = guest_files()
        if store_dir is not None:
            files.update(("%s/%s" % (GUEST_STORE.strip("/"), name), data) for name, data in kept_files(store_dir))
        self.session = upy.Session(files=files, timeout=900.0)  # a whole scripted game can run in one call
        self._exec(
            "import sys\nsys.path.insert(0, '/')\nimport os, vdevice, boards, narrate, ubinascii\n"
            "narrate.set_lang(%r)\n"
            "_fr = []\n"
            "def _on(t, raw):\n    _fr.append((t, ubinascii.hexlify(raw)))\n"
            "_store = %r\n_kept = {}\n"
            "def _stored(name):\n    try:\n        with open(_store + '/' + name, 'rb') as f:\n"
            "            return f.read()\n    except OSError:\n        return None\n"
            "if _store:\n    try:\n        os.mkdir(_store)\n    except OSError:\n        pass\n"
            "    for _n in %r:\n        _kept[_n] = _stored(_n)\n"
            "dev = vdevice.VirtualDevice(boards.load(%r), mode=%r, seed=%d, store_dir=_store, on_frame=_on, keep_frames=False)\n"
            "def _say(kind, text):\n    _fr.append((dev.clock.now, '@N ' + kind + ' ' + text))\n"
            "narrate.watch(dev.app, _say)\n"
            "def _flush():\n    for t, h in _fr:\n"
            "        if isinstance(h, str):\n            print('@N', t, h[3:])\n"
            "        else:\n            print('@F', t, h.decode())\n    _fr.clear()\n"
            "    for n in _kept:\n        d = _stored(n)\n"
            "        if d is not None and d != _kept[n]:\n"
            "            _kept[n] = d\n            print('@S', n, ubinascii.hexlify(d).decode())\n"
            % (narrate.get_lang(), GUEST_STORE if store_dir is not None else None, STORE_FILES, board, mode, seed)
        )

    def _exec(self, code):
        out = self.session.exec(code)
        rest = []
        for line in (out or "").splitlines():
            if line.startswith("@F "):
                _, t, h = line.split(" ", 2)
                self._frame(int(t), bytes.fromhex(h))
            elif line.startswith("@N "):
                _, t, kind, text = line.split(" ", 3)
                self._say(int(t), kind, text)
            elif line.startswith("@S "):
                _, name, h = line.split(" ", 2)
                self._keep(name, bytes.fromhex(h))
            else:
                rest.append(line)
        return "\n".join(rest)

    def _keep(self, name, data):
        """A store file the guest's firmware wrote: the same bytes into store_dir (a temp file renamed over the
        old one, as firmware/storage.py writes). A folder that refuses is what a full flash is to the device:
        play goes on without saving."""
        if self.store_dir is None or name not in STORE_FILES:
            return
        path = os.path.join(self.store_dir, name)
        try:
            with open(path + ".tmp", "wb") as f:
                f.write(data)
            os.replace(path + ".tmp", path)
        except OSError:
            pass

    def _press(self, pad, key):
        self._exec("dev.press(%d, %r)\n_flush()" % (pad, key))

    def _release(self, pad, key):
        self._exec("dev.release(%d, %r)\n_flush()" % (pad, key))

    def _tap(self, pad, key):
        self._exec("dev.tap(%d, %r)\n_flush()" % (pad, key))

    def _move(self, pad, cell):
        self._exec("dev.move(%d, %d)\n_flush()" % (pad, cell))

    def _advance(self, ms):
        self._exec("dev.advance(%d)\n_flush()" % ms)

    def sync(self):
        return int(self._exec("print(dev.sync())\n_flush()").strip() or 0)

    def run(self, actions):
        # One guest call for the whole script: far fewer round trips.
        self._exec("dev.run(%r)\n_flush()" % (list(actions),))

    def board_rows(self):
        return self._exec("print('\\n'.join(dev.board_rows()))").split("\n")[-9:]

    def result_name(self):
        return self._exec("print(dev.result_name())").strip()

    def close(self):
        s = self.__dict__.pop("session", None)
        if s is not None:
            s.close()


def kept_files(store_dir):
    """[(name, bytes)] of the STORE_FILES in `store_dir` (at most one byte more than the firmware reads: a
    longer file is refused by it as too long either way)."""
    out = []
    for name in STORE_FILES:
        try:
            with open(os.path.join(store_dir, name), "rb") as f:
                out.append((name, f.read(MAX_BYTES + 1)))
        except OSError:
            pass
    return out


def guest_files():
    """Device files plus the simulator's guest modules (tools/sim/guest.py), as the MicroPython guest sees them."""
    from tools import upy

    files = dict(upy.project_files("engine", "firmware", "boards"))
    files.update(guest.sources())
    return files
