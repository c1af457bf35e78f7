"""The computer's search on another core (firmware/thinker.py) with CPython's _thread standing in for MicroPython's: the job protocol (post, answer, stop), no stale answer after a mode change, the same moves as the sliced path, errors surfacing on the app's side; and where the worker is started."""
import _thread
import time

import pytest

from engine import Game, WHITE, parse_square
from engine.notation import board_rows
from engine.bot import Bot, SLICE_UNITS, board
from engine.bot.deepen import Deepen
from firmware.modes import M_HARD, M_MENU, M_2P
from firmware.thinker import Thinker, start
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg


class Clock:
    # Host time, for Thinker.stop()'s bound (the worker is a real thread here).
    def ticks_ms(self):
        return int(time.monotonic() * 1000)

    def ticks_diff(self, a, b):
        return a - b


def thinker():
    return Thinker(_thread, stack=0)   # (CPython refuses stacks under 32 KiB; 0: its default)


def wait_answer(t, job, limit_s=60):
    end = time.monotonic() + limit_s
    while True:
        c = t.answer(job)
        if c >= 0:
            return c
        assert time.monotonic() < end, "no answer from the worker"
        time.sleep(0.001)


def position(turns):
    g = Game()
    for b, w in turns:
        g.play(parse_square(b), parse_square(w))
    return g


def test_the_worker_finds_the_move_choose_finds():
    t = thinker()
    g = position([("e5", "d4"), ("f6", "c3")])
    for seed in (1, 2, 3):
        ref = Bot("hard", seed)
        want = ref.choose(g, WHITE)
        b = Bot("hard", seed)
        s = board()
        s.copy_from(g)
        b.start(s, WHITE)
        j = t.post(b, SLICE_UNITS)
        assert wait_answer(t, j) == want
        assert t.idle()
    assert t.steps > 3   # several step() calls per move: a stop is heard between them


def test_a_stopped_job_never_answers_and_the_next_post_waits_for_the_worker():
    t = thinker()
    b = Bot("hard", 7)
    s = board()
    s.copy_from(position([("e5", "d4"), ("f6", "c3"), ("g7", "b2")]))
    b.start(s, WHITE)
    j = t.post(b, 1)   # one unit a call: the search takes many calls
    with pytest.raises(RuntimeError, match="still running"):
        t.post(b, 1)   # one job at a time
    t.stop(Clock())
    assert t.idle() and t.live == 0
    assert t.answer(j) == -1   # (the job was stopped before its answer: none is ever given)
    # The next job (a new game: the empty board) gets its own answer.
    s.copy_from(Game())
    b.reseed(3)
    b.start(s, WHITE)
    j2 = t.post(b, SLICE_UNITS)
    c = wait_answer(t, j2)
    assert t.answer(j) == -1
    assert c == Bot("hard", 3).choose(Game(), WHITE)


class FailingBot:
    def __init__(self, level):
        self.calls = 0

    def reseed(self, seed):
        pass

    def start(self, game, color):
        pass

    def step(self, units):
        self.calls += 1
        if self.calls > 2:
            raise IndexError("a bug in the search")
        return -1


def test_an_error_in_the_search_is_raised_in_the_app_on_core_0():
    t = thinker()
    j = t.post(FailingBot("hard"), SLICE_UNITS)
    end = time.monotonic() + 10
    while t.done != j:
        assert time.monotonic() < end
        time.sleep(0.001)
    with pytest.raises(RuntimeError, match="failed on core 1: IndexError"):
        t.answer(j)


class SlowBot(Bot):
    """engine.bot.Bot taking 2 ms of host time per step() call, one unit per call: a search still running
    when the test changes the mode."""

    def step(self, units):
        time.sleep(0.002)
        return Bot.step(self, 1)


def device(seed=4, bots=None):
    # The app with a worker (a host thread) as main.py gives it one on the RP2040, in hard mode.
    dev = VirtualDevice(Cfg(), mode="2p", seed=seed, bots=bots)
    dev.hw.thinker = dev.app.thinker = thinker()
    dev.app.set_mode(M_HARD)
    return dev


