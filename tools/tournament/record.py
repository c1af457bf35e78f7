"""Experiment record for tournament runs: the exact command, the commit (and whether the tree was clean) and the host."""
import platform
import subprocess
import sys

from tools import ROOT


def commit():
    """'<sha>' of the checkout, '+ uncommitted changes' when the tree differs from it; 'unknown' without git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if not sha:
        return "unknown"
    return sha + (" + uncommitted changes" if dirty else "")


def header_lines(argv, module="tools.tournament"):
    """Lines printed before a run's results, enough to run it again: command, commit, Python and host."""
    if argv and argv[0].startswith("tools."):
        module, argv = argv[0], argv[1:]
    cmd = "python -m %s %s" % (module, " ".join(_quote(a) for a in argv))
    return [
        "command: %s" % cmd.strip(),
        "commit: %s" % commit(),
        "python: %s %s on %s (%s)" % (platform.python_implementation(), platform.python_version(),
                                      platform.machine(), platform.node() or "?"),
    ]


def _quote(a):
    import shlex

    return shlex.quote(a)


if __name__ == "__main__":
    print("\n".join(header_lines(sys.argv[1:])))
