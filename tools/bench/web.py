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
            deep = _deepening(d, hurl)
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
    waits = [x[0] for x in deep]
    out.append(("vs hard, %d turns on the real clock: the deeper answer ready after hard's own (s; mean / worst)"
                % len(deep), "%.2f / %.2f" % (statistics.mean(waits), max(waits))))
    out.append(("  meanwhile: longest firmware step (ms, target <= 20) / animation frames/s (target 60)",
                "%.0f / %.1f" % (max(x[1] for x in deep), statistics.mean(x[2] for x in deep))))
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


DEEP_TURNS = 4
# Installed in the test site's Python: when hard's deeper search begins (its own answer is locked) and when the
# deeper answer is ready, on the port's real clock (firmware/app.py: App._deepen slices it into the ticks).
_DEEP_HOOK = """
import js, time
_d = page.app.deep
_begin = _d.begin
_step = _d.step
_st = [0]
def _b(g, c):
    r = _begin(g, c)
    _st[0] = 0
    js.wts.deepT0 = time.ticks_ms()
    js.wts.deepT1 = -1
    if _d.done():
        _st[0] = 1
        js.wts.deepT1 = js.wts.deepT0
    js.wts.deepN = js.wts.deepN + 1
    return r
def _s(u):
    r = _step(u)
    if r >= 0 and not _st[0]:
        _st[0] = 1
        js.wts.deepT1 = time.ticks_ms()
    return r
_d.begin = _b
_d.step = _s
"""


def _deepening(d, url):
    """Play DEEP_TURNS turns against hard on the real clock as a person who waits for the deeper answer before
    typing: [(seconds from hard's own answer to the deeper one, the longest firmware step in ms meanwhile,
    animation frames/s meanwhile)], a turn each."""
    from firmware.entry import keys_for

    d.get(url + "?mode=hard&seed=11")
    t0 = time.time()
    while d.execute_script("return window.wts && wts.firstFrameMs !== null && wts.waiting()") is not True:
        if time.time() - t0 > 30:
            raise RuntimeError("the page never asked for a move against hard")
        time.sleep(0.02)
    d.execute_script("wts.deepN = 0; wts.python(arguments[0])", _DEEP_HOOK)
    out = []
    for turn in range(DEEP_TURNS):
        t0 = time.time()
        while d.execute_script("return wts.deepN") <= turn:
            if time.time() - t0 > 30:
                raise RuntimeError("hard never answered turn %d" % (turn + 1))
            time.sleep(0.01)
        d.execute_script("wts.cost.stepMaxMs = 0; wts.f0 = wts.cost.frames; wts.p0 = performance.now()")
        while d.execute_script("return wts.deepT1") < 0:
            if time.time() - t0 > 120:
                raise RuntimeError("the deeper answer of turn %d was not ready in 120 s" % (turn + 1))
            time.sleep(0.02)
        secs, step, frames, ms = d.execute_script(
            "return [(wts.deepT1 - wts.deepT0) / 1000, wts.cost.stepMaxMs, wts.cost.frames - wts.f0, performance.now() - wts.p0]")
        out.append((secs, step, frames * 1000.0 / max(ms, 1.0)))
        # the person's move: the first empty cell, typed on pad A's on-screen keys (a grey or dark cell is empty)
        occupied = d.execute_script("return wts.pixels().slice(0, 81).map(p => !(p[0] === p[1] && p[1] === p[2]))")
        for k in keys_for(occupied.index(False), False):
            el = d.find_element("css selector", "#padA .key[data-key='%s']" % k)
            for kind in ("pointerdown", "pointerup"):
                d.execute_script("arguments[0].dispatchEvent(new PointerEvent(arguments[1], {bubbles: true, pointerId: 1}))",
                                 el, kind)
                time.sleep(0.15)
    return out
