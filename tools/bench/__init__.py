"""Prints every speed and memory figure of the project (engine, firmware frames, computer opponent) from one run."""
import argparse
import importlib
import sys
import time

PARTS = ("engine", "firmware", "bot", "web", "circuitpython", "rp2040", "memory")


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.bench",
        description="Measure the project's budgets: wasm fuel on MicroPython (150 fuel ≈ 1 µs of an "
                    "RP2040 at 125 MHz), CPython time, and heap on the official MicroPython port. "
                    "Figures only, no pass/fail: compare them with the targets printed beside them.",
    )
    ap.add_argument("--only", default=",".join(PARTS),
                    help="comma-separated parts to measure (default: %(default)s)")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error("unknown part %s; choose from %s" % (", ".join(unknown), ", ".join(PARTS)))
    for part in parts:
        t0 = time.time()
        print("== %s" % part, flush=True)
        module = importlib.import_module("tools.bench." + part)
        for label, value in module.figures():
            print("%-64s %s" % (label, value), flush=True)
        print("   (%s measured in %.0f s)" % (part, time.time() - t0), flush=True)
    return 0

