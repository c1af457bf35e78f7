"""The printed classroom kit (tools.render sheet): one page of the right size per language x paper, every message in both languages and used, text inside the page, pictures true to the engine, committed PDFs what the command makes."""
import os
import re

import pytest

from tools.render import cli, sheet
from tools.render.common import RenderError
from tools.render.page import MM, fonts_id
from tools.render.pdf import PAPER_PT, pdf_bytes, read_pdf

try:
    fonts_id()
    FONTS = None
except RenderError as e:
    FONTS = str(e)

# CI installs fonts-dejavu-core (.ci/run): there the fonts must be found.
needs_fonts = pytest.mark.skipif(FONTS is not None and not os.environ.get("CI"), reason=FONTS or "")
CASES = [(k, lang, p) for k, lang, p, _ in sheet.all_outputs()]
IDS = ["%s-%s-%s" % c for c in CASES]
REGENERATE = ".venv/bin/python -m tools.render sheet --all --out docs/print"
MM_PER_PT = 25.4 / 72


@pytest.fixture(scope="module")
def rendered():
    """Every sheet rendered once, as the command does: {(kind, lang, paper): (canvas, page image, info)}."""
    if FONTS:
        pytest.fail(FONTS)
    return {case: sheet.render(*case) for case in CASES}


def test_the_kit_has_both_languages_and_papers():
    assert sheet.languages() == ["en", "nl"]
    assert len(CASES) == 8 and set(sheet.PAPERS) == {"a4", "letter"}


def test_every_message_key_exists_in_both_languages():
    en, nl = sheet.message_keys("en"), sheet.message_keys("nl")
    assert en - nl == set() and nl - en == set()


@needs_fonts
def test_every_message_is_used_by_the_layout():
    for lang in sheet.languages():
        m = sheet.messages(lang)
        for paper in sheet.PAPERS:
            sheet.rules_canvas(lang, paper, m)
            sheet.keycard_canvas(lang, paper, m)
        for table in ("rules", "card"):
            assert set(m[table]) - m[table].used == set(), "%s [%s]: messages nobody shows" % (lang, table)


@needs_fonts
def test_a_missing_message_is_a_clear_error():
    m = sheet.messages("nl")
    del m["rules"]["goal_h"]
    with pytest.raises(RenderError, match=r"nl.toml \[rules\] has no message 'goal_h'"):
        sheet.rules_canvas("nl", "a4", m)


@needs_fonts
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_page_of_the_right_size(case, rendered):
    kind, lang, paper = case
    _, page, info = rendered[case]
    pdf = read_pdf(pdf_bytes(page, paper, info))
    assert pdf["pages"] == 1 and pdf["page_objects"] == 1 and pdf["pixels_ok"]
    w_mm, h_mm = (v * MM_PER_PT for v in pdf["mediabox"])
    want = {"a4": (210, 297), "letter": (215.9, 279.4)}[paper]
    assert abs(w_mm - want[0]) < 0.1 and abs(h_mm - want[1]) < 0.1
    # The picture fills the page at 300 dpi.
    assert pdf["image"] == (round(want[0] * MM), round(want[1] * MM))


def _overlap(a, b):
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


@needs_fonts
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_text_fits(case, rendered):
    """Every text box lies inside its frame (its column, picture or card half), every frame at least 7.5 mm
    inside the paper's edge (printers cannot print the rim), and no two lines of text overlap."""
    cv = rendered[case][0]
    W, H = cv.w, cv.h
    boxes = cv.text_boxes()
    assert len(boxes) > 100
    rim = 7.5 * MM
    slack = 0.5 * MM                   # a glyph's side bearing (J, T) may reach a hair past the edge it is set at
    for text, box, frame, _ in boxes:
        assert frame[0] >= rim and frame[1] >= rim and frame[2] <= W - rim and frame[3] <= H - rim, (text, frame)
        assert (box[0] >= frame[0] - slack and box[1] >= frame[1] - slack and box[2] <= frame[2] + slack
                and box[3] <= frame[3] + slack), "%r runs out of its frame: %s not in %s" % (text, box, frame)
    top = [(t, b) for t, b, _, under in boxes if not under]
    clashes = [(t1, t2) for k, (t1, b1) in enumerate(top) for t2, b2 in top[k + 1:] if _overlap(b1, b2)]
    assert clashes == []
    assert cv.size_pt >= sheet.MIN_PT == 7.5     # readable: the layouts shrink the type only this far


