"""The launcher (firmware/launcher.py): boot-time holds (safe boot, key test), crash log and restart, and a dark strip and silent buzzer on every way out."""
import json

import pytest

from firmware import app as fwapp
from firmware import launcher
from firmware.hw import build
from firmware.launcher import launch
from firmware.modes import M_KEYTEST
from tools.sim.fakehw import FakeBoard
from firmware_helpers import Cfg


def _board():
    cfg = Cfg()
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, PWM=fb.PWM, entropy=lambda: 7)
    frames = []
    fb.on_frame = lambda t, raw: frames.append(bytes(raw))
    return cfg, fb, hw, frames


def _dark(frames, fb):
    return frames and not any(frames[-1]) and fb.tones[-1][2] == 0


def test_safe_boot_skips_game_and_forces_minimum_brightness(tmp_path):
    cfg, fb, hw, frames = _board()
    fb.set_key(0, "*", True)
    assert launch(cfg, hw, store_dir=str(tmp_path)) == "safe"
    assert json.loads((tmp_path / "settings.json").read_text())["brightness"] == 0
    assert frames and 0 < max(frames[-1]) <= 6  # two dim blue status LEDs: the game was skipped
    # Next boot without *: the game starts, dim.
    fb.set_key(0, "*", False)
    ticks = []
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=lambda: ticks.append(1) or len(ticks) > 50) == "stopped"


def test_holding_hash_at_power_up_starts_the_key_test(monkeypatch):
    cfg, fb, hw, frames = _board()
    modes = []

    class Seen(fwapp.App):
        def set_mode(self, m):
            modes.append(m)
            super().set_mode(m)

    monkeypatch.setattr(launcher, "App", Seen)
    fb.set_key(0, "#", True)
    n = []
    assert launch(cfg, hw, stop=lambda: n.append(1) or len(n) > 5) == "stopped"
    assert modes[0] == M_KEYTEST


def test_launcher_logs_a_crash_and_restarts(tmp_path, monkeypatch):
    cfg, fb, hw, frames = _board()
    starts = []

    class Boom(fwapp.App):
        def __init__(self, *a, **k):
            starts.append(1)
            super().__init__(*a, **k)

        def tick(self):
            if len(starts) < 3:
                raise RuntimeError("boom %d" % len(starts))
            return super().tick()

    monkeypatch.setattr(launcher, "App", Boom)
    n = []
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=lambda: n.append(1) or len(n) > 20) == "stopped"
    assert len(starts) == 3
    log = (tmp_path / "error.log").read_text()
    assert "boom 1" in log and "boom 2" in log and "RuntimeError" in log


class _Loud(fwapp.App):
    """An app that lights the board and beeps, then leaves the way `how` says."""

    how = "stop"

    def run(self, stop=None):
        for _ in range(30):
            self.tick()
            self.clock.sleep_ms(10)
        self.sound.play(0, self.clock.ticks_ms())
        self.disp.set_brightness(1.0)
        for i in range(81):
            self.disp.put(i, 6 << 4 | 15)
        self.disp.show()
        if _Loud.how == "ctrl-c":
            raise KeyboardInterrupt
        if _Loud.how == "crash":
            raise RuntimeError("boom")
        if _Loud.how == "exit":
            raise SystemExit


@pytest.mark.parametrize("how,result", [("stop", "stopped"), ("crash", "crashed"), ("ctrl-c", KeyboardInterrupt),
                                        ("exit", SystemExit)])
def test_every_way_out_leaves_the_strip_dark_and_the_buzzer_silent(how, result, monkeypatch):
    # Before: after a crash, Ctrl-C or a deploy's interrupt the last frame stayed lit.
    cfg, fb, hw, frames = _board()
    _Loud.how = how
    monkeypatch.setattr(launcher, "App", _Loud)
    if isinstance(result, str):
        assert launch(cfg, hw, max_restarts=1) == result
    else:
        with pytest.raises(result):
            launch(cfg, hw, max_restarts=1)
    assert max(frames[-2]) > 0  # it was lit ...
    assert _dark(frames, fb)  # ... and is dark now


