"""Browser edition, stored state and crashes (issue 30): localStorage names are never paths, any stored value still lets a game start, crashes are handled as firmware/launcher.py handles them (its pause, its count, its set-aside names) but never stop the page."""
import base64
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from web_helpers import advance, driver, local_storage, open_page, page_rows, severe, site, sync, tap, url

# The firmware's files, and the names firmware/launcher.py's set_aside() gives settings and scores after crashes.
STORE_NAMES = ("settings.json", "scores.json", "error.log", "settings.bad.json", "scores.bad.json")
KEPT = STORE_NAMES + ("lang",)  # and the page's own: the language chosen
FIRMWARE_FILE = "lib/firmware/app.mpy"


def py_value(driver, expr):
    """str(expr) evaluated in the page's Python (a --test-hooks site)."""
    driver.execute_script("wts.python(arguments[0])", "import js\njs.wts.out = str(%s)" % expr)
    return driver.execute_script("return wts.out")


def store_files(driver):
    return sorted(json.loads(py_value(driver, "__import__('json').dumps(__import__('os').listdir('/store'))")))


def mode(driver):
    return py_value(driver, "page.info().split(',')[0]")


def play_one_turn(driver):
    """Both players move (black e5, white d4 from across the table): both turtles are on the board."""
    from firmware.entry import keys_for

    sync(driver)
    for pad, cell in ((0, 40), (1, 30)):
        for k in keys_for(cell, pad == 1):
            tap(driver, pad, k)
    sync(driver)
    flat = "".join(page_rows(driver))
    assert flat[40] == "B" and flat[30] == "W", page_rows(driver)


def firmware_file_intact(driver, site):
    want = json.loads((site / "site.json").read_text())["device"][FIRMWARE_FILE]
    got = py_value(driver, "__import__('binascii').b2a_base64(open('/%s', 'rb').read()).decode().strip()" % FIRMWARE_FILE)
    return base64.b64decode(got) == base64.b64decode(want)


# ---------------------------------------------------------------- stored names
@pytest.mark.parametrize("names", ["a/b.json", ".", "../lib/firmware/app.mpy", "settings.json,../lib/firmware/app.mpy",
                                   "/store,..,scores.json/x"])
def test_stored_names_are_never_paths(driver, url, site, names):
    # Before: "wts:files" listed the names to restore and each was opened as /store/NAME: "a/b.json" and "." stopped
    # the page with OSError 44, "../lib/firmware/app.mpy" overwrote the firmware in the page's filesystem.
    storage = {"wts:files": names}
    for n in names.split(","):
        storage["wts:" + n] = "garbage"
    log = open_page(driver, url, "?mode=2p&clock=manual&seed=1", storage=storage)
    assert severe(log) == []
    play_one_turn(driver)
    assert firmware_file_intact(driver, site)
    advance(driver, 300)  # the store is mirrored to localStorage every 250 ms
    left = local_storage(driver)
    assert all(k[len("wts:"):] in KEPT for k in left if k.startswith("wts:")), left  # the bad entries dropped
    assert "wts:files" not in left


_json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False) | st.text(max_size=12),
                            lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
                                st.sampled_from(["mode", "brightness", "seating", "volume", "2p", "easy", "hard", "x"]) | st.text(max_size=6),
                                kids, max_size=5), max_leaves=12)
_stored = st.one_of(st.text(max_size=300), _json_values.map(json.dumps), st.binary(max_size=64).map(lambda b: b.decode("latin-1")))


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(values=st.fixed_dictionaries({name: _stored for name in KEPT + ("files",)}),
       extra=st.dictionaries(st.text(min_size=1, max_size=30), _stored, max_size=3))
# The cases found so far, kept as explicit examples: they run first, every time, whatever the random draw.
@example(values={"settings.json": '{"mode": "bogus"}', "scores.json": '{"2p": ["a", 0, 0]}', "error.log": "x" * 40000,
                 "settings.bad.json": "[", "scores.bad.json": "\ud800", "lang": "../nl",
                 "files": "a/b.json,.,../lib/firmware/app.mpy"},
         extra={"a/b.json": "{}", ".": "{}", "../lib/firmware/app.mpy": "owned"})
