"""The README's pictures stay true: the demo game script still plays to its result, and every image is there and small."""
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
    from tools import render
    fr = render.load_frames(frames)
    assert fr[-1][0] >= 25500          # the moment board.png shows is inside the recording


@pytest.mark.parametrize("name", ["game.gif", "board.png", "wiring-pico.png", "wiring-esp32s3.png",
                                  "keypad.png", "terminal.png"])
def test_pictures_exist_and_are_small(name):
    p = DOCS / name
    assert p.is_file(), "%s missing: see the commands in docs/demo-game.txt and `python -m tools.render --help`" % p
    assert p.stat().st_size < 1_500_000
    with Image.open(p) as im:
        assert im.width >= 400
