"""Browser edition layout (issue 26): at phone, tablet, laptop and desktop sizes, in both orientations, every mode and both languages (Dutch words are longer), the page fits without scrolling, every key is inside the screen and at least 48 CSS px, the pads are labelled and clear of the matrix, the score, the narration and the language switch have their place; and the page installs as a web app."""
import json
import os
import struct

import pytest

from tools import web
from web_helpers import advance, build_site, DOCS, open_page, Served, site, start_driver, sync, tap, url

# (width, height) in CSS px: phone, tablet, laptop, desktop, each in both orientations.
SIZES = [(390, 844), (844, 390), (768, 1024), (1024, 768), (1366, 768), (768, 1366), (1920, 1080), (1080, 1920)]
DOC_SIZES = {(390, 844), (844, 390), (768, 1024), (1024, 768), (1366, 768), (1920, 1080)}  # docs/browser-WxH.png
DOC_NL = (768, 1024)  # docs/browser-nl-WxH.png: the same game in Dutch
MIN_KEY = 48  # CSS px: the touch-target guideline

MEASURE = """
const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
const shown = (e) => e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
const q = (s) => document.querySelector(s);
const out = {vw: innerWidth, vh: innerHeight, sw: document.documentElement.scrollWidth, sh: document.documentElement.scrollHeight,
  keys: [...document.querySelectorAll('.key')].map(k => [k.closest('.pad').id + ':' + k.dataset.key, box(k)]),
  pads: {A: box(q('#padA')), B: box(q('#padB'))}, matrix: box(q('#matrix')), board: box(q('#board')),
  labels: {A: [q('#padA .padlabel').textContent, box(q('#padA .padlabel')), q('#padA .padlabel').scrollWidth <= q('#padA .padlabel').clientWidth],
           B: [q('#padB .padlabel').textContent, box(q('#padB .padlabel')), q('#padB .padlabel').scrollWidth <= q('#padB .padlabel').clientWidth]},
  transformB: getComputedStyle(q('#padB')).transform,
  panels: {}, texts: {}};
for (const id of ['panelA', 'panelB']) if (shown(q('#' + id))) out.panels[id] = box(q('#' + id));
for (const [name, sel] of [['mode', '#mode'], ['score', '#score'], ['storyhead', '#storytoggle'], ['story', '#narration li:last-child'],
                           ['menuhead', '#menuhead'], ['menulast', '#menuitems dd:last-of-type'], ['help', '#helptoggle'],
                           ['langs', '#langs']]) {
  const e = q(sel);
  if (shown(e)) out.texts[name] = [e.textContent, box(e)];
}
return out;
"""


def _inside(b, outer, slack=0.5):
    return b[0] >= outer[0] - slack and b[1] >= outer[1] - slack and b[2] <= outer[2] + slack and b[3] <= outer[3] + slack


