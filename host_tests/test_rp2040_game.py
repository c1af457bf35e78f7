"""The real firmware on the emulated Pico: deployed by tools.deploy, started by main.py after a hard reset, played on pin-level keypads, read back from the decoded LEDs."""
import json
import shutil

import pytest

from engine import Game, parse_square
from firmware.entry import keys_for
from tools.rp2040 import Pico, Rp2040Error, classify
from tools.rp2040.probe import HEAP_HOLD_MS, run_app

pytestmark = pytest.mark.usefixtures("needs_uf2")

PICO_FREE_HEAP = 241952   # gc.mem_free() after gc.collect() on a fresh MicroPython 1.27 RPI_PICO boot


@pytest.fixture(scope="module")
def pico(rp2_image, tmp_path_factory):
    img = tmp_path_factory.mktemp("rp2040-game") / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        yield p


def engine_rows(g):
    return ["".join(".BWe"[g.cell(r * 9 + c)] for c in range(9)) for r in range(9)]


def test_after_deploy_and_reset_main_py_starts_the_game(pico):
    # rp2_image was made by tools.deploy over the USB serial, which ended with
    # machine.reset(); this chip boots that flash image: main.py must run the game.
    fr = pico.wait_frames(3)
    assert all(len(f.data) == pico.cfg.LED_COUNT * 3 for f in fr)
    assert fr[0].t0_ns < 5e9          # emulated time from power-up
    st = pico.stats()
    assert st["ws_errors"] == 0, pico.ws_errors()
    # Frames are latched: the line rests low longer than even the newer parts' 280 us reset.
    assert st["ws_min_reset_gap_ns"] > 280000
    assert st["conflicts"] == 0, pico.conflicts()


def test_scripted_two_player_game_ends_on_the_engine_board(pico):
    pico.run_for(300)
    pico.tap("A", "#")               # attract mode: # starts the last mode (settings: 2 players)
    pico.run_for(300)
    g = Game()
    turns = [("a1", "a9"), ("b1", "b9"), ("c1", "c9"), ("d1", "d9"), ("e1", "f9")]
    for bm, wm in turns:
        b, w = parse_square(bm), parse_square(wm)
        end = max(pico.type_keys("A", keys_for(b, False)), pico.type_keys("B", keys_for(w, True)))
        pico.run_until(end)
        g.play(b, w)
        # Countdown (0.9 s) and the turn's animation (0.7 s for a quiet turn), then the LEDs hold the new position.
        pico.run_for(2200)
        assert pico.board_rows(pico.frames()[-1]) == engine_rows(g), (bm, wm)
    assert g.result == 1  # black's five in a row
    # Game over: black's status LED pulses in black's colour, white's is dark.
    last = pico.cells(pico.frames()[-1])
    assert classify(last[81]) == "B" and last[82] == (0, 0, 0)
    assert pico.conflicts()["count"] == 0, pico.conflicts()
    assert pico.stats()["ws_errors"] == 0
    # Every key clicked: the buzzer pin ran as PWM with a tone and a duty above 0 at times, silent between.
    tones = [e for e in pico.buzzer() if e[1] == "pwm"]
    assert any(e[2] > 100 and e[3] > 0 for e in tones), tones[:10]
    assert tones[-1][3] == 0 or tones[-1][2] == 0
    # The firmware counted the win on flash.
    scores = json.loads(pico.exec("print(open('/scores.json').read())"))
    assert scores["2p"] == [1, 0, 0]


def test_two_keys_held_in_one_column_cause_no_electrical_conflict(pico):
    # After the REPL took over (previous test), boot main.py again and hold 1 and 4 on
    # pad A (same column, rows 1 and 2) while the firmware scans the rows.
    pico.hard_reset()
    pico.wait_frames(2, since=pico.stats()["frames"])
    before = pico.conflicts()["count"]
    base = pico.schedule([(0, "A", "1", True), (0, "A", "4", True), (400, "A", "1", False), (400, "A", "4", False)])
    pico.run_until(base + 600 * 1000000)
    got = pico.conflicts()
    assert got["count"] == before, "rows drove opposite levels through the pressed keys: %s" % got["conflicts"][-1:]


