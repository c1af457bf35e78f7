"""firmware/modes.py is the one home of mode and phase numbers: every folded copy in a hot module (`_M_MENU = const(1)`) must equal it."""
import re

import pytest

from firmware import modes
from conftest import ROOT

COPIES = ("firmware/app.py", "firmware/status.py")


@pytest.mark.parametrize("path", COPIES)
def test_folded_copies_match_modes(path):
    text = (ROOT / path).read_text()
    copies = re.findall(r"^_([MS]_[A-Z0-9]+) = const\((\d+)\)", text, re.M)
    assert copies, "no folded copies found in %s" % path
    for name, value in copies:
        assert hasattr(modes, name), "%s: _%s is not a name of firmware/modes.py" % (path, name)
        assert getattr(modes, name) == int(value), "%s: _%s = %s, modes.%s = %d" % (path, name, value, name, getattr(modes, name))
    # Every mode/phase name used in the file is a folded copy: none is left a global lookup (or a stale import).
    used = set(re.findall(r"(?<![\w.])([MS]_[A-Z0-9]+)\b", text))
    imported = {"S_TURN"} if path == "firmware/app.py" else set()  # (re-exported for tools/rp2040/probe.py)
    assert used <= imported, used


def test_mode_numbers_are_distinct_and_named():
    ms = {k: v for k, v in vars(modes).items() if k.startswith("M_")}
    assert sorted(ms.values()) == list(range(len(modes.MODE_NAMES)))
    for k, v in ms.items():
        assert modes.MODE_NAMES[v].upper() == k[2:], (k, v)