def test_a_second_ctrl_c_while_blanking_still_leaves_it_dark(monkeypatch):
    # mpremote (and so the deploy tool) sends Ctrl-C twice: the second can land inside the blanking.
    cfg, fb, hw, frames = _board()
    _Loud.how = "ctrl-c"
    monkeypatch.setattr(launcher, "App", _Loud)
    real_write = hw.np.write
    hits = []

    def write():
        if hits == ["lit"]:
            hits.append("interrupted")
            raise KeyboardInterrupt
        if max(hw.np.buf) > 0:
            hits[:] = ["lit"]
        real_write()

    hw.np.write = write
    with pytest.raises(KeyboardInterrupt):
        launch(cfg, hw)
    assert "interrupted" in hits
    assert _dark(frames, fb)


# ---- a device that always comes back (issue 30) ---------------------------------------------------------

MINUTE = 60000


def _keys_every(fb, key, first_ms, every_ms, until_ms):
    """Tap `key` on pad A at first_ms, then every every_ms (virtual time), a realistic bouncing contact."""
    t = first_ms
    while t < until_ms:
        fb.bounce(0, key, True, at=t)
        fb.bounce(0, key, False, at=t + 100)
        t += every_ms


def _until(fb, end_ms, seen=None):
    # App.run's stop(): called once per tick; lands the scheduled key contacts, ends at end_ms.
    def stop():
        fb.due()
        if seen is not None:
            seen(fb.clock.now)
        return fb.clock.now >= end_ms

    return stop


class _Apps:
    """Records every App the launcher builds (each start after a crash is a new one)."""

    def __init__(self, monkeypatch):
        self.made = []
        made = self.made

        class Counted(fwapp.App):
            def __init__(self, *a, **k):
                made.append(self)
                super().__init__(*a, **k)

        monkeypatch.setattr(launcher, "App", Counted)


def _bogus_state(tmp_path, monkeypatch):
    # A stored value the checks let through but the firmware cannot use: the realistic crash source
    # (before the checks, {"mode": "bogus"} raised ValueError at the next # in attract mode).
    monkeypatch.setattr(fwapp, "setting_ok", lambda name, v: True)
    (tmp_path / "settings.json").write_text('{"mode": "bogus", "brightness": 1}')
    (tmp_path / "scores.json").write_text('{"2p": [3, 2, 1]}')


def test_twenty_crashes_spread_over_an_hour_and_the_board_still_plays(tmp_path, monkeypatch):
    # Before: the restart counter never went down, so the fifth crash, however long after the first,
    # ended launch() with the LEDs dark until someone power-cycled the board.
    cfg, fb, hw, frames = _board()
    _bogus_state(tmp_path, monkeypatch)
    apps = _Apps(monkeypatch)
    _keys_every(fb, "#", 3 * MINUTE, 3 * MINUTE, 61 * MINUTE)  # a # every 3 minutes: 20 crashes in the hour
    end = 62 * MINUTE
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=_until(fb, end)) == "stopped"  # still running at the end
    assert len(apps.made) == 21  # started again after each of the 20 crashes
    assert apps.made[-1].mode == fwapp.MODE_NAMES.index("attract")
    assert len(set(frames[-200:])) > 1  # the attract game is moving: the board plays
    # Each crash 3 minutes after the last is a new run of crashes: the stored state was never set aside.
    assert (tmp_path / "settings.json").exists() and not (tmp_path / "settings.bad.json").exists()


