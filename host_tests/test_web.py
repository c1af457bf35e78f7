"""Browser edition (tools/web): the built site is complete and static, and the real firmware plays in headless Chromium (Debian's packages) through the on-screen pads."""
import json
import os
import re
import time
from pathlib import Path

import pytest

from tools import web

from web_helpers import (advance, build_site, classify, DOCS, driver, need_port, open_page, page_rows, ROOT, Served,
                         severe, site, sync, tap, url)


@pytest.fixture(scope="module")
def plain_url(tmp_path_factory):
    # The site players get (python -m tools.web build): no test hooks.
    s = Served(build_site(tmp_path_factory.mktemp("plain") / "web"))
    yield s.url
    s.stop()


def snapshot(driver):
    """Everything a player across the table could see or hear: the DOM, the canvas, a screenshot, the sound log."""
    return (driver.execute_script("return document.body.outerHTML"),
            driver.execute_script("return document.getElementById('matrix').toDataURL()"),
            driver.get_screenshot_as_png(),
            json.dumps(driver.execute_script("return wts.sounds")))


# ---------------------------------------------------------------- the built site (no browser needed)
def _device(info):
    import base64
    return {rel: base64.b64decode(b) for rel, b in info["device"].items()}


def test_site_has_pinned_port_files_device_files_and_only_relative_urls(site):
    info = json.loads((site / "site.json").read_text())
    for f in web.PORT_FILES:
        assert (site / f).read_bytes() == (web.PORT_DIR / f).read_bytes()
        assert info["port"]["sha256"][f] == web.sha256(site / f)
    assert info["port"]["version"] == json.loads((web.PORT_DIR / "package.json").read_text())["version"]
    from tools import deploy
    dev = _device(info)
    assert sorted(dev) == info["files"]
    for path in list(deploy.runtime_files()) + ["board_config.mpy"]:  # every module a board gets: new firmware files come along
        if path == "lib/engine/bot/viper.mpy":
            assert path not in dev  # machine code: the port has no viper (test_rp2040_cores.py)
            continue
        assert dev[path][:2] == bytes((ord("M"), web.PORT_MPY[0]))
    assert dev["lib/narrate.py"] == (ROOT / "tools" / "sim" / "narrate.py").read_bytes()
    assert dev["webhw.py"] == (web.SITE_SRC / "webhw.py").read_bytes()
    for f in web.PAGE_FILES:
        text = (site / f).read_text()
        assert not re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", text), f
        assert not re.search(r"""(fetch|import)\s*\(?\s*["'](https?:)?//""", text), f


def test_source_build_ships_the_files_themselves(tmp_path):
    need_port()
    from tools import deploy
    web.build(tmp_path / "web", log=lambda *a: None, compiled=False)
    dev = _device(json.loads((tmp_path / "web" / "site.json").read_text()))
    for path, src in deploy.source_files().items():
        if path == "lib/engine/bot/viper.mpy":
            assert path[:-4] + ".py" not in dev  # machine code: the port has no viper
            continue
        assert dev[path[:-4] + ".py"] == Path(src).read_bytes()
    assert dev["board_config.py"] == (ROOT / "boards" / "pico.py").read_bytes()


@pytest.mark.needs_node
def test_port_loads_the_mpy_version_the_site_is_compiled_for():
    from tools import upy
    v = int(upy.run("import sys\nprint(sys.implementation._mpy)").strip())
    assert (v & 0xFF, (v >> 8) & 3) == web.PORT_MPY


def test_browser_layer_is_plain_micropython_syntax():
    # It only runs inside the page; a syntax slip should fail here, not as a page that never boots.
    src = (web.SITE_SRC / "webhw.py").read_text()
    compile(src, "webhw.py", "exec")


def test_keymap_is_the_terminal_simulators(site):
    from tools.sim import terminal
    info = json.loads((site / "site.json").read_text())
    assert info["keymap"] == [terminal.PAD_A_KEYS, terminal.PAD_B_KEYS]


