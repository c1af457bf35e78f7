"""Browser edition in English and Dutch (issue 26): every word the page shows in both tables (same keys, same placeholders), ?lang=, the browser's languages and the kept choice (localStorage wts:lang, junk ignored) pick the language, and the narration, the tutorial, the menu, the labels and the help all speak it, switched live too."""
import json
import re

import pytest

from tools import web
from tools.sim import narrate
from web_helpers import advance, local_storage, open_page, page_rows, severe, site, start_driver, sync, tap, url

PLACEHOLDER = re.compile(r"\{(\w*)\}")

# The page's visible text without the inline script (its file:// message is in both languages).
PAGE_TEXT = """
const body = document.body.cloneNode(true);
body.querySelectorAll('script').forEach((s) => s.remove());
return body.textContent;
"""


@pytest.fixture(scope="module")
def driver():
    d = start_driver(768, 1024)  # a browser that asks for English (web_helpers.start_driver)
    yield d
    d.quit()


# ---------------------------------------------------------------- the tables (no browser)
def test_every_page_word_is_in_every_language_with_the_same_placeholders():
    assert list(web.PAGE_WORDS) == list(narrate.LANGS) == web.langs() == ["en", "nl"]
    en = web.PAGE_WORDS["en"]
    for code, words in web.PAGE_WORDS.items():
        assert set(words) == set(en), (code, set(words) ^ set(en))
        for key, text in words.items():
            assert isinstance(text, str) and text.strip(), (code, key)
            names = PLACEHOLDER.findall(text)
            assert sorted(names) == sorted(PLACEHOLDER.findall(en[key])) and all(names), (code, key)
            out = text.format(**{n: "<%s>" % n for n in names})
            assert "{" not in out and "}" not in out, (code, key)
    same = sorted(k for k in en if en[k] == web.PAGE_WORDS["nl"][k])
    assert same == [], same  # every word is translated


def test_the_site_carries_every_language(site):
    from firmware.modes import MODE_NAMES

    info = json.loads((site / "site.json").read_text())
    assert info["langs"] == ["en", "nl"] and info["words"] == web.PAGE_WORDS
    for code in info["langs"]:
        table = narrate.table(code)
        assert info["menu"][code] == [[k, table["menu." + k]] for k in narrate.MENU_KEYS]
        assert all(info["modeTitles"][code][m] == table["mode." + m] for m in MODE_NAMES)
        assert info["modeTitles"][code]["crashed"] == web.PAGE_WORDS[code]["crashed"]


# ---------------------------------------------------------------- in the browser
def english_left(driver):
    """English page words or narrate.py sentences (without placeholders) on the page: none on a Dutch page (but the
    language switch's "EN", the way back to English)."""
    text = driver.execute_script(PAGE_TEXT)
    english = [t for k, t in web.PAGE_WORDS["en"].items() if "{" not in t and t != web.PAGE_WORDS["nl"][k]
               and k not in ("langCode", "langName")]
    english += [t for k, t in narrate.EN.items() if "{" not in t and len(t) > 6 and t != narrate.NL[k]]
    return [t for t in english if t in text]


def lesson_line(code, n):
    from firmware.tutorial import LESSONS

    table = narrate.table(code)
    key = LESSONS[n][0]
    return table["lesson"].format(n=n + 1, total=len(LESSONS), title=table["title." + key], caption=table["caption." + key])


def play_turn(driver, black, white):
    from firmware.entry import keys_for

    sync(driver)
    for pad, cell in ((0, black), (1, white)):
        for k in keys_for(cell, pad == 1):
            tap(driver, pad, k)
    sync(driver)
    advance(driver, 3000)  # the animation, then its sentence


def test_lang_nl_speaks_dutch_in_the_narration_the_menu_and_the_tutorial(driver, url):
    nl = web.PAGE_WORDS["nl"]
    log = open_page(driver, url, "?mode=2p&clock=manual&seed=1&lang=nl")
    assert severe(log) == []
    assert driver.execute_script("return [wts.lang, document.documentElement.lang]") == ["nl", "nl"]
    play_turn(driver, 40, 30)  # black e5, white d4 (typed from pad B's turned seat)
    assert driver.execute_script("return wts.narration") == ["zwart e5, wit d4"]
    assert driver.find_element("id", "mode").text == narrate.NL["mode.2p"]
    assert driver.find_element("id", "score").text == nl["score"].format(black=0, white=0, draws=0)
    assert driver.find_element("css selector", "#padA .padlabel").text == nl["padA"]
    assert driver.find_element("id", "storytoggle").text == nl["story"] and driver.title == nl["title"]
    driver.find_element("id", "helptoggle").click()
    assert nl["keyboard"] in driver.find_element("id", "helptext").text
    assert english_left(driver) == []

    open_page(driver, url, "?mode=menu&clock=manual&seed=1&lang=nl")
    advance(driver, 500)
    shown = driver.find_element("id", "menuitems").text.split("\n")
    assert shown == [x for k in narrate.MENU_KEYS for x in (k, narrate.NL["menu." + k])]
    assert driver.find_element("id", "menuhead").text == nl["menu"]
    assert english_left(driver) == []

    open_page(driver, url, "?mode=tutorial&clock=manual&seed=1&lang=nl")
    advance(driver, 3000)
    assert driver.execute_script("return wts.narration")[:1] == [lesson_line("nl", 0)]
    assert "Beiden kiezen in het geheim een veld" in driver.find_element("id", "narration").text
    tap(driver, 0, "#")  # the next lesson, captioned in Dutch too
    advance(driver, 3000)
    assert driver.execute_script("return wts.narration")[:1] == [lesson_line("nl", 1)]
    assert english_left(driver) == []


