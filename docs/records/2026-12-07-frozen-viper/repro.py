"""Rebuild the frozen Pico firmware with MicroPython's own mpy-tool.py (frozen armv6m code 2-byte aligned) and show what its viper code does on the emulated Pico, beside the firmware tools.firmware builds now."""
# Run from the repository root: PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-frozen-viper/repro.py
# (a firmware build, about 2 minutes the first time, into build/frozen-viper-repro/; then two emulated boots)
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import ROOT
from tools.firmware import builder
from tools.rp2040 import Pico
from tools.rp2040.probe import exec_fresh

# fictitious play's batch (engine/bot/viper.py) on a 2 x 2 game, three iterations, against the same loop as bytecode
CHECK = """
from engine.bot import evaluate, solve
from array import array
class W: pass
def game():
    w = W()
    w.m = array("i", [0] * 100)
    w.m[0] = 5; w.m[1] = -3; w.m[10] = -2; w.m[11] = 7
    w.racc = array("i", [0] * 10); w.cacc = array("i", [0] * 10); w.rcnt = array("i", [0] * 10)
    return w
def bytecode(w, stop):
    m = w.m; racc = w.racc; cacc = w.cacc; rcnt = w.rcnt
    i = 0; it = 0; gap = 0
    while it < stop:
        rcnt[i] += 1; q = i * 10; j = 0; lo = 0x3FFFFFFF
        for jj in range(2):
            x = cacc[jj] + m[q + jj]; cacc[jj] = x
            if x < lo: lo = x; j = jj
        q = j; hi = -0x3FFFFFFF
        for ii in range(2):
            x = racc[ii] + m[q]; racc[ii] = x
            if x > hi: hi = x; i = ii
            q += 10
        it += 1; gap = hi - lo
    return i, gap, list(rcnt[:2])
w = game()
s = solve._FS
s[0] = 0; s[1] = 0; s[2] = 3; s[3] = 2; s[4] = 2; s[5] = -1; s[6] = 0
g = solve._batch(w, s)
print("emitter", evaluate.EMITTER)
print("viper    row, gap, row counts:", s[0], g, list(w.rcnt[:2]))
print("bytecode row, gap, row counts:", *bytecode(game(), 3))
"""


def run(uf2):
    tmp = Path(tempfile.mkdtemp())
    try:
        with Pico(uf2=uf2, flash=tmp / "flash.img") as pico:
            pico.wait_frames(1)
            print(exec_fresh(pico, CHECK, 120).decode().strip())
    finally:
        shutil.rmtree(tmp)


def viper_addresses(elf):
    nm = shutil.which("arm-none-eabi-gcc")[:-3] + "nm"
    out = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True).stdout
    return [ln for ln in out.splitlines() if "fun_data_engine_bot_viper_" in ln and ln.split()[1] in "tT"]


def main():
    out = ROOT / "build" / "frozen-viper-repro"
    now = builder.build("pico")
    tree, _ = builder.unpack_tarball(builder.TARBALL, out)      # a copy of the source of our own
    tool = tree / "src" / "tools" / "mpy-tool.py"
    tool.write_text(tool.read_text().replace("MP_NATIVE_ARCH_ARMV6, MP_NATIVE_ARCH_ARMV6M,", "MP_NATIVE_ARCH_ARMV6,"))
    builder.align_thumb1 = lambda src: None                      # MicroPython's mpy-tool.py as released
    builder.thumb1_word_aligned = lambda src: True               # and the machine code frozen in anyway
    builder.check_machine_code = lambda elf: None
    old = builder.build("pico", micropython=str(tree / "src"), out_dir=out, picotool_src=tree / "picotool-src")
    for name, r in (("mpy-tool.py as released", old), ("tools.firmware now", now)):
        print("== %s: %s" % (name, r.uf2))
        for ln in viper_addresses(r.work / "build" / "firmware.elf"):
            a = int(ln.split()[0], 16)
            print("   %s  (address mod 4 = %d)" % (ln, a % 4))
        run(r.uf2.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
