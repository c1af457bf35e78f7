"""The simulator's languages (tools/sim/narrate.py tables, tools/sim/language.py choice): every key in English and Dutch with the same placeholders, no English left on a Dutch screen, --lang / the saved choice / the locale, the same words inside MicroPython."""
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from tools.sim import cli, language, narrate
from tools.sim import terminal as st

PLACEHOLDER = re.compile(r"\{(\w*)\}")


@pytest.fixture(autouse=True)
def english_after():
    yield
    narrate.set_lang("en")


def test_every_key_is_in_every_table_with_the_same_placeholders():
    assert set(narrate.TABLES) == set(narrate.LANGS) == {"en", "nl"}
    keys = set(narrate.EN)
    for code, table in narrate.TABLES.items():
        assert set(table) == keys, (code, set(table) ^ keys)
        for key, text in table.items():
            assert isinstance(text, str) and text.strip(), (code, key)
            names = PLACEHOLDER.findall(text)
            assert sorted(names) == sorted(PLACEHOLDER.findall(narrate.EN[key])), (code, key)
            assert all(names), (code, key)  # named: a translation may put them in another order
            # it formats (no stray brace), and every value shows up
            out = text.format(**{n: "<%s>" % n for n in names})
            assert "{" not in out and "}" not in out, (code, key)
            assert all("<%s>" % n in out for n in names)


def test_the_dutch_table_is_dutch():
    same = [k for k in narrate.EN if narrate.EN[k] == narrate.NL[k]]
    # Only words that are the same in both: the mode "menu", "volume", "?"; the rest is translated.
    assert sorted(same) == ["menu.0", "mode.menu", "unknown"]


def test_every_lesson_and_mode_and_menu_key_has_its_words():
    from firmware.modes import MODE_NAMES
    from firmware.tutorial import LESSONS
    for code in narrate.LANGS:
        narrate.set_lang(code)
        for lesson in LESSONS:
            title, caption = narrate.lesson_text(lesson[0])
            assert title != lesson[0] and caption, (code, lesson[0])
        for m in MODE_NAMES:
            assert narrate.mode_title(m) == narrate.table()["mode." + m], (code, m)
        assert [k for k, _ in narrate.menu_items()] == list("1234567890#*")


def test_an_unknown_language_is_refused_and_changes_nothing():
    narrate.set_lang("nl")
    with pytest.raises(ValueError, match="unknown language 'de'; valid languages: en, nl"):
        narrate.set_lang("de")
    assert narrate.get_lang() == "nl" and narrate.word("black") == "zwart"


def test_a_dutch_screen_has_no_english_left():
    """Every screen of every mode in Dutch, with a story: none of the English table's sentences appears."""
    from tools.sim import Device
    english = [t for k, t in narrate.EN.items() if "{" not in t and len(t) > 8 and t != narrate.NL[k]]
    narrate.set_lang("nl")
    dev = Device(board="pico", mode="2p", seed=1)
    dev.run_script((ROOT / "docs" / "demo-game.txt").read_text())
    said = dev.said
    assert ("egg", "beiden kozen c3: ei #1 gelegd") in [(k, x) for _, k, x in said]
    assert said[-1][1:] == ("result", "zwart wint: 5 op een rij")
    for mode in ("2p", "medium", "menu", "tutorial", "attract", "keytest"):
        for turned in (True, False):
            view = st.View(mode=mode, title="t", said=said, b_turned=turned, tally=[1, 0, 0])
            for cols, rows in ((80, 24), (110, 40), (60, 50)):
                screen = st._ESC.sub("", st.compose(view, cols, rows))
                left = [t for t in english if t in screen]
                assert left == [], (mode, cols, rows, left)
    screen = st._ESC.sub("", st.compose(st.View(mode="2p", title="t", said=said, tally=[1, 0, 0]), 110, 40))
    assert "Spel voorbij: zwart wint: 5 op een rij (tot nu toe: zwart 1, wit 0, gelijk 0)" in screen
    assert "A zwart" in screen and "B wit" in screen and "Wat er gebeurde" in screen


def test_a_dutch_tutorial_lesson_and_refusal():
    from tools.sim import Device
    narrate.set_lang("nl")
    dev = Device(board="pico", mode="tutorial", seed=1)
    dev.advance(4000)
    told = [x for _, k, x in dev.said if k == "lesson"]
    assert told == ["les 1 van 10: Plaatsen. Beiden kiezen in het geheim een veld; de twee schildpadden landen "
                    "tegelijk."]
    dev = Device(board="pico", mode="2p", seed=1)
    dev.run_script("A move e5\nB move d4\nsync\nB move e5\nwait 300\n")
    assert dev.said[-1][1:] == ("refused", "toetsenblok B: dat veld is bezet, kies een ander")


