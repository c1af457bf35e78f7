"""`python -m tools.bench [--only PARTS] [--no-docs]`: measure every speed and memory figure, print it and write docs/performance.md."""
import sys

from tools.bench import main

sys.exit(main())
