"""Tests for tools/render/: frames parsing and its errors, colour decoding, GIF sampling, and every picture command."""
import json

import pytest
from PIL import Image

import boards

from tools.render import cli, common, terminal, wiring
from tools.render import frames as fr
from tools.sim import screen


def _frames_file(tmp_path, frames):
    p = tmp_path / "f.jsonl"
    p.write_text("".join(json.dumps({"t": t, "pixels": px}) + "\n" for t, px in frames))
    return p


def _px(c=(0, 0, 0)):
    return [list(c)] * 83


@pytest.fixture
def identity_layout(monkeypatch):
    """Strip order = board order, so these tests do not depend on the firmware's layout code."""
    def fake(board_name):
        common.load_board(board_name)
        return lambda px: (px[:81], (px[81], px[82]))
    monkeypatch.setattr(fr, "cell_mapper", fake)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(common.RenderError, match="not found"):
        fr.load_frames(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("line,msg", [
    ("{not json", "not JSON"),
    ('{"t": 0}', "expected"),
    ('{"t": 0, "pixels": [[0,0,0]]}', "expected 83 pixels"),
    ('{"t": "x", "pixels": []}', "t must be a number"),
    ('{"t": 0, "pixels": ' + json.dumps([[0, 0, 300]] * 83) + "}", "pixel 0"),
])
def test_corrupt_lines_name_the_line(tmp_path, line, msg):
    p = tmp_path / "f.jsonl"
    p.write_text(json.dumps({"t": 0, "pixels": _px()}) + "\n" + line + "\n")
    with pytest.raises(common.RenderError, match=msg) as e:
        fr.load_frames(p)
    assert "line 2" in str(e.value)


def test_empty_and_backwards_files(tmp_path):
    p = tmp_path / "e.jsonl"
    p.write_text("\n")
    with pytest.raises(common.RenderError, match="empty"):
        fr.load_frames(p)
    p = _frames_file(tmp_path, [(10, _px()), (5, _px())])
    with pytest.raises(common.RenderError, match="backwards"):
        fr.load_frames(p)


def test_unknown_board():
    with pytest.raises(common.RenderError, match="pico"):
        common.load_board("nosuchboard")


def test_cli_errors_exit_2_with_message(tmp_path, capsys):
    assert cli.main(["frames", str(tmp_path / "x.jsonl"), "--png", str(tmp_path / "x.png")]) == 2
    assert "not found" in capsys.readouterr().err
    p = _frames_file(tmp_path, [(0, _px())])
    assert cli.main(["frames", str(p), "--board", "zz", "--png", str(tmp_path / "x.png")]) == 2
    assert "unknown board" in capsys.readouterr().err


def test_gamma_is_undone_and_exposure_normalises():
    g = 2.2
    v = int(round(255 * 0.25 ** g))          # a quarter level, gamma-encoded as the strip got it
    frames = [(0, [(v, v, v)] * 83)]
    e = screen.recording_exposure(frames, g)
    assert screen.perceived((v, 0, 0), g, e)[0] >= 250   # brightest thing shows at full scale
    assert screen.perceived((0, 0, 0), g, e) == (0, 0, 0)
    assert screen.recording_exposure([(0, [(0, 0, 0)] * 83)], g) == 1.0


def test_sample_merges_identical_frames_and_keeps_time():
    a, b = _px((1, 1, 1)), _px((2, 2, 2))
    frames = [(0, a), (500, b), (1000, b)]
    s = fr.sample(frames, fps=10)
    assert [px for px, _ in s] == [a, b]
    assert s[0][1] == 500
    assert sum(d for _, d in s) == 1100 + 2500   # 11 samples of 100 ms, then the hold on the last position
    assert fr.frame_at(frames, 499)[1] is a and fr.frame_at(frames, 500)[1] is b
    with pytest.raises(common.RenderError):
        fr.sample(frames, fps=0)


def test_png_and_gif_from_frames(tmp_path, identity_layout):
    frames = [(t, _px(((t // 100) * 20 % 256, 40, 200))) for t in range(0, 1000, 100)]
    p = _frames_file(tmp_path, frames)
    png, gif = tmp_path / "b.png", tmp_path / "g.gif"
    assert cli.main(["frames", str(p), "--board", "pico", "--png", str(png), "--at", "250",
                        "--gif", str(gif), "--fps", "5", "--pitch", "20"]) == 0
    im = Image.open(png)
    assert im.mode == "RGB" and im.width > 9 * 20
    g = Image.open(gif)
    assert g.n_frames == 5 and g.info.get("loop") == 0


def test_panel_lights_the_right_led():
    panel = fr.Panel(pitch=30)
    cols = [(0, 0, 0)] * 83
    cols[40] = (255, 0, 0)       # e5, the centre
    cols[81] = (0, 255, 0)       # pad A's status LED at black's (bottom) edge
    im = panel.draw(cols)
    cx, cy = panel.led_centres()[40]
    r, g, b = im.getpixel((int(cx + panel.lens_r * 0.6), int(cy)))
    assert r > 200 and g < 150
    ax, ay = panel.led_centres()[81]
    assert ay > panel.led_centres()[80][1] and im.getpixel((int(ax + panel.lens_r * 0.6), int(ay)))[1] > 200
    off = im.getpixel(tuple(int(v) for v in panel.led_centres()[0]))
    assert max(off) < 60


@pytest.mark.parametrize("board", boards.names())
def test_wiring_diagram_for_every_board(tmp_path, board):
    out = tmp_path / "w.png"
    assert cli.main(["wiring", "--board", board, "--out", str(out)]) == 0
    assert Image.open(out).size[0] == 1500


def _drawn_texts(board, monkeypatch):
    """Every text draw_wiring draws: (text, its bounding box), and the final image."""
    from PIL import ImageDraw
    drawn = []
    real = ImageDraw.ImageDraw.text

    def text(self, xy, t, *a, **k):
        drawn.append((t, self.textbbox(xy, t, font=k.get("font"), anchor=k.get("anchor"))))
        return real(self, xy, t, *a, **k)
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    img = wiring.draw_wiring(common.load_board(board))
    return drawn, img


@pytest.mark.parametrize("board", boards.names())
def test_wiring_notes_fit_and_every_bom_part_is_drawn(board, monkeypatch):
    # Issue 27: the notes were cut off at the right edge ("100 nF at VC"), and the 10 kΩ pull-down and the
    # 100 nF capacitor were only mentioned there, not drawn.
    drawn, img = _drawn_texts(board, monkeypatch)
    for t, (x0, y0, x1, y1) in drawn:
        assert 0 <= x0 and x1 <= img.width and 0 <= y0 and y1 <= img.height, (t, (x0, y0, x1, y1), img.size)
    labels = [t for t, _ in drawn]
    for part in ("10 kΩ", "100 nF", "330 Ω", "1000 µF", "74AHCT125"):
        assert part in labels, part                     # a component's own label, not only a sentence in the notes
    notes = " ".join(t.strip() for t in labels[labels.index("Notes") + 1:])
    assert "100 nF from its VCC to its GND, at the chip." in notes


def test_wiring_reads_pins_from_the_board():
    b = common.load_board("pico")
    wires, kind = wiring.pad_wires(b, "A")
    # A named part (Adafruit 1824): the wires in keypad-pin order 1..7, each labelled with its row/column.
    assert kind == "3x4 adafruit-1824" and [g for g, _ in wires] == [2, 3, 4, 5, 6, 7, 8]
    assert [lab for _, lab in wires][:2] == ["pin 1 C2", "pin 2 R1"]
    assert wiring.pin_name(b, 28) == "GP28 (pin 34)"
    assert wiring.pin_name(common.load_board("esp32s3"), 5) == "GPIO5"
    assert wiring.board_title(b) == "Raspberry Pi Pico (RP2040)"


def test_keypad_picture(tmp_path):
    out = tmp_path / "k.png"
    assert cli.main(["keypad", "--out", str(out)]) == 0
    assert Image.open(out).size == (1400, 1020)


def test_gif_shrinks_to_the_size_limit(tmp_path, identity_layout):
    frames = [(t * 100, [[(t * 37 + k * 11) % 256, (k * 53) % 256, (t * 91) % 256] for k in range(83)]) for t in range(4)]
    p = _frames_file(tmp_path, frames)
    big, small = tmp_path / "big.gif", tmp_path / "small.gif"
    assert cli.main(["frames", str(p), "--gif", str(big), "--pitch", "24", "--max-bytes", "100000000"]) == 0
    limit = big.stat().st_size // 2
    assert cli.main(["frames", str(p), "--gif", str(small), "--pitch", "24", "--max-bytes", str(limit)]) == 0
    assert small.stat().st_size <= limit
    assert Image.open(small).width < Image.open(big).width


@pytest.mark.parametrize("board", boards.names())
def test_cell_mapper_uses_the_firmware_layout(board):
    from firmware.display import strip_map
    b = common.load_board(board)
    m = strip_map(b.MATRIX_LAYOUT, b.MATRIX_ORIGIN, b.MATRIX_ROTATION, b.STATUS_LEDS)
    px = [(k, 255 - k, 7) for k in range(83)]          # each strip LED tagged with its index
    cells, (a, bb) = fr.cell_mapper(board)(px)
    assert [c[0] for c in cells] == [m[i] for i in range(81)]
    assert (a[0], bb[0]) == (m[81], m[82])
    if board == "pico":      # serpentine from the top-left: a2 (cell 9) is the 18th LED
        assert cells[9][0] == 17 and cells[0][0] == 0


def test_terminal_screenshot(tmp_path):
    cap = tmp_path / "cap.txt"
    cap.write_text("\x1b[1mtitle\x1b[0m\n  \x1b[48;2;12;15;14m\x1b[38;2;255;0;0m●\x1b[0m ab\n")
    rows = terminal.parse_ansi(cap.read_text())
    assert [c[0] for c in rows[1]] == [" ", " ", "●", " ", "a", "b"]
    assert rows[1][2][1] == (255, 0, 0) and rows[1][2][2] == (12, 15, 14) and rows[0][0][3] is True
    out = tmp_path / "t.png"
    assert cli.main(["terminal", str(cap), "--out", str(out)]) == 0
    assert Image.open(out).width > 5 * 11   # 5 columns of text plus the window frame
    assert cli.main(["terminal", str(tmp_path / "missing.txt"), "--out", str(out)]) == 2


def test_wiring_and_keypad_without_out_say_where_they_wrote(tmp_path, monkeypatch, capsys):
    from tools.render import keypad
    (tmp_path / "docs").mkdir()
    monkeypatch.setattr(wiring, "ROOT", tmp_path)
    monkeypatch.setattr(keypad, "ROOT", tmp_path)
    assert cli.main(["wiring", "--board", "pico"]) == 0
    assert "wrote %s" % (tmp_path / "docs" / "wiring-pico.png") in capsys.readouterr().out
    assert cli.main(["keypad"]) == 0
    assert "wrote %s" % (tmp_path / "docs" / "keypad.png") in capsys.readouterr().out


def test_every_picture_is_a_subcommand(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for name in ("frames", "demo", "wiring", "keypad", "terminal"):
        assert name in out
