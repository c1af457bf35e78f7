"""Tests for tools.upy.vboard: the real mpremote CLI against the virtual board; pin-accurate fake pads; recorded NeoPixel frames."""
import subprocess
import sys
from pathlib import Path

import pytest

from tools.upy.vboard import VBoard, VBoardError, board_names

needs_node = pytest.mark.needs_node


def mpremote(vb, *args, timeout=60):
    """Run the real mpremote CLI against the board; returns CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "mpremote", "connect", vb.url, *args],
                          capture_output=True, text=True, timeout=timeout)


def ok(vb, *args):
    r = mpremote(vb, *args)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


@pytest.fixture(scope="module")
def vb():
    with VBoard(board="pico") as board:
        yield board


@needs_node
def test_exec_reaches_real_micropython_and_errors_come_back(vb):
    assert ok(vb, "exec", "import sys; print(sys.implementation.name, 6 * 7)") == "micropython 42\n"
    r = mpremote(vb, "exec", "def f():\n    raise ValueError('bad')\nf()")
    assert r.returncode == 1
    assert "ValueError: bad" in r.stdout and "line 2, in f" in r.stdout


@needs_node
def test_filesystem_commands(vb, tmp_path):
    src = tmp_path / "hello.py"
    payload = "# generated\nGREETING = %r\n" % ("héllo " * 300)   # > several 256-byte chunks
    src.write_text(payload, encoding="utf-8")
    ok(vb, "fs", "mkdir", "sub")
    ok(vb, "fs", "cp", str(src), ":sub/hello.py")
    listing = ok(vb, "fs", "ls", "sub")
    assert "hello.py" in listing and str(len(payload.encode())) in listing   # sizes shown like a board's VFS
    assert ok(vb, "fs", "cat", "sub/hello.py") == payload
    back = tmp_path / "back.py"
    ok(vb, "fs", "cp", ":sub/hello.py", str(back))
    assert back.read_text(encoding="utf-8") == payload
    assert ok(vb, "exec", "import sys; sys.path.append('/sub'); import hello; print(len(hello.GREETING))") == "1800\n"
    root = ok(vb, "fs", "ls")
    assert "board_config.py" in root and " dev" not in root and " proc" not in root  # emscripten dirs hidden
    ok(vb, "fs", "rm", "sub/hello.py")
    ok(vb, "fs", "rmdir", "sub")
    # emscripten's ENOENT is 44; the board maps it so mpremote says the right thing
    r = mpremote(vb, "fs", "cat", "no_such_file.py")
    assert r.returncode == 1 and "No such file or directory" in r.stderr


@needs_node
def test_run_soft_reset_and_resume(vb, tmp_path):
    script = tmp_path / "s.py"
    script.write_text("counter = 41\nprint('ran', counter + 1)\n")
    assert ok(vb, "run", str(script)) == "ran 42\n"
    # resume: no soft reset, the previous session's globals are still there
    assert ok(vb, "resume", "exec", "print(counter)") == "41\n"
    # soft-reset: fresh interpreter, files kept
    before = vb.stats()["boots"]
    out = ok(vb, "resume", "soft-reset", "exec", "import os; print('counter' in globals(), 'board_config.py' in os.listdir())")
    assert out == "False True\n"
    assert vb.stats()["boots"] > before


@needs_node
def test_matrix_pad_is_pin_accurate(vb):
    # Scan pad A the way the firmware does (pico: rows GP2-5, cols GP6-8).
    scan = (
        "from machine import Pin\n"
        "import board_config as c\n"
        "rows = [Pin(p, Pin.OUT, value=1) for p in c.PAD_A['rows']]\n"
        "cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in c.PAD_A['cols']]\n"
        "seen = ''\n"
        "for r, row in enumerate(rows):\n"
        "    row.value(0)\n"
        "    for k, col in enumerate(cols):\n"
        "        if col.value() == 0:\n"
        "            seen += '123456789*0#'[r * 3 + k]\n"
        "    row.value(1)\n"
        "idle = [col.value() for col in cols]\n"   # all rows high: nothing reads low
        "print(seen, idle)\n"
    )
    try:
        vb.press("A", "5")
        vb.press("A", "#")
        vb.press("B", "1")          # other pad: must not show up on pad A's pins
        assert ok(vb, "exec", scan) == "5# [1, 1, 1]\n"
        vb.release("A", "5")
        assert ok(vb, "exec", scan) == "# [1, 1, 1]\n"
    finally:
        vb.release_all()
    assert ok(vb, "exec", scan) == " [1, 1, 1]\n"


@needs_node
def test_direct_buttons_and_neopixel_frames():
    cfg = (
        "NAME = 'direct-test'\nLED_PIN = 9\nKEYPAD_TYPE = 'direct'\n"
        "PAD_A = {'pins': (10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)}\n"
        "PAD_B = {'pins': (30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)}\n"
    )
    with VBoard(files={"board_config.py": cfg}) as board:
        board.press("B", "*")       # 10th direct pin of pad B = 39
        code = (
            "from machine import Pin\nimport neopixel\n"
            "pins = [Pin(p, Pin.IN, Pin.PULL_UP) for p in range(30, 41)]\n"
            "print([p.value() for p in pins])\n"
            "np = neopixel.NeoPixel(Pin(9, Pin.OUT), 3)\n"
            "np[0] = (255, 0, 0)\nnp[2] = (1, 2, 3)\nnp.write()\n"
            "np.fill((0, 0, 9))\nnp.write()\nprint(np[1])\n"
        )
        out = ok(board, "exec", code)
        assert out == "[1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]\n(0, 0, 9)\n"
        frames = board.frames()
        assert [f.pin for f in frames] == [9, 9]
        assert frames[0].data == bytes([0, 255, 0, 0, 0, 0, 2, 1, 3])   # GRB wire order
        assert frames[1].data == bytes([0, 0, 9] * 3)
        assert frames[0].ms <= frames[1].ms
        assert board.frames(since=frames[1].seq) == frames[1:]


@needs_node
def test_blocking_main_loop_ctrl_c_and_hard_reset():
    main = (
        "import time\nfrom machine import Pin\n"
        "with open('boots.txt', 'a') as f:\n    f.write('x')\n"   # closed: littlefs keeps nothing unclosed
        "p = Pin(3, Pin.IN, Pin.PULL_UP)\n"
        "while True:\n    p.value()\n    time.sleep_ms(5)\n"
    )
    with VBoard(board="pico", files={"main.py": main}) as board:
        board.wait_reads(10)                       # main.py is looping since power-up
        assert board.stats()["busy"] == 1
        # mpremote's Ctrl-C interrupts it, then the raw REPL answers
        assert ok(board, "exec", "print(open('boots.txt').read())") == "x\n"
        r = mpremote(board, "reset")               # machine.reset(): reboot, main.py runs again
        assert r.returncode == 0, r.stderr
        board.wait_reads(10)
        assert ok(board, "exec", "print(open('boots.txt').read())") == "xx\n"
        # a loop started by exec --no-follow is interrupted the same way
        ok(board, "exec", "--no-follow", "import time\nwhile True:\n    time.sleep_ms(1)")
        assert ok(board, "exec", "print('back')") == "back\n"


def test_bad_arguments_are_refused():
    assert "pico" in board_names()
    with pytest.raises(ValueError):
        VBoard(board="no-such-board")
    with pytest.raises(ValueError):
        VBoard(port=70000)
    with pytest.raises(ValueError):
        VBoard._check("C", "5")
    with pytest.raises(ValueError):
        VBoard._check("A", "55")


def test_cli_help():
    r = subprocess.run([sys.executable, "-m", "tools.upy.vboard", "--help"], capture_output=True, text=True, timeout=30,
                       cwd=str(Path(__file__).resolve().parent.parent))
    assert r.returncode == 0 and "--port" in r.stdout and "mpremote" in r.stdout


@needs_node
def test_port_in_use_is_a_clear_error(vb):
    with pytest.raises(VBoardError) as ei:
        VBoard(port=vb.port)
    assert "cannot listen" in str(ei.value)


@needs_node
def test_fs_size_limits_writes_with_enospc():
    with VBoard(fs_size=8192) as small:
        out = ok(small, "exec",
                 "import os\nprint(os.statvfs('/')[:5])\n"
                 "f = open('a.bin', 'wb')\n"
                 "try:\n    f.write(bytes(10000))\nexcept OSError as e:\n    print('error', e.errno)\n"
                 "f.close()\nprint(os.stat('a.bin')[6] <= 8192)\n")
        assert out == "(4096, 4096, 2, 2, 2)\nerror 28\nTrue\n"


class _Reader:
    """Reads a socket up to markers; bytes after a marker are kept for the next read (bounded waits)."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def until(self, marker, timeout=20.0):
        import time
        deadline = time.monotonic() + timeout
        while marker not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, "no %r within %.0f s; got %r" % (marker, timeout, self.buf[-300:])
            self.sock.settimeout(left)
            chunk = self.sock.recv(4096)
            assert chunk, "connection closed; got %r" % self.buf[-300:]
            self.buf += chunk
        i = self.buf.index(marker) + len(marker)
        text, self.buf = self.buf[:i], self.buf[i:]
        return text


