"""tools.deploy and ./wts play onto a board whose firmware has the game frozen in (python -m tools.firmware build): they say so, copy only the wiring when it differs, remove only the shadows deploy itself left, and suggest a newer UF2 when the frozen game is not this checkout's."""
import json
import shutil

import pytest

from tools import ROOT, deploy, play
from tools.deploy import DeployError
from tools.firmware import frozen_game, game_files
from tools.firmware.marker import sha256

from deploy_fakes import BoardFiles
from firmware_helpers import need_firmware_build

PICO = {"implementation": "micropython", "version": "1.27.0", "machine": "Raspberry Pi Pico with RP2040",
        "platform": "rp2", "mpy": 6, "mpy_sub": 3, "arch": 4, "arch_flags": 0, "has_mpy": True}
PICO2 = dict(PICO, machine="Raspberry Pi Pico2 with RP2350")
GAME_FILES = ("lib/engine/game.mpy", "lib/firmware/app.mpy", "main.py", "board_config.mpy")


def frozen(board="pico", root=ROOT, changed=(), on_fs=()):
    """What tools.firmware.frozen_game() says on a board built from the tree at `root` (`changed`: frozen copies
    that differ from it)."""
    files = {p: sha256(d) for p, d in game_files(board, root).items()}
    for p in changed:
        files[p] = sha256(b"an older " + p.encode())
    return {"version": "0.1.0", "board": board, "micropython": "1.27.0", "files": files, "on_fs": list(on_fs)}


def earlier_deploy(board="pico"):
    """A filesystem as tools.deploy leaves it on the stock firmware (before the frozen UF2 was flashed over it)."""
    files = {p: b"compiled " + p.encode() for p in GAME_FILES}
    files["main.py"] = (ROOT / "main.py").read_bytes()
    files[deploy.MANIFEST_NAME] = deploy.record_text(board, files)
    files["settings.json"] = b'{"brightness": 1}'
    return files


class Board(BoardFiles):
    """A board over deploy.Device's interface that keeps what is written, so the end state can be checked."""

    def __init__(self, files, says=PICO, frozen_says=None):
        self.files, self.says, self.frozen_says = dict(files), says, frozen_says
        self.written, self.reset_done = [], False

    def info(self):
        return dict(self.says)

    def frozen(self):
        if self.frozen_says is None:
            return None
        on_fs = [p for p in deploy.SHADOWS + ("board_config.py", "board_config.mpy")
                 if any(f == p or f.startswith(p + "/") for f in self.files)]
        return dict(self.frozen_says, on_fs=on_fs)     # as the probe finds them now

    def write(self, path, data):
        self.written.append(path)
        self.files[path] = bytes(data)

    def remove(self, path):
        del self.files[path]

    def rmtree(self, path):
        for p in [p for p in self.files if p.startswith(path + "/")]:
            del self.files[p]

    def mkdirs(self, path):
        pass

    def reset(self):
        self.reset_done = True


def run_deploy(dev, board="pico", root=ROOT, **kw):
    said = []
    out = deploy.deploy(board, port="/dev/ttyACM0", log=said.append, root=root, _device=dev, **kw)
    return out, "\n".join(said)


@pytest.fixture(scope="module")
def rewired(tmp_path_factory):
    """A copy of the device sources whose boards/pico.py has the LEDs on GP27: another wiring than the frozen one."""
    dst = tmp_path_factory.mktemp("rewired")
    for d in ("engine", "firmware", "boards"):
        shutil.copytree(ROOT / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "main.py", dst / "main.py")
    shutil.copy(ROOT / "package.json", dst / "package.json")
    p = dst / "boards" / "pico.py"
    text = p.read_text()
    assert "LED_PIN = 28" in text
    p.write_text(text.replace("LED_PIN = 28", "LED_PIN = 27"))
    return dst


# ------------------------------------------------------------------------------ tools.deploy
def test_a_board_running_the_frozen_game_gets_no_second_copy_and_loses_only_deploys_own_shadows():
    # Before: deploy copied all 29 files of the game into lib/ beside the frozen one (never imported there).
    dev = Board(earlier_deploy(), frozen_says=frozen(on_fs=("board_config.mpy", "main.py", "lib/engine",
                                                            "lib/firmware")))
    out, said = run_deploy(dev)
    assert "this board runs the frozen game: What the Shell 0.1.0 is in its firmware (MicroPython 1.27.0, wired as " \
           "boards/pico.py), so no second copy of the game goes onto it" in said
    assert out["copied"] == [] and out["files"] == []
    assert out["removed"] == ["board_config.mpy", "main.py", "lib/engine/", "lib/firmware/"]
    assert sorted(dev.files) == ["settings.json", deploy.MANIFEST_NAME]       # the game's data stays
    assert dev.written == [deploy.MANIFEST_NAME] and dev.reset_done
    assert out["newer"] == [] and "newer UF2" not in said
    # Again: nothing to do, nothing written.
    dev.written = []
    out, said = run_deploy(dev)
    assert out["copied"] == out["removed"] == [] and dev.written == []
    assert "nothing to copy: the board runs the frozen game, wired as boards/pico.py" in said


