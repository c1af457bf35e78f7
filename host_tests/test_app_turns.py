"""App turn flow on the virtual board (CPython): full games typed on the pads, refusals, no key lost, the countdown's take-back, sudden death, demo soak, ticks on a deadline."""
import pytest

from engine import parse_square, square_name
from firmware.entry import ENTERING, IDLE
from firmware.modes import M_MENU, M_2P, M_DEMO, S_TURN, S_COUNT, S_ANIM, S_SUDDEN
from tools.sim.fakehw import FakeBoard
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg, RANDOM_GAMES, play_case, lesson_device, lesson_moves


@pytest.mark.parametrize("k", range(0, 40, 4))
def test_full_game_through_pads_matches_engine(k):
    case = RANDOM_GAMES[k]
    dev, turns = play_case(case)
    want = turns[-1]["expect"]
    assert dev.board_rows() == want["board"]
    assert dev.result_name() == want["result"]
    g = dev.final_game()
    assert g.turns == len(turns)
    assert dev.app.ring.lost == 0
    # The picture caught up with the game: every cell shows its piece.
    sc = dev.app.scene
    g = dev.app.game  # (a finished game may already have made way for the next one)
    assert list(sc.shown) == [g.cell(i) for i in range(81)]
    for i in range(81):
        if g.cell(i) in (0, 1, 2) and not sc.win[i]:
            assert dev.app.disp.cur[i] == sc.static_code(i), square_name(i)


@pytest.mark.parametrize("board,k", [("sim", 1), ("esp32s3", 7)])
def test_full_game_on_other_boards(board, k):
    # boards/sim.py: progressive, rotated, RGB order, 4x4 pad A and direct buttons on pad B.
    dev, turns = play_case(RANDOM_GAMES[k], board=board)
    assert dev.board_rows() == turns[-1]["expect"]["board"]
    assert dev.result_name() == turns[-1]["expect"]["result"]


def test_occupied_cell_is_refused_and_nothing_changes():
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script("A move e5\nB move d4\nsync\nA move e5\nwait 100"))
    app = dev.app
    assert app.entries[0].state() == IDLE
    assert app.status.err_on[0]
    assert app.game.turns == 1


def test_no_key_lost_during_chain_reaction_animation():
    dev, app, lesson = lesson_device("chain")
    dev.run(parse_script(lesson_moves(lesson) + "\nwait 2000"))
    assert app.state == S_ANIM
    assert app.scene.step >= 1
    # A burst while the chain reaction plays: the next moves of both players.
    for a, b in zip(dev.keys_for(0, parse_square("a5")), dev.keys_for(1, parse_square("b9"))):
        dev.press(0, a)
        dev.press(1, b)
        dev.advance(40)
        dev.release(0, a)
        dev.release(1, b)
        dev.advance(40)
    assert app.state == S_ANIM  # still animating: the keys wait in the ring
    queued = [app.ring.peek(i) for i in range(len(app.ring))]
    assert sum(1 for ev in queued if ev & 64) == 6  # all six presses wait, none was read or lost
    dev.sync()
    assert app.ring.lost == 0
    assert app.game.turns == 2
    assert app.game.cell(parse_square("a5")) == 1 and app.game.cell(parse_square("b9")) == 2


def test_bounce_gives_one_event_per_press():
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.press(0, "5")
    dev.advance(50)
    dev.release(0, "5")
    dev.advance(50)
    assert dev.app.ring.downs == 1


def test_star_during_countdown_takes_the_move_back():
    dev = VirtualDevice(Cfg(), mode="2p")
    app = dev.app
    dev.run(parse_script("A move e5\nB move d4\nwait 100"))
    assert app.state == S_COUNT
    dev.run(parse_script("B *\nwait 50"))
    assert app.state == S_TURN and app.entries[1].state() == ENTERING
    dev.run(parse_script("B *\nB *\nB move c3\nsync"))
    assert app.game.cell(parse_square("c3")) == 2 and app.game.cell(parse_square("d4")) == 0


def test_sudden_death_shows_both_lines_and_blinks_the_counts():
    dev, app, lesson = lesson_device("sudden")
    dev.run(parse_script(lesson_moves(lesson)))
    seen_sudden = False
    blinks = [0, 0]
    last = [None, None]
    for _ in range(300):
        dev.advance(20)
        if app.state == S_SUDDEN:
            seen_sudden = True
            assert app.scene.win_mode == 1 and app.scene.nwins == 10  # both lines pulse
            for pad, px in ((0, 81), (1, 82)):
                on = app.disp.cur[px] & 15 == 15 and app.disp.cur[px] >> 4 != 5
                if on and not last[pad]:
                    blinks[pad] += 1
                last[pad] = on
    assert seen_sudden
    assert app.game.sudden_death and app.state == S_TURN
    assert blinks == [5, 5]


def test_hold_star_opens_menu_from_a_game():
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script("A press *\nwait 2200\nA release *"))
    assert dev.app.mode == M_MENU


