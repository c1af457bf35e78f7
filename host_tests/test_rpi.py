"""The Raspberry Pi edition: the systemd unit, tools/rpi/install.sh run against a scratch root (stand-ins for apt-get, systemctl, raspi-config, pip), the installed tree running on Blinka-like fakes, and a systemd stop (SIGTERM) leaving the LEDs dark."""
import configparser
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import boards
from tools import ROOT
from tools.sim.fakehw import FakeBoard

UNIT = ROOT / "tools" / "rpi" / "what-the-shell.service"
# /proc/devices on a Pi 4 with SPI on (the names the unit's DeviceAllow= uses)
PROC_DEVICES = "Character devices:\n  1 mem\n 89 i2c\n153 spi\n246 bcm2835-gpiomem\n254 gpiochip\n\nBlock devices:\n  8 sd\n"
INSTALL = ROOT / "tools" / "rpi" / "install.sh"


def unit():
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str
    cp.read(UNIT)
    return cp


def test_unit_starts_the_game_at_boot_from_the_installed_tree():
    u = unit()
    s = u["Service"]
    assert u["Install"]["WantedBy"] == "multi-user.target"
    assert s["ExecStart"] == "/opt/what-the-shell/.venv/bin/python /opt/what-the-shell/circuitpython/code.py"
    env = [x.split("=", 1)[1] for x in UNIT.read_text().splitlines() if x.startswith("Environment=")]
    assert s["WorkingDirectory"] == "/opt/what-the-shell" and "PYTHONPATH=/opt/what-the-shell" in env
    assert s["Restart"] == "on-failure" and s["KillSignal"] == "SIGTERM"
    # the board file's STORAGE_DIR is the directory systemd makes for StateDirectory=
    assert boards.load("rpi4").STORAGE_DIR == "/var/lib/" + s["StateDirectory"]


def _sandbox(tmp_path, model):
    root = tmp_path / "root"
    (root / "proc" / "device-tree").mkdir(parents=True)
    (root / "proc" / "device-tree" / "model").write_bytes(model.encode() + b"\0")
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text("[all]\narm_64bit=1\n")
    (root / "etc" / "systemd" / "system").mkdir(parents=True)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "log"
    (root / "proc" / "devices").write_text(PROC_DEVICES)
    for name in ("apt-get", "systemctl", "raspi-config", "groupadd", "useradd", "usermod", "chown"):
        p = bin_ / name
        p.write_text('#!/bin/sh\necho "%s $*" >> %s\n' % (name, log))
        p.chmod(0o755)
    # getent finds nothing (a fresh Pi); runuser logs, then runs the command (as us: the log says as whom)
    (bin_ / "getent").write_text('#!/bin/sh\necho "getent $*" >> %s\nexit 2\n' % log)
    (bin_ / "runuser").write_text('#!/bin/sh\necho "runuser $*" >> %s\nshift 3\nexec "$@"\n' % log)
    for name in ("getent", "runuser"):
        (bin_ / name).chmod(0o755)
    # python3 stand-in: `-m venv DIR` makes DIR/bin/python, itself a logging stand-in (no network: pip is only logged).
    py = bin_ / "fakepy"
    py.write_text(textwrap.dedent("""\
        #!/bin/sh
        echo "python $*" >> %s
        if [ "$1" = -m ] && [ "$2" = venv ]; then
            mkdir -p "$3/bin"; cp "$0" "$3/bin/python"
        fi
        """ % log))
    py.chmod(0o755)
    env = dict(os.environ, ROOTFS=str(root), PY=str(py), PATH=str(bin_) + os.pathsep + os.environ["PATH"])
    return root, log, env


def _install(env, board="rpi4"):
    return subprocess.run(["sh", str(INSTALL), board], env=env, capture_output=True, text=True, timeout=60)