def test_build_refuses_unknown_board_and_foreign_folder(tmp_path):
    with pytest.raises(web.WebBuildError, match="unknown board 'nope'; valid boards: .*pico"):
        web.build(tmp_path / "x", board="nope", log=lambda *a: None)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(web.WebBuildError, match="not empty"):
        web.build(tmp_path / "mine", log=lambda *a: None)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def _tree(d):
    return sorted((p.relative_to(d).as_posix(), p.read_bytes() if p.is_file() else None) for p in d.rglob("*"))


@pytest.mark.parametrize("extra", ["notes.txt", "sub/photo.jpg", "site.json only", "an old site.json", "symlink"])
def test_build_deletes_nothing_it_did_not_write(tmp_path, extra):
    # Before: any folder holding a site.json was deleted whole (shutil.rmtree) before the site was written.
    need_port()
    out = tmp_path / "out"
    if extra == "site.json only":  # someone else's site.json, nothing else
        out.mkdir()
        (out / "site.json").write_text('{"mine": true}')
    elif extra == "an old site.json":  # a site built by this tool, then a file added to it
        build_site(out)
        info = json.loads((out / "site.json").read_text())
        (out / "site.json").write_text(json.dumps({k: info[k] for k in ("port", "board")}))  # as before "output"
        (out / "README.txt").write_text("my notes")
    else:
        build_site(out)
        target = out / extra if extra != "symlink" else out / "link"
        if extra == "symlink":
            (tmp_path / "elsewhere").mkdir()
            (tmp_path / "elsewhere" / "precious").write_text("x")
            target.symlink_to(tmp_path / "elsewhere")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("mine")
    before = _tree(out)
    with pytest.raises(web.WebBuildError, match="holds more than a site built here"):
        web.build(out, log=lambda *a: None)
    assert _tree(out) == before
    if extra == "symlink":
        assert (tmp_path / "elsewhere" / "precious").read_text() == "x"


def test_build_replaces_its_own_site_only(tmp_path):
    need_port()
    out = tmp_path / "out"
    first = build_site(out, test_hooks=True)
    assert json.loads((first / "site.json").read_text())["testHooks"] is True
    build_site(out)  # its own output, and nothing else: replaced
    info = json.loads((out / "site.json").read_text())
    assert info["testHooks"] is False and info["generator"] == web.GENERATOR
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == info["output"]
    (tmp_path / "empty").mkdir()
    build_site(tmp_path / "empty")  # an empty folder is fine
    with pytest.raises(web.WebBuildError, match="is not a folder"):
        web.build(out / "index.html", log=lambda *a: None)


# ---------------------------------------------------------------- in the browser
def test_the_normal_page_has_no_test_hooks(driver, plain_url, url):
    # Before: every page load installed window.wts.python(), a full REPL: anyone at the devtools console could read
    # the other player's pending move (page.app.entries[1]). Now only a --test-hooks site (the test suite's) has it.
    hooks = {"python", "advance", "waiting", "heap"}
    open_page(driver, url, "?mode=2p&clock=manual")
    assert hooks <= set(driver.execute_script("return Object.keys(wts)"))  # (the test can see them where they exist)
    log = open_page(driver, plain_url, "?mode=2p&clock=manual")
    assert severe(log) == []
    names = driver.execute_script("return Object.keys(wts)")
    assert not hooks & set(names), names
    # What is left is public: numbers, the LEDs, the sounds, the narration; no function hands out a Python object.
    kinds = driver.execute_script(
        "return Object.entries(wts).map(([k, v]) => [k, typeof v, typeof v === 'function' ? String(v()).slice(0, 0) : ''])")
    assert {k for k, kind, _ in kinds if kind == "function"} == {"pixels", "wire"}, kinds
    assert driver.execute_script("return typeof window.page + typeof window.mp + typeof window.py") == "undefined" * 3
    assert web.PAGE_WORDS["en"]["noManualClock"] in driver.find_element("id", "status").text  # ?clock=manual is refused
    frames = driver.execute_script("return wts.frames")
    time.sleep(0.5)
    assert driver.execute_script("return wts.frames") > frames  # and the real clock runs