def test_crashes_in_a_row_set_the_stored_state_aside_and_it_plays_on_defaults(tmp_path, monkeypatch, capsys):
    # The case: one # a minute on a bad stored mode. Before: dark after the fifth, 4.1 minutes in.
    cfg, fb, hw, frames = _board()
    _bogus_state(tmp_path, monkeypatch)
    (tmp_path / "settings.bad.json").write_text('{"from": "an older set-aside"}')
    apps = _Apps(monkeypatch)
    _keys_every(fb, "#", MINUTE, MINUTE, 4 * MINUTE + 1)  # at 1, 2, 3 and 4 minutes
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=_until(fb, 5 * MINUTE)) == "stopped"
    assert len(apps.made) == 4  # three crashes, then the fourth # starts a game
    assert apps.made[-1].mode == fwapp.MODE_NAMES.index("2p")  # the default "last mode played"
    # The suspect files are kept for a look, one copy each (the older set-aside is replaced) ...
    assert json.loads((tmp_path / "settings.bad.json").read_text()) == {"mode": "bogus", "brightness": 1}
    assert json.loads((tmp_path / "scores.bad.json").read_text()) == {"2p": [3, 2, 1]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["error.log", "scores.bad.json", "settings.bad.json",
                                                          "settings.json"]
    # ... and the app runs on defaults.
    assert apps.made[-1].settings.data["brightness"] == 3 and apps.made[-1].scores.data["2p"] == [0, 0, 0]
    log = (tmp_path / "error.log").read_text()
    assert "settings.json -> settings.bad.json" in log and "scores.json -> scores.bad.json" in log
    assert "set aside" in capsys.readouterr().out


class _Crashy(fwapp.App):
    """Crashes after `ms` of running; with `finish`, it first finishes a two-player game (as the app records one)."""

    plan = []  # per start: (ms to run, finished a game first)

    def run(self, stop=None):
        ms, finish = _Crashy.plan.pop(0) if _Crashy.plan else (10 ** 9, False)
        t0 = self.clock.ticks_ms()
        while stop is None or not stop():
            self.clock.sleep_ms(self.tick())
            if self.clock.ticks_diff(self.clock.ticks_ms(), t0) >= ms:
                if finish:
                    self.mode = fwapp.MODE_NAMES.index("2p")
                    self.last_game = self.game
                raise RuntimeError("crash after %d ms" % ms)


@pytest.mark.parametrize("plan,result,starts", [
    ([(1000, False)] * 5, "crashed", 5),  # five quick ones in a row: give up (main.py then resets the chip)
    ([(1000, False)] * 4 + [(3 * MINUTE, False)] * 2, "stopped", 7),  # minutes without a crash: a new run
    ([(1000, False)] * 4 + [(1000, True)] * 6, "stopped", 11),  # a game players finished: a new run
])
def test_the_crash_count_decays_with_healthy_uptime(plan, result, starts, tmp_path, monkeypatch):
    cfg, fb, hw, frames = _board()
    _Crashy.plan = list(plan)
    apps = _Apps(monkeypatch)
    monkeypatch.setattr(launcher, "App", type("C", (_Crashy,), {"__init__": lambda s, *a, **k: (
        apps.made.append(s), fwapp.App.__init__(s, *a, **k))[1]}))
    got = launch(cfg, hw, mode="2p", store_dir=str(tmp_path), stop=_until(fb, 10 * MINUTE))
    assert (got, len(apps.made)) == (result, starts)


def test_the_crash_log_stays_bounded(tmp_path, monkeypatch):
    cfg, fb, hw, frames = _board()
    _Crashy.plan = [(100, False)] * 40
    monkeypatch.setattr(launcher, "App", _Crashy)
    assert launch(cfg, hw, mode="2p", store_dir=str(tmp_path), max_restarts=40, stop=_until(fb, 60 * MINUTE)) == "crashed"
    log = (tmp_path / "error.log").read_bytes()
    assert 0 < len(log) <= launcher.LOG_KEEP and b"crash after" in log


class FakeWatchdog:
    """The watchdog as the launcher sees it: feed() (the first one arms it) and stop(); records virtual times."""

    def __init__(self, clock):
        self.clock = clock
        self.feeds = []
        self.stops = []

    def feed(self):
        self.feeds.append(self.clock.now)

    def stop(self):
        self.stops.append(self.clock.now)


def _gap(times):
    return max(b - a for a, b in zip(times, times[1:]))


def test_the_watchdog_is_fed_every_tick_and_through_every_restart_pause(tmp_path, monkeypatch):
    cfg, fb, hw, frames = _board()
    wd = FakeWatchdog(fb.clock)
    _Crashy.plan = [(1000, False)] * 4 + [(2 * MINUTE, False)]
    monkeypatch.setattr(launcher, "App", _Crashy)
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=_until(fb, 10 * MINUTE), watchdog=wd) == "stopped"
    assert len(wd.feeds) > 10 * MINUTE // 10 // 2  # about one a tick
    assert _gap(wd.feeds) <= 1000 < launcher.WATCHDOG_MS // 2  # pauses (up to 8 s after crash 4) fed each second
    assert len(wd.stops) == 1 and wd.stops[0] >= wd.feeds[-1]  # stopped on the way out


