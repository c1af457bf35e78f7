"""Tests for tools/sim/terminal.py: key mapping, press/release timing, drawing, and the real-time loop on a pseudo-terminal."""
import fcntl
import os
import pty
import struct
import termios
import threading

import pytest

from tools.sim.narrate import menu_items, MENU_KEYS
from tools.sim import terminal as st
from tools.sim.interface import SimDevice
from tools.sim.screen import board_exposure


class Board:
    GAMMA = 2.2
    BRIGHTNESS = 0.25


class FakeDevice(SimDevice):
    """A SimDevice of its own: logs presses on its own clock; pad A's status LED is lit after an odd number of presses."""

    def __init__(self):
        SimDevice.__init__(self, Board, "fake", "2p", "fake", 0)
        self.log = []
        self.held = set()

    def _press(self, pad, key):
        self.log.append((self.t, "press", "AB"[pad], key))
        self.held.add(pad)

    def _release(self, pad, key):
        self.log.append((self.t, "release", "AB"[pad], key))
        self.held.discard(pad)

    def _advance(self, ms):
        assert ms > 0
        px = [(0, 0, 0)] * 83
        px[40] = (200, 0, 0)
        # Toggled per press, not shown while held: a slow loop may press and
        # release within one advance, and the test must not depend on speed.
        px[81] = (0, 120, 0) if sum(1 for e in self.log if e[1:3] == ("press", "A")) % 2 else (0, 0, 0)
        self.t += ms
        self.last_pixels = px
        self.frames.append((self.t, px))

    def pad_b_turned(self):
        return True

    def close(self):
        pass


def test_left_hand_is_pad_a_right_hand_is_pad_b():
    ev = st.decode(b"qweasdzxc13")
    assert ev == [("key", "A", k) for k in "123456789*#"]
    ev = st.decode(b"uiojklm,.79")
    assert ev == [("key", "B", k) for k in "123456789*#"]


def test_caps_lock_and_unknown_keys():
    assert st.decode(b"QZ") == [("key", "A", "1"), ("key", "A", "7")]
    assert st.decode(b"ghp0!\r\n ") == []


def test_numpad_by_position_and_escape_sequences_ignored():
    # ESC O w is the numpad's 7 (top-left) in application keypad mode -> key 1.
    assert st.decode(b"\x1bOw\x1bOq\x1bOp\x1bOM") == [("key", "B", "1"), ("key", "B", "7"),
                                                        ("key", "B", "*"), ("key", "B", "#")]
    assert st.decode(b"\x1b[A\x1b[1;5C\x1b") == []          # arrows, ctrl-arrow, lone ESC


def test_single_player_ignores_pad_b():
    assert st.decode(b"qu\x1bOw9", single_player=True) == [("key", "A", "1")]


def test_control_keys():
    assert st.decode(b"\x03") == [("quit",)]
    assert st.decode(b"\x04") == [("quit",)]
    assert st.decode(b"\x0c\x1a") == [("redraw",), ("suspend",)]


def test_feeder_holds_each_key_and_queues_fast_typing():
    dev = FakeDevice()
    f = st.KeyFeeder()
    for k in "55#":
        f.push("A", k)
    f.push("B", "1")
    now = st.advance(dev, f, 0, 1000)
    assert now == 1000 and f.idle()
    presses = [(t, a, p, k) for t, a, p, k in dev.log if p == "A"]
    assert [(a, k) for _, a, _, k in presses] == [("press", "5"), ("release", "5"), ("press", "5"),
                                                  ("release", "5"), ("press", "#"), ("release", "#")]
    for (t0, a0, _, _), (t1, a1, _, _) in zip(presses, presses[1:]):
        assert t1 - t0 >= (st.KeyFeeder.HOLD_MS if a0 == "press" else st.KeyFeeder.GAP_MS)
    # Pads are independent: B's key goes down at once, simultaneously with A's first.
    assert (0, "press", "B", "1") in dev.log


def test_feeder_across_many_small_advances():
    dev = FakeDevice()
    f = st.KeyFeeder()
    f.push("A", "#")
    now = 0
    for _ in range(10):
        now = st.advance(dev, f, now, 33)
    assert [(a, t) for t, a, _, _ in dev.log] == [("press", 0), ("release", 60)]
    assert dev.t == 330


def test_screen_colour_undoes_gamma_and_keeps_dim_leds_visible():
    e = board_exposure(Board)
    full = int(255 * 0.25 + 0.5)     # the firmware's LUT: 255 * level^gamma * brightness
    assert st.screen_colour((0, 0, 0), 2.2, e) == st.UNLIT
    r, g, b = st.screen_colour((full, 0, 0), 2.2, e)
    assert r == 255 and g == 0
    assert max(st.screen_colour((1, 1, 1), 2.2, e)) >= 72      # a faint grid LED is not black


