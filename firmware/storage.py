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
        """Write to a temp file, then rename over the old one, so a power cut leaves the old or the new file."""
        tmp = self.path + ".tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(self.data, f)
            try:
                os.rename(tmp, self.path)
            except OSError:
                # Some filesystems refuse to rename over an existing file.
                try:
                    os.remove(self.path)
                except OSError:
                    pass
                os.rename(tmp, self.path)
            return True
        except OSError:
            return False  # flash full or read-only: play on without saving


def append_log(directory, name, text, keep=2048):
    """Append `text` to a log file, keeping its last `keep` bytes; written as temp + rename."""
    path = _join(directory, name)
    old = ""
    try:
        with open(path) as f:
            old = f.read()
    except Exception:
        old = ""
    new = (old + text)[-keep:]
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(new)
        try:
            os.rename(tmp, path)
        except OSError:
            try:
                os.remove(path)
            except OSError:
                pass
            os.rename(tmp, path)
    except OSError:
        pass