def test_the_locale_picks_the_language_as_posix_does():
    f = language.from_locale
    assert f({"LANG": "nl_NL.UTF-8"}) == "nl" and f({"LANG": "nl_BE@euro"}) == "nl" and f({"LANG": "nl"}) == "nl"
    assert f({"LANG": "en_GB.UTF-8"}) == "en"
    assert f({"LANG": "C"}) is None and f({"LANG": "de_DE.UTF-8"}) is None and f({}) is None
    assert f({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "nl_NL", "LANG": "nl_NL"}) == "en"   # LC_ALL first
    assert f({"LC_MESSAGES": "nl_NL.UTF-8", "LANG": "en_US.UTF-8"}) == "nl"               # then LC_MESSAGES
    assert f({"LC_ALL": "", "LANG": "nl_NL.UTF-8"}) == "nl"                                # empty: not set


def test_lang_is_kept_for_the_next_runs_and_beats_the_locale(tmp_path, capsys):
    nl, en = {"LANG": "nl_NL.UTF-8"}, {"LANG": "en_US.UTF-8"}
    folder = str(tmp_path)
    assert language.choose(None, folder, nl) == "nl"           # nothing kept: the locale
    assert language.choose(None, folder, {}) == "en"           # no locale either: English
    assert language.choose("en", folder, nl) == "en"           # --lang wins, and is kept
    assert language.choose(None, folder, nl) == "en"
    assert language.choose("nl", None, en) == "nl"             # no folder (--forget): said, not kept
    assert language.choose(None, folder, nl) == "en"
    (tmp_path / language.FILE).write_text("{not json")
    assert language.choose(None, folder, nl) == "nl"           # a broken file: told, ignored
    assert "ignoring" in capsys.readouterr().err
    (tmp_path / language.FILE).write_text('{"lang": "fr"}')
    assert language.choose(None, folder, en) == "en"
    assert "not one of en, nl" in capsys.readouterr().err
    with pytest.raises(ValueError):
        language.choose("fr", None, en)


def test_the_terminal_and_wts_play_keep_the_language(tmp_path, monkeypatch):
    from tools import play
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setattr(st, "run", lambda args: 0)
    assert cli.main(["--lang", "nl"]) == 0 and narrate.get_lang() == "nl"
    narrate.set_lang("en")
    assert cli.main([]) == 0 and narrate.get_lang() == "nl"     # kept in the state folder
    assert (tmp_path / "what-the-shell" / language.FILE).is_file()
    assert play.main(["--sim", "--lang", "en"]) == 0 and narrate.get_lang() == "en"   # ./wts play --lang
    assert cli.main([]) == 0 and narrate.get_lang() == "en"
    assert cli.main(["--forget", "--lang", "nl"]) == 0 and narrate.get_lang() == "nl"
    assert cli.main([]) == 0 and narrate.get_lang() == "en"     # --forget kept nothing
    with pytest.raises(SystemExit):
        cli.main(["--lang", "de"])


def _headless(extra, env):
    import os
    e = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    e.update(env)
    r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--narrate", "--script",
                        str(ROOT / "docs" / "demo-game.txt")] + extra, cwd=str(ROOT), capture_output=True, text=True,
                       timeout=300, env=e)
    assert r.returncode == 0, r.stderr
    return [re.sub(r"^@\s+[\d.]+ s  ", "", x) for x in r.stdout.splitlines() if x.startswith("@")]


def test_headless_speaks_the_locale_unless_told():
    nl = _headless([], {"LANG": "nl_NL.UTF-8"})
    assert nl[:3] == ["modus: twee spelers", "beiden kozen c3: ei #1 gelegd", "zwart e3, wit e4"]
    assert nl[-1] == "zwart wint: 5 op een rij"
    assert _headless(["--lang", "en"], {"LANG": "nl_NL.UTF-8"})[:2] == ["mode: two players", "both chose c3: egg #1 laid"]
    assert _headless(["--lang", "nl"], {"LANG": "C"}) == nl


@pytest.mark.needs_node
def test_the_dutch_tables_work_inside_micropython():
    """The browser edition imports narrate.py in the webassembly port: set_lang("nl") and the same Dutch there."""
    from tools import upy
    from tools.sim import Device
    from tools.sim.device import guest_files
    code = ("import sys\nsys.path.insert(0, '/')\nimport narrate\nfrom engine import Game\n"
            "narrate.set_lang('nl')\ng = Game()\ng.play(40, 40)\nprint(narrate.turn_events(g))\n"
            "print(narrate.lesson_text('chain'))\nprint(narrate.menu_items())\nprint(narrate.mode_title('2p'))\n"
            "try:\n    narrate.set_lang('xx')\nexcept ValueError as e:\n    print(e)\nprint(narrate.get_lang())\n")
    out = upy.run(code, files=guest_files()).strip().split("\n")
    narrate.set_lang("nl")
    from engine import Game
    g = Game()
    g.play(40, 40)
    want = [str(narrate.turn_events(g)), str(narrate.lesson_text("chain")), str(narrate.menu_items()),
            narrate.mode_title("2p"), "unknown language 'xx'; valid languages: en, nl", "nl"]
    assert out == want
    # and the MicroPython runtime of the simulator speaks the host's language
    dev = Device(board="pico", mode="tutorial", runtime="micropython", seed=1)
    try:
        dev.advance(500)
        assert [x for _, k, x in dev.said if k == "lesson"][0].startswith("les 1 van 10: Plaatsen.")
    finally:
        dev.close()
