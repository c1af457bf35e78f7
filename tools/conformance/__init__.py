"""Runs or replays the shared conformance cases against the engine, on CPython or inside real MicroPython (`python -m tools.conformance`)."""
import argparse
import json
import sys
from pathlib import Path

from tools import ROOT
# The normative cases live in ../shared/conformance beside the checkout; a
# clone without it (a maker's) uses the copy in host_tests/conformance, which
# a test keeps identical to the source.
SHARED_CASES = ROOT.parent / "shared" / "conformance"
CASES_DIR = SHARED_CASES if SHARED_CASES.is_dir() else ROOT / "host_tests" / "conformance"
FIELDS = ("board", "eggs", "captures", "result", "sudden_death", "winning")

# What the guest runs: the same replay code as on CPython, fed the case files.
_GUEST = """
import json, micropython
from tools.conformance.replay import replay_all
out = []
for name in %r:
    with open(name) as f:
        out.append(replay_all(json.load(f), %s))
print(json.dumps(out))
"""


def load_cases(paths):
    """[(path, [case, ...]), ...]; exits with a clear message on a missing or malformed file."""
    loaded = []
    for p in paths:
        try:
            with open(p) as f:
                cases = json.load(f)
        except OSError as e:
            sys.exit("conformance: cannot read %s: %s" % (p, e.strerror))
        except ValueError as e:
            sys.exit("conformance: %s is not valid JSON: %s" % (p, e))
        if not isinstance(cases, list) or not all(isinstance(c, dict) and "turns" in c for c in cases):
            sys.exit("conformance: %s is not a list of cases (see shared/conformance/README.md)" % p)
        loaded.append((p, cases))
    return loaded


def replay_cpython(case_lists, heap_lock=False):
    from tools.conformance.replay import replay_all

    return [replay_all(cases) for _, cases in case_lists]


def replay_micropython(case_lists, heap_lock=False):
    """Replay inside the official MicroPython webassembly port (under Node).

    With heap_lock every legal play() runs under micropython.heap_lock(), so
    any allocation inside a turn fails the run.
    """
    from tools import upy

    files = upy.project_files("engine")
    files["tools/__init__.py"] = b""  # package markers only: the host-side modules are not for the guest
    files["tools/conformance/__init__.py"] = b""  # the guest needs the replay module only, not this CLI
    files["tools/conformance/replay.py"] = (ROOT / "tools" / "conformance" / "replay.py").read_bytes()
    names = []
    for k, (_, cases) in enumerate(case_lists):
        name = "cases%d.json" % k
        files[name] = json.dumps(cases).encode()
        names.append(name)
    locks = "micropython.heap_lock, micropython.heap_unlock" if heap_lock else ""
    out = upy.run(_GUEST % (names, locks), files=files, heapsize=32 * 1024 * 1024)
    return json.loads(out.strip().splitlines()[-1])


def compare(case, observed):
    """Failures of one case: [(turn number, field, expected, got)]."""
    failures = []
    turns = case["turns"]
    if len(observed) != len(turns):
        failures.append((0, "turns", len(turns), len(observed)))
    for n, (turn, got) in enumerate(zip(turns, observed), 1):
        exp = turn["expect"]
        if "error" in exp:
            if "error" not in got:
                failures.append((n, "error", "an error", "a legal turn"))
            continue
        if "error" in got:
            failures.append((n, "error", "a legal turn", got["error"]))
            continue
        for field in FIELDS:
            if field in exp and exp[field] != got.get(field):
                failures.append((n, field, exp[field], got.get(field)))
    return failures


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.conformance",
        description="Check the engine against conformance case files (shared/conformance/README.md).",
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, text in (
        ("run", "compare every turn with its `expect`; last line 'N passed, N failed'"),
        ("replay", "ignore `expect`; print a JSON array of {name, observed} per case"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("files", nargs="+", metavar="FILE", help="case files, e.g. ../shared/conformance/*.json or host_tests/conformance/*.json")
        p.add_argument("--micropython", action="store_true", help="run the engine inside real MicroPython (Node + official webassembly port)")
        p.add_argument("--heap-lock", action="store_true", help="with --micropython: hold micropython.heap_lock() around every legal play()")
    args = ap.parse_args(argv)
    case_lists = load_cases(args.files)
    replay = replay_micropython if args.micropython else replay_cpython
    try:
        results = replay(case_lists, heap_lock=args.heap_lock)
    except Exception as e:  # a broken runtime is reported, not a traceback
        if not args.micropython:
            raise
        sys.exit("conformance: MicroPython run failed: %s" % e)

    if args.cmd == "replay":
        flat = [r for rs in results for r in rs]
        json.dump(flat, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0

    passed = failed = 0
    for (path, cases), rs in zip(case_lists, results):
        for case, r in zip(cases, rs):
            fails = compare(case, r["observed"])
            if fails:
                failed += 1
                for n, field, exp, got in fails:
                    print("FAIL %s: case %s, turn %d, %s: expected %s, got %s" % (
                        path, case["name"], n, field, json.dumps(exp), json.dumps(got)))
            else:
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0

