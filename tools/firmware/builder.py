"""Building MicroPython v1.27.0 for the Pico / Pico 2 with the game frozen in: the source, the toolchain check, the staged files and manifest, make, and the cache keyed by the inputs' hash."""
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

from tools import ROOT
from tools.firmware import marker, uf2

MICROPYTHON_VERSION = "1.27.0"
TARBALL = ROOT.parent / "shared" / "micropython" / ("micropython-%s-src.tar.xz" % MICROPYTHON_VERSION)
OUT_DIR = ROOT / "build" / "firmware"      # build/ is in .gitignore: outputs, cache, work trees, logs
APT = "sudo apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi cmake build-essential"
RECIPE = 4          # part of the cache key: bump it when the way a build is made changes
CACHE_KEEP = 12     # cached UF2s kept (the newest; a developer's edits each make one)
PACKAGES = ("engine", "firmware")

# The interpreter's hot C files at -O2 (the frozen game searched slower than the official UF2 with all of it at
# -Os, the port's default, built by Debian's gcc 12). Not all of it: with every file at -O2 the firmware hung at
# its first flash write while core 1 ran (then deadlocked after the watchdog reset), which was not understood.
FAST_CMAKE = ROOT / "tools" / "firmware" / "fast.cmake"

# The bot's machine code (engine/bot/viper.py) frozen in needs a fix to MicroPython's mpy-tool.py (v1.27.0; master
# too, August 2026): it places frozen Thumb-1 code (armv6m, what the rp2 port freezes for) 2-byte aligned, but the
# emitter loads 32-bit constants PC-relative as if it were 4-byte aligned, so at an address 2 mod 4 viper reads
# the wrong constants (fictitious play chose other moves). The unpacked tarball gets the fix; a maker's own
# checkout without it freezes the bytecode (docs/records/2026-12-07-frozen-viper/README.md).
_THUMB1_WORD = re.compile(r"if config\.native_arch in \(\s*MP_NATIVE_ARCH_ARMV6,\s*(MP_NATIVE_ARCH_ARMV6M,\s*)?"
                          r"MP_NATIVE_ARCH_XTENSA,")

# A build target: the MicroPython board it builds, the UF2 family its code blocks carry, and where the
# board definition puts the littlefs filesystem (ports/rp2/boards/<board>/mpconfigboard.h: storage at the
# end of flash), which the firmware must never reach into. The Pico 2 has the Pico's pinout, so the
# Pico's wiring file is its default too. machine_code: the bot's hot loops go in as machine code. Not for
# the Pico 2: its Cortex-M33 code has never run here (no RP2350 emulator), and a maker who only flashes
# the UF2 never runs deploy's check of it (tools/mcheck.py), so its firmware carries their bytecode (the
# same moves, slower); a file deploy onto the official Pico 2 firmware compiles and checks the machine code.
Target = collections.namedtuple("Target", "name mp_board family flash_bytes storage_bytes wiring machine_code")
TARGETS = {
    "pico": Target("pico", "RPI_PICO", "rp2040", 2048 * 1024, 1408 * 1024, "pico", True),
    "pico2": Target("pico2", "RPI_PICO2", "rp2350-arm-s", 4096 * 1024, 3072 * 1024, "pico", False),
}
# The submodules the rp2 port needs (ports/rp2/CMakeLists.txt GIT_SUBMODULES for these boards), each with a
# file that is there once it is checked out.
SUBMODULES = (("lib/pico-sdk", "README.md"), ("lib/tinyusb", "src/tusb.h"),
              ("lib/micropython-lib", "README.md"), ("lib/mbedtls", "include/mbedtls/version.h"))


class FirmwareError(Exception):
    """Something the maker can fix (a missing toolchain, source or submodule; a failed build); str() says what."""


def _say(text):
    print("firmware: " + text, flush=True)


