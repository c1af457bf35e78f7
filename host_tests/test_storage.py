"""Settings and scores on flash (firmware/storage.py): corrupt or missing files give defaults, writes are atomic, a full flash loses nothing but the save."""
import json
import os

from firmware.settings import SCORE_DEFAULTS
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
