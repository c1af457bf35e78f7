"""`python -m tools.render SUBCOMMAND`: pictures of frames, wiring, the key scheme, terminal screens and the demo game."""
import sys

from tools.render import main

sys.exit(main())
