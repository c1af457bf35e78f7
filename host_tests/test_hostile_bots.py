"""Host tools that survive any bot (issue 30): the botserver answers invalid UTF-8, endless and 200,000-deep lines with an error and goes on; the tournament's outside players are read byte by byte with a size limit and a timeout that partial lines cannot block, each runs in its own process group that ends with all its children, and every finished game is on disk before the next one starts. The hostile bots are in host_tests/fixtures/bots/."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT
from engine import BLACK, Game
from tools import tournament as t
from tools.tournament import outside

BOTS = ROOT / "host_tests" / "fixtures" / "bots"
EMPTY = json.dumps({"board": ["........."] * 9, "eggs": [], "you": "black"})


def bot(name, *args):
    return " ".join([sys.executable, str(BOTS / (name + ".py"))] + [str(a) for a in args])


# ---- botserver ------------------------------------------------------------------------------------------

def _botserver(data, **env):
    return subprocess.run([sys.executable, "-m", "tools.botserver", "--level", "easy", "--seed", "1"], input=data,
                          capture_output=True, cwd=ROOT, timeout=120, env=dict(os.environ, **env))


@pytest.mark.parametrize("bad,why", [
    (b"[" * 200000, "nested too deep"),  # before: RecursionError, and the next request was never answered
    (b"[" * 20000 + b"]" * 20000, "nested too deep"),  # within the size limit, still too deep
    (b"\xff", "not UTF-8"),  # before: UnicodeDecodeError under a strict UTF-8 stdin
    (b'{"board": "\xff\xfe", "you": "black"}', "not UTF-8"),
    (b"x" * 3000000, "longer than"),  # no line of the protocol is that long: read in pieces, dropped
])
def test_the_botserver_answers_a_hostile_line_with_an_error_and_the_next_request_too(bad, why):
    r = _botserver(bad + b"\n" + EMPTY.encode() + b"\n", PYTHONIOENCODING="utf-8")
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 2, (lines, r.stderr[-500:])
    assert lines[0].startswith("error:") and why in lines[0]
    assert len(lines[1]) == 2 and lines[1][0] in "abcdefghi"  # the valid request after it is answered
    assert r.returncode == 1 and b"Traceback" not in r.stderr


def test_the_botserver_reads_requests_as_bytes_whatever_the_locale():
    for env in ({"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C"}, {"PYTHONUTF8": "1"}):
        r = _botserver(EMPTY.encode() + b"\n\xc3\xa9\n", **env)
        lines = r.stdout.decode().splitlines()
        assert len(lines) == 2 and len(lines[0]) == 2 and lines[1].startswith("error:"), (env, lines, r.stderr)


# ---- outside players --------------------------------------------------------------------------------------

def _choose(player, timeout=30.0):
    """player.choose on the empty board in a thread: (exception or cell, seconds taken); a choose() that is still
    blocked after `timeout` is a failure of the reader, not a slow bot."""
    box = []

    def run():
        t0 = time.monotonic()
        try:
            box.append(player.choose(Game(), BLACK))
        except Exception as e:  # noqa: BLE001 (the test looks at which)
            box.append(e)
        box.append(time.monotonic() - t0)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(timeout)
    assert not th.is_alive(), "choose() still blocked after %.0f s" % timeout
    return box[0], box[1]


def test_a_reply_without_a_newline_cannot_block_past_the_timeout():
    # Before: the selector saw "e5" arrive, then readline() waited for a newline that never came (an hour).
    p = t.CommandPlayer("nonl", bot("no_newline"), timeout=1.0)
    try:
        err, took = _choose(p)
    finally:
        p.close()
    assert isinstance(err, t.PlayerError) and "no answer within 1 s" in str(err)


def test_an_endless_reply_is_cut_at_the_size_limit():
    p = t.CommandPlayer("endless", bot("endless_line"), timeout=20.0)
    try:
        err, took = _choose(p)
    finally:
        p.close()
    assert isinstance(err, t.PlayerError) and "longer than %d bytes" % outside.MAX_REPLY in str(err)


def test_a_reply_that_is_not_utf8_forfeits_the_game():
    p = t.CommandPlayer("bad", bot("invalid_utf8"))
    try:
        err, took = _choose(p)
    finally:
        p.close()
    assert isinstance(err, t.PlayerError) and "not UTF-8" in str(err)


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is gone, only not yet reaped
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc to see the grandchild")
def test_a_bots_grandchildren_end_with_it(tmp_path):
    # Before: the bot was killed, its grandchild (sleep 600) ran on.
    pids = tmp_path / "pids"
    p = t.CommandPlayer("gc", bot("grandchild", pids))
    try:
        cell, _ = _choose(p)
        assert cell == 0
    finally:
        p.close()
    pid = int(pids.read_text().split()[0])
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_every_hostile_bot_only_forfeits_in_a_tournament_run(tmp_path):
    # Before: the invalid UTF-8 bot crashed the whole run (UnicodeDecodeError) and every result was lost.
    players = ["bad=cmd:" + bot("invalid_utf8"), "nonl=cmd:" + bot("no_newline"), "gc=cmd:" + bot("grandchild", tmp_path / "p")]
    r = subprocess.run([sys.executable, "-m", "tools.tournament", "--games", "2", "--pairings", "bad-random,random-nonl,gc-random",
                        "--reply-timeout", "1"] + [a for p in players for a in ("--player", p)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "| bad vs random | 2 |" in r.stdout and "| random vs nonl | 2 |" in r.stdout and "| gc vs random | 2 |" in r.stdout
    assert "forfeits: bad lost 2 game(s)" in r.stdout and "forfeits: nonl lost 2 game(s)" in r.stdout


def test_a_crash_of_the_tournament_loses_no_finished_game(tmp_path):
    # Before: results lived in memory until the end: a crash (here: SIGKILL in the 3rd game) lost them all.
    results = tmp_path / "results.jsonl"
    count = tmp_path / "starts"
    args = [sys.executable, "-m", "tools.tournament", "--games", "4", "--seed", "2", "--pairings", "killer-random",
            "--player", "killer=cmd:" + bot("killer", count, 3), "--results", str(results)]
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == -9  # killed while game 2 was starting
    got = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(g["a"], g["b"], g["i"]) for g in got] == [("killer", "random", 0), ("killer", "random", 1)]
    # The same command again plays only the games that are missing, and the summary counts all four.
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "| killer vs random | 4 |" in r.stdout and "2 game(s) already in" in r.stdout
    assert len(results.read_text().splitlines()) == 4
    assert count.read_text() == "5"  # 3 starts in the first run (the third killed it), 2 in the second


def test_a_results_file_cut_mid_line_keeps_its_whole_lines(tmp_path):
    results = tmp_path / "r.jsonl"
    line = json.dumps({"a": "greedy", "b": "random", "i": 0, "seed": 1, "out": 1, "turns": 9, "forfeit": ""})
    results.write_text(line + "\n" + line[:20])  # a power cut while the second line was written
    r = subprocess.run([sys.executable, "-m", "tools.tournament", "--games", "2", "--pairings", "greedy-random",
                        "--results", str(results)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "| greedy vs random | 2 |" in r.stdout and "1 game(s) already in" in r.stdout
    lines = results.read_text().splitlines()
    assert json.loads(lines[0]) == json.loads(line) and lines[1] == line[:20] and json.loads(lines[2])["i"] == 1
