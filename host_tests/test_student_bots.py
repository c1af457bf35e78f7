"""A student's bot (issue 26): the tournament shows why a bot broke the protocol (its stderr, bounded, and the position and request it failed on), --watch shows a game turn by turn with the narration (live or from the results file, paced by Enter or a delay, plain without a terminal), and a student plays their own bot in the simulator (`--player cmd:...`: tools/cmdbot.py, polled so the tick loop never waits; a break is told on screen and the computer finishes that game)."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from engine import BLACK, Game
from tools import botproc
from tools.cmdbot import Seat
from tools.sim import Device, narrate
from tools.sim import terminal as st
from tools.tournament import outside

BOTS = ROOT / "host_tests" / "fixtures" / "bots"
EXAMPLES = ROOT / "docs" / "examples"
PY = sys.executable


@pytest.fixture(autouse=True)
def english_after():
    yield
    narrate.set_lang("en")


def tournament(*args, stdin=subprocess.DEVNULL, timeout=300):
    return subprocess.run([PY, "-m", "tools.tournament"] + [str(a) for a in args], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, stdin=stdin, env=dict(os.environ, LANG="C", LC_ALL=""))


def student_copy(tmp_path):
    """docs/examples/buggybot.py as a student's file (beside a copy of mybot.py, which it imports)."""
    shutil.copy(EXAMPLES / "mybot.py", tmp_path / "mybot.py")
    shutil.copy(EXAMPLES / "buggybot.py", tmp_path / "student.py")
    return tmp_path / "student.py"


def fix(path):
    """The one-line fix the BUG comment gives."""
    text = path.read_text()
    fixed = text.replace("if is_free(board, OPENING[mine]):", "if mine < len(OPENING) and is_free(board, OPENING[mine]):")
    assert fixed != text
    path.write_text(fixed)


# ---- the teacher's path -----------------------------------------------------------------------------------

def test_a_student_bot_that_crashes_is_shown_with_its_position_then_fixed_it_wins(tmp_path):
    # Before: "forfeits: student lost 2 game(s) by breaking the protocol" and nothing else: no traceback, no position.
    bot = student_copy(tmp_path)
    player = "student=cmd:%s %s" % (PY, bot)
    results = tmp_path / "r.jsonl"
    r = tournament("--player", player, "--pairings", "student-random", "--games", "2", "--results", results)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "forfeits: student lost 2 game(s)" in out
    # why, where: the game, the turn, the colour, the board it was shown, the request line, its traceback
    assert "student broke the protocol in game 0 of student-random (seed 1), on turn 5 as black: " \
           "exited without answering (code 1)" in out
    rec = json.loads(results.read_text().splitlines()[0])
    f = rec["failure"]
    assert out.count(f["request"]) == 1 and json.loads(f["request"])["you"] == "black"
    board = json.loads(f["request"])["board"]
    assert [row.count("B") for row in board] == [0, 0, 1, 1, 1, 1, 0, 0, 0]  # its opening book: c3 d4 e5 f6
    assert "     5  . . . . B . . . ." in out  # the board with coordinates
    assert "    | IndexError: list index out of range" in out and "in choose" in out
    assert "--watch --pairings student-random --game 0 --seed 1" in out and "student broke the protocol in 1 more" in out
    # The recorded game replays to the same position, and the report comes again at its end.
    w = tournament("--watch", "--player", player, "--pairings", "student-random", "--game", "0", "--results", results)
    assert w.returncode == 0, w.stderr[-2000:]
    assert "(replayed from %s)" % results in w.stdout and w.stdout.count("\nturn ") == 4
    assert "student (black) loses the game: it broke the protocol" in w.stdout and "IndexError" in w.stdout
    # The student fixes the line; the same tournament now counts wins, and no forfeit.
    fix(bot)
    r = tournament("--player", player, "--pairings", "student-random", "--games", "2", "--seed", "2")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "| student vs random | 2 | 100.0%" in r.stdout and "forfeits" not in r.stdout and "broke" not in r.stdout