@needs_node
def test_friendly_repl_and_ctrl_d_soft_reboot_runs_main_py():
    import socket
    main = "print('main.py ran')\n"
    with VBoard(files={"main.py": main}) as board:
        with socket.create_connection(("127.0.0.1", board.port), timeout=10) as s:
            rd = _Reader(s)
            s.sendall(b"\r\x02")                                # friendly REPL, as `mpremote repl` shows it
            rd.until(b'more information.\r\n>>> ')        # Ctrl-B's banner (after the \r's prompt)
            s.sendall(b"6 * 7\r")
            assert rd.until(b"42").endswith(b"6 * 7\r\n42")  # echo, then the result
            rd.until(b">>> ")
            s.sendall(b"\x04")                                  # Ctrl-D at an empty prompt: soft reboot
            text = rd.until(b'more information.\r\n>>> ')
            assert b"MPY: soft reboot" in text and b"main.py ran" in text   # friendly mode runs main.py
            assert text.index(b"main.py ran") < text.index(b"MicroPython v1.27")


@needs_node
def test_cli_serves_until_interrupted():
    import re
    import selectors
    import signal
    root = Path(__file__).resolve().parent.parent
    # Ctrl-C in a terminal: SIGINT at its default, whatever the test runner inherited (a shell
    # script's background job ignores it, and an ignored SIGINT stays ignored in every child).
    proc = subprocess.Popen([sys.executable, "-m", "tools.upy.vboard", "--board", "pico"], cwd=str(root),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(timeout=30), "no banner from python -m tools.upy.vboard"
        line = proc.stdout.readline()
        url = re.search(r"socket://127\.0\.0\.1:\d+", line).group(0)
        r = subprocess.run([sys.executable, "-m", "mpremote", "connect", url, "exec",
                            "import board_config; print(board_config.NAME)"],
                           capture_output=True, text=True, timeout=60)
        assert r.stdout == "pico\n", r.stderr
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)


