"""Virtual board: real MicroPython (webassembly port) with fake pins, pads and LED strip, served to mpremote on a loopback socket.

    python -m tools.upy.vboard [--port N] [--board pico]
    mpremote connect socket://127.0.0.1:N fs ls      # in another terminal

From Python (tests, tools):

    with VBoard(board="pico") as vb:          # vb.port, vb.url
        subprocess.run(["mpremote", "connect", vb.url, "exec", "print(1)"])
        vb.tap("A", "5")                      # press, let the firmware scan, release
        frames = vb.frames()                  # [Frame(seq, ms, pin, data), ...]

Keys are pin-accurate: the guest's fake machine.Pin reads /board_config.py
(PAD_A/PAD_B, KEYPAD_TYPE, through firmware/keypad.py's contacts()) and
answers column reads the way a 3x4/4x4 matrix (open-drain rows pulled low one
at a time, columns pulled up) or direct buttons (pull-up, pressed = 0) would.
Frames are the NeoPixel wire buffer (GRB...) at each write(), with
milliseconds since the board started.

As strict as the chip: pins the board file's CHIP does not have or its
RESERVED_PINS are refused (firmware/boardcheck.py); heap in use beyond boot is held
to the board file's HEAP_BYTES (MemoryError, like the device); files change
only when closed, as on littlefs (a reset mid-write keeps the old contents).
"""
import argparse
import collections
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import ROOT, stop_child

NODE_DIR = ROOT / "tools" / "node"
SCRIPT = NODE_DIR / "vboard.mjs"
BOARDS = ROOT / "boards"

Frame = collections.namedtuple("Frame", "seq ms pin data")
KEY_CHARS = "0123456789*#ABCD"


class VBoardError(RuntimeError):
    """The virtual board could not start, died, or did not answer in time."""


def board_names():
    """Board configs available in boards/ (one list: boards.names())."""
    import boards
    return boards.names(str(BOARDS))


