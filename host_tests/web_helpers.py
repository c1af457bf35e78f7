"""Helpers shared by the browser edition's tests: headless Chromium (Debian's packages) through Selenium, built sites served on 127.0.0.1, the page's test hooks."""
import json
import os
import time
from pathlib import Path

import pytest

from tools import web

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def need_browser():
    why = web.browser_missing()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the browser tests: " + why)  # .ci/run installs them; a skip would hide a broken page
    pytest.skip(why)


def need_port():
    if web.port_missing():
        need_browser()


def build_site(out, **kw):
    need_port()
    web.build(out, log=lambda *a: None, **kw)
    return out


class Served:
    """A built site served from a thread; .url, .stop()."""

    def __init__(self, site):
        self.srv, self.url = web.serve_in_thread(site)

    def stop(self):
        self.srv.shutdown()
        self.srv.server_close()


def start_driver(width=900, height=1200, languages="en-US,en"):
    """Headless Chromium whose browser languages (navigator.languages) are `languages`: English unless a test asks,
    so that the page's language never depends on the machine's locale."""
    need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    o = webdriver.ChromeOptions()
    o.binary_location = web.CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
              "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
              "--metrics-recording-only", "--disable-extensions", "--window-size=%d,%d" % (width, height),
              "--hide-scrollbars", "--lang=" + languages.split(",")[0]):
        o.add_argument(a)
    o.add_experimental_option("prefs", {"intl.accept_languages": languages})
    o.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    d = webdriver.Chrome(service=Service(web.CHROMEDRIVER), options=o)
    d.set_script_timeout(60)
    return d


def clear_storage(driver, url):
    driver.get("about:blank")  # no firmware running while what earlier tests stored is cleared
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": url.rstrip("/"), "storageTypes": "all"})


def open_page(driver, url, query="", fresh=True, timeout=20, storage=None):
    """Load the page (with empty localStorage if fresh; then `storage` {key: value} written before the page starts)
    and wait for its first frame; returns the browser log so far."""
    if fresh:
        clear_storage(driver, url)
    if storage:
        # Written from the site's own origin, before its module runs: a page that only says "stored" (no script).
        driver.get(url + "manifest.webmanifest")
        # As ASCII JSON: WebDriver's own JSON refuses strings such as a lone surrogate, which localStorage can hold.
        driver.execute_script("const s = JSON.parse(arguments[0]); for (const k in s) localStorage.setItem(k, s[k]);",
                              json.dumps(storage))
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(url + query)
    t0 = time.time()
    while not driver.execute_script("return !!(window.wts && wts.firstFrameMs !== null)"):
        log = _ours(driver.get_log("browser"))
        if time.time() - t0 > timeout or any(e["level"] == "SEVERE" for e in log):
            raise AssertionError("no first frame (%.1f s); log: %r" % (time.time() - t0, log))
        time.sleep(0.05)
    return _ours(driver.get_log("browser"))


def _ours(log):
    # The storage set-up page (the manifest, shown as text) makes Chromium ask for /favicon.ico, sometimes logged late.
    return [e for e in log if "/favicon.ico " not in e["message"]]


def advance(driver, ms):
    driver.execute_script("wts.advance(arguments[0])", ms)


def tap(driver, pad, key):
    driver.find_element("css selector", "#pad%s .key[data-key='%s']" % ("AB"[pad], key)).click()
    advance(driver, 130)  # the page holds every click >= 60 ms and spaces them 50 ms, as a finger would


def sync(driver, limit_ms=20000):
    waited = 0
    while not driver.execute_script("return wts.waiting()"):
        advance(driver, 100)
        waited += 100
        assert waited <= limit_ms, "the firmware never asked for the next moves"


def classify(px):
    """Decoded LED value -> board character: blue = black's turtle, warm white = white's, amber = egg, grid/off = empty."""
    r, g, b = px
    if r == g == b:
        return "."  # the faint grey block grid, or off
    if b > r:
        return "B"
    if r > 0 and b > 0:
        return "W"
    return "e"


def page_rows(driver):
    px = driver.execute_script("return wts.pixels()")
    return ["".join(classify(px[r * 9 + c]) for c in range(9)) for r in range(9)]


def severe(log):
    return [e for e in _ours(log) if e["level"] == "SEVERE"]


def local_storage(driver):
    return json.loads(driver.execute_script("return JSON.stringify(Object.assign({}, localStorage))"))


# ---- fixtures the browser test modules share: imported by name, so each module still gets its own (module scope)

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The test suite's site: the page's Python (wts.python) and the manual clock are only in a --test-hooks build."""
    return build_site(tmp_path_factory.mktemp("site") / "web", test_hooks=True)


@pytest.fixture(scope="module")
def url(site):
    """The --test-hooks site served on 127.0.0.1."""
    s = Served(site)
    yield s.url
    s.stop()


@pytest.fixture(scope="module")
def driver():
    """Headless Chromium at start_driver()'s default size, English."""
    d = start_driver()
    yield d
    d.quit()
