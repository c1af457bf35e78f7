"""`python -m tools.render COMMAND`: see tools/render/cli.py."""
import sys

from tools.render.cli import main

sys.exit(main())