class VBoard:
    """One virtual board in a Node process. Context manager; .close() stops it."""

    def __init__(self, port=0, board=None, files=None, heapsize=256 * 1024, max_frames=20000, fs_size=0, timeout=20.0,
                 heap_limit=None):
        if board is not None and board not in board_names():
            raise ValueError("unknown board %r; boards are: %s" % (board, ", ".join(board_names())))
        if board is not None:
            import boards
            from firmware.boardcheck import check

            check(boards.load(board))   # the one board-file check: a BoardError (ValueError) naming each problem
        if not isinstance(port, int) or not 0 <= port < 65536:
            raise ValueError("port must be 0..65535 (0 = any free port)")
        if not isinstance(fs_size, int) or fs_size < 0:
            raise ValueError("fs_size must be a byte count (0 = unlimited)")
        if heap_limit is not None and (not isinstance(heap_limit, int) or heap_limit < 0):
            raise ValueError("heap_limit must be a byte count (0 = none; None = the board file's HEAP_BYTES)")
        if shutil.which("node") is None:
            raise VBoardError("node is not installed (Node 20 is needed for the virtual board)")
        if not (NODE_DIR / "node_modules" / "@micropython").is_dir():
            raise VBoardError("npm packages missing: run `npm ci --prefix tools/node`")
        self._tmp = tempfile.mkdtemp(prefix="vboard-")
        self._buf = b""
        self._proc = None
        try:
            preload = dict(files or {})
            if board is not None:
                # As tools.deploy would: the board file becomes /board_config.py.
                preload.setdefault("board_config.py", (BOARDS / (board + ".py")).read_bytes())
            for rel, data in preload.items():
                if rel.startswith("/") or ".." in rel.split("/"):
                    raise ValueError("bad file path %r" % (rel,))
                dest = Path(self._tmp, rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data.encode() if isinstance(data, str) else bytes(data))
            self._err = tempfile.TemporaryFile()
            self._proc = subprocess.Popen(
                ["node", str(SCRIPT), "--port", str(port), "--heapsize", str(heapsize),
                 "--max-frames", str(max_frames), "--fs-size", str(fs_size), "--files", self._tmp,
                 "--heap-limit", str(-1 if heap_limit is None else heap_limit)],
                cwd=str(NODE_DIR), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
                start_new_session=True)  # Ctrl-C in a terminal is for us, not for Node
            ready = self._read(timeout)
            if not ready.get("ok"):
                raise VBoardError(ready.get("error", "virtual board failed to start"))
            self.port = ready["port"]
        except BaseException:
            self.close()
            raise
        self.url = "socket://127.0.0.1:%d" % self.port

    # -- control channel --------------------------------------------------------
    def _stderr(self):
        try:
            self._err.seek(0)
            return self._err.read().decode("utf-8", "replace")[-2000:]
        except (ValueError, AttributeError):
            return ""

    def _read(self, timeout):
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise VBoardError("virtual board did not answer within %.0f s" % timeout)
            r, _, _ = select.select([fd], [], [], left)
            if r:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise VBoardError("virtual board died: " + self._stderr())
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def _call(self, timeout=10.0, **req):
        if self._proc is None:
            raise VBoardError("virtual board is closed")
        try:
            self._proc.stdin.write(json.dumps(req).encode() + b"\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise VBoardError("virtual board died: " + self._stderr()) from None
        rep = self._read(timeout)
        if not rep.get("ok"):
            raise VBoardError(rep.get("error", "request failed"))
        return rep

    # -- pads -----------------------------------------------------------------------
    @staticmethod
    def _check(pad, key):
        if pad not in ("A", "B"):
            raise ValueError("pad must be 'A' or 'B', not %r" % (pad,))
        if not isinstance(key, str) or len(key) != 1 or key not in KEY_CHARS:
            raise ValueError("key must be one of %s, not %r" % (KEY_CHARS, key))

    def press(self, pad, key):
        """Hold a key down (stays down until release)."""
        self._check(pad, key)
        return self._call(op="press", pad=pad, key=key)["reads"]

    def release(self, pad, key):
        self._check(pad, key)
        return self._call(op="release", pad=pad, key=key)["reads"]

    def release_all(self):
        return self._call(op="release_all")["reads"]

    def stats(self):
        """{"reads": pad pin reads so far, "frames": frames written, "boots", "busy", "client", "uptime_ms",
        "heap_peak": most heap in use beyond boot seen at a sleep or strip write (garbage included)}."""
        rep = self._call(op="stats")
        rep.pop("ok", None)
        return rep

    def wait_reads(self, n, timeout=10.0):
        """Block until the guest has read pad pins `n` more times (it is scanning), or raise."""
        start = self.stats()["reads"]
        deadline = time.monotonic() + timeout
        while self.stats()["reads"] - start < n:
            if time.monotonic() > deadline:
                raise VBoardError("the guest did not scan the pads (%d reads wanted in %.0f s); is the firmware running?" % (n, timeout))
            time.sleep(0.005)

    def tap(self, pad, key, reads=240, timeout=10.0):
        """Press, let the guest scan `reads` column reads (10 firmware ticks on two 3x4 pads), release, same again."""
        self.press(pad, key)
        self.wait_reads(reads, timeout)
        self.release(pad, key)
        self.wait_reads(reads, timeout)

    # -- LEDs ----------------------------------------------------------------------------
    def frames(self, since=0):
        """Recorded NeoPixel writes with seq >= since (oldest dropped beyond max_frames)."""
        rep = self._call(op="frames", since=since)
        return [Frame(s, ms, pin, bytes.fromhex(h)) for s, ms, pin, h in rep["frames"]]

    def wait_frames(self, count, since=0, timeout=10.0):
        """Block until at least `count` frames with seq >= since exist; return them."""
        deadline = time.monotonic() + timeout
        while True:
            fr = self.frames(since)
            if len(fr) >= count:
                return fr
            if time.monotonic() > deadline:
                raise VBoardError("only %d of %d frames within %.0f s" % (len(fr), count, timeout))
            time.sleep(0.01)

    # -- lifetime ----------------------------------------------------------------------------
    def close(self):
        proc, self._proc = self._proc, None
        if proc is not None:
            stop_child(proc)
        err = getattr(self, "_err", None)
        if err is not None:
            err.close()
            self._err = None
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.upy.vboard",
        description="Serve a virtual board (real MicroPython 1.27 webassembly port under Node, fake machine/neopixel, "
                    "in-memory filesystem) on a loopback socket for mpremote.")
    ap.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: any free port)")
    ap.add_argument("--board", choices=board_names(), help="preload boards/NAME.py as /board_config.py")
    ap.add_argument("--heapsize", type=int, default=256 * 1024, help="MicroPython heap in bytes (default 256 KiB)")
    ap.add_argument("--fs-size", type=int, default=0, help="flash size in bytes; writes beyond it fail with ENOSPC (default: unlimited)")
    ap.add_argument("--heap-limit", type=int, default=None,
                    help="heap in bytes beyond boot before MemoryError (default: the board file's HEAP_BYTES; 0: none)")
    args = ap.parse_args(argv)
    try:
        vb = VBoard(port=args.port, board=args.board, heapsize=args.heapsize, fs_size=args.fs_size, heap_limit=args.heap_limit)
    except (VBoardError, ValueError) as e:
        print("vboard: %s" % e, file=sys.stderr)
        return 1
    print("vboard: MicroPython REPL at %s  (e.g. mpremote connect %s repl); Ctrl-C stops it" % (vb.url, vb.url), flush=True)
    try:
        # Node exits by itself when our end of its stdin closes, whatever kills us.
        while vb._proc is not None and vb._proc.poll() is None:
            time.sleep(0.5)
        print("vboard: the board process stopped: " + vb._stderr(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    finally:
        vb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
