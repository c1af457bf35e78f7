"""A stack overflow on core 1 at each clock: is MicroPython's 512-byte recovery margin there? (emulated Pico, official firmware)."""
# PYTHONPATH=. .venv/bin/python docs/records/2026-12-07-core1-margin/repro.py
# A job that recurses until core 1's stack runs out, posted to firmware.thinker.Thinker (2048-byte stack, the
# rp2 port's least) with the thread started at each clock. Prints the clock, what the job's end raised on
# core 0, and the deepest the emulator saw core 1's stack go (bytes below where its thread began).
import pathlib
import tempfile

from tools.rp2040 import Pico, deployed_image
from tools.rp2040.probe import exec_fresh

GUEST = """
import machine, time, _thread, sys, micropython
machine.freq(%d)
from firmware.thinker import Thinker
class Deep:
    def step(self, units):
        micropython.heap_lock()
        try:
            return self.down(units)
        finally:
            micropython.heap_unlock()
    def down(self, n):
        return 1 if n == 0 else self.down(n - 1) + 0
t = Thinker(_thread, stack=2048)
j = t.post(Deep(), 200)
t0 = time.ticks_ms()
try:
    c = -1
    while c < 0 and time.ticks_diff(time.ticks_ms(), t0) < 5000:
        c = t.answer(j)
        time.sleep_ms(1)
    print("answered", c)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
"""

img = deployed_image(pathlib.Path(tempfile.mkdtemp()) / "deployed.img")
for hz in (100000000, 125000000, 150000000, 200000000):
    with Pico(flash=img) as p:
        p.wait_frames(2)
        out = exec_fresh(p, GUEST % hz).decode().strip().splitlines()[-1]
        print("%d MHz: %s; deepest core-1 stack %d B of 2048" % (hz // 1000000, out, p.stats()["core1"]["stack_used"]))
