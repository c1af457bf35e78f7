"""The CircuitPython hardware layer (firmware/hw_circuitpython.py) on the real Adafruit neopixel + pixelbuf libraries and fakes of CircuitPython's built-ins: wire bytes, keypad event queues, PWM buzzer, wrap-safe ticks, read-only CIRCUITPY, boot.py/code.py, and the full-game, secrecy and power tests on this layer."""
import json
import sys

import pytest

import boards
from firmware import hw_circuitpython as cp
from firmware.display import Display, strip_map, color_offsets, led_share_ma, BLUE, WARM, FLASH, STATUS_A
from firmware.keypad import EventRing, DOWN, PAD_B
from tools import ROOT
from tools.sim.circuitpython import Runtime, FloatingRead, hardware
from tools.sim.fakehw import FakeBoard
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from conftest import CONFORMANCE
import firmware_helpers

RANDOM_GAMES = json.loads((CONFORMANCE / "random-games.json").read_text())
BOARD = "feather_rp2040"


class Cfg(firmware_helpers.Cfg):
    """A board config copy with some fields changed (the Feather's by default)."""

    def __init__(self, name=BOARD, **changes):
        super().__init__(name, **changes)


def build(cfg, entropy=None):
    """(runtime, hardware, frames) for cfg on fresh fakes; frames collects every transmitted buffer."""
    fb = FakeBoard(cfg)
    frames = []
    fb.on_frame = lambda t, buf: frames.append(bytes(buf))
    rt, hw = hardware(cfg, fb, entropy)
    return rt, hw, frames


def game_script(turns):
    return "\n".join("A move %s\nB move %s\nsync" % (t["black"], t["white"]) for t in turns)


def legal_turns(case):
    out = []
    for t in case["turns"]:
        if "error" in t["expect"]:
            break
        out.append(t)
    return out


# ---- the real Adafruit library is what runs -----------------------------------------


def test_the_real_adafruit_neopixel_and_pixelbuf_are_used():
    rt, hw, frames = build(Cfg())
    px = hw.np.px
    mro = [c.__module__ for c in type(px).__mro__]
    assert "neopixel" in mro and "adafruit_pixelbuf" in mro
    assert sys.modules["adafruit_pixelbuf"].__file__.endswith("site-packages/adafruit_pixelbuf.py")
    assert px.auto_write is False and px.brightness == 1.0 and px.byteorder == "GRB"
    px[0] = (1, 2, 3)  # auto_write=False: setting a pixel sends nothing
    assert frames == []


def _expected(cfg, colour_rgb, level=15):
    # What the wire must carry for one palette colour at `level`: gamma, then the board's brightness, once.
    out = []
    for v in colour_rgb:
        x = (v * level * 17) // 255
        y = int(255.0 * ((x / 255.0) ** cfg.GAMMA) * cfg.BRIGHTNESS + 0.5) if x else 0
        out.append(y if x == 0 or y > 0 else 1)
    return out


@pytest.mark.parametrize("order", ["GRB", "RGB", "BRG"])
@pytest.mark.parametrize("brightness", [0.25, 1.0])
def test_known_frame_wire_bytes_colour_order_brightness_serpentine(order, brightness):
    # Black's turtle on a1 and white's on b2, nothing else: exactly those two strip LEDs lit, in the
    # board's colour order, at gamma + brightness applied once (not squared by the library's own brightness).
    cfg = Cfg(COLOR_ORDER=order, BRIGHTNESS=brightness, CURRENT_BUDGET_MA=2000)
    rt, hw, frames = build(cfg)
    d = Display(hw.np, cfg)
    d.put(0, BLUE << 4 | 15)  # a1
    d.put(10, WARM << 4 | 15)  # b2: row 1 of a serpentine panel runs right to left -> strip LED 9 + 7 = 16
    d.show()
    raw = frames[-1]
    assert len(raw) == 83 * 3 and rt.writes == 1
    ro, go, bo = color_offsets(order)
    want = {0: _expected(cfg, (0, 60, 255)), 16: _expected(cfg, (255, 190, 110))}
    assert strip_map("serpentine", "top-left", 0)[10] == 16
    for led in range(83):
        got = [raw[led * 3 + ro], raw[led * 3 + go], raw[led * 3 + bo]]
        assert got == want.get(led, [0, 0, 0]), led


