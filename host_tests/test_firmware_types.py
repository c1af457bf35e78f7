"""The firmware, boards and main.py type-check with pyright against micropython-rp2-stubs (MicroPython's own stdlib stubs)."""
import json
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT

PYRIGHT = ROOT / "tools" / "node" / "node_modules" / ".bin" / "pyright"


@pytest.mark.needs_node
def test_firmware_type_checks_against_micropython_stubs(tmp_path):
    site = sysconfig.get_paths()["purelib"]  # micropython-*-stubs install machine.pyi, stdlib/ ... here
    cfg = json.loads((ROOT / "pyrightconfig.json").read_text())
    cfg["include"] = [str(ROOT / p) for p in cfg["include"]]
    cfg["typeshedPath"] = site  # MicroPython's stdlib stubs instead of CPython's typeshed
    cfg["extraPaths"] = [str(ROOT)]
    cfg.pop("venvPath", None)
    cfg.pop("venv", None)
    conf = tmp_path / "pyrightconfig.json"
    conf.write_text(json.dumps(cfg))
    r = subprocess.run([str(PYRIGHT), "-p", str(conf), "--pythonpath", sys.executable],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 errors" in r.stdout