def advance_until(dev, cond, limit_s=60):
    # The virtual clock stands still while the worker (a host thread) searches: a tick only looks at its answer.
    end = time.monotonic() + limit_s
    while not cond():
        assert time.monotonic() < end, "gave up waiting"
        dev.advance(10)
        time.sleep(0.0005)


def play(dev, moves):
    app = dev.app
    for m in moves:
        advance_until(dev, lambda: app.thinking < 0 and app.state == 0)   # the computer has chosen this turn
        n = app.game.turns
        dev.move(0, parse_square(m))
        advance_until(dev, lambda: app.game.turns == n + 1 and app.state == 0)


def test_the_app_plays_hard_with_the_search_on_the_worker_as_the_sliced_path_does():
    # Same seed, same human moves: the same computer moves and the same board, worker or ticks (the deeper
    # answer left out: it depends on how long the person takes, the tests below).
    boards = []
    for threaded in (True, False):
        dev = device(seed=4) if threaded else VirtualDevice(Cfg(), mode="2p", seed=4)
        if not threaded:
            dev.app.set_mode(M_HARD)
        assert (dev.app.thinker is not None) == threaded
        assert dev.app.deep is not None  # both deepen (on the worker, or in the ticks): compared below
        dev.app.deep = None
        play(dev, ["a1", "i9", "a9"])
        boards.append(dev.board_rows())
        if threaded:
            assert dev.app.thinker.steps > 0
    assert boards[0] == boards[1]
    assert sum(row.count("W") for row in boards[0]) == 3, boards[0]


def test_a_mode_change_while_the_worker_thinks_leaves_no_stale_answer():
    dev = device(seed=4, bots=SlowBot)
    app = dev.app
    t = app.thinker
    draws = []
    entropy = app.entropy
    app.entropy = lambda: draws.append(entropy()) or draws[-1]
    # Turn 1 played; the computer thinks about turn 2 on the worker, slowly.
    play(dev, ["e5"])
    advance_until(dev, lambda: app.thinking < 0)
    dev.move(0, parse_square("d4"))
    advance_until(dev, lambda: app.game.turns == 2 and app.thinking == 1 and app.job)
    stale = app.job
    assert not t.idle()
    app.set_mode(M_MENU)   # (holding * on pad A does this)
    assert t.idle() and app.thinking == -1 and app.job == 0 and t.live == 0
    app.set_mode(M_HARD)   # a new game, the empty board: the answer is for it
    advance_until(dev, lambda: app.thinking < 0)
    assert t.answer(stale) == -1
    ref = Bot("hard")
    ref.reseed(draws[-1])
    assert app.game.turns == 0
    assert app.entries[1].move == ref.choose(Game(), WHITE)


def test_leaving_a_mode_with_a_computer_stops_its_search_before_the_bots_change():
    dev = device(seed=9, bots=SlowBot)
    app = dev.app
    play(dev, ["c3"])
    advance_until(dev, lambda: app.thinking < 0)
    dev.move(0, parse_square("g7"))
    advance_until(dev, lambda: app.game.turns == 2 and app.job)
    assert not app.thinker.idle()
    app.set_mode(M_2P)     # no computer at all: the bots go, the search stopped first
    assert app.thinker.idle() and app.bots == [None, None] and app.thinking == -1


def deep_reference(seed, human):
    """The board after `human`'s moves (black) against the computer's deeper answers (white), and those
    answers: Bot + Deepen on the host."""
    g = Game()
    ref = Bot("hard")
    ref.reseed(seed)
    d = Deepen(ref)
    out = []
    for m in human:
        ref.choose(g, WHITE)
        d.begin(g, WHITE)
        c = d.step(SLICE_UNITS)
        while c < 0:
            c = d.step(SLICE_UNITS)
        out.append(c)
        g.play(parse_square(m), c)
    return board_rows(g), out