def test_wire_bytes_are_the_ones_the_micropython_layer_sends():
    # Same firmware display on both layers, same board settings: identical bytes for a busy frame.
    cfg = Cfg()
    rt, hw, frames = build(cfg)

    class Plain:
        buf = bytearray(83 * 3)

        def write(self):
            pass

    plain = Plain()
    for np in (hw.np, plain):
        d = Display(np, cfg)
        for i in range(83):
            d.put(i, ((i % 7) + 1) << 4 | (i % 16))
        d.show()
    assert frames[-1] == bytes(plain.buf)


class CPixelBuf:
    """CircuitPython's C PixelBuf as its docs and shared-bindings define a slice store: n * bpp flat values
    (r, g, b, ...) for an n-pixel slice, put on the wire in `byteorder`. (The host has only the Python library.)"""

    def __init__(self, n, byteorder):
        self.n = n
        self.order = byteorder
        self.wire = bytearray(n * 3)
        self.shows = []

    def __len__(self):
        return self.n

    def _set(self, i, r, g, b):
        for ch, v in zip("RGB", (r, g, b)):
            self.wire[i * 3 + self.order.index(ch)] = v

    def __setitem__(self, k, v):
        if isinstance(k, slice):
            idx = range(*k.indices(self.n))
            if len(v) != len(idx) * 3:
                raise ValueError("Unmatched number of items on RHS (expected %d, got %d)." % (len(idx), len(v)))
            for n, i in enumerate(idx):
                self._set(i, v[n * 3], v[n * 3 + 1], v[n * 3 + 2])
        else:
            self._set(k, v >> 16, (v >> 8) & 255, v & 255)

    def __getitem__(self, i):
        return tuple(self.wire[i * 3 + self.order.index(ch)] for ch in "RGB")

    def show(self):
        self.shows.append(bytes(self.wire))


@pytest.mark.parametrize("order", ["GRB", "BRG"])
def test_circuitpythons_flat_slice_store_gives_the_same_wire_bytes(order):
    # On CircuitPython the strip is written with one flat slice store (no per-pixel loop);
    # its wire bytes must equal those the real Python library sends through the per-pixel path.
    cfg = Cfg(COLOR_ORDER=order)
    rt, hw, frames = build(cfg)
    flat = cp.Strip(CPixelBuf(83, order))
    assert flat.flat and not hw.np.flat
    for np in (hw.np, flat):
        d = Display(np, cfg)
        for i in range(83):
            d.put(i, ((i % 7) + 1) << 4 | (i % 16))
        d.show()
    assert flat.px.shows[-1] == frames[-1]
    assert len(flat.px.shows) == 1


def test_power_cap_holds_on_the_wire_at_full_brightness():
    cfg = Cfg(BRIGHTNESS=1.0, CURRENT_BUDGET_MA=400)
    rt, hw, frames = build(cfg)
    d = Display(hw.np, cfg)
    for i in range(83):
        d.put(i, FLASH << 4 | 15)  # everything white: ~5 A uncapped
    d.show()
    share = led_share_ma(cfg)  # 400 - 83 idle - 50 controller
    assert share == 400 - 83 - 50
    ma = sum(frames[-1]) * cfg.MA_PER_CHANNEL / 255
    assert 0.8 * share < ma <= share


def test_one_show_per_frame_in_a_game():
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script("A move e5\nB move d4\nsync\nwait 200"))
    assert dev.cp.writes == len(dev.frames) > 10


# ---- pads: CircuitPython's keypad event queues -------------------------------------------


