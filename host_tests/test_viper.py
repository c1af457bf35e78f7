"""The bot's hot loops as machine code (engine/bot/viper.py): bytecode on CPython and the webassembly port, and left out of every bytecode-only deploy (on the emulated Pico it runs as viper: test_rp2040_cores.py)."""
import pytest

import tools.upy as upy
from tools import ROOT
from tools.devicefiles import MACHINE_CODE


def test_cpython_runs_the_bytecode():
    from engine.bot import evaluate, solve

    assert evaluate.EMITTER == "bytecode" and evaluate._viper is None and solve._batch is None


@pytest.mark.needs_node
def test_the_webassembly_port_refuses_viper_and_the_bot_plays_on_its_bytecode():
    # The .py sources with viper.py added (project_files, like the browser edition, never gives it): the port's
    # compiler refuses the decorator and the bot falls back
    files = upy.project_files("engine")
    assert "engine/bot/viper.py" not in files
    files["engine/bot/viper.py"] = (ROOT / "engine" / "bot" / "viper.py").read_bytes()
    out = upy.run("from engine import Game\nfrom engine.bot import Bot, evaluate\n"
                  "print(evaluate.EMITTER, Bot('hard', 1).choose(Game(), 1))", files=files)
    emitter, cell = out.split()
    assert emitter == "bytecode" and 0 <= int(cell) < 81


def test_a_deploy_without_a_cpu_to_compile_for_leaves_the_machine_code_out(tmp_path):
    from tools import deploy
    from tools.web import PORT_MPY, device_files
    from tools import circuitpy

    assert MACHINE_CODE == ("engine/bot/viper.py",) and (ROOT / MACHINE_CODE[0]).is_file()
    exe, _ = deploy.mpy_cross_for(*PORT_MPY)
    with_cpu = deploy.compile_all("pico", exe, "armv6m", tmp_path / "a")
    without = deploy.compile_all("pico", exe, None, tmp_path / "b")
    assert "lib/engine/bot/viper.mpy" in with_cpu and "lib/engine/bot/viper.mpy" not in without
    assert set(with_cpu) - set(without) == {"lib/engine/bot/viper.mpy"}
    for compiled in (True, False):
        assert not [p for p in device_files(compiled=compiled) if "viper" in p]
    assert not [p for p in circuitpy.plan("feather_rp2040") if "viper" in p]


def test_the_frozen_firmware_freezes_the_bytecode_only():
    # Frozen in, the machine code made a game against hard fail with MemoryError (allocating 64 KB) on the
    # emulated Pico (tools.bench --only rp2040, its frozen part): until that is understood, it stays out
    from tools.firmware.builder import game_files

    files = game_files("pico")
    assert "engine/bot/evaluate.py" in files and not [p for p in files if p in MACHINE_CODE]