@pytest.mark.parametrize("threaded, patient", ((True, True), (False, True), (False, False)))
def test_a_person_who_takes_long_enough_faces_the_deeper_answer(threaded, patient):
    # With core 1 the deeper search runs there; without it (the simulator, the browser, boards without one) in
    # the ticks no computer thinks in. Either way the reveal plays it: the same game as Bot + Deepen on the host.
    # Not patient: the person locks as each turn opens, and the ticks deepen during the countdown and the wait
    # (a PC's ticks deepen many slices each, so here the countdown alone is long enough).
    dev = device(seed=6) if threaded else VirtualDevice(Cfg(), mode="2p", seed=6)
    app = dev.app
    assert (app.thinker is not None) == threaded
    trace = app.trace = []
    draws = []
    entropy = app.entropy
    app.entropy = lambda: draws.append(entropy()) or draws[-1]
    app.set_mode(M_HARD)  # a new game with a seed we see
    human = ["a1", "i9", "a9", "i1"]
    for m in human:
        advance_until(dev, lambda: app.thinking < 0 and app.state == 0)
        if patient:
            advance_until(dev, lambda: app.deep.done())  # the person thinks while core 1 (or the ticks) deepen
        n = app.game.turns
        dev.move(0, parse_square(m))
        advance_until(dev, lambda: app.game.turns == n + 1 and app.state == 0)
    rows, cells = deep_reference(draws[-1], human)
    assert dev.board_rows() == rows
    deeper = [e[3] for e in trace if e[0] == "deep"]
    assert deeper and set(deeper) <= set(cells)  # (a deeper answer the same as its own is not traced)


@pytest.mark.parametrize("threaded", (True, False))
def test_the_computer_chooses_the_next_turn_while_the_last_one_animates(threaded):
    # The board of the next turn is known at the reveal: hard starts on it then (on core 1, or in the ticks),
    # not once the animation is over, so its deeper answer is ready that much sooner for the person. Its
    # cell is locked when the turn opens, before any key of that turn is read (test_app_bots: honesty).
    from firmware.modes import S_ANIM, S_TURN

    dev = device(seed=6) if threaded else VirtualDevice(Cfg(), mode="2p", seed=6)
    app = dev.app
    if not threaded:
        app.set_mode(M_HARD)
    seen = []
    new_turn = app._new_turn

    def opened(now):
        new_turn(now)
        seen.append((app.game.turns, app.entries[1].locked, app.thinking, app.ponder))

    app._new_turn = opened
    for n, m in enumerate(["e5", "a1", "i9"]):
        advance_until(dev, lambda: app.thinking < 0 and app.state == S_TURN)
        dev.move(0, parse_square(m))
        advance_until(dev, lambda: app.state == S_ANIM)
        assert app.game.turns == n + 1 and app.thinking == 1  # choosing turn n + 2 while turn n + 1 animates
        if threaded:
            # (the worker is a host thread and the virtual clock runs ahead of it: let it finish in the animation)
            end = time.monotonic() + 60
            while app.thinking >= 0 and time.monotonic() < end:
                app.tick()
                time.sleep(0.001)
            assert app.state == S_ANIM
        advance_until(dev, lambda: app.state == S_TURN)
    # Each turn opened with hard's cell locked in and its deeper search begun (on the sliced path a hard move
    # takes well under a turn's animation in ticks).
    assert [t[:3] for t in seen] == [(1, True, -1), (2, True, -1), (3, True, -1)]
    assert all(t[3] >= 0 for t in seen)


class TickingClock:
    """A clock whose every reading is `step` ms after the last: each slice seems to take that long."""

    def __init__(self, step):
        self.t = 0
        self.step = step

    def ticks_ms(self):
        self.t += self.step
        return self.t

    def ticks_diff(self, a, b):
        return a - b


@pytest.mark.parametrize("ms, most", ((0, 64), (1, 1), (5, 1)))
def test_the_ticks_deepen_many_slices_on_a_pc_and_one_on_a_microcontroller(ms, most):
    # A slice of a millisecond or more (a microcontroller's) ends the tick's share; quicker ones (a PC's) go
    # on, at most _DEEP_SLICES: the tick stays as long as a move's slice makes it
    dev = VirtualDevice(Cfg(), mode="2p", seed=6)
    app = dev.app
    app.set_mode(M_HARD)
    advance_until(dev, lambda: app.thinking < 0 and app.state == 0)
    assert app.ponder == 0 and app._deepening()
    calls = []
    step = app.deep.step
    app.deep.step = lambda units: calls.append(units) or step(units)
    app.work_ms = TickingClock(ms).ticks_ms
    app._deepen()
    assert len(calls) == most and set(calls) == {app.units}


