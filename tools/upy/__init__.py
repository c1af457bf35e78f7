"""Run real MicroPython (the official webassembly port under Node) from CPython: run(), Session, project_files()."""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["MicroPythonError", "UpyHostError", "node_available", "run", "Session",
           "project_files", "ROOT", "NODE_DIR", "HEAPSIZE"]

from tools import ROOT, stop_child
NODE_DIR = ROOT / "tools" / "node"
_SCRIPT = NODE_DIR / "upy.mjs"
_PORT_PACKAGE = NODE_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"

# The default is below the free heap of a Raspberry Pi Pico running MicroPython
# (boards/pico.py HEAP_BYTES), which keeps tests honest about memory use on the
# smallest target.
# Caveats measured on the pyscript build (1.27): `heapsize` is only the first
# heap area — when it is full the heap grows by a new area instead of raising
# MemoryError — and the GC reclaims garbage only between exec() calls (inside
# one call even gc.collect() frees nothing, as the wasm stack cannot be
# scanned). So memory limits are not enforced here: measure with
# gc.mem_alloc() and micropython.heap_lock(), which do work.
HEAPSIZE = 192 * 1024
# Generous per-call limit: a runaway guest loop must not hang a test run.
DEFAULT_TIMEOUT = 60.0


class MicroPythonError(Exception):
    """A guest exception: .traceback is MicroPython's traceback text, .stdout what it printed before."""

    def __init__(self, traceback, stdout=""):
        self.traceback = traceback
        self.stdout = stdout
        super().__init__(traceback.rstrip())


class UpyHostError(RuntimeError):
    """The host side failed: Node missing, npm packages missing, the Node process died or timed out."""


def node_available():
    """True when `node` is on PATH and `npm ci --prefix tools/node` has installed the wasm port."""
    return shutil.which("node") is not None and (_PORT_PACKAGE / "package.json").is_file()


def project_files(*dirs):
    """{relative posix path: bytes} of the .py files under the given project dirs (or single .py files).

    Paths are relative to the repository root, e.g. project_files("engine")
    -> {"engine/__init__.py": b"...", ...}; with no argument, engine and firmware. Never the machine code
    (tools/devicefiles.py, MACHINE_CODE): this port has no viper, and the browser edition does not get it.
    """
    from tools.devicefiles import MACHINE_CODE

    if not dirs:
        dirs = ("engine", "firmware")
    out = {}
    for d in dirs:
        base = (ROOT / d).resolve()
        if not str(base).startswith(str(ROOT)):
            raise ValueError("project_files: %r is outside the repository" % (d,))
        if base.is_file():
            if base.suffix != ".py":
                raise ValueError("project_files: %r is not a .py file" % (d,))
            out[base.relative_to(ROOT).as_posix()] = base.read_bytes()
            continue
        if not base.is_dir():
            raise ValueError("project_files: no such project directory %r" % (d,))
        for p in sorted(base.rglob("*.py")):
            if "__pycache__" in p.parts or p.relative_to(ROOT).as_posix() in MACHINE_CODE:
                continue
            out[p.relative_to(ROOT).as_posix()] = p.read_bytes()
    return out


def _check_files(files):
    """Validate a {path: bytes|str} mapping before anything is sent to Node."""
    norm = {}
    for path, data in (files or {}).items():
        if not isinstance(path, str) or not path or ".." in path.split("/"):
            raise ValueError("bad guest file path %r" % (path,))
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("file %r: data must be bytes or str" % (path,))
        norm[path] = bytes(data)
    return norm


class Session:
    """One long-lived MicroPython interpreter in one Node process; many exec() calls.

    with Session(files=project_files("engine")) as s:
        s.exec("import engine")
        out = s.exec("print(engine.Game().turns)")
    """

    def __init__(self, files=None, heapsize=HEAPSIZE, timeout=DEFAULT_TIMEOUT):
        if not isinstance(heapsize, int) or heapsize < 16 * 1024:
            raise ValueError("heapsize must be an int of at least 16 KiB, got %r" % (heapsize,))
        files = _check_files(files)
        if shutil.which("node") is None:
            raise UpyHostError("node is not installed (Node 20 is needed for tools.upy)")
        if not _PORT_PACKAGE.is_dir():
            raise UpyHostError("the MicroPython webassembly port is not installed: run `npm ci --prefix tools/node`")
        self.timeout = timeout
        self._buf = b""
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            ["node", str(_SCRIPT), "--heapsize", str(heapsize)],
            cwd=str(NODE_DIR), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err)
        try:
            self._reply(timeout)  # the "ready" line
            for path, data in files.items():
                self.put(path, data)
        except BaseException:
            self.close()
            raise

    # -- plumbing -----------------------------------------------------------
    def _stderr_text(self):
        self._err.seek(0)
        return self._err.read().decode("utf-8", "replace")[-2000:]

    def _readline(self, timeout):
        fd = self._proc.stdout.fileno()
        deadline = None if timeout is None else _now() + timeout
        while b"\n" not in self._buf:
            left = None if deadline is None else deadline - _now()
            if left is not None and left <= 0:
                self.close(kill=True)  # a guest stuck in a loop never reads its stdin again
                raise UpyHostError("MicroPython did not answer within %.1f s (killed)" % timeout)
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                self.close()
                raise UpyHostError("the Node process died: " + self._stderr_text())
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def _reply(self, timeout):
        return json.loads(self._readline(timeout))

    def _request(self, req, timeout=None):
        if self._proc is None:
            raise UpyHostError("session is closed")
        try:
            self._proc.stdin.write(json.dumps(req).encode() + b"\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise UpyHostError("the Node process died: " + self._stderr_text()) from None
        return self._reply(self.timeout if timeout is None else timeout)

    # -- API ------------------------------------------------------------------
    def put(self, path, data):
        """Write one file into the guest filesystem (parents created; kept across reset())."""
        (path, data), = _check_files({path: data}).items()
        rep = self._request({"op": "put", "path": path, "data": base64.b64encode(data).decode()})
        if not rep.get("ok"):
            raise UpyHostError(rep.get("error", "put failed"))

    def exec(self, code, timeout=None):
        """Run code in the guest's __main__; return its stdout, or raise MicroPythonError."""
        if not isinstance(code, str):
            raise TypeError("code must be str")
        rep = self._request({"op": "exec", "code": code}, timeout)
        if rep.get("ok"):
            return rep["out"]
        if "out" not in rep:
            raise UpyHostError(rep.get("error", "exec failed"))
        raise MicroPythonError(rep["error"], rep["out"])

    def reset(self):
        """Fresh interpreter (new heap, new __main__, modules forgotten); files are kept."""
        rep = self._request({"op": "reset"})
        if not rep.get("ok"):
            raise UpyHostError(rep.get("error", "reset failed"))

    def close(self, kill=False):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        stop_child(proc)
        self._err.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass




def _now():
    return time.monotonic()


def run(code, files=None, heapsize=HEAPSIZE, timeout=DEFAULT_TIMEOUT):
    """Run code in a fresh MicroPython with files written first; return stdout (MicroPythonError on guest error)."""
    with Session(files=files, heapsize=heapsize, timeout=timeout) as s:
        return s.exec(code)
