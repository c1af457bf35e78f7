"""The docs' pictures stay true: the demo game script still plays to its result, and every image is there and small."""
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_demo_game_script_still_plays_to_blacks_win(tmp_path):
    frames = tmp_path / "game.jsonl"
    r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--mode", "2p",
                        "--script", str(DOCS / "demo-game.txt"), "--frames", str(frames)],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.strip().splitlines()
    # The story told in demo-game.txt: c3 hatched black, e4/e5 captured, g3 egg, b3-f3 wins.
    assert rows[2] == ".BBBBBe.." and rows[3] == "......W.." and rows[5] == "....B.W.."
    assert rows[-1] == "result: black"
    from tools.render.frames import load_frames
    fr = load_frames(frames)
    assert fr[-1][0] >= 25500          # the moment board.png shows is inside the recording


@pytest.mark.parametrize("name", ["game.gif", "board.png", "wiring-pico.png", "wiring-esp32s3.png",
                                  "keypad.png", "terminal.png"])
def test_pictures_exist_and_are_small(name):
    p = DOCS / name
    assert p.is_file(), "%s missing: see the commands in docs/demo-game.txt and `python -m tools.render --help`" % p
    assert p.stat().st_size < 1_500_000
    with Image.open(p) as im:
        assert im.width >= 400


def test_demo_command_records_captions_in_step(tmp_path):
    from tools.render import cli, demo
    frames, captions = demo.record_script(DOCS / "demo-game.txt")
    assert len(captions) == 8 and captions[1][1].startswith("1. Both chose c3")
    assert [t for t, _ in captions] == sorted(t for t, _ in captions)
    cf = demo.caption_frames(frames, captions)
    assert cf[0][1][1] == captions[0][1] and cf[-1][1][1].startswith("8.")
    out = tmp_path / "g.gif"
    assert cli.main(["demo", str(DOCS / "demo-game.txt"), "--gif", str(out), "--fps", "2", "--pitch", "20"]) == 0
    assert Image.open(out).n_frames > 10


def test_demo_command_errors(tmp_path):
    from tools.render import cli, demo
    bad = tmp_path / "bad.txt"
    bad.write_text("A move z9\n")
    assert cli.main(["demo", str(bad), "--gif", str(tmp_path / "x.gif")]) == 2
    assert cli.main(["demo", str(tmp_path / "none.txt"), "--gif", str(tmp_path / "x.gif")]) == 2