def test_boots_to_attract_mode_without_console_errors_or_outside_requests(driver, url):
    log = open_page(driver, url)
    time.sleep(1.5)  # real clock: the computer players start a demo game
    log += driver.get_log("browser")
    assert [e for e in log if e["level"] in ("SEVERE", "WARNING")] == []
    assert driver.find_element("id", "mode").text.lower().startswith("attract")
    assert driver.execute_script("return wts.frames") > 20
    px = driver.execute_script("return wts.pixels()")
    assert len(px) == 83 and any(sum(p) > 0 for p in px[:81])
    hosts = set()
    for e in driver.get_log("performance"):
        m = json.loads(e["message"])["message"]
        if m["method"] == "Network.requestWillBeSent":
            u = m["params"]["request"]["url"]
            if not u.startswith("data:"):
                hosts.add(re.match(r"[a-z]+://([^/:]+)", u).group(1))
    assert hosts == {"127.0.0.1"}


def _demo_actions():
    from tools.sim.keyscript import parse_script
    return parse_script((DOCS / "demo-game.txt").read_text())


def test_scripted_game_through_the_onscreen_pads_ends_on_the_engines_board(driver, url):
    from engine import Game
    from engine.notation import board_rows
    from firmware.entry import keys_for

    open_page(driver, url, "?mode=2p&clock=manual&seed=1")
    g = Game()
    pending = {}
    actions = [a for a in _demo_actions() if a[0] != "wait" or a[1] < 5000]
    for a in actions:
        if a[0] == "sync":
            sync(driver)
        elif a[0] == "wait":
            advance(driver, a[1])
        elif a[0] == "move":
            pad, cell = a[1], a[2]
            for k in keys_for(cell, pad == 1):  # pad B sits opposite, turned 180 degrees (the default seating)
                tap(driver, pad, k)
            pending[pad] = cell
            if len(pending) == 2:
                g.play(pending[0], pending[1])
                pending = {}
        else:
            raise AssertionError("demo script action %r not handled here" % (a,))
    want = board_rows(g)
    assert g.result == 1  # the demo game is black's win
    for _ in range(80):  # the last turn's reveal and animation, then the game-over picture
        advance(driver, 100)
        if page_rows(driver) == want:
            break
    assert page_rows(driver) == want, driver.execute_script("return wts.pixels()")
    for _ in range(50):  # the panel tells the last turn once its animation is over
        story = driver.execute_script("return wts.narration")
        if any("wins" in line for line in story):
            break
        advance(driver, 100)
    assert len(story) >= g.turns and "black wins" in story[-1]
    shot = driver.get_screenshot_as_png()
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("WTS_UPDATE_DOCS"):
        (DOCS / "browser.png").write_bytes(shot)
    assert not driver.execute_script("return wts.waiting()")
    advance(driver, 300)  # the store directory is mirrored to localStorage every 250 ms
    scores = json.loads(driver.execute_script("return localStorage.getItem('wts:scores.json')"))
    assert scores["2p"] == [1, 0, 0]  # black's win is counted, and kept by the browser
    # and shown as the running score, on both players' sides
    want = web.PAGE_WORDS["en"]["score"].format(black=1, white=0, draws=0)
    assert driver.find_element("id", "score").text == want
    assert driver.execute_script("return document.querySelector('#panelB .score').textContent") == want
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


