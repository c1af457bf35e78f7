"""Tutorial (firmware/tutorial.py, firmware/app.py): each lesson's turn shows its rule on the engine, and the learner paces the lessons with keys (# next, * back, any other key again), their number blinking on the status LEDs."""
import pytest

from engine import Game, EV_EGG, EV_PLACE, EV_STEP, EV_CAPTURED, EV_VANISH, EV_HATCH, BLACK_WON, DRAW
from firmware.modes import M_ATTRACT, M_MENU, M_TUTORIAL, S_SHOW, S_ANIM, S_HOLD
from firmware.tutorial import LESSONS, setup
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg

N = len(LESSONS)


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


def tutorial():
    dev = VirtualDevice(Cfg(), mode="tutorial")
    dev.advance(100)
    return dev, dev.app


def test_a_lesson_plays_its_turn_once_then_waits_for_the_learner():
    dev, app = tutorial()
    assert app.lesson == 0 and app.state == S_SHOW and app.game.turns == 0
    dev.advance(4000)
    assert app.state == S_HOLD and app.game.turns == 1  # played once
    dev.advance(4 * 60000 + 50000)  # 4 min 54 s in all, no key: the same lesson, its result still shown
    assert app.mode == M_TUTORIAL and app.lesson == 0 and app.state == S_HOLD and app.game.turns == 1


def test_five_minutes_without_a_key_go_to_attract_mode_as_a_waiting_game_does():
    dev, app = tutorial()
    dev.advance(4 * 60000)
    dev.tap(1, "5")  # a key restarts the five minutes (this one plays the lesson again)
    dev.advance(4 * 60000 + 55000)
    assert app.mode == M_TUTORIAL and app.lesson == 0
    dev.advance(10000)
    assert app.mode == M_ATTRACT


def test_hash_moves_on_star_steps_back_both_wrap_around():
    dev, app = tutorial()
    seen = [app.lesson]
    for _ in range(N):
        dev.tap(0, "#")
        seen.append(app.lesson)
    assert seen == list(range(N)) + [0]  # after the last lesson, the first again
    dev.tap(1, "#")  # either pad
    dev.tap(1, "#")
    assert app.lesson == 2
    back = []
    for pad in (0, 1, 0):
        dev.tap(pad, "*")
        back.append(app.lesson)
    assert back == [1, 0, N - 1]
    assert app.state == S_SHOW and app.game.turns == 0  # a lesson starts from its position


def test_any_other_key_plays_the_lesson_again():
    dev, app = tutorial()
    dev.tap(0, "#")  # lesson 2: the collision
    dev.advance(4000)
    assert app.lesson == 1 and app.state == S_HOLD and app.game.egg_count == 1
    for pad, key in ((0, "5"), (1, "0"), (1, "9")):
        dev.tap(pad, key)
        assert app.lesson == 1 and app.state == S_SHOW and app.game.egg_count == 0  # the position again
        dev.advance(4000)
        assert app.state == S_HOLD and app.game.egg_count == 1 and app.game.turns == 1


def test_keys_during_the_turn_act_at_once():
    dev, app = tutorial()
    dev.advance(1900)
    while app.state != S_ANIM:
        dev.advance(10)
    dev.tap(0, "#")
    assert app.lesson == 1 and app.state == S_SHOW


def test_holding_star_on_pad_a_opens_the_menu_without_stepping_back():
    dev, app = tutorial()
    dev.tap(0, "#")
    dev.tap(0, "#")
    assert app.lesson == 2
    dev.press(0, "*")
    dev.advance(1500)
    assert app.mode == M_TUTORIAL and app.lesson == 2  # * acts on release: nothing yet
    dev.advance(700)
    assert app.mode == M_MENU
    dev.release(0, "*")
    dev.advance(200)
    assert app.mode == M_MENU
    dev.tap(0, "5")  # the menu's tutorial key: lesson 1 again
    assert app.mode == M_TUTORIAL and app.lesson == 0


def test_a_star_released_before_the_hold_steps_back():
    dev, app = tutorial()
    dev.tap(0, "#")
    dev.press(0, "*")
    dev.advance(1800)
    dev.release(0, "*")
    dev.advance(100)
    assert app.mode == M_TUTORIAL and app.lesson == 0


@pytest.mark.parametrize("lesson", [1, 3, N])
def test_the_status_leds_blink_the_lesson_number(lesson):
    from tools.sim.interface import decode

    dev = VirtualDevice(Cfg(), mode="tutorial", keep_frames=False)
    seen = []
    dev.on_frame = lambda t, raw: seen.append((t, decode(dev.cfg, raw)))
    for _ in range(lesson - 1):
        dev.tap(0, "#")
    dev.advance(6000)  # the turn has played: the lesson waits
    assert dev.app.state == S_HOLD
    seen.clear()
    dev.advance(4 * (lesson * 300 + 1200))
    a = [px[dev.cfg.STATUS_LEDS[0]] for _, px in seen]
    b = [px[dev.cfg.STATUS_LEDS[1]] for _, px in seen]
    assert a == b  # both LEDs, the same
    greens = [p[1] for p in a]
    hi = max(greens)
    assert hi > 0 and all(p[0] == 0 and p[2] <= p[1] for p in a)  # green only
    on = [g > hi // 2 for g in greens]
    times = [t for t, _ in seen]
    bursts, count, last_on = [], 0, None
    for i in range(1, len(on)):
        if on[i] and not on[i - 1]:
            if count and times[i] - last_on > 600:
                bursts.append(count)
                count = 0
            count += 1
        if on[i]:
            last_on = times[i]
    assert bursts[1:3] == [lesson, lesson], bursts  # n blinks, a pause, n blinks, ... (the first may be cut)


@pytest.mark.needs_node
def test_a_waiting_lesson_its_turn_and_its_blinks_allocate_nothing_inside_micropython():
    """With the heap locked on the official port: the position shown, the turn animated, the lesson waiting and
    blinking its number, a key's click (a lesson starting on a key may allocate: it is not a frame)."""
    from tools import upy
    from tools.sim.device import guest_files
    code = ("import sys\nsys.path.insert(0, '/')\nimport vdevice, boards, micropython\n"
            "dev = vdevice.VirtualDevice(boards.load('pico'), mode='tutorial', seed=1, keep_frames=False)\n"
            "app, fb, clock = dev.app, dev.board, dev.clock\n"
            "fb.tone = lambda freq, duty: None\n"  # the fake buzzer's own record of tones: not the firmware's heap
            "def run(ms):\n    for _ in range(ms // 10):\n        app.tick(); clock.now += 10\n"
            "def locked(label, ms):\n    micropython.heap_lock()\n    try:\n        run(ms)\n        r = 'ok'\n"
            "    except MemoryError:\n        r = 'MemoryError'\n    finally:\n        micropython.heap_unlock()\n"
            "    print(label, r, app.lesson, app.state)\n"
            "def key(pad, ch):\n    fb.set_key(pad, ch, True)\n    run(80)\n    fb.set_key(pad, ch, False)\n    run(80)\n"
            "run(20)\nlocked('show', 1500)\nlocked('turn', 3000)\nlocked('wait', 5000)\n"
            "key(0, '#')\nrun(20)\nlocked('next', 6000)\nkey(1, '*')\nrun(20)\nlocked('back', 6000)\n"
            "key(0, '5')\nrun(20)\nlocked('again', 6000)\n")
    out = upy.run(code, files=guest_files()).strip().split("\n")
    assert out == ["show ok 0 6", "turn ok 0 7", "wait ok 0 7", "next ok 1 7", "back ok 0 7", "again ok 0 7"]
