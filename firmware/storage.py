"""Settings and scores on flash as small JSON files: atomic writes (temp file + rename); a missing, oversized or damaged file gives defaults, a value that means nothing gives that value's default."""
import json
import os

# A stored file is a few dozen bytes (settings ~70, scores ~80); one bigger than this was not
# written by this device, and reading it whole could fill the heap: at most MAX_BYTES + 1 are read.
MAX_BYTES = 1024


def _join(d, name):
    if not d or d == ".":
        return name
    return d + name if d.endswith("/") else d + "/" + name


def _same_shape(name, v, default):
    # The check without a `valid` function: the default's type (a bool is no int), a list's length.
    if type(v) is not type(default):
        return False
    return not isinstance(v, list) or len(v) == len(default)


def read_json(path, limit=MAX_BYTES):
    """The JSON value in `path`, or None when it is missing, unreadable, longer than `limit` bytes,
    not UTF-8 or not JSON (nested too deep counts as not JSON). Reads at most limit + 1 bytes."""
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)
        if len(raw) > limit:
            return None
        # Decoded first: strict UTF-8 on every port (CPython's json.loads(bytes) would also take UTF-16 and a BOM).
        return json.loads(raw.decode())
    except Exception:  # OSError, ValueError (UnicodeError too), RecursionError, MemoryError: never a crash
        return None


class Store:
    """One JSON object in `dir/name`, merged over `defaults`: each key whose stored value passes
    `valid(key, value)` (default: the same type as its default, a list of the same length) is kept,
    every other key gets its default, unknown keys are dropped."""

    def __init__(self, directory, name, defaults, valid=None):
        self.path = _join(directory, name)
        self.defaults = defaults
        self.valid = valid
        self.data = {}
        self.load()

    def load(self):
        data = {}
        got = read_json(self.path)
        if not isinstance(got, dict):
            got = None
        ok = self.valid
        for k in self.defaults:
            v = self.defaults[k]
            if got is not None and k in got:
                g = got[k]
                if (ok(k, g) if ok is not None else _same_shape(k, g, v)):
                    v = g
            data[k] = list(v) if isinstance(v, list) else v
        self.data = data
        return data

    def save(self):
        """Write the data; False when the flash is full or read-only (play goes on without saving)."""
        return write_atomic(self.path, json.dumps(self.data))


def write_atomic(path, text):
    """Write `text` (str or bytes) to a temp file, then rename it over `path`: a power cut leaves the old or
    the new file, never half of one. Returns False (and leaves the old file) when the filesystem refuses."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb" if isinstance(text, bytes) else "w") as f:
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
    """Append `text` to a log file, keeping its last `keep` bytes (written atomically). Only those last
    bytes of the old log are read, whatever its size; its bytes are kept as they are (UTF-8 or not)."""
    path = _join(directory, name)
    old = b""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            if size > keep:
                f.seek(size - keep)
            else:
                f.seek(0)
            old = f.read(keep)
    except Exception:  # missing or unreadable: start a new log
        pass
    write_atomic(path, (old + text.encode())[-keep:])
