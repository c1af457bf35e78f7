"""firmware/cpufreq.py: the RP2040 goes to its board file's CPU_HZ with its core voltage raised first; anything else keeps the clock and says why (the emulated Pico's own check: test_firmware_rp2040.py)."""
import types
from pathlib import Path

import pytest

import boards
from firmware import cpufreq
from tools import devicefiles

PICO = "Raspberry Pi Pico with RP2040"


class Mem:
    def __init__(self, machine, takes):
        self.machine = machine
        self.takes = takes  # False: a regulator that ignores the write
        self.vreg = 0x10B1  # reset: VSEL 0b1011, 1.10 V

    def __getitem__(self, addr):
        assert addr == 0x40064000
        return self.vreg

    def __setitem__(self, addr, v):
        assert addr == 0x40064000
        self.machine.log.append(("vreg", v))
        if self.takes:
            self.vreg = v


class Machine:
    def __init__(self, takes=True):
        self.hz = 125000000
        self.log = []
        self.mem32 = Mem(self, takes)

    def freq(self, hz=None):
        if hz is None:
            return self.hz
        self.log.append(("freq", hz))
        self.hz = hz


def board(**kw):
    cfg = types.SimpleNamespace(CHIP="rp2040")
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


def test_the_pico_goes_to_200_mhz_after_its_core_voltage_rose_to_1_15_v():
    m = Machine()
    naps = []
    assert cpufreq.speed_up(m, boards.load("pico"), naps.append, PICO) is None
    assert m.hz == 200000000 and m.log == [("vreg", 0x10C1), ("freq", 200000000)]  # VSEL 0b1100 first, EN kept
    assert naps == [1]  # the SDK's settling time before the faster clock


def test_a_clock_within_the_reset_voltage_leaves_the_regulator_alone():
    m = Machine()
    assert cpufreq.speed_up(m, board(CPU_HZ=133000000), lambda ms: None, PICO) is None
    assert m.log == [("freq", 133000000)]


def test_a_regulator_that_does_not_take_the_voltage_keeps_the_clock():
    m = Machine(takes=False)
    why = cpufreq.speed_up(m, board(CPU_HZ=200000000), lambda ms: None, PICO)
    assert m.hz == 125000000 and "1.15 V" in why
    assert ("freq", 200000000) not in m.log


@pytest.mark.parametrize("cfg, chip, said", [
    (board(CPU_HZ=250000000), PICO, "from 48000000 to 200000000"),
    (board(CPU_HZ="fast"), PICO, "whole number"),
    (board(CPU_HZ=True), PICO, "whole number"),
    (board(CHIP="esp32s3", CPU_HZ=240000000), PICO, "for an RP2040 board"),
])
def test_a_bad_cpu_hz_keeps_the_clock_and_the_voltage_and_says_why(cfg, chip, said):
    m = Machine()
    assert said in cpufreq.speed_up(m, cfg, lambda ms: None, chip)
    assert m.hz == 125000000 and m.log == []


@pytest.mark.parametrize("chip", ("Raspberry Pi Pico2 with RP2350", "ESP32S3 module with ESP32S3", ""))
def test_another_chip_or_a_pc_keeps_its_own_clock_quietly(chip):
    # A Pico 2 flashed with the Pico's wiring, or CPython running main.py in the tests: nothing is touched.
    m = Machine()
    assert cpufreq.speed_up(m, board(CPU_HZ=200000000), lambda ms: None, chip) is None
    assert m.log == []


def test_a_board_file_without_cpu_hz_changes_nothing():
    m = Machine()
    assert cpufreq.speed_up(m, board(), lambda ms: None, PICO) is None
    assert m.log == []


def test_deploy_refuses_a_board_file_that_asks_for_more_than_the_chip_is_certified_for(tmp_path):
    (tmp_path / "boards").mkdir()
    src = (Path(boards.__file__).parent / "pico.py").read_text()
    (tmp_path / "boards" / "pico.py").write_text(src.replace("CPU_HZ = 200000000", "CPU_HZ = 250000000"))
    with pytest.raises(ValueError, match=r"boards/pico.py cannot work: CPU_HZ must be .* not 250000000"):
        devicefiles.checked_board("pico", root=tmp_path)
