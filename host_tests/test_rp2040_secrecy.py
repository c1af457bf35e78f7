"""Secrecy on the real firmware: for different pending moves the emulated Pico's LED frames, status LEDs and buzzer are identical, and so is their timing, until the reveal."""
import shutil

import pytest

from engine import parse_square
from firmware.entry import keys_for
from tools.rp2040 import Pico

pytestmark = pytest.mark.usefixtures("needs_uf2")

MS = 1000000
HOLD, GAP = 80, 80
T_START = 1500        # ms after power-up: # in attract mode starts a 2-player game
T_A = 2000            # pad A types its move
T_B = 3000            # pad B types its move
# Both moves are locked by ~3.5 s; the countdown then runs 0.9 s before the
# reveal, so everything up to T_END must be independent of the moves.
T_END = T_B + 3 * (HOLD + GAP) + 500

# A and B: the same timeline, different secret moves (different digits typed).
RUNS = [("e5", "a1"), ("i9", "a1"), ("a2", "c7")]


def _run(image, tmp_path, black, white, k):
    img = tmp_path / ("secrecy%d.img" % k)
    shutil.copy(image, img)
    with Pico(flash=img, paused=True) as p:
        ev = [(T_START, "A", "#", True), (T_START + HOLD, "A", "#", False)]
        for t0, pad, cell, rot in ((T_A, "A", black, False), (T_B, "B", white, True)):
            for i, ch in enumerate(keys_for(parse_square(cell), rot)):
                t = t0 + i * (HOLD + GAP)
                ev += [(t, pad, ch, True), (t + HOLD, pad, ch, False)]
        p.schedule(ev, at_ns=0)
        p.run_until(T_END * MS, pause=True)
        frames = [f for f in p.frames() if f.t1_ns <= T_END * MS]
        buzzer = [e for e in p.buzzer() if e[0] <= T_END * MS]
        st = p.stats()
        assert st["ws_errors"] == 0 and st["conflicts"] == 0
        return frames, buzzer


def test_pending_moves_leave_leds_status_and_buzzer_identical_in_content_and_timing(rp2_image, tmp_path):
    runs = [_run(rp2_image, tmp_path, b, w, k) for k, (b, w) in enumerate(RUNS)]
    ref_frames, ref_buzz = runs[0]
    # The countdown has begun: the status LEDs flash (both moves locked) in every run.
    assert len(ref_frames) > 100 and len(ref_buzz) > 6
    worst = 0
    for (b, w), (frames, buzz) in zip(RUNS[1:], runs[1:]):
        assert [f.data for f in frames] == [f.data for f in ref_frames], (b, w)
        assert [e[1:] for e in buzz] == [e[1:] for e in ref_buzz], (b, w)
        worst = max([worst] + [abs(f.t0_ns - g.t0_ns) for f, g in zip(frames, ref_frames)]
                    + [abs(f.t1_ns - g.t1_ns) for f, g in zip(frames, ref_frames)]
                    + [abs(e[0] - d[0]) for e, d in zip(buzz, ref_buzz)])
    print("secrecy: %d frames, %d buzzer changes per run; largest timing difference %.3f us (emulated)"
          % (len(ref_frames), len(ref_buzz), worst / 1000.0))
    # Emulated time is deterministic (the same moves twice: 0 ns apart), so any
    # difference is the firmware's own. Before App.run() kept a microsecond tick
    # grid, each tick started at the sub-ms phase where the previous one ended
    # (rp2's sleep_ms counts from the call), so the pending digits' work drifted
    # the scans by up to 998 us, and with another bot build a status-LED frame
    # moved by one frame. Measured on the grid: 2.4 us. The bound leaves room for
    # a scan's few microseconds of key-dependent work, far below a frame.
    assert worst < 100 * 1000
