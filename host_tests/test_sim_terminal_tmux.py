"""The terminal simulator tried for real in tmux: drawing, secret keys, resize, Ctrl-C and terminal restore (skips without tmux)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install tmux)")

# A stand-in device for the terminal tests: lights e5, and pad A's status LED while a key is held.
FAKE = r'''
import sys
sys.path.insert(0, %r)
from tools.sim import terminal as st
from tools.sim.interface import SimDevice
class Board:
    GAMMA = 2.2
    BRIGHTNESS = 0.25
class Dev(SimDevice):
    def __init__(self, mode):
        SimDevice.__init__(self, Board, "fake", mode, "fake", 0, keep_frames=False)
        self.held = set(); self.keys = []
    def _press(self, pad, key):
        self.held.add(pad); self.keys.append("AB"[pad] + key)
    def _release(self, pad, key):
        self.held.discard(pad)
    def _advance(self, ms):
        self.t += ms
        px = [(0, 0, 0)] * 83
        px[40] = (64, 0, 0)
        px[81] = (0, 64, 0) if 0 in self.held else (0, 0, 0)
        self.last_pixels = px
        self.said = [(self.t, "place", "keys seen: " + str(len(self.keys)))]
    def pad_b_turned(self):
        return True
    def close(self):
        pass
d = Dev(sys.argv[1])
st.play(lambda: d, "fake device", 0, 1)
print("KEYS", " ".join(d.keys))
'''


class Tmux:
    def __init__(self, cmd, cols=100, rows=30):
        self.name = "wts-" + uuid.uuid4().hex[:8]
        self.sock = "wts-test-" + self.name
        # Settings and scores go to a throw-away state folder, never the user's own.
        self.state = tempfile.mkdtemp(prefix="wts-state-")
        env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8", TERM="xterm-256color", COLORTERM="truecolor", WTS_COLOR="",
                   XDG_STATE_HOME=self.state)
        # After the program: its exit code, then the terminal's echo flag, then a marker, so a test can wait
        # for the marker instead of guessing how long the shell takes under load.
        subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", "new-session", "-d", "-s", self.name,
                        "-x", str(cols), "-y", str(rows),
                        cmd + "; echo EXIT=$?; stty -a | tr ' ' '\\n' | grep -x -- '-\\?echo'; echo SHELL-BACK; sleep 30"],
                       check=True, env=env, cwd=str(ROOT))

    def keys(self, *k):
        subprocess.run(["tmux", "-L", self.sock, "send-keys", "-t", self.name] + list(k), check=True)

    def resize(self, cols, rows):
        subprocess.run(["tmux", "-L", self.sock, "resize-window", "-t", self.name, "-x", str(cols), "-y", str(rows)],
                       check=True)

    def screen(self, escapes=False):
        cmd = ["tmux", "-L", self.sock, "capture-pane", "-p", "-t", self.name] + (["-e"] if escapes else [])
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout

    def wait_for(self, text, timeout=20.0):
        return self.wait_until(lambda s: text in s, timeout, "%r never appeared" % (text,))

    def wait_until(self, ok, timeout=20.0, what="the screen never got there"):
        """The first screen for which ok(screen) is true, within timeout seconds."""
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if ok(s):
                return s
            time.sleep(0.1)
        raise AssertionError("%s; screen:\n%s" % (what, self.screen()))

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True)
        shutil.rmtree(self.state, ignore_errors=True)


def stacked(screen):
    """True if the key map starts below the matrix (after its lower column labels), not beside it."""
    lines = screen.splitlines()
    axis = [i for i, x in enumerate(lines) if x.strip() == "a b c d e f g h i"]
    pad = [i for i, x in enumerate(lines) if x.strip().startswith("Pad A (black)")]
    return len(axis) == 2 and bool(pad) and pad[0] > axis[1]


@pytest.fixture
def fake_sim(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE % str(ROOT))
    sessions = []

    def start(mode="2p", cols=100, rows=30):
        t = Tmux("%s %s %s" % (PY, script, mode), cols, rows)
        sessions.append(t)
        return t
    yield start
    for t in sessions:
        t.close()


def test_draws_maps_keys_silently_and_restores(fake_sim):
    t = fake_sim()
    s = t.wait_for("Pad A (black)")
    assert "u i o" in s and "fake device" in s
    assert "\x1b[38;2;255;0;0m" in t.screen(escapes=True)        # e5 in 24-bit red
    t.keys("s", "k", "3")
    t.wait_for("keys seen: 3")                       # the fake device has them (state, not a guessed sleep)
    s = t.screen()
    # Nothing typed appears anywhere on screen (the title ends in the mode's name, "... two players").
    for line in s.splitlines():
        assert not line.replace("fake device · two players", "").rstrip().endswith(("s", "k3", "sk3"))
    t.keys("C-c")
    s = t.wait_for("SHELL-BACK")                     # exit code and echo flag are printed by then
    assert "EXIT=0" in s
    assert "KEYS A5 B5 A#" in s
    assert "Pad A (black)" not in s                 # the alternate screen is gone
    assert "\necho\n" in "\n" + s                    # echo is back on in the shell's terminal


def test_resize_redraws_to_fit(fake_sim):
    t = fake_sim(cols=100, rows=30)
    t.wait_for("Pad B (white)")
    t.resize(44, 50)
    # Stacked: the key map below the matrix, all of it at 50 rows. Waiting for
    # the text alone passed on the old side-by-side frame that tmux still
    # showed after the resize (at 40 rows the stacked map is cut above
    # "Typed keys", so the old test only passed when it caught that frame).
    s = t.wait_until(lambda s: stacked(s) and "Typed keys" in s)
    assert all(len(line) <= 44 for line in s.splitlines())
    t.resize(20, 8)
    t.wait_for("too small")
    t.resize(100, 30)
    t.wait_for("Pad B (white)")
    t.keys("C-c")
    t.wait_for("EXIT=0")


def test_single_player_says_the_computer_plays_white(fake_sim):
    # Pad B's keys still reach the firmware (it ignores the computer's pad in a
    # game, and needs them in the menu); the screen says who plays white.
    t = fake_sim("easy")
    s = t.wait_for("the computer (easy)")
    assert "Pad A (black): left hand" in s
    t.keys("u", "q")
    time.sleep(0.4)
    t.keys("C-c")
    s = t.wait_for("EXIT=0")
    assert "KEYS A1 B1" in s


def _real_sim_available():
    try:
        from tools.sim import Device  # noqa: F401
    except Exception:
        return False
    return True


def leds(capture):
    """81 LED colours (board order) read back from a `capture-pane -e` of the simulator."""
    import re
    from tools.render.terminal import parse_ansi
    out = {}
    for row in parse_ansi(capture):
        text = "".join(c[0] for c in row)
        m = re.match(r"\s*(\d)\s+●", text)
        if m and text.count("●") >= 9:
            dots = [c[1] for c in row if c[0] == "●"][:9]
            out[int(m.group(1)) - 1] = dots
    assert sorted(out) == list(range(9)), capture
    return [out[r][c] for r in range(9) for c in range(9)]


def keys_for(cell, pad):
    """The terminal keys that enter `cell` on a pad (pad B sits opposite: its grid is turned 180 degrees)."""
    from tools.sim.terminal import PAD_A_KEYS, PAD_B_KEYS
    keymap = PAD_A_KEYS if pad == "A" else PAD_B_KEYS
    inv = {v: k for k, v in keymap.items()}
    if pad == "B":
        cell = 80 - cell
    r, c = divmod(cell, 9)
    return [inv[str((r // 3) * 3 + c // 3 + 1)], inv[str((r % 3) * 3 + c % 3 + 1)], inv["#"]]


@pytest.mark.skipif(not _real_sim_available(), reason="tools.sim.Device (the firmware simulator) is not there yet")
@pytest.mark.parametrize("board", ["pico", "sim"])     # sim: progressive, rotated strip; pad B of direct buttons
def test_real_firmware_collision_through_both_hands(board):
    """Both players type c3 with their own hand; the firmware must see the same cell (an egg), so the
    key maps and pad B's 180-degree seat agree with the firmware's, and the LEDs land on the right cells."""
    t = Tmux("%s -m tools.sim --mode 2p --board %s" % (PY, board))
    try:
        t.wait_for("Pad A (black)", timeout=30)
        time.sleep(0.5)
        before = leds(t.screen(escapes=True))
        for k in keys_for(20, "A") + keys_for(20, "B"):     # c3 is cell 20
            t.keys(k)
            time.sleep(0.12)
        end = time.time() + 20
        changed = []
        while time.time() < end:
            now = leds(t.screen(escapes=True))
            changed = [i for i in range(81) if now[i] != before[i]]
            if changed == [20]:
                break
            time.sleep(0.3)
        assert changed == [20], changed
        t.keys("C-c")
        t.wait_for("EXIT=0", timeout=10)
    finally:
        t.close()



@pytest.mark.skipif(not _real_sim_available(), reason="tools.sim.Device (the firmware simulator) is not there yet")
def test_real_firmware_in_tmux():
    t = Tmux("%s -m tools.sim --mode 2p --board pico" % PY)
    try:
        s = t.wait_for("Pad A (black)", timeout=30)
        time.sleep(1.0)
        first = t.screen(escapes=True)
        assert "\x1b[38;2;" in first
        t.keys("s", "s", "3", "k", "k", "9")     # both play e5: a collision egg
        # e5 (row 5, 5th LED) turns egg-coloured: poll, a loaded machine may be slow.
        end = time.time() + 20
        while time.time() < end and t.screen(escapes=True) == first:
            time.sleep(0.2)
        assert t.screen(escapes=True) != first   # the firmware animated something
        assert "s" not in t.screen().splitlines()[-1]
        t.keys("C-c")
        s = t.wait_for("EXIT=0", timeout=10)
        assert "Traceback" not in s
    finally:
        t.close()
