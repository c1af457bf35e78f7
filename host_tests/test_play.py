"""`./wts play` with a board attached: it says what it found (port, USB ids, what the board says it is, its files) and writes nothing the user did not confirm; boards are known by what they say, never by a USB-serial bridge's ids."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from pty_helpers import Terminal
from tools import deploy, play

needs_pty = pytest.mark.skipif(not hasattr(os, "openpty"), reason="pseudo-terminals are POSIX only")
PICO_SAYS = {"implementation": "micropython", "version": "1.27.0", "machine": "Raspberry Pi Pico with RP2040",
             "platform": "rp2", "mpy": 6, "mpy_sub": 3, "arch": 4, "arch_flags": 0, "has_mpy": True}


def files_on(tty):
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", tty, "exec",
                        "import os; print(sorted(os.listdir('/')))"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture
def fresh_pico(needs_uf2):
    """An emulated Pico with a fresh flash (nothing on its filesystem), as a serial device /dev/pts/N."""
    from tools.rp2040 import Pico

    with Pico(pty=True) as pico:
        assert files_on(pico.tty) == "[]"
        yield pico


@needs_pty
def test_wts_play_with_a_board_attached_asks_and_refuses_without_yes(fresh_pico):
    # Issue 27: `./wts play` flashed any attached board without asking. A script (no terminal) gets a refusal.
    tty = fresh_pico.tty
    r = subprocess.run(["sh", str(ROOT / "wts"), "play", "--port", tty], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "play: found a board at %s" % tty in r.stdout
    assert "it says: MicroPython 1.27.0 on 'Raspberry Pi Pico with RP2040' (sys.platform rp2)" in r.stdout
    assert "its files: none (a fresh board)" in r.stdout
    assert r.stderr.strip().splitlines()[-1] == (
        "play: not deploying: this run has no terminal to ask in, and --yes was not given: nothing was written "
        "(./wts play --yes deploys without asking; ./wts play --sim plays the simulator)")
    assert files_on(tty) == "[]"


@needs_pty
def test_wts_play_asks_in_a_terminal_and_no_writes_nothing_yes_deploys(fresh_pico):
    tty = fresh_pico.tty
    with Terminal(["sh", str(ROOT / "wts"), "play", "--port", tty], cwd=str(ROOT)) as term:
        term.expect("with boards/pico.py; the game's settings and scores on it are kept? [y/N] ", timeout=300)
        term.send("n\r")
        assert term.wait(60) == 0
        assert "play: nothing was written to the board." in term.text()
    assert files_on(tty) == "[]"
    with Terminal(["sh", str(ROOT / "wts"), "play", "--port", tty], cwd=str(ROOT)) as term:
        term.expect("[y/N] ", timeout=300)
        term.send("y\r")
        assert term.wait(600) == 0, term.text()
        assert "verified" in term.text() and "play: done." in term.text()
    assert "'wts_manifest.json'" in files_on(tty) and "'main.py'" in files_on(tty)


@needs_pty
def test_a_makers_own_project_is_not_overwritten_even_with_yes(fresh_pico, tmp_path):
    tty = fresh_pico.tty
    mine = tmp_path / "main.py"
    mine.write_text("print('my weather station')\n")
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", tty, "fs", "cp", str(mine), ":main.py"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "tools.play", "--port", tty, "--yes"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert r.returncode == 1
    assert "not from this project: main.py" in r.stdout
    assert "holds files this project did not put there (main.py): nothing was written" in r.stderr
    assert "--overwrite" in r.stderr
    out = subprocess.run([sys.executable, "-m", "mpremote", "connect", tty, "fs", "cat", ":main.py"],
                         capture_output=True, text=True, timeout=120).stdout
    assert out == "print('my weather station')\n"


# ---------------------------------------------------------------- without a board: what play opens and says
def test_a_usb_serial_bridge_is_named_but_never_opened(monkeypatch, capsys):
    # Issue 27: boards/esp32s3.py claimed 0x10C4/0x1A86, so an Arduino clone on a CH340 was flashed as our ESP32-S3.
    monkeypatch.setattr(deploy, "usb_ports", lambda: [("/dev/ttyUSB0", 0x1A86, 0x7523, "USB Serial")])
    monkeypatch.setattr(deploy, "Device", lambda port: pytest.fail("opened %s" % port))
    ran = []
    from tools.sim import cli
    monkeypatch.setattr(cli, "main", lambda argv: ran.append(argv) or 0)
    assert play.main([]) == 0
    out = capsys.readouterr().out
    assert "/dev/ttyUSB0 is a WCH CH340/CH343 USB-serial bridge: any board could be behind it, so play does not open it" in out
    assert "./wts play --port /dev/ttyUSB0" in out
    assert ran == [["--mode", "medium"]]      # the simulator instead


def test_a_board_on_its_own_usb_is_asked_what_it_is(monkeypatch, capsys):
    monkeypatch.setattr(deploy, "usb_ports", lambda: [("/dev/ttyACM0", 0x2E8A, 0x0005, "Board in FS mode")])
    seen = []
    monkeypatch.setattr(play, "look", lambda port: seen.append(port) or {"port": port, "info": PICO_SAYS,
                        "survey": {"files": [], "record": None, "foreign": []}})
    monkeypatch.setattr(deploy, "main", lambda argv: pytest.fail("deployed without asking"))
    assert play.main([]) == 1                 # pytest's stdin is no terminal: refused
    out, err = capsys.readouterr()
    assert seen == ["/dev/ttyACM0"]
    assert "play: found a board at /dev/ttyACM0 (USB 2e8a:0005, Raspberry Pi USB)" in out
    assert "no terminal to ask in, and --yes was not given" in err
    ran = []
    monkeypatch.setattr(deploy, "main", lambda argv: ran.append(argv) or 0)
    assert play.main(["--yes"]) == 0
    assert ran == [["--board", "pico", "--port", "/dev/ttyACM0"]]


@pytest.mark.parametrize("says, want", [
    (dict(machine="Arduino Nano RP2040 Connect with RP2040"),
     "no board file here is for a board that says 'Arduino Nano RP2040 Connect with RP2040' (MACHINES in boards/*.py)"),
    (dict(machine="ESP32 module with ESP32", platform="esp32"), "no board file here is for a board that says 'ESP32 module with ESP32'"),
    (dict(implementation="circuitpython", machine="Adafruit Feather RP2040 with rp2040", platform="RP2040"), None),
])
def test_the_board_file_comes_from_what_the_board_says(monkeypatch, capsys, says, want):
    monkeypatch.setattr(play, "look", lambda port: {"port": port, "info": dict(PICO_SAYS, **says),
                                                    "survey": None if "implementation" in says else
                                                    {"files": [], "record": None, "foreign": []}})
    calls = []
    monkeypatch.setattr(deploy, "main", lambda argv: calls.append(("deploy", argv)) or 0)
    from tools import circuitpy
    monkeypatch.setattr(circuitpy, "main", lambda argv: calls.append(("circuitpy", argv)) or 0)
    rc = play.main(["--port", "/dev/ttyACM0", "--yes"])
    err = capsys.readouterr().err
    if want:
        assert rc == 1 and want in err and calls == []
    else:
        # a CircuitPython board is only ever written by the CircuitPython path (its drive)
        assert rc == 0 and calls == [("circuitpy", ["--board", "feather_rp2040"])]
        monkeypatch.setattr(play, "look", lambda port: {"port": port, "info": dict(PICO_SAYS, **says), "survey": None})
        assert play.main(["--port", "/dev/ttyACM0", "--yes", "--board", "pico"]) == 1
        assert "runs CircuitPython, and boards/pico.py is a MicroPython board file" in capsys.readouterr().err


def test_a_port_where_nothing_answers_is_refused_in_one_line(capsys):
    r = subprocess.run([sys.executable, "-m", "tools.play", "--port", "/dev/nonexistent-port", "--yes"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "play: not deploying: could not talk to a board at /dev/nonexistent-port: no device at /dev/nonexistent-port: "
        "check the cable and the port name (python -m serial.tools.list_ports)"]