@pytest.mark.parametrize("how", ["ctrl-c", "exit", "crash"])
def test_every_way_out_stops_the_watchdog_so_the_repl_stays_usable(how, monkeypatch):
    # machine.WDT cannot be stopped through MicroPython's API: a deliberate Ctrl-C (mpremote, a deploy)
    # would leave it running and reset the board under the REPL. The launcher stops it on every way out.
    cfg, fb, hw, frames = _board()
    wd = FakeWatchdog(fb.clock)
    _Loud.how = how
    monkeypatch.setattr(launcher, "App", _Loud)
    try:
        launch(cfg, hw, max_restarts=1, watchdog=wd)
    except (KeyboardInterrupt, SystemExit):
        pass
    assert len(wd.stops) == 1


def test_safe_boot_never_arms_the_watchdog(tmp_path):
    cfg, fb, hw, frames = _board()
    wd = FakeWatchdog(fb.clock)
    fb.set_key(0, "*", True)
    assert launch(cfg, hw, store_dir=str(tmp_path), watchdog=wd) == "safe"
    assert wd.feeds == [] and wd.stops == []


class FakeMachine:
    """machine's watchdog parts: WDT (one hardware watchdog), mem32, Timer, reset_cause, reset."""

    WDT_RESET = 3
    PWRON_RESET = 1

    def __init__(self, cause=1):
        self.log = []
        self.mem32 = {}
        self.timers = []
        self.cause = cause
        machine = self

        class WDT:
            def __init__(self, timeout=5000):
                machine.log.append(("WDT", timeout))

            def feed(self):
                machine.log.append(("feed",))

        class Timer:
            PERIODIC = 1

            def __init__(self, id=-1):
                machine.timers.append(self)
                self.callback = None

            def init(self, period=0, mode=0, callback=None):
                self.period, self.callback = period, callback

            def deinit(self):
                self.callback = None

        self.WDT = WDT
        self.Timer = Timer

    def reset_cause(self):
        return self.cause

    def reset(self):
        self.log.append(("reset",))


def test_the_watchdog_arms_at_its_first_feed_and_an_rp2040_stops_it_by_its_enable_bit():
    from firmware.watchdog import Watchdog

    m = FakeMachine()
    wd = Watchdog(m, "rp2040")
    assert m.log == []  # made, not armed
    wd.feed()
    wd.feed()
    assert m.log == [("WDT", 8000), ("feed",), ("feed",)]
    wd.stop()
    # RP2040 datasheet: WATCHDOG_BASE 0x40058000 CTRL bit 30 ENABLE, written through the atomic-clear alias
    assert m.mem32 == {0x40058000 + 0x3000: 1 << 30} and m.timers == []
    wd.stop()  # twice: nothing more
    wd.feed()  # the game again (a soft reset's main.py): armed again
    assert m.log[-2:] == [("WDT", 8000), ("feed",)]


def test_a_watchdog_that_cannot_be_stopped_is_fed_by_a_timer_until_the_game_feeds_it_again():
    from firmware.watchdog import Watchdog

    m = FakeMachine()
    wd = Watchdog(m, "esp32s3")
    wd.feed()
    wd.stop()
    assert m.mem32 == {} and len(m.timers) == 1 and m.timers[0].period == 1000
    n = len(m.log)
    m.timers[0].callback(m.timers[0])  # the REPL is in use: the timer feeds it each second
    assert m.log[n:] == [("feed",)]
    wd.feed()
    assert m.timers[0].callback is None and m.log[-2:] == [("WDT", 8000), ("feed",)]


def test_no_watchdog_where_machine_has_none():
    from firmware import watchdog

    m = FakeMachine()
    del m.WDT
    assert watchdog.make(m, "rp2040") is None
    assert watchdog.reset_note(m, "esp32s3") is None
    assert watchdog.reset_note(FakeMachine(cause=3), "esp32s3") == watchdog.RESET_NOTE
    # rp2: machine.reset() is a watchdog reboot too; only the SDK's watchdog_enable() mark in SCRATCH4 says ours
    m = FakeMachine(cause=3)
    m.mem32 = {0x40058008: 1, 0x4005801C: 0}  # REASON set, SCRATCH4 cleared by watchdog_reboot()
    assert watchdog.reset_note(m, "rp2040") is None
    m.mem32[0x4005801C] = 0x6AB73121
    assert watchdog.reset_note(m, "rp2040") == watchdog.RESET_NOTE


