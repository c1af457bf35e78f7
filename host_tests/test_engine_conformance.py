"""The shared conformance cases (our perft files), on CPython case by case and on real MicroPython with the heap locked."""
import json

import pytest

from conftest import CONFORMANCE
from tools.conformance import compare, load_cases, replay_micropython
from tools.conformance.replay import replay_case

FILES = sorted(CONFORMANCE.glob("*.json"))
CASES = [(f.name, c) for f in FILES for c in json.loads(f.read_text())]


def test_shared_cases_exist():
    assert len(FILES) >= 2 and len(CASES) >= 60


@pytest.mark.parametrize("fname,case", CASES, ids=["%s:%s" % (f, c["name"]) for f, c in CASES])
def test_case_on_cpython(fname, case):
    observed = replay_case(case)["observed"]
    assert compare(case, observed) == []


@pytest.mark.needs_node
def test_all_cases_on_micropython_with_heap_locked_turns():
    """Every legal play() runs under micropython.heap_lock(): any allocation in a turn raises MemoryError."""
    case_lists = load_cases([str(f) for f in FILES])
    results = replay_micropython(case_lists, heap_lock=True)
    failures = []
    for (_, cases), rs in zip(case_lists, results):
        assert len(rs) == len(cases)
        for case, r in zip(cases, rs):
            failures += [(case["name"],) + f for f in compare(case, r["observed"])]
    assert failures == []


def test_runner_reports_failures(tmp_path, capsys):
    """The runner is not a rubber stamp: a wrong expectation fails with case, turn, field, expected and got."""
    from tools.conformance import main

    case = json.loads((CONFORMANCE / "rules.json").read_text())[0]
    case["turns"][0]["expect"]["result"] = "black"
    f = tmp_path / "bad.json"
    f.write_text(json.dumps([case]))
    assert main(["run", str(f)]) == 1
    out = capsys.readouterr().out
    assert 'turn 1, result: expected "black", got "ongoing"' in out
    assert out.strip().splitlines()[-1] == "0 passed, 1 failed"