def test_keymatrix_events_reach_the_ring_with_pad_and_key_index():
    rt, hw, _ = build(Cfg())
    ring = EventRing()
    pad_a, pad_b = hw.pads
    rt.fb.set_key(0, "7", True)
    rt.fb.set_key(1, "#", True)
    rt.clock.now += 30
    pad_a.scan(ring)
    pad_b.scan(ring)
    assert [ring.get(), ring.get(), ring.get()] == [DOWN | pad_a.keys.index("7"), PAD_B | DOWN | pad_b.keys.index("#"), -1]
    assert pad_a.held("7") and pad_b.held("#") and not pad_a.held("#")
    rt.fb.set_key(0, "7", False)
    rt.clock.now += 30
    pad_a.scan(ring)
    assert ring.get() == pad_a.keys.index("7") and not pad_a.held("7")


def test_bounce_gives_one_press_and_one_release():
    dev = VirtualDevice(Cfg(), mode="2p")
    trace = []
    ring = dev.app.ring
    put = ring.put
    ring.put = lambda ev: (trace.append(ev), put(ev))
    dev.board.bounce(0, "5", True)
    dev.advance(80)
    dev.board.bounce(0, "5", False)
    dev.advance(80)
    k = dev.hw.pads[0].keys.index("5")
    assert trace == [DOWN | k, k]


def test_two_keys_in_one_column_and_an_l_shape_are_each_seen():
    rt, hw, _ = build(Cfg())
    pad = hw.pads[0]
    ring = EventRing()
    for keys in (("2", "5"), ("1", "2", "4")):  # a column; an L (ghosting on a plain matrix)
        for k in keys:
            rt.fb.set_key(0, k, True)
        rt.clock.now += 30
        pad.scan(ring)
        assert all(pad.held(k) for k in keys)
        assert not pad.held("5" if "5" not in keys else "9")
        for k in keys:
            rt.fb.set_key(0, k, False)
        rt.clock.now += 30
        pad.scan(ring)


def test_a_key_held_at_power_up_is_seen_without_a_press_event():
    # CircuitPython 9 reports no press for a key already down when the scanner starts:
    # the pad reads the pins once before, so safe boot and boot-time holds still work.
    cfg = Cfg()
    fb = FakeBoard(cfg)
    fb.set_key(0, "*", True)
    rt, hw = hardware(cfg, fb)
    ring = EventRing()
    rt.clock.now += 50
    hw.pads[0].scan(ring)
    assert hw.pads[0].held("*") and len(ring) == 0
    fb.set_key(0, "*", False)
    rt.clock.now += 50
    hw.pads[0].scan(ring)
    assert not hw.pads[0].held("*") and ring.get() == hw.pads[0].keys.index("*")


def test_safe_boot_star_works_on_circuitpython(tmp_path):
    from firmware.launcher import launch

    cfg = Cfg()
    fb = FakeBoard(cfg)
    fb.set_key(0, "*", True)
    frames = []
    fb.on_frame = lambda t, buf: frames.append(bytes(buf))
    rt, hw = hardware(cfg, fb)
    assert launch(cfg, hw, store_dir=str(tmp_path), stop=lambda: True) == "safe"
    assert sum(frames[-1][STATUS_A * 3:STATUS_A * 3 + 3]) > 0  # the dim blue sign


def test_no_event_lost_in_a_full_game_and_queues_never_overflow():
    case = RANDOM_GAMES[3]
    turns = legal_turns(case)
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script(game_script(turns)))
    assert dev.board_rows() == turns[-1]["expect"]["board"]
    assert dev.app.ring.lost == 0
    assert [p.overflows for p in dev.hw.pads] == [0, 0]


# ---- the scripted full game, secrecy and the power budget, on this layer -----------------


@pytest.mark.parametrize("k", [0, 9, 21, 33])
@pytest.mark.parametrize("board", [BOARD, "rpi4"])
def test_full_game_through_the_keypad_queues_matches_engine(k, board):
    case = RANDOM_GAMES[k]
    turns = legal_turns(case)
    dev = VirtualDevice(Cfg(board), mode="2p")
    dev.run(parse_script(game_script(turns)))
    want = turns[-1]["expect"]
    assert dev.board_rows() == want["board"]
    assert dev.result_name() == want["result"]
    assert dev.final_game().turns == len(turns)
    assert dev.clock.now > dev.clock.lead  # the game crossed supervisor.ticks_ms()'s 2**29 wrap


