""".ci/run, what CI runs on a clean clone: the Debian packages some tests need (in CI, as root, only when missing), then exactly the README's test command."""
import os
import shutil
import subprocess

from conftest import ROOT


def _ci_run(tmp_path, **env):
    """.ci/run in a copy whose ./wts only says it ran, with fake `id` (root) and `apt-get` (logs)."""
    co = tmp_path / "ci"
    (co / ".ci").mkdir(parents=True)
    shutil.copy(ROOT / ".ci" / "run", co / ".ci" / "run")
    log = tmp_path / "log"
    (co / "wts").write_text("#!/bin/sh\necho \"wts $*\" >> %s\n" % log)
    b = tmp_path / "cibin"
    b.mkdir()
    for cmd in ("sh", "dirname"):
        (b / cmd).symlink_to(shutil.which(cmd))
    (b / "id").write_text("#!/bin/sh\necho 0\n")
    (b / "apt-get").write_text("#!/bin/sh\necho \"apt-get $*\" >> %s\n" % log)
    for f in (co / "wts", b / "id", b / "apt-get"):
        f.chmod(0o755)
    full = {k: v for k, v in os.environ.items() if k != "CI"}
    full.update(env, PATH=str(b))
    r = subprocess.run(["sh", str(co / ".ci" / "run")], env=full, capture_output=True, text=True, timeout=60)
    return r, log.read_text().splitlines() if log.exists() else []


def test_ci_installs_systemd_and_the_dejavu_fonts_then_runs_the_readme_command(tmp_path):
    # No systemd-analyze on this PATH: in CI (as root) the Debian packages come first, then `./wts test`.
    r, calls = _ci_run(tmp_path, CI="true")
    assert r.returncode == 0, r.stderr
    installs = [c for c in calls if c.startswith("apt-get install")]
    assert any(c.split()[-2:] == ["systemd", "fonts-dejavu-core"] for c in installs), calls
    assert calls[-1] == "wts test"
    # Outside CI nothing is installed.
    r, calls = _ci_run(tmp_path / "local")
    assert calls == ["wts test"]