def test_compose_side_by_side_stacked_and_too_small():
    cells = [(0, 0, 0)] * 81
    cells[40] = (200, 0, 0)
    scr = st.compose(st.View(cells, [(0, 60, 0), (0, 0, 0)], "2p", "title", 2.2, 1.9), 100, 30)
    assert scr.startswith("\x1b[H")
    assert "\x1b[38;2;255;0;0m●" in scr                       # e5 lit in true colour
    assert "q w e" in scr and "u i o" in scr and "title" in scr
    lines = scr.split("\r\n")
    assert len(lines) <= 30 and all(st.visible_len(x) <= 100 for x in lines)
    stacked = st.compose(st.View(cells, mode="easy", title="t", gamma=2.2, exposure=1.9), 40, 40)
    assert "computer (easy)" in stacked and "u i o      1 2 3" not in stacked
    assert all(st.visible_len(x) <= 40 for x in stacked.split("\r\n"))
    assert "too small" in st.compose(st.View(cells, title="t"), 20, 10)


def test_visible_len_ignores_escapes():
    assert st.visible_len("\x1b[38;2;1;2;3m●\x1b[0m ab") == 4


def test_play_on_a_pty_restores_the_terminal():
    """The real loop on a pseudo-terminal: keys become presses, nothing is echoed, Ctrl-C ends it, termios is put back."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    before = termios.tcgetattr(slave)
    dev = FakeDevice()
    out = []
    result = {}

    def reader():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            out.append(data)

    th = threading.Thread(target=reader, daemon=True)
    th.start()

    def go():
        result["t"] = st.play(lambda: dev, "test", slave, slave, max_seconds=5)

    pt = threading.Thread(target=go)
    pt.start()
    import time
    time.sleep(0.4)
    os.write(master, b"s")           # pad A key 5
    time.sleep(0.4)
    os.write(master, b"\x03")        # Ctrl-C
    pt.join(5)
    assert not pt.is_alive()
    time.sleep(0.1)
    after = termios.tcgetattr(slave)
    os.close(slave)
    th.join(2)
    os.close(master)
    screen = b"".join(out).decode("utf-8", "replace")
    assert ("press", "A", "5") in [(a, p, k) for _, a, p, k in dev.log]
    assert 300 <= result["t"] < 5000                  # device time followed the wall clock
    assert "\x1b[?1049h" in screen and screen.rstrip().endswith("\x1b[?1049l")
    assert "\x1b[?25h" in screen                      # cursor shown again
    assert "s" not in screen.split("\x1b[?1049l")[-1]  # no echo after leaving
    assert after == before
    assert "\x1b[38;2;0;255;0m" in screen          # status LED A lit after the key press
    assert "\x1b[38;2;0;255;0m" not in screen.split("\x1b[H")[1]   # and not before


def test_tab_holds_star_for_the_menu_and_autorepeat_keeps_a_key_down():
    assert st.decode(b"\t") == [("hold", "A", "*")]
    dev = FakeDevice()
    f = st.KeyFeeder()
    f.push("A", "*", hold_ms=st.KeyFeeder.LONG_MS)
    st.advance(dev, f, 0, 3000)
    assert [(t, a) for t, a, _, _ in dev.log] == [(0, "press"), (st.KeyFeeder.LONG_MS, "release")]
    # Auto-repeat: the same key every 33 ms while it is down stays one press.
    dev, f, now = FakeDevice(), st.KeyFeeder(), 0
    for _ in range(30):
        f.push("B", "5", now)
        now = st.advance(dev, f, now, 33)
    now = st.advance(dev, f, now, 500)
    assert [a for _, a, _, _ in dev.log] == ["press", "release"]
    assert dev.log[1][0] - dev.log[0][0] >= 29 * 33


def test_256_colour_fallback(monkeypatch):
    assert st.xterm256((255, 0, 0)) == 196 and st.xterm256((0, 0, 0)) == 16
    assert st.xterm256((128, 128, 128)) == 244 and st.xterm256((255, 255, 255)) == 231
    monkeypatch.setattr(st, "TRUECOLOUR", False)
    assert st.fg((255, 0, 0)) == "\x1b[38;5;196m"
    monkeypatch.setenv("WTS_COLOR", "256")
    assert st._truecolour() is False
    monkeypatch.setenv("WTS_COLOR", "")
    monkeypatch.setenv("COLORTERM", "")
    monkeypatch.setenv("TERM_PROGRAM", "Apple_Terminal")
    assert st._truecolour() is False
    monkeypatch.setenv("TERM_PROGRAM", "tmux")
    assert st._truecolour() is True


def test_device_time_follows_wall_time():
    """One second on the wall is one second on the device (fractions of a millisecond are carried)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    stop = threading.Event()

    def drain():
        while not stop.is_set():
            try:
                os.read(master, 65536)
            except OSError:
                return

    th = threading.Thread(target=drain, daemon=True)
    th.start()
    dev = FakeDevice()
    try:
        t = st.play(lambda: dev, "t", slave, slave, max_seconds=1.0)
    finally:
        stop.set()
        os.close(slave)
        os.close(master)
    assert 950 <= t <= 1100 and dev.t == t