def _record(cfg, script, mark_after):
    dev = VirtualDevice(cfg, mode="2p")
    marks = []
    for i, line in enumerate(script):
        dev.run(parse_script(line))
        if i in mark_after:
            marks.append(dev.clock.elapsed())
    return dev, list(dev.frames), list(dev.cp.pwm), marks


def test_secrecy_frames_and_sounds_do_not_depend_on_pending_moves():
    cfg = Cfg()
    prefix = ["A move a1", "B move i9", "sync", "A move e5", "B move c7", "sync"]
    results = []
    for a_cell, b_cell in [("b2", "h8"), ("f3", "d6"), ("i1", "a9"), ("c8", "g2")]:
        script = prefix + ["A move " + a_cell, "B move " + b_cell, "wait 600"]
        dev, frames, pwm, marks = _record(cfg, script, {5, 6, 7, 8})
        t0, t1 = marks[0], marks[-1]
        assert any(d > 0 for t, f, d in pwm if t0 <= t <= t1)  # the clicks really sounded
        results.append(([f for f in frames if t0 <= f[0] <= t1], [p for p in pwm if p[0] >= t0]))
    for r in results[1:]:
        assert r == results[0]


def test_every_frame_within_the_current_budget_at_full_brightness():
    cfg = Cfg(BRIGHTNESS=1.0, CURRENT_BUDGET_MA=300)
    turns = legal_turns(RANDOM_GAMES[0])
    dev = VirtualDevice(cfg, mode="2p")
    dev.run(parse_script(game_script(turns)))
    share = led_share_ma(cfg)
    worst = 0
    for _, raw in dev.frames:
        ma = sum(raw) * cfg.MA_PER_CHANNEL / 255
        worst = max(worst, ma)
        assert ma <= share + 1e-9
    assert dev.app.disp.capped > 0 and worst > share * 0.8


# ---- buzzer: pwmio.PWMOut behind the machine.PWM-like interface ---------------------------


def test_buzzer_key_click_is_a_2_to_4_khz_pwm_tone_that_ends():
    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script("A 5\nwait 200"))
    on = [(t, f, d) for t, f, d in dev.cp.pwm if d > 0]
    assert on and all(2000 <= f <= 4000 for _, f, _ in on)
    assert dev.cp.pwm[-1][2] == 0  # silent again


def test_pwm_without_variable_frequency_would_be_refused():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    pwm = rt.pwmio.PWMOut(rt.board.MISO, frequency=2000, duty_cycle=0)
    with pytest.raises(AttributeError, match="variable_frequency"):
        pwm.frequency = 3000
    b = cp.Buzzer(rt.pwmio.PWMOut(rt.board.A0, frequency=2000, duty_cycle=0, variable_frequency=True))
    b.freq(3100)
    b.duty_u16(1000)
    assert (b.freq(), b.duty_u16()) == (3100, 1000)
    with pytest.raises(ValueError):
        b.duty_u16(70000)


# ---- time: supervisor.ticks_ms wraps at 2**29 ----------------------------------------------


@pytest.mark.parametrize("a,b,diff", [
    (5, (1 << 29) - 5, 10),  # a just after the wrap, b just before
    ((1 << 29) - 5, 5, -10),
    (1000, 400, 600),
    (0, (1 << 28), -(1 << 28)),
])
def test_ticks_diff_is_wrap_safe_at_2_pow_29(a, b, diff):
    c = cp.Clock(lambda: 0, lambda s: None)
    assert c.ticks_diff(a, b) == diff
    assert c.ticks_add(b, diff) == a


def test_ticks_add_wraps_and_every_value_stays_a_small_int():
    c = cp.Clock(lambda: 0, lambda s: None)
    t = (1 << 29) - 3
    assert c.ticks_add(t, 10) == 7
    assert c.ticks_add(7, -10) == t
    for x in (0, 1, (1 << 29) - 1):
        for y in (0, 1, (1 << 29) - 1):
            assert abs(c.ticks_diff(x, y)) <= 1 << 28
            assert ((x - y) + (1 << 28)) < (1 << 30)


