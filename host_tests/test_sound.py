"""The buzzer (firmware/sound.py) on the fake PWM: 2-4 kHz notes on time, distinct sounds per event, one click for every key, volume and mute saved."""
import json

import pytest

from firmware import sound as S
from firmware.sound import Sound, SOUNDS, VOLUMES
from tools.sim.fakehw import Clock, FakeBoard
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg, lesson_device, lesson_moves

NAMES = ("KEY", "REFUSE", "BEAT", "REVEAL", "CAPTURE", "HATCH", "WIN", "DRAW", "SUDDEN")


def _player(volume=2):
    fb = FakeBoard(Cfg())
    pwm = fb.PWM(fb.Pin(22), freq=2000, duty_u16=0)
    return fb, Sound(pwm, fb.clock, volume)


def _play_out(fb, snd, n, step=1):
    t0 = fb.clock.now
    snd.play(n, fb.clock.ticks_ms())
    while snd.playing >= 0:
        fb.clock.now += step
        snd.tick(fb.clock.ticks_ms())
    return [(t - t0, f, d) for t, f, d in fb.tones if t >= t0]


def _notes(tones):
    """(hz, ms) of each sounding note, from the recorded changes."""
    out = []
    on = None
    for t, f, d in tones:
        if on is not None and (not d or f != on[1]):
            out.append((on[1], t - on[0]))
            on = None
        if d and on is None:
            on = (t, f)
    return out


@pytest.mark.parametrize("n", range(len(SOUNDS)))
def test_each_sound_plays_its_notes_on_time_at_2_to_4_khz(n):
    fb, snd = _player()
    tones = _play_out(fb, snd, n)
    seq = SOUNDS[n]
    want = [(seq[i], seq[i + 1]) for i in range(0, len(seq), 2) if seq[i]]
    assert _notes(tones) == want, NAMES[n]
    assert all(2000 <= hz <= 4000 for hz, _ in want)
    assert tones[-1][2] == 0  # silent afterwards
    assert all(d in (0, VOLUMES[2]) for _, _, d in tones)


def test_the_sounds_are_distinct_and_short():
    assert len(set(SOUNDS)) == len(SOUNDS) == len(NAMES)
    for n, seq in enumerate(SOUNDS):
        assert sum(seq[1::2]) <= 700, NAMES[n]
    assert sum(SOUNDS[S.KEY][1::2]) <= 20  # a click, not a beep


def test_a_late_tick_shortens_the_next_note_not_the_sound():
    fb, snd = _player()
    tones = _play_out(fb, snd, S.REVEAL, step=25)  # ticks 25 ms apart
    total = sum(SOUNDS[S.REVEAL][1::2])
    assert tones[-1][0] <= total + 25  # ends on the grid, at most one tick late
    assert tones[-1][2] == 0


def test_a_click_never_cuts_a_fanfare_but_a_refusal_replaces_a_click():
    fb, snd = _player()
    now = fb.clock.ticks_ms()
    snd.play(S.WIN, now)
    snd.play(S.KEY, now)
    assert snd.playing == S.WIN
    snd.stop()
    snd.play(S.KEY, now)
    snd.play(S.REFUSE, now)
    assert snd.playing == S.REFUSE


def test_volume_steps_set_the_duty_and_mute_is_silent():
    for v, duty in enumerate(VOLUMES):
        fb, snd = _player(v)
        tones = _play_out(fb, snd, S.BEAT)
        assert {d for _, _, d in tones if d} == ({duty} if duty else set())
    with pytest.raises(ValueError, match="volume"):
        _player()[1].set_volume(4)


def test_no_buzzer_is_no_op():
    snd = Sound(None, Clock())
    snd.play(S.WIN, 0)
    snd.tick(100)
    assert snd.playing == -1


# ---- in the app ------------------------------------------------------------------------


def _sounds_between(dev, t0, t1=10**9):
    return [f for t, f, d in dev.board.tones if t0 <= t <= t1 and d]


def test_every_key_press_gives_the_same_click_at_the_press():
    clicks = []
    for key in "159*0":  # (a lone # is a refusal: its own sound)
        dev = VirtualDevice(Cfg(), mode="2p")
        t0 = dev.clock.now
        dev.run(parse_script("B %s" % key))
        clicks.append([(t - t0, f, d) for t, f, d in dev.board.tones if t >= t0])
    assert clicks[0] and all(c == clicks[0] for c in clicks)
    on = [c for c in clicks[0] if c[2]]
    assert on[0][1] == SOUNDS[S.KEY][0] and on[0][0] <= 20  # within two scans of the contact closing


def _heard_at(heard, n):
    """Index in `heard` (sounding notes in order) where sound n is heard whole, or -1."""
    sig = [hz for hz in SOUNDS[n][::2] if hz]
    for i in range(len(heard) - len(sig) + 1):
        if heard[i:i + len(sig)] == sig:
            return i
    return -1


def test_reveal_capture_hatch_win_and_sudden_death_sound_when_they_happen():
    dev, app, lesson = lesson_device("hatch")
    t0 = dev.clock.now
    dev.run(parse_script(lesson_moves(lesson) + "\nwait 4000"))
    heard = _sounds_between(dev, t0)
    at = [_heard_at(heard, n) for n in (S.REVEAL, S.CAPTURE, S.HATCH)]
    assert min(at) >= 0 and at == sorted(at), at  # reveal, then the capture, then the hatch
    for name, n in (("win", S.WIN), ("sudden", S.SUDDEN)):
        dev, app, lesson = lesson_device(name)
        t0 = dev.clock.now
        dev.run(parse_script(lesson_moves(lesson) + "\nwait 4000"))
        assert _heard_at(_sounds_between(dev, t0), n) >= 0, name


def test_a_refusal_sounds_low_and_twice():
    dev = VirtualDevice(Cfg(), mode="2p")
    t0 = dev.clock.now
    dev.run(parse_script("A 5\nA #\nwait 300"))
    assert _heard_at(_sounds_between(dev, t0), S.REFUSE) >= 0


def test_menu_volume_key_cycles_mutes_and_is_saved(tmp_path):
    dev = VirtualDevice(Cfg(), mode="menu", store_dir=str(tmp_path))
    app = dev.app
    assert app.sound.volume == 2
    dev.run(parse_script("A 0\nwait 100"))
    assert app.sound.volume == 3
    assert json.loads((tmp_path / "settings.json").read_text())["volume"] == 3
    dev.run(parse_script("A 0\nwait 100"))
    assert app.sound.volume == 0
    t0 = dev.clock.now
    dev.run(parse_script("A 5\nwait 2000"))  # muted: a tutorial turn makes no sound at all
    assert _sounds_between(dev, t0) == []
    again = VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path))
    assert again.app.sound.volume == 0


def test_the_key_that_changes_the_mode_still_clicks_whole():
    # The mode change used to stop the sound in the same tick as the press: a silent click.
    dev = VirtualDevice(Cfg(), mode="menu")
    t0 = dev.clock.now
    dev.run(parse_script("A 1\nwait 100"))
    assert dev.app.mode == 2
    tones = [(t, f, d) for t, f, d in dev.board.tones if t >= t0]
    on = [t for t, f, d in tones if d and f == SOUNDS[S.KEY][0]]
    off = [t for t, f, d in tones if not d and on and t > on[0]]
    assert on and off and off[0] - on[0] >= SOUNDS[S.KEY][1]
