"""The key-script language of the simulators (`A 5`, `B move e5`, `A press *`, `wait 300`, `sync`): parse_script() checks a whole script before anything runs, run_script() plays it on any simulated device; runs on CPython and MicroPython."""
# Uploaded into MicroPython guests as a plain module (tools/sim/guest.py), so it
# sticks to the common subset and imports nothing.

KEY_HOLD_MS = 70  # a deliberate press
KEY_GAP_MS = 60  # between two presses


def parse_script(text):
    """Script text -> list of actions; raises ValueError naming the line on anything unknown (nothing runs then).

    Lines: `A 5` / `B #` (tap a key), `A move e5` (that pad's keys for e5, then #),
    `A press 5` / `A release 5` (hold/let go), `wait 300` (ms), `sync` (run until
    the device waits for both players' next moves, at most 60 s); `;` starts a comment.
    """
    out = []
    n = 0
    for raw in text.split("\n"):
        n += 1
        line = raw.split(";")[0].strip()
        if not line:
            continue
        parts = line.split()
        head = parts[0]
        if head == "sync":
            if len(parts) != 1:
                raise ValueError("line %d: %r: `sync` takes nothing" % (n, raw))
            out.append(("sync",))
        elif head == "wait":
            if len(parts) != 2:
                raise ValueError("line %d: %r: use `wait MS`" % (n, raw))
            try:
                ms = int(parts[1])
            except ValueError:
                raise ValueError("line %d: %r: wait needs whole milliseconds" % (n, raw))
            if ms < 0:
                raise ValueError("line %d: %r: wait must not be negative" % (n, raw))
            out.append(("wait", ms))
        elif head in ("A", "B"):
            pad = 0 if head == "A" else 1
            if len(parts) == 2 and len(parts[1]) == 1:
                out.append(("tap", pad, parts[1]))
            elif len(parts) == 3 and parts[1] == "move":
                cell = _parse_cell(parts[2])
                if cell < 0:
                    raise ValueError("line %d: %r: %r is not a cell a1..i9" % (n, raw, parts[2]))
                out.append(("move", pad, cell))
            elif len(parts) == 3 and parts[1] in ("press", "release") and len(parts[2]) == 1:
                out.append((parts[1], pad, parts[2]))
            else:
                raise ValueError("line %d: %r: use `%s KEY`, `%s move CELL`, `%s press KEY` or `%s release KEY`" % (n, raw, head, head, head, head))
        else:
            raise ValueError("line %d: %r: a line starts with A, B or wait" % (n, raw))
    return out


def run_script(device, actions):
    """Carry out parse_script()'s actions on any simulated device with press/release/tap/move/sync/advance
    (pads 0/1, cells 0..80): tools/sim/vdevice.py's VirtualDevice, tools/sim/rp2040.py's Rp2040Device."""
    for a in actions:
        kind = a[0]
        if kind == "wait":
            device.advance(a[1])
        elif kind == "tap":
            device.tap(a[1], a[2])
        elif kind == "move":
            device.move(a[1], a[2])
        elif kind == "sync":
            device.sync()
        elif kind == "press":
            device.press(a[1], a[2])
            device.advance(KEY_HOLD_MS)
        elif kind == "release":
            device.release(a[1], a[2])
            device.advance(KEY_GAP_MS)


def _parse_cell(t):
    if len(t) != 2:
        return -1
    c = "abcdefghi".find(t[0].lower())
    r = "123456789".find(t[1])
    if c < 0 or r < 0:
        return -1
    return r * 9 + c