def test_fake_supervisor_ticks_wrap_at_2_pow_29():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    rt.clock.now = rt.clock.lead - 1
    before = rt.ticks_ms()
    rt.clock.now += 2
    assert before == (1 << 29) - 1 and rt.ticks_ms() == 1


# ---- storage: CIRCUITPY read-only to the game unless boot.py remounted it --------------------


def test_read_only_circuitpy_plays_on_and_says_so(tmp_path, capsys):
    cfg = Cfg(STORAGE_DIR="/")
    rt = Runtime(cfg, FakeBoard(cfg), readonly=True)
    frames = []
    rt.fb.on_frame = lambda t, buf: frames.append((rt.clock.now, bytes(buf)))
    ticks = []
    res = cp.start(cfg, stop=lambda: len(ticks) > 50 or ticks.append(1), modules=rt.modules())
    out = capsys.readouterr().out
    assert "read-only to the game" in out and "hold 5 on pad A" in out
    assert res == "stopped"
    amber = [t for t, raw in frames if raw[STATUS_A * 3 + 1] > 0 and raw[STATUS_A * 3 + 2] == 0]
    assert amber and amber[0] < 100  # the sign comes first, at boot
    assert sum(frames[-1][1]) == 0  # and the strip is dark after the game stops


def test_writable_store_gives_no_read_only_notice(tmp_path, capsys):
    cfg = Cfg(STORAGE_DIR=str(tmp_path))
    rt = Runtime(cfg, FakeBoard(cfg))
    m = rt.modules()
    del m["storage"]  # a Raspberry Pi: no storage module, the directory is probed
    ticks = []
    assert cp.start(cfg, stop=lambda: len(ticks) > 5 or ticks.append(1), modules=m) == "stopped"
    assert "read-only" not in capsys.readouterr().out
    assert cp.writable(str(tmp_path)) and not cp.writable(str(tmp_path / "missing"))


def test_a_whole_game_on_read_only_storage_saves_nothing_and_plays_on(tmp_path, monkeypatch):
    # CircuitPython refuses writes to CIRCUITPY with OSError 30 (EROFS) while USB can write to it.
    import builtins
    import firmware.storage as storage

    tried = []

    def ro_open(path, mode="r", *a, **kw):
        if "w" in mode or "a" in mode:
            tried.append(path)
            raise OSError(30, "Read-only filesystem")
        return builtins.open(path, mode, *a, **kw)

    monkeypatch.setattr(storage, "open", ro_open, raising=False)
    assert storage.Store(str(tmp_path), "settings.json", {"brightness": 3}).save() is False
    case = RANDOM_GAMES[0]
    turns = legal_turns(case)
    dev = VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path))
    dev.run(parse_script(game_script(turns) + "\nwait 3000"))
    assert dev.result_name() == turns[-1]["expect"]["result"] != "ongoing"
    assert len(tried) >= 2 and list(tmp_path.iterdir()) == []  # the scores were tried, nothing written


@pytest.mark.parametrize("held,remounted", [(True, True), (False, False)])
def test_boot_py_remounts_writable_only_with_5_held(held, remounted):
    cfg = Cfg()
    rt = Runtime(cfg, FakeBoard(cfg))
    if held:
        rt.fb.set_key(0, cp.WRITE_KEY, True)
    rt.in_boot = True
    assert cp.boot(cfg, rt.board, rt.digitalio, rt.storage) is remounted
    assert rt.remounts == ([("/", False)] if remounted else [])
    assert rt.readonly is (not remounted)
    assert rt.claimed == {}  # boot.py released every pin it read


def test_boot_py_never_raises_on_a_bad_pin(capsys):
    cfg = Cfg(PAD_A={"part": "adafruit-1824", "rows": ("A1", "SCK", "D25", "D7"), "cols": ("A2", "A0", "D24")})
    rt = Runtime(cfg, FakeBoard(cfg))
    rt.in_boot = True
    assert cp.boot(cfg, rt.board, rt.digitalio, rt.storage) is False
    assert "no board.D7" in capsys.readouterr().out


def test_remount_outside_boot_py_is_refused_as_on_circuitpython():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    with pytest.raises(RuntimeError, match="Cannot remount"):
        rt.storage.remount("/", readonly=False)


