"""The docs stay true: every command in every page runs as written, every link and picture resolves, the test command is what CI runs, the rules copy matches the source."""
import os
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT, SHARED


def pages():
    """Every page a reader gets: README.md, DEVELOPERS.md, CHANGELOG.md and docs/*.md."""
    found = [ROOT / "README.md", ROOT / "DEVELOPERS.md", ROOT / "CHANGELOG.md"] + sorted((ROOT / "docs").glob("*.md"))
    return [p for p in found if p.exists()]


PAGES = pages()
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _rel(path):
    return str(path.relative_to(ROOT))


def test_the_pages_are_there():
    names = {_rel(p) for p in PAGES}
    assert {"README.md", "DEVELOPERS.md", "CHANGELOG.md", "docs/play.md", "docs/build.md", "docs/boards.md",
            "docs/classroom.md", "docs/bot.md", "docs/emulators.md", "docs/performance.md",
            "docs/bot-experiments.md", "docs/RULES.md"} <= names


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "RULES.md"], ids=_rel)
def test_every_page_says_who_it_is_for(page):
    """The first paragraph after the title names its reader ("For players: ...")."""
    if page.name in ("README.md",):
        pytest.skip("the landing page is for everyone: its table sends each reader on")
    lines = [l for l in page.read_text(encoding="utf-8").splitlines() if l.strip()]
    assert lines[0].startswith("# ")
    assert re.match(r"For [a-z]", lines[1]), "%s: the line after the title should say who the page is for" % _rel(page)


# ---------------------------------------------------------------- links and pictures

def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page):
    out = set()
    fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            out.add(slug(line.lstrip("#")))
    return out


