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
        if not json_ok(raw):
            return None
        # Decoded first: strict UTF-8 on every port (CPython's json.loads(bytes) would also take UTF-16 and a BOM).
        return json.loads(raw.decode())
    except Exception:  # OSError, ValueError (UnicodeError too), RecursionError, MemoryError: never a crash
        return None


# json_ok's states: a value is due (or, in a new list, "]"), a key is due (or, in a new object, "}"), ":" is due,
# a value was read ("," or the container's close is due).
_VALUE, _FIRST, _KEY, _FIRST_KEY, _COLON, _AFTER = 0, 1, 2, 3, 4, 5
_ESCAPES = b'"\\/bfnrt'
_HEX = b"0123456789abcdefABCDEF"
MAX_DEPTH = 16  # nothing stored here nests deeper than 2


def _string(raw, i, n):
    # raw[i] is the opening quote: the index after the closing one, or -1 (unterminated, a control byte, a bad escape).
    i += 1
    while i < n:
        c = raw[i]
        if c == 34:  # "
            return i + 1
        if c < 32:
            return -1
        if c == 92:  # backslash
            if i + 1 >= n:
                return -1
            e = raw[i + 1]
            if e == 117:  # u: four hex digits
                if i + 6 > n:
                    return -1
                for k in range(i + 2, i + 6):
                    if raw[k] not in _HEX:
                        return -1
                i += 6
                continue
            if e not in _ESCAPES:
                return -1
            i += 2
            continue
        i += 1
    return -1


def _digits(raw, i, n):
    j = i
    while j < n and 48 <= raw[j] <= 57:
        j += 1
    return j


def _number(raw, i, n):
    # -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? from raw[i]: the index after it, or -1.
    if raw[i] == 45:  # -
        i += 1
    if i >= n or not 48 <= raw[i] <= 57:
        return -1
    i = i + 1 if raw[i] == 48 else _digits(raw, i, n)
    if i < n and raw[i] == 46:  # .
        j = _digits(raw, i + 1, n)
        if j == i + 1:
            return -1
        i = j
    if i < n and raw[i] in b"eE":
        i += 1
        if i < n and raw[i] in b"+-":
            i += 1
        j = _digits(raw, i, n)
        if j == i:
            return -1
        i = j
    return i


def json_ok(raw):
    """True when the bytes `raw` are one JSON text by the grammar (RFC 8259), nested at most MAX_DEPTH deep.
    MicroPython's json.loads also takes text that is none: it reads ',' and ':' as spaces (a damaged
    '{"seating"0}' gave seating 0 on a device and the browser, the defaults under CPython), lets ']' close
    a '{' and drops a key without a value; a damaged file must mean the defaults on every port."""
    n = len(raw)
    i = 0
    stack = bytearray()  # the open containers: ord("[") or ord("{")
    state = _VALUE
    while True:
        while i < n and raw[i] in b" \t\n\r":
            i += 1
        if i >= n:
            return state == _AFTER and not stack
        c = raw[i]
        if state == _AFTER:
            if not stack:
                return False  # something after the one value
            top = stack[-1]
            if c == 44:  # ,
                state = _VALUE if top == 91 else _KEY
                i += 1
            elif c == top + 2:  # "]" closes "[", "}" closes "{"
                stack = stack[:-1]
                i += 1
            else:
                return False
        elif state == _COLON:
            if c != 58:  # :
                return False
            state = _VALUE
            i += 1
        elif state == _KEY or state == _FIRST_KEY:
            if c == 125 and state == _FIRST_KEY:  # {}
                stack = stack[:-1]
                state = _AFTER
                i += 1
            elif c == 34:
                i = _string(raw, i, n)
                if i < 0:
                    return False
                state = _COLON
            else:
                return False
        elif c == 93 and state == _FIRST:  # []
            stack = stack[:-1]
            state = _AFTER
            i += 1
        elif c == 91 or c == 123:  # [ {
            if len(stack) >= MAX_DEPTH:
                return False
            stack.append(c)
            state = _FIRST if c == 91 else _FIRST_KEY
            i += 1
        else:
            if c == 34:
                i = _string(raw, i, n)
            elif c == 45 or 48 <= c <= 57:
                i = _number(raw, i, n)
            else:
                i = _literal(raw, i)
            if i < 0:
                return False
            state = _AFTER


def _literal(raw, i):
    for word in (b"true", b"false", b"null"):
        if raw[i:i + len(word)] == word:
            return i + len(word)
    return -1


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