def test_another_wiring_copies_only_board_config(rewired):
    files = {"settings.json": b"{}", "board_config.py": b"LED_PIN = 5\n"}
    dev = Board(files, frozen_says=frozen(root=ROOT, on_fs=("board_config.py",)))
    out, said = run_deploy(dev, root=rewired)
    assert out["copied"] == ["board_config.mpy"] and out["files"] == ["board_config.mpy"]
    assert out["removed"] == ["board_config.py"]             # it would be imported before the .mpy
    assert sorted(dev.files) == ["board_config.mpy", "settings.json", deploy.MANIFEST_NAME]
    assert dev.files["board_config.mpy"].startswith(b"M\x06")  # compiled, .mpy v6
    assert "compiling boards/pico.py as board_config.mpy (it replaces the frozen wiring)" in said
    assert json.loads(dev.files[deploy.MANIFEST_NAME])["files"] == {"board_config.mpy": deploy.sha(dev.files["board_config.mpy"])}
    # The wiring must still fit the board, in its own words.
    with pytest.raises(DeployError, match="wired for .* but the board at /dev/ttyACM0 says it is 'Raspberry Pi Pico2"):
        run_deploy(Board({}, says=PICO2, frozen_says=frozen()), root=rewired)
    # The frozen wiring itself needs no MACHINES match: the Pico 2 UF2 runs boards/pico.py as it is.
    out, _ = run_deploy(Board({}, says=PICO2, frozen_says=frozen()))
    assert out["copied"] == [] and out["removed"] == []


def test_shadows_deploy_did_not_write_are_left_or_refused_by_what_they_do():
    # mip's root copy of engine/ (no manifest) runs instead of the frozen engine: refused, nothing written.
    files = {"engine/__init__.py": b"", "engine/game.py": b"old", "settings.json": b"{}"}
    dev = Board(files, frozen_says=frozen(on_fs=("engine",)))
    with pytest.raises(DeployError) as ei:
        run_deploy(dev)
    msg = str(ei.value)
    assert "holds engine/, which tools.deploy did not write" in msg and "shadows the frozen engine" in msg
    assert "--overwrite" in msg and "nothing was written" in msg
    assert dev.written == [] and "engine/game.py" in dev.files
    out, _ = run_deploy(dev, overwrite=True)
    assert out["removed"] == ["engine/"] and sorted(dev.files) == ["settings.json", deploy.MANIFEST_NAME]
    # A maker's own main.py only goes unused: it stays, and deploy says why it does not matter.
    mine = {"main.py": b"print('my weather station')\n"}
    dev = Board(mine, frozen_says=frozen(on_fs=("main.py",)))
    out, said = run_deploy(dev)
    assert dev.files["main.py"] == mine["main.py"] and out["kept"] == ["main.py"]
    assert "main.py on its filesystem is never run (the frozen main.py runs at power-up); tools.deploy did not " \
           "write it, so it stays" in said


@pytest.mark.parametrize("says, target", [(PICO, "pico"), (PICO2, "pico2")])
def test_an_older_frozen_game_gets_a_newer_uf2_suggested(says, target):
    dev = Board({}, says=says, frozen_says=frozen(changed=("engine/game.py", "firmware/app.py")))
    out, said = run_deploy(dev, dry_run=True)
    assert out["newer"] == ["engine/game.py", "firmware/app.py"] and out["copied"] == []
    assert ("its frozen game differs from this checkout's (version 0.1.0) in engine/game.py, firmware/app.py: for "
            "this checkout's game, build a newer UF2 (python -m tools.firmware build --board %s) and flash it" % target) in said


def test_the_stock_firmware_still_gets_the_whole_game():
    dev = Board({}, frozen_says=None)
    out, _ = run_deploy(dev, dry_run=True)
    assert "lib/engine/game.mpy" in out["copied"] and "main.py" in out["copied"] and "frozen" not in out


# ------------------------------------------------------------------------------ ./wts play's survey
def seen(files, frozen_says, says=PICO):
    found = {"files": [(p, len(d)) for p, d in sorted(files.items())], "foreign": [],
             "record": json.loads(files[deploy.MANIFEST_NAME]) if deploy.MANIFEST_NAME in files else None}
    return {"port": "/dev/ttyACM0", "info": says, "survey": found, "frozen": frozen_says}


