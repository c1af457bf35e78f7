"""Measures every speed and memory figure of the project (engine, firmware, bot, web, CircuitPython, emulated Pico, memory) and writes them to docs/performance.md."""
import argparse
import importlib
import sys
import time

PARTS = ("engine", "firmware", "bot", "web", "circuitpython", "rp2040", "memory")


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.bench",
        description="Measure the project's budgets: wasm fuel on MicroPython (converted to RP2040 time by "
                    "the ratio the rp2040 part measures), CPython time, and heap on the official MicroPython "
                    "ports. Figures only, no pass/fail: compare them with the targets printed beside them. "
                    "Each part's figures replace its section of docs/performance.md as soon as it is done.",
    )
    ap.add_argument("--only", default=",".join(PARTS),
                    help="comma-separated parts to measure (default: %(default)s)")
    ap.add_argument("--no-docs", action="store_true",
                    help="only print the figures; leave docs/performance.md as it is")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error("unknown part %s; choose from %s" % (", ".join(unknown), ", ".join(PARTS)))
    for part in parts:
        t0 = time.time()
        print("== %s" % part, flush=True)
        module = importlib.import_module("tools.bench." + part)
        rows = []
        for label, value in module.figures():
            print("%-64s %s" % (label, value), flush=True)
            rows.append((label, value))
        print("   (%s measured in %.0f s)" % (part, time.time() - t0), flush=True)
        if not args.no_docs:
            from tools import report
            print("   written to %s" % report.write_bench_part(part, rows, PARTS), flush=True)
    return 0
