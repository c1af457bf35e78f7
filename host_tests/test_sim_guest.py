"""The simulator's guest modules (tools/sim/guest.py) run as plain top-level files inside MicroPython: the chip fakes on their own, the key-script language with the host's actions, VirtualDevice with the host's result."""
import pytest

import boards
from tools.sim import guest
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice

SCRIPT = "A move e5\nB move e5\nsync\nA move d4 ; a comment\nB 6\nB release 6\nwait 50\nB move f6\nsync\n"


def test_guest_sources_are_the_simulators_files_and_nothing_else():
    files = guest.sources()
    assert sorted(files) == sorted(m + ".py" for m in guest.MODULES)
    assert files["keyscript.py"].startswith(b'"""The key-script language')
    with pytest.raises(ValueError, match="not a guest module"):
        guest.sources(("terminal",))


@pytest.mark.needs_node
def test_guest_modules_run_at_the_root_of_micropython():
    from tools import upy
    from tools.sim.device import guest_files

    code = ("import sys\nsys.path.insert(0, '/')\nimport fakehw\n"
            "print('alone', 'keyscript' not in sys.modules and 'vdevice' not in sys.modules)\n"
            "import keyscript, vdevice, boards\n"
            "print(keyscript.parse_script(%r))\n"
            "dev = vdevice.VirtualDevice(boards.load('pico'), mode='2p', seed=1, keep_frames=False)\n"
            "dev.run(keyscript.parse_script(%r))\nprint(dev.report())\n" % (SCRIPT, SCRIPT))
    out = upy.run(code, files=guest_files()).strip().split("\n")
    assert out[0] == "alone True"          # fakehw imports no other simulator module (the virtual board runs it alone)
    assert out[1] == repr(parse_script(SCRIPT))
    host = VirtualDevice(boards.load("pico"), mode="2p", seed=1, keep_frames=False)
    host.run(parse_script(SCRIPT))
    assert "\n".join(out[2:]) == host.report()
