"""Experiment record for tournament runs: the exact command, the commit and the machine (tools/report.py's, one home)."""
import shlex
import sys

from tools import report


def header_lines(argv, module="tools.tournament"):
    """Lines printed before a run's results, enough to run it again: command, commit and machine."""
    if argv and argv[0].startswith("tools."):
        module, argv = argv[0], argv[1:]
    cmd = ".venv/bin/python -m %s %s" % (module, " ".join(shlex.quote(a) for a in argv))
    return ["command: %s" % cmd.strip(), "commit: %s" % report.commit(), "machine: %s" % report.machine()]


if __name__ == "__main__":
    print("\n".join(header_lines(sys.argv[1:])))
