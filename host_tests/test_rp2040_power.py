"""Power cuts on the emulated Pico while the firmware writes scores and settings: after a reboot from the flash image they are the old or the new values, never lost or corrupt; hard reset keeps the flash."""
import json
import shutil

import pytest

from tools.rp2040 import Pico

pytestmark = pytest.mark.usefixtures("needs_uf2")

from firmware.app import SETTINGS_DEFAULTS, SCORE_DEFAULTS  # noqa: E402  (the same defaults the device uses)


def _values(score_2p, score_hard, **settings):
    scores = {k: list(v) for k, v in SCORE_DEFAULTS.items()}
    scores["2p"], scores["hard"] = score_2p, score_hard
    return {"scores": scores, "settings": dict(SETTINGS_DEFAULTS, **settings)}


OLD = _values([1, 2, 3], [2, 0, 1], brightness=2, seating=1)
NEW = _values([4, 2, 3], [2, 0, 5], brightness=4, seating=0)

# The firmware's own storage code (firmware/storage.py: temp file + rename),
# as the app calls it after a game (scores) and in the menu (settings).
_WRITE = """
from firmware.storage import Store
from firmware.app import SETTINGS_DEFAULTS, SCORE_DEFAULTS
s = Store('/', 'scores.json', SCORE_DEFAULTS)
s.data = %r
s.save()
t = Store('/', 'settings.json', SETTINGS_DEFAULTS)
t.data = %r
t.save()
print('@written')
"""
_READ = """
import json, os
from firmware.storage import Store
from firmware.app import SETTINGS_DEFAULTS, SCORE_DEFAULTS
print(json.dumps({"scores": Store('/', 'scores.json', SCORE_DEFAULTS).data,
                  "settings": Store('/', 'settings.json', SETTINGS_DEFAULTS).data,
                  "raw": [open(n).read() for n in ('scores.json', 'settings.json')],
                  "lib": sorted(os.listdir('/lib/firmware'))}))
"""


def _write(pico, values):
    return pico.exec(_WRITE % (values["scores"], values["settings"]))


def _read(pico):
    return json.loads(pico.exec(_READ).strip().splitlines()[-1])


@pytest.fixture(scope="module")
def old_image(rp2_image, tmp_path_factory):
    """The deployed image with OLD scores and settings on flash; also how many flash operations writing NEW takes."""
    d = tmp_path_factory.mktemp("rp2040-power")
    img = d / "old.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        _write(p, OLD)
        n0 = p.stats()["flash_ops"]
        probe = d / "probe.img"
        shutil.copy(img, probe)
    with Pico(flash=probe) as p:
        n0 = p.stats()["flash_ops"]
        _write(p, NEW)
        ops = p.stats()["flash_ops"] - n0
        assert _read(p)["scores"] == NEW["scores"]
    return img, ops


def test_writing_scores_and_settings_takes_several_flash_operations(old_image):
    _, ops = old_image
    # littlefs: data blocks of both temp files and metadata commits for each rename
    assert ops >= 4


# Cut points: operations spread over the whole write sequence (every one when
# there are at most MAX_POINTS), alternating how much of the interrupted
# operation reached the flash (none, half, all but the end).
MAX_POINTS = 9


def _points(ops):
    ks = sorted({round(i * (ops - 1) / (MAX_POINTS - 1)) for i in range(MAX_POINTS)}) if ops > MAX_POINTS else range(ops)
    return [(k, (0.0, 0.5, 0.9)[j % 3]) for j, k in enumerate(ks)]


def test_power_cut_at_every_flash_operation_keeps_old_or_new_values(old_image, tmp_path):
    img0, ops = old_image
    seen = []
    for k, frac in _points(ops):
        img = tmp_path / ("cut%d.img" % k)
        shutil.copy(img0, img)
        with Pico(flash=img) as p:
            p.exec("pass")                      # main.py interrupted: the REPL is ours
            p.arm_power_cut(k, frac)
            n = len(p.events())
            t = p.serial()
            try:
                t.enter_raw_repl(soft_reset=False)
                t.exec_raw_no_follow(_WRITE % (NEW["scores"], NEW["settings"]))
                cut = p.wait_event("cut", since=n, timeout=120)
            finally:
                t.close()
            p.power_cut()                       # process killed; the same image boots again
            got = _read(p)
        assert got["scores"] in (OLD["scores"], NEW["scores"]), (k, frac, got)
        assert got["settings"] in (OLD["settings"], NEW["settings"]), (k, frac, got)
        for raw in got["raw"]:
            json.loads(raw)                     # the files themselves are whole JSON, not defaults over garbage
        assert got["lib"], "the filesystem was lost (reformatted?) after a cut at op %d" % k
        seen.append((got["scores"] == NEW["scores"], got["settings"] == NEW["settings"], cut["op"]))
    # The cuts really landed inside the write: early ones keep the old values, late ones the new scores.
    assert seen[0][:2] == (False, False)
    assert any(s[0] for s in seen)


def test_hard_reset_keeps_the_flash_and_restarts_main_py(old_image, tmp_path):
    img = tmp_path / "reset.img"
    shutil.copy(old_image[0], img)
    with Pico(flash=img) as p:
        p.exec("f = open('/marker.txt', 'w'); f.write('kept'); f.close()")
        n = len(p.events())
        p.type_serial("import machine; machine.reset()\r")   # typed at the friendly REPL, no client connected
        ev = p.wait_event("reset", since=n, timeout=60)
        assert ev["reason"] == "watchdog"                    # MicroPython's machine.reset() on rp2
        p.wait_frames(2, since=p.stats()["frames"])          # main.py runs the game again
        assert p.exec("print(open('/marker.txt').read(), __import__('machine').reset_cause())").split() == ["kept", "3"]  # WDT_RESET
