"""Tests for tools.upy.fuel: per-mark wasm instruction counts from one deterministic MicroPython run."""
import pytest

from tools.upy import MicroPythonError, UpyHostError
from tools.upy.fuel import measure

LOOPS = """
def work(n):
    s = 0
    for i in range(n):
        s += i * 3
    return s
print('@@FUEL start')
work(100)
print('@@FUEL n100')
work(200)
print('@@FUEL n200')
work(400)
print('@@FUEL n400')
print('done', work(10))
"""


def test_marks_come_in_order_and_stdout_keeps_only_real_output():
    out, marks = measure(LOOPS)
    assert out == "done 135\n"
    assert [label for label, _ in marks] == ["start", "n100", "n200", "n400"]
    fuels = [f for _, f in marks]
    assert fuels[0] > 0 and fuels == sorted(fuels)


def test_same_code_gives_the_same_numbers():
    assert measure(LOOPS) == measure(LOOPS)


def test_cost_is_linear_in_iterations():
    _, marks = measure(LOOPS)
    f = dict(marks)
    c100 = f["n100"] - f["start"]
    c200 = f["n200"] - f["n100"]
    c400 = f["n400"] - f["n200"]
    per_iter = (c400 - c200) / 200.0          # the fixed call + mark overhead cancels
    assert per_iter > 20                        # a loop step is dozens of wasm instructions, not zero
    assert abs((c200 - c100) / 100.0 - per_iter) <= 0.02 * per_iter
    assert abs(c400 - c100 - 300 * per_iter) <= 0.02 * c400


def test_files_import_and_guest_errors_carry_tracebacks():
    files = {"pkg/__init__.py": b"def f(x):\n    return x + 1\n"}
    out, marks = measure("import pkg\nprint(pkg.f(1))\nprint('@@FUEL x')", files=files)
    assert out == "2\n" and [m[0] for m in marks] == ["x"]
    with pytest.raises(MicroPythonError) as ei:
        measure("print('seen')\n\nraise ValueError('boom')\n")
    assert "line 3" in ei.value.traceback and "ValueError: boom" in ei.value.traceback
    assert ei.value.stdout == "seen\n"


def test_runaway_guest_hits_the_fuel_budget():
    with pytest.raises(UpyHostError):
        measure("while True:\n    pass\n", budget=50_000_000)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError):
        measure(b"print(1)")
    with pytest.raises(ValueError):
        measure("print(1)", heapsize=1000)
    with pytest.raises(ValueError):
        measure("print(1)", files={"__fuel_main__.py": b""})
