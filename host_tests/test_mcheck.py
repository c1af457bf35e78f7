"""The deploy's check of the bot's machine code on the board (tools/mcheck.py): the host's positions and answers, what it does when the board agrees, differs, fails or has none; and on the emulated Pico a machine code that chooses otherwise is taken off the board."""
import pytest

from tools import botmoves, mcheck
from tools.deploy import DeployError

from conftest import ROOT


def test_the_checks_positions_are_the_golden_records():
    pos = botmoves.positions()
    for k, rows, eggs, color in mcheck.POSITIONS:
        assert (list(pos[k][0]), list(pos[k][1])) == (rows, eggs)
        assert botmoves.color_of(k, mcheck.SEED) == color


def test_the_hosts_answers_are_the_golden_records_moves():
    from engine import square_name

    import json

    rec = json.loads(botmoves.GOLDEN.read_text())["moves"]["hard"][str(mcheck.SEED)]
    got = mcheck.expected()
    assert [square_name(c) for c, _ in got] == [rec[2 * k:2 * k + 2] for k, _, _, _ in mcheck.POSITIONS]
    assert len({h for _, h in got}) == len(got)


class Board:
    """Stands in for tools.deploy.Device: answers the check's two commands as told, records removals."""

    def __init__(self, emitter="viper", answers=None, fail=None, remove_fails=False):
        self.emitter, self.answers, self.fail, self.remove_fails = emitter, answers, fail, remove_fails
        self.removed = []

    def run(self, code):
        if self.fail == "emitter":
            raise DeployError("lost the board at x")
        return self.emitter + "\n"

    def eval_code(self, code):
        if self.fail == "answers":
            raise DeployError("the board raised an error: MemoryError")
        return self.answers

    def remove(self, path):
        if self.remove_fails:
            raise DeployError("lost the board at x")
        self.removed.append(path)


def test_a_board_that_agrees_keeps_its_machine_code():
    said = []
    b = Board(answers=mcheck.expected())
    assert mcheck.check(b, said.append) == "viper"
    assert b.removed == [] and "as on the host" in said[-1]


def test_a_board_whose_matrices_differ_loses_its_machine_code():
    said = []
    wrong = [list(a) for a in mcheck.expected()]
    wrong[1][1] ^= 1  # one payoff or count otherwise: the same move, another matrix
    b = Board(answers=wrong)
    out = mcheck.check(b, said.append)
    assert b.removed == [mcheck.BOARD_PATH]
    assert out.startswith("removed: ") and "1 of 3 positions (476)" in out
    assert "plays its bytecode" in said[-1]


@pytest.mark.parametrize("answers", [[[57, 11583800]], "[57, 11583800]", None])
def test_an_answer_of_another_shape_counts_as_differing(answers):
    b = Board(answers=answers)
    assert mcheck.check(b, lambda *a: None).startswith("removed: hard's matrices differ from the host's in 3 of 3")
    assert b.removed == [mcheck.BOARD_PATH]


@pytest.mark.parametrize("fail", ["emitter", "answers"])
def test_a_board_that_fails_the_check_loses_its_machine_code(fail):
    said = []
    b = Board(answers=mcheck.expected(), fail=fail)
    out = mcheck.check(b, said.append)
    assert b.removed == [mcheck.BOARD_PATH] and "the check failed on the board" in out


def test_machine_code_frozen_into_the_firmware_is_checked_and_the_maker_told_what_to_do():
    said = []
    assert mcheck.check_frozen(Board(answers=mcheck.expected()), said.append) == "viper"
    wrong = [list(a) for a in mcheck.expected()]
    wrong[0][0] = (wrong[0][0] + 1) % 81
    b = Board(answers=wrong)
    out = mcheck.check_frozen(b, said.append)
    assert out.startswith("differs: hard's matrices differ from the host's in 1 of 3 positions (322)")
    assert b.removed == [] and "Flash the official MicroPython UF2" in said[-1]
    assert mcheck.check_frozen(Board(fail="answers"), said.append).startswith("differs: the check failed")
    assert mcheck.check_frozen(Board(emitter="bytecode"), said.append) == "bytecode"


def test_a_board_running_bytecode_is_left_as_it_is():
    said = []
    b = Board(emitter="bytecode", answers=pytest.fail)
    assert mcheck.check(b, said.append) == "bytecode" and b.removed == []


def test_when_the_machine_code_cannot_be_removed_the_maker_is_told_how():
    b = Board(answers=[[0, 0]] * 3, remove_fails=True)
    with pytest.raises(DeployError) as ei:
        mcheck.check(b, lambda *a: None)
    assert "mpremote fs rm :lib/engine/bot/viper.mpy" in str(ei.value)


def test_on_the_emulated_pico_a_machine_code_that_chooses_otherwise_comes_off_and_the_right_one_stays(
        needs_uf2, tmp_path):
    import shutil

    from tools import deploy
    from tools.rp2040 import Pico, default_uf2

    good = tmp_path / "good"
    for d in ("engine", "firmware", "boards"):
        shutil.copytree(ROOT / d, good / d, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "main.py", good / "main.py")
    bad = tmp_path / "bad"
    shutil.copytree(good, bad)
    vp = bad / "engine" / "bot" / "viper.py"
    src = vp.read_text()
    assert "_MAT = const(30)" in src
    vp.write_text(src.replace("_MAT = const(30)", "_MAT = const(31)"))  # a turtle of material worth one more
    said = []
    with Pico(uf2=default_uf2(), board="pico") as pico:
        pico.wait_usb()
        out = deploy.deploy("pico", port=pico.url, reset=False, log=said.append, root=bad, emulated=True)
        assert out["machine_code"].startswith("removed: hard's matrices differ from the host's"), out
        assert any("the bot plays its bytecode" in line for line in said)

        def ask():
            dev = deploy.Device(pico.url)
            try:
                return dev.run("import os\nfrom engine.bot import evaluate\n"
                               "print(evaluate.EMITTER, 'viper.mpy' in os.listdir('lib/engine/bot'))").split()
            finally:
                dev.close()

        assert ask() == ["bytecode", "False"]
        again = deploy.deploy("pico", port=pico.url, reset=False, log=said.append, root=good, emulated=True)
        assert again["machine_code"] == "viper" and mcheck.BOARD_PATH in again["copied"]
        assert ask() == ["viper", "True"]
