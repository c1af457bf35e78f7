"""`python -m tools.sim`: see tools/sim/cli.py."""
import sys

from tools.sim.cli import main

sys.exit(main())