def test_the_fit_check_sees_a_line_out_of_its_frame():
    from tools.render.page import Canvas
    cv = Canvas(1000, 1000)
    cv.frame = (100, 100, 300, 900)
    box = cv.text((120, 200), "a line much too long for a narrow column", "sans", 40, (0, 0, 0))
    (_, got, frame, _), = cv.text_boxes()
    assert got == box and frame == (100, 100, 300, 900) and box[2] > frame[2]


@needs_fonts
def test_a_sheet_that_cannot_fit_says_so():
    m = sheet.messages("en")
    dict.__setitem__(m["rules"], "draw", (m["rules"]["draw"] + "\n\n") * 40)
    with pytest.raises(RenderError, match="does not fit on one a4 page"):
        sheet.rules_canvas("en", "a4", m)


# ---------------------------------------------------------------- the pictures are the engine's

def test_the_examples_show_what_their_captions_say():
    from engine import BLACK, BLACK_WON, EGG, EMPTY, parse_square as sq
    ex = {e[0]: e for e in sheet.EXAMPLES}
    egg = sheet.play_example(ex["egg"])
    assert egg["collision"] == sq("e5") and egg["eggs_after"] == [sq("c4"), sq("e5")] and egg["captured"] == []
    cap = sheet.play_example(ex["capture"])
    assert sorted(cap["captured"]) == sorted([sq("c5"), sq("d5")])
    assert cap["after"][sq("e6")] != EMPTY          # white stepped into B W W B at d6..g6: safe
    hatch = sheet.play_example(ex["hatch"])
    assert hatch["after"][sq("c4")] == BLACK and hatch["eggs_after"] == [sq("f3")]
    assert hatch["after"][sq("f3")] == EGG and sorted(hatch["captured"]) == sorted([sq("c2"), sq("d2")])
    five = sheet.play_example(ex["five"])
    assert five["result"] == BLACK_WON and five["winning"] == [sq(c) for c in ("b7", "c7", "d7", "e7", "f7")]


@pytest.mark.parametrize("lang", ["en", "nl"])
def test_captions_name_cells_of_their_picture(lang):
    m = sheet.messages(lang)
    for ex in sheet.EXAMPLES:
        shown = set(sheet.window_cells(ex))
        res = sheet.play_example(ex)
        busy = {i for i in shown if res["before"][i] or res["after"][i] or i in res["captured"]}
        named = re.findall(r"\b([a-i][1-9])\b", m["rules"][sheet.FIGURE_OF[ex[0]]])
        from engine import parse_square
        assert named and {parse_square(c) for c in named} <= busy, (lang, ex[0], named)


def test_the_key_card_asks_the_firmware():
    from firmware.entry import keys_for
    assert sheet.cell_for_digits(1, 1, False) == 0 and sheet.cell_for_digits(9, 9, False) == 80
    assert sheet.cell_for_digits(1, 1, True) == 80            # pad B turned: its 1 1 # is i9
    for i in range(81):
        assert sheet.cell_for_digits(int(keys_for(i, True)[0]), int(keys_for(i, True)[1]), True) == i


# ---------------------------------------------------------------- the committed files

@needs_fonts
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_committed_pdf_is_what_the_command_makes(case, rendered):
    """The content fingerprint always matches (any text or layout change needs a regeneration); with the fonts
    and Pillow the files were made with, the pixels and the bytes match too."""
    kind, lang, paper = case
    path = sheet.OUT_DIR / sheet.file_name(kind, lang, paper)
    assert path.is_file(), "%s missing: run %s" % (path, REGENERATE)
    data = path.read_bytes()
    got = read_pdf(data)
    assert got["pages"] == 1 and got["pixels_ok"] and got["mediabox"] == PAPER_PT[paper]
    cv, page, info = rendered[case]
    assert got["info"]["WTSContent"] == cv.fingerprint(), "%s is stale: run %s" % (path.name, REGENERATE)
    if got["info"]["WTSFonts"] == fonts_id() and got["info"]["WTSPillow"] == sheet.pillow_version():
        assert info["WTSRaster"] == got["info"]["WTSRaster"]
        assert pdf_bytes(page, paper, info) == data
    assert len(data) < 1_000_000


