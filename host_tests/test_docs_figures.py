"""A measured figure has one home: the generated pages (docs/performance.md, docs/strength.md). Pages and code comments that restate one by hand fail here."""
import ast
import io
import re
import tokenize

import pytest

from conftest import ROOT

# A number with a unit that only a measurement gives: time on the device, heap, wasm fuel, a win rate.
FIGURE = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?)(\s?(ms|µs|us|KB|KiB|kB|M fuel|fuel|M)|%)(?![\w/])")
# A bound or an aim, not a measurement: "≤ 1 s", "at least 90%", "within 20 ms".
TARGET = re.compile(r"(≤|≥|<=|>=|<|>|at most|at least|up to|within|under|over|below|above|aim|target)\s*[~≈]?\s*$", re.I)
# Specification and design facts that look like figures: the 95% of a Wilson interval, the firmware's
# 10 ms tick, the RP2040's 16 KB flash cache, a key script's `wait 300` (ms), the exploiter's ±7% noise.
FACTS = {"95%", "10 ms", "16 KB", "50%", "±7%"}

# Pages a reader sees, less the generated ones and the two whose subject is history
# (CHANGELOG.md: what changed, with the figures of the day; bot-experiments.md: research rounds).
GENERATED_OR_HISTORY = {"performance.md", "strength.md", "bot-experiments.md", "CHANGELOG.md", "RULES.md"}


def figures_in(text):
    """[(line number, figure, line)] of measured-looking figures that are no target and no fact."""
    out = []
    fence = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            fence = not fence
            continue
        for m in FIGURE.finditer(line):
            fig = m.group(0)
            if fig in FACTS or fig.replace(" ", "") in FACTS:
                continue
            if TARGET.search(line[:m.start()][-14:]):
                continue
            out.append((n, fig, line.strip()))
    return out


def test_the_scan_tells_figures_from_targets_and_facts():
    text = ("hard's worst move takes 898 ms (≈ 134.6 M fuel)\nit must stay ≤ 1000 ms and at least 90%\n"
            "95% Wilson intervals; a 10 ms tick; the heap is 21.5 KB\nexploiter wins 46.1%\n")
    assert [f for _, f, _ in figures_in(text)] == ["898 ms", "134.6 M fuel", "21.5 KB", "46.1%"]
    assert figures_in("125 MHz, 500 mA, 330 Ω, 1000 µF, 8 MB, 2 MiB, 3×4, a1..i9, GP28") == []


def pages():
    found = [ROOT / "README.md", ROOT / "DEVELOPERS.md"] + sorted((ROOT / "docs").glob("*.md"))
    return [p for p in found if p.name not in GENERATED_OR_HISTORY]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_restates_a_measured_figure(page):
    found = ["line %d: %s   (%s)" % (n, f, line[:120]) for n, f, line in figures_in(page.read_text(encoding="utf-8"))]
    assert found == [], ("%s restates measured figures: link the section of docs/performance.md or "
                         "docs/strength.md that measures them instead (or, for a bound or a spec, say so: "
                         "'at most', '≤'):\n" % page.name) + "\n".join(found)


# ---------------------------------------------------------------- code comments and docstrings

CODE_DIRS = ("engine", "firmware", "boards", "circuitpython", "tools")
# In code, design constants with units are everywhere (a 10 ms tick, a 4 KiB flash block, a 25% PWM
# duty): a fuel count is always a measurement, anything else only in a comment or docstring that says
# it was measured.
FUEL_UNITS = {"M fuel", "fuel", "M"}

def code_blocks(path):
    """[[(line number, text)]] of one Python file: a trailing comment, a run of comment-only lines, a docstring."""
    src = path.read_text(encoding="utf-8")
    blocks = []
    run = False  # the last block is a run of comment-only lines that this line may continue
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            n = tok.start[0]
            alone = tok.line.strip().startswith("#")
            if alone and run and blocks[-1][-1][0] == n - 1:
                blocks[-1].append((n, tok.string))
            else:
                blocks.append([(n, tok.string)])
            run = alone
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body:
                first = node.body[0].lineno
                blocks.append([(first + i, line) for i, line in enumerate(doc.splitlines())])
    return blocks


def code_figures(path):
    """[(line number, figure, text)] of the measured figures in one file's comments and docstrings."""
    found = []
    for block in code_blocks(path):
        measured = any("measur" in text.lower() for _, text in block)
        for n, text in block:
            for _, fig, _ in figures_in(text):
                unit = re.sub(r"^[\d,.]+\s?", "", fig)
                if unit in FUEL_UNITS or measured:
                    found.append((n, fig, text.strip()))
    return found


def code_files():
    for d in CODE_DIRS:
        for p in sorted((ROOT / d).rglob("*.py")):
            if "node_modules" not in p.parts:
                yield p
    yield ROOT / "main.py"


def test_code_scan_sees_comments_and_docstrings(tmp_path):
    f = tmp_path / "x.py"
    f.write_text('"""Measured 21.5 KB."""\nX = 1  # a 10 ms tick, 4 KiB blocks, 1029 % 4\n'
                 'Y = 2  # hard takes 134.6 M fuel\n'
                 '# measured: the frame\n# takes 2.5 ms\n'
                 'def f():\n    """60 ms hold, by design."""\n', encoding="utf-8")
    assert [(n, fig) for n, fig, _ in code_figures(f)] == [(3, "134.6 M fuel"), (5, "2.5 ms"), (1, "21.5 KB")]


def test_no_code_comment_restates_a_measured_figure():
    found = []
    for p in code_files():
        rel = str(p.relative_to(ROOT))
        found += ["  %s:%d: %s   (%s)" % (rel, n, fig, text[:100]) for n, fig, text in code_figures(p)]
    assert found == [], (
        "comments restate measured figures: say why and name the command that measures them "
        "(python -m tools.bench --only PART, docs/performance.md) instead:\n" + "\n".join(found))
