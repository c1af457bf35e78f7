"""Deploy to a CircuitPython board: copy code.py, boot.py, lib/ (what they import of engine and firmware, Adafruit's neopixel) and the board config to its mounted CIRCUITPY drive, found by volume label, after checking the board file, the board (boot_out.txt), the drive's own files and the free space."""
import argparse
import hashlib
import importlib.util
import os
import string
import subprocess
import sys
from pathlib import Path

from tools import ROOT
from tools.devicefiles import MANIFEST_NAME  # what this tool wrote, with hashes (tools/devicefiles.py)

PACKAGES = ("engine", "firmware")  # -> lib/<name>/ on the drive
CLUSTER = 4096  # FAT allocation unit we plan with (CIRCUITPY's FAT uses 512 B-4 KB clusters): every file rounds up to it
MARGIN = 16 * 1024  # left free on the drive after copying (error.log, settings.json and scores.json need room)


class CircuitPyError(Exception):
    """A problem the maker can fix; str() is one sentence saying what to do."""


# ---------------------------------------------------------------- finding the drive
def mounts():
    """[(mount point, volume label)] of the mounted filesystems this computer shows (Linux, macOS, Windows)."""
    out = []
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/mounts") as f:
                lines = f.read().splitlines()
        except OSError:
            lines = []
        for line in lines:
            parts = line.split()
            if len(parts) >= 3 and parts[2] in ("vfat", "msdos", "fat", "exfat", "fuseblk"):
                point = parts[1].replace("\\040", " ")
                out.append((point, _linux_label(parts[0], point)))
    elif sys.platform == "darwin":
        vol = Path("/Volumes")
        if vol.is_dir():
            out = [(str(p), p.name) for p in vol.iterdir() if p.is_dir()]
    elif sys.platform == "win32":
        out = _windows_drives()
    return out


def _linux_label(device, point):
    # udisks mounts a drive at /media/<user>/<LABEL> (a second one with the same label at LABEL1);
    # /dev/disk/by-label knows the label itself whatever the mount point is called.
    byl = Path("/dev/disk/by-label")
    if byl.is_dir():
        try:
            real = os.path.realpath(device)
            for p in byl.iterdir():
                if os.path.realpath(str(p)) == real:
                    return p.name.replace("\\x20", " ")
        except OSError:
            pass
    return Path(point).name


def _windows_drives():  # pragma: no cover - Windows only
    import ctypes

    out = []
    bitmask = ctypes.windll.kernel32.GetLogicalDrives()
    for i, letter in enumerate(string.ascii_uppercase):
        if not bitmask & (1 << i):
            continue
        root = letter + ":\\"
        name = ctypes.create_unicode_buffer(261)
        if ctypes.windll.kernel32.GetVolumeInformationW(root, name, 261, None, None, None, None, 0):
            out.append((root, name.value))
    return out


def find_drive(label="CIRCUITPY", found=None):
    """The one mounted drive whose volume label is `label` (CircuitPython names its drive CIRCUITPY); CircuitPyError if none or several."""
    found = mounts() if found is None else found
    hits = [p for p, lab in found if lab == label]
    if not hits:
        raise CircuitPyError("no %s drive is mounted: plug the board in (CircuitPython installed: see docs/boards.md), "
                             "wait for the drive to appear, or name it with --drive PATH" % (label,))
    if len(hits) > 1:
        raise CircuitPyError("%d %s drives are mounted (%s): unplug all but one board, or name one with --drive PATH"
                             % (len(hits), label, ", ".join(sorted(hits))))
    return hits[0]


# ---------------------------------------------------------------- what goes where
def neopixel_source():
    """Adafruit's neopixel.py from the pinned pip package (found, not imported: importing it needs a board)."""
    spec = importlib.util.find_spec("neopixel")
    if spec is None or not spec.origin:
        raise CircuitPyError("Adafruit's neopixel library is missing: run ./wts setup (requirements-dev.txt pins it)")
    return Path(spec.origin)