@needs_fonts
@pytest.mark.parametrize("case", [c for c in CASES if c[2] == "a4"], ids=lambda c: "%s-%s" % c[:2])
def test_committed_previews_match(case, rendered):
    from PIL import Image
    kind, lang, paper = case
    path = sheet.OUT_DIR / sheet.file_name(kind, lang, paper, "png")
    assert path.is_file(), "%s missing: run %s" % (path, REGENERATE)
    with Image.open(path) as im:
        assert im.text["WTSContent"] == rendered[case][0].fingerprint(), "%s is stale: run %s" % (path.name,
                                                                                                REGENERATE)
        assert im.width == round(210 / 25.4 * sheet.PREVIEW_DPI)
    assert path.stat().st_size < 1_500_000


def test_the_print_folder_holds_only_what_the_command_makes():
    made = {sheet.file_name(k, lang, p) for k, lang, p, _ in sheet.all_outputs()}
    made |= {sheet.file_name(k, lang, p, "png") for k, lang, p, prev in sheet.all_outputs() if prev}
    assert {p.name for p in sheet.OUT_DIR.iterdir()} == made


# ---------------------------------------------------------------- the command

@needs_fonts
def test_command_writes_a_deterministic_pdf_and_preview(tmp_path, capsys):
    a, b, png = tmp_path / "a.pdf", tmp_path / "b.pdf", tmp_path / "a.png"
    assert cli.main(["sheet", "--card", "--lang", "nl", "--paper", "letter", "--out", str(a), "--png", str(png)]) == 0
    assert cli.main(["sheet", "--card", "--lang", "nl", "--paper", "letter", "--out", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()           # no dates, no random ID
    assert b"CreationDate" not in a.read_bytes() and b"/ID" not in a.read_bytes()
    info = read_pdf(a.read_bytes())["info"]
    assert info["Title"].startswith("What the Shell — Je zet")
    assert info["Creator"] == "python -m tools.render sheet --card --lang nl --paper letter"
    assert png.is_file() and "one letter page (216 x 279 mm)" in capsys.readouterr().out


@pytest.mark.parametrize("args,msg", [
    (["--lang", "fr", "--out", "x.pdf"], "no docs/sheet/fr.toml"),
    (["--paper", "a5", "--out", "x.pdf"], "--paper must be one of a4, letter"),
    ([], "give --out FILE.pdf"),
    (["--out", "x.png"], "give --out FILE.pdf"),
    (["--all", "--out", "dir", "--png", "x.png"], "no --png"),
])
def test_command_refuses_bad_input(args, msg, tmp_path, capsys):
    args = [str(tmp_path / a) if a.startswith(("x.", "dir")) else a for a in args]
    with pytest.raises(SystemExit) as e:
        cli.main(["sheet"] + args)
    assert e.value.code == 2 and msg in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_missing_fonts_are_a_clear_error(monkeypatch, tmp_path, capsys):
    from tools.render import page
    monkeypatch.setattr(page, "FONT_DIRS", (str(tmp_path),))
    monkeypatch.setattr(page, "_CACHE", {})
    assert cli.main(["sheet", "--out", str(tmp_path / "x.pdf")]) == 2
    assert "fonts-dejavu-core" in capsys.readouterr().err and not (tmp_path / "x.pdf").exists()


def test_the_pdf_reader_refuses_a_broken_file():
    with pytest.raises(ValueError):
        read_pdf(b"%PDF-1.4\nnothing\n")
    from PIL import Image
    good = pdf_bytes(Image.new("RGB", (30, 40), (255, 255, 255)), "a4", {"Title": "x"})
    assert read_pdf(good)["image"] == (30, 40)
    with pytest.raises(ValueError, match="not at its xref offset"):
        read_pdf(good.replace(b"1 0 obj", b"1 0 xbj"))
