"""Tests for tools.upy: real MicroPython under Node — output, tracebacks, heap_lock, imports, sessions."""
import re

import pytest

import tools.upy as upy

needs_node = pytest.mark.needs_node


@needs_node
def test_output_round_trips_exactly():
    text = "héllo\n\ttabs  and  spaces\n" + "x" * 5000
    out = upy.run("import sys\nsys.stdout.write(%r)\nprint()\nprint(1, 2, sep='|', end='!')" % text)
    assert out == text + "\n1|2!"


@needs_node
def test_it_is_really_micropython():
    out = upy.run("import sys\nprint(sys.implementation.name, sys.implementation.version[:2] >= (1, 22))")
    assert out == "micropython True\n"


@needs_node
def test_guest_exception_raises_with_traceback_and_prior_stdout():
    code = "print('before')\ndef inner():\n    raise KeyError('deep')\ninner()\n"
    with pytest.raises(upy.MicroPythonError) as ei:
        upy.run(code)
    err = ei.value
    assert err.stdout == "before\n"
    assert "Traceback (most recent call last):" in err.traceback
    assert "line 3, in inner" in err.traceback
    assert "KeyError: deep" in err.traceback


@needs_node
def test_heap_lock_makes_allocation_fail():
    code = (
        "import micropython\n"
        "buf = bytearray(8)\n"
        "micropython.heap_lock()\n"
        "try:\n"
        "    buf[0] = 7\n"          # no allocation: must work while locked
        "    x = [1, 2, 3]\n"       # allocation: must fail while locked
        "    r = 'allocated'\n"
        "except MemoryError:\n"
        "    r = 'MemoryError'\n"
        "micropython.heap_unlock()\n"
        "print(r, buf[0])\n"
    )
    assert upy.run(code) == "MemoryError 7\n"


@needs_node
def test_files_are_importable_as_packages():
    files = {
        "pkg/__init__.py": b"from pkg.sub import VALUE\n",
        "pkg/sub.py": "VALUE = 'sub-ok'\n",  # str is accepted too
        "lib/helper.py": b"def twice(x):\n    return 2 * x\n",
    }
    out = upy.run("import pkg, helper\nprint(pkg.VALUE, helper.twice(21))", files=files)
    assert out == "sub-ok 42\n"


@needs_node
def test_session_keeps_state_put_and_reset():
    with upy.Session(files={"m.py": b"N = 1\n"}) as s:
        s.exec("import m\ncount = 0")
        for _ in range(200):  # many calls on one process: this is what Session is for
            s.exec("count += 1")
        assert s.exec("print(count, m.N)") == "200 1\n"
        s.put("m2.py", b"N = 2\n")
        assert s.exec("import m2\nprint(m2.N)") == "2\n"
        with pytest.raises(upy.MicroPythonError):
            s.exec("undefined_name")
        assert s.exec("print(count)") == "200\n"  # an error does not lose the session
        s.reset()
        assert s.exec("print('count' in globals())\nimport m, m2\nprint(m.N + m2.N)") == "False\n3\n"


@needs_node
def test_heapsize_sets_the_initial_gc_heap_and_garbage_is_freed_between_calls():
    # Measured facts of the pyscript build (see tools/upy/__init__.py): the
    # first heap area is `heapsize`; the GC reclaims garbage only between
    # exec() calls, and the heap grows in new areas rather than failing.
    info = "import micropython\nmicropython.mem_info()\n"
    for size in (32 * 1024, 96 * 1024):
        total = int(re.search(r"GC: total: (\d+)", upy.run(info, heapsize=size)).group(1))
        assert size * 0.97 <= total <= size * 1.03  # allocation-table overhead
    with upy.Session(heapsize=32 * 1024) as s:
        s.exec("import gc\nfor i in range(300):\n    junk = bytearray(1000)\njunk = None")
        assert int(s.exec("gc.collect()\nprint(gc.mem_alloc())")) < 8 * 1024


@needs_node
def test_runaway_guest_is_killed_by_timeout():
    with upy.Session(timeout=30) as s:
        with pytest.raises(upy.UpyHostError):
            s.exec("while True:\n    pass", timeout=1.0)


def test_bad_input_is_refused_before_node_starts():
    with pytest.raises(ValueError):
        upy.Session(files={"../escape.py": b""})
    with pytest.raises(TypeError):
        upy.Session(files={"a.py": 3})
    with pytest.raises(ValueError):
        upy.Session(heapsize=10)


def test_project_files_collects_py_files(tmp_path):
    files = upy.project_files("tools/upy")
    assert "tools/upy/__init__.py" in files
    assert all(p.endswith(".py") and isinstance(b, bytes) for p, b in files.items())
    assert not any("__pycache__" in p for p in files)
    with pytest.raises(ValueError):
        upy.project_files("no_such_dir_here")
    with pytest.raises(ValueError):
        upy.project_files("../..")


@needs_node
def test_project_files_upload_and_import():
    files = upy.project_files("tools/upy")
    out = upy.run("import os\nprint(sorted(os.listdir('tools/upy'))[:1])", files=files)
    assert out.startswith("['__init__.py'")
