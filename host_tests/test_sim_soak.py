"""A long simulator run stays the same size: every record a device keeps is bounded (counted over many games, with small caps), the terminal reads only the newest sentences, and python -m tools.sim.soak prints the figures."""
import io
import subprocess
import sys

import pytest

from conftest import ROOT
from tools.sim import soak, terminal as st
from tools.sim.circuitpython import Runtime
from tools.sim.fakehw import FakeBoard
from tools.sim.interface import SimDevice
from tools.sim.vdevice import VirtualDevice


def test_keep_last_holds_at_most_keep_and_the_newest():
    from tools.sim.fakehw import keep_last

    items = []
    for i in range(1000):
        keep_last(items, i, 40)
        assert 30 <= len(items) <= 40 or len(items) == i + 1
        assert items[-1] == i and items == list(range(i - len(items) + 1, i + 1))
    nothing = [1, 2]
    keep_last(nothing, 3, 0)
    assert nothing == []


@pytest.fixture
def small_caps(monkeypatch):
    # Small caps, so a few games overflow each record many times over (raising=False: before the caps existed,
    # this test ran and failed on the lengths).
    caps = {(SimDevice, "SAID_KEPT"): 40, (SimDevice, "FRAMES_KEPT"): 50, (FakeBoard, "TONES_KEPT"): 100,
            (FakeBoard, "SHORTS_KEPT"): 5, (VirtualDevice, "FRAMES_KEPT"): 60, (Runtime, "PWM_KEPT"): 100}
    for (cls, name), n in caps.items():
        monkeypatch.setattr(cls, name, n, raising=False)
    return {name: n for (_, name), n in caps.items()}


def test_many_attract_games_keep_every_record_bounded(small_caps, monkeypatch):
    made = []
    real = soak.records

    def records(dev):              # the soak tool's own look at the device, plus what it streamed
        made.append(dev)
        return real(dev)
    monkeypatch.setattr(soak, "records", records)
    out = io.StringIO()
    row = soak.soak(games=6, every=3, draws=1, keep_frames=True, out=out)
    dev = made[-1]
    assert row["games"] == 6 and len(out.getvalue().splitlines()) == 4      # header, games 0, 3, 6
    assert row["said"] <= small_caps["SAID_KEPT"] and row["frames"] <= small_caps["FRAMES_KEPT"]
    assert row["tones"] <= small_caps["TONES_KEPT"] and row["shorts"] <= small_caps["SHORTS_KEPT"]
    assert row["vframes"] == 0 and row["events"] == 0
    # The bound mattered, and what is kept is the newest: the last sentence the device said, the last frame.
    assert dev.said[-1][0] <= dev.t and [k for _, k, _ in dev.said].count("result") >= 1
    assert dev.frames[-1][1] == dev.last_pixels and dev.frames[-1][0] == dev.t


def test_a_virtual_device_and_a_circuitpython_board_keep_bounded_records(small_caps):
    import boards

    dev = VirtualDevice(boards.load("feather_rp2040"), mode="attract", seed=2)
    dev.advance(200000)                       # a couple of games: thousands of frames, hundreds of tones
    assert dev.app.frames > 10 * small_caps["FRAMES_KEPT"]
    assert 0 < len(dev.frames) <= small_caps["FRAMES_KEPT"]
    assert 0 < len(dev.cp.pwm) <= small_caps["PWM_KEPT"] and len(dev.board.tones) <= small_caps["TONES_KEPT"]