def _overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def problems(m, mode, side, lang="en"):
    """Everything wrong with one measured layout in language `lang`, as sentences (empty: it fits)."""
    out = []
    view = (0, 0, m["vw"], m["vh"])
    if m["sw"] > m["vw"] or m["sh"] > m["vh"]:
        out.append("the page scrolls: %dx%d in a %dx%d viewport" % (m["sw"], m["sh"], m["vw"], m["vh"]))
    for name, b in m["keys"]:
        if not _inside(b, view):
            out.append("key %s is outside the screen at %s" % (name, [round(v) for v in b]))
        if b[2] - b[0] < MIN_KEY - 0.01 or b[3] - b[1] < MIN_KEY - 0.01:
            out.append("key %s is %.0fx%.0f px, under %d" % (name, b[2] - b[0], b[3] - b[1], MIN_KEY))
    pads = m["pads"]
    boxes = dict(pads)
    boxes["matrix"] = m["matrix"]
    boxes.update(m["panels"])
    for name, b in boxes.items():
        if not _inside(b, view):
            out.append("%s is outside the screen at %s" % (name, [round(v) for v in b]))
    names = sorted(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if _overlap(boxes[a], boxes[b]):
                out.append("%s overlaps %s" % (a, b))
    # The matrix as large as its place allows: its 10:12 picture touches #board on two opposite sides.
    mx, bd = m["matrix"], m["board"]
    if not (abs((mx[2] - mx[0]) - (bd[2] - bd[0])) <= 2 or abs((mx[3] - mx[1]) - (bd[3] - bd[1])) <= 2):
        out.append("the matrix (%s) does not fill its place (%s)" % ([round(v) for v in mx], [round(v) for v in bd]))
    words = web.PAGE_WORDS[lang]
    want_b = words["padBComputer"] if mode == "easy" else words["padB"]
    for pad, want in (("A", words["padA"]), ("B", want_b)):
        text, b, whole = m["labels"][pad]
        if text != want or not whole or not _inside(b, pads[pad]) or not _inside(b, view):
            out.append("pad %s's label %r (want %r) is not wholly shown inside its pad" % (pad, text, want))
    turned = m["transformB"].startswith("matrix(-1, ")
    if turned == side:
        out.append("pad B (and its label) %s turned: transform %s" % ("is" if turned else "is not", m["transformB"]))
    texts = m["texts"]
    panel = m["panels"].get("panelA")
    # The mode line and the language switch; on a phone's small panel the open menu takes their place (its heading
    # names the mode), and then only there.
    need = ["mode", "langs"] if mode != "menu" or "mode" in texts else []
    need += (["score"] if mode in ("2p", "easy") else []) + (["menuhead", "menulast"] if mode == "menu" else
                                                             ["storyhead", "help"])
    if mode in ("2p", "tutorial", "attract"):
        need.append("story")
    for name in need:
        if name not in texts:
            out.append("%s is not shown" % name)
        elif panel is None or not _inside(texts[name][1], panel, slack=1):
            out.append("%s (%r) is cut off: %s outside pad A's panel %s" % (
                name, texts[name][0][:40], [round(v) for v in texts[name][1]], panel and [round(v) for v in panel]))
    return out


@pytest.fixture(scope="module")
def driver():
    d = start_driver()
    yield d
    d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    d.quit()


def resize(driver, w, h):
    """The viewport as a device of that size shows it (a phone or tablet as a mobile one), laid out and drawn."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": max(w, h) <= 1024})
    driver.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done));")


def _play_some_turns(driver, turns=4):
    """The first turns of docs/demo-game.txt through both pads (a game with pieces, an egg and narration to show)."""
    from firmware.entry import keys_for
    from tools.sim.keyscript import parse_script

    done = 0
    pending = 0
    for a in parse_script((DOCS / "demo-game.txt").read_text()):
        if a[0] == "sync":
            sync(driver)
            if done >= turns:
                break
        elif a[0] == "wait":
            advance(driver, min(a[1], 5000))
        elif a[0] == "move":
            for k in keys_for(a[2], a[1] == 1):
                tap(driver, a[1], k)
            pending += 1
            if pending == 2:
                pending = 0
                done += 1
    advance(driver, 3000)  # the last turn's animation, then its sentence


# Each mode as a player meets it; "side" is the side-by-side seating (menu key 9), pad B upright next to pad A.
CASES = [("attract", False), ("menu", False), ("2p", False), ("easy", False), ("tutorial", False), ("keytest", False),
         ("2p", True), ("menu", True)]


@pytest.mark.parametrize("lang", web.PAGE_WORDS)
@pytest.mark.parametrize("mode,side", CASES, ids=["%s%s" % (m, "-side" if s else "") for m, s in CASES])
def test_layout_fits_every_size_in_every_mode(driver, url, mode, side, lang):
    storage = {"wts:settings.json": json.dumps({"seating": 0})} if side else None
    resize(driver, 768, 1024)
    open_page(driver, url, "?mode=%s&clock=manual&seed=4&lang=%s" % (mode, lang), storage=storage)
    if mode == "2p":
        _play_some_turns(driver)
    elif mode == "attract":
        advance(driver, 15000)  # the computers' demo game: pieces and narration
    else:
        advance(driver, 3000)
    found = []
    for w, h in SIZES:
        resize(driver, w, h)
        m = driver.execute_script(MEASURE)
        found += ["%dx%d %s %s: %s" % (w, h, mode, lang, p) for p in problems(m, mode, side, lang)]
        if mode == "2p" and not side and os.environ.get("WTS_UPDATE_DOCS"):
            if lang == "en" and (w, h) in DOC_SIZES:
                (DOCS / ("browser-%dx%d.png" % (w, h))).write_bytes(driver.get_screenshot_as_png())
            elif lang == "nl" and (w, h) == DOC_NL:
                (DOCS / ("browser-nl-%dx%d.png" % DOC_NL)).write_bytes(driver.get_screenshot_as_png())
    assert found == [], "\n".join(found)


def test_narration_folds_away_and_nothing_moves(driver, url):
    # On a phone the narration panel is small: it folds (and the help shares its place); the pads never move.
    resize(driver, 390, 844)
    open_page(driver, url, "?mode=2p&clock=manual&seed=4")
    _play_some_turns(driver, 2)
    before = driver.execute_script(MEASURE)
    assert "story" in before["texts"]
    driver.find_element("id", "storytoggle").click()
    folded = driver.execute_script(MEASURE)
    assert "story" not in folded["texts"] and folded["pads"] == before["pads"] and folded["matrix"] == before["matrix"]
    assert driver.find_element("id", "storytoggle").get_attribute("aria-expanded") == "false"
    driver.find_element("id", "helptoggle").click()
    helped = driver.execute_script(MEASURE)
    assert driver.find_element("id", "helptext").is_displayed() and helped["pads"] == before["pads"]
    assert "Keyboard:" in driver.find_element("id", "helptext").text
    driver.find_element("id", "storytoggle").click()  # the story back, the help folded
    again = driver.execute_script(MEASURE)
    assert "story" in again["texts"] and not driver.find_element("id", "helptext").is_displayed()
    assert not problems(again, "2p", False)


def test_the_running_score_is_the_firmwares(driver, url):
    # The score line shows scores.json's counts for the mode played, on both players' sides.
    resize(driver, 1024, 768)
    open_page(driver, url, "?mode=2p&clock=manual&seed=4",
              storage={"wts:scores.json": json.dumps({"2p": [3, 1, 2], "easy": [0, 5, 0]})})
    want = web.PAGE_WORDS["en"]["score"].format(black=3, white=1, draws=2)
    assert driver.find_element("id", "score").text == want
    assert driver.execute_script("return document.querySelector('#panelB .score').textContent") == want
    open_page(driver, url, "?mode=easy&clock=manual&seed=4", fresh=False)
    assert driver.find_element("id", "score").text == web.PAGE_WORDS["en"]["score"].format(black=0, white=5, draws=0)
    open_page(driver, url, "?mode=tutorial&clock=manual&seed=4", fresh=False)
    assert driver.find_element("id", "score").text == ""  # no score outside the scored modes


def test_the_menu_takes_a_key_from_either_pad_and_says_so(driver, url):
    # Before: the panel said "a key on pad A" while pad B's keys work the menu as well.
    resize(driver, 768, 1024)
    open_page(driver, url, "?mode=menu&clock=manual&seed=4")
    head = driver.find_element("id", "menuhead").text
    assert head == web.PAGE_WORDS["en"]["menu"] and "either pad" in head and "pad A" not in head
    tap(driver, 1, "2")  # pad B, across the table: vs computer, easy
    advance(driver, 200)
    from tools.sim import narrate
    assert driver.find_element("id", "mode").text == narrate.mode_title("easy")


def _png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def test_installable_as_a_web_app(driver, tmp_path):
    site = build_site(tmp_path / "web")
    man = json.loads((site / web.MANIFEST).read_text())
    assert man["display"] == "fullscreen" and "standalone" in man["display_override"] and man["start_url"] == "./"
    sizes = {}
    for icon in man["icons"]:
        size = _png_size((site / icon["src"]).read_bytes())
        assert size is not None and "%dx%d" % size == icon["sizes"], icon
        sizes.setdefault(icon["purpose"], []).append(size[0])
    assert {192, 512} <= set(sizes["any"]) and 512 in sizes["maskable"]
    info = json.loads((site / "site.json").read_text())
    assert {web.MANIFEST} | {i["src"] for i in man["icons"]} <= set(info["pageFiles"])  # the offline copy has them
    s = Served(site)
    try:
        resize(driver, 1024, 768)
        open_page(driver, s.url)
        got = driver.execute_cdp_cmd("Page.getAppManifest", {})
        assert got["errors"] == [] and got["url"].endswith("/" + web.MANIFEST)
        parsed = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})
        assert parsed["installabilityErrors"] == [], parsed
    finally:
        s.stop()


def test_layout_fits_a_board_with_a_4x4_pad(driver, tmp_path):
    # boards/sim.py has a 4x4 pad A (16 keys) beside a 3x4 pad B: the pads' widths differ, the keys stay >= 48 px.
    s = Served(build_site(tmp_path / "web", board="sim", test_hooks=True))
    try:
        resize(driver, 768, 1024)
        open_page(driver, s.url, "?mode=menu&clock=manual&seed=4")
        assert driver.execute_script("return document.querySelectorAll('#padA .key').length") == 16
        found = []
        for w, h in SIZES:
            resize(driver, w, h)
            found += ["%dx%d: %s" % (w, h, p) for p in problems(driver.execute_script(MEASURE), "menu", False)]
        assert found == [], "\n".join(found)
    finally:
        s.stop()