@pytest.mark.parametrize("languages,want", [("nl-NL,nl", "nl"), ("de-DE,nl-BE", "nl"), ("fr-FR,de", "en"),
                                            ("en-GB,nl", "en")])
def test_the_browser_languages_choose_when_nothing_is_kept(url, languages, want):
    d = start_driver(768, 1024, languages=languages)
    try:
        open_page(d, url, "?clock=manual&seed=2")
        assert d.execute_script("return wts.lang") == want
        assert d.find_element("id", "mode").text == narrate.table(want)["mode.attract"]
        assert "wts:lang" not in local_storage(d)  # the browser's choice is not kept: it follows the browser
        if want == "nl":
            # A kept choice beats the browser's languages, and ?lang= beats both.
            open_page(d, url, "?clock=manual&seed=2", storage={"wts:lang": "en"})
            assert d.execute_script("return wts.lang") == "en"
            open_page(d, url, "?clock=manual&seed=2&lang=nl", fresh=False)
            assert d.execute_script("return wts.lang") == "nl" and local_storage(d)["wts:lang"] == "nl"
    finally:
        d.quit()


def test_the_choice_survives_a_reload(driver, url):
    open_page(driver, url, "?mode=2p&clock=manual&seed=1&lang=nl")
    assert local_storage(driver)["wts:lang"] == "nl"
    open_page(driver, url, "?mode=2p&clock=manual&seed=1", fresh=False)  # a reload, no ?lang=
    assert driver.execute_script("return wts.lang") == "nl"
    assert driver.find_element("id", "mode").text == narrate.NL["mode.2p"]
    driver.find_element("css selector", "#langs button[data-lang='en']").click()  # the switch
    assert local_storage(driver)["wts:lang"] == "en"
    open_page(driver, url, "?mode=2p&clock=manual&seed=1", fresh=False)
    assert driver.execute_script("return wts.lang") == "en"
    assert driver.find_element("id", "mode").text == narrate.EN["mode.2p"]


@pytest.mark.parametrize("junk", ["xx", "NL", "nl-NL", " nl", "nl\u0000", "../nl", '{"lang": "nl"}', "", "\ud800"])
def test_a_junk_kept_language_is_ignored_and_removed(driver, url, junk):
    log = open_page(driver, url, "?mode=2p&clock=manual&seed=1", storage={"wts:lang": junk})
    assert severe(log) == []
    assert driver.execute_script("return wts.lang") == "en"  # the browser's (English) instead
    assert driver.find_element("id", "mode").text == narrate.EN["mode.2p"]
    assert "wts:lang" not in local_storage(driver)
    play_turn(driver, 40, 30)
    assert driver.execute_script("return wts.narration") == ["black e5, white d4"]


def test_an_unknown_lang_option_gets_one_line_and_changes_nothing(driver, url):
    open_page(driver, url, "?mode=2p&clock=manual&seed=1&lang=nl")
    log = open_page(driver, url, "?mode=2p&clock=manual&seed=1&lang=de", fresh=False)
    assert severe(log) == []
    assert driver.execute_script("return wts.lang") == "nl"  # the kept choice, still kept
    assert local_storage(driver)["wts:lang"] == "nl"
    assert driver.find_element("id", "status").text == web.PAGE_WORDS["nl"]["badLang"].format(lang='"de"', langs="en, nl")


def test_the_switch_turns_every_word_at_once_mid_game(driver, url):
    # A teacher switches during a game: the labels, the mode line, the score, the menu, the help and the next
    # sentences change; the game goes on where it was.
    open_page(driver, url, "?mode=2p&clock=manual&seed=1")
    play_turn(driver, 40, 30)
    assert driver.execute_script("return wts.narration") == ["black e5, white d4"]
    driver.find_element("css selector", "#langs button[data-lang='nl']").click()
    nl = web.PAGE_WORDS["nl"]
    assert driver.execute_script("return [wts.lang, document.documentElement.lang]") == ["nl", "nl"]
    assert driver.find_element("id", "mode").text == narrate.NL["mode.2p"]
    assert driver.find_element("css selector", "#padB .padlabel").text == nl["padB"]
    assert driver.find_element("css selector", "#langs button[data-lang='nl']").get_attribute("aria-pressed") == "true"
    play_turn(driver, 50, 20)  # black f6, white c3
    assert driver.execute_script("return wts.narration") == ["black e5, white d4", "zwart f6, wit c3"]
    flat = "".join(page_rows(driver))
    assert flat[40] == flat[50] == "B" and flat[30] == flat[20] == "W"  # the same game went on
    assert english_left(driver) == []  # (the first sentence stays as it was said)