ENTRIES = ("circuitpython/code.py", "circuitpython/boot.py")   # what CircuitPython runs: the game imports from these
# On a fresh CIRCUITPY drive and never a maker's: CircuitPython's own files, the host OS's hidden ones.
DRIVE_OWN = ("boot_out.txt", "sd/placeholder.txt", "System Volume Information/")
DEFAULT_CODE = (b'print("Hello World!")',)   # the code.py CircuitPython puts on a fresh drive


def board_config(board, root=ROOT):
    """boards/<board>.py, checked by firmware/boardcheck.py (CircuitPyError naming every problem)."""
    from tools import devicefiles

    try:
        return devicefiles.checked_board(board, root)
    except ValueError as e:
        raise CircuitPyError(str(e)) from None


def plan(board, root=ROOT, mpy_cross=None, workdir=None):
    """{path on the drive: bytes} for `board`: the modules code.py and boot.py import (never the MicroPython-only
    ones), the board file, Adafruit's neopixel. With `mpy_cross` (CircuitPython's own mpy-cross binary), lib/ gets .mpy files."""
    import boards
    from tools.devicefiles import imported_modules, MACHINE_CODE

    if board not in boards.names(str(Path(root) / "boards")):
        raise CircuitPyError("unknown board %r: choose one of %s (the files in boards/)" % (board, ", ".join(boards.names())))
    board_config(board, root)
    cfg_src = Path(root) / "boards" / (board + ".py")
    out = {
        "boot.py": (Path(root) / "circuitpython" / "boot.py").read_bytes(),
        "board_config.py": cfg_src.read_bytes(),
        "lib/neopixel.py": neopixel_source().read_bytes(),
    }
    for src in imported_modules(ENTRIES, root):
        if src.relative_to(Path(root)).as_posix() in MACHINE_CODE:
            continue  # CircuitPython boards run the bot's bytecode
        rel = "lib/" + src.relative_to(Path(root)).as_posix()
        if mpy_cross and src.name != "__init__.py":
            out[rel[:-3] + ".mpy"] = _compile(mpy_cross, src, workdir)
        else:
            out[rel] = src.read_bytes()
    out["code.py"] = (Path(root) / "circuitpython" / "code.py").read_bytes()  # last: its write restarts the game
    return out


