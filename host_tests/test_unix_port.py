"""The engine on MicroPython's unix port, a 64-bit PC (tools/upy/unix.py): the bot's machine code, written for 32-bit boards, stands aside there, and every level plays the host's recorded moves."""
import json
import os
import subprocess

import pytest

from conftest import ROOT
from tools import botmoves

EVERY = 1  # every position of the golden record, each seed and level: 11,124 moves (seconds on a PC)


@pytest.fixture(scope="module")
def unix_micropython():
    from tools.upy import unix

    why = unix.problem()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the unix-port tests: " + why)
        pytest.skip(why)
    return unix.micropython()


GUEST = """
import json, sys
from engine import Game, square_name
from engine.bot import Bot, tables, evaluate
from engine.notation import load
pos = json.load(open(sys.argv[1]))
every = int(sys.argv[2])
print(evaluate.EMITTER)
g = Game()
for level in ("easy", "medium", "hard"):
    for seed in (1, 2, 3):
        out = []
        for k in range(0, len(pos), every):
            rows, eggs = pos[k]
            load(g, rows, eggs)
            tables._work = None  # a fresh Bot on fresh memory, as tools.botmoves plays
            out.append(square_name(Bot(level, seed).choose(g, 1 + ((k + seed) & 1))))
        print(level, seed, "".join(out))
"""


def test_every_level_plays_the_recorded_moves_on_a_64_bit_micropython(unix_micropython, tmp_path):
    # Before: the unix port compiled viper.py for x86-64, where a ptr32 load does not sign-extend (a negative
    # payoff read from an array("i") came back 2 ** 32 larger), and hard chose other cells than the host.
    pos = botmoves.positions()
    (tmp_path / "pos.json").write_text(json.dumps(pos))
    (tmp_path / "guest.py").write_text(GUEST)
    r = subprocess.run([str(unix_micropython), "-X", "heapsize=16M", str(tmp_path / "guest.py"), str(tmp_path / "pos.json"), str(EVERY)],
                       capture_output=True, text=True, timeout=900, cwd=str(ROOT),
                       env=dict(os.environ, MICROPYPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    rec = json.loads(botmoves.GOLDEN.read_text())
    ks = range(0, len(pos), EVERY)
    got = {}
    for line in lines[1:]:
        if line:
            level, seed, cells = line.split()
            got[level, int(seed)] = cells
    assert len(got) == 9
    differ = {}  # level and seed: moves that differ from the record, of len(ks)
    for (level, seed), cells in sorted(got.items()):
        want = "".join(rec["moves"][level][str(seed)][2 * k:2 * k + 2] for k in ks)
        differ["%s %d" % (level, seed)] = sum(cells[2 * i:2 * i + 2] != want[2 * i:2 * i + 2] for i in range(len(ks)))
    assert sum(differ.values()) == 0, (lines[0], differ, len(ks))
    assert lines[0] == "bytecode"  # viper.py refused this port's 64-bit words (evaluate fell back)


def test_the_machine_codes_word_check_tells_32_from_64_bits(unix_micropython):
    # viper.py's import check, run alone: 0 where a machine word is 32 bits (the RP2040, ESP32-S3), 2 ** 32 here.
    src = (ROOT / "engine" / "bot" / "viper.py").read_text()
    start = src.index("@micropython.viper\ndef _word")
    body = src[start:src.index("\n\n", start)]
    r = subprocess.run([str(unix_micropython), "-c", "import micropython\n" + body + "\nprint(_word())"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(2 ** 32)