def _main_on_fakes(monkeypatch, tmp_path, machine):
    import sys
    import types

    import boards
    from conftest import ROOT
    from test_firmware_main import _device_modules

    cfg = boards.load("pico")
    monkeypatch.setattr(cfg, "STORAGE_DIR", str(tmp_path), raising=False)
    fb = FakeBoard(cfg)
    _device_modules(monkeypatch, cfg, fb)
    mod = sys.modules["machine"]
    for name in ("WDT", "Timer", "WDT_RESET", "reset_cause", "reset", "mem32"):
        setattr(mod, name, getattr(machine, name))
    assert isinstance(mod, types.ModuleType)
    exec(compile((ROOT / "main.py").read_text(), "main.py", "exec"), {"__name__": "__main__"})
    return fb


def test_main_resets_the_board_after_crashes_in_a_row_and_notes_a_watchdog_reset(monkeypatch, tmp_path):
    class Broken(fwapp.App):
        def tick(self):
            raise RuntimeError("broken firmware")

    monkeypatch.setattr(launcher, "App", Broken)
    monkeypatch.setattr(launcher, "LOG_KEEP", 100000)  # (the whole log, to read its first line)
    m = FakeMachine(cause=FakeMachine.WDT_RESET)  # this boot follows a watchdog reset
    m.mem32.update({0x40058008: 1, 0x4005801C: 0x6AB73121})
    fb = _main_on_fakes(monkeypatch, tmp_path, m)
    assert m.log[-1] == ("reset",)  # five crashes in a row: a hard reset, not a dark board
    assert m.log[0] == ("WDT", 8000) and ("feed",) in m.log  # armed, fed through the pauses ...
    assert m.mem32[0x4005B000] == 1 << 30  # ... and stopped
    assert fb.clock.now >= 15000  # 1 + 2 + 4 + 8 s of pauses, time for a Ctrl-C
    log = (tmp_path / "error.log").read_text()
    assert log.startswith("--- watchdog reset") and "broken firmware" in log


def test_code_py_on_circuitpython_reloads_after_crashes_in_a_row(monkeypatch, tmp_path):
    # CircuitPython: "crashed" ends code.py; before, the board then sat dark at "Code done running".
    # supervisor.reload() runs code.py again from a fresh VM (boot.py's writable mount stays).
    import sys

    from conftest import ROOT
    from tools.sim.circuitpython import Runtime

    class Broken(fwapp.App):
        def tick(self):
            raise RuntimeError("broken firmware")

    monkeypatch.setattr(launcher, "App", Broken)
    cfg = Cfg("feather_rp2040", STORAGE_DIR=str(tmp_path))
    rt = Runtime(cfg, FakeBoard(cfg))
    reloads = []
    rt.supervisor.reload = lambda: reloads.append(1)
    monkeypatch.setitem(sys.modules, "board_config", cfg)
    with rt.installed():
        exec(compile((ROOT / "circuitpython" / "code.py").read_text(), "code.py", "exec"), {"__name__": "__main__"})
    assert reloads == [1]
    assert "crash 5 at" in (tmp_path / "error.log").read_text()


@pytest.mark.needs_node
def test_feeding_the_watchdog_every_tick_allocates_nothing_on_micropython():
    # The feed runs once per tick, beside the heap-locked frame and scan paths: it must not allocate either.
    from tools import upy

    code = """
import micropython
from firmware.watchdog import Watchdog
from firmware.launcher import _fed
class WDT:
    n = 0
    def __init__(self, timeout=0):
        pass
    def feed(self):
        WDT.n += 1
class M:
    pass
m = M()
m.WDT = WDT
wd = Watchdog(m, 'rp2040')
tick = _fed(wd.feed, None)
tick()  # the first feed arms it (allocates the WDT object)
i = 0
r = 'allocated'  # (every global exists before the lock: storing a new one may grow the globals dict)
micropython.heap_lock()
try:
    while i < 100:
        tick()
        i += 1
    r = 'ok'
except MemoryError:
    pass
micropython.heap_unlock()
print(r, WDT.n)
"""
    assert upy.run(code, files=upy.project_files("engine", "firmware")) == "ok 101\n"
