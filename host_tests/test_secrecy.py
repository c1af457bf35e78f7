"""Secrecy: from a player's first key to the reveal, every frame, status LED and buzzer change is the same whatever the pending moves are."""
from firmware.entry import IDLE
from firmware.modes import S_COUNT
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg, record, window

_PREFIX = ["A move a1", "B move i9", "sync", "A move e5", "B move c7", "sync"]


def test_secrecy_frames_and_sounds_do_not_depend_on_pending_moves():
    # A locks first, B types and locks. From A's first key to B's lock and through
    # the countdown every frame, status LED and buzzer change must be identical.
    cfg = Cfg()
    results = []
    for a_cell, b_cell in [("b2", "h8"), ("f3", "d6"), ("i1", "a9"), ("c8", "g2")]:
        script = _PREFIX + ["A move " + a_cell, "B move " + b_cell, "wait 600"]
        dev, frames, tones, marks = record(cfg, script, {5, 6, 7, 8})
        t_start, t_a_lock, t_b_lock, t_end = marks
        assert t_start < t_a_lock < t_b_lock < t_end
        results.append((window(frames, t_start, t_end), window(tones, t_start, t_end)))
        assert dev.app.state == S_COUNT
    assert results[0][1], "the buzzer was silent: nothing compared"
    for r in results[1:]:
        assert r[0] == results[0][0]
        assert r[1] == results[0][1]


def test_secrecy_same_error_blink_and_sound_for_every_occupied_cell():
    cfg = Cfg()
    results = []
    for occupied in ["a1", "i9", "e5", "c7"]:
        script = _PREFIX + ["B move " + occupied, "wait 800"]
        dev, frames, tones, marks = record(cfg, script, {5})
        assert dev.app.entries[1].state() == IDLE
        results.append((window(frames, marks[0], 10**9), window(tones, marks[0], 10**9)))
    assert any(f == 2000 for _, f, d in results[0][1] if d), "the refusal sound was not played"
    for r in results[1:]:
        assert r == results[0]


def test_secrecy_digits_never_reach_the_display_or_the_buzzer():
    # Same number of keys, different digits: everything visible and audible is identical while entering.
    cfg = Cfg()
    outs = []
    for keys in ("12", "98", "55", "37", "*0"):
        dev = VirtualDevice(cfg, mode="2p")
        dev.run(parse_script("A %s\nA %s\nwait 500" % (keys[0], keys[1])))
        outs.append((dev.frames[-25:], dev.board.tones))
    for o in outs[1:4]:
        assert o == outs[0]
    assert outs[4][1] == outs[0][1]  # even * and 0 click exactly like digits


_SEC_PREFIX = _PREFIX + ["A move c3", "B move c3", "sync"]
_FREE = [c + r for c in "abcdefghi" for r in "123456789" if c + r not in ("a1", "i9", "e5", "c7", "c3")]
_REFERENCE = {}


def _pending_window(a_cell, b_cell):
    script = _SEC_PREFIX + ["A move " + a_cell, "B move " + b_cell, "wait 600"]
    dev, frames, tones, marks = record(Cfg(), script, {len(_SEC_PREFIX) - 1, len(script) - 1})
    t0, t1 = marks
    return window(frames, t0, t1), window(tones, t0, t1)


try:
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=12, deadline=None)
    @given(st.sampled_from(_FREE), st.sampled_from(_FREE))
    def test_secrecy_for_any_pair_of_pending_moves(a_cell, b_cell):
        # Everything visible or audible from A's first key to just before the
        # reveal is identical to a reference pair of moves (an egg is on the board too).
        if "ref" not in _REFERENCE:
            _REFERENCE["ref"] = _pending_window("b2", "h8")
        assert _pending_window(a_cell, b_cell) == _REFERENCE["ref"]

except ImportError:  # pragma: no cover - hypothesis is pinned in requirements-dev.txt
    pass
