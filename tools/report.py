"""Writes the generated pages (docs/performance.md, docs/strength.md): one section per measurement, each saying its command, commit, date and machine."""
import datetime
import json
import os
import platform
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "docs" / "performance.md"
STRENGTH = ROOT / "docs" / "strength.md"

_BEGIN = "<!-- section: %s -->"
_END = "<!-- end of section: %s -->"
_SECTION = re.compile(r"<!-- section: ([\w-]+) -->\n.*?<!-- end of section: \1 -->\n", re.S)


def _run(argv):
    try:
        r = subprocess.run(argv, cwd=str(ROOT), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def commit():
    """The checked-out commit (short hash), '+ uncommitted changes' when a tracked file that can change a
    measurement differs from it (pages and tests cannot)."""
    head = _run(["git", "rev-parse", "--short=10", "HEAD"]) or "unknown"
    changed = [line[3:] for line in _run(["git", "status", "--porcelain", "--untracked-files=no"]).splitlines()]
    if [p for p in changed if p and not p.endswith(".md") and not p.startswith("host_tests/")]:
        head += " + uncommitted changes"
    return head


def today():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _micropython_version():
    """The MicroPython webassembly port in use (installed npm package, else the pinned one) and the rp2 UF2."""
    pkg = "@micropython/micropython-webassembly-pyscript"
    version = None
    installed = ROOT / "tools" / "node" / "node_modules" / pkg / "package.json"
    try:
        version = json.loads(installed.read_text())["version"]
    except (OSError, ValueError, KeyError):
        try:
            version = json.loads((ROOT / "tools" / "node" / "package.json").read_text())["dependencies"][pkg] + " (pinned, not installed)"
        except (OSError, ValueError, KeyError):
            version = "unknown"
    return version


def machine():
    """One line naming what the figures were measured on."""
    node = _run(["node", "--version"]) or "not installed"
    uf2 = ""
    try:
        from tools.rp2040 import default_uf2
        found = default_uf2()
        if found is not None and Path(found).is_file():
            uf2 = ", emulated Pico firmware %s" % Path(found).name
    except Exception:  # noqa: BLE001 (a machine line never stops a report)
        pass
    return "%s, %d cores; Python %s; MicroPython %s (webassembly port)%s; Node %s" % (
        _cpu_model(), os.cpu_count() or 0, platform.python_version(), _micropython_version(), uf2, node)


def table(rows, head=("figure", "value")):
    """[(label, value)] -> markdown table lines."""
    out = ["| %s |" % " | ".join(head), "|%s" % (" --- |" * len(head))]
    for row in rows:
        out.append("| %s |" % " | ".join(str(c).replace("|", "\\|") for c in row))
    return out


def section(name, title, command, body_lines, when=None, where=None, at=None):
    """The text of one generated section: heading, provenance line, then the body."""
    return "\n".join([
        _BEGIN % name,
        "## %s" % title,
        "",
        "`%s` — commit %s, %s; %s." % (command, at or commit(), when or today(), where or machine()),
        "",
    ] + list(body_lines) + ["", _END % name, ""])


def sections(text):
    """{name: section text} of a generated page, in page order."""
    return {m.group(1): m.group(0) for m in _SECTION.finditer(text)}


def update(path, header, name, text, order=()):
    """Put section `name` (its full text) into the page at `path`, keeping every other section as it is.

    Sections named in `order` come first in that order, any others after them in the order they appear;
    `header` (the page's title and intro) is rewritten every time."""
    path = Path(path)
    old = sections(path.read_text(encoding="utf-8")) if path.exists() else {}
    old[name] = text
    names = [n for n in order if n in old] + [n for n in old if n not in order]
    page = header.rstrip("\n") + "\n\n" + "\n".join(old[n] for n in names)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path


PERFORMANCE_HEADER = """# Performance: speed and memory, as measured

For developers and the curious: every speed and memory figure of the project, written by
`.venv/bin/python -m tools.bench` (do not edit by hand: run it again). Each section says the command,
the commit and the machine it was measured on; `--only PARTS` rewrites only those sections.
What the figures mean and why they matter is explained in [bot.md](bot.md), [build.md](build.md)
and [DEVELOPERS.md](../DEVELOPERS.md#benchmarks-and-generated-pages).

- *fuel*: wasm instructions executed by the MicroPython interpreter (the webassembly port), counted
  exactly, so a figure is the same on every run and every machine; the `rp2040` section measures how
  much fuel one microsecond of a Pico is (`tools/upy/fuel.py` uses that ratio for every ms estimate).
- *emulated RP2040*: the official Pico firmware on rp2040js, timed by the chip's own clock: 200 MHz, as main.py
  sets it from the board file's `CPU_HZ` (firmware/cpufreq.py).
- *heap*: bytes in use on MicroPython's heap, measured on the official ports.
"""

STRENGTH_HEADER = """# Strength of the computer levels

For players, teachers and bot authors: how the computer's levels do against each other and against
simple baseline players, written by `.venv/bin/python -m tools.tournament --write-docs` (do not edit by
hand: run it again). Percentages carry 95% Wilson intervals; "of decided" leaves draws out. The
players are explained in [bot.md](bot.md); more games give narrower intervals.
"""


def write_bench_part(part, rows, order, path=None):
    """tools.bench: one part's figures become its section of docs/performance.md."""
    path = path or PERFORMANCE
    text = section(part, part, ".venv/bin/python -m tools.bench --only %s" % part, table(rows),
                   at=commit())
    return update(path, PERFORMANCE_HEADER, part, text, order)


def write_tournament(name, command, lines, title=None, path=None):
    """tools.tournament --write-docs: the printed tables become section `name` of docs/strength.md."""
    path = path or STRENGTH
    text = section(name, title or name, command, lines, at=commit())
    return update(path, STRENGTH_HEADER, name, text)