def _run_file(path, rt, cfg, extra=None):
    mods = dict(extra or {})
    mods["board_config"] = cfg
    saved = {k: sys.modules.get(k) for k in mods}
    sys.modules.update(mods)
    try:
        with rt.installed():
            src = (ROOT / path).read_text()
            exec(compile(src, str(ROOT / path), "exec"), {"__name__": "__main__"})
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def test_boot_py_file_runs_on_the_fakes():
    cfg = Cfg()
    rt = Runtime(cfg, FakeBoard(cfg))
    rt.fb.set_key(0, cp.WRITE_KEY, True)
    rt.in_boot = True
    _run_file("circuitpython/boot.py", rt, cfg)
    assert rt.remounts == [("/", False)]


def test_code_py_file_starts_the_game_on_the_fakes(monkeypatch):
    import firmware.launcher as launcher

    cfg = Cfg()
    rt = Runtime(cfg, FakeBoard(cfg))
    seen = []
    real = launcher.launch

    def launch(cfg, hw, **kw):
        seen.append(hw)
        calls = []
        kw["stop"] = lambda: len(calls) > 3 or calls.append(1)  # a few real 10 ms ticks
        return real(cfg, hw, **kw)

    monkeypatch.setattr(launcher, "launch", launch)
    frames = []
    rt.fb.on_frame = lambda t, buf: frames.append(bytes(buf))
    _run_file("circuitpython/code.py", rt, cfg)
    assert seen and isinstance(seen[0].np, cp.Strip) and isinstance(seen[0].pads[0], cp.EventPad)
    assert frames and sum(frames[-1]) == 0


# ---- bad wiring gets one clear line -----------------------------------------------------------


@pytest.mark.parametrize("change,msg", [
    ({"LED_PIN": "D7"}, "LED_PIN = 'D7': this board has no board.D7"),
    ({"LED_PIN": 28}, "name pins as in their board module"),
    ({"BUZZER_PIN": "D13"}, "reserved on this board: the Feather's red LED"),
    ({"BUZZER_PIN": "A0"}, "A0 is used by BUZZER_PIN and PAD_A column 2"),   # firmware/boardcheck.py's words
    ({"COLOR_ORDER": "RGBW"}, "COLOR_ORDER"),
    ({"LED_COUNT": 81}, "LED_COUNT"),
])
def test_bad_board_fields_are_one_line_errors(change, msg):
    with pytest.raises(ValueError) as e:
        build(Cfg(**change))
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_start_reports_a_bad_board_and_keeps_the_repl(capsys):
    cfg = Cfg(LED_PIN="D7")
    rt = Runtime(cfg, FakeBoard(cfg))
    assert cp.start(cfg, stop=lambda: True, modules=rt.modules()) == "error"
    assert "cannot start: board_config.py cannot work: LED_PIN = 'D7'" in capsys.readouterr().out


def test_floating_input_is_an_error_in_the_fake():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    d = rt.digitalio.DigitalInOut(rt.board.A0)
    d.switch_to_input()
    with pytest.raises(FloatingRead):
        d.value


def test_board_pins_are_ones_the_board_module_has():
    for name in (BOARD, "rpi4"):
        cfg = boards.load(name)
        pins = [cfg.LED_PIN, cfg.BUZZER_PIN]
        for pad in (cfg.PAD_A, cfg.PAD_B):
            pins += list(pad.get("rows", ())) + list(pad.get("cols", ())) + list(pad.get("pins", ()))
        for p in pins:
            assert p in cfg.BOARD_PINS and p not in cfg.RESERVED_PINS, (name, p)


def test_entropy_is_from_urandom_and_a_small_int():
    rt, hw, _ = build(Cfg())
    vals = {hw.entropy() for _ in range(20)}
    assert len(vals) > 15 and all(0 <= v < (1 << 30) for v in vals)


def test_same_seed_same_game_as_on_the_pico():
    # The simulator's seeded entropy reaches the bots the same way on both hardware layers.
    rows = []
    for board in ("pico", BOARD):
        dev = VirtualDevice(boards.load(board), mode="demo", seed=7)
        dev.advance(20000)
        rows.append((dev.final_game().turns, dev.board_rows()))
    assert rows[0] == rows[1] and rows[0][0] > 0



