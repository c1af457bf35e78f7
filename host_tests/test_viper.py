"""The bot's hot loops as machine code (engine/bot/viper.py): bytecode on CPython and the webassembly port, and left out of every bytecode-only deploy (on the emulated Pico it runs as viper: test_rp2040_cores.py)."""
import pytest

import tools.upy as upy
from tools import ROOT
from tools.devicefiles import MACHINE_CODE


def test_cpython_runs_the_bytecode():
    from engine.bot import evaluate, solve

    assert evaluate.EMITTER == "bytecode" and evaluate._viper is None
    assert solve.fp_batch.__module__ == "engine.bot.solve"


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


@pytest.mark.needs_node
def test_a_board_that_runs_out_of_heap_compiling_the_machine_code_plays_on_its_bytecode():
    # A mip install gives the board viper.py's source, and compiling it takes far more heap than loading the
    # .mpy (the `memory` section of performance.md): on a board with less free heap than a Pico the compiler
    # raises MemoryError. Stood in for here by a viper.py that raises it on import, on the real MicroPython.
    files = upy.project_files("engine")
    files["engine/bot/viper.py"] = b"raise MemoryError('memory allocation failed, allocating 4096 bytes')\n"
    out = upy.run("from engine import Game\nfrom engine.bot import Bot, evaluate, solve\nfrom engine.game import Game as G\n"
                  "print(evaluate.EMITTER, solve._play is G.play, Bot('hard', 1).choose(Game(), 1))", files=files)
    emitter, bytecode_play, cell = out.split()
    assert emitter == "bytecode" and bytecode_play == "True" and 0 <= int(cell) < 81


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


# tools/mpy-tool.py of MicroPython v1.27.0 where it aligns frozen machine code (the rp2 port freezes for armv6m)
_MPY_TOOL_1_27 = """        # Allow single-byte alignment by default for x86/x64.
        # ARM needs word alignment, ARM Thumb needs halfword, due to instruction size.
        # Xtensa needs word alignment due to the 32-bit constant table embedded in the code.
        if config.native_arch in (
            MP_NATIVE_ARCH_ARMV6,
            MP_NATIVE_ARCH_XTENSA,
            MP_NATIVE_ARCH_XTENSAWIN,
        ):
            # ARMV6 or Xtensa -- four byte align.
            self.fun_data_attributes += " __attribute__ ((aligned (4)))"
        elif (
            MP_NATIVE_ARCH_ARMV6M <= config.native_arch <= MP_NATIVE_ARCH_ARMV7EMDP
        ) or MP_NATIVE_ARCH_RV32IMC <= config.native_arch <= MP_NATIVE_ARCH_RV64IMC:
            # ARMVxxM or RV{32,64}IMC -- two byte align.
            self.fun_data_attributes += " __attribute__ ((aligned (2)))"
"""


def test_the_frozen_firmware_freezes_the_machine_code_only_from_a_micropython_that_aligns_it(tmp_path):
    # Before: the machine code was always left out of the frozen firmware (frozen in at 2 mod 4, viper read
    # wrong constants: docs/records/2026-12-07-frozen-viper/README.md). The tarball's copy gets the alignment; a
    # maker's own checkout without it freezes the bytecode, and a board running that is no different game.
    from tools.firmware import FirmwareError, builder, differs, marker

    files = builder.game_files("pico")
    assert "engine/bot/viper.py" in files and "engine/bot/evaluate.py" in files
    bytecode = builder.game_files("pico", machine_code=False)
    assert set(files) - set(bytecode) == set(MACHINE_CODE)
    tool = tmp_path / "tools" / "mpy-tool.py"
    tool.parent.mkdir()
    tool.write_text(_MPY_TOOL_1_27)
    assert builder.thumb1_word_aligned(tmp_path) is False
    builder.align_thumb1(tmp_path)
    text = tool.read_text()
    assert builder.thumb1_word_aligned(tmp_path) is True
    assert text.index("MP_NATIVE_ARCH_ARMV6M,") < text.index("four byte align")
    builder.align_thumb1(tmp_path)
    assert tool.read_text() == text  # once only
    tool.write_text("# some other mpy-tool.py\n")
    assert builder.thumb1_word_aligned(tmp_path) is False
    with pytest.raises(FirmwareError, match="alignment of frozen machine code"):
        builder.align_thumb1(tmp_path)
    info = {"files": {p: marker.sha256(d) for p, d in bytecode.items()}}
    assert differs(info, files) == []
    info["files"]["engine/bot/viper.py"] = "0" * 64
    assert differs(info, files) == ["engine/bot/viper.py"]
