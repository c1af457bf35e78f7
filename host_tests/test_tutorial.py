"""Tutorial (firmware/tutorial.py): each lesson's turn shows its rule on the engine, and tutorial mode runs them all."""
from engine import Game, EV_EGG, EV_PLACE, EV_STEP, EV_CAPTURED, EV_VANISH, EV_HATCH, BLACK_WON, DRAW
from firmware.tutorial import LESSONS, setup
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg


def test_tutorial_lessons_show_their_rules():
    ops = {}
    g = Game()
    for lesson in LESSONS:
        setup(g, lesson, [0] * 81)
        g.play(lesson[3], lesson[4])
        ops[lesson[0]] = [g.log[i] for i in range(0, g.log_len, 3)]
        if lesson[0] == "win":
            assert g.result == BLACK_WON
        if lesson[0] == "sudden":
            assert g.sudden_death
        if lesson[0] == "draw":
            assert g.result == DRAW and g.empty == 0
    assert ops["collision"] == [EV_EGG]
    assert ops["safe"] == [EV_PLACE]  # stepping into a trap: nothing is captured
    assert EV_CAPTURED in ops["capture"] and EV_HATCH not in ops["capture"]
    assert EV_HATCH in ops["hatch"]
    assert ops["chain"].count(EV_STEP) == 2  # two steps
    assert EV_VANISH in ops["vanish"]


def test_tutorial_mode_runs_every_lesson():
    dev = VirtualDevice(Cfg(), mode="tutorial")
    seen = set()
    for _ in range(80):
        dev.advance(1000)
        seen.add(dev.app.lesson)
    assert seen == set(range(len(LESSONS)))