def _advance_until(dev, cond, seconds=60):
    """Run the device's ticks, with the wall clock moving too (the bot is a real process), until cond()."""
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, "still waiting after %d s: %s" % (seconds, dev.said[-3:])
        dev.advance(20)
        time.sleep(0.002)


def test_a_student_plays_their_bot_in_the_simulator_it_crashes_then_is_fixed(tmp_path):
    bot = student_copy(tmp_path)
    seat = Seat("%s %s" % (PY, bot), "student")
    dev = Device(board="pico", mode="easy", seed=1, bots=seat.bots())
    try:
        g = dev.game
        for cell in ("a1", "a3", "a5", "a7", "a9", "i1", "i3"):
            if g().result != 0:
                break
            n = g().turns
            dev.move("A", cell)
            _advance_until(dev, lambda: g().turns > n or g().result)
            if seat.note:
                break
        # Its fifth move: the book runs out. The screen says so, with its traceback; the computer plays on.
        assert g().turns == 5 and seat.failures and seat.failures[0].reason == "exited"
        screen = st._ESC.sub("", st.compose(st.View.of(dev, "t", seat=seat), 120, 50))
        assert "student broke the protocol on turn 5: exited without answering (code 1)" in screen
        assert "The computer (easy) plays white for the rest of this game" in screen
        assert "| IndexError: list index out of range" in screen
        assert "Pad B (white): your bot student" in screen
        rows = dev.board_rows()
        assert [rows[k][k] for k in (2, 3, 4, 5)] == ["W"] * 4  # the book it played: c3 d4 e5 f6, then
        assert sum(row.count("W") for row in rows) == 5  # the computer's move for turn 5 (the game goes on)
        # Fixed; the next game runs the file as it is now, and the bot answers again: the note goes.
        fix(bot)
        dev.app.set_mode(dev.app.mode)  # a new game (as after a game over)
        dev.move("A", "a1")
        _advance_until(dev, lambda: g().turns >= 1)
        assert seat.note == [] and len(seat.failures) == 1
        assert dev.board_rows()[4][4] == "W"  # e5, its book's first move
    finally:
        dev.close()
        seat.close()


# ---- the simulator's seat --------------------------------------------------------------------------------

def test_the_tick_loop_runs_on_while_the_bot_thinks(tmp_path):
    gate, count = tmp_path / "gate", tmp_path / "count"
    seat = Seat("%s %s %s %s" % (PY, BOTS / "gated.py", gate, count), "gated")
    dev = Device(board="pico", mode="easy", seed=1, bots=seat.bots())
    try:
        dev.move("A", "e5")
        _advance_until(dev, lambda: count.exists())  # asked
        t0 = dev.t
        for _ in range(100):  # 2 s of the device's time: ticks and frames go on, the turn waits for the bot
            dev.advance(20)
        assert dev.t > t0 and dev.game().turns == 0 and not seat.failures
        gate.write_text("")
        _advance_until(dev, lambda: dev.game().turns == 1)
        assert dev.board_rows()[0][0] == "W" and not seat.failures
    finally:
        dev.close()
        seat.close()


def test_a_bot_that_answers_a_taken_cell_falls_back_and_the_screen_says_so_in_dutch(tmp_path):
    bad = tmp_path / "e5bot.py"
    bad.write_text("import sys\nfor line in sys.stdin:\n    print('e5', flush=True)\n")
    narrate.set_lang("nl")
    seat = Seat("%s %s" % (PY, bad))
    dev = Device(board="pico", mode="hard", seed=3, bots=seat.bots())
    try:
        dev.move("A", "a1")
        _advance_until(dev, lambda: dev.game().turns == 1)
        dev.move("A", "a2")
        _advance_until(dev, lambda: dev.game().turns == 2)
        assert seat.failures[0].reason == "taken"
        screen = st._ESC.sub("", st.compose(st.View.of(dev, "t", seat=seat), 120, 50))
        assert "e5bot hield zich niet aan het protocol in beurt 2: koos e5, en dat veld is niet leeg" in screen
        assert "De computer (moeilijk) speelt wit" in screen and "Toetsenblok B (wit): jouw bot e5bot" in screen
        assert "stderr" not in screen  # it wrote nothing there
    finally:
        dev.close()
        seat.close()