def test_a_clock_that_stands_still_in_a_tick_has_the_deepening_timed_on_its_real_one(monkeypatch):
    # The browser page's clock moves between ticks only (as the simulator's virtual one: it moves when
    # told); its work_ms is the port's real clock. Timed on the still one, every tick ran _DEEP_SLICES
    # slices: 70 ms steps in Chromium (tools.bench --only web)
    from tools.sim import fakehw

    real = TickingClock(2)
    monkeypatch.setattr(fakehw.Clock, "work_ms", lambda self: real.ticks_ms(), raising=False)
    dev = VirtualDevice(Cfg(), mode="2p", seed=6)
    app = dev.app
    app.set_mode(M_HARD)
    advance_until(dev, lambda: app.thinking < 0 and app.state == 0)
    assert app._deepening()
    calls = []
    step = app.deep.step
    app.deep.step = lambda units: calls.append(units) or step(units)
    app._deepen()
    assert len(calls) == 1


class StalledDeepen(Deepen):
    """A Deepen whose search on the worker waits for the test (a person quicker than it)."""

    gate = None

    def step(self, units):
        StalledDeepen.gate.wait(10)
        return Deepen.step(self, units)


def stalled_game():
    """A hard game on the worker whose deeper search is held by the test (StalledDeepen.gate) in its first step():
    (the device, the seeds the app drew), at the first turn's opening."""
    import threading

    StalledDeepen.gate = threading.Event()
    dev = device(seed=6)
    app = dev.app
    app.trace = []
    draws = []
    entropy = app.entropy
    app.entropy = lambda: draws.append(entropy()) or draws[-1]
    app.set_mode(M_HARD)
    app.deep = StalledDeepen(app.bots[1])
    advance_until(dev, lambda: app.thinking < 0 and app.state == 0)
    advance_until(dev, lambda: app.ponder > 0)  # the deeper search is on the worker, stalled in a step()
    return dev, draws


