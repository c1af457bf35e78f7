"""The one board-file check (firmware/boardcheck.py): every tool and the device refuse wiring that cannot work with one clear line, and one broken board file never stops the tools from working with the others."""
import os
import shutil
import subprocess
import sys
import types

import pytest

import boards
from conftest import ROOT

PICO = (ROOT / "boards" / "pico.py").read_text()

# Wiring that cannot work (issue 27): each file is boards/pico.py with one change.
BAD_WIRING = {
    "buzz2": (("BUZZER_PIN = 22", "BUZZER_PIN = 2"), "GP2 is used by BUZZER_PIN and PAD_A column 2"),
    "led3": (("LED_PIN = 28", "LED_PIN = 3"), "GP3 is used by LED_PIN and PAD_A row 1"),
    "padshare": (('"rows": (11, 16, 15, 13), "cols": (12, 10, 14)', '"rows": (11, 16, 15, 13), "cols": (12, 10, 4)'),
                 "GP4 is used by PAD_A column 1 and PAD_B column 3"),
    "ledrow": (("LED_PIN = 28", "LED_PIN = 8"), "GP8 is used by LED_PIN and PAD_A row 2"),
    "ledreserved": (("LED_PIN = 28", "LED_PIN = 25"), "LED_PIN cannot be GP25: GPIO25 is reserved on this board: the Pico's on-board LED"),
}
# Board files that are malformed: each gives one clear line, never a traceback.
MALFORMED = {
    "syntax": (("LED_PIN = 28", "LED_PIN = = 28"), "boards/syntax.py cannot be loaded (line "),
    "undefined": (("LED_PIN = 28", "LED_PIN = GP28"), "NameError"),
    "nopad": (('PAD_A = {"part"', 'PAD_X = {"part"'), "PAD_A is missing"),
    "ledtext": (("LED_COUNT = 83", 'LED_COUNT = "83"'), "LED_COUNT must be a whole number of at least 83"),
    "shortpad": (('"rows": (3, 8, 7, 5)', '"rows": (3, 8, 7)'), "PAD_A: matrix3x4 pad needs 4 row pins and 3 column pins"),
}


def problems(cfg):
    from firmware.boardcheck import problems
    return problems(cfg)


def error_cells():
    """The strip LEDs the bad-board X lights: k = row*9+col on both diagonals of the 9x9 panel."""
    return sorted({r * 9 + r for r in range(9)} | {r * 9 + 8 - r for r in range(9)})


