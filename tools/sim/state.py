"""Where the simulator keeps settings and scores between runs: a per-user state folder (XDG_STATE_HOME, else ~/.local/state)."""
import os

APP_DIR = "what-the-shell"


def state_dir(environ=None):
    """$XDG_STATE_HOME/what-the-shell, else ~/.local/state/what-the-shell (the XDG base-directory rule), created if missing."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):       # the spec: a relative value is invalid and must be ignored
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    path = os.path.join(base, APP_DIR)
    os.makedirs(path, exist_ok=True)
    return path
