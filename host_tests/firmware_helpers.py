"""Helpers shared by the firmware tests: whether a firmware can be built here, board config copies, scripted games, lesson positions, recorded frames and tones, trace events as named tuples."""
import json
import os
from collections import namedtuple

import pytest

import boards
from engine import square_name
from firmware.tutorial import LESSONS, setup
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from conftest import CONFORMANCE


def need_firmware_build():
    """Skip (with the reason) when the toolchain or MicroPython's source is missing; under CI fail instead."""
    from tools.firmware import builder, toolchain_problem

    why = toolchain_problem()
    if why is None and not builder.TARBALL.is_file() and not os.environ.get("WTS_MICROPYTHON"):
        why = "no MicroPython source (%s, or env WTS_MICROPYTHON naming a checkout)" % builder.TARBALL
    if why:
        if os.environ.get("CI"):
            pytest.fail("CI must build the firmware: " + why)
        pytest.skip(why)


RANDOM_GAMES = json.loads((CONFORMANCE / "random-games.json").read_text())

# The app's trace events (firmware/app.py, App docstring), by their first field.
BotChose = namedtuple("BotChose", "kind seat turn entry_a entry_b queued")
KeyRead = namedtuple("KeyRead", "kind pad key turn")
_EVENTS = {"bot": BotChose, "key": KeyRead}


def events(trace):
    """The app's trace tuples as named tuples."""
    return [_EVENTS[t[0]](*t) for t in trace]


class Cfg:
    """A board config copy with some fields changed."""

    def __init__(self, name="pico", **changes):
        base = boards.load(name)
        for k in dir(base):
            if k.isupper():
                setattr(self, k, getattr(base, k))
        for k, v in changes.items():
            setattr(self, k, v)


def game_script(turns):
    out = []
    for t in turns:
        out.append("A move %s\nB move %s\nsync" % (t["black"], t["white"]))
    return "\n".join(out)


def play_case(case, board="pico", runtime_device=None):
    """Type every legal turn of a conformance game on the pads; return (device, the legal turns)."""
    turns = []
    for t in case["turns"]:
        if "error" in t["expect"]:
            break
        turns.append(t)
    dev = runtime_device or VirtualDevice(Cfg(board), mode="2p")
    dev.run(parse_script(game_script(turns)))
    return dev, turns


def lesson_device(name, mode="2p"):
    """A device set up at the tutorial lesson's position (its moves not yet typed)."""
    lesson = [x for x in LESSONS if x[0] == name][0]
    dev = VirtualDevice(Cfg(), mode=mode)
    setup(dev.app.game, lesson, [0] * 81)
    dev.app.scene.set_board(dev.app.game)
    return dev, dev.app, lesson


def lesson_moves(lesson):
    return "A move %s\nB move %s" % (square_name(lesson[3]), square_name(lesson[4]))


def record(cfg, script, mark_after, mode="2p"):
    """Run `script` lines; return (device, frames, buzzer tones, times at the end of the lines in `mark_after`)."""
    dev = VirtualDevice(cfg, mode=mode)
    marks = []
    for i, line in enumerate(script):
        dev.run(parse_script(line))
        if i in mark_after:
            marks.append(dev.clock.elapsed())
    return dev, list(dev.frames), list(dev.board.tones), marks


def window(items, t0, t1):
    return [f for f in items if t0 <= f[0] <= t1]


# Every level's move (Bot(level, 5)) in each position, as the guest computes it: the code prints them after '@J'.
_LEVEL_MOVES = ("import json\nfrom engine import Game\nfrom engine.bot import Bot\nout = []\n"
                "for lv in ('easy', 'medium', 'hard'):\n"
                "    for turns, c in %r:\n        g = Game()\n        for x, y in turns:\n            g.play(x, y)\n"
                "        out.append(Bot(lv, 5).choose(g, c))\nprint('@J', json.dumps(out))")


def level_moves(positions):
    """(the guest's code, the host's cells): easy's, medium's and hard's move (seed 5) in each of `positions`
    ([(turns, side to move)]), for a board's answers to be compared with CPython's."""
    from engine import Game
    from engine.bot import Bot

    host = []
    for lv in ("easy", "medium", "hard"):
        for t, c in positions:
            g = Game()
            for x, y in t:
                g.play(x, y)
            host.append(Bot(lv, 5).choose(g, c))
    return _LEVEL_MOVES % (positions,), host