def drive_machine(drive):
    """What the board says it is, from the first line of its boot_out.txt ('Adafruit CircuitPython 9.2.1 on
    2024-11-20; Adafruit Feather RP2040 with rp2040' -> 'Adafruit Feather RP2040 with rp2040'), or None."""
    try:
        first = (Path(drive) / "boot_out.txt").read_text(errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    return first.split("; ", 1)[1].strip() if "; " in first else None


def _ours_or_nobodys(rel, data, record, root):
    if rel in record or rel == MANIFEST_NAME or rel.startswith(("lib/engine/", "lib/firmware/")):
        return True
    if rel in ("board_config.py", "board_config.mpy", "lib/neopixel.py") or rel.startswith(DRIVE_OWN):
        return True
    text = data.strip()
    if rel in ("code.py", "boot.py"):
        ours = (Path(root) / "circuitpython" / rel).read_bytes().split(b"\n", 1)[0]
        if data.split(b"\n", 1)[0] == ours:
            return True
    if rel == "code.py" and text in DEFAULT_CODE:
        return True
    if rel in ("settings.toml", "boot.py") and all(not ln.strip() or ln.strip().startswith(b"#") for ln in text.splitlines()):
        return True
    return False


def foreign(drive, root=ROOT):
    """[path] of the files on the drive that this project did not put there (a maker's own project): not in the
    manifest an earlier copy left, not our lib/ packages or board_config, not CircuitPython's own or defaults."""
    import json

    d = Path(drive)
    try:
        record = json.loads((d / MANIFEST_NAME).read_text()).get("files", {})
    except (OSError, ValueError, AttributeError):
        record = {}
    out = []
    for p in sorted(d.rglob("*")):
        rel = p.relative_to(d).as_posix()
        if not p.is_file() or any(part.startswith(".") for part in rel.split("/")):
            continue
        try:
            data = p.read_bytes() if p.stat().st_size < 65536 else b"?"
        except OSError:
            data = b"?"
        if not _ours_or_nobodys(rel, data, record, root):
            out.append(rel)
    return out


def _compile(mpy_cross, src, workdir):
    dst = Path(workdir) / (src.stem + ".mpy")
    r = subprocess.run([mpy_cross, "-o", str(dst), str(src)], capture_output=True, text=True)
    if r.returncode != 0:
        raise CircuitPyError("%s could not compile %s: %s" % (mpy_cross, src.name, (r.stderr or r.stdout).strip()))
    return dst.read_bytes()


def _on_disk(n):
    return (n + CLUSTER - 1) // CLUSTER * CLUSTER if n else 0


def stale(drive, files):
    """Files below lib/engine, lib/firmware on the drive that the plan does not have (old modules; a .py beside a .mpy)."""
    out = []
    for pkg in PACKAGES:
        d = Path(drive) / "lib" / pkg
        if d.is_dir():
            for p in sorted(d.rglob("*")):
                rel = p.relative_to(drive).as_posix()
                if p.is_file() and rel not in files:
                    out.append(rel)
    return out


def check_space(drive, files, remove=(), free=None):
    """CircuitPyError before anything is written if the files would not fit (existing copies and stale files count as freed)."""
    if free is None:
        import shutil

        free = shutil.disk_usage(drive).free
    need = 0
    for rel, data in files.items():
        old = Path(drive) / rel
        have = old.stat().st_size if old.is_file() else 0
        need += _on_disk(len(data)) - _on_disk(have)
    for rel in remove:
        need -= _on_disk((Path(drive) / rel).stat().st_size)
    if need + MARGIN > free:
        raise CircuitPyError("%s has %d KB free but the game needs %d KB more (and %d KB spare): nothing was copied; "
                             "delete files you do not need from it (old projects in lib/, large images), or compile lib/ "
                             "with --mpy-cross" % (drive, free // 1024, max(need, 0) // 1024 + 1, MARGIN // 1024))


def copy(drive, files, remove=(), dry_run=False, say=print):
    """Write the files that differ (temp file + rename, code.py last) and delete stale ones. Returns the paths written."""
    written = []
    for rel in remove:
        say("remove %s" % rel)
        if not dry_run:
            os.remove(os.path.join(drive, rel))
    for rel, data in files.items():
        dst = Path(drive) / rel
        if dst.is_file() and _sha(dst.read_bytes()) == _sha(data):
            continue
        say("copy %s (%d bytes)" % (rel, len(data)))
        written.append(rel)
        if dry_run:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(dst.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dst)
    return written


def _sha(b):
    return hashlib.sha256(b).hexdigest()


def _record(board, files):
    """The manifest left on the drive (tools/devicefiles.py's format, as tools.deploy leaves on a MicroPython board)."""
    from tools.devicefiles import record_text

    return record_text(board, files)


def deploy(board, drive=None, label=None, mpy_cross=None, dry_run=False, free=None, say=print, overwrite=False):
    """Find the drive, plan, check the space, copy. Returns the list of files written.

    Refused before anything is written: a board file that cannot work, a drive whose boot_out.txt names a board
    the file's MACHINES do not, and (without `overwrite`) a drive holding files this project did not put there."""
    import tempfile

    import boards

    cfg = board_config(board) if board in boards.names() else None
    if cfg is not None:
        label = label or getattr(cfg, "DRIVE_LABEL", "CIRCUITPY")
    drive = drive or find_drive(label or "CIRCUITPY")
    if not os.path.isdir(drive):
        raise CircuitPyError("%s is not a mounted drive" % (drive,))
    if not os.path.isfile(os.path.join(drive, "boot_out.txt")):
        raise CircuitPyError("%s has no boot_out.txt, so it is not a CircuitPython drive: install CircuitPython first (see docs/boards.md)" % (drive,))
    machine = drive_machine(drive)
    machines = boards.machines(cfg) if cfg is not None else ()
    if machines and machine not in machines:
        raise CircuitPyError("--board %s is wired for %s, but the board behind %s says it is %r (boot_out.txt): choose "
                             "the board file made for it, or copy boards/%s.py to boards/NEW.py, fix its pins and add %r "
                             "to its MACHINES" % (board, " / ".join(machines), drive, machine, board, machine))
    with tempfile.TemporaryDirectory() as work:
        files = plan(board, mpy_cross=mpy_cross, workdir=work)
    theirs = foreign(drive)
    if theirs and not overwrite:
        raise CircuitPyError("%s holds files this project did not put there (%s): nothing was copied. Copy what you "
                             "want to keep off the drive, then copy again with --overwrite" % (drive, ", ".join(theirs)))
    code = files.pop("code.py")
    files[MANIFEST_NAME] = _record(board, dict(files, **{"code.py": code}))
    files["code.py"] = code   # still last: its write restarts the game
    remove = stale(drive, files)
    check_space(drive, files, remove, free=free)
    if not dry_run and not os.access(drive, os.W_OK):
        raise CircuitPyError("%s is read-only to this computer: the game was started with %s held on pad A, so it may write "
                             "there now; reset the board without holding %s and try again" % (drive, _write_key(), _write_key()))
    try:
        written = copy(drive, files, remove, dry_run=dry_run, say=say)
    except OSError as e:
        if e.errno == 30:  # EROFS
            raise CircuitPyError("%s is read-only to this computer: reset the board without holding %s on pad A and try again"
                                 % (drive, _write_key()))
        raise CircuitPyError("copying to %s failed (%s): copy again; the game restarts once everything is there" % (drive, e.strerror or e))
    if not dry_run:
        if hasattr(os, "sync"):
            os.sync()
        say("%s: %d file(s) copied; CircuitPython restarts the game by itself" % (drive, len(written)))
    return written


def _write_key():
    from firmware.hw_circuitpython import WRITE_KEY

    return WRITE_KEY


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.circuitpy",
        description="Copy the game to a CircuitPython board's CIRCUITPY drive (code.py, boot.py, board_config.py, "
                    "lib/engine, lib/firmware, lib/neopixel.py); only changed files are written, after a free-space check.")
    ap.add_argument("--board", required=True, help="a board file in boards/ whose PLATFORM is circuitpython, e.g. feather_rp2040")
    ap.add_argument("--drive", help="the drive's mount point (default: the one drive labelled CIRCUITPY)")
    ap.add_argument("--mpy-cross", metavar="PATH", help="CircuitPython's own mpy-cross binary: lib/ as .mpy (less RAM at import)")
    ap.add_argument("--dry-run", action="store_true", help="list what would change; write nothing")
    ap.add_argument("--overwrite", action="store_true",
                    help="copy even though the drive holds files this project did not put there (your own project: "
                         "its code.py is replaced, other files stay)")
    args = ap.parse_args(argv)
    try:
        import boards

        if args.board in boards.names() and boards.platform(board_config(args.board)) != "circuitpython":
            raise CircuitPyError("board %s is not a CircuitPython board (PLATFORM %r): use python -m tools.deploy --board %s"
                                 % (args.board, boards.platform(boards.load(args.board)), args.board))
        deploy(args.board, drive=args.drive, mpy_cross=args.mpy_cross, dry_run=args.dry_run, overwrite=args.overwrite)
    except CircuitPyError as e:
        print("circuitpy: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