def test_the_terminal_draws_from_the_newest_sentences_only():
    class Counted(list):
        """A said list that counts the entries read from it."""
        reads = 0

        def __iter__(self):
            for x in list.__iter__(self):
                Counted.reads += 1
                yield x

        def __reversed__(self):
            for x in list.__reversed__(self):
                Counted.reads += 1
                yield x

        def __getitem__(self, i):
            got = list.__getitem__(self, i)
            Counted.reads += len(got) if isinstance(i, slice) else 1
            return got

    n = 100000
    said = Counted((t, "place", "black e%d, white d%d" % (t % 9 + 1, t % 7 + 1)) for t in range(n))
    scr = st.compose(st.View(title="t", said=said), 110, 40)
    assert "black e%d" % ((n - 1) % 9 + 1) in scr               # the newest sentence is on screen
    assert Counted.reads <= 80, Counted.reads                   # not a walk over all n
    # The tutorial: the panel starts at the lesson's own sentence, however much came before it.
    said[n - 5] = (n - 5, "lesson", "lesson 2 of 8: Collision. Both chose the same cell.")
    Counted.reads = 0
    scr = st.compose(st.View(mode="tutorial", title="t", said=said), 110, 40)
    assert "Collision" in scr and Counted.reads <= 80, Counted.reads


def test_the_key_queue_is_bounded():
    f = st.KeyFeeder()
    for _ in range(10000):            # a paste into the terminal
        f.push("A", "5")
        f.push("B", "#")
    assert len(f.queue["A"]) == len(f.queue["B"]) == st.KeyFeeder.QUEUED


def test_soak_command_prints_the_figures_and_refuses_bad_input():
    r = subprocess.run([sys.executable, "-m", "tools.sim.soak", "--games", "1", "--every", "1", "--draws", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split() == ["games", "device_min", "rss_mb", "said", "frames", "tones", "shorts", "events",
                                "vframes", "draw_ms"]
    assert [x.split()[0] for x in lines[2:]] == ["0", "1"]
    r = subprocess.run([sys.executable, "-m", "tools.sim.soak", "--board", "nosuch"], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode != 0 and r.stderr.strip().splitlines()[-1].startswith("tools.sim.soak: ")


@pytest.mark.needs_node
def test_the_guest_board_keeps_bounded_records_in_micropython():
    from tools import upy
    from tools.sim.device import guest_files

    out = upy.run("import sys\nsys.path.insert(0, '/')\nimport boards, fakehw\n"
                  "b = fakehw.FakeBoard(boards.load('pico'))\nb.TONES_KEPT = 10\n"
                  "for i in range(100):\n    b.tone(1000 + i, 5)\n"
                  "print(len(b.tones), b.tones[-1][1])", files=guest_files())
    n, last = out.split()
    assert int(n) <= 10 and last == "1099"


def test_a_student_bot_that_breaks_every_game_keeps_a_bounded_record():
    """A long --player session with a bot that breaks in every game keeps only the latest failures
    (each BotError carries up to 16 KB of stderr); the newest one is always there."""
    from engine import Game
    from tools.botproc import BotError
    from tools.cmdbot import Seat

    seat = Seat("cmd:true", name="crashy")
    try:
        for n in range(10 * Seat.FAILURES_KEPT):
            seat.broke(BotError("crashy", "exited", code=n), Game(), "medium")
        assert len(seat.failures) <= Seat.FAILURES_KEPT
        assert seat.failures[-1].values == {"code": 10 * Seat.FAILURES_KEPT - 1}
    finally:
        seat.close()


def test_the_emulated_picos_serial_reader_keeps_no_endless_line():
    # --runtime rp2040 reads the narrator's lines from the chip's USB serial; a guest that prints without end
    # (a runaway loop, binary junk) must not grow the reader's buffer, and the next good line is still heard.
    from tools.sim.rp2040 import LINE_LIMIT, split_lines

    buf, heard, longest = b"", [], 0
    for _ in range(4 * LINE_LIMIT // 4096):
        buf, lines = split_lines(buf, b"x" * 4096)
        heard += lines
        longest = max(longest, len(buf))
    buf, lines = split_lines(buf, b"tail of the junk\r\n@N 5 say the next sentence\r\n@N 6 sa")
    heard += lines
    assert longest <= LINE_LIMIT and buf == b"@N 6 sa"
    assert heard[-1] == "@N 5 say the next sentence" and len(heard) == 2