# ---------------------------------------------------------------- what goes in
def project_version(root=ROOT):
    """The project's version: the mip manifest's (package.json)."""
    try:
        return json.loads((Path(root) / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise FirmwareError("cannot read the project version from package.json; name one with --version") from None


def game_files(wiring="pico", root=ROOT, machine_code=True):
    """{checkout path: bytes} of everything frozen: engine/ and firmware/ (recursively, as tools.deploy
    ships them), main.py and boards/<wiring>.py (frozen as board_config); machine_code=False leaves the
    bot's machine code out (tools/devicefiles.py, MACHINE_CODE: its bytecode runs instead)."""
    import boards

    root = Path(root)
    if wiring not in boards.names(str(root / "boards")):
        raise FirmwareError("unknown wiring %r: choose one of %s (the files in boards/)"
                            % (wiring, ", ".join(boards.names(str(root / "boards")))))
    text = (root / "boards" / (wiring + ".py")).read_text(encoding="utf-8")
    m = re.search(r'^PLATFORM\s*=\s*["\']([\w-]+)["\']', text, re.M)
    if m and m.group(1) != "rp2":
        raise FirmwareError("boards/%s.py is for the %s platform, not MicroPython's rp2 port: freeze an rp2 board file"
                            % (wiring, m.group(1)))
    from tools.devicefiles import MACHINE_CODE

    out = {}
    for pkg in PACKAGES:
        for p in sorted((root / pkg).rglob("*.py")):
            if "__pycache__" not in p.parts and (machine_code or p.relative_to(root).as_posix() not in MACHINE_CODE):
                out[p.relative_to(root).as_posix()] = p.read_bytes()
    out["main.py"] = (root / "main.py").read_bytes()
    out["boards/%s.py" % wiring] = text.encode("utf-8")
    return out


def frozen_name(path):
    """The module file a checkout path is frozen as: boards/<x>.py is board_config.py, the rest keep their path."""
    return "board_config.py" if path.startswith("boards/") else path


def staged_files(version, wiring, root=ROOT, machine_code=True):
    """{frozen module path: bytes}: the game's files under their frozen names, plus the marker module."""
    files = game_files(wiring, root, machine_code)
    out = {frozen_name(p): d for p, d in files.items()}
    out[marker.MODULE + ".py"] = marker.module_text(version, wiring, MICROPYTHON_VERSION, files).encode("utf-8")
    return out


def manifest_text(stage, has_board_manifest):
    """The frozen manifest: the board's own frozen modules first (asyncio, neopixel, ...), then the game."""
    base = "$(BOARD_DIR)/manifest.py" if has_board_manifest else "$(PORT_DIR)/boards/manifest.py"
    s = str(stage)
    return ("# Written by tools/firmware/builder.py: MicroPython's own frozen modules for the board, then the game.\n"
            "include(%r)\n"
            "package('engine', base_path=%r)\n"
            "package('firmware', base_path=%r)\n"
            "module('board_config.py', base_path=%r)\n"
            "module('main.py', base_path=%r)\n"
            "module(%r, base_path=%r)\n" % (base, s, s, s, s, marker.MODULE + ".py", s))


# ---------------------------------------------------------------- what it is built with
def toolchain_problem():
    """None when this machine can build the firmware, else one line naming what is missing and the apt line."""
    missing = []
    gcc = shutil.which("arm-none-eabi-gcc")
    if gcc is None:
        missing.append("arm-none-eabi-gcc (gcc-arm-none-eabi)")
    else:
        try:
            libc = subprocess.run([gcc, "-print-file-name=libc.a"], capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            libc = ""
        if not (os.path.isabs(libc) and os.path.isfile(libc)):
            missing.append("the C library for arm-none-eabi (libnewlib-arm-none-eabi)")
    for exe, pkg in (("cmake", "cmake"), ("make", "build-essential"), ("gcc", "build-essential"),
                     ("g++", "build-essential")):
        if shutil.which(exe) is None:
            missing.append("%s (%s)" % (exe, pkg))
    if shutil.which("python3") is None:
        missing.append("python3 (MicroPython's build scripts run it)")
    if missing:
        return "missing %s; on Debian/Ubuntu: %s" % (", ".join(missing), APT)
    return None


def micropython_version(src):
    """'1.27.0' from a MicroPython tree's py/mpconfig.h, or None if it is not one."""
    try:
        text = (Path(src) / "py" / "mpconfig.h").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    parts = [re.search(r"#define MICROPY_VERSION_%s\s+\(?(\d+)\)?\s" % k, text) for k in ("MAJOR", "MINOR", "MICRO")]
    if not all(parts):
        return None
    return ".".join(m.group(1) for m in parts)


def thumb1_word_aligned(src):
    """True when the MicroPython tree's mpy-tool.py freezes armv6m machine code 4-byte aligned (see _THUMB1_WORD);
    False when it does not, or is not the mpy-tool.py this was written against."""
    try:
        text = (Path(src) / "tools" / "mpy-tool.py").read_text(encoding="utf-8")
    except OSError:
        return False
    m = _THUMB1_WORD.search(text)
    return bool(m and m.group(1))


def align_thumb1(src):
    """Make the tree's mpy-tool.py freeze armv6m machine code 4-byte aligned (only in the unpacked tarball,
    which is ours: a maker's own checkout is never written to). FirmwareError if its text is not the one known."""
    path = Path(src) / "tools" / "mpy-tool.py"
    text = path.read_text(encoding="utf-8")
    m = _THUMB1_WORD.search(text)
    if m is None:
        raise FirmwareError("%s is not the mpy-tool.py of MicroPython v%s (its alignment of frozen machine code "
                            "was not found)" % (path, MICROPYTHON_VERSION))
    if not m.group(1):
        fixed = m.group(0).replace("MP_NATIVE_ARCH_ARMV6,", "MP_NATIVE_ARCH_ARMV6, MP_NATIVE_ARCH_ARMV6M,")
        path.write_text(text[:m.start()] + fixed + text[m.end():], encoding="utf-8")


def check_machine_code(elf):
    """Every frozen function of machine code (text symbols fun_data_*) in the linked firmware starts on a
    4-byte boundary (see _THUMB1_WORD); FirmwareError naming the first that does not."""
    gcc = shutil.which("arm-none-eabi-gcc")
    nm = os.path.join(os.path.dirname(gcc), "arm-none-eabi-nm") if gcc else "arm-none-eabi-nm"
    try:
        out = subprocess.run([nm, str(elf)], capture_output=True, text=True, timeout=120, check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise FirmwareError("cannot list the symbols of %s: %s" % (elf, e)) from None
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT" and parts[2].startswith("fun_data_") and int(parts[0], 16) & 3:
            raise FirmwareError("the frozen machine code %s lies at 0x%s, not on a 4-byte boundary: it would read "
                                "wrong constants" % (parts[2], parts[0]))


def check_source(src):
    """Refuse (FirmwareError naming the fix) a folder that is not MicroPython v1.27.0 with the rp2 submodules."""
    src = Path(src)
    if not src.is_dir():
        raise FirmwareError("no MicroPython source at %s: clone it with `git clone -b v%s "
                            "https://github.com/micropython/micropython` (or leave --micropython out to use %s)"
                            % (src, MICROPYTHON_VERSION, TARBALL))
    ver = micropython_version(src)
    if ver is None:
        raise FirmwareError("%s is not a MicroPython source tree (no py/mpconfig.h with its version)" % src)
    if ver != MICROPYTHON_VERSION:
        raise FirmwareError("%s is MicroPython v%s; the game's firmware is built from v%s: "
                            "`git -C %s checkout v%s && git -C %s submodule update --init %s`"
                            % (src, ver, MICROPYTHON_VERSION, src, MICROPYTHON_VERSION, src,
                               " ".join(d for d, _ in SUBMODULES)))
    missing = [d for d, probe in SUBMODULES if not (src / d / probe).is_file()]
    if missing:
        raise FirmwareError("MicroPython at %s lacks the submodule%s %s that the rp2 port needs: "
                            "`git -C %s submodule update --init %s`"
                            % (src, "s" if len(missing) > 1 else "", ", ".join(missing), src, " ".join(missing)))


def _sha_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _git(src, *args):
    r = subprocess.run(["git", "-C", str(src)] + list(args), capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise OSError(r.stderr.strip())
    return r.stdout


def checkout_identity(src):
    """A string that changes whenever the checkout's sources do: git HEAD, the submodules' commits and a hash
    of uncommitted changes; without git, every file's size and mtime (build folders left out)."""
    src = Path(src).resolve()
    if shutil.which("git") and (src / ".git").exists():
        try:
            head = _git(src, "rev-parse", "HEAD").strip()
            subs = _git(src, "submodule", "status", "--", *[d for d, _ in SUBMODULES])
            dirty = _git(src, "status", "--porcelain", "--untracked-files=no")
            diff = _git(src, "diff", "HEAD") if dirty.strip() else ""
            return "git %s\n%s\n%s" % (head, subs, hashlib.sha256((dirty + diff).encode()).hexdigest())
        except (OSError, subprocess.SubprocessError):
            pass
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d != ".git" and d != "build" and not d.startswith("build-"))
        for f in sorted(filenames):
            st = os.stat(os.path.join(dirpath, f))
            h.update(("%s %d %d\n" % (os.path.relpath(os.path.join(dirpath, f), src), st.st_size, st.st_mtime_ns)).encode())
    return "tree %s %s" % (src, h.hexdigest())


def tarball_ident(digest):
    """What identifies the tarball's source in the cache keys (the checkout's own: checkout_identity)."""
    return "tarball %s" % digest


def source_id(ident):
    """The short name of a source's tools and work trees in the output folder (mpy-cross, the unix port)."""
    return hashlib.sha256(ident.encode()).hexdigest()[:12]


def unpack_tarball(tarball, dest_root):
    """Unpack the MicroPython source tarball (src/ + picotool-src/) into dest_root once; the folder is reused
    while its stamp matches the tarball's hash. Returns (folder, the tarball's sha256)."""
    tarball = Path(tarball)
    if not tarball.is_file():
        raise FirmwareError("no MicroPython source: %s is missing, and no --micropython DIR was given (a clone of "
                            "https://github.com/micropython/micropython at v%s with the submodules %s)"
                            % (tarball, MICROPYTHON_VERSION, ", ".join(d for d, _ in SUBMODULES)))
    digest = _sha_file(tarball)
    dest = Path(dest_root) / ("micropython-%s" % MICROPYTHON_VERSION)
    stamp = dest / ".wts-unpacked"
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return dest, digest
    _say("unpacking %s into %s (once)" % (tarball.name, dest))
    tmp = Path(dest_root) / ("%s.tmp-%d" % (dest.name, os.getpid()))
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(tarball, "r:xz") as tf:
        if hasattr(tarfile, "data_filter"):
            tf.extractall(tmp, filter="data")
        else:  # Python before 3.10.12/3.11.4: the archive is ours (../shared), extracted as is
            tf.extractall(tmp)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    stamp.write_text(digest + "\n")
    return dest, digest


# ---------------------------------------------------------------- running the build
class _Log:
    """The build log file; commands' output goes there, with a progress line now and then on the terminal."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(self.path, "w", encoding="utf-8", errors="replace")

    def note(self, text):
        self.f.write("### %s\n" % text)
        self.f.flush()

    def run(self, cmd, what, cwd=None, env=None, progress=False):
        """Run cmd with its output in the log; FirmwareError with the log's tail if it fails."""
        self.note("%s: %s" % (what, " ".join(str(c) for c in cmd)))
        try:
            proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, errors="replace")
        except OSError as e:
            raise FirmwareError("%s: cannot run %s (%s)" % (what, cmd[0], e)) from None
        shown = -1
        tail = collections.deque(maxlen=25)
        for line in proc.stdout:
            self.f.write(line)
            tail.append(line.rstrip())
            if progress:
                m = re.match(r"\[\s*(\d+)%\]", line)
                if m and int(m.group(1)) // 20 > shown:
                    shown = int(m.group(1)) // 20
                    _say("%s: %d%%" % (what, int(m.group(1))))
        rc = proc.wait()
        self.f.flush()
        if rc != 0:
            raise FirmwareError("%s failed (exit %d); the last lines of the build log %s:\n%s"
                                % (what, rc, self.path, "\n".join(tail)))

    def close(self):
        self.f.close()


def _jobs(jobs):
    return max(1, jobs or os.cpu_count() or 1)


def _mpy_cross(src, tools_dir, ident, log, jobs):
    """MicroPython's mpy-cross for this source, built out of the source tree (once)."""
    bdir = tools_dir / ("mpy-cross-" + ident)
    exe = bdir / "mpy-cross"
    if not exe.is_file():
        _say("building mpy-cross (once for this source)")
        log.run(["make", "-C", src / "mpy-cross", "BUILD=%s" % bdir, "-j%d" % _jobs(jobs)], "mpy-cross")
    return exe


def _picotool(picotool_src, sdk, tools_dir, log, jobs):
    """picotool's CMake package folder (the pico-sdk writes UF2 files with it), built from source once."""
    if os.environ.get("picotool_DIR"):
        return Path(os.environ["picotool_DIR"])       # the maker's own
    if picotool_src is None:
        return None
    picotool_src = Path(picotool_src).resolve()
    if not (picotool_src / "CMakeLists.txt").is_file():
        raise FirmwareError("no picotool source at %s (a clone of https://github.com/raspberrypi/picotool at 2.1.1)"
                            % picotool_src)
    ident = hashlib.sha256(("%s\n%s" % (picotool_src, (picotool_src / "CMakeLists.txt").stat().st_mtime_ns))
                           .encode()).hexdigest()[:12]
    inst = tools_dir / ("picotool-" + ident)
    pkg = inst / "picotool"
    if (pkg / "picotoolConfig.cmake").is_file():
        return pkg
    _say("building picotool (once; the pico-sdk writes UF2 files with it)")
    bdir = tools_dir / ("picotool-build-" + ident)
    shutil.rmtree(bdir, ignore_errors=True)
    log.run(["cmake", "-S", picotool_src, "-B", bdir, "-DPICO_SDK_PATH=%s" % sdk, "-DPICOTOOL_NO_LIBUSB=1",
             "-DPICOTOOL_FLAT_INSTALL=1", "-DCMAKE_INSTALL_PREFIX=%s" % inst, "-DCMAKE_BUILD_TYPE=Release"],
            "picotool (cmake)")
    log.run(["make", "-C", bdir, "-j%d" % _jobs(jobs)], "picotool", progress=True)
    log.run(["make", "-C", bdir, "install"], "picotool (install)")
    if not (pkg / "picotoolConfig.cmake").is_file():
        raise FirmwareError("picotool built but %s/picotoolConfig.cmake is missing; see %s" % (pkg, log.path))
    return pkg


class _Lock:
    """One build at a time in an output folder (tests, the bench and a maker's shell may start one together)."""

    def __init__(self, path):
        self.path = path
        self.f = None

    def __enter__(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(self.path, "w")
        try:
            import fcntl

            fcntl.flock(self.f, fcntl.LOCK_EX)
        except ImportError:   # Windows: no make/cmake build there anyway
            pass
        return self

    def __exit__(self, *exc):
        self.f.close()


BuildResult = collections.namedtuple("BuildResult", "uf2 key cached seconds size log version target files work")


def output_name(target, version):
    return "what-the-shell-%s-%s.uf2" % (target, version)


def build(target="pico", micropython=None, version=None, wiring=None, out_dir=None, picotool_src=None,
          jobs=None, root=ROOT):
    """Build (or take from the cache) the UF2 with the game frozen in; returns a BuildResult.

    micropython: a MicroPython v1.27.0 checkout with the rp2 submodules (default: env WTS_MICROPYTHON, else
    the tarball in ../shared/micropython, unpacked into out_dir). version: the project's (package.json) unless
    given. wiring: the board file frozen in as board_config (default: the target's). picotool_src: picotool's
    source (default: the tarball's; without one the pico-sdk downloads it)."""
    t0 = time.time()
    if target not in TARGETS:
        raise FirmwareError("unknown target %r: choose %s" % (target, " or ".join(TARGETS)))
    tg = TARGETS[target]
    version = version or project_version(root)
    if not re.match(r"^[0-9A-Za-z][0-9A-Za-z.+_-]*$", version):
        raise FirmwareError("version %r: use letters, digits and . + _ - only (it goes into the file name)" % version)
    wiring = wiring or tg.wiring
    out_dir = Path(out_dir or OUT_DIR).resolve()
    staged = staged_files(version, wiring, root, tg.machine_code)   # refuses a bad wiring before anything is built
    why = toolchain_problem()
    if why:
        raise FirmwareError("cannot build the firmware here: " + why)
    micropython = micropython or os.environ.get("WTS_MICROPYTHON")
    with _Lock(out_dir / ".lock"):
        if micropython:
            src = Path(micropython).resolve()
            check_source(src)
            ident = checkout_identity(src)
            origin = "MicroPython checkout %s" % src
        else:
            tree, digest = unpack_tarball(TARBALL, out_dir)
            src = tree / "src"
            check_source(src)
            ident = tarball_ident(digest)
            origin = "MicroPython source %s" % TARBALL.name
            if picotool_src is None:
                picotool_src = tree / "picotool-src"
            align_thumb1(src)
        if tg.machine_code and not thumb1_word_aligned(src):
            staged = staged_files(version, wiring, root, machine_code=False)
            _say("%s: the bot's machine code stays out (its bytecode is frozen instead): %s/tools/mpy-tool.py "
                 "is not known to freeze armv6m code 4-byte aligned (see docs/build.md)" % (target, src))
        board_dir = src / "ports" / "rp2" / "boards" / tg.mp_board
        src_id = source_id(ident)
        work = out_dir / "work" / ("%s-%s" % (tg.mp_board, src_id))
        stage = work / "stage"
        manifest = manifest_text(stage, (board_dir / "manifest.py").is_file())
        key = hashlib.sha256(json.dumps({
            "recipe": RECIPE, "fast": FAST_CMAKE.read_text(encoding="utf-8"), "source": ident, "target": tg._asdict(),
            "manifest": manifest,
            "files": {p: marker.sha256(d) for p, d in sorted(staged.items())}}, sort_keys=True).encode()).hexdigest()
        cache = out_dir / "cache"
        cached_uf2 = cache / (key[:24] + ".uf2")
        dest = out_dir / output_name(target, version)
        log_path = out_dir / "logs" / ("%s-%s.log" % (target, key[:12]))
        if cached_uf2.is_file():
            os.utime(cached_uf2)         # the newest used: the last to be pruned
            shutil.copyfile(cached_uf2, dest)
            _say("%s: cached build %s (inputs unchanged) -> %s" % (target, key[:12], dest))
            return BuildResult(dest, key, True, time.time() - t0, dest.stat().st_size, log_path, version, target,
                               sorted(staged), work)
        _say("%s: building MicroPython v%s %s with the game frozen in, from %s (log: %s)"
             % (target, MICROPYTHON_VERSION, tg.mp_board, origin, log_path))
        log = _Log(log_path)
        try:
            tools_dir = out_dir / "tools"
            mpyc = _mpy_cross(src, tools_dir, src_id, log, jobs)
            pt = _picotool(picotool_src, src / "lib" / "pico-sdk", tools_dir, log, jobs)
            if pt is None:
                _say("no picotool source here: the pico-sdk will download picotool (this needs the network)")
            _write_stage(stage, staged)
            (work / "manifest.py").write_text(manifest, encoding="utf-8")
            # GIT_CEILING_DIRECTORIES: MicroPython names itself after `git describe` of its source folder; an
            # unpacked tarball inside this checkout would otherwise take the game's commit as its version.
            env = dict(os.environ, MICROPY_MPYCROSS=str(mpyc), GIT_CEILING_DIRECTORIES=str(src.parent))
            env.pop("CMAKE_ARGS", None)   # the port's Makefile appends to it: a stray one changes the board
            if pt is not None:
                env["picotool_DIR"] = str(pt)   # in the environment, not CMAKE_ARGS (which would replace the board's)
            if _configured(work / "build", "USER_C_MODULES") not in (None, str(FAST_CMAKE)):
                # The Makefile runs cmake only once per build folder: one configured otherwise goes.
                shutil.rmtree(work / "build")
            _say("%s: compiling MicroPython %s (%d jobs)" % (target, tg.mp_board, _jobs(jobs)))
            log.run(["make", "-C", src / "ports" / "rp2", "BOARD=%s" % tg.mp_board, "BUILD=%s" % (work / "build"),
                     "FROZEN_MANIFEST=%s" % (work / "manifest.py"), "USER_C_MODULES=%s" % FAST_CMAKE,
                     "-j%d" % _jobs(jobs)], target, env=env,
                    progress=True)
            built = work / "build" / "firmware.uf2"
            if not built.is_file():
                raise FirmwareError("the build ended without %s; see %s" % (built, log_path))
            check_uf2(built, tg, staged)
            check_machine_code(work / "build" / "firmware.elf")
            cache.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(built, str(cached_uf2) + ".tmp")
            os.replace(str(cached_uf2) + ".tmp", cached_uf2)
            for old in sorted(cache.glob("*.uf2"), key=lambda p: p.stat().st_mtime)[:-CACHE_KEEP]:
                old.unlink()
            shutil.copyfile(cached_uf2, dest)
        finally:
            log.close()
        dt = time.time() - t0
        _say("%s: wrote %s (%d bytes) in %dm%02ds" % (target, dest, dest.stat().st_size, dt // 60, dt % 60))
        return BuildResult(dest, key, False, dt, dest.stat().st_size, log_path, version, target, sorted(staged),
                           work)


def _configured(build_dir, name):
    """The value cmake's cache in a build folder holds for `name`, "" if none, or None before a first build."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return None
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    return ""


def _write_stage(stage, staged):
    """Put the frozen files in the staging folder; unchanged files keep their mtime (mpy-cross skips them)."""
    stage.mkdir(parents=True, exist_ok=True)
    for name, data in staged.items():
        p = stage / name
        if p.is_file() and p.read_bytes() == data:
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    for p in sorted(stage.rglob("*"), reverse=True):
        rel = p.relative_to(stage).as_posix()
        if p.is_file() and rel not in staged:
            p.unlink()
        elif p.is_dir() and not any(p.iterdir()):
            p.rmdir()


def check_uf2(path, tg, staged):
    """The built UF2 is for the target's chip, stays clear of the filesystem, and holds every frozen module."""
    s = uf2.summary(path)
    if tg.family not in s["families"]:
        raise FirmwareError("%s carries UF2 families %s, not %s" % (path, ", ".join(s["families"]), tg.family))
    limit = tg.flash_bytes - tg.storage_bytes
    if s["end"] > limit:
        raise FirmwareError("the firmware ends %d KB into flash, but the filesystem starts at %d KB: "
                            "flashing it would overwrite the board's files" % (s["end"] // 1024, limit // 1024))
    banner = ("MicroPython v%s" % MICROPYTHON_VERSION).encode()
    if banner not in s["payload"]:
        raise FirmwareError("%s does not call itself %s (its source's git describe says otherwise?)"
                            % (path, banner.decode()))
    lost = [n for n in staged if n.encode() not in s["payload"]]
    if lost:
        raise FirmwareError("%s lacks the frozen module%s %s" % (path, "s" if len(lost) > 1 else "", ", ".join(lost)))
    return s