def test_play_says_the_board_runs_the_frozen_game_and_asks_only_for_what_changes(monkeypatch, capsys):
    monkeypatch.setattr(play, "board_tools", lambda: None)
    ran = []
    monkeypatch.setattr(deploy, "main", lambda argv: ran.append(argv) or 0)
    # Nothing on it but the frozen game: nothing to ask, nothing deployed.
    monkeypatch.setattr(play, "look", lambda port: seen({}, frozen()))
    assert play.main(["--port", "/dev/ttyACM0"]) == 0
    out = capsys.readouterr().out
    assert "this board runs the frozen game: What the Shell 0.1.0 is in its firmware (MicroPython 1.27.0, wired " \
           "as boards/pico.py)" in out
    assert "play: nothing to deploy: the board runs the frozen game, wired as boards/pico.py" in out and ran == []
    # An earlier deploy's files: named with what they do; removing them is asked for (no terminal: refused).
    monkeypatch.setattr(play, "look", lambda port: seen(earlier_deploy(), frozen(on_fs=("main.py", "lib/engine"))))
    assert play.main(["--port", "/dev/ttyACM0"]) == 1
    out, err = capsys.readouterr()
    assert "  lib/engine on its filesystem is never imported (the frozen engine comes first on sys.path)" in out
    assert "no terminal to ask in" in err and ran == []
    assert play.main(["--port", "/dev/ttyACM0", "--yes"]) == 0
    assert ran == [["--board", "pico", "--port", "/dev/ttyACM0"]]
    # A Pico 2 (no board file's MACHINES name it) with the frozen wiring: no refusal, nothing to do.
    monkeypatch.setattr(play, "look", lambda port: seen({}, frozen(), says=PICO2))
    assert play.main(["--port", "/dev/ttyACM0"]) == 0
    assert "nothing to deploy" in capsys.readouterr().out
    # A maker's own board_config.py: their wiring is kept unless they name a board file.
    monkeypatch.setattr(play, "look", lambda port: seen({"board_config.py": b"LED_PIN = 5\n"},
                                                        frozen(on_fs=("board_config.py",))))
    assert play.main(["--port", "/dev/ttyACM0", "--yes"]) == 0
    assert "wired by the board_config file on it (not written by tools.deploy)" in capsys.readouterr().out
    assert len(ran) == 1
    # An older frozen game: the newer UF2 is named.
    monkeypatch.setattr(play, "look", lambda port: seen({}, frozen(changed=("engine/game.py",))))
    assert play.main(["--port", "/dev/ttyACM0"]) == 0
    assert "its frozen game differs from this checkout's (engine/game.py): python -m tools.firmware build --board " \
           "pico builds a newer UF2 to flash" in capsys.readouterr().out


# ------------------------------------------------------------------------------ on the emulated Pico
@pytest.fixture(scope="session")
def frozen_uf2():
    from tools.firmware import build

    need_firmware_build()
    return build("pico").uf2.resolve()     # cached by its inputs: built once for every test that needs it


class _Run:
    """run() over the emulated Pico's raw REPL (what frozen_game() needs)."""

    def __init__(self, pico):
        self.pico = pico

    def run(self, code):
        return self.pico.exec(code)


def test_deploy_onto_the_frozen_uf2_on_the_emulated_pico(needs_uf2, rp2_image, frozen_uf2, rewired, tmp_path):
    from tools.rp2040 import Pico

    from firmware_helpers import Cfg

    img = tmp_path / "flash.img"
    shutil.copyfile(rp2_image, img)              # the stock firmware with the game deployed, then the frozen UF2
    said = []
    with Pico(uf2=frozen_uf2, flash=img) as p:
        p.wait_usb()
        n = len(p.events())
        out = deploy.deploy("pico", port=p.url, log=said.append)
        assert out["copied"] == [] and out["newer"] == []
        assert out["machine_code"] == "viper"        # the frozen machine code chose as the host's bytecode
        assert set(out["removed"]) == {"board_config.mpy", "main.py", "lib/engine/", "lib/firmware/"}
        p.wait_event("reset", since=n, timeout=60)
        p.wait_usb()
        assert frozen_game(_Run(p))["on_fs"] == []
        assert p.exec("import os\nprint(sorted(os.listdir('/')))").strip() == "['lib', '%s']" % deploy.MANIFEST_NAME
        # Another wiring (the LEDs on GP27): only board_config.mpy goes on.
        n = len(p.events())
        out = deploy.deploy("pico", port=p.url, log=said.append, root=rewired)
        assert out["copied"] == ["board_config.mpy"] and out["removed"] == []
        p.wait_event("reset", since=n, timeout=60)
        p.wait_usb()
        assert frozen_game(_Run(p))["on_fs"] == ["board_config.mpy"]
    assert any("this board runs the frozen game" in s for s in said)
    # Powered up wired that way, the frozen game draws on GP27.
    with Pico(flash=img, cfg=Cfg("pico", LED_PIN=27)) as p:
        fr = p.wait_frames(2)
        assert len(fr[0].data) == 83 * 3 and any(max(f.data) > 0 for f in fr)
