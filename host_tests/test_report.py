"""tools/report.py writes the generated pages section by section, and tools.tournament --write-docs / tools.blunders work as documented."""
import re

from engine import BLACK, WHITE, parse_square

from tools import report


def test_a_section_says_its_command_commit_date_and_machine():
    text = report.section("engine", "engine", ".venv/bin/python -m tools.bench --only engine",
                          report.table([("fuel per turn", "1 | 2")]))
    assert text.startswith("<!-- section: engine -->\n## engine\n")
    assert "`.venv/bin/python -m tools.bench --only engine` — commit " in text
    assert re.search(r"\d{4}-\d\d-\d\d; .* cores; Python \d", text)
    assert "| fuel per turn | 1 \\| 2 |" in text      # a value's | does not break the table
    assert text.endswith("<!-- end of section: engine -->\n")


def test_update_rewrites_one_section_and_keeps_the_others(tmp_path):
    page = tmp_path / "performance.md"
    order = ("engine", "firmware", "bot")
    report.update(page, "# Title\n\nintro\n", "bot", report.section("bot", "bot", "c3", ["bot one"], at="b1"), order)
    report.update(page, "# Title\n\nintro\n", "engine", report.section("engine", "engine", "c1", ["engine one"], at="e1"),
                  order)
    first = page.read_text()
    assert first.index("## engine") < first.index("## bot") and "bot one" in first
    report.update(page, "# New title\n", "bot", report.section("bot", "bot", "c3", ["bot two"], at="b2"), order)
    text = page.read_text()
    assert text.startswith("# New title\n") and "intro" not in text
    assert "bot two" in text and "bot one" not in text and "commit b2" in text
    assert report.sections(text)["engine"] == report.sections(first)["engine"]   # untouched, its own commit
    assert list(report.sections(text)) == ["engine", "bot"]


def test_tournament_write_docs_makes_a_section(tmp_path, monkeypatch, capsys):
    from tools import tournament
    page = tmp_path / "strength.md"
    monkeypatch.setattr(report, "STRENGTH", page)
    assert tournament.main(["--games", "2", "--pairings", "greedy-random", "--write-docs", "smoke"]) == 0
    assert "written to %s" % page in capsys.readouterr().out
    text = page.read_text()
    assert text.startswith("# Strength of the computer levels")
    sec = report.sections(text)["smoke"]
    assert "## smoke: 2 games per pairing, seed 1" in sec
    assert "`.venv/bin/python -m tools.tournament --games 2 --pairings greedy-random --write-docs smoke`" in sec
    assert "| greedy vs random | 2 |" in sec and "| player | rating" in sec


def test_tournament_refuses_a_bad_section_name(capsys):
    import pytest
    from tools import tournament
    with pytest.raises(SystemExit):
        tournament.main(["--games", "1", "--pairings", "greedy-random", "--write-docs", "no good"])
    assert "section name" in capsys.readouterr().err


def test_blunders_finds_the_moves_that_lose_at_once():
    from engine import Game
    from engine.notation import load
    from tools import blunders
    rows = ["BBBB.....", ".........", ".........", ".........", ".........", ".........", ".........",
            ".........", "........."]
    g = Game()
    load(g, rows, [])
    bad, legal = blunders.losing_moves(g, WHITE)
    assert len(legal) == 77 and set(legal) - bad == {parse_square("e1")}   # only the block saves white
    assert blunders.losing_moves(g, BLACK)[0] == set()                     # white has nothing to win with
    danger = blunders.danger_positions([(rows, [])])
    assert [(c, len(b)) for _, _, c, b in danger] == [(WHITE, 76)]
    assert blunders.count("hard", [1, 2], danger) == (0, 2)                # hard blocks on every seed


def test_blunders_refuses_bad_seeds(capsys):
    import pytest
    from tools import blunders
    for bad in ("x", "3-1", "-1", ""):
        with pytest.raises(SystemExit):
            blunders.main(["--seeds", bad])
        assert "seeds" in capsys.readouterr().err