@pytest.mark.parametrize("moves", [(("e5", "d4"), ("a1", "i9"))])
def test_different_pending_moves_look_and_sound_identical_until_the_reveal(driver, url, moves):
    from engine import parse_square
    from firmware.entry import keys_for

    runs = []
    for black, white in moves:
        open_page(driver, url, "?mode=2p&clock=manual&seed=3")
        snaps = [snapshot(driver)]
        a = keys_for(parse_square(black), False)
        b = keys_for(parse_square(white), True)
        for i in range(3):  # interleaved, as two players type at once
            tap(driver, 0, a[i])
            snaps.append(snapshot(driver))
            tap(driver, 1, b[i])
            snaps.append(snapshot(driver))
        for _ in range(3):  # the 900 ms countdown, up to just before the reveal
            advance(driver, 250)
            snaps.append(snapshot(driver))
        advance(driver, 2500)
        runs.append((snaps, snapshot(driver)))
    (s1, after1), (s2, after2) = runs
    for k in range(len(s1)):
        for part, name in ((0, "DOM"), (1, "canvas"), (2, "screenshot"), (3, "sounds")):
            assert s1[k][part] == s2[k][part], "%s differs at snapshot %d, before the reveal" % (name, k)
    assert after1[1] != after2[1]  # after the reveal the canvas shows the moves: the snapshots can see a difference


def test_settings_survive_a_reload(driver, url):
    def lit_brightness_dots():
        # Menu block 8 shows the brightness level as lit dots (firmware.app._render_menu).
        px = driver.execute_script("return wts.pixels()")
        return sum(1 for i in (57, 58, 59, 66, 67, 68) if sum(px[i]) > 0)

    open_page(driver, url, "?clock=manual&seed=5")
    tap(driver, 0, "5")  # any key but # opens the menu from attract mode
    advance(driver, 200)
    assert driver.find_element("id", "mode").text.lower() == "menu"
    from tools.sim import terminal
    shown = driver.find_element("id", "menuitems").text.split("\n")
    assert shown == [x for item in terminal.menu_items() for x in item]  # the menu's keys and labels beside the matrix
    before = lit_brightness_dots()
    tap(driver, 0, "8")  # brighter
    advance(driver, 600)
    assert lit_brightness_dots() == before + 1
    assert driver.execute_script("return localStorage.getItem('wts:settings.json')")
    table = driver.find_element("id", "table")
    assert "opposite" in table.get_attribute("class")  # pad B across the table, turned 180 degrees
    tap(driver, 0, "9")  # seating: side by side
    advance(driver, 600)
    assert "side" in table.get_attribute("class")
    open_page(driver, url, "?clock=manual&seed=5", fresh=False)
    tap(driver, 0, "5")
    advance(driver, 200)
    assert lit_brightness_dots() == before + 1
    assert "side" in driver.find_element("id", "table").get_attribute("class")
    if os.environ.get("WTS_SHOW"):
        driver.save_screenshot("/tmp/wts-side.png")


@pytest.mark.parametrize("key,mode", [("1", "2p"), ("2", "easy"), ("3", "medium"), ("4", "hard"), ("5", "tutorial")])
def test_menu_starts_each_mode_and_the_computer_answers(driver, url, key, mode):
    from firmware.entry import keys_for
    from tools.sim import narrate

    open_page(driver, url, "?clock=manual&seed=7")
    tap(driver, 0, "5")  # attract -> menu
    tap(driver, 0, key)
    advance(driver, 100)
    assert driver.find_element("id", "mode").text == narrate.mode_title(mode)
    dimmed = "computer" in driver.find_element("id", "table").get_attribute("class")
    assert dimmed == (mode in ("easy", "medium", "hard"))  # pad B is the computer's seat
    if mode == "tutorial":
        from firmware.tutorial import LESSONS
        advance(driver, 3000)  # the first lesson is shown, played and told
        story = driver.execute_script("return wts.narration")
        title, caption = narrate.lesson_text(LESSONS[0][0])
        assert story == ["lesson 1 of %d: %s. %s" % (len(LESSONS), title, caption), "black e5, white d4"]
        assert page_rows(driver)[4][4] == "B" and page_rows(driver)[3][3] == "W"
        return
    sync(driver)
    for k in keys_for(40, False):  # black: e5
        tap(driver, 0, k)
    if mode == "2p":
        for k in keys_for(30, True):  # white: d4, typed on pad B from across the table
            tap(driver, 1, k)
    sync(driver)
    rows = page_rows(driver)
    flat = "".join(rows)
    assert flat[40] in "Be"
    assert flat.count("W") + flat.count("e") == 1  # the computer (or pad B) placed exactly one turtle
    if mode == "2p":
        assert flat[30] == "W"