def test_the_tutorial_panel_shows_the_lesson_and_only_its_turn():
    from tools.sim import Device
    dev = Device(board="pico", mode="tutorial", seed=1)
    dev.advance(4000)                                   # lesson 1 played: it waits
    dev.tap("A", "#")
    dev.advance(4000)                                   # lesson 2 (collision) played
    scr = st.compose(st.View(mode=dev.mode_now, title="t", said=dev.said), 110, 40)
    plain = st._ESC.sub("", scr)
    assert "Lesson 2 of 10: Collision." in plain and "both chose e4: egg #1 laid" in plain
    assert "black e5, white d4" not in plain            # lesson 1's turn is gone with lesson 1
    dev.tap("B", "5")                                   # again: told again, once on screen
    dev.advance(4000)
    assert [k for _, k, _ in dev.said].count("lesson") == 3
    plain = st._ESC.sub("", st.compose(st.View(mode=dev.mode_now, title="t", said=dev.said), 110, 40))
    assert plain.count("both chose e4: egg #1 laid") == 1
    # The keys that pace it are on screen: # next, * back, any other key again (and which keyboard keys they are).
    assert "# (3 or 9): the next lesson" in plain and "* (1 or 7): one lesson back" in plain
    assert "any other key: play it again" in plain


def test_game_over_line_stays_until_the_next_turn():
    said = [(0, "place", "black a1, white i9"), (1, "result", "black wins: 5 in a row")]
    assert st.game_over(said, "2p") == "black wins: 5 in a row"
    assert st.game_over(said + [(2, "place", "black e5, white d4")], "2p") is None
    assert st.game_over(said + [(2, "mode", "menu")], "menu") is None
    scr = st.compose(st.View(title="t", said=said), 110, 40)
    assert "Game over: black wins: 5 in a row" in st._ESC.sub("", scr)


def test_oldest_egg_is_marked_and_legend_names_the_colours():
    cells = [(0, 0, 0)] * 81
    lines = st.matrix_lines(cells, [(0, 0, 0)] * 2, 2.2, 1.9, oldest=40)
    row5 = st._ESC.sub("", lines[4 + 4])
    assert row5.startswith(" 5  ● ● ● ●" + st.OLDEST_MARK + "● ● ● ● ●")   # e5: the mark in the gap left of its LED
    legend = st._ESC.sub("", "".join(st.legend_lines()))
    assert "black" in legend and "white" in legend and "egg" in legend and "oldest egg" in legend


def test_the_menu_panel_lists_the_devices_labels():
    assert st.menu_items() == menu_items()
    scr = st._ESC.sub("", "\n".join(st.help_lines("menu", menu=(("1", "two players"), ("2", "tea break")))))
    assert "2  tea break" in scr and "vs computer" not in scr      # the view's labels, not the default's
    view = st.View(mode="menu", title="t", menu=(("1", "two players"), ("2", "tea break")))
    assert "2  tea break" in st._ESC.sub("", st.compose(view, 110, 40))
    assert "4  vs computer: hard" in st._ESC.sub("", st.compose(st.View(mode="menu", title="t"), 110, 40))


@pytest.mark.parametrize("key", [k for k in MENU_KEYS if k in "123456#*"])
def test_menu_labels_say_what_the_firmware_menu_does(key):
    """The menu's labels (tools/sim/narrate.py, listed by the terminal and the browser) are checked against what
    firmware/menu.py's keys do."""
    from tools.sim import Device
    picks = {"two players": "2p", "vs computer: easy": "easy", "vs computer: medium": "medium",
             "vs computer: hard": "hard", "tutorial": "tutorial", "attract mode": "attract", "key test": "keytest",
             "leave the menu": "attract"}
    label = dict(menu_items())[key]
    dev = Device(board="pico", mode="2p", seed=1)
    dev.press("A", "*")
    dev.advance(2300)
    dev.release("A", "*")
    dev.advance(200)
    assert dev.mode_now == "menu"
    dev.tap("A", key)
    dev.advance(300)
    assert dev.mode_now == picks[label]


def test_key_test_mode_explains_itself_and_tab_leaves_it():
    from tools.sim import Device
    assert "Key test" in st._ESC.sub("", "\n".join(st.help_lines("keytest")))
    dev = Device(board="pico", mode="keytest", seed=1)
    f = st.KeyFeeder()
    f.push("A", "*", hold_ms=st.KeyFeeder.LONG_MS)          # what Tab sends
    st.advance(dev, f, 0, 2600)
    assert dev.mode_now == "menu"