def links(text):
    """[(target, anchor)] of every Markdown link and picture, code spans and blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        path, _, anchor = target.partition("#")
        out.append((path, anchor))
    return out


def test_slug_and_link_extraction():
    assert slug("Wiring (Raspberry Pi Pico)") == "wiring-raspberry-pi-pico"
    assert slug("The `tools.sim` contract") == "the-toolssim-contract"
    assert slug("ESP32-S3") == "esp32-s3"
    assert links("see [a](b.md#c), ![p](d.png) and `[x](nothing.md)`\n```\n[y](z.md)\n```\n") == \
        [("b.md", "c"), ("d.png", "")]


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_and_picture_resolves(page):
    bad = []
    for path, anchor in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", path):
            continue  # http(s), mailto: outside the repository
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            bad.append("%s: no such file" % path)
        elif anchor and target.suffix == ".md" and anchor not in anchors(target):
            bad.append("%s#%s: no such heading" % (path, anchor))
    assert bad == [], _rel(page)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_relative_paths_in_code_exist_in_a_clone(page):
    """A `../x` written as code names a folder of the checkout too (only ../shared, the optional folder beside
    the checkout, may be missing): docs/RULES.md once pointed at a `../conformance/` no clone has."""
    bad = []
    for path in re.findall(r"`(\.\./[^`\s]*)`", page.read_text(encoding="utf-8")):
        if not path.startswith("../shared") and not (page.parent / path).exists():
            bad.append(path)
    assert bad == [], _rel(page)


def test_the_readme_links_every_page():
    linked = {os.path.normpath(p) for p, _ in links(README)}
    missing = [_rel(p) for p in PAGES if p.name != "README.md" and _rel(p) not in linked]
    assert missing == [], "README.md should send its readers to every page"


def test_ci_runs_the_readme_test_command():
    assert "./wts test" in README and "./wts play" in README
    lines = [l.strip() for l in (ROOT / ".ci" / "run").read_text().splitlines()
             if l.strip() and not l.startswith("#")]
    assert lines[-1] == "exec ./wts test"


@pytest.mark.skipif(not (SHARED / "rules").is_dir(), reason="shared/rules is not beside this checkout")
@pytest.mark.parametrize("name", ["RULES.md", "original-nl.txt"])
def test_rules_copy_matches_the_normative_text(name):
    want = (SHARED / "rules" / name).read_bytes()
    # The one difference: the copy links the conformance cases where a clone keeps them.
    old, new = b"`../conformance/`", b"[host_tests/conformance/](../host_tests/conformance/)"
    if name == "RULES.md" and old in want:
        want = want.replace(old, new)
    assert (ROOT / "docs" / name).read_bytes() == want


@pytest.mark.skipif(not (SHARED / "conformance").is_dir(), reason="shared/conformance is not beside this checkout")
@pytest.mark.parametrize("name", ["rules.json", "random-games.json", "README.md"])
def test_conformance_copy_matches_the_shared_cases(name):
    assert (ROOT / "host_tests" / "conformance" / name).read_bytes() == (SHARED / "conformance" / name).read_bytes()


# ---------------------------------------------------------------- every command runs as written

# The programs a command may start with. Bare `python`/`python3` are not among them: stock
# Debian/Ubuntu have no `python`, and `python3` lacks the project's packages; commands run as
# `./wts ...` or `.venv/bin/python -m ...`.
PROGRAMS = ("./wts", ".venv/bin/python", ".venv/bin/mpremote", "mpremote", "sudo", "cp", "git")
# Example values for the placeholders (capitals), so those commands run too.
PLACEHOLDERS = {"MODE": "2p", "NAME": "pico", "N": "4711"}
OUTPUT_FLAGS = ("--gif", "--png", "--out", "--frames")
# Tools that need hardware, take minutes, or serve until stopped: checked with --help.
SLOW = ("tools.deploy", "tools.bench", "tools.tournament", "tools.upy.vboard", "tools.upy.unix", "tools.rp2040", "tools.botserver",
        "tools.blunders", "esptool", "tools.firmware", "tools.tournament.outsiders.why", "tools.tournament.gain")


def page_commands(text):
    """[(line number, command, raw line)] of a page: shell blocks line by line (comments dropped), and
    inline code spans that start with a program or with `python`."""
    out, fence, prose = [], None, []
    for n, line in enumerate(text.splitlines(), 1):
        st = line.strip()
        if st.startswith("```"):
            fence = None if fence is not None else st[3:]
            prose.append((n, ""))
            continue
        if fence is not None:
            if fence in ("sh", "bash", "console"):
                cmd = re.split(r"\s#", " " + st, maxsplit=1)[0].strip()
                if cmd:
                    out.append((n, cmd, st))
            prose.append((n, ""))
        else:
            prose.append((n, line))
    body = "\n".join(l for _, l in prose)
    for m in re.finditer(r"`([^`]+)`", body):
        span = " ".join(m.group(1).split())
        first = span.split()[0]
        if first in PROGRAMS + ("python", "python3") and " " in span:
            out.append((body.count("\n", 0, m.start()) + 1, span, span))
    return sorted(out)


def all_commands():
    return [(_rel(p), n, c, raw) for p in PAGES for n, c, raw in page_commands(p.read_text(encoding="utf-8"))]


COMMANDS = all_commands()


def plan(cmd, tmp):
    """How the test runs one command: (argv or shell string, why not as written) or (None, reason to skip)."""
    words = shlex.split(cmd)
    words = [PLACEHOLDERS.get(w, w) for w in words]
    if words[0] in ("sudo", "mpremote", ".venv/bin/mpremote", "git"):
        return None, "needs root, hardware or the network"
    if words[0] == "cp" or "myboard" in words:
        return None, "needs the copied board file: test_sim_boards.py runs these in a copy of the checkout"
    if words[:2] == ["./wts", "test"] or words[:2] == ["./wts", "setup"]:
        return None, "is this test run (CI runs ./wts test)"
    if words[0] == "./wts":
        return words + ["--help"], "interactive: checked with --help"
    if words[:2] == [".venv/bin/python", "-m"] and words[2] == "pytest":
        return None, "is part of this test run"
    assert words[:2] == [".venv/bin/python", "-m"], cmd
    tool, args = words[2], words[3:]
    if tool == "tools.sim" and "--headless" not in args or "serve" in args:
        return words + ["--help"], "interactive or a server: checked with --help"
    if tool in SLOW and "--manifest" not in args and "|" not in cmd and "<" not in cmd:  # fed from a file: runs
        return words + ["--help"], "needs hardware or takes minutes: checked with --help"
    # Outputs go to the test's folder, never over the checked-in files.
    for i, w in enumerate(args):
        if i and args[i - 1] in OUTPUT_FLAGS + (">",):
            args[i] = str(tmp / os.path.basename(w))
    if tool == "tools.render" and args and args[0] in ("wiring", "keypad") and "--out" not in args:
        args += ["--out", str(tmp / ("%s.png" % args[0]))]
    words[3:] = args
    if any(ch in cmd for ch in "*|<>"):
        return " ".join(shlex.quote(w) if "*" not in w and w not in ("|", "<", ">") else w for w in words), "shell"
    return words, None


def test_commands_start_with_wts_or_the_venv():
    assert len(COMMANDS) >= 40
    bare = ["%s line %d: %s" % (p, n, c) for p, n, c, _ in COMMANDS if c.split()[0] not in PROGRAMS]
    assert bare == [], "write ./wts ... or .venv/bin/python -m ...:\n" + "\n".join(bare)


def test_command_extraction_sees_blocks_spans_and_comments():
    text = ("Run `.venv/bin/python -m tools.sim\n--help` now, not `python -m x`.\n```sh\n./wts play   # plays\n"
            "# a comment\n```\n```python\nx = 1  # not a command\n```\n")
    got = [(n, c) for n, c, _ in page_commands(text)]
    assert got == [(1, ".venv/bin/python -m tools.sim --help"), (2, "python -m x"), (4, "./wts play")]


def test_a_redirected_output_goes_to_the_test_folder(tmp_path):
    run, why = plan(".venv/bin/python -m tools.deploy --manifest > package.json", tmp_path)
    assert why == "shell" and run.endswith("> " + str(tmp_path / "package.json"))


def test_every_tool_named_in_the_pages_explains_itself():
    tools = sorted({m for p in PAGES for m in re.findall(r"python -m (tools(?:\.\w+)+)", p.read_text(encoding="utf-8"))})
    assert {"tools.sim", "tools.deploy", "tools.render", "tools.tournament", "tools.bench", "tools.conformance",
            "tools.web", "tools.rp2040", "tools.blunders"} <= set(tools)
    for t in tools:
        out = subprocess.run([sys.executable, "-m", t, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "usage: python -m " + t in out.stdout, t


@pytest.fixture(scope="module")
def node_state():
    from conftest import _node_ready
    return _node_ready()


@pytest.mark.parametrize("page,line,cmd,raw", COMMANDS, ids=["%s:%d" % (p, n) for p, n, _, _ in COMMANDS])
def test_every_command_runs(page, line, cmd, raw, tmp_path, node_state):
    if cmd.split()[0] not in PROGRAMS:
        pytest.fail("%s line %d: %s starts with a program a fresh clone does not have" % (page, line, cmd))
    run, why = plan(cmd, tmp_path)
    if run is None:
        pytest.skip("%s line %d %s" % (page, line, why))
    if "--micropython" in cmd or "--runtime micropython" in cmd:
        if node_state and not os.environ.get("CI"):
            pytest.skip(node_state)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"))
    r = subprocess.run(run, shell=isinstance(run, str), cwd=str(ROOT), capture_output=True, text=True,
                       timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, "%s line %d: %s\n%s%s" % (page, line, cmd, r.stdout[-2000:], r.stderr[-2000:])
    # A quoted output in the command's comment ("67 passed, 0 failed") must be what it prints.
    for want in re.findall(r'#.*?"([^"]+)"', raw) if why in (None, "shell") else ():
        assert want in r.stdout + r.stderr, "%s line %d promises %r" % (page, line, want)