@example(values={"settings.json": '{"brightness": 99, "seating": 7, "volume": -3, "mode": 5}',
                 "scores.json": '{"2p": [1.5, null, 0], "easy": [1e300, 0, 0]}', "error.log": "",
                 "settings.bad.json": "{}", "scores.bad.json": "{}", "lang": "nl", "files": ""},
         extra={})
@example(values={"settings.json": "[" * 5000 + "]" * 5000, "scores.json": '{"2p": ' * 2000 + "0" + "}" * 2000,
                 "error.log": "\u0000\uffff", "settings.bad.json": "", "scores.bad.json": "", "lang": "",
                 "files": "settings.json"},
         extra={"x" * 30: "y" * 20000})
# Before: '{"seating"0}' is no JSON, but the port's json.loads read it as seating 0, so pad B was not turned (white's
# d4 landed on f6); a key with a NUL in it went to Python and back as another key, and was never removed.
@example(values={"settings.json": '{"seating"0}', "scores.json": '{"2p": [1, 2, 3],}', "error.log": "\u0000",
                 "settings.bad.json": '{"seating": 0]', "scores.bad.json": "{}", "lang": "nl\u0000",
                 "files": "settings.json\u0000"},
         extra={"a\u0000b": "1", "settings.json\u0000": "{}", "lang\u0000": "nl"})
def test_any_stored_values_still_start_a_game(driver, url, site, values, extra):
    # Every localStorage key the page reads gets an arbitrary value (text, JSON of any shape, bytes), plus stray keys:
    # the page starts, both pads play a turn (pad B turned: a value that is no JSON means the defaults), no firmware
    # file changes, only known names stay stored. Derandomized, no example database: the same examples on every run
    # and machine (a CI run cannot draw a new one).
    storage = {"wts:" + k: v for k, v in values.items()}
    storage.update({"wts:" + k: v for k, v in extra.items()})
    log = open_page(driver, url, "?mode=2p&clock=manual&seed=1", storage=storage)
    assert severe(log) == []
    play_one_turn(driver)
    assert firmware_file_intact(driver, site)
    advance(driver, 300)
    left = local_storage(driver)
    assert all(k[len("wts:"):] in KEPT for k in left if k.startswith("wts:")), sorted(left)
    if "wts:lang" in left:
        assert left["wts:lang"] in ("en", "nl")  # a junk language is removed, a known one kept


def test_every_file_the_firmware_stores_is_kept(driver, url):
    # The page keeps only STORE_NAMES (webhw.STORE_NAMES): a new file the firmware starts writing must be added there.
    open_page(driver, url, "?mode=menu&clock=manual&seed=2")
    tap(driver, 0, "8")  # brightness up: settings.json
    tap(driver, 0, "1")  # two players: settings.json "mode", scores.json
    for _ in range(3):  # crashes: error.log, then the stored state set aside
        driver.execute_script("wts.python('page.app.tick = None')")
        advance(driver, 31000)
    files = [f for f in store_files(driver) if not f.endswith(".tmp")]
    assert set(files) <= set(STORE_NAMES) and "error.log" in files and "settings.bad.json" in files, files
    assert py_value(driver, "webhw.STORE_NAMES") == str(STORE_NAMES)


def test_a_full_local_storage_leaves_the_game_playing(driver, url):
    # The browser refuses to store more (QuotaExceededError): the page plays on and tries again later.
    open_page(driver, url, "?mode=menu&clock=manual&seed=2")
    filled = driver.execute_script("""
        let n = 0, chunk = 'x'.repeat(1 << 16);
        for (;;) { try { localStorage.setItem('filler' + n, chunk); n++; } catch (e) { break; } }
        for (;;) { try { localStorage.setItem('filler' + n, 'x'); n++; } catch (e) { return n; } }""")
    assert filled > 10
    tap(driver, 0, "8")  # brightness up: settings.json changes and cannot be stored
    tap(driver, 0, "1")  # two players
    advance(driver, 600)
    play_one_turn(driver)
    assert severe(driver.get_log("browser")) == []
    driver.execute_script("for (const k of Object.keys(localStorage)) if (k.startsWith('filler')) localStorage.removeItem(k)")
    advance(driver, 600)
    assert '"mode": "2p"' in local_storage(driver)["wts:settings.json"]  # stored once there is room again


