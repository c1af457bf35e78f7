"""Stored state fed anything (issue 30): arbitrary bytes and arbitrary JSON in every file the simulator's state folder holds (the firmware's own files), then a whole game: it starts, ends and is scored, a value that means nothing falls back to its default, the rest is kept, no other file is touched."""
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.modes import MODE_NAMES, SCORED
from firmware.settings import BRIGHTNESS_LEVELS
from firmware.sound import VOLUMES
from firmware.storage import MAX_BYTES
from tools.sim.device import Device
from tools.sim.state import state_dir
from firmware_helpers import RANDOM_GAMES, game_script

# The meaning of each stored value, stated here independently of firmware/settings.py.
SETTINGS = {"brightness": 3, "seating": 1, "mode": "2p", "volume": 2}
MEANS = {
    "brightness": lambda v: type(v) is int and 0 <= v < len(BRIGHTNESS_LEVELS),
    "volume": lambda v: type(v) is int and 0 <= v < len(VOLUMES),
    "seating": lambda v: v in (0, 1) and type(v) is int,
    "mode": lambda v: v in ("2p", "easy", "medium", "hard"),
}


def tally_ok(v):
    return type(v) is list and len(v) == 3 and all(type(n) is int and 0 <= n < 1 << 24 for n in v)


def parsed(raw):
    """What a file's bytes hold as a JSON object, or None (too big for a stored file, not UTF-8, not JSON, not an object)."""
    if raw is None or len(raw) > MAX_BYTES:
        return None
    def no_constants(name):  # NaN and Infinity are no JSON (CPython's parser takes them, MicroPython's does not)
        raise ValueError(name)

    try:
        got = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
    except (ValueError, RecursionError):
        return None
    return got if isinstance(got, dict) else None


def expected(raw_settings, raw_scores):
    s = parsed(raw_settings) or {}
    c = parsed(raw_scores) or {}
    want_s = {k: s[k] if k in s and MEANS[k](s[k]) else d for k, d in SETTINGS.items()}
    want_c = {k: c[k] if k in c and tally_ok(c[k]) else [0, 0, 0] for k in SCORED}
    return want_s, want_c


scalars = (st.none() | st.booleans() | st.integers(-3, 8) | st.integers(-(1 << 70), 1 << 70) | st.floats()
           | st.text(max_size=6) | st.sampled_from(MODE_NAMES + ("bogus", "")))
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
                      max_leaves=10)
tallies = st.lists(st.integers(-2, 40) | st.integers(1 << 23, 1 << 25) | scalars, min_size=2, max_size=4)
near_settings = st.fixed_dictionaries({}, optional={k: values for k in SETTINGS})
near_scores = st.fixed_dictionaries({}, optional={k: tallies | values for k in SCORED + ("attract", "x")})
deep = st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)


def dumps(v):
    return json.dumps(v).encode()


def content(near):
    return st.one_of(
        st.none(),  # no file
        st.binary(max_size=120),
        values.map(dumps),
        near.map(dumps),
        near.map(lambda d: dumps(d)[:-1]),  # cut short
        near.map(lambda d: dumps(d).replace(b'"', b'"\xff', 1)),  # one byte that is no UTF-8
        near.map(lambda d: dumps(d) + b" " * MAX_BYTES),  # bigger than any stored file
        deep.map(str.encode),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow, HealthCheck.data_too_large])
@given(raw_settings=content(near_settings), raw_scores=content(near_scores),
       raw_log=st.none() | st.binary(max_size=3000))
def test_any_stored_bytes_still_give_a_whole_game_and_touch_nothing_else(tmp_path_factory, raw_settings, raw_scores,
                                                                         raw_log):
    folder = state_dir({"XDG_STATE_HOME": str(tmp_path_factory.mktemp("state")), "HOME": "/nonexistent"})
    written = {}
    for name, raw in (("settings.json", raw_settings), ("scores.json", raw_scores), ("error.log", raw_log)):
        if raw is not None:
            with open(folder + "/" + name, "wb") as f:
                f.write(raw)
            written[name] = raw
    want_s, want_c = expected(raw_settings, raw_scores)

    dev = Device(board="pico", mode="2p", seed=0, store_dir=folder, keep_frames=False)
    app = dev.app  # (the CPython runtime's own App)
    # The values in use are the stored ones that mean something, the defaults for the rest ...
    assert app.settings.data == dict(want_s, mode="2p")
    assert app.scores.data == want_c
    assert app.disp.brightness == BRIGHTNESS_LEVELS[want_s["brightness"]]
    assert app.sound.volume == want_s["volume"] and app.entries[1].rotated is bool(want_s["seating"])
    # ... and a whole game is played, won and scored.
    case = RANDOM_GAMES[4]
    dev.run_script(game_script([t for t in case["turns"] if "error" not in t["expect"]]))
    dev.advance(12000)
    assert dev.result_name() == "black"
    want_c["2p"] = [want_c["2p"][0] + 1] + want_c["2p"][1:]
    with open(folder + "/scores.json", "rb") as f:
        assert json.loads(f.read()) == want_c
    with open(folder + "/settings.json", "rb") as f:
        assert json.loads(f.read()) == dict(want_s, mode="2p")
    # Nothing else: the log as it was (no crash), no temp or other file left behind.
    import os

    names = set(os.listdir(folder))
    assert names == set(written) | {"settings.json", "scores.json"}
    if raw_log is not None:
        with open(folder + "/error.log", "rb") as f:
            assert f.read() == raw_log