# ---- as strict as the chip: pin table, heap ceiling, littlefs files ----------------------------


@needs_node
@pytest.mark.parametrize("pin, why", [(23, "SMPS"), (29, "VSYS"), (30, "no GPIO 30")])
def test_pins_the_pico_reserves_or_lacks_are_refused(vb, pin, why):
    r = mpremote(vb, "exec", "from machine import Pin\nPin(%d, Pin.OUT)" % pin)
    assert r.returncode == 1 and "ValueError: invalid pin %d" % pin in r.stdout and why in r.stdout
    assert ok(vb, "exec", "from machine import Pin\nprint(Pin(22, Pin.OUT))") == "Pin(22)\n"


@needs_node
def test_heap_beyond_the_boards_ceiling_is_a_memory_error():
    grab = ("import time\nkeep = []\n"
            "try:\n    for i in range(400):\n        keep.append(bytearray(1024))\n        time.sleep_ms(0)\n"
            "    print('grew to', len(keep), 'KB')\n"
            "except MemoryError as e:\n    print('MemoryError', len(keep) < 260, 'ceiling' in str(e))\n")
    with VBoard(board="pico") as board:                 # HEAP_BYTES = 241,952, as a Pico after boot
        assert ok(board, "exec", grab) == "MemoryError True True\n"
        assert board.stats()["heap_peak"] > 200000
    with VBoard(board="pico", heap_limit=0) as board:   # no ceiling: this port's heap just grows
        assert ok(board, "exec", grab) == "grew to 400 KB\n"


@needs_node
def test_files_change_only_when_closed_as_on_littlefs(vb):
    code = ("import os\n"
            "with open('s.json', 'w') as f:\n    f.write('old')\n"
            "f = open('s.json', 'w')\nf.write('new, longer')\n"
            "print(open('s.json').read(), os.stat('s.json')[6])\n"      # the writer has not closed: old contents
            "f.close()\nprint(open('s.json').read())\n"
            "with open('s.tmp', 'w') as t:\n    t.write('swapped')\n"
            "os.rename('s.tmp', 's.json')\n"                             # over an existing file: atomic
            "print(open('s.json').read(), 's.tmp' in os.listdir())\n")
    assert ok(vb, "exec", code) == "old 3\nnew, longer\nswapped False\n"


@needs_node
def test_a_reset_mid_write_keeps_the_old_file():
    with VBoard(board="pico") as board:
        ok(board, "exec", "with open('scores.json', 'w') as f:\n    f.write('{\"a\": 1}')")
        boots = board.stats()["boots"]
        ok(board, "exec", "--no-follow", "import machine\nf = open('scores.json', 'w')\nf.write('{\"a\": 2, \"b')\nmachine.reset()")
        import time
        deadline = time.monotonic() + 30
        while board.stats()["boots"] == boots:
            assert time.monotonic() < deadline, "the board did not reboot"
            time.sleep(0.05)
        assert ok(board, "exec", "print(open('scores.json').read())") == '{"a": 1}\n'
