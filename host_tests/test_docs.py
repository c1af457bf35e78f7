"""The README stays true: its pictures and links exist, its test command is what CI runs, the rules copy matches the source."""
import re

import pytest

from conftest import ROOT, SHARED

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_links_and_pictures_exist():
    targets = re.findall(r"\]\(([^)#\s]+)\)", README)
    assert len(targets) >= 6
    missing = [t for t in targets if not t.startswith("http") and not (ROOT / t).exists()]
    assert missing == []


def test_ci_runs_the_readme_test_command():
    assert "./wts test" in README and "./wts play" in README
    lines = [l.strip() for l in (ROOT / ".ci" / "run").read_text().splitlines()
             if l.strip() and not l.startswith("#")]
    assert lines[-1] == "exec ./wts test"


@pytest.mark.skipif(not (SHARED / "rules").is_dir(), reason="shared/rules is not beside this checkout")
@pytest.mark.parametrize("name", ["RULES.md", "original-nl.txt"])
def test_rules_copy_matches_the_normative_text(name):
    assert (ROOT / "docs" / name).read_bytes() == (SHARED / "rules" / name).read_bytes()


def test_every_tool_in_the_readme_explains_itself():
    import subprocess
    import sys

    tools = sorted(set(re.findall(r"python -m tools\.(\w+)", README)))
    assert {"sim", "deploy", "render", "tournament", "bench", "conformance"} <= set(tools)
    for t in tools:
        out = subprocess.run([sys.executable, "-m", "tools." + t, "--help"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and "usage: python -m tools." + t in out.stdout, t


@pytest.mark.skipif(not (SHARED / "conformance").is_dir(), reason="shared/conformance is not beside this checkout")
@pytest.mark.parametrize("name", ["rules.json", "random-games.json", "README.md"])
def test_conformance_copy_matches_the_shared_cases(name):
    assert (ROOT / "host_tests" / "conformance" / name).read_bytes() == (SHARED / "conformance" / name).read_bytes()


# ---------------------------------------------------------------- every README command runs as written

import os  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

# The programs a README command may start with. Bare `python`/`python3` are not
# among them: stock Debian/Ubuntu have no `python`, and `python3` lacks the
# project's packages; commands run as `./wts ...` or `.venv/bin/python -m ...`.
PROGRAMS = ("./wts", ".venv/bin/python", ".venv/bin/mpremote", "mpremote", "sudo", "cp", "git")
# Example values for the README's placeholders (capitals), so those commands run too.
PLACEHOLDERS = {"MODE": "2p", "NAME": "pico", "N": "4711"}
OUTPUT_FLAGS = ("--gif", "--png", "--out", "--frames")


def readme_commands(text=README):
    """[(line number, command)] from the README: shell blocks line by line (comments dropped), and inline
    code spans that start with a program or with `python`."""
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


def plan(cmd, tmp):
    """How the test runs one README command: (argv or shell string, why not as written) or (None, reason to skip)."""
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
    assert words[:2] == [".venv/bin/python", "-m"], cmd
    tool, args = words[2], words[3:]
    if tool == "tools.sim" and "--headless" not in args or "serve" in args:
        return words + ["--help"], "interactive or a server: checked with --help"
    # Hardware, minutes of work, or a server that runs until stopped (the emulated Pico, the virtual board).
    if tool in ("tools.deploy", "tools.bench", "tools.tournament", "tools.vboard", "tools.upy.vboard", "tools.rp2040",
                "tools.botserver", "esptool") \
            and "--manifest" not in args and "|" not in cmd and "<" not in cmd:   # fed from a file: runs as written
        return words + ["--help"], "needs hardware or takes minutes: checked with --help"
    # Outputs go to the test's folder, never over the checked-in pictures.
    for i, w in enumerate(args):
        if i and args[i - 1] in OUTPUT_FLAGS:
            args[i] = str(tmp / os.path.basename(w))
    if tool == "tools.render" and args and args[0] in ("wiring", "keypad") and "--out" not in args:
        args += ["--out", str(tmp / ("%s.png" % args[0]))]
    words[3:] = args
    if any(ch in cmd for ch in "*|<>"):
        return " ".join(shlex.quote(w) if "*" not in w and w not in ("|", "<", ">") else w for w in words), "shell"
    return words, None


def test_readme_commands_start_with_wts_or_the_venv():
    cmds = readme_commands()
    assert len(cmds) >= 15
    bare = ["line %d: %s" % (n, c) for n, c, _ in cmds if c.split()[0] not in PROGRAMS]
    assert bare == [], "write ./wts ... or .venv/bin/python -m ...:\n" + "\n".join(bare)


def test_readme_command_extraction_sees_blocks_spans_and_comments():
    text = ("Run `.venv/bin/python -m tools.sim\n--help` now, not `python -m x`.\n```sh\n./wts play   # plays\n"
            "# a comment\n```\n```python\nx = 1  # not a command\n```\n")
    got = [(n, c) for n, c, _ in readme_commands(text)]
    assert got == [(1, ".venv/bin/python -m tools.sim --help"), (2, "python -m x"), (4, "./wts play")]


@pytest.fixture(scope="module")
def node_state():
    from conftest import _node_ready
    return _node_ready()


@pytest.mark.parametrize("line,cmd,raw", readme_commands(), ids=["line%d" % n for n, _, _ in readme_commands()])
def test_readme_command_runs(line, cmd, raw, tmp_path, node_state):
    if cmd.split()[0] not in PROGRAMS:
        pytest.fail("line %d: %s starts with a program a fresh clone does not have" % (line, cmd))
    run, why = plan(cmd, tmp_path)
    if run is None:
        pytest.skip("line %d %s" % (line, why))
    if "--micropython" in cmd or "--runtime micropython" in cmd:
        if node_state and not os.environ.get("CI"):
            pytest.skip(node_state)
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"))
    r = subprocess.run(run, shell=isinstance(run, str), cwd=str(ROOT), capture_output=True, text=True,
                       timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, "README line %d: %s\n%s%s" % (line, cmd, r.stdout[-2000:], r.stderr[-2000:])
    # A quoted output in the command's comment ("67 passed, 0 failed") must be what it prints.
    for want in re.findall(r'#.*?"([^"]+)"', raw):
        assert want in r.stdout + r.stderr, "README line %d promises %r" % (line, want)