# ---- the wiring tables of docs/boards.md are the board files' ------------------------------------


def _readme_row(label, after):
    text = (ROOT / "docs" / "boards.md").read_text()
    text = text[text.index(after):]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith(label):
            return cells[1]
    raise AssertionError("no docs/boards.md row %r after %r" % (label, after))


def test_readme_feather_and_pi_wiring_tables_match_the_board_files():
    from firmware.keypad import connector

    for board, after, name in ((BOARD, "## CircuitPython boards", lambda p: p),
                               ("rpi4", "## Raspberry Pi", lambda p: p[1:])):
        cfg = boards.load(board)
        for pad, label in (("PAD_A", "pad A"), ("PAD_B", "pad B")):
            want = [name(gpio) for _, gpio, _ in connector(cfg.KEYPAD_TYPE, getattr(cfg, pad))]
            row = _readme_row(label, after).split("(")[0].replace("GPIO", "")
            assert [x.strip() for x in row.split(",")] == want, (board, pad)
    assert "(`%s`" % boards.load(BOARD).LED_PIN in _readme_row("LED data", "## CircuitPython boards")
    assert "(`%s`" % boards.load(BOARD).BUZZER_PIN in _readme_row("buzzer", "## CircuitPython boards")
    assert _readme_row("LED data", "## Raspberry Pi").startswith("GPIO" + boards.load("rpi4").LED_PIN[1:] + " ")
    assert _readme_row("buzzer", "## Raspberry Pi").startswith("GPIO" + boards.load("rpi4").BUZZER_PIN[1:] + " ")


def test_micropython_runtime_is_refused_for_a_circuitpython_board():
    from tools.sim.device import Device

    with pytest.raises(ValueError, match="runs CircuitPython/Blinka.*--runtime cpython"):
        Device(board=BOARD, runtime="micropython")


# ---- the layer's hot paths allocate nothing (real MicroPython, heap locked) ------------------------

_HOT = """
import micropython
from firmware.hw_circuitpython import Strip, EventPad, Clock
from firmware.keypad import EventRing, DOWN


class Px:  # stands in for the C PixelBuf of CircuitPython: setitem with a small int, show()
    def __init__(self):
        self.b = bytearray(83)
        self.shows = 0

    def __len__(self):
        return 83

    def __setitem__(self, i, v):
        self.b[i] = v & 255

    def show(self):
        self.shows += 1


class FlatPx(Px):  # CircuitPython's C PixelBuf also takes n * 3 flat values for an n-pixel slice
    def __init__(self):
        Px.__init__(self)
        self.w = bytearray(249)

    def __setitem__(self, i, v):
        if isinstance(i, slice):
            self.w[i.start * 3:i.stop * 3] = v
        else:
            self.w[i * 3] = v >> 16
            self.w[i * 3 + 1] = (v >> 8) & 255
            self.w[i * 3 + 2] = v & 255

    def __getitem__(self, i):
        return (self.w[i * 3], self.w[i * 3 + 1], self.w[i * 3 + 2])


class Ev:
    def __init__(self):
        self.key_number = 0
        self.pressed = True


class Queue:  # keypad.EventQueue's get_into shape
    def __init__(self):
        self.k = bytearray((4, 4, 11))
        self.p = bytearray((1, 0, 1))
        self.i = 0
        self.overflowed = False

    def get_into(self, e):
        if self.i >= 3:
            return False
        e.key_number = self.k[self.i]
        e.pressed = self.p[self.i] == 1
        self.i += 1
        return True

    def clear(self):
        pass


class Scanner:
    def __init__(self):
        self.events = Queue()


st = Strip(Px())
for j in range(249):
    st.buf[j] = j
pad = EventPad(Scanner(), Ev(), "123456789*0#", 128)
ring = EventRing()
c = Clock(lambda: 0, None)
out = [0, 0, 0]


fst = Strip(FlatPx())
fst.buf[0:249] = st.buf


def hot(st, pad, ring, c, out):
    # Locals only: a new global would grow the module's dict (an allocation of the harness, not the layer).
    micropython.heap_lock()
    try:
        st.write()
        fst.write()
        pad.scan(ring)
        out[0] = 1 if pad.held("5") else 0
        out[1] = c.ticks_diff(3, 536870900)
        out[2] = c.ticks_add(536870900, 100)
    finally:
        micropython.heap_unlock()


hot(st, pad, ring, c, out)
print(st.px.shows, len(ring), ring.get(), ring.get(), ring.get(), out[0], out[1], out[2], st.px.b[1],
      fst.flat, st.flat, fst.px.shows, fst.px.w[3:6] == st.buf[3:6])
"""