def test_keyboard_halves_are_the_two_pads(driver, url):
    from selenium.webdriver.common.action_chains import ActionChains
    from firmware.entry import keys_for
    from tools.sim import terminal

    open_page(driver, url, "?mode=2p&clock=manual&seed=9")
    for pad, cell, halves in ((0, 40, terminal.PAD_A_KEYS), (1, 30, terminal.PAD_B_KEYS)):
        inv = {v: k for k, v in halves.items()}
        for k in keys_for(cell, pad == 1):
            ActionChains(driver).key_down(inv[k]).perform()
            advance(driver, 80)
            ActionChains(driver).key_up(inv[k]).perform()
            advance(driver, 80)
    sync(driver)
    flat = "".join(page_rows(driver))
    assert flat[40] == "B" and flat[30] == "W" and flat.count("B") == flat.count("W") == 1


@pytest.mark.parametrize("query,says", [("?mode=bogus", "unknown mode \"bogus\"; valid modes: attract, menu, 2p"),
                                        ("?seed=-4", "seed must be a whole number")])
def test_bad_page_options_get_one_line_and_the_default_start(driver, url, query, says):
    log = open_page(driver, url, query)
    status = driver.find_element("id", "status").text
    assert says in status and "\n" not in status
    assert driver.find_element("id", "mode").text.lower().startswith("attract")
    assert [e for e in log + driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_a_key_sounds_the_firmwares_click_at_its_pwm_frequency(driver, url):
    from firmware.sound import SOUNDS, KEY, VOLUMES

    open_page(driver, url, "?mode=2p&clock=manual&seed=2")
    driver.execute_script("wts.sounds.length = 0")
    tap(driver, 0, "5")
    notes = driver.execute_script("return wts.sounds")
    on = [(hz, duty) for _, hz, duty in notes if duty > 0]
    assert on and all(hz == SOUNDS[KEY][0] and duty in VOLUMES for hz, duty in on)
    assert notes[-1][2] == 0  # and it ends: the buzzer is silent again


def test_starts_offline_once_loaded(driver, site):
    srv, u = web.serve_in_thread(site)
    try:
        open_page(driver, u)
        t0 = time.time()
        while not driver.execute_script("return !!wts.offlineReady"):
            assert time.time() - t0 < 20, "the service worker never became ready"
            time.sleep(0.05)
    finally:
        srv.shutdown()
        srv.server_close()
    open_page(driver, u, "?mode=2p", fresh=False)  # the server is gone: every file comes from the offline copy
    assert driver.find_element("id", "mode").text.lower() == "two players"


def _board_names():
    import boards
    return boards.names() if hasattr(boards, "names") else list(boards.NAMES)


@pytest.mark.parametrize("board", _board_names())
def test_every_board_file_decodes_to_the_simulators_leds(driver, tmp_path, board):
    # Layout, origin, rotation, colour order and pads differ per board (boards/sim.py: progressive, bottom-right,
    # 90 degrees, RGB, 4x4 pads): the page must show each cell where the CPython simulator does, in the same colour.
    from firmware.entry import keys_for
    from tools.sim import Device

    site = tmp_path / "web"
    web.build(site, board=board, log=lambda *a: None, test_hooks=True)
    srv, u = web.serve_in_thread(site)
    try:
        open_page(driver, u, "?mode=2p&clock=manual&seed=1")
        for pad, cell in ((0, 0), (1, 11)):  # black a1, white c2: not symmetric under any rotation
            for k in keys_for(cell, pad == 1):
                tap(driver, pad, k)
        sync(driver)
        page = [tuple(p) for p in driver.execute_script("return wts.pixels()")]
    finally:
        srv.shutdown()
        srv.server_close()
    dev = Device(board=board, mode="2p", keep_frames=False)
    dev.move("A", "a1")
    dev.move("B", "c2")
    dev.sync()
    want = dev.cell_pixels()
    for i in (0, 11, 81, 82):  # the two turtles and both (idle) status LEDs
        assert page[i] == tuple(want[i]), (board, i)
    assert classify(page[0]) == "B" and classify(page[11]) == "W"


def test_opened_as_a_file_it_says_to_use_a_server(driver, site):
    driver.get((site / "index.html").as_uri())
    assert "through a web server" in driver.find_element("id", "status").text


def test_live_heap_stays_flat_over_minutes_of_play(driver, url):
    # Every frame is a call from JS into Python; anything a call leaves referenced from JS (e.g. a bound method
    # looked up per frame) is kept until the JS GC finalizes its proxy. Before the page looked its methods up
    # once, the live heap grew ~7 KB per second of play.
    open_page(driver, url, "?clock=manual&seed=4")
    advance(driver, 5000)
    start = driver.execute_script("return wts.heap()")[0]
    for _ in range(4):
        advance(driver, 15000)  # attract mode: the computer plays itself, animations, narration
    end = driver.execute_script("return wts.heap()")[0]
    assert end - start < 16 * 1024, (start, end)


def test_a_firmware_crash_is_logged_shown_red_and_restarted(driver, url):
    open_page(driver, url, "?mode=2p&clock=manual&seed=6")
    driver.execute_script("wts.python('page.app.tick = None')")  # the next tick raises TypeError inside the firmware
    advance(driver, 100)
    log = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert len(log) == 1 and "firmware crashed (1 in a row)" in log[0] and "TypeError" in log[0]
    px = driver.execute_script("return wts.pixels()")
    assert px[81][0] > 0 and px[81][1] == px[81][2] == 0 and px[82] == px[81]  # both status LEDs red
    advance(driver, 1500)  # restarted after a second, in the same mode
    assert driver.execute_script("return wts.waiting()")
    advance(driver, 300)
    assert "crash 1" in driver.execute_script("return localStorage.getItem('wts:error.log')")


def test_cli_builds_and_refuses_a_bad_board_in_one_line(tmp_path):
    import subprocess
    import sys
    need_port()
    r = subprocess.run([sys.executable, "-m", "tools.web", "build", "--out", str(tmp_path / "s")], cwd=str(ROOT),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "built the browser edition" in r.stdout
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == sorted(
        web.PAGE_FILES + web.PORT_FILES + ("site.json", web.MANIFEST) + tuple(name for name, _, _ in web.ICONS))
    assert json.loads((tmp_path / "s" / "site.json").read_text())["testHooks"] is False
    r = subprocess.run([sys.executable, "-m", "tools.web", "build", "--board", "nope", "--out", str(tmp_path / "t")],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "unknown board 'nope'" in r.stderr
    assert not (tmp_path / "t").exists()


def test_a_source_build_boots_too(driver, tmp_path):
    web.build(tmp_path / "web", log=lambda *a: None, compiled=False, test_hooks=True)
    srv, u = web.serve_in_thread(tmp_path / "web")
    try:
        log = open_page(driver, u, "?mode=2p&clock=manual&seed=1")
        assert driver.find_element("id", "mode").text.lower() == "two players"
        assert [e for e in log if e["level"] == "SEVERE"] == []
    finally:
        srv.shutdown()
        srv.server_close()
