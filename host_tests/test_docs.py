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