# ---------------------------------------------------------------- issue 26's terminal nits

def test_both_hands_have_a_zero_key_and_it_changes_the_volume_in_the_menu():
    assert st.decode(b"28") == [("key", "A", "0"), ("key", "B", "0")]
    help_a = st._ESC.sub("", "\n".join(st.help_lines("2p")))
    assert "2 = 0" in help_a and "8 = 0" in help_a
    menu = st._ESC.sub("", "\n".join(st.help_lines("menu")))
    assert "0  volume" in menu and "1 2 3 = * 0 #" in menu
    from tools.sim import Device
    dev = Device(board="pico", mode="menu", seed=1)
    vol = dev.app.sound.volume
    f = st.KeyFeeder()
    for _, pad, key in st.decode(b"28"):
        f.push(pad, key)
    st.advance(dev, f, 0, 600)
    assert dev.app.sound.volume == (vol + 2) % 4           # one step per hand (firmware/sound.py VOLUMES)


def _refusals(b_pending):
    """A 2p game after one turn (e5, d4): pad B has typed `b_pending` (or nothing), then pad A chooses the taken e5."""
    from tools.sim import Device
    dev = Device(board="pico", mode="2p", seed=1)
    dev.run_script("A move e5\nB move d4\nsync\n" + b_pending + "A move e5\nwait 300\n")
    return dev, [(k, text) for _, k, text in dev.said if k == "refused"]


def test_a_refused_move_on_a_taken_cell_is_said_for_that_pad_only():
    dev, said = _refusals("")
    assert said == [("refused", "pad A: that cell is taken, choose another")]
    screen = st._ESC.sub("", st.compose(st.View.of(dev, "t"), 80, 24))
    assert "pad A: that cell is taken" in screen           # the newest line fits even on 80x24
    # Secrecy: the words are the same whatever the other player has typed or locked (only A's own refusal).
    for pending in ("B 1\n", "B move a1\n", "B move i9\n"):
        assert _refusals(pending)[1] == said
    # A # before a block and a cell is refused too, and said as that.
    dev.run_script("B 5\nB #\nwait 300\n")
    assert dev.said[-1][1:] == ("refused", "pad B: first a block and a cell, then #")


def test_the_game_over_line_goes_when_the_next_game_begins():
    from tools.sim import Device
    from conftest import ROOT
    dev = Device(board="pico", mode="2p", seed=1)
    dev.run_script((ROOT / "docs" / "demo-game.txt").read_text())
    dev.advance(2000)
    assert "Game over: black wins" in st._ESC.sub("", st.compose(st.View.of(dev, "t"), 110, 40))
    dev.advance(15000)                                     # the score picture, then a new, empty game
    assert dev.game().turns == 0 and dev.said[-1][1] == "game"
    assert "Game over" not in st._ESC.sub("", st.compose(st.View.of(dev, "t"), 110, 40))


def test_the_terminal_starts_as_wts_play_does(monkeypatch, tmp_path):
    from tools import play
    from tools.sim import cli
    seen = []
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(st, "run", lambda args: seen.append(args.mode) or 0)
    assert cli.main([]) == 0 and play.main(["--sim"]) == 0
    assert seen == ["medium", "medium"]                    # against the computer, medium, both ways
    assert cli.build_parser().parse_args([]).mode is None  # headless keeps 2p (its scripts type for both pads)


@pytest.mark.parametrize("turned", [True, False])
def test_two_players_are_told_how_pad_b_is_turned_and_which_menu_key_changes_it(turned):
    from tools.sim import Device
    screen = st._ESC.sub("", st.compose(st.View(mode="2p", title="t", b_turned=turned), 80, 24))
    cell = "i9" if turned else "a1"
    assert ("turned 180°" if turned else "not turned") in screen
    assert "u u # plays %s; menu key 9 changes it" % cell in screen
    # What it says is what the firmware does: u u # on the keyboard is pad B's top-left key twice, then lock.
    dev = Device(board="pico", mode="2p", seed=1)
    if not turned:
        dev.run_script("A press *\nwait 2300\nA release *\nwait 200\nA 9\nA 1\nwait 300\n")   # menu, 9, two players
        assert dev.pad_b_turned() is False and dev.mode_now == "2p"
    f = st.KeyFeeder()
    for ev in st.decode(b"uu9"):
        f.push(ev[1], ev[2])
    st.advance(dev, f, 0, 600)
    dev.run_script("A move e5\nsync\n")
    assert [(k, x) for _, k, x in dev.said if k == "place"] == [("place", "black e5, white %s" % cell)]