@pytest.mark.needs_node
def test_strip_write_pad_scan_and_ticks_allocate_nothing_on_micropython():
    from tools import upy

    out = upy.run(_HOT, files=upy.project_files("engine", "firmware")).split()
    # one show; 3 events: DOWN 5, UP 5, DOWN # on pad B; # still held; ticks wrap at 2**29
    assert out == ["1", "3", str(128 | DOWN | 4), str(128 | 4), str(128 | DOWN | 11), "0", "15", "88", str(((3 << 16) | (4 << 8) | 5) & 255),
                   "True", "False", "1", "True"]


@pytest.mark.parametrize("board", [BOARD, "rpi4"])
def test_headless_simulator_plays_the_demo_game_the_same_on_this_layer(board):
    import subprocess

    outs = []
    for b in ("pico", board):
        r = subprocess.run([sys.executable, "-m", "tools.sim", "--headless", "--board", b, "--seed", "3",
                            "--script", str(ROOT / "docs" / "demo-game.txt")], capture_output=True, text=True,
                           cwd=str(ROOT), timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] and "result: " in outs[1]


# ---- the keypad fake behaves as CircuitPython 9's scanner (its debounce counters) --------------


def test_fake_keymatrix_debounces_like_circuitpython_9():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    b = rt.board
    km = rt.keypad.KeyMatrix((b.A1, b.SCK, b.D25, b.A3), (b.A2, b.A0, b.D24), interval=0.01, debounce_threshold=2)
    ev = rt.keypad.Event()
    k5 = 4  # key "5": row 2, column 2 of the 1824 (R2 = SCK, C2 = A0)
    rt.clock.now += 50  # released for a few scans: the counters settle at -threshold
    assert not km.events.get_into(ev)
    rt.fb.set_key(0, "5", True)
    rt.clock.now += 10  # one scan sees it: not yet
    assert not km.events.get_into(ev)
    rt.clock.now += 10  # the second agreeing scan: pressed, timestamped with supervisor ticks
    assert km.events.get_into(ev) and (ev.key_number, ev.pressed, ev.timestamp) == (k5, True, rt.ticks_ms())
    rt.fb.set_key(0, "5", False)
    rt.clock.now += 10
    rt.fb.set_key(0, "5", True)  # a one-scan glitch is no event
    rt.clock.now += 20
    assert not km.events.get_into(ev)
    rt.fb.set_key(0, "5", False)
    rt.clock.now += 20
    assert km.events.get_into(ev) and (ev.key_number, ev.released) == (k5, True)
    with pytest.raises(ValueError, match="in use"):
        rt.keypad.Keys((b.A1,), value_when_pressed=False)


def test_fake_keypad_reset_reports_a_held_key_and_the_queue_drops_when_full():
    rt = Runtime(Cfg(), FakeBoard(Cfg()))
    b = rt.board
    rt.fb.set_key(0, "1", True)
    km = rt.keypad.KeyMatrix((b.A1, b.SCK, b.D25, b.A3), (b.A2, b.A0, b.D24), max_events=2)
    ev = rt.keypad.Event()
    rt.clock.now += 100
    assert not km.events.get_into(ev)  # held at construction: no event (counters start at 0)
    km.reset()
    assert km.events.get_into(ev) and ev.pressed and ev.key_number == 0
    for k in "2369":
        rt.fb.set_key(0, k, True)
    rt.clock.now += 40
    assert len(km.events) == 2 and km.events.overflowed
