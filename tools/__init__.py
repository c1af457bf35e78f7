"""Host-side tools for What the Shell, run as `python -m tools.NAME` (see README); never copied to a device."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout: engine/, firmware/, boards/, tools/, host_tests/


def stop_child(proc):
    """End a child process that reads stdin (a Node program, an outside bot) politely: close its stdin, give it 5 s,
    then kill it; close its stdout."""
    import subprocess

    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    if proc.stdout is not None:
        proc.stdout.close()
