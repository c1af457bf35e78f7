"""The Raspberry Pi edition: the systemd unit, tools/rpi/install.sh run against a scratch root (stand-ins for apt-get, systemctl, raspi-config, pip), the installed tree running on Blinka-like fakes, and a systemd stop (SIGTERM) leaving the LEDs dark."""
import configparser
import os
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
    for name in ("apt-get", "systemctl", "raspi-config"):
        p = bin_ / name
        p.write_text('#!/bin/sh\necho "%s $*" >> %s\n' % (name, log))
        p.chmod(0o755)
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


def test_requirement_files_pin_exact_versions():
    for name in ("requirements.txt", "requirements-pi4.txt", "requirements-pi5.txt"):
        lines = [x for x in (ROOT / "tools" / "rpi" / name).read_text().splitlines() if x and not x.startswith("#")]
        assert lines and all("==" in x for x in lines), name
    host = (ROOT / "requirements-dev.txt").read_text()
    for line in (ROOT / "tools" / "rpi" / "requirements.txt").read_text().splitlines():
        if line.startswith(("adafruit-circuitpython", "Adafruit-Blinka==")):
            assert line in host, "the host tests run the same %s" % line


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
