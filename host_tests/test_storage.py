"""Settings and scores on flash (firmware/storage.py): corrupt or missing files give defaults, writes are atomic, a full flash loses nothing but the save."""
import json
import os

import pytest

from firmware.modes import MODE_NAMES
from firmware.settings import SCORE_DEFAULTS, SETTINGS_DEFAULTS, setting_ok
from firmware.storage import Store, append_log, write_atomic
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg, RANDOM_GAMES, play_case


def test_corrupt_and_missing_score_files_give_defaults(tmp_path):
    (tmp_path / "scores.json").write_bytes(b"\x00\xffnot json{")
    (tmp_path / "settings.json").write_text('{"brightness": "loud", "seating": 0}')
    dev = VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path))
    assert dev.app.scores.data == SCORE_DEFAULTS
    assert dev.app.settings.data["brightness"] == 3  # wrong type: default
    assert dev.app.entries[1].rotated is False  # valid field kept
    play_case(RANDOM_GAMES[4], runtime_device=dev)  # black wins
    dev.advance(12000)
    saved = json.loads((tmp_path / "scores.json").read_text())
    assert saved["2p"] == [1, 0, 0]
    assert not os.path.exists(tmp_path / "scores.json.tmp")


def test_missing_store_dir_files(tmp_path):
    dev = VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path / "nowhere"))
    assert dev.app.scores.data == SCORE_DEFAULTS
    dev.advance(200)  # saving fails quietly, the game runs


def test_write_atomic_replaces_whole_files_or_nothing(tmp_path, monkeypatch):
    path = str(tmp_path / "s.json")
    assert write_atomic(path, "old")
    assert write_atomic(path, "new") and open(path).read() == "new"
    assert not os.path.exists(path + ".tmp")

    real_rename = os.rename

    def refuse_over(a, b):  # a filesystem that will not rename over an existing file
        if os.path.exists(b):
            raise OSError("exists")
        real_rename(a, b)

    monkeypatch.setattr(os, "rename", refuse_over)
    assert write_atomic(path, "newer") and open(path).read() == "newer"
    monkeypatch.setattr(os, "rename", real_rename)
    assert not write_atomic(str(tmp_path / "no" / "dir.json"), "x")  # refused: False, no exception


def test_store_and_log_share_the_atomic_write(tmp_path, monkeypatch):
    from firmware import storage

    calls = []
    real = storage.write_atomic
    monkeypatch.setattr(storage, "write_atomic", lambda p, t: calls.append(p) or real(p, t))
    Store(str(tmp_path), "x.json", {"a": 1}).save()
    append_log(str(tmp_path), "e.log", "boom\n")
    assert [os.path.basename(p) for p in calls] == ["x.json", "e.log"]


def test_log_keeps_its_last_bytes(tmp_path):
    for i in range(100):
        append_log(str(tmp_path), "e.log", "line %03d\n" % i, keep=90)
    text = (tmp_path / "e.log").read_text()
    assert len(text) == 90 and text.endswith("line 099\n")


# ---- stored state checked by meaning (issue 30) ---------------------------------------------------------

def _played_2p(tmp_path):
    """A 2-player device on tmp_path's files that plays RANDOM_GAMES[4] (black wins) to its score picture."""
    dev = VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path))
    play_case(RANDOM_GAMES[4], runtime_device=dev)
    dev.advance(12000)  # the win, then the score picture
    return dev


@pytest.mark.parametrize("bad", [["a", 0, 0], [None, 0, 0], [1.5, 0, 0], [-1, 0, 0], [True, 0, 0], [1, 2],
                                 [1, 2, 3, 4], "3-0", {"b": 1}, [1 << 40, 0, 0]])
def test_a_tally_that_means_nothing_falls_back_and_the_others_are_kept(tmp_path, bad):
    # Before: ["a",0,0] and [null,0,0] raised TypeError when the game ended, [1.5,0,0] when the
    # score picture was drawn (the type check compared the list, not what is in it).
    (tmp_path / "scores.json").write_text(json.dumps({"2p": bad, "hard": [4, 5, 6], "easy": [1, 0, None]}))
    settings = b'{"brightness": 1, "seating": 0, "mode": "hard", "volume": 1}'
    (tmp_path / "settings.json").write_bytes(settings)
    dev = _played_2p(tmp_path)
    saved = json.loads((tmp_path / "scores.json").read_text())
    assert saved == {"2p": [1, 0, 0], "easy": [0, 0, 0], "medium": [0, 0, 0], "hard": [4, 5, 6]}
    assert dev.app.disp.brightness == 0.05 and dev.app.entries[1].rotated is False and dev.app.sound.volume == 1
    assert json.loads((tmp_path / "settings.json").read_text()) == dict(json.loads(settings), mode="2p")
    assert not (tmp_path / "error.log").exists()


@pytest.mark.parametrize("name,bad", [("mode", "bogus"), ("mode", "attract"), ("mode", 3), ("brightness", 6),
                                      ("brightness", -1), ("brightness", 2.0), ("brightness", True), ("volume", 4),
                                      ("volume", "2"), ("seating", 2), ("seating", None), ("seating", [1])])
