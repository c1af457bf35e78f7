"""Settings and scores on flash as small JSON files: atomic writes (temp file + rename); a missing or corrupt file gives defaults."""
import json
import os


def _join(d, name):
    if not d or d == ".":
        return name
    return d + name if d.endswith("/") else d + "/" + name


class Store:
    """One JSON object in `dir/name`, merged over `defaults` (unknown keys and wrong types are dropped)."""

    def __init__(self, directory, name, defaults):
        self.path = _join(directory, name)
        self.defaults = defaults
        self.data = {}
        self.load()

    def load(self):
        data = {}
        for k in self.defaults:
            v = self.defaults[k]
            data[k] = list(v) if isinstance(v, list) else v
        try:
            with open(self.path) as f:
                got = json.load(f)
            if isinstance(got, dict):
                for k in got:
                    if k in data and type(got[k]) is type(data[k]):
                        if isinstance(data[k], list) and len(got[k]) != len(data[k]):
                            continue
                        data[k] = got[k]
        except Exception:  # missing, unreadable, not JSON: defaults, never a crash
            pass
        self.data = data
        return data

    def save(self):
        """Write the data; False when the flash is full or read-only (play goes on without saving)."""
        return write_atomic(self.path, json.dumps(self.data))


def write_atomic(path, text):
    """Write `text` to a temp file, then rename it over `path`: a power cut leaves the old or the new file, never half of one.
    Returns False (and leaves the old file) when the filesystem refuses."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        try:
            os.rename(tmp, path)
        except OSError:
            # Some filesystems refuse to rename over an existing file.
            try:
                os.remove(path)
            except OSError:
                pass
            os.rename(tmp, path)
        return True
    except OSError:
        return False


def append_log(directory, name, text, keep=2048):
    """Append `text` to a log file, keeping its last `keep` bytes (written atomically)."""
    path = _join(directory, name)
    try:
        with open(path) as f:
            old = f.read()
    except Exception:  # missing or unreadable: start a new log
        old = ""
    write_atomic(path, (old + text)[-keep:])
