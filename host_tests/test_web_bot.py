"""A student's bot in the browser edition (issue 26): `python -m tools.web serve --player cmd:COMMAND` runs it behind the page's own server (tools/web/relay.py) and the page's computer seat asks it (tools/web/site/webbot.py); a bot that breaks the protocol is told with its traceback and the built-in computer finishes the game; the endpoint takes nothing but its own page's positions; no bot process outlives its game, its page or the server."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from tools import web
from tools.web import relay as relay_mod

from web_helpers import advance, driver, open_page, page_rows, ROOT, severe, site, sync, tap

PY = sys.executable
EXAMPLES = ROOT / "docs" / "examples"
EMPTY = json.dumps({"board": ["........."] * 9, "eggs": [], "you": "white"}).encode()


class Server:
    """The site served from a thread, with `player` (make_server's) or without; .url, .relay, .stop()."""

    def __init__(self, site, **kw):
        self.srv, self.url = web.serve_in_thread(site, **kw)
        self.port = self.srv.server_address[1]
        self.relay = getattr(self.srv, "relay", None)

    def post(self, path, body=b"", ctype="application/json", origin="own", host=None):
        headers = {"Content-Type": ctype}
        if origin is not None:
            headers["Origin"] = "http://127.0.0.1:%d" % self.port if origin == "own" else origin
        if host is not None:
            headers["Host"] = host
        req = urllib.request.Request(self.url + path, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            data = e.read()
            return e.code, json.loads(data) if data.startswith(b"{") else data

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()


def alive(pid):
    """True while process `pid` runs (a zombie waiting to be reaped counts as ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds=10):
    end = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def until(driver, cond, seconds=40):
    """Run the page's manual clock while real time passes too (the bot is a real process, its answer a real fetch
    that the page takes between two calls), until cond()."""
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, "still waiting after %d s: %r" % (seconds, driver.execute_script("return wts.narration"))
        advance(driver, 100)
        time.sleep(0.01)


def type_move(driver, cell):
    from engine import parse_square
    from firmware.entry import keys_for

    for k in keys_for(parse_square(cell), False):
        tap(driver, 0, k)


def narration(driver):
    return driver.execute_script("return wts.narration")


def tee_bot(tmp_path, script):
    """A --player command that runs `script` and keeps, beside it, every request it got and every answer it gave."""
    req, ans = tmp_path / "requests", tmp_path / "answers"
    name = script.stem
    return "%s=cmd:sh -c 'tee -a %s | %s %s | tee -a %s'" % (name, req, PY, script, ans), req, ans


BLACK_MOVES = ("a1", "c1", "g1", "i1", "a9", "c9", "g9", "i9", "a3", "i3", "a7", "i7", "e1", "e9")  # far from the centre


def play_until_over(driver, turns):
    """Black (pad A) plays BLACK_MOVES, one a turn, until the narration says who won; returns its sentences."""
    for cell in BLACK_MOVES[:turns]:
        sync(driver)
        n = len(narration(driver))
        type_move(driver, cell)
        until(driver, lambda: len(narration(driver)) > n)
        if any(re.search(r" wins| wint|draw|gelijkspel", line) for line in narration(driver)):
            break
    return narration(driver)


# ---------------------------------------------------------------- in the browser
def test_a_served_page_plays_a_game_against_mybot_its_moves_on_the_matrix(driver, site, tmp_path):
    player, requests, answers = tee_bot(tmp_path, EXAMPLES / "mybot.py")
    s = Server(site, player=player)
    try:
        log = open_page(driver, s.url, "?mode=easy&clock=manual&seed=1")
        assert severe(log) == [] and driver.execute_script("return wts.player") == "mybot"
        assert driver.find_element("css selector", "#padB .padlabel").text == \
            web.PAGE_WORDS["en"]["padBBot"].format(name="mybot")
        told = play_until_over(driver, 8)
        # mybot lengthens its line from the centre; black plays far away: its five wins the game
        assert "white wins" in told[-1], told
        said = answers.read_text().split()
        rows = page_rows(driver)
        assert len(said) == len(told) - 1 == 5
        for line, cell in zip(told, said):
            assert line.endswith(", white %s" % cell)  # each answer, told as white's move
        assert sorted(cell for cell in said) == sorted("abcdefghi"[c] + str(r + 1) for r in range(9) for c in range(9)
                                                       if rows[r][c] == "W")  # and on the matrix
        # Each request carried the board only, made before black's keys of that turn were read.
        asked = [json.loads(x) for x in requests.read_text().splitlines()]
        assert [sum(row.count("B") for row in q["board"]) for q in asked] == [0, 1, 2, 3, 4]
        assert all(set(q) == {"board", "eggs", "you"} and q["you"] == "white" for q in asked)
        assert severe(driver.get_log("browser")) == []
        (session,) = s.relay.sessions.values()
        # Another mode without the bot (as the menu's key 1 chooses it): its process ends, the page stays.
        assert session.proc.running
        driver.execute_script("wts.python('from firmware.modes import M_2P\\npage.app.set_mode(M_2P)')")
        until(driver, lambda: not session.proc.running, 10)
        assert list(s.relay.sessions.values()) == [session]
        # The page closes: its session ends.
        driver.get("about:blank")
        end = time.monotonic() + 10
        while s.relay.sessions and time.monotonic() < end:
            time.sleep(0.05)
        assert s.relay.sessions == {} and not session.proc.running
    finally:
        s.stop()


def test_a_crashing_bot_is_told_with_its_traceback_and_the_computer_finishes(driver, site):
    # docs/examples/buggybot.py plays its opening book (e5 d4 f6 c3) and crashes when the book runs out, on turn 5.
    s = Server(site, player="cmd:%s %s" % (PY, EXAMPLES / "buggybot.py"))
    try:
        open_page(driver, s.url, "?mode=easy&clock=manual&seed=2&lang=nl")
        told = play_until_over(driver, 14)
        broke = "buggybot hield zich niet aan het protocol in beurt 5: stopte zonder te antwoorden (code 1)"
        assert broke in told, told
        i = told.index(broke)
        assert told[i + 1] == ("De computer (makkelijk) speelt wit voor de rest van dit spel; "
                               "buggybot start opnieuw bij het volgende spel.")
        assert told[i + 2] == "buggybot schreef op stderr (de laatste regels):"
        assert told[i + 3].startswith("| ") and "| IndexError: list index out of range" in told[i + 3:]
        # shown as it wrote it, in pad A's panel and pad B's
        stderr = driver.find_elements("css selector", "#narration li.stderr")
        assert stderr and stderr[-1].text == "| IndexError: list index out of range"
        assert len(driver.find_elements("css selector", "#panelB .echo li.stderr")) == len(stderr)
        # The computer played white from turn 5 on, to the end of the game.
        after = [t for t in told[i + 3:] if not t.startswith("| ")]
        assert after[0].startswith("zwart ") and re.search("wint|gelijkspel", told[-1]), told
        rows = page_rows(driver)
        assert [rows[k][k] for k in (2, 3, 4, 5)] == ["W"] * 4  # its book
        assert not any(sess.proc.running for sess in s.relay.sessions.values())
        assert severe(driver.get_log("browser")) == []  # (the firmware never crashed on the way)
        if os.environ.get("WTS_SHOW"):
            print("\n".join(told))
            driver.save_screenshot("/tmp/wts-buggybot.png")
    finally:
        s.stop()


def test_a_page_without_a_player_asks_nobody(driver, site):
    # A plain server (no --player): its site.json names no bot, the computer's seat is the built-in one, and the
    # page never calls the endpoint, which does not exist there.
    s = Server(site)
    try:
        open_page(driver, s.url, "?mode=easy&clock=manual&seed=1")
        assert driver.execute_script("return [wts.player, typeof window.wtsBot]") == [None, "undefined"]
        assert driver.find_element("css selector", "#padB .padlabel").text == web.PAGE_WORDS["en"]["padBComputer"]
        sync(driver)
        type_move(driver, "a1")
        until(driver, lambda: len(narration(driver)) == 1)
        urls = [json.loads(e["message"])["message"]["params"].get("request", {}).get("url", "")
                for e in driver.get_log("performance")]
        assert s.url + "site.json" in urls and not [u for u in urls if u.startswith(s.url + "bot")]
        assert s.post("bot?session=%s&game=1" % ("0" * 32), EMPTY)[0] == 501  # no such endpoint: POST is refused
        assert "player" not in json.loads(urllib.request.urlopen(s.url + "site.json").read())
    finally:
        s.stop()


# ---------------------------------------------------------------- the endpoint
def test_the_endpoint_refuses_what_is_not_its_pages_position(site, tmp_path):
    pids = tmp_path / "pids"
    bot = tmp_path / "slow.py"  # answers e5 once the file `go` exists; says its pid first
    bot.write_text("import os, sys, time\nopen(%r, 'a').write('%%d\\n' %% os.getpid())\n"
                   "for line in sys.stdin:\n    while not os.path.exists(%r):\n        time.sleep(0.01)\n"
                   "    print('e5', flush=True)\n" % (str(pids), str(tmp_path / "go")))
    s = Server(site, player="cmd:%s %s" % (PY, bot), reply_timeout=20)
    sid = "0123456789abcdef" * 2
    ask = "bot?session=%s&game=1" % sid
    try:
        info = json.loads(urllib.request.urlopen(s.url + "site.json").read())
        assert info["player"] == {"name": "slow"} and "slow.py" not in json.dumps(info)  # never the command
        for args, status, reason in (
                ((ask, b"{not json"), 400, "bad_json"),
                ((ask, b"\xff\xfe"), 400, "bad_json"),
                ((ask, b"[1, 2]"), 400, "bad_request"),
                ((ask, json.dumps({"board": ["........."] * 9, "eggs": [], "you": "white", "keys": "123"}).encode()),
                 400, "bad_request"),  # anything but the position
                ((ask, json.dumps({"board": ["........."] * 8, "eggs": [], "you": "white"}).encode()), 400, "bad_request"),
                ((ask, json.dumps({"board": ["........."] * 9, "eggs": ["e5"], "you": "white"}).encode()), 400, "bad_request"),
                ((ask, json.dumps({"board": ["BBBBB...."] + ["........."] * 8, "eggs": [], "you": "white"}).encode()),
                 400, "bad_request"),  # a finished game
                ((ask, json.dumps({"board": ["........."] * 9, "eggs": [], "you": "red"}).encode()), 400, "bad_request"),
                (("bot?session=XYZ&game=1", EMPTY), 400, "bad_session"),
                (("bot?game=1", EMPTY), 400, "bad_session"),
                (("bot?session=%s&game=-1" % sid, EMPTY), 400, "bad_game"),
                (("bot?session=%s" % sid, EMPTY), 400, "bad_game"),
                ((ask, b"x" * (relay_mod.MAX_BODY + 1)), 413, "too_large"),
                (("bot/other?session=%s" % sid, EMPTY), 404, "not_found")):
            got = s.post(*args)
            assert got[0] == status and got[1]["error"]["reason"] == reason, (args[0], args[1][:60], got)
        assert s.post(ask, EMPTY, ctype="text/plain")[1]["error"]["reason"] == "bad_type"
        for kw in ({"origin": None}, {"origin": "http://evil.example"}, {"origin": "null"},
                   {"host": "evil.example:%d" % s.port, "origin": "http://evil.example:%d" % s.port}):
            got = s.post(ask, EMPTY, **kw)  # another site's page, or a name that points at 127.0.0.1
            assert got[0] == 403 and got[1]["error"]["reason"] == "forbidden", (kw, got)
        assert s.relay.sessions == {} and not pids.exists()  # nothing refused started anything
        # One request at a time per page: a second one while the bot thinks is refused.
        first = []
        t = threading.Thread(target=lambda: first.append(s.post(ask, EMPTY)))
        t.start()
        end = time.monotonic() + 20
        while not pids.exists() and time.monotonic() < end:
            time.sleep(0.02)
        got = s.post(ask, EMPTY)
        assert got[0] == 409 and got[1]["error"]["reason"] == "busy", got
        (tmp_path / "go").write_text("")
        t.join(30)
        assert first == [(200, {"cell": "e5"})]
        # A request of a game that is over is refused; the next game starts a new process.
        (pid1,) = map(int, pids.read_text().split())
        assert s.post("bot/end?session=%s&game=1" % sid) == (200, {"ended": True}) and wait_gone([pid1]) == []
        assert s.post(ask, EMPTY)[1]["error"]["reason"] == "stale"
        assert s.post("bot?session=%s&game=2" % sid, EMPTY) == (200, {"cell": "e5"})
        pid2 = int(pids.read_text().split()[-1])
        assert pid2 != pid1 and alive(pid2)
        assert s.post("bot/close?session=%s" % sid) == (200, {"closed": True}) and wait_gone([pid2]) == []
    finally:
        s.stop()


def test_a_bot_that_breaks_the_protocol_is_answered_with_why_its_request_and_stderr(site, tmp_path):
    bot = tmp_path / "e5bot.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n    print('looking at e5', file=sys.stderr)\n"
                   "    print('e5', flush=True)\n")
    s = Server(site, player="student=cmd:%s %s" % (PY, bot))
    sid = "ab" * 16
    try:
        taken = {"board": ["........."] * 4 + ["....B...."] + ["........."] * 4, "eggs": [], "you": "white"}
        status, got = s.post("bot?session=%s&game=3" % sid, json.dumps(taken).encode())
        err = got["error"]
        assert status == 200 and err["reason"] == "taken" and err["values"] == {"cell": "e5"}
        assert err["why"] == "chose e5, which is not empty" and err["name"] == "student"
        assert json.loads(err["request"]) == taken and err["stderr"] == "looking at e5"
        assert not s.relay.sessions[sid].proc.running
    finally:
        s.stop()


def test_an_idle_session_ends_and_a_ninth_page_ends_the_longest_idle(site):
    r = relay_mod.Relay("%s %s" % (PY, EXAMPLES / "mybot.py"), "mybot")
    try:
        sids = ["%032x" % i for i in range(relay_mod.MAX_SESSIONS + 1)]
        for sid in sids[:-1]:
            assert r.ask(sid, 1, EMPTY) == (200, {"cell": "e5"})
        procs = {sid: r.sessions[sid].proc.proc for sid in sids[:-1]}
        r.ask(sids[-1], 1, EMPTY)
        assert sids[0] not in r.sessions and procs[sids[0]].poll() is not None  # ended and reaped
        r.sweep(time.monotonic() + relay_mod.IDLE + 1)
        assert r.sessions == {} and all(p.poll() is not None for p in procs.values())
    finally:
        r.close()


# ---------------------------------------------------------------- the server stops
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_no_bot_process_is_left_when_the_server_stops(site, tmp_path, sig):
    pids = tmp_path / "pids"
    bot = tmp_path / "forker.py"  # starts a child of its own, and answers only the first request
    bot.write_text("import os, subprocess, sys, time\nc = subprocess.Popen(['sleep', '600'])\n"
                   "open(%r, 'a').write('%%d %%d\\n' %% (os.getpid(), c.pid))\nsys.stdin.readline()\n"
                   "print('e5', flush=True)\nsys.stdin.readline()\ntime.sleep(600)\n" % str(pids))
    p = subprocess.Popen([PY, "-m", "tools.web", "serve", "--no-build", "--dir", str(site), "--port", "0",
                          "--player", "cmd:%s %s" % (PY, bot)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # (Ctrl-C in a terminal: SIGINT at its default, whatever the test runner inherited, as in test_vboard.py:
    # a shell script's background job ignores it, and the server never saw the SIGINT of this test.)
    try:
        line = p.stdout.readline()
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
        assert "your bot forker plays white" in p.stdout.readline()
        url = "http://127.0.0.1:%d/" % port

        def post(path, body=EMPTY):
            req = urllib.request.Request(url + path, data=body, method="POST", headers={
                "Content-Type": "application/json", "Origin": "http://127.0.0.1:%d" % port})
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read())

        assert post("bot?session=%s&game=1" % ("1" * 32)) == {"cell": "e5"}  # one bot idle between turns
        def think():
            try:
                post("bot?session=%s&game=1" % ("1" * 32))
            except (OSError, ValueError):
                pass  # refused (409: ended) or cut off when the server stops

        threading.Thread(target=think, daemon=True).start()  # and it thinks about the next one for ever
        assert post("bot?session=%s&game=1" % ("2" * 32)) == {"cell": "e5"}  # a second page's bot
        end = time.monotonic() + 10
        while len(pids.read_text().split()) < 4 and time.monotonic() < end:
            time.sleep(0.02)
        started = [int(x) for x in pids.read_text().split()]
        assert len(started) == 4 and all(alive(x) for x in started)
        p.send_signal(sig)  # Ctrl-C, or a kill
        assert p.wait(30) == 0
        assert wait_gone(started) == []  # the bots and their children
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for pid in [int(x) for x in pids.read_text().split()] if pids.exists() else ():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)  # what this test started and the server left behind
        p.stdout.close()
        p.stderr.close()


def test_a_request_waiting_for_its_bot_leaves_the_session_free_so_the_server_can_stop(tmp_path):
    # The waiting request used to hold its session's lock through each 50 ms look at the bot and take
    # it again at once: Python's lock is not fair, so a page's end or the server's close waited behind it.
    bot = tmp_path / "silent.py"  # reads the request and never answers
    bot.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n")
    r = relay_mod.Relay("%s %s" % (PY, bot), "silent")
    sid = "3" * 32
    got = []

    def ask():
        try:
            got.append(r.ask(sid, 1, EMPTY))
        except relay_mod.Refused as e:
            got.append(e.status)

    t = threading.Thread(target=ask, daemon=True)
    t.start()
    end = time.monotonic() + 10
    while not (r.sessions and r.sessions[sid].asking is not None) and time.monotonic() < end:
        time.sleep(0.01)
    session = r.sessions[sid]
    free = 0
    for _ in range(200):  # look at the lock the way close() needs it: often, for about a second
        free += not session.lock.locked()
        time.sleep(0.005)
    closer = threading.Thread(target=r.close, daemon=True)
    closer.start()
    closer.join(20)
    t.join(20)
    assert free >= 100, "the session's lock was free at %d of 200 looks" % free
    assert not closer.is_alive() and got == [409] and not session.proc.running