def test_attract_mode_plays_by_itself_and_a_key_opens_the_menu():
    dev = VirtualDevice(Cfg(), mode="attract", seed=1)
    dev.advance(20000)
    assert dev.app.game.turns >= 3
    dev.run(parse_script("A 5\nwait 100"))
    assert dev.app.mode == M_MENU
    dev.run(parse_script("A 1\nwait 100"))
    assert dev.app.mode == M_2P


def test_demo_mode_soak_plays_games_back_to_back():
    dev = VirtualDevice(Cfg(), mode="demo", seed=7, keep_frames=False)
    finished = []
    checked = 0
    app = dev.app
    for _ in range(90):
        dev.advance(10000)
        # Whenever a turn waits for moves, the picture must match the board exactly.
        for _ in range(100):
            if app.state == S_TURN and app.mode == M_DEMO:
                break
            dev.advance(20)
        if app.state == S_TURN:
            sc = app.scene
            assert list(sc.shown) == [app.game.cell(i) for i in range(81)]
            for i in range(81):
                v = sc.shown[i]
                if v != 3 and not (sc.win_mode and sc.win[i]):
                    assert app.disp.cur[i] == sc.static_code(i), (square_name(i), v)
            checked += 1
        g = dev.app.last_game
        if g is not None and (not finished or g is not finished[-1]):
            finished.append(g)  # (kept: ids of dead games would be reused)
    assert len(finished) >= 5  # game over -> score -> next game, again and again
    assert checked >= 60
    assert all(g.result != 0 for g in finished)
    assert dev.app.ring.lost == 0


def test_script_errors_name_the_line():
    with pytest.raises(ValueError, match="line 2"):
        parse_script("A 5\nC 5")
    with pytest.raises(ValueError, match="not a cell"):
        parse_script("A move z9")
    with pytest.raises(ValueError, match="wait"):
        parse_script("wait soon")



@pytest.mark.parametrize("cost", [0, 4, 9])
def test_ticks_run_on_a_deadline_whatever_they_cost(cost):
    # Before: run() slept a fixed 10 ms after the work, so a tick that cost
    # 4 ms came every 14 ms. Now the next tick is due 10 ms after the last one.
    from firmware.app import App, TICK_MS
    from firmware.hw import build

    cfg = Cfg()
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, entropy=lambda: 1)
    app = App(hw, cfg, mode="2p")
    starts = []
    scan = app.pads[0].scan

    def slow_scan(ring):
        starts.append(fb.clock.now)
        fb.clock.now += cost  # the work takes time
        scan(ring)

    app.pads[0].scan = slow_scan
    t0 = fb.clock.now
    app.run(stop=lambda: fb.clock.now - t0 >= 1000)
    gaps = {b - a for a, b in zip(starts, starts[1:])}
    assert gaps == {TICK_MS}
    assert len(starts) == 1000 // TICK_MS


class _UsClock:
    """MicroPython's time on rp2, in microseconds: sleep_ms(n) wakes n ms after the call (at the call's
    sub-ms phase), sleep_us(n) exactly n us later. No wrap: these runs are short."""

    def __init__(self):
        self.us = 7_000_123

    def ticks_us(self):
        return self.us

    def ticks_ms(self):
        return self.us // 1000

    def ticks_add(self, t, d):
        return t + d

    def ticks_diff(self, a, b):
        return a - b

    def sleep_ms(self, ms):
        if ms > 0:
            self.us += ms * 1000

    def sleep_us(self, n):
        if n > 0:
            self.us += n


def test_with_a_microsecond_clock_ticks_start_on_an_exact_grid_whatever_the_last_one_did():
    # Before: run() slept with sleep_ms only, so each tick began at the sub-ms phase where the
    # previous one ended: work that depends on the pending key moved the next scan by up to 1 ms
    # (the emulated Pico's secrecy test saw a status-LED frame move by one frame).
    from firmware.app import App, TICK_MS
    from firmware.hw import build

    cfg = Cfg()
    fb = FakeBoard(cfg)
    clock = _UsClock()
    hw = build(cfg, fb.Pin, fb.NeoPixel, clock, entropy=lambda: 1)
    app = App(hw, cfg, mode="2p")
    starts = []
    scan = app.pads[0].scan
    costs = [130, 870, 410, 990, 20]  # us: what scanning and drawing happened to cost

    def scan_at(ring):
        starts.append(clock.us)
        clock.us += costs[len(starts) % len(costs)]
        scan(ring)

    app.pads[0].scan = scan_at
    t0 = clock.us
    app.run(stop=lambda: clock.us - t0 >= 500_000)
    assert len(starts) >= 45
    assert {b - a for a, b in zip(starts, starts[1:])} == {TICK_MS * 1000}


def test_an_overrun_tick_starts_the_next_at_once_without_a_burst():
    from firmware.app import App
    from firmware.hw import build

    cfg = Cfg()
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, entropy=lambda: 1)
    app = App(hw, cfg, mode="2p")
    fb.clock.now += 55  # one tick ran 55 ms late (5 ticks missed)
    assert app.tick() == 0  # the next one now ...
    assert app.tick() == 10  # ... then back on a 10 ms grid from there, not 5 catch-up ticks