def test_a_setting_that_means_nothing_falls_back_and_the_others_are_kept(tmp_path, name, bad):
    # Before: {"mode": "bogus"} raised ValueError at the next # in attract mode (the board went dark
    # after five of them); an out-of-range step was kept and skipped only where the app happened to check.
    good = {"brightness": 1, "seating": 0, "mode": "hard", "volume": 1}
    stored = dict(good, **{name: bad})
    (tmp_path / "settings.json").write_text(json.dumps(stored))
    dev = VirtualDevice(Cfg(), mode="attract", store_dir=str(tmp_path))
    want = dict(good, **{name: SETTINGS_DEFAULTS[name]})
    assert dev.app.settings.data == want
    dev.advance(500)
    dev.tap(0, "#")  # attract mode: # starts the last mode played
    dev.advance(500)
    assert dev.app.mode == MODE_NAMES.index(want["mode"])
    assert not (tmp_path / "error.log").exists()


def test_the_volume_steps_are_the_sounds_volumes():
    from firmware.settings import setting_ok
    from firmware.sound import VOLUMES

    assert [v for v in range(-1, 9) if setting_ok("volume", v)] == list(range(len(VOLUMES)))


@pytest.mark.parametrize("raw", [b"[" * 200000, b"{" * 100000, b'{"brightness": 1, "mode": "\xff\xfe"}',
                                 b"\xef\xbb\xbf{}", b'{"brightness": 1' + b" " * 3000000 + b"}", b"",
                                 b'["brightness", 1]', b"null", b'{"brightness": 1, "brightness": 9}'])
def test_a_damaged_settings_file_gives_defaults_and_touches_nothing_else(tmp_path, raw):
    (tmp_path / "settings.json").write_bytes(raw)
    scores = b'{"2p": [3, 2, 1]}'
    (tmp_path / "scores.json").write_bytes(scores)
    (tmp_path / "error.log").write_bytes(b"old \xff log\n")
    st = Store(str(tmp_path), "settings.json", SETTINGS_DEFAULTS, setting_ok)
    assert st.data == SETTINGS_DEFAULTS
    assert (tmp_path / "settings.json").read_bytes() == raw  # reading never writes
    assert (tmp_path / "scores.json").read_bytes() == scores
    assert (tmp_path / "error.log").read_bytes() == b"old \xff log\n"


def test_a_file_bigger_than_any_this_device_writes_is_not_read_whole(tmp_path, monkeypatch):
    # A stored file is a few dozen bytes; a huge one (a full flash, a student's experiment) must not fill
    # the heap: at most MAX_BYTES + 1 are read, and it counts as damaged.
    from firmware import storage

    (tmp_path / "settings.json").write_bytes(b'{"brightness": 1' + b" " * 1000000 + b"}")
    reads = []
    real_open = open

    class Counting:
        def __init__(self, f):
            self.f = f

        def read(self, n=-1):
            data = self.f.read(n)
            reads.append(len(data))
            return data

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

    monkeypatch.setattr(storage, "open", lambda p, m="r": Counting(real_open(p, m)), raising=False)
    st = Store(str(tmp_path), "settings.json", SETTINGS_DEFAULTS, setting_ok)
    assert st.data == SETTINGS_DEFAULTS
    assert sum(reads) <= storage.MAX_BYTES + 1


def test_a_huge_error_log_is_trimmed_without_reading_it_whole(tmp_path, monkeypatch):
    from firmware import storage

    (tmp_path / "e.log").write_bytes(b"x" * 3000000 + b"\xff tail\n")
    append_log(str(tmp_path), "e.log", "boom\n", keep=100)
    text = (tmp_path / "e.log").read_bytes()
    assert len(text) == 100 and text.endswith(b"\xff tail\nboom\n")


NASTY = {
    "scores": [b'{"2p": ["a", 0, 0], "easy": [null, 0, 0], "medium": [1.5, 0, 0], "hard": [7, 8, 9]}',
               b'{"2p": [16777216, 0, 0], "easy": [true, 0, 0], "medium": [1, 2], "hard": [0, 0, 1]}'],
    "settings": [b'{"mode": "bogus", "brightness": 9, "volume": 1, "seating": 0}',
                 b'{"mode": "easy", "brightness": true, "volume": 4, "seating": [1]}',
                 b"[" * 3000, b"\xff\xfe{}", b'{"brightness": 1' + b" " * 5000 + b"}", b"{" * 800 + b"}" * 800,
                 # Damaged text MicroPython's json.loads took (',' and ':' read as spaces, ']' closing '{', a key
                 # without a value dropped): a device read seating 0 from the first where CPython gave the defaults.
                 b'{"seating"0}', b'{"brightness" 1 "seating" 0}', b'{"seating": 0,}', b'{"seating": 0]',
                 b'{,"seating": 0}', b'{"seating":: 0}', b'{"volume": 1, "seating"}', b'{"seating": 0, "volume": NaN}'],
}


