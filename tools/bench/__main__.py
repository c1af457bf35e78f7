"""`python -m tools.bench [--only PARTS]`: print every speed and memory figure."""
import sys

from tools.bench import main

sys.exit(main())