def test_a_person_quicker_than_the_deepening_gets_the_computers_own_answer_once_core_1_lets_go():
    dev, draws = stalled_game()
    app = dev.app
    dev.move(0, parse_square("a1"))
    dev.advance(3000)  # the countdown is over, but the deeper search still reads the live game: no reveal
    assert app.game.turns == 0 and app.entries[0].locked and app.thinker.live == 0
    StalledDeepen.gate.set()  # its step() ends: the worker lets go, the turn is played
    advance_until(dev, lambda: app.game.turns == 1)
    assert not app.deep.done()
    assert not [e for e in app.trace if e[0] == "deep"]
    advance_until(dev, lambda: app.thinking < 0 and app.state == 0)  # the game goes on
    assert app.game.turns == 1 and app.entries[1].locked
    app._stop_thinking()  # (the reference shares the bots' search memory: nothing may search beside it)
    ref = Bot("hard")
    ref.reseed(draws[-1])
    own = ref.choose(Game(), WHITE)
    assert dev.board_rows()[own // 9][own % 9] == "W"


def test_a_person_who_locks_at_once_waits_up_to_a_second_more_and_faces_the_deeper_answer_on_the_worker():
    # Before: the reveal came when the countdown ended (900 ms after both locked), and a person quicker than the
    # deeper search met hard's first answer. Now it waits up to _WAIT_MS (1000 ms) more for the deeper one.
    dev, draws = stalled_game()
    app = dev.app
    dev.move(0, parse_square("a1"))
    dev.advance(1500)  # the countdown is over: the reveal waits, and the deeper answer is still wanted
    assert app.game.turns == 0 and app.thinker.live == app.ponder > 0
    StalledDeepen.gate.set()  # the deeper search runs to its end, the reveal plays its answer
    advance_until(dev, lambda: app.game.turns == 1)
    assert dev.board_rows() == deep_reference(draws[-1], ["a1"])[0]


class OverflowOnWorker(Bot):
    """engine.bot.Bot whose search overflows its stack on the worker (MicroPython raises RuntimeError when a
    thread's stack runs out), a few step() calls into its first move there; on the app's own thread it runs."""

    worker_calls = 0

    def step(self, units):
        if _thread.get_ident() != MAIN:
            OverflowOnWorker.worker_calls += 1
            if OverflowOnWorker.worker_calls > 2:
                raise RuntimeError("maximum recursion depth exceeded")
        return Bot.step(self, units)


MAIN = _thread.get_ident()


def test_a_search_that_fails_on_the_worker_starts_again_in_the_ticks_and_the_game_goes_on():
    OverflowOnWorker.worker_calls = 0
    dev = device(seed=4, bots=OverflowOnWorker)
    app = dev.app
    t = app.thinker
    play(dev, ["a1", "i9", "a9"])   # (before: the first move's RuntimeError left the app's tick)
    assert OverflowOnWorker.worker_calls == 3   # the worker failed once and was given nothing more
    assert app.thinker is None and t.idle()
    assert "failed on core 1" in t.failed and "maximum recursion depth" in t.failed
    ref = VirtualDevice(Cfg(), mode="2p", seed=4)   # the sliced path from the start: the same game
    ref.app.set_mode(M_HARD)
    play(ref, ["a1", "i9", "a9"])
    assert dev.board_rows() == ref.board_rows()
    # The launcher's next App on the same hardware searches in its ticks too (core 1 failed this boot).
    from firmware.app import App

    assert App(dev.hw, Cfg(), mode="hard").thinker is None


def test_only_the_rp2040_gets_a_worker_and_cpython_says_why():
    th, why = start()
    assert th is None and why.startswith("sliced: not MicroPython")


@pytest.mark.parametrize("machine, thread, why", [
    ("Raspberry Pi Pico with RP2040", False, "sliced: this firmware has no _thread"),
    ("Generic ESP32S3 module with ESP32S3", True, "sliced: Generic ESP32S3 module with ESP32S3 (core 1 is only used"),
])
def test_a_board_or_firmware_without_the_rp2040s_thread_falls_back_to_the_ticks_and_says_why(
        monkeypatch, machine, thread, why):
    import sys
    import types

    monkeypatch.setattr(sys, "implementation", types.SimpleNamespace(name="micropython", _machine=machine))
    if not thread:
        monkeypatch.setitem(sys.modules, "_thread", None)   # (import _thread raises ImportError)
    th, text = start()
    assert th is None and text.startswith(why), text


class _OneCore1:
    # MicroPython's _thread on the RP2040: core 1 takes one thread until a soft reset.
    def __init__(self, in_use=False):
        self.in_use = in_use

    def allocate_lock(self):
        return _thread.allocate_lock()

    def stack_size(self, n):
        pass

    def start_new_thread(self, f, args):
        if self.in_use:
            raise OSError("core1 in use")
        self.in_use = True   # (the worker is not run: these tests only look at who gets it)


def _on_rp2040(monkeypatch, fake):
    import sys
    import types

    import firmware.thinker as thinker_mod

    monkeypatch.setattr(sys, "implementation", types.SimpleNamespace(name="micropython", _machine="Raspberry Pi Pico with RP2040"))
    monkeypatch.setitem(sys.modules, "_thread", fake)
    monkeypatch.setattr(thinker_mod, "_started", None)


def test_main_py_run_again_without_a_soft_reset_gets_the_same_worker_back(monkeypatch):
    # Before: the second start() (main.py run again at the REPL after a Ctrl-C) raised OSError: core1 in use,
    # so the game never started (and the watchdog test's hung game never hung).
    _on_rp2040(monkeypatch, _OneCore1())
    first, _ = start()
    first.live = 7   # a job the interrupted app still wanted
    again, why = start()
    assert again is first and first.live == 0, why
    assert "started earlier this boot" in why


def test_core_1_taken_by_other_code_falls_back_to_the_ticks_and_says_why(monkeypatch):
    _on_rp2040(monkeypatch, _OneCore1(in_use=True))
    th, why = start()
    assert th is None and why == "sliced: core 1 is in use (core1 in use)"
