"""The emulated Pico as a board on a USB port: a /dev/pts/N serial device for mpremote's REPL and any serial tool, and a clone that needs nothing beside it (UF2 and boot ROM kept in tools/rp2040/firmware, checked by SHA-256)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from pty_helpers import Terminal

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="pseudo-terminals are POSIX only")


def mpremote(port, *args, timeout=120, env=None):
    return subprocess.run([sys.executable, "-m", "mpremote", "connect", port] + list(args), capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_mpremote_repl_works_on_the_emulated_picos_serial_device(needs_uf2):
    # Issue 27: `mpremote connect socket://... repl` crashes (its REPL selects on a file descriptor).
    from tools.rp2040 import Pico

    with Pico(pty=True) as pico:
        assert pico.tty.startswith("/dev/pts/") and os.path.exists(pico.tty)
        with Terminal([sys.executable, "-m", "mpremote", "connect", pico.tty, "repl"]) as term:
            term.expect("Ctrl-x to exit this shell")
            for _ in range(20):                   # keys typed while the chip still boots are lost, as on a real Pico:
                term.send("\r")                   # press Enter until the prompt shows
                try:
                    term.expect(">>> ", timeout=3)
                    break
                except AssertionError:
                    pass
            term.expect(">>> ")
            term.send("import sys; print(sys.implementation._machine, 6 * 7)\r")
            term.expect("Raspberry Pi Pico with RP2040 42")
            term.send("\x1d")                     # Ctrl-]: leave mpremote's REPL
            assert term.wait(30) == 0
        # the same device again, as any serial tool would use it, after the REPL closed it
        r = mpremote(pico.tty, "exec", "print(1 + 1)")
        assert r.returncode == 0 and r.stdout == "2\n", r.stderr


def test_the_serial_device_outlives_a_reset(needs_uf2):
    from tools.rp2040 import Pico

    with Pico(pty=True) as pico:
        n = len(pico.events())
        mpremote(pico.tty, "reset")                # machine.reset(): the USB port vanishes and comes back
        pico.wait_event("reset", since=n, timeout=60)
        r = mpremote(pico.tty, "exec", "import machine; print(machine.reset_cause())")
        assert r.returncode == 0 and r.stdout.strip().isdigit(), r.stderr


def test_tools_rp2040_offers_the_serial_device(needs_uf2):
    with Terminal([sys.executable, "-m", "tools.rp2040"], cwd=str(ROOT)) as term:
        shown = term.expect("Ctrl-C stops it", timeout=120)
        tty = shown.split("USB serial at ")[1].split()[0]
        assert tty.startswith("/dev/pts/")
        r = mpremote(tty, "exec", "import sys; print(sys.platform)")
        assert r.returncode == 0 and r.stdout == "rp2\n", r.stderr


@pytest.fixture
def lone_clone(tmp_path):
    """A copy of the repository with nothing beside it (no ../shared) and no WTS_RP2_* in the environment."""
    dst = tmp_path / "lone" / "what-the-shell"
    skip = shutil.ignore_patterns("node_modules", "__pycache__", ".pytest_cache", "*.pyc")
    for d in ("engine", "firmware", "boards", "tools"):
        shutil.copytree(ROOT / d, dst / d, ignore=skip)
    shutil.copy(ROOT / "main.py", dst / "main.py")
    if (ROOT / "tools" / "node" / "node_modules").is_dir():
        os.symlink((ROOT / "tools" / "node" / "node_modules").resolve(), dst / "tools" / "node" / "node_modules")
    assert not (dst.parent.parent / "shared").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WTS_RP2_")}
    env["PYTHONPATH"] = str(dst)
    return dst, env


def test_a_clone_without_shared_runs_the_emulated_pico(needs_uf2, lone_clone):
    # Issue 27: without ../shared a maker had to find the UF2 and a boot ROM that pico-bootrom ships only as source.
    dst, env = lone_clone
    r = subprocess.run([sys.executable, "-c", "from tools import rp2040; print(rp2040.uf2_problem(), rp2040.default_uf2())"],
                       cwd=str(dst), env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.split()[0] == "None", r.stdout + r.stderr
    assert r.stdout.split()[1] == str(dst / "tools" / "rp2040" / "firmware" / "RPI_PICO-v1.27.0.uf2")
    with Terminal([sys.executable, "-m", "tools.rp2040"], cwd=str(dst), env=env) as term:
        shown = term.expect("Ctrl-C stops it", timeout=120)
        tty = shown.split("USB serial at ")[1].split()[0]
        r = mpremote(tty, "exec", "import sys; print(sys.implementation._machine)")
        assert r.stdout == "Raspberry Pi Pico with RP2040\n", r.stderr


def test_the_kept_firmware_is_checked_and_licensed(tmp_path):
    from tools import rp2040

    d = rp2040.BUNDLED
    assert rp2040.bundled_problem() is None
    for name in ("LICENSE-micropython.txt", "LICENSE-pico-bootrom.txt", "LICENSE-pico-sdk.txt", "README.md"):
        assert (d / name).is_file()
    assert "MIT License" in (d / "LICENSE-micropython.txt").read_text()
    assert "Raspberry Pi (Trading) Ltd." in (d / "LICENSE-pico-bootrom.txt").read_text()
    copy = tmp_path / "fw"
    shutil.copytree(d, copy)
    data = bytearray((copy / "bootrom-b1.bin").read_bytes())
    data[100] ^= 1
    (copy / "bootrom-b1.bin").write_bytes(bytes(data))
    why = rp2040.bundled_problem(copy)
    assert why is not None and "bootrom-b1.bin is damaged" in why