# ---------------------------------------------------------------- crashes
def _dead(driver):
    return py_value(driver, "page.dead_until >= 0") == "True"  # the firmware waits to be restarted


def _crash_and_wait(driver):
    """Make the running firmware's next tick raise; returns the ms until it runs again."""
    from tools.web import PAGE_WORDS

    driver.execute_script("wts.python('page.app.tick = None')")
    advance(driver, 20)
    assert _dead(driver)
    assert driver.find_element("id", "mode").text == PAGE_WORDS["en"]["crashed"]  # said on the page, not only the console
    waited = 20
    while _dead(driver):
        advance(driver, 500)
        waited += 500
        assert waited <= 10 * 60 * 1000, "no restart within ten minutes"
    return waited


def test_crashes_back_off_as_the_launcher_does_but_the_page_never_gives_up(driver, url):
    # Before: after the fifth crash the page waited 2**29 ms (six days) before trying again. Its own back-off
    # (1 s to 30 s) differed from the device launcher's; now it is the launcher's (launcher.pause_ms).
    from firmware import launcher

    open_page(driver, url, "?mode=2p&clock=manual&seed=6")
    waits = [_crash_and_wait(driver) for _ in range(12)]
    assert all(0 <= w - launcher.pause_ms(n + 1) <= 520 for n, w in enumerate(waits)), waits  # (in 500 ms steps)
    assert max(waits) <= launcher.PAUSE_MAX_MS + 520 and len(waits) > launcher.MAX_RESTARTS, waits
    sync(driver)  # and the game is playable again
    assert driver.find_element("id", "mode").text == "two players"
    log = driver.get_log("browser")
    assert any("firmware crashed (12 in a row)" in e["message"] for e in log)


def test_a_healthy_run_forgives_earlier_crashes(driver, url):
    # As on a device: launcher.HEALTHY_MS without a crash starts the count again (the page forgave after 60 s, the
    # launcher after 2 minutes).
    from firmware import launcher

    open_page(driver, url, "?mode=2p&clock=manual&seed=6")
    first = [_crash_and_wait(driver) for _ in range(2)]
    advance(driver, launcher.HEALTHY_MS - 5000)  # not yet
    assert _crash_and_wait(driver) > first[1]
    advance(driver, launcher.HEALTHY_MS + 1000)  # a healthy run
    again = _crash_and_wait(driver)
    assert again == first[0] < first[1], (first, again)


def test_a_bad_setting_is_set_aside_and_a_reload_starts_clean(driver, url):
    # Before: {"mode": "bogus"} raised ValueError at every "#" in attract mode, the page stopped for six days after
    # five crashes, and the setting survived every reload.
    stored = {"wts:settings.json": '{"mode": "bogus", "brightness": 4}', "wts:files": "settings.json"}  # (the old index)
    open_page(driver, url, "?clock=manual&seed=3", storage=stored)
    presses = 0
    while mode(driver) == "attract":
        presses += 1
        assert presses <= 4, "no game after %d presses of #" % presses
        tap(driver, 0, "#")  # attract mode: "#" starts the last mode played (settings.json "mode")
        advance(driver, 200)
        while _dead(driver):
            advance(driver, 1000)
    assert mode(driver) == "2p"  # the default mode (the stored one was set aside, or refused by the firmware)
    advance(driver, 300)
    stored = local_storage(driver)
    if presses > 1:  # it crashed: the suspect file is kept for a look, and no longer used
        assert "bogus" in stored["wts:settings.bad.json"]
        assert "bogus" not in stored.get("wts:settings.json", "")
    open_page(driver, url, "?clock=manual&seed=3", fresh=False)  # a reload
    tap(driver, 0, "#")
    advance(driver, 200)
    assert mode(driver) == "2p"
    assert severe(driver.get_log("browser")) == []