def test_install_on_a_pi4_copies_pins_packages_and_enables_the_service(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    r = _install(env)
    assert r.returncode == 0, r.stderr
    dest = root / "opt" / "what-the-shell"
    assert (dest / "board_config.py").read_bytes() == (ROOT / "boards" / "rpi4.py").read_bytes()
    assert (dest / "circuitpython" / "code.py").read_bytes() == (ROOT / "circuitpython" / "code.py").read_bytes()
    for pkg in ("engine", "firmware"):
        for src in (ROOT / pkg).glob("*.py"):
            assert (dest / pkg / src.name).read_bytes() == src.read_bytes()
    assert not list(dest.rglob("__pycache__"))
    assert (root / "etc" / "systemd" / "system" / "what-the-shell.service").read_bytes() == UNIT.read_bytes()
    calls = log.read_text()
    assert "requirements.txt -r" in calls and "requirements-pi4.txt" in calls
    assert "useradd --system" in calls and "usermod -a -G gpio,spi what-the-shell" in calls
    assert "raspi-config nonint do_spi 0" in calls
    assert "systemctl enable what-the-shell.service" in calls
    cfg = (root / "boot" / "firmware" / "config.txt").read_text().splitlines()
    assert "dtoverlay=pwm,pin=18,func=2" in cfg and "core_freq_min=500" in cfg
    assert "reboot" in r.stderr
    # Again (after a git pull): nothing added twice, stale modules gone, the service restarted.
    (dest / "firmware" / "stale_module.py").write_text("x = 1\n")
    r = _install(env)
    assert r.returncode == 0, r.stderr
    cfg2 = (root / "boot" / "firmware" / "config.txt").read_text().splitlines()
    assert cfg2 == cfg
    assert not (dest / "firmware" / "stale_module.py").exists()
    assert "systemctl restart what-the-shell.service" in log.read_text()


def test_install_on_a_pi5_uses_the_rp1_driver_and_leaves_spi_alone(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 5 Model B Rev 1.0")
    r = _install(env)
    assert r.returncode == 0, r.stderr
    calls = log.read_text()
    assert "requirements-pi5.txt" in calls and "requirements-pi4.txt" not in calls
    assert "do_spi" not in calls and "core_freq" not in (root / "boot" / "firmware" / "config.txt").read_text()


@pytest.mark.parametrize("model,board,msg", [
    ("", "rpi4", "not a Raspberry Pi"),
    ("Raspberry Pi 4 Model B", "pico", "not a Raspberry Pi board"),
    ("Raspberry Pi 4 Model B", "nosuch", "no board file"),
])
def test_install_refuses_clearly(tmp_path, model, board, msg):
    root, log, env = _sandbox(tmp_path, model)
    r = _install(env, board)
    assert r.returncode != 0 and msg in r.stderr
    assert not (root / "opt").exists()


REQ_LINE = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)( --hash=sha256:[0-9a-f]{64})+$")
REQ_FILES = ("requirements.txt", "requirements-pi4.txt", "requirements-pi5.txt", "requirements-build.txt")


def _pins(name):
    """{normalised name: version} of one tools/rpi requirements file (every line checked: pinned and hashed)."""
    out = {}
    for line in (ROOT / "tools" / "rpi" / name).read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        m = REQ_LINE.match(line)
        assert m, "%s: not NAME==VERSION --hash=sha256:... : %r" % (name, line[:80])
        out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return out


def test_requirement_files_pin_exact_versions_and_the_hashes_of_their_files():
    # Before: versions only (and pip ran as root): --require-hashes refuses any line without a hash.
    for name in REQ_FILES:
        assert _pins(name), name
    host = (ROOT / "requirements-dev.txt").read_text().splitlines()
    pins = _pins("requirements.txt")
    for pkg in ("adafruit-blinka", "adafruit-platformdetect", "adafruit-circuitpython-neopixel",
                "adafruit-circuitpython-pixelbuf"):
        assert any(re.sub(r"[-_.]+", "-", l.split("==")[0]).lower() == pkg and l.split("==")[1] == pins[pkg]
                   for l in host if "==" in l), "the host tests run the same %s==%s" % (pkg, pins[pkg])


def test_every_package_the_pinned_ones_pull_in_is_pinned_too():
    # pip's --require-hashes mode stops at a dependency without a pinned, hashed line. Checked here for
    # the packages installed on this machine too (the host tests run Blinka and the Adafruit libraries).
    from importlib import metadata

    from packaging.requirements import Requirement

    pinned = {}
    for name in REQ_FILES:
        pinned.update(_pins(name))
    env = {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "aarch64", "python_version": "3.11",
           "python_full_version": "3.11.2", "implementation_name": "cpython", "os_name": "posix", "extra": ""}
    checked = 0
    for pkg in _pins("requirements.txt"):
        try:
            dist = metadata.distribution(pkg)
        except metadata.PackageNotFoundError:
            continue
        if dist.version != pinned[pkg]:
            continue  # (another version here: its dependencies may differ)
        checked += 1
        for text in dist.requires or ():
            r = Requirement(text)
            if r.marker is None or r.marker.evaluate(env):
                dep = re.sub(r"[-_.]+", "-", r.name).lower()
                assert dep in pinned, "%s needs %s: pin it with sh tools/rpi/pin.sh" % (pkg, text)
                assert r.specifier.contains(pinned[dep], prereleases=True), (pkg, text, pinned[dep])
    assert checked >= 4


def test_pip_runs_as_the_games_user_only_with_hashes_from_pypi(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    r = _install(env)
    assert r.returncode == 0, r.stderr
    lines = log.read_text().splitlines()
    pips = [i for i, l in enumerate(lines) if l.startswith("python -m pip")]
    assert len(pips) == 2
    for i in pips:
        assert lines[i - 1].startswith("runuser -u what-the-shell -- env HOME=/nonexistent PIP_CONFIG_FILE=/dev/null ")
        assert "--require-hashes" in lines[i] and "--index-url https://pypi.org/simple" in lines[i]
    assert "requirements-build.txt" in lines[pips[0]]
    assert "--no-build-isolation" in lines[pips[1]] and "requirements-pi4.txt" in lines[pips[1]]
    venv = [l for l in lines if l.startswith("python -m venv")]
    assert venv and lines[lines.index(venv[0]) - 1].startswith("runuser -u what-the-shell -- ")
    assert "chown what-the-shell:what-the-shell %s/opt/what-the-shell/.venv" % root in lines


def test_install_warns_when_the_kernel_names_a_device_the_unit_allows_otherwise(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    (root / "proc" / "devices").write_text("Character devices:\n254 gpiochip\n")  # SPI not on yet
    r = _install(env)
    assert r.returncode == 0, r.stderr
    assert "no spi device" in r.stderr and "no gpiomem device" in r.stderr and "gpiochip device" not in r.stderr


SANDBOX = ("NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateNetwork=yes",
           "RestrictAddressFamilies=AF_UNIX", "CapabilityBoundingSet=", "DevicePolicy=closed", "UMask=0077")


def test_the_unit_runs_as_its_own_user_in_a_sandbox():
    # Before: User=root and no sandboxing but StateDirectory=.
    lines = UNIT.read_text().splitlines()
    s = unit()["Service"]
    assert s["User"] == "what-the-shell" and set(s["SupplementaryGroups"].split()) == {"gpio", "spi"}
    for opt in SANDBOX:
        assert opt in lines, opt
    allowed = [l.split("=", 1)[1] for l in lines if l.startswith("DeviceAllow=")]
    assert {"char-gpiochip rw", "char-spi rw", "char-*gpiomem* rw", "char-rp1-pio rw"} == set(allowed)
    assert not any(l.startswith(("AmbientCapabilities=CAP", "User=root", "PrivateUsers=yes", "ProcSubset=pid",
                                 "ProtectKernelTunables=yes")) for l in lines)  # (why: the unit's comments)


# What `systemd-analyze security` still marks on the unit, each left open for a reason the unit states.
LEFT_OPEN = {"RootDirectory=/RootImage=", "SupplementaryGroups=", "PrivateDevices=", "ProtectKernelTunables=",
             "RestrictAddressFamilies=~AF_UNIX", "ProcSubset=", "PrivateUsers=", "DeviceAllow="}


def test_systemd_analyze_security_rates_the_unit_safe(tmp_path):
    # Debian's systemd 252 rates a unit file without booting it (--offline=yes). Before: UNSAFE.
    import shutil

    exe = shutil.which("systemd-analyze")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("CI must rate the unit: install Debian's systemd package (systemd-analyze)")
        pytest.skip("systemd-analyze missing (Debian package systemd)")
    r = subprocess.run([exe, "security", "--offline=yes", "--threshold=10", str(UNIT)], capture_output=True,
                       text=True, timeout=120, cwd=str(tmp_path))
    out = r.stdout + r.stderr
    assert r.returncode == 0, out  # exposure at most 1.0 (the threshold is in tenths)
    assert "Overall exposure level for what-the-shell.service" in out and " SAFE" in out, out
    marked = {l.split()[1] for l in out.splitlines() if l.startswith("\u2717")}
    assert marked <= LEFT_OPEN, marked - LEFT_OPEN


RUN = textwrap.dedent("""
    import sys
    dest, checkout, store = sys.argv[1:4]
    sys.path[:0] = [dest]
    sys.path.append(checkout)  # for the fakes of Blinka's modules only
    import board_config
    board_config.STORAGE_DIR = store
    from tools.sim.circuitpython import Runtime
    from tools.sim.fakehw import FakeBoard
    rt = Runtime(board_config, FakeBoard(board_config))
    frames = []
    def on_frame(t, buf):
        frames.append(bytes(buf))
        if len(frames) == 3:
            print("running", flush=True)
    rt.fb.on_frame = on_frame
    with rt.installed(blinka=True):
        src = open(dest + "/circuitpython/code.py").read()
        exec(compile(src, "code.py", "exec"), {"__name__": "__main__"})
    outside = [m.__name__ for m in list(sys.modules.values())
               if getattr(m, "__name__", "").split(".")[0] in ("engine", "firmware")
               and not (getattr(m, "__file__", "") or "").startswith(dest)]
    print("frames", len(frames), "last", sum(frames[-1]), "outside", outside, flush=True)
""")


def test_installed_tree_runs_and_a_systemd_stop_leaves_the_leds_dark(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    assert _install(env).returncode == 0
    dest = root / "opt" / "what-the-shell"
    store = tmp_path / "state"
    store.mkdir()
    p = subprocess.Popen([sys.executable, "-c", RUN, str(dest), str(ROOT), str(store)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
    try:
        deadline = time.time() + 60
        line = ""
        while time.time() < deadline and "running" not in line:
            line = p.stdout.readline()
            if not line and p.poll() is not None:
                break
        assert "running" in line, p.stderr.read()
        p.send_signal(signal.SIGTERM)  # what `systemctl stop` sends
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "stopped" in out
    last = [x for x in out.splitlines() if x.startswith("frames")][-1].split()
    assert last[3] == "0", "the strip is dark after the stop"
    assert out.rstrip().endswith("outside []")


def test_blinkas_own_keypad_module_through_the_pad_adapter():
    # On a Pi the pads are Blinka's keypad.KeyMatrix (a scanning thread over digitalio, no
    # debounce_threshold): run that real module over the fake pins and read it through EventPad.
    import importlib.util

    from firmware import hw_circuitpython as cp
    from firmware.keypad import EventRing, DOWN
    from tools.sim.circuitpython import Runtime

    cfg = boards.load("rpi4")
    rt = Runtime(cfg, FakeBoard(cfg))
    spec = importlib.util.find_spec("keypad")
    assert "site-packages" in spec.origin  # Blinka's keypad.py
    saved = sys.modules.get("digitalio")
    sys.modules["digitalio"] = rt.digitalio
    try:
        blinka_keypad = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(blinka_keypad)
    finally:
        if saved is None:
            sys.modules.pop("digitalio", None)
        else:
            sys.modules["digitalio"] = saved
    pad = cp.make_pad(cfg.KEYPAD_TYPE, cfg.PAD_A, rt.board, rt.digitalio, blinka_keypad, 0, "PAD_A")
    try:
        assert pad.scanner._interval == 0.02  # the fallback without debounce_threshold
        ring = EventRing()
        def until(cond):  # the scanning thread runs every 20 ms of real time: wait for it, up to 5 s
            deadline = time.time() + 5
            while not cond() and time.time() < deadline:
                time.sleep(0.02)
                pad.scan(ring)
            return cond()

        for keys in (("8",), ("2", "5")):  # one key; two in one column (only the scanned row is driven)
            for k in keys:
                rt.fb.set_key(0, k, True)
            assert until(lambda: all(pad.held(k) for k in keys)) and not pad.held("9")
            for k in keys:
                rt.fb.set_key(0, k, False)
            assert until(lambda: not any(pad.held(k) for k in keys))
        got = []
        while len(ring):
            got.append(ring.get())
        assert got[0] == DOWN | pad.keys.index("8") and got[1] == pad.keys.index("8") and len(got) == 6
    finally:
        # Blinka's deinit() joins a scanning thread that never ends: park the (daemon) thread instead.
        import threading

        park = threading.Event()

        def wait(*a, **k):
            park.wait()

        rt.read = wait
        rt.outputs = type("Parked", (dict,), {"__setitem__": wait})()
        time.sleep(0.05)


def test_a_read_only_state_directory_on_the_pi_is_explained(tmp_path, capsys):
    from firmware import hw_circuitpython as cp
    from tools.sim.circuitpython import Runtime

    cfg = type("Cfg", (), {k: getattr(boards.load("rpi4"), k) for k in dir(boards.load("rpi4")) if k.isupper()})
    cfg.STORAGE_DIR = str(tmp_path / "missing")
    rt = Runtime(cfg, FakeBoard(cfg))
    m = rt.modules()
    del m["storage"]  # Blinka has none
    n = []
    assert cp.start(cfg, stop=lambda: len(n) > 3 or n.append(1), modules=m) == "stopped"
    out = capsys.readouterr().out
    assert "read-only to the game" in out and "StateDirectory" in out and "pad A" not in out


def _run_installed(tmp_path, env, prelude):
    dest = tmp_path / "root" / "opt" / "what-the-shell"
    store = tmp_path / "state"
    store.mkdir()
    script = RUN.replace("with rt.installed(blinka=True):", prelude + "\nwith rt.installed(blinka=True):")
    script = script.replace("sum(frames[-1])", "sum(frames[-1]) if frames else None")
    p = subprocess.run([sys.executable, "-c", script, str(dest), str(ROOT), str(store)], capture_output=True,
                       text=True, cwd=str(tmp_path), timeout=120)
    return p, store


def test_the_service_exits_1_after_crashes_in_a_row_so_systemd_starts_it_again(tmp_path):
    # Before: code.py exited 0 after "crashed", so the unit's Restart=on-failure never fired: dark for good.
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    assert _install(env).returncode == 0
    p, store = _run_installed(tmp_path, env, "import firmware.app\nfirmware.app.App.tick = lambda self: 1 // 0")
    assert p.returncode == 1, p.stderr
    assert "crash 5 at" in (store / "error.log").read_text()
    assert "frames" not in p.stdout  # (code.py did not come back to the script)


def test_a_config_error_on_the_pi_exits_non_zero_too(tmp_path):
    root, log, env = _sandbox(tmp_path, "Raspberry Pi 4 Model B Rev 1.4")
    assert _install(env).returncode == 0
    p, store = _run_installed(tmp_path, env, "board_config.LED_PIN = 'D99'")
    assert p.returncode == 1 and "cannot start" in p.stdout, (p.stdout, p.stderr)
