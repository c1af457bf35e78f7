"""`python -m tools.tournament`: bot levels, baselines and outside bots against each other (see --help)."""
import sys

from tools.tournament import main

sys.exit(main())