def test_headless_scripts_play_against_a_bot_and_say_when_it_broke(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("A move a1\nsync\nA move a2\nsync\nA move a3\nsync\nA move a4\nsync\nA move a6\nsync\n")
    r = subprocess.run([PY, "-m", "tools.sim", "--headless", "--seed", "4", "--script", script, "--player",
                        "cmd:%s %s" % (PY, EXAMPLES / "mybot.py")], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()[:9]
    assert sum(row.count("B") for row in rows) == 5 and sum(row.count("W") for row in rows) == 5
    bot = student_copy(tmp_path)
    r = subprocess.run([PY, "-m", "tools.sim", "--headless", "--seed", "4", "--script", script, "--player",
                        "cmd:%s %s" % (PY, bot)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "tools.sim: player student: exited without answering (code 1)" in r.stderr
    assert "  | IndexError: list index out of range" in r.stderr
    assert sum(row.count("W") for row in r.stdout.splitlines()[:9]) == 5  # the computer played its fifth move


def test_player_options_are_checked_before_anything_starts(monkeypatch, tmp_path):
    from tools import play
    from tools.sim import cli
    seen = []
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(st, "run", lambda args: seen.append((args.mode, args.player)) or 0)
    spec = "cmd:.venv/bin/python docs/examples/mybot.py"
    assert play.main(["--player", spec]) == 0 and cli.main(["--player", spec, "--mode", "demo"]) == 0
    assert seen == [("medium", spec), ("demo", spec)]  # ./wts play passes it on, and never looks for a board
    for argv, why in ((["--player", spec, "--mode", "2p"], "--mode 2p has none"),
                      (["--player", "mybot.py"], "bad --player 'mybot.py'"),
                      (["--player", spec, "--runtime", "micropython"], "--player needs --runtime cpython"),
                      (["--reply-timeout", "3"], "--reply-timeout is for --player")):
        r = subprocess.run([PY, "-m", "tools.sim"] + argv, capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert r.returncode == 2 and why in r.stderr, (argv, r.stderr)
    r = subprocess.run(["./wts", "play", "--player", spec, "--mode", "tutorial"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "--mode tutorial has none" in r.stderr
    with pytest.raises(ValueError, match="--runtime cpython only"):
        Device(board="pico", mode="easy", runtime="micropython", bots=Seat("true").bots())


# ---- the bot process -------------------------------------------------------------------------------------

def test_a_bot_that_floods_stderr_still_answers_and_only_the_end_is_kept():
    # Its stderr is read while its answer is awaited: 8 MB of it cannot fill the pipe and block the bot.
    p = outside.CommandPlayer("flood", "%s %s 8" % (PY, BOTS / "stderr_flood.py"), timeout=60)
    try:
        assert p.choose(Game(), BLACK) == 0
        assert len(p.bot.err) <= 2 * botproc.STDERR_KEEP
        tail = p.bot.stderr_tail()
        lines = tail.split("\n")  # the last lines of its newest STDERR_KEEP bytes, each cut to STDERR_WIDTH
        assert lines[-1] == "flood end" and 10 < len(lines) <= botproc.STDERR_LINES
        assert all(len(x) <= botproc.STDERR_WIDTH + 3 for x in lines)
    finally:
        p.close()


def test_a_bot_that_floods_stderr_without_answering_times_out_with_the_end_of_it():
    p = outside.CommandPlayer("flood", "%s %s 1 forever" % (PY, BOTS / "stderr_flood.py"), timeout=2)
    try:
        with pytest.raises(outside.PlayerError, match="no answer within 2 s") as e:
            p.choose(Game(), BLACK)
        assert e.value.stderr.split("\n")[-1].startswith("x") and len(e.value.stderr) < 2 * botproc.STDERR_KEEP
        assert e.value.request == botproc.request(Game(), BLACK)
    finally:
        p.close()


def test_stderr_is_shown_as_plain_text():
    assert botproc.printable(b"ok\x1b[2J\xff\r\n" + b"y" * 300) == "ok?[2J\ufffd\n" + "y" * 240 + "..."


# ---- --watch -----------------------------------------------------------------------------------------------

def test_watch_tells_each_turn_and_replays_a_recorded_game_the_same(tmp_path):
    results = tmp_path / "r.jsonl"
    live = tournament("--watch", "--pairings", "greedy-random", "--seed", "3", "--results", results)
    assert live.returncode == 0, live.stderr
    rec = json.loads(results.read_text())
    assert len(rec["moves"].split()) == rec["turns"] and live.stdout.count("\nturn ") == rec["turns"]
    assert "greedy-random, game 0, seed 3: black greedy, white random" in live.stdout
    first = rec["moves"].split()[0]
    assert "turn 1:\n  black %s, white %s\n" % (first[:2], first[2:]) in live.stdout
    assert "\nresult: black wins: 5 in a row" in live.stdout
    again = tournament("--watch", "--pairings", "greedy-random", "--seed", "3", "--results", results)
    assert again.stdout.replace("(replayed from %s)\n" % results, "") == live.stdout
    assert len(results.read_text().splitlines()) == 1  # nothing added: it was there
    nl = tournament("--watch", "--pairings", "greedy-random", "--seed", "3", "--results", results, "--lang", "nl")
    assert "beurt 1:\n  zwart %s, wit %s\n" % (first[:2], first[2:]) in nl.stdout and "uitslag: zwart wint" in nl.stdout


def test_watch_waits_for_enter_on_a_terminal_and_q_stops(tmp_path):
    from pty_helpers import Terminal
    term = Terminal([PY, "-m", "tools.tournament", "--watch", "--pairings", "greedy-random", "--seed", "3",
                     "--lang", "en"], cwd=ROOT)
    try:
        term.expect("Enter: the next turn")
        term.expect("turn 1:")
        time.sleep(0.5)
        assert "turn 2:" not in term.text()
        term.send("\r")
        term.expect("turn 2:")
        term.send("q\r")
        assert term.wait(60) == 0 and "turn 3:" not in term.text()
    finally:
        term.close()


def test_watch_options():
    for argv, why in ((["--watch", "--jobs", "2"], "one game at a time"), (["--delay", "1"], "--delay is for --watch"),
                      (["--game", "3", "--games", "2"], "--game 3 is not among the 2 game(s)"),
                      (["--game", "-1"], "numbered from 0")):
        r = tournament(*argv, "--pairings", "greedy-random", timeout=60)
        assert r.returncode == 2 and why in r.stderr, (argv, r.stderr)


def test_the_classroom_page_shows_what_the_tournament_prints():
    """docs/classroom.md "When a bot breaks": its command prints every line of its sample ("..." stands for more)."""
    import re
    import shlex
    page = (ROOT / "docs" / "classroom.md").read_text()
    part = page[page.index("### When a bot breaks"):]
    command = re.search(r"```sh\n(.*?)\n```", part, re.S).group(1)
    sample = re.search(r"```text\n(.*?)\n```", part, re.S).group(1).split("\n")
    r = tournament(*shlex.split(command)[3:])
    assert r.returncode == 0, r.stderr
    for line in sample:
        if line.strip() != "...":
            assert line + "\n" in r.stdout, line