@pytest.mark.needs_node
def test_the_device_port_reads_damaged_files_as_cpython_does(tmp_path):
    # The same checks on real MicroPython (the webassembly port): its json, str and file objects.
    from firmware.settings import score_ok
    from tools import upy

    cases = [("settings.json", raw) for raw in NASTY["settings"]] + [("scores.json", raw) for raw in NASTY["scores"]]
    files = upy.project_files("engine", "firmware")
    for i, (name, raw) in enumerate(cases):
        files["case%d/%s" % (i, name)] = raw
    code = ("import json\nfrom firmware.storage import Store\n"
            "from firmware.settings import SETTINGS_DEFAULTS, SCORE_DEFAULTS, setting_ok, score_ok\n"
            "for i, name in enumerate(%r):\n"
            "    d, ok = (SETTINGS_DEFAULTS, setting_ok) if name == 'settings.json' else (SCORE_DEFAULTS, score_ok)\n"
            "    print(json.dumps(Store('case%%d' %% i, name, d, ok).data))\n" % ([n for n, _ in cases],))
    got = [json.loads(line) for line in upy.run(code, files=files).splitlines()]
    for (name, raw), data in zip(cases, got):
        d, ok = (SETTINGS_DEFAULTS, setting_ok) if name == "settings.json" else (SCORE_DEFAULTS, score_ok)
        (tmp_path / name).write_bytes(raw)
        assert data == Store(str(tmp_path), name, d, ok).data, raw[:60]
    assert got[0] == {"mode": "2p", "brightness": 3, "volume": 1, "seating": 0}
    assert got[len(NASTY["settings"]) - 8:len(NASTY["settings"])] == [SETTINGS_DEFAULTS] * 8  # the damaged text
    assert got[-2] == {"2p": [0, 0, 0], "easy": [0, 0, 0], "medium": [0, 0, 0], "hard": [7, 8, 9]}


def _strict(raw):
    # The grammar's answer (RFC 8259), from CPython's parser: NaN and Infinity are no JSON; None: nested too deep here.
    def no_constants(name):
        raise ValueError(name)

    try:
        json.loads(raw.decode(), parse_constant=no_constants)
        return True
    except RecursionError:
        return None
    except ValueError:
        return False


JSON_TEXTS = [b'{"seating"0}', b'{"a":1,}', b"[1 2]", b'{"a"}', b'{"a":1]', b'["a":1]', b'"\\u00e9"', b"-0.5e+3", b"01",
              b"1.", b".5", b"-", b"1e", b'"\\x"', b'"\\u12g4"', b' {"a": [1, 2, {"b": null}]} ', b"{}", b"[]", b"[[]]",
              b'{"a":{}}', b"tru", b"true false", b'""', b'"\x1f"', b"NaN", b"[Infinity]", b"{} {}", b"", b" ", b"[,1]",
              b'{"a":1,,"b":2}', b"[1,]", b'"\\ud800"', b'{"a" : 1 , "b" : [ ] }', b"\t[\r\n]\n"]


def test_json_ok_is_the_json_grammar():
    # firmware.storage.json_ok checks the syntax before json.loads, as CPython's parser does (MicroPython's takes far
    # more: test_the_device_port_reads_damaged_files_as_cpython_does). Compared on crafted texts, every text the
    # device writes, and many short random texts from JSON's own characters.
    import random

    from firmware.storage import MAX_DEPTH, json_ok

    texts = list(JSON_TEXTS)
    for v in (SETTINGS_DEFAULTS, SCORE_DEFAULTS, [1.5e10, -0.0, "x\u00e9\n\"", None, True, {}]):
        texts += [json.dumps(v).encode(), json.dumps(v, indent=2).encode(), json.dumps(v, ensure_ascii=False).encode()]
    rng = random.Random(30)
    chars = b'{}[]:,"\\ 0123456789-+.eEtruefalsnl\n\tu\x01'
    texts += [bytes(rng.choice(chars) for _ in range(rng.randrange(14))) for _ in range(20000)]
    wrong = [t for t in texts if _strict(t) is not None and json_ok(t) != _strict(t)]
    assert wrong == [], wrong[:10]
    assert json_ok(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) and not json_ok(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))


def test_a_board_built_side_by_side_starts_side_by_side(tmp_path):
    # Before: with a store folder, the settings default "seating": 1 overrode the board file's PAD_B_ROTATED = False:
    # a new board (or one whose settings.json was damaged) read pad B turned although it was mounted upright.
    cfg = Cfg(PAD_B_ROTATED=False)
    assert VirtualDevice(cfg, mode="2p", store_dir=str(tmp_path)).app.entries[1].rotated is False
    (tmp_path / "settings.json").write_bytes(b'{"seating"0')  # damaged: the board's seating again
    assert VirtualDevice(cfg, mode="2p", store_dir=str(tmp_path)).app.entries[1].rotated is False
    (tmp_path / "settings.json").write_text('{"seating": 1}')  # a player's choice (menu key 9) still wins
    assert VirtualDevice(cfg, mode="2p", store_dir=str(tmp_path)).app.entries[1].rotated is True
    (tmp_path / "settings.json").unlink()
    assert VirtualDevice(Cfg(), mode="2p", store_dir=str(tmp_path)).app.entries[1].rotated is True
