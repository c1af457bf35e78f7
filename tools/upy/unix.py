"""MicroPython's unix port, built once from ../shared/micropython's source: a real MicroPython on the PC (a 64-bit CPU here), so the engine and its machine code run under a second code emitter beside the RP2040's."""
import shutil
import sys
from pathlib import Path

from tools.firmware import builder

# What the build leaves out: the tarball has no berkeley-db submodule, and FFI needs libffi's headers.
MAKE_FLAGS = ("MICROPY_PY_BTREE=0", "MICROPY_PY_FFI=0")


def problem():
    """None when this machine can build the unix port, else one line naming what is missing."""
    missing = [exe for exe in ("make", "gcc") if shutil.which(exe) is None]
    if missing:
        return "missing %s; on Debian/Ubuntu: sudo apt-get install build-essential" % ", ".join(missing)
    if not builder.TARBALL.is_file():
        return "no MicroPython source: %s is missing" % builder.TARBALL
    return None


def micropython(out_dir=None, jobs=None):
    """The path of the unix port's `micropython` executable, built the first time (about 2 minutes on 2 cores)
    beside the firmware builds (build/firmware: the same unpacked source). FirmwareError if it cannot be built."""
    why = problem()
    if why:
        raise builder.FirmwareError("cannot build MicroPython's unix port here: " + why)
    out_dir = Path(out_dir or builder.OUT_DIR).resolve()
    with builder._Lock(out_dir / ".lock"):
        tree, digest = builder.unpack_tarball(builder.TARBALL, out_dir)
        src_id = builder.source_id(builder.tarball_ident(digest))  # the same mpy-cross as the firmware builds
        bdir = out_dir / "tools" / ("unix-" + src_id)
        exe = bdir / "micropython"
        if exe.is_file():
            return exe
        builder._say("building MicroPython's unix port (once for this source)")
        log = builder._Log(out_dir / "logs" / ("unix-%s.log" % src_id))
        try:
            mpyc = builder._mpy_cross(tree / "src", out_dir / "tools", src_id, log, jobs)
            log.run(["make", "-C", tree / "src" / "ports" / "unix", "BUILD=%s" % bdir, "MICROPY_MPYCROSS=%s" % mpyc]
                    + list(MAKE_FLAGS) + ["-j%d" % builder._jobs(jobs)], "unix port")
        finally:
            log.close()
        return exe


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tools.upy.unix", description=__doc__.split("\n")[0])
    ap.parse_args(argv)
    try:
        print(micropython())
    except builder.FirmwareError as e:
        print("tools.upy.unix: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