def variant(change):
    old, new = change
    assert old in PICO
    return PICO.replace(old, new, 1)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A copy of the project whose boards/ also holds every bad board file above."""
    dst = tmp_path_factory.mktemp("badboards")
    skip = shutil.ignore_patterns("node_modules", "__pycache__", ".pytest_cache", "*.pyc")
    for d in ("engine", "firmware", "boards", "tools", "docs", "circuitpython"):
        shutil.copytree(ROOT / d, dst / d, ignore=skip)
    for f in ("main.py", "package.json"):
        shutil.copy(ROOT / f, dst / f)
    if (ROOT / "tools" / "node" / "node_modules").is_dir():
        os.symlink(ROOT / "tools" / "node" / "node_modules", dst / "tools" / "node" / "node_modules")
    for name, (change, _) in list(BAD_WIRING.items()) + list(MALFORMED.items()):
        (dst / "boards" / (name + ".py")).write_text(variant(change))
    return dst


def run(clone, *args, stdin=None):
    return subprocess.run([sys.executable, "-m"] + list(args), cwd=str(clone), capture_output=True, text=True,
                          timeout=300, input=stdin, env=dict(os.environ, PYTHONPATH=str(clone)))


def one_clear_line(r, want):
    assert r.returncode != 0, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and want in lines[0], r.stderr
    return lines[0]


def module(name="boards.test", **changes):
    """boards/pico.py as a module object, with some constants changed (None deletes one)."""
    cfg = types.ModuleType(name)
    pico = boards.load("pico")
    for k in dir(pico):
        if k.isupper():
            setattr(cfg, k, getattr(pico, k))
    for k, v in changes.items():
        if v is None:
            delattr(cfg, k)
        else:
            setattr(cfg, k, v)
    return cfg


# ------------------------------------------------------------ the check itself
@pytest.mark.parametrize("name", boards.NAMES)
def test_every_board_file_here_passes(name):
    assert problems(boards.load(name)) == []


def test_a_clash_names_both_uses():
    from firmware.boardcheck import BoardError, check
    with pytest.raises(BoardError) as ei:
        check(module(BUZZER_PIN=2))
    assert str(ei.value) == "boards/test.py cannot work: GP2 is used by BUZZER_PIN and PAD_A column 2"
    assert problems(module(LED_PIN=3)) == ["GP3 is used by LED_PIN and PAD_A row 1"]
    esp = types.ModuleType("boards.esp")
    for k in dir(boards.load("esp32s3")):
        if k.isupper():
            setattr(esp, k, getattr(boards.load("esp32s3"), k))
    esp.BUZZER_PIN = 5
    assert problems(esp) == ["GPIO5 is used by LED_PIN and BUZZER_PIN"]
    feather = types.ModuleType("boards.f")
    for k in dir(boards.load("feather_rp2040")):
        if k.isupper():
            setattr(feather, k, getattr(boards.load("feather_rp2040"), k))
    feather.BUZZER_PIN = "MOSI"
    assert problems(feather) == ["MOSI is used by LED_PIN and BUZZER_PIN"]


def test_types_ranges_and_missing_fields():
    cases = [
        (dict(LED_PIN="GP28"), "LED_PIN must be a GPIO number (such as 2 for GP2), not 'GP28'"),
        (dict(LED_PIN=None), "LED_PIN is missing"),
        (dict(LED_COUNT=80), "LED_COUNT must be a whole number of at least 83"),
        (dict(BRIGHTNESS=3), "BRIGHTNESS must be a number from 0.02 to 1.0, not 3"),
        (dict(GAMMA="2.2"), "GAMMA must be a number from 1.0 to 3.0, not '2.2'"),
        (dict(COLOR_ORDER="GRBW"), "COLOR_ORDER must be a permutation of RGB"),
        (dict(MATRIX_ROTATION=45), "MATRIX_ROTATION must be 0, 90, 180 or 270"),
        (dict(STATUS_LEDS=(0, 82)), "STATUS_LEDS must be (81, 82) or (82, 81)"),
        (dict(CURRENT_BUDGET_MA=120), "CURRENT_BUDGET_MA 120 leaves nothing for the LEDs"),
        (dict(KEYPAD_TYPE="matrix5x5"), "KEYPAD_TYPE must be one of matrix3x4, matrix4x4, direct"),
        (dict(PAD_B=(11, 16)), "PAD_B must be a dict"),
        (dict(PAD_B_ROTATED="yes"), "PAD_B_ROTATED must be True or False"),
        (dict(BUZZER_PIN=40), "BUZZER_PIN cannot be GP40: the rp2040 has no GPIO 40"),
        (dict(CHIP="z80"), "CHIP must be one of esp32s3, rp2040, not 'z80'"),
        (dict(MACHINES="Raspberry Pi Pico"), "MACHINES must be a tuple"),
        (dict(PLATFORM=2), "PLATFORM must be text"),
    ]
    for change, want in cases:
        found = problems(module(**change))
        assert any(want in p for p in found), (change, found)
    assert len(problems(module(LED_PIN=3, BUZZER_PIN=2, BRIGHTNESS=7))) == 3    # every problem, not the first


def test_the_x_shows_whatever_the_matrix_settings_say():
    from firmware.display import strip_map
    cells = set(error_cells())
    assert len(cells) == 17
    for layout in ("serpentine", "progressive"):
        for origin in ("top-left", "top-right", "bottom-left", "bottom-right"):
            for rot in (0, 90, 180, 270):
                m = strip_map(layout, origin, rot)
                shown = {r * 9 + c for r in range(9) for c in range(9) if m[r * 9 + c] in cells}
                assert shown == {r * 9 + r for r in range(9)} | {r * 9 + 8 - r for r in range(9)}


# ------------------------------------------------------------ every tool refuses, in one line
def test_simulator_refuses_a_buzzer_on_a_pad_pin_instead_of_playing_wrong_moves(clone):
    # Issue 27: with BUZZER_PIN = 2 the simulator played "black e2, white c3" for a script laying an egg on c3.
    r = run(clone, "tools.sim", "--headless", "--board", "buzz2", "--script", "-", "--narrate", stdin="A move c3\nB move c3\nsync\n")
    line = one_clear_line(r, "GP2 is used by BUZZER_PIN and PAD_A column 2")
    assert line.startswith("tools.sim: boards/buzz2.py cannot work:")
    assert r.stdout == ""


@pytest.mark.parametrize("name", sorted(BAD_WIRING))
def test_sim_render_and_deploy_refuse_wiring_that_cannot_work(clone, name, tmp_path):
    want = BAD_WIRING[name][1]
    one_clear_line(run(clone, "tools.sim", "--headless", "--board", name, "--script", "-", stdin="A 5\n"), want)
    one_clear_line(run(clone, "tools.render", "wiring", "--board", name, "--out", str(tmp_path / "w.png")), want)
    assert not (tmp_path / "w.png").exists()
    # deploy refuses before it looks for a port: nothing is opened or written
    one_clear_line(run(clone, "tools.deploy", "--board", name, "--port", "/dev/nonexistent", "--dry-run"), want)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_board_files_give_clear_errors_not_tracebacks(clone, name, tmp_path):
    want = MALFORMED[name][1]
    one_clear_line(run(clone, "tools.sim", "--headless", "--board", name, "--script", "-", stdin="A 5\n"), want)
    one_clear_line(run(clone, "tools.render", "wiring", "--board", name, "--out", str(tmp_path / "w.png")), want)
    one_clear_line(run(clone, "tools.deploy", "--board", name, "--port", "/dev/nonexistent", "--dry-run"), want)


def test_broken_board_files_do_not_stop_the_tools_with_the_others(clone, tmp_path):
    for args in (("tools.deploy", "--help"), ("tools.play", "--help"), ("tools.sim", "--help"), ("tools.rp2040", "--help"),
                 ("tools.upy.vboard", "--help"), ("tools.circuitpy", "--help")):
        r = run(clone, *args)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)
    r = run(clone, "tools.sim", "--headless", "--board", "pico", "--script", "docs/demo-game.txt")
    assert r.returncode == 0 and r.stdout.strip().endswith("result: black"), r.stderr
    r = run(clone, "tools.render", "wiring", "--board", "pico", "--out", str(tmp_path / "w.png"))
    assert r.returncode == 0, r.stderr
    code = ("from tools import deploy, play\nimport boards\n"
            "print(len(deploy.board_names()), boards.load('esp32s3').LED_PIN)")
    r = subprocess.run([sys.executable, "-c", code], cwd=str(clone), capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(clone)))
    assert r.returncode == 0 and r.stdout.split() == [str(len(boards.names()) + 10), "5"], r.stderr


def test_web_build_vboard_and_emulated_pico_refuse_a_bad_board(clone):
    code = ("import sys\n"
            "from tools import web\nfrom tools.upy import vboard\nfrom tools import rp2040\n"
            "for f in (lambda: web.device_files('led3'), lambda: vboard.VBoard(board='led3'),\n"
            "          lambda: rp2040.Pico(board='led3')):\n"
            "    try:\n        f()\n    except (ValueError, RuntimeError) as e:\n        print('refused:', e)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=str(clone), capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(clone)))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3 and all("GP3 is used by LED_PIN and PAD_A row 1" in l for l in lines), r.stdout


# ------------------------------------------------------------ on the device at boot
@pytest.mark.needs_node
def test_the_device_shows_the_x_and_prints_the_reason():
    """main.py with a clashing board_config (MicroPython, fake pins): the reason on the REPL, a red X on the LEDs."""
    from tools.deploy import source_files
    from tools.upy.vboard import VBoard

    files = {dest[:-4] + ".py": src.read_bytes() for dest, src in source_files().items()}
    files["board_config.py"] = variant(BAD_WIRING["buzz2"][0]).encode()
    with VBoard(files=files) as vb:                    # no main.py on it: nothing runs at boot
        r = subprocess.run([sys.executable, "-m", "mpremote", "connect", vb.url, "exec", (ROOT / "main.py").read_text()],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert "cannot start: board_config.py cannot work: GP2 is used by BUZZER_PIN and PAD_A column 2" in r.stdout
        frame = vb.frames()[-1]
        lit = [i for i in range(83) if any(frame.data[i * 3:i * 3 + 3])]
        assert lit == error_cells()
        assert all(frame.data[i * 3] == 0 and frame.data[i * 3 + 1] > 0 and frame.data[i * 3 + 2] == 0 for i in lit)  # GRB: red
