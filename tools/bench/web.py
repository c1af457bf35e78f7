"""Browser edition figures: load to first frame, and the cost of one animation frame, in headless Chromium (Debian's packages) on 127.0.0.1."""
import os
import statistics
import tempfile
import time

LOADS = 5
RUN_S = 3.0


def figures():
    from tools import web

    why = web.browser_missing()
    if why is not None:
        return [("browser edition", "not measured: " + why)]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        site = os.path.join(tmp, "web")
        web.build(site, log=lambda *a: None)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(site) for f in fs)
        srv, url = web.serve_in_thread(site)
        # The game against the hard computer runs on the manual clock: a site built for tests (the loads above are not).
        web.build(os.path.join(tmp, "hooks"), log=lambda *a: None, test_hooks=True)
        hsrv, hurl = web.serve_in_thread(os.path.join(tmp, "hooks"))
        o = webdriver.ChromeOptions()
        o.binary_location = web.CHROMIUM
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--window-size=900,1200"):
            o.add_argument(a)
        d = webdriver.Chrome(service=Service(web.CHROMEDRIVER), options=o)
        try:
            firsts = []
            stages = []
            for _ in range(LOADS):
                d.get(url)
                t0 = time.time()
                while d.execute_script("return window.wts ? wts.firstFrameMs : null") is None:
                    if time.time() - t0 > 30:
                        raise RuntimeError("the page showed no frame in 30 s")
                    time.sleep(0.01)
                firsts.append(d.execute_script("return wts.firstFrameMs"))
                stages.append(d.execute_script("return wts.marks"))
            time.sleep(RUN_S)  # attract mode: two computer players, animations, status LEDs
            c = d.execute_script("return Object.assign({writes: wts.frames}, wts.cost)")
            hard = _vs_hard(d, hurl)
        finally:
            d.quit()
            for s in (srv, hsrv):
                s.shutdown()
                s.server_close()
    out.append(("site size (all files, KB)", "%.0f" % (size / 1024.0)))
    out.append(("load to first frame (ms, median of %d; navigation -> canvas)" % LOADS,
                "%.0f (min %.0f, max %.0f)" % (statistics.median(firsts), min(firsts), max(firsts))))
    med = {k: statistics.median(m[k] for m in stages) for k in ("module", "site", "port", "files", "firmware")}
    out.append(("  of which: page module / site.json / port / files / firmware (ms)",
                "%.0f / %.0f / %.0f / %.0f / %.0f (medians, since navigation)" % tuple(
                    med[k] for k in ("module", "site", "port", "files", "firmware"))))
    n = max(1, c["frames"])
    out.append(("animation frames/s, attract mode (target 60)", "%.1f" % (c["frames"] / RUN_S)))
    out.append(("firmware step per animation frame, mean / max (ms)",
                "%.2f / %.1f" % (c["stepMs"] / n, c["stepMaxMs"])))
    out.append(("canvas draw per strip write, mean (ms)", "%.2f" % (c["drawMs"] / max(1, c["writes"]))))
    out.append(("vs hard, %d turns: longest firmware step (ms; the bot's move, target <= 20)" % HARD_TURNS,
                "%.0f" % hard))
    return out


HARD_TURNS = 4


def _vs_hard(d, url):
    """Play HARD_TURNS turns against the hard computer on the manual clock; the longest single step() in ms."""
    from firmware.entry import keys_for

    def advance(ms):
        d.execute_script("wts.advance(arguments[0])", ms)

    def sync():
        for _ in range(300):
            if d.execute_script("return wts.waiting()"):
                return
            advance(100)
        raise RuntimeError("the hard computer never asked for the next move")

    d.get(url + "?mode=hard&clock=manual&seed=11")
    while d.execute_script("return window.wts ? wts.firstFrameMs : null") is None:
        time.sleep(0.01)
    d.execute_script("wts.cost.stepMaxMs = 0")
    for _ in range(HARD_TURNS):
        sync()
        # A grey (grid) or dark cell is empty; turtles and eggs are coloured.
        occupied = d.execute_script("return wts.pixels().slice(0, 81).map(p => !(p[0] === p[1] && p[1] === p[2]))")
        cell = occupied.index(False)
        for k in keys_for(cell, False):
            d.find_element("css selector", "#padA .key[data-key='%s']" % k).click()
            advance(130)
    sync()
    return d.execute_script("return wts.cost.stepMaxMs")