def test_heap_after_boot_and_at_peak_against_the_hard_computer(pico):
    moves = [parse_square(m) for m in ("e5", "d4")]
    r = run_app(pico, moves, mode="hard", heap=True)
    print("heap after boot %.1f KB, peak vs hard %.1f KB (of %.1f KB free on a Pico)"
          % (r["boot"] / 1024, r["peak"] / 1024, PICO_FREE_HEAP / 1024))
    assert 10 * 1024 < r["boot"] <= r["peak"]
    # Keys are seen after 2 agreeing scans: the taps must outlast two of the (sampling-stretched)
    # scan gaps, or a double tap loses a key now and then and the run waits for a refused move.
    assert 2 * r["scan_gap_max"] < HEAP_HOLD_MS * 1000, r["scan_gap_max"]
    # The hard limit: the game must fit a Pico's heap with room for the REPL and fragmentation.
    assert r["peak"] < PICO_FREE_HEAP - 32 * 1024


def test_a_run_that_stops_making_turns_ends_in_emulated_time_naming_the_apps_state(pico):
    # Before: a run whose move the app never took (a lost key) waited for the 5-minute idle
    # timeout, 16 host minutes, and CI saw only mpremote's "timeout waiting for first EOF".
    # e5 twice: the second is on an occupied cell, refused, so pad A never locks turn 1.
    with pytest.raises(Rp2040Error, match="stopped making turns") as e:
        run_app(pico, [parse_square("e5")] * 2, mode="hard", limit_s=6)
    msg = str(e.value)
    assert "'turns': 1" in msg and "'entries': [(0, False), (2, True)]" in msg, msg  # pad A refused, the bot locked


def test_safe_boot_holding_star_at_power_up(rp2_image, tmp_path):
    img = tmp_path / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img, paused=True) as p:
        p.schedule([(0, "A", "*", True), (2500, "A", "*", False)], at_ns=0)
        p.run_until(2500 * 1000000)
        n = p.stats()["frames"]
        p.run_until(4500 * 1000000)
        fr = p.frames()
        # One picture, then nothing: the game did not start (it would animate at 50 frames/s).
        assert len(fr) == n >= 1
        cells = p.cells(fr[-1])
        assert classify(cells[81]) == "B" and classify(cells[82]) == "B"     # both status LEDs blue
        assert all(c == (0, 0, 0) for c in cells[:81])
        assert max(max(c) for c in cells[81:]) <= 16                         # at the lowest brightness
        # The REPL is free, and the next boot is dim too.
        st = json.loads(p.exec("print(open('/settings.json').read())"))
        assert st["brightness"] == 0


def test_a_frame_gap_is_the_computers_while_it_thinks_unless_a_turn_resolved_in_it():
    # The frame a turn resolves on is not written (by design): on the sliced path the deeper search's ticks
    # run up to it, so that gap must not count as the search's. Any other gap inside a span does.
    from tools.rp2040 import Frame
    from tools.rp2040.probe import frame_gaps

    ms = 1000000
    frames = [Frame(k, t * ms, t * ms + ms, b"") for k, t in enumerate((0, 20, 40, 80, 100, 120))]
    spans = [(10 * ms, 110 * ms)]   # the search ran from 10 to 110 ms
    out = frame_gaps(frames, spans)
    assert out["frame_gap_max"] == 40 * ms and out["think_gap_max"] == 40 * ms
    out = frame_gaps(frames, spans, resolves=[60 * ms])   # the 40-80 gap held a turn's resolution
    assert out["frame_gap_max"] == 40 * ms and out["think_gap_max"] == 20 * ms
    assert frame_gaps(frames, [(85 * ms, 90 * ms)])["think_gap_max"] == 20 * ms   # only the gap 80-100 overlaps it
